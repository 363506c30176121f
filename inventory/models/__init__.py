"""Inventory models, split by domain (NetBox style); import them from ``inventory.models``."""

from .builds import *  # noqa: F403
from .cables import *  # noqa: F403
from .netbox import *  # noqa: F403
from .optics import *  # noqa: F403
from .servers import *  # noqa: F403
from .sites import *  # noqa: F403
from .switches import *  # noqa: F403
