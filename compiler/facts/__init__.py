"""FabricFacts: everything derived from the snapshot that more than one device's config needs.

Allocations (completed with :func:`compiler.allocate.allocate`), the fabric links with both ends and their
addresses, per-device BGP peers, designed ECMP groups and the VTEPs carrying each VNI. Built in O(links):
ECMP widths between leaf pairs are not materialised (that would be quadratic); leaves with the same set of
spines form one :class:`EcmpGroup`, and :meth:`FabricFacts.ecmp_width` answers for any pair.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from compiler.allocate import allocate, linux_vrf_table, transit_vlan
from compiler.model import Allocations, Endpoint, Role, Snapshot, Underlay
from compiler.natural import natural_key
from compiler.topology import VTEP_ROLES, OverlayPlacement, is_fabric_cable, orient, place_overlay


@dataclass(frozen=True, slots=True)
class FabricLink:
    """One switch-to-switch cable; ``upper`` is the end closer to the core (spine side of a leaf uplink)."""

    cable: str
    upper: Endpoint
    lower: Endpoint
    upper_address: str | None  # "10.1.0.0/31"; None in an unnumbered underlay
    lower_address: str | None
    speed_gbps: int
    length_m: float
    cable_type: str

    def __str__(self) -> str:
        return f"{self.upper}<->{self.lower}"


@dataclass(frozen=True, slots=True)
class BgpPeer:
    local_device: str
    local_interface: str
    local_address: str | None  # without prefix length; None when unnumbered
    peer_device: str
    peer_interface: str
    peer_address: str | None
    peer_asn: int
    cable: str


@dataclass(frozen=True, slots=True)
class EcmpGroup:
    """Leaves cabled to exactly the same spines: between two of them the designed ECMP width is len(spines)."""

    spines: tuple[str, ...]
    leaves: tuple[str, ...]


@dataclass(frozen=True)
class FabricFacts:
    allocations: Allocations
    placement: OverlayPlacement
    links: tuple[FabricLink, ...]
    peers: Mapping[str, tuple[BgpPeer, ...]]  # hostname -> sessions, natural order of local interface
    links_at: Mapping[Endpoint, FabricLink]  # both ends indexed
    uplinks: Mapping[str, frozenset[str]]  # leaf/border -> spines it is cabled to
    ecmp_groups: tuple[EcmpGroup, ...]
    vtep_hosts_by_vni: Mapping[int, tuple[str, ...]]  # VNI -> VTEP switches carrying it (natural order)
    l2vnis_by_network: Mapping[str, int]
    l3vnis_by_tenant: Mapping[str, int]
    # Tenant -> its transit VLAN (symmetric IRB on platforms needing a VLAN per L3VNI, SONiC) and its Linux
    # kernel VRF table (FRR/Linux and the twin): decided here once, carried by the structured config.
    transit_vlans_by_tenant: Mapping[str, int]
    linux_vrf_tables_by_tenant: Mapping[str, int]

    __hash__ = None  # type: ignore[assignment]  # holds mappings: unhashable on purpose

    def ecmp_width(self, leaf_a: str, leaf_b: str) -> int:
        """Designed ECMP width between two leaves: the number of spines both are cabled to."""
        return len(self.uplinks.get(leaf_a, frozenset()) & self.uplinks.get(leaf_b, frozenset()))

    def ecmp_pairs(self) -> Iterator[tuple[str, str, int]]:
        """Every leaf pair with its width, lazily (quadratic in leaves; iterate, do not store)."""
        leaves = sorted(self.uplinks, key=natural_key)
        for index, leaf_a in enumerate(leaves):
            for leaf_b in leaves[index + 1:]:
                yield leaf_a, leaf_b, self.ecmp_width(leaf_a, leaf_b)

def _address_only(address: str | None) -> str | None:
    return address.split("/")[0] if address else None


def build_facts(snapshot: Snapshot, allocations: Allocations | None = None) -> FabricFacts:
    """``allocations``: already completed allocations (from check_intent); computed from the snapshot if None."""
    inventory, intent = snapshot.inventory, snapshot.intent
    if allocations is None:
        allocations = allocate(inventory, intent, snapshot.allocations)
    numbered = intent.underlay == Underlay.NUMBERED
    switches = inventory.switches_by_name
    links: list[FabricLink] = []
    links_at: dict[Endpoint, FabricLink] = {}
    peers: dict[str, list[BgpPeer]] = {switch.hostname: [] for switch in inventory.switches}
    uplinks: dict[str, set[str]] = {s.hostname: set() for s in inventory.switches if s.role in VTEP_ROLES}
    # Inventory order (deterministic for a given snapshot); per-device lists are sorted below.
    for cable in inventory.cables:
        if not is_fabric_cable(inventory, cable):
            continue
        upper, lower = orient(inventory, cable)
        upper_address = lower_address = None
        if numbered:
            a_end, b_end = allocations.p2p[cable.label]
            upper_address, lower_address = (a_end, b_end) if upper == cable.a else (b_end, a_end)
        upper_port = switches[upper.device].interfaces_by_name[upper.interface]
        lower_port = switches[lower.device].interfaces_by_name[lower.interface]
        link = FabricLink(cable=cable.label, upper=upper, lower=lower, upper_address=upper_address,
                          lower_address=lower_address, speed_gbps=min(upper_port.speed_gbps, lower_port.speed_gbps),
                          length_m=cable.length_m, cable_type=cable.cable_type)
        links.append(link)
        links_at[upper] = link
        links_at[lower] = link
        upper_ip, lower_ip = _address_only(upper_address), _address_only(lower_address)  # once per link end
        for local, local_ip, remote, remote_ip in ((upper, upper_ip, lower, lower_ip),
                                                   (lower, lower_ip, upper, upper_ip)):
            peers[local.device].append(BgpPeer(
                local_device=local.device, local_interface=local.interface, local_address=local_ip,
                peer_device=remote.device, peer_interface=remote.interface,
                peer_address=remote_ip, peer_asn=allocations.asns[remote.device],
                cable=cable.label))
        if lower.device in uplinks and switches[upper.device].role == Role.SPINE:
            uplinks[lower.device].add(upper.device)
    groups: dict[frozenset[str], list[str]] = {}
    for leaf, spines in uplinks.items():
        groups.setdefault(frozenset(spines), []).append(leaf)
    ecmp_groups = tuple(sorted(
        (EcmpGroup(spines=tuple(sorted(spines, key=natural_key)), leaves=tuple(sorted(leaves, key=natural_key)))
         for spines, leaves in groups.items()), key=lambda group: natural_key(group.leaves[0])))
    placement = place_overlay(inventory, intent)
    l2vnis = {network.name: allocations.l2vnis[network.name] for network in intent.networks}
    l3vnis = {tenant.name: allocations.l3vnis[tenant.name] for tenant in intent.tenants}
    transit_vlans = {tenant: transit_vlan(intent, l3vni) for tenant, l3vni in l3vnis.items()}
    vrf_tables = {tenant: linux_vrf_table(intent, l3vni) for tenant, l3vni in l3vnis.items()}
    hosts_by_vni: dict[int, list[str]] = {}
    for host in sorted(placement.networks_on, key=natural_key):
        for network in placement.networks_on[host]:
            hosts_by_vni.setdefault(l2vnis[network.name], []).append(host)
        for tenant in placement.tenants_on[host]:
            hosts_by_vni.setdefault(l3vnis[tenant.name], []).append(host)
    return FabricFacts(
        allocations=allocations,
        placement=placement,
        links=tuple(links),
        peers={host: tuple(sorted(items, key=lambda p: (natural_key(p.local_interface), p.peer_address or "")))
               for host, items in peers.items()},
        links_at=links_at,
        uplinks={leaf: frozenset(spines) for leaf, spines in uplinks.items()},
        ecmp_groups=ecmp_groups,
        vtep_hosts_by_vni={vni: tuple(hosts) for vni, hosts in sorted(hosts_by_vni.items())},
        l2vnis_by_network=l2vnis,
        l3vnis_by_tenant=l3vnis,
        transit_vlans_by_tenant=transit_vlans,
        linux_vrf_tables_by_tenant=vrf_tables,
    )
