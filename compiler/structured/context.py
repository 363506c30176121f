"""What every feature module reads: the snapshot, the facts and fabric-wide values computed once."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from compiler.facts import FabricFacts
from compiler.model import Role, RouteTargetScheme, Snapshot
from compiler.structured.qos_policy import FabricQos, build_fabric_qos
from compiler.topology import VTEP_ROLES


@dataclass(frozen=True)
class StructuredContext:
    snapshot: Snapshot
    facts: FabricFacts
    overlay_enabled: bool  # any tenant or network, or intent.evpn_overlay: EVPN address family on every session
    qos: FabricQos | None
    # hostname -> interface name -> (cable, peer device, peer interface): plain-string keys, built once
    ports: dict[str, dict[str, tuple]]
    # (hostname, interface name) -> this end's /31 (None when unnumbered) for fabric links
    link_addresses: dict[tuple[str, str], str | None]
    # (hostname, interface name) -> networks of the server NIC cabled there
    port_networks: dict[tuple[str, str], tuple]
    # VNI -> (VTEP IPs of the switches carrying it, in facts order; hostname -> its index there). Flood lists are
    # "every other VTEP": slicing this list around the device's own index is O(1) Python work per VTEP and VNI,
    # where filtering the host list costs 1,024 steps each on a 1,024-leaf fabric. The index is None when a host
    # is listed twice (VNIs clashing), so the plain filter handles that.
    vtep_ips_by_vni: dict[int, tuple[list[str], dict[str, int] | None]]
    # ASNs carried by more than one VTEP switch (per_rack scheme): those switches need allowas-in to accept each
    # other's routes, which AS-path loop prevention (RFC 4271 9.1.2) would otherwise drop.
    shared_vtep_asns: frozenset[int] = frozenset()
    # VNI -> the distinct ASNs of the VTEPs carrying it, ascending: the import list of the ``auto`` route-target
    # scheme (empty under the ``vni`` scheme, which does not need it)
    asns_by_vni: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # The super-spines' shared ASN in a 5-stage Clos (RFC 7938 section 5.2.1), None in a two-tier fabric: the
    # valley_free feature filters on it
    super_spine_asn: int | None = None

    __hash__ = None  # type: ignore[assignment]  # holds mappings: unhashable on purpose

    @classmethod
    def build(cls, snapshot: Snapshot, facts: FabricFacts) -> StructuredContext:
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
        vteps = facts.allocations.vteps
        vtep_ips_by_vni = {}
        for vni, hosts in facts.vtep_hosts_by_vni.items():
            index_of = {host: index for index, host in enumerate(hosts)}
            vtep_ips_by_vni[vni] = ([vteps[host] for host in hosts], index_of if len(index_of) == len(hosts) else None)
        vtep_roles = {switch.hostname for switch in snapshot.inventory.switches if switch.role in VTEP_ROLES}
        asn_users = Counter(asn for host, asn in facts.allocations.asns.items() if host in vtep_roles)
        shared = frozenset(asn for asn, users in asn_users.items() if users > 1)
        asns = facts.allocations.asns
        asns_by_vni = {}
        if intent.route_target_scheme == RouteTargetScheme.AUTO:
            asns_by_vni = {vni: tuple(sorted({asns[host] for host in hosts}))
                           for vni, hosts in facts.vtep_hosts_by_vni.items()}
        super_spine_asns = {asns[s.hostname] for s in snapshot.inventory.switches if s.role == Role.SUPER_SPINE}
        return cls(snapshot=snapshot, facts=facts, overlay_enabled=bool(intent.networks or intent.tenants or intent.evpn_overlay),
                   qos=build_fabric_qos(intent) if intent.roce_classes else None, ports=ports,
                   link_addresses=link_addresses, port_networks=port_networks, vtep_ips_by_vni=vtep_ips_by_vni,
                   shared_vtep_asns=shared, asns_by_vni=asns_by_vni,
                   super_spine_asn=min(super_spine_asns) if super_spine_asns else None)

    @property
    def intent(self):
        return self.snapshot.intent

    @property
    def inventory(self):
        return self.snapshot.inventory
