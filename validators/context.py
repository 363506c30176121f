"""What every check reads: the structured configs (the contract in docs/structured-config.md), the snapshot's
inventory and intent when there is one, and views computed once per run and shared by the checks (BGP
sessions, the routing model, the leaf-pair ECMP matrix).

Checks accept a :class:`FabricContext`, a ``CompileResult`` (anything with ``.structured`` and ``.snapshot``)
or a bare ``{hostname: structured config}`` dict; :func:`as_context` turns any of them into a context.
Pure Python; never imports Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from socket import inet_aton

from compiler.model import Role, Snapshot
from compiler.topology import VTEP_ROLES

__all__ = ["VTEP_ROLES", "CORE_ROLES", "CheckSkipped", "FabricContext", "as_context"]

CORE_ROLES = frozenset({Role.SPINE, Role.SUPER_SPINE})


class CheckSkipped(Exception):
    """Raised by a check that cannot run here; the report records it as skipped with this reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class FabricContext:
    def __init__(self, structured: Mapping[str, dict], snapshot: Snapshot | None = None, rendered=None) -> None:
        self.structured = structured
        self.snapshot = snapshot
        self.rendered = rendered  # host -> platform -> file -> text, when built from a CompileResult

    @property
    def inventory(self):
        return self.snapshot.inventory if self.snapshot is not None else None

    @property
    def intent(self):
        return self.snapshot.intent if self.snapshot is not None else None

    @cached_property
    def sessions(self):
        from validators.sessions import build_sessions

        return build_sessions(self.structured)

    @cached_property
    def routing(self):
        from validators.routing import RoutingModel

        return RoutingModel.from_context(self)

    @cached_property
    def leaf_pairs(self):
        from validators.ecmp import leaf_pair_matrix

        return leaf_pair_matrix(self.routing, self)

    @cached_property
    def interface_index(self) -> dict[tuple[str, str], dict]:
        """(device, interface name) -> structured interface entry."""
        return {(host, interface["name"]): interface
                for host, config in self.structured.items() for interface in config["interfaces"]}


def as_context(source) -> FabricContext:
    if isinstance(source, FabricContext):
        return source
    if hasattr(source, "structured"):
        return FabricContext(source.structured, getattr(source, "snapshot", None), getattr(source, "rendered", None))
    if isinstance(source, Mapping):
        return FabricContext(source)
    raise TypeError(f"cannot validate a {type(source).__name__}: pass a CompileResult, FabricContext or dict")


# --------------------------------------------------------------------------------------------- addresses
# The ipaddress module costs microseconds per parse; a 65,536-link fabric has 262,144 addresses to compare,
# so the hot paths use these integer helpers instead.


def ip_to_int(text: str) -> int:
    try:
        return int.from_bytes(inet_aton(text), "big")
    except OSError:
        raise ValueError(f"not an IPv4 address: {text!r}") from None


def short_list(names, limit: int = 4) -> str:
    """'leaf1, leaf2, leaf3 and 1021 more' for messages about many devices."""
    names = list(names)
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit} more"
