"""What every feature module reads: the snapshot, the facts and fabric-wide values computed once."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.model import Snapshot
from compiler.structured.qos_policy import FabricQos, build_fabric_qos


@dataclass(frozen=True)
class StructuredContext:
    snapshot: Snapshot
    facts: object  # compiler.facts.FabricFacts (kept loose to avoid an import cycle)
    overlay_enabled: bool  # any tenant or network: EVPN address family on every session
    qos: FabricQos | None
    # hostname -> interface name -> (cable, peer device, peer interface): plain-string keys, built once
    ports: dict[str, dict[str, tuple]]
    # (hostname, interface name) -> this end's /31 (None when unnumbered) for fabric links
    link_addresses: dict[tuple[str, str], str | None]
    # (hostname, interface name) -> networks of the server NIC cabled there
    port_networks: dict[tuple[str, str], tuple]

    __hash__ = None

    @classmethod
    def build(cls, snapshot: Snapshot, facts) -> StructuredContext:
        intent = snapshot.intent
        ports: dict[str, dict[str, tuple]] = {switch.hostname: {} for switch in snapshot.inventory.switches}
        for cable in snapshot.inventory.cables:
            for end, other in ((cable.a, cable.b), (cable.b, cable.a)):
                if end.device in ports:
                    ports[end.device][end.interface] = (cable, other.device, other.interface)
        link_addresses: dict[tuple[str, str], str | None] = {}
        for link in facts.links:
            link_addresses[(link.upper.device, link.upper.interface)] = link.upper_address
            link_addresses[(link.lower.device, link.lower.interface)] = link.lower_address
        port_networks = {(port.device, port.interface): networks
                         for port, networks in facts.placement.port_networks.items()}
        return cls(snapshot=snapshot, facts=facts, overlay_enabled=bool(intent.networks or intent.tenants),
                   qos=build_fabric_qos(intent) if intent.roce_classes else None, ports=ports,
                   link_addresses=link_addresses, port_networks=port_networks)

    @property
    def intent(self):
        return self.snapshot.intent

    @property
    def inventory(self):
        return self.snapshot.inventory
