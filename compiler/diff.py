"""The one diff: unified text diff of rendered configs and a path-level diff of structured configs.

``structured_diff`` matches list items by identity (``name``, then ``id``, ``address``/``interface``) instead of
position, so inserting one interface reports one added item, not every following interface as changed.
"""

from __future__ import annotations

import difflib

_MISSING = object()
IDENTITY_KEYS = ("name", "id", "address", "interface")


def config_diff(old_text: str, new_text: str, old_name: str = "current", new_name: str = "intended",
                context: int = 3) -> str:
    """Unified diff (empty string when identical)."""
    lines = difflib.unified_diff(old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
                                 fromfile=old_name, tofile=new_name, n=context)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _identity(old: list, new: list) -> str | None:
    """The key identifying dict items of both lists: present and unique within each list."""
    items = old + new
    if not items or not all(isinstance(item, dict) for item in items):
        return None
    for key in IDENTITY_KEYS:
        if all(_unique(side, key) for side in (old, new)):
            return key
    return None


def _unique(items: list, key: str) -> bool:
    values = [str(item.get(key)) for item in items if item.get(key) is not None]
    return len(values) == len(items) and len(set(values)) == len(values)


def structured_diff(old: object, new: object, path: str = "") -> list[tuple[str, object, object]]:
    """[(path, old, new)] for every leaf that differs; an absent side is None. Paths: ``interfaces[Ethernet1].mtu``."""
    changes: list[tuple[str, object, object]] = []
    _walk(old, new, path, changes)
    return changes


def _walk(old: object, new: object, path: str, changes: list) -> None:
    if old is new or (type(old) is type(new) and not isinstance(old, (dict, list)) and old == new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [key for key in new if key not in old]:
            child = f"{path}.{key}" if path else str(key)
            _walk(old.get(key, _MISSING), new.get(key, _MISSING), child, changes)
        return
    if isinstance(old, list) and isinstance(new, list):
        key = _identity(old, new)
        if key is not None:
            old_by = {str(item[key]): item for item in old}
            new_by = {str(item[key]): item for item in new}
            for ident in list(old_by) + [ident for ident in new_by if ident not in old_by]:
                _walk(old_by.get(ident, _MISSING), new_by.get(ident, _MISSING), f"{path}[{ident}]", changes)
            return
        if old != new:
            changes.append((path, old, new))
        return
    if old == new and type(old) is type(new):
        return
    changes.append((path, None if old is _MISSING else old, None if new is _MISSING else new))
