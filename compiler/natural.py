"""Natural sort order for names ("leaf2" before "leaf10", "Ethernet1/2" before "Ethernet1/10").

Every list the compiler emits is sorted with :func:`natural_key` so output is deterministic and reads the way
an engineer numbers things.
"""

from __future__ import annotations

import re
from functools import lru_cache

_DIGITS = re.compile(r"(\d+)")


@lru_cache(maxsize=65536)
def natural_key(name: str) -> tuple:
    """Sort key splitting digit runs into integers: natural_key("leaf10") > natural_key("leaf2")."""
    parts = _DIGITS.split(name)
    # Pair every chunk with its kind so ints never compare against strs.
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in parts if part != "")
