"""What every check reads: the structured configs (the contract in docs/structured-config.md), the snapshot's
inventory and intent when there is one, and views computed once per run and shared by the checks (BGP
sessions, the routing model, the leaf-pair ECMP matrix).

The one input of the validators is :class:`ValidationInput` (structured configs, plus the snapshot and the
rendered files when known); :meth:`ValidationInput.from_compile` builds it from a ``CompileResult``.
:func:`as_context` turns a ValidationInput (or, for convenience in checks and tests, a ``CompileResult`` or a
bare ``{hostname: structured config}`` dict) into the shared :class:`FabricContext`.
Pure Python; never imports Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from compiler.api import CompileResult
from compiler.host_config import HostConfig
from compiler.model import Snapshot
from compiler.structured.contract import Interface, StructuredConfig
from validators.common import (
    CORE_ROLES,
    VTEP_ROLES,
    CheckSkipped,
    host_of,
    ip_to_int,
    same_subnet,
    short_list,
    split_prefix,
    subnet_links,
)
from validators.igp import IgpTopology, build_igp
from validators.leaf_pairs import LeafPairMatrix, leaf_pair_matrix
from validators.routing import RoutingModel
from validators.sessions import SessionTable, build_sessions

if TYPE_CHECKING:  # annotation only: whatif reads this context, so a runtime import would close a circle
    from validators.whatif import WhatIfResult

# Re-exported: callers outside the validators (labs, tests) import these names from here.
__all__ = ["VTEP_ROLES", "CORE_ROLES", "CheckSkipped", "FabricContext", "ValidationInput", "as_context",
           "ip_to_int", "split_prefix", "same_subnet", "host_of", "short_list"]

Rendered = Mapping[str, Mapping[str, Mapping[str, str]]]  # host -> platform -> file -> text


@dataclass(frozen=True)
class ValidationInput:
    """What the validators validate: structured configs, and the snapshot (inventory, intent) and rendered files
    when they are known (stored configs of a compile run carry no snapshot facts; a bare structured dict has
    neither, and the checks needing them are skipped with the reason)."""

    structured: Mapping[str, StructuredConfig]
    snapshot: Snapshot | None = None
    rendered: Rendered | None = None
    # Server -> host config read back from the servers (compiler.parse.hosts); None: the hosts checks judge the
    # host config the compiler derives from the snapshot (compiler.host_config)
    hosts: Mapping[str, HostConfig] | None = None

    __hash__ = None  # type: ignore[assignment]  # holds mappings: unhashable on purpose

    @classmethod
    def from_compile(cls, result: CompileResult) -> ValidationInput:
        return cls(structured=result.structured, snapshot=result.snapshot, rendered=result.rendered)


class FabricContext:
    def __init__(self, structured: Mapping[str, StructuredConfig], snapshot: Snapshot | None = None,
                 rendered: Rendered | None = None, external_peers: str = "info",
                 hosts: Mapping[str, HostConfig] | None = None) -> None:
        self.structured = structured
        self.snapshot = snapshot
        self.rendered = rendered  # host -> platform -> file -> text, when known
        self.hosts = hosts  # server -> host config read back, when given (ValidationInput.hosts)
        self.host_links: list | None = None  # validators.hosts: every server NIC with its switch port, built once
        # Severity of bgp.sessions' report of neighbors outside this set (validators.bgp.external_peer_findings).
        self.external_peers = external_peers
        self.whatif_result: WhatIfResult | None = None  # N-1/N-2 scenarios, computed once for both checks
        # What each check looked at, as it says (check -> kind -> count); validators.run puts it on the result
        # and skips a check that examined nothing, so no check can pass on nothing.
        self.examined: dict[str, dict[str, int]] = {}

    def record_examined(self, check: str, counts: Mapping[str, int]) -> None:
        """``check`` examined ``counts`` ({"BGP neighbors": 12}); called by each check once per run."""
        self.examined[check] = {kind: int(count) for kind, count in counts.items()}

    @classmethod
    def from_input(cls, source: ValidationInput) -> FabricContext:
        return cls(source.structured, source.snapshot, source.rendered, hosts=source.hosts)

    @property
    def inventory(self):
        return self.snapshot.inventory if self.snapshot is not None else None

    @property
    def intent(self):
        return self.snapshot.intent if self.snapshot is not None else None

    @cached_property
    def sessions(self) -> SessionTable:
        return build_sessions(self.structured)

    @cached_property
    def routing(self) -> RoutingModel:
        return RoutingModel.from_context(self)

    @cached_property
    def igp(self) -> IgpTopology:
        return build_igp(self.structured)

    @cached_property
    def leaf_pairs(self) -> LeafPairMatrix:
        return leaf_pair_matrix(self.routing, self)

    @cached_property
    def address_owners(self) -> dict[str, str]:
        """Bare address (IPv4 or IPv6 text) -> the device owning it on a port, loopback or SVI (an address several
        devices reuse, like each MLAG pair's peer SVI subnet, keeps one of them)."""
        owner: dict[str, str] = {}
        for host, config in self.structured.items():
            items: list[Mapping] = [port for port in config["interfaces"] if port.get("vrf") in (None, "default")]
            items += config["loopbacks"]
            items += [svi for vlan in config["vlans"] if (svi := vlan.get("svi"))]
            for item in items:
                for key in ("ip", "ipv6"):
                    if item.get(key):
                        owner[str(item[key]).split("/")[0]] = host
        return owner

    @cached_property
    def fabric_parts(self) -> dict[str, int]:
        """Device -> the part of the set it belongs to: devices joined by anything the configs state between
        them (a described cable, a BGP neighbor statement naming an address the other owns, from either end,
        an established session). A set holding two fabrics with nothing between them (AVD's molecule scenario
        gives each of two spines its own leaves) is two parts, and no check may expect a route between them."""
        parent = {host: host for host in self.structured}

        def root(host: str) -> str:
            while parent[host] != host:
                parent[host] = parent[parent[host]]
                host = parent[host]
            return host

        def join(a: str | None, b: str | None) -> None:
            if a in parent and b in parent:
                parent[root(a)] = root(b)

        owner = self.address_owners
        for host, config in self.structured.items():
            for interface in config["interfaces"]:
                join(host, interface.get("peer_device"))
            for neighbor in config["bgp"]["neighbors"]:
                join(host, owner.get(neighbor.get("address") or ""))
        for session in (*self.sessions.established, *self.sessions.loopback_sessions):
            join(session.a, session.b)
        roots: dict[str, int] = {}
        return {host: roots.setdefault(root(host), len(roots)) for host in self.structured}

    @cached_property
    def subnet_links(self) -> dict[tuple[str, str], tuple[str, str]]:
        """Routed ports no cabling names, paired by their point-to-point subnet (validators.common.subnet_links)."""
        return subnet_links(self.structured)

    @cached_property
    def interface_index(self) -> dict[tuple[str, str], Interface]:
        """(device, interface name) -> structured interface entry."""
        return {(host, interface["name"]): interface
                for host, config in self.structured.items() for interface in config["interfaces"]}


def as_context(source: FabricContext | ValidationInput | CompileResult | Mapping[str, StructuredConfig]) -> FabricContext:
    if isinstance(source, FabricContext):
        return source
    if isinstance(source, ValidationInput):
        return FabricContext.from_input(source)
    if isinstance(source, CompileResult):
        return FabricContext.from_input(ValidationInput.from_compile(source))
    if isinstance(source, Mapping):
        return FabricContext(source)
    raise TypeError(f"cannot validate a {type(source).__name__}: pass a ValidationInput, CompileResult, "
                    "FabricContext or {hostname: structured config} dict")
