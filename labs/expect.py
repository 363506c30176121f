"""What a twin's topology predicts for its live checks: sessions, ECMP widths, flood lists, L3VNIs, host ports.

Pure: reads a :class:`labs.topology.TwinTopology` (cables, Linux plans, hosts' networks) and never touches a
running twin, so a twin booted from a compiled fabric is checked against its own intent. The static
prediction from the compile (the validators' model) is a different thing and lives in
``validators.prediction``; ``labs.fidelity`` compares the two kinds of truth with the same measurements.
"""

from __future__ import annotations

import ipaddress
import itertools
import re
from dataclasses import dataclass

from compiler.errors import TwinError
from compiler.host_config import ROCE_HEADER_BYTES
from compiler.model import Role
from validators.prediction import (
    FRR_BFD_INTERVAL_MS,
    FRR_BFD_MULTIPLIER,
    FRR_DATACENTER_HOLD_S,
    FailureDetection,
    detection_by_timers,
)

from .runtime import vtep_of
from .topology import TwinTopology

# [ \t]*, not \s*: under MULTILINE "^\s*" re-scans every following blank line from each line start (quadratic on a
# run of newlines; tests/test_regex_budget.py).
BGP_TIMERS = re.compile(r"^[ \t]*timers bgp (\d+) (\d+)[ \t]*$", re.MULTILINE)
BFD_PEER = re.compile(r"^[ \t]*neighbor \S+ bfd\b", re.MULTILINE)
BFD_DETECT = re.compile(r"^[ \t]*detect-multiplier (\d+)[ \t]*$", re.MULTILINE)
BFD_RECEIVE = re.compile(r"^[ \t]*receive-interval (\d+)[ \t]*$", re.MULTILINE)


def failure_detection(frr_confs: list[str]) -> FailureDetection:
    """The slowest detection among these running configs (``labs.runtime.sizing.policy_frr_conf`` applied):
    BFD's receive interval x detect multiplier where every config peers with BFD, else the BGP hold time."""
    slowest = FailureDetection(0.0, "no BGP")
    for conf in frr_confs:
        if BFD_PEER.search(conf):
            multiplier = int(match.group(1)) if (match := BFD_DETECT.search(conf)) else FRR_BFD_MULTIPLIER
            interval = int(match.group(1)) if (match := BFD_RECEIVE.search(conf)) else FRR_BFD_INTERVAL_MS
            detection = detection_by_timers(bfd=True, bfd_interval_ms=interval, bfd_multiplier=multiplier)
        else:
            hold = int(match.group(2)) if (match := BGP_TIMERS.search(conf)) else FRR_DATACENTER_HOLD_S
            detection = detection_by_timers(bfd=False, hold_s=hold)
        if detection.seconds > slowest.seconds:
            slowest = detection
    return slowest


# Why cross-tenant and L3VNI-only pairs are "static only" in a twin without tenant VRFs. Every kernel gets them
# (kernel VRF devices or FRR's netns VRF backend), so only a boot with FT_TWIN_VRF_BACKEND=none lacks them.
NO_TENANT_VRFS = "this twin was booted without tenant VRFs (FT_TWIN_VRF_BACKEND=none)"


@dataclass(frozen=True, slots=True)
class HostPort:
    host: str
    ifname: str
    address: str  # without prefix length
    leaf: str
    network: str
    tenant: str
    gateway: str | None
    mtu: int
    roce_mtu: int = 0  # the RoCE (IB) MTU the NIC MTU allows; 0: no RoCE class in the fabric
    peer_ifname: str = ""  # the leaf port it is cabled to

    @property
    def roce_frame(self) -> int:
        """The largest IP packet RoCE sends at ``roce_mtu``: the IB MTU plus the 96 bytes of RoCE headers the
        kernel reserves (compiler.host_config.ROCE_HEADER_BYTES); 0 without RoCE."""
        return self.roce_mtu + ROCE_HEADER_BYTES if self.roce_mtu else 0


def host_ports(topology: TwinTopology) -> list[HostPort]:
    return [HostPort(host.name, i.ifname, i.address.split("/")[0], i.peer_node, i.network, i.tenant, i.gateway, i.mtu,
                     i.roce_mtu, i.peer_ifname)
            for host in topology.hosts for i in host.interfaces]


def expected_sessions(topology: TwinTopology) -> dict[str, dict[str, int]]:
    """Node -> address family -> sessions that must be Established: one per fabric link (numbered or
    unnumbered), in ipv4 unicast and, when the node's frr.conf has it, in l2vpn evpn."""
    per_node: dict[str, int] = {node.name: 0 for node in topology.nodes}
    for link in topology.links:
        per_node[link.a_node] += 1
        per_node[link.b_node] += 1
    expected = {}
    for node in topology.nodes:
        families = {"ipv4Unicast": per_node[node.name]}
        if "address-family l2vpn evpn" in node.frr_conf:
            families["l2VpnEvpn"] = per_node[node.name]
        expected[node.name] = families
    return expected


def vteps(topology: TwinTopology) -> dict[str, str]:
    """VTEP node -> VTEP address (from the Linux plans; spines have none)."""
    return {node.name: vtep for node in topology.nodes if (vtep := vtep_of(node))}


def expected_ecmp_widths(topology: TwinTopology) -> dict[tuple[str, str], int]:
    """(source VTEP node, destination VTEP node) -> equal-cost kernel next hops: every link from the source to a
    switch that is also cabled to the destination is one path; between pods of a 5-stage Clos, every link to a
    spine that reaches the destination's pod through a super-spine (validators/tiers.py states why)."""
    neighbours: dict[str, dict[str, int]] = {node.name: {} for node in topology.nodes}
    for link in topology.links:
        neighbours[link.a_node][link.b_node] = neighbours[link.a_node].get(link.b_node, 0) + 1
        neighbours[link.b_node][link.a_node] = neighbours[link.b_node].get(link.a_node, 0) + 1
    role = {node.name: node.role for node in topology.nodes}

    def reaches_through_core(spine: str, destination: str) -> bool:
        # 5-stage Clos (RFC 7938 ASNs): spine -> a super-spine -> a spine of the destination's pod -> destination
        return any(role[top] == Role.SUPER_SPINE and any(role[down] == Role.SPINE and destination in neighbours[down]
                                                      for down in neighbours[top])
                   for top in neighbours[spine])

    widths = {}
    for source, destination in itertools.permutations(vteps(topology), 2):
        widths[(source, destination)] = sum(count for middle, count in neighbours[source].items()
                                            if destination in neighbours[middle])
        if not widths[(source, destination)]:  # another pod
            widths[(source, destination)] = sum(count for middle, count in neighbours[source].items()
                                                if role[middle] == Role.SPINE and reaches_through_core(middle, destination))
    return widths


def expected_flood_lists(topology: TwinTopology) -> dict[str, dict[str, set[str]]]:
    """Node -> VXLAN device -> remote VTEPs that carry the same VNI."""
    members: dict[int, dict[str, tuple[str, str]]] = {}  # vni -> node -> (vxlan device, vtep)
    for node in topology.nodes:
        for bridge in node.linux_plan.get("bridges", []):
            vxlan = bridge.get("vxlan")
            if vxlan:
                members.setdefault(int(vxlan["vni"]), {})[node.name] = (vxlan["name"], vxlan["local"])
    out: dict[str, dict[str, set[str]]] = {}
    for nodes in members.values():
        for name, (device, _vtep) in nodes.items():
            out.setdefault(name, {})[device] = {vtep for other, (_d, vtep) in nodes.items() if other != name}
    return out


def vxlan_vnis(topology: TwinTopology) -> dict[str, dict[str, int]]:
    """Node -> VXLAN device -> its VNI."""
    return {node.name: {bridge["vxlan"]["name"]: int(bridge["vxlan"]["vni"])
                        for bridge in node.linux_plan.get("bridges", []) if bridge.get("vxlan")}
            for node in topology.nodes}


def expected_l3vnis(topology: TwinTopology) -> dict[str, dict[int, tuple[str, tuple[int, ...]]]]:
    """Per switch: L3VNI -> (VRF, L2VNIs whose SVIs are in that VRF), from its Linux plan."""
    out = {}
    for node in topology.nodes:
        plan = node.linux_plan
        l2_by_vrf: dict[str, list[int]] = {}
        for bridge in plan.get("bridges", []):
            if bridge.get("vrf") and bridge.get("vxlan"):
                l2_by_vrf.setdefault(bridge["vrf"], []).append(int(bridge["vxlan"]["vni"]))
        vnis = {int(vrf["l3vni"]): (vrf["name"], tuple(sorted(l2_by_vrf.get(vrf["name"], []))))
                for vrf in plan.get("vrfs", []) if vrf.get("l3vni")}
        if vnis:
            out[node.name] = vnis
    return out


def classify_pair(source: HostPort, destination: HostPort, vrf_devices: bool,
                  destination_svi_on_source_leaf: bool = True) -> str:
    """What the intent says about source -> destination: 'bridged' (same network), 'routed' (same tenant,
    different networks, both with a gateway), 'isolated' (different tenants) or 'unreachable' (no gateway).
    Without kernel VRF devices the twin routes every tenant in one table with asymmetric IRB, so it cannot
    measure isolation, nor routing toward a network whose SVI is absent on the source leaf (that needs the
    L3VNI): those pairs are 'static_only'. ``labs.measure.classify_ping`` applies it to a pair of host ports."""
    if source.network == destination.network:
        return "bridged"
    if source.tenant != destination.tenant:
        return "isolated" if vrf_devices else "static_only"
    if source.gateway and destination.gateway:
        return "routed" if vrf_devices or destination_svi_on_source_leaf else "static_only"
    return "unreachable"


def svi_networks(topology: TwinTopology) -> dict[str, list]:
    """Leaf -> subnets of its SVIs (anycast gateways)."""
    return {node.name: [ipaddress.ip_interface(bridge["svi"]["address"]).network
                        for bridge in node.linux_plan.get("bridges", []) if bridge.get("svi")]
            for node in topology.nodes}


def uplinks(topology: TwinTopology, node: str) -> list[tuple[str, str, str]]:
    """(own ifname, peer node, peer ifname) of a node's switch-to-switch links."""
    out = []
    for link in topology.links:
        if link.a_node == node:
            out.append((link.a_ifname, link.b_node, link.b_ifname))
        elif link.b_node == node:
            out.append((link.b_ifname, link.a_node, link.a_ifname))
    return out


def link_ends(topology: TwinTopology) -> list[tuple[str, str, str, str]]:
    """Both directions of every cable: (node, ifname, peer node, peer ifname), in cable order."""
    out = []
    for link in topology.links:
        out.append((link.a_node, link.a_ifname, link.b_node, link.b_ifname))
        out.append((link.b_node, link.b_ifname, link.a_node, link.a_ifname))
    return out


def flow_endpoints(topology: TwinTopology) -> tuple[HostPort, HostPort]:
    """The first two hosts of one network on different leaves: the flow failure injection cuts."""
    ports = host_ports(topology)
    for source, destination in itertools.permutations(ports, 2):
        if source.network == destination.network and source.leaf != destination.leaf:
            return source, destination
    raise TwinError("failure injection needs two hosts of one network on different leaves")
