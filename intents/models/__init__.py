"""Intent models, split by domain (NetBox style); import them from ``intents.models``."""

from .allocations import *  # noqa: F403
from .carried import *  # noqa: F403
from .compile import *  # noqa: F403
from .fabric import *  # noqa: F403
from .qos import *  # noqa: F403
from .tenancy import *  # noqa: F403
