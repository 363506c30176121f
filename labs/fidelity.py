"""Fidelity: does the live twin measure what the static validators predict for the same compile?

Three steps, each usable alone:

    prediction = predict(compile_result)            # pure: validators' model of the configs (no twin)
    observation = observe(state, prediction)        # the running twin (root + FRR): same items, measured
    result = compare(prediction, observation)       # pure: one Finding per disagreement; the goal is zero

What is compared (every item is keyed in the twin's names: switch hostnames, Linux interface names):

- ``bgp_sessions``  per device and address family: sessions the static pairing (validators.sessions) says
  establish vs sessions the twin's FRR reports Established.
- ``evpn_flood``    per leaf and L2VNI: the remote VTEPs that map the same VNI (they originate the EVPN type-3
  routes, RFC 8365 section 5.1.3) vs the twin's head-end replication list (all-zero-MAC FDB entries).
- ``ecmp``          per ordered VTEP pair: the static leaf-pair matrix width (validators.ecmp) vs kernel next
  hops toward the other leaf's VTEP /32.
- ``reachability``  per cell of the static host matrix (validators.overlay.host_reachability, network x network)
  vs the twin's pings between the host ports it models: a cell is reachable in the twin when every pinged pair
  replied. Cells the twin could not measure (cross-tenant pairs without kernel VRF devices, routed pairs that
  need the L3VNI) are "static only" and never count as agreement.
- ``link_mtu``      per fabric link: the largest IP packet both ends pass (min of the two configured MTUs) vs
  the largest DF ping the twin gets across in both directions.
- ``host_mtu``      per host pair of one network on different leaves: the largest inner IP packet that fits every
  ECMP path (NIC, leaf ports, VXLAN device, underlay hop - 50 bytes of VXLAN over IPv4, RFC 7348 section 5)
  vs the largest DF packet that passes both ways on every one of many UDP flows, each looked up afresh in the
  leaves' routing tables so the flows spread over every spine (``labs.flowprobe`` says why ping cannot).
- ``n_minus_1``     per what-if scenario (validators.whatif: one spine or one link down): minimum ECMP width
  and unreachable VTEP pairs, predicted vs measured after the same failure is injected in the twin.

Each item also says whether the prediction itself is a *failure* against the intent (a session that will not
establish, a link smaller than the intended MTU, a network that is split, ...). When twin and validators agree
on a failure the report says so explicitly (an info finding), so a misconfiguration caught by both is visible
as agreement, not as silence. This module never imports Django.
"""

from __future__ import annotations

import ipaddress
import itertools
import json
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field

from compiler.errors import TwinError
from compiler.qos_math import VXLAN_OVERHEAD_BYTES
from compiler.render.frr import linux_ifname
from validators.context import VTEP_ROLES, as_context
from validators.findings import Finding, Report, Severity
from validators.overlay import host_reachability
from validators.whatif import run_whatif

from . import collectors, flowprobe
from .checks import (
    NO_TENANT_VRFS,
    classify_pair,
    expected_ecmp_widths,
    host_ports,
    resync_l3vni_next_hops,
    svi_networks,
)
from .flowprobe import MIN_PROBE_PACKET, largest_passing
from .runtime import vtep_of
from .shell import parallel, run

ASPECTS = ("bgp_sessions", "evpn_flood", "ecmp", "reachability", "link_mtu", "host_mtu", "n_minus_1")
# Address family names: the structured config's -> FRR's ``show bgp summary json`` keys.
AFI_NAMES = {"ipv4_unicast": "ipv4Unicast", "l2vpn_evpn": "l2VpnEvpn"}
IPV4_ICMP_HEADERS = 28  # IPv4 20 + ICMP 8: ping -s payload = packet size - 28
IPV6_ICMP_HEADERS = 48  # IPv6 40 + ICMPv6 8
# Big fabrics: the twin samples (the static matrix covers every pair). Per host-matrix cell at most this many
# pinged port pairs, cross-leaf first; per network at most this many host pairs for the path-MTU search.
PINGS_PER_CELL = 8
HOST_MTU_PAIRS_PER_NETWORK = 6


def link_key(a: str, a_ifname: str, b: str, b_ifname: str) -> str:
    """One name per cable whatever end it is seen from: 'leaf1:eth3<->spine1:eth1' with the ends sorted."""
    ends = sorted([f"{a}:{a_ifname}", f"{b}:{b_ifname}"])
    return f"{ends[0]}<->{ends[1]}"


def port_key(host: str, ifname: str) -> str:
    return f"{host}:{ifname}"


# --------------------------------------------------------------------------------------------- prediction


@dataclass
class Prediction:
    """What the static side expects, per item, plus what the intent wants (to mark predicted failures)."""

    sessions: dict[str, dict[str, int]] = field(default_factory=dict)  # device -> FRR afi -> established
    sessions_intended: dict[str, int] = field(default_factory=dict)  # device -> cabled fabric links
    flood: dict[str, list[str]] = field(default_factory=dict)  # "leaf:vni" -> remote VTEPs mapping the VNI
    flood_configured: dict[str, list[str]] = field(default_factory=dict)  # "leaf:vni" -> the config's flood list
    ecmp: dict[str, int] = field(default_factory=dict)  # "src->dst" -> kernel width at src toward dst's VTEP
    ecmp_designed: dict[str, int] = field(default_factory=dict)
    vteps: dict[str, str] = field(default_factory=dict)  # leaf -> VTEP address
    port_networks: dict[str, str | None] = field(default_factory=dict)  # "server:nic" -> network
    network_tenants: dict[str, str] = field(default_factory=dict)
    reachability: dict[str, bool] = field(default_factory=dict)  # "netA->netB" -> can talk
    reachability_reasons: dict[str, str] = field(default_factory=dict)
    link_mtu: dict[str, int] = field(default_factory=dict)  # link key -> largest IP packet both ways
    link_mtu_intended: dict[str, int] = field(default_factory=dict)
    host_mtu: dict[str, int] = field(default_factory=dict)  # "srv:nic->srv:nic" -> largest inner IP packet
    host_mtu_intended: dict[str, int] = field(default_factory=dict)
    baseline: dict = field(default_factory=dict)  # {"min_ecmp", "unreachable_pairs"} with nothing failed
    scenarios: list[dict] = field(default_factory=list)  # kind, subject, targets, min_ecmp, unreachable_pairs

    def as_dict(self) -> dict:
        return asdict(self)


def predict(compile_result, *, host_nic_mtu: dict[str, int] | None = None) -> Prediction:
    """The static prediction for every fidelity item, from the same model the validators use.

    ``host_nic_mtu`` (port key -> MTU) overrides the NIC MTUs from the inventory (the twin's host interfaces
    use min(NIC MTU, intent host MTU), and so does the default)."""
    ctx = as_context(compile_result)
    structured = ctx.structured
    prediction = Prediction()

    # BGP sessions per device and address family (validators.sessions pairing).
    for host, config in structured.items():
        prediction.sessions[host] = {}
        prediction.sessions_intended[host] = sum(1 for i in config["interfaces"]
                                                 if i["kind"] == "fabric" and i.get("peer_device") in structured)
    families_at = _neighbor_families(structured)
    for session in ctx.sessions.established:
        families = families_at.get((session.a, session.a_interface), set()) & families_at.get(
            (session.b, session.b_interface), set())
        for afi in families:
            name = AFI_NAMES.get(afi, afi)
            for device in (session.a, session.b):
                prediction.sessions[device][name] = prediction.sessions[device].get(name, 0) + 1
    for host, config in structured.items():  # an address family with zero sessions is still an item
        for neighbor in config["bgp"]["neighbors"]:
            for afi in neighbor.get("address_families") or ():
                prediction.sessions[host].setdefault(AFI_NAMES.get(afi, afi), 0)

    # EVPN flood lists: every other VTEP whose VXLAN interface maps the VNI sends a type-3 route for it.
    mapping: dict[int, dict[str, str]] = defaultdict(dict)  # vni -> leaf -> VTEP
    for host, config in structured.items():
        vxlan = config.get("vxlan") or {}
        for vni in (vxlan.get("vlan_vnis") or {}).values():
            if vxlan.get("vtep_ip"):
                mapping[int(vni)][host] = vxlan["vtep_ip"]
    for vni, leaves in mapping.items():
        for leaf in leaves:
            key = f"{leaf}:{vni}"
            prediction.flood[key] = sorted(vtep for other, vtep in leaves.items() if other != leaf)
            configured = ((structured[leaf].get("vxlan") or {}).get("flood_lists") or {}).get(str(vni))
            prediction.flood_configured[key] = sorted(configured or [])

    # ECMP per ordered VTEP pair (validators.ecmp leaf-pair matrix; width at the receiver of the route).
    matrix = ctx.leaf_pairs
    for origin, receiver in itertools.permutations(matrix.leaves, 2):
        prediction.ecmp[f"{receiver}->{origin}"] = matrix.width(origin, receiver)
        designed = matrix.designed_width(origin, receiver)
        if designed is not None:
            prediction.ecmp_designed[f"{receiver}->{origin}"] = designed
    for host, config in structured.items():
        vtep = (config.get("vxlan") or {}).get("vtep_ip")
        if vtep and config.get("role") in VTEP_ROLES:
            prediction.vteps[host] = vtep

    # Host reachability matrix (validators.overlay), network x network.
    host_matrix, _findings = host_reachability(ctx)
    prediction.port_networks = dict(host_matrix.ports)
    prediction.network_tenants = {name: info["tenant"] for name, info in host_matrix.networks.items()}
    for (a, b), ok in host_matrix.reachable.items():
        prediction.reachability[f"{a}->{b}"] = ok
        prediction.reachability_reasons[f"{a}->{b}"] = host_matrix.reasons.get((a, b), "")

    # Link MTU: both directions of a cable pass min(MTU of the two ends).
    index = ctx.interface_index
    for host, config in structured.items():
        intended = (config.get("mtu") or {}).get("underlay")
        for interface in config["interfaces"]:
            if interface["kind"] != "fabric":
                continue
            peer = index.get((interface["peer_device"], interface["peer_interface"]))
            if peer is None:
                continue
            key = link_key(host, linux_ifname(interface["name"]), interface["peer_device"],
                           linux_ifname(interface["peer_interface"]))
            prediction.link_mtu[key] = min(interface["mtu"], peer["mtu"])
            if intended:
                prediction.link_mtu_intended[key] = intended

    _predict_host_mtu(ctx, prediction, host_nic_mtu or {})
    _predict_n_minus_1(ctx, prediction)
    return prediction


def _neighbor_families(structured) -> dict[tuple[str, str], set[str]]:
    """(device, local interface) -> address families of the BGP neighbor there (its own, else its peer group's)."""
    out = {}
    for host, config in structured.items():
        groups = {group.get("name"): group for group in config["bgp"].get("peer_groups") or ()}
        for neighbor in config["bgp"]["neighbors"]:
            families = neighbor.get("address_families") or groups.get(neighbor.get("peer_group"), {}).get(
                "address_families") or ()
            out[(host, neighbor.get("interface"))] = set(families)
    return out


def _predict_host_mtu(ctx, prediction: Prediction, nic_override: dict[str, int]) -> None:
    """Largest inner IP packet between two hosts of one network on different leaves, on every ECMP path."""
    structured = ctx.structured
    index = ctx.interface_index
    inventory = ctx.inventory
    ports: list[tuple[str, str, str, dict]] = []  # (port key, network, leaf, leaf's server port)
    for host, config in structured.items():
        vlans = {vlan["id"]: vlan for vlan in config["vlans"]}
        for interface in config["interfaces"]:
            if interface["kind"] == "server" and interface["enabled"] and interface["access_vlan"] in vlans:
                ports.append((port_key(interface["peer_device"], interface["peer_interface"]),
                              vlans[interface["access_vlan"]]["network"], host, interface))
    uplinks: dict[str, dict[str, int]] = defaultdict(dict)  # leaf -> spine -> smallest link MTU to it
    for host, config in structured.items():
        if config.get("role") not in VTEP_ROLES:
            continue
        for interface in config["interfaces"]:
            peer = index.get((interface.get("peer_device"), interface.get("peer_interface")))
            if interface["kind"] != "fabric" or not interface["enabled"] or peer is None or not peer["enabled"]:
                continue
            mtu = min(interface["mtu"], peer["mtu"])
            spine = interface["peer_device"]
            uplinks[host][spine] = min(uplinks[host].get(spine, mtu), mtu)

    def nic_mtu(key: str, leaf: str) -> int:
        if key in nic_override:
            return nic_override[key]
        server_name, nic_name = key.split(":", 1)
        host_mtu = (structured[leaf].get("mtu") or {}).get("host") or 9000
        server = inventory.servers_by_name.get(server_name) if inventory is not None else None
        nic = server.nics_by_name.get(nic_name) if server is not None else None
        return min(nic.mtu, host_mtu) if nic is not None else host_mtu

    for (key_a, net_a, leaf_a, port_a), (key_b, net_b, leaf_b, port_b) in itertools.combinations(ports, 2):
        if net_a != net_b or leaf_a == leaf_b:
            continue
        intended = min(nic_mtu(key_a, leaf_a), nic_mtu(key_b, leaf_b))
        pair = f"{key_a}->{key_b}"
        prediction.host_mtu_intended[pair] = intended
        vlan_a = port_a["access_vlan"]
        mapped = [str(vlan_a) in ((structured[leaf].get("vxlan") or {}).get("vlan_vnis") or {}) for leaf in (leaf_a, leaf_b)]
        common = set(uplinks[leaf_a]) & set(uplinks[leaf_b])
        if not all(mapped) or not common:
            prediction.host_mtu[pair] = 0  # no VXLAN tunnel for the network, or no path: nothing gets through
            continue
        limits = [intended, port_a["mtu"], port_b["mtu"]]
        for leaf in (leaf_a, leaf_b):
            vxlan_mtu = (structured[leaf].get("vxlan") or {}).get("mtu")
            if vxlan_mtu:
                limits.append(vxlan_mtu)
        # Every spine both leaves reach is an ECMP path; the smallest hop on any of them decides.
        path_mtu = min(min(uplinks[leaf_a][spine], uplinks[leaf_b][spine]) for spine in common)
        limits.append(path_mtu - VXLAN_OVERHEAD_BYTES)
        prediction.host_mtu[pair] = min(limits)


def _predict_n_minus_1(ctx, prediction: Prediction) -> None:
    """The static what-if scenarios, with the twin's targets (node, Linux interface) to cut for each."""
    result = getattr(ctx, "whatif_result", None) or run_whatif(ctx)
    prediction.baseline = {"min_ecmp": result.baseline_min_ecmp, "unreachable_pairs": result.baseline_unreachable}
    fabric_ports: dict[str, list[str]] = {
        host: [linux_ifname(i["name"]) for i in config["interfaces"] if i["kind"] == "fabric" and i["enabled"]]
        for host, config in ctx.structured.items()}
    for scenario in result.scenarios:
        if scenario.kind != "link":  # "spine" or a set of spines ("spine1+spine2", N-2): every fabric port of each
            devices = scenario.subject.split("+")
            targets = [[device, ifname] for device in devices for ifname in fabric_ports.get(device, [])]
            subject = scenario.subject
        else:
            end_a, end_b = scenario.subject.split("<->")
            a, a_if = end_a.split(":", 1)
            b, b_if = end_b.split(":", 1)
            targets = [[a, linux_ifname(a_if)]]
            subject = link_key(a, linux_ifname(a_if), b, linux_ifname(b_if))
        prediction.scenarios.append({"kind": scenario.kind, "subject": subject, "targets": targets,
                                     "min_ecmp": scenario.min_ecmp, "unreachable_pairs": scenario.unreachable_pairs})


# --------------------------------------------------------------------------------------------- observation


@dataclass
class Observation:
    """What the twin measured, keyed like :class:`Prediction`. ``None`` values: not measurable here."""

    sessions: dict[str, dict[str, int]] = field(default_factory=dict)
    flood: dict[str, list[str]] = field(default_factory=dict)  # "leaf:vni" -> VTEPs in the VXLAN device's list
    ecmp: dict[str, int] = field(default_factory=dict)
    pings: dict[str, bool | None] = field(default_factory=dict)  # "srv:nic->srv:nic" -> replied (None: static only)
    ping_networks: dict[str, list[str]] = field(default_factory=dict)  # pair -> [network a, network b]
    static_only_reasons: dict[str, str] = field(default_factory=dict)
    link_mtu: dict[str, int | None] = field(default_factory=dict)
    host_mtu: dict[str, int | None] = field(default_factory=dict)
    host_mtu_flows: dict[str, int] = field(default_factory=dict)  # pair -> UDP flows each size was probed with
    scenarios: list[dict] = field(default_factory=list)  # kind, subject, min_ecmp, unreachable_pairs, timings
    notes: list[str] = field(default_factory=list)  # what went wrong while measuring (never hidden)
    seconds: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def observe(state, prediction: Prediction, *, n_minus_1: str = "sample", settle_s: float = 2.0) -> Observation:
    """Measure every fidelity item on a running twin (``labs.runtime.TwinState``).

    ``n_minus_1``: "sample" injects the first spine and the first link scenario of the static what-if,
    "all" every scenario, "none" skips failure injection. The prediction only says *which* items exist; each
    value is measured independently (MTUs by probing the exact boundary and, when it is not where predicted,
    by a binary search for the real one)."""
    observation = Observation()
    topology = state.topology_obj()

    started = time.monotonic()
    observation.sessions = _stable(lambda: _observe_sessions(state), settle_s=1.0, timeout_s=30.0)
    observation.seconds["bgp_sessions"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    observation.flood = _stable(lambda: _observe_flood(state), settle_s=1.0, timeout_s=30.0)
    observation.seconds["evpn_flood"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    vteps = twin_vteps(state)  # the twin's own (from its Linux plans), not the prediction's
    observation.ecmp = _stable(lambda: _observe_ecmp(state, vteps), settle_s=1.0, timeout_s=30.0)
    observation.seconds["ecmp"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    ports = host_ports(topology)
    svis = svi_networks(topology)
    vrf_devices = state.tenant_vrfs_built
    _warm_up(state, ports)
    pairs = [(a, b) for a, b in itertools.permutations(ports, 2) if a.host != b.host]
    to_ping = []
    per_cell: dict[tuple[str, str], int] = defaultdict(int)
    pairs.sort(key=lambda pair: (pair[0].leaf == pair[1].leaf, pair[0].host, pair[1].host))  # cross-leaf first
    for a, b in pairs:
        cell = (a.network, b.network)
        if per_cell[cell] >= PINGS_PER_CELL:
            continue
        per_cell[cell] += 1
        key = f"{port_key(a.host, a.ifname)}->{port_key(b.host, b.ifname)}"
        observation.ping_networks[key] = [a.network, b.network]
        kind = classify_pair(a, b, vrf_devices, any(ipaddress.ip_address(b.address) in subnet
                                                    for subnet in svis.get(a.leaf, [])))
        if kind == "static_only":
            observation.pings[key] = None
            observation.static_only_reasons[key] = (
                f"different tenants: {NO_TENANT_VRFS}, it cannot measure isolation"
                if a.tenant != b.tenant else "needs the L3VNI (no SVI of the destination network on the source "
                                             f"leaf) and {NO_TENANT_VRFS}")
        else:
            to_ping.append((key, a, b))
    results = parallel(lambda item: _ping(state, item[1].host, item[2].address, count=3, interval=0.2), to_ping)
    for (key, _a, _b), result in zip(to_ping, results, strict=True):
        observation.pings[key] = result.any_reply
    observation.seconds["reachability"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    _observe_link_mtu(state, prediction, observation)
    observation.seconds["link_mtu"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    _observe_host_mtu(state, prediction, observation, ports)
    observation.seconds["host_mtu"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    for scenario in _selected_scenarios(prediction.scenarios, n_minus_1):
        observation.scenarios.append(inject_scenario(state, scenario, vteps, notes=observation.notes,
                                                     settle_s=settle_s))
    observation.seconds["n_minus_1"] = round(time.monotonic() - started, 2)
    return observation


def _selected_scenarios(scenarios: list[dict], mode: str) -> list[dict]:
    if mode == "none":
        return []
    if mode == "all":
        return list(scenarios)
    if mode != "sample":
        raise TwinError(f"n_minus_1={mode!r}: use sample, all or none")
    picked = []
    for kind in ("spine", "link"):
        of_kind = sorted((s for s in scenarios if s["kind"] == kind), key=lambda s: s["subject"])
        picked += of_kind[:1]
    return picked


def _ping(state, host: str, address: str, **kwargs):
    return collectors.ping(state.host_netns[host], address, **kwargs)


def _warm_up(state, ports) -> None:
    """Hosts ARP their gateway first so the leaves learn and advertise them (EVPN type 2), like booting servers."""
    with_gateway = [port for port in ports if port.gateway]
    parallel(lambda port: _ping(state, port.host, port.gateway, count=1, wait_s=1), with_gateway)
    time.sleep(0.5)


def _stable(measure, *, settle_s: float, timeout_s: float):
    """Measure until two readings ``settle_s`` apart agree (the twin has settled), or the timeout."""
    deadline = time.monotonic() + timeout_s
    previous = measure()
    while time.monotonic() < deadline:
        time.sleep(settle_s)
        current = measure()
        if current == previous:
            return current
        previous = current
    return previous


def _observe_sessions(state) -> dict[str, dict[str, int]]:
    def one(node):
        try:
            sessions = collectors.collect_bgp_summary(state.node_netns[node])
        except TwinError:
            return {}
        counts: dict[str, int] = {}
        for session in sessions:
            counts.setdefault(session.afi, 0)
            if session.established:
                counts[session.afi] += 1
        return counts

    nodes = sorted(state.node_netns)
    return dict(zip(nodes, parallel(one, nodes), strict=True))


def _observe_flood(state) -> dict[str, list[str]]:
    """Per node and VNI the VTEPs in the VXLAN device's head-end replication list (EVPN type 3 -> FDB)."""
    devices = {node.name: {bridge["vxlan"]["name"]: int(bridge["vxlan"]["vni"])
                           for bridge in node.linux_plan.get("bridges", []) if bridge.get("vxlan")}
               for node in state.topology_obj().nodes}
    nodes = sorted(node for node, vxlans in devices.items() if vxlans)
    tables = parallel(lambda node: collectors.collect_flood_lists(state.switch_namespaces(node)), nodes)
    return {f"{node}:{vni}": sorted(table.get(device, set()))
            for node, table in zip(nodes, tables, strict=True) for device, vni in devices[node].items()}


def _observe_ecmp(state, vteps: dict[str, str]) -> dict[str, int]:
    nodes = sorted(vteps)
    tables = dict(zip(nodes, parallel(lambda node: collectors.collect_kernel_routes(state.node_netns[node]), nodes),
                      strict=True))
    return {f"{source}->{destination}": collectors.ecmp_width(tables[source], f"{vteps[destination]}/32")
            for source, destination in itertools.permutations(nodes, 2)}


def _port_addresses(state) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    out = {}
    for node, netns in state.node_netns.items():
        for link in json.loads(run(["ip", "-n", netns, "-j", "addr", "show"]).stdout or "[]"):
            infos = link.get("addr_info", [])
            ipv4 = next((a["local"] for a in infos if a["family"] == "inet"), None)
            ll6 = next((a["local"] for a in infos if a["family"] == "inet6" and a.get("scope") == "link"), None)
            out[(node, link["ifname"])] = (ipv4, ll6)
    return out


def _observe_link_mtu(state, prediction: Prediction, observation: Observation) -> None:
    """Per cable, each direction: the largest DF ping to the peer's address on that link."""
    addresses = _port_addresses(state)
    topology = state.topology_obj()
    probes_sent: dict[str, int] = {}
    probes = []
    for link in topology.links:
        key = link_key(link.a_node, link.a_ifname, link.b_node, link.b_ifname)
        probes.append((key, link.a_node, link.a_ifname, link.b_node, link.b_ifname))
        probes.append((key, link.b_node, link.b_ifname, link.a_node, link.a_ifname))

    def probe(item):
        key, node, ifname, peer, peer_if = item
        peer_v4, peer_ll = addresses.get((peer, peer_if), (None, None))
        own_v4, _ = addresses.get((node, ifname), (None, None))
        if own_v4 and peer_v4:
            target, headers = peer_v4, IPV4_ICMP_HEADERS
        elif peer_ll:
            target, headers = f"{peer_ll}%{ifname}", IPV6_ICMP_HEADERS
        else:
            return None
        netns = state.node_netns[node]
        # Resolve ARP/ND first so the first probe is not lost to it.
        collectors.ping(netns, target, count=1, interface=ifname)

        def passes(size: int) -> bool:
            probes_sent[key] = probes_sent.get(key, 0) + 1
            return collectors.ping(netns, target, count=1, size=size - headers, dont_fragment=True,
                                   interface=ifname, wait_s=0.5).any_reply

        predicted = prediction.link_mtu.get(key) or link_mtu_of(topology, key)
        return largest_passing(passes, predicted, floor=max(headers + 8, 1280 if headers == IPV6_ICMP_HEADERS else 576))

    per_direction: dict[str, list[int | None]] = defaultdict(list)
    for item, value in zip(probes, parallel(probe, probes), strict=True):
        per_direction[item[0]].append(value)
    for key, values in per_direction.items():
        if any(value is None for value in values):
            observation.link_mtu[key] = None
            observation.notes.append(f"{key}: no IPv4 or link-local address to probe the peer")
        else:
            observation.link_mtu[key] = min(values)
    observation.seconds["link_mtu_probes"] = sum(probes_sent.values())


def link_mtu_of(topology, key: str) -> int:
    for link in topology.links:
        if link_key(link.a_node, link.a_ifname, link.b_node, link.b_ifname) == key:
            return link.mtu
    return 9214


def _observe_host_mtu(state, prediction: Prediction, observation: Observation, ports) -> None:
    """Per predicted host pair the twin models: the largest DF ping passing on every one of several flows."""
    by_key = {port_key(port.host, port.ifname): port for port in ports}
    candidates: dict[str, list[str]] = defaultdict(list)  # network -> pairs whose both hosts the twin models
    for pair in sorted(prediction.host_mtu):
        ends = pair.split("->")
        if all(end in by_key for end in ends):
            candidates[by_key[ends[0]].network].append(pair)
    pairs = []
    for network_pairs in candidates.values():
        # Greedy sample: each pick covers as many leaves not yet probed as possible (ties: name order).
        covered: set[str] = set()
        for _ in range(min(HOST_MTU_PAIRS_PER_NETWORK, len(network_pairs))):
            best = max(network_pairs, key=lambda pair: len({by_key[end].leaf for end in pair.split("->")} - covered))
            network_pairs.remove(best)
            covered |= {by_key[end].leaf for end in best.split("->")}
            pairs.append(best)

    widths = expected_ecmp_widths(state.topology_obj())

    def measure(pair: str) -> dict:
        source, destination = (by_key[end] for end in pair.split("->"))
        flows = flowprobe.flows_for_paths(widths.get((source.leaf, destination.leaf), 1))
        return flowprobe.probe(state.host_netns[source.host], state.host_netns[destination.host],
                               destination.address, flows=flows,
                               flush_netns=[state.node_netns[source.leaf], state.node_netns[destination.leaf]],
                               search={"predicted": prediction.host_mtu[pair], "floor": MIN_PROBE_PACKET,
                                       "ceiling": max(source.mtu, destination.mtu)})

    for pair, result in zip(pairs, parallel(measure, pairs), strict=True):
        observation.host_mtu[pair] = result["largest"]
        observation.host_mtu_flows[pair] = result["flows"]


def twin_vteps(state) -> dict[str, str]:
    """VTEP node -> VTEP address of a running twin (from its Linux plans)."""
    return {node.name: vtep for node in state.topology_obj().nodes if (vtep := vtep_of(node))}


def inject_scenario(state, scenario: dict, vteps: dict[str, str] | None = None, *, notes: list[str] | None = None,
                    settle_s: float = 2.0) -> dict:
    """Cut the scenario's links (``targets``: [node, Linux ifname] pairs), wait until the kernels settle, measure
    min ECMP and unreachable VTEP pairs, restore, and wait until the ECMP matrix is back to what it was."""
    vteps = vteps if vteps is not None else twin_vteps(state)
    notes = notes if notes is not None else []
    def set_links(updown: str) -> None:
        by_node: dict[str, list[str]] = defaultdict(list)
        for node, ifname in scenario["targets"]:
            by_node[node].append(f"link set dev {ifname} {updown}")
        for node, commands in by_node.items():
            run(["ip", "-n", state.node_netns[node], "-batch", "-"], input="\n".join(commands) + "\n")

    before = _observe_ecmp(state, vteps)
    cut_at = time.monotonic()
    set_links("down")
    try:
        time.sleep(0.5)
        during = _stable(lambda: _observe_ecmp(state, vteps), settle_s=settle_s, timeout_s=30.0)
        converged_s = round(time.monotonic() - cut_at - settle_s, 2)
    finally:
        set_links("up")
    restored_at = time.monotonic()
    restored_s = None
    while time.monotonic() - restored_at < 90.0:
        if _observe_ecmp(state, vteps) == before:
            restored_s = round(time.monotonic() - restored_at, 2)
            break
        time.sleep(0.2)
    if restored_s is None:
        notes.append(f"{scenario['kind']} {scenario['subject']}: ECMP not restored within 90 s after "
                                 "the links came back; later measurements may be affected")
    # FRR 8.4 may have lost L3VNI router MACs on the way (checks.resync_l3vni_next_hops): said, and repaired so
    # that what is measured next is the fabric, not the leftover.
    resync = Report()
    resynced = resync_l3vni_next_hops(state, resync)
    notes.extend(f"{scenario['kind']} {scenario['subject']}: {finding.message}" for finding in resync.findings)
    widths = list(during.values())
    return {"kind": scenario["kind"], "subject": scenario["subject"],
            "min_ecmp": min(widths, default=0), "unreachable_pairs": sum(1 for width in widths if width == 0),
            "settled_within_s": converged_s, "restored_s": restored_s, "widths": during,
            **({"l3vni_next_hops_resynced": resynced} if resynced else {})}


# --------------------------------------------------------------------------------------------- comparison


@dataclass
class AspectCount:
    items: int = 0
    agree: int = 0
    disagree: int = 0
    static_only: int = 0  # the twin cannot measure it on this machine (said, never counted as agreement)
    agreed_failures: int = 0
    not_sampled: int = 0  # predicted items the twin did not model or sample (big fabrics keep a few hosts per leaf)


@dataclass
class FidelityResult:
    report: Report
    counts: dict[str, AspectCount]

    @property
    def disagreements(self) -> int:
        return sum(count.disagree for count in self.counts.values())

    @property
    def agreed_failures(self) -> int:
        return sum(count.agreed_failures for count in self.counts.values())

    def as_dict(self) -> dict:
        return {"disagreements": self.disagreements, "agreed_failures": self.agreed_failures,
                "compared": {aspect: asdict(count) for aspect, count in self.counts.items()},
                "report": self.report.as_dict()}


class _Aspect:
    """Collects one aspect's findings and counts; ``finish`` records them in the report."""

    def __init__(self, name: str, what: str) -> None:
        self.check = f"fidelity.{name}"
        self.what = what
        self.count = AspectCount()
        self.findings: list[Finding] = []

    def item(self, subject: str, predicted, measured, *, failure: bool, describe: str) -> None:
        self.count.items += 1
        if measured is None:
            self.count.static_only += 1
            return
        if predicted == measured:
            self.count.agree += 1
            if failure:
                self.count.agreed_failures += 1
                self.findings.append(Finding(
                    check=self.check, severity=Severity.INFO, subject=subject, expected=predicted, actual=measured,
                    message=f"validators and twin agree on a fault: {describe}: both say {predicted}"))
            return
        self.count.disagree += 1
        self.findings.append(Finding(
            check=self.check, severity=Severity.ERROR, subject=subject, expected=predicted, actual=measured,
            message=f"validators predict {predicted}, the twin measured {measured}: {describe}"))

    def finish(self, report: Report) -> None:
        count = self.count
        if count.items == 0:
            report.skip(self.check, f"nothing to compare ({self.what})")
            return
        summary = Finding(
            check=self.check, severity=Severity.INFO, subject="fabric", expected=None, actual=asdict(count),
            message=f"compared {count.items} items ({self.what}): {count.agree} agree "
            f"({count.agreed_failures} of them on a fault), {count.disagree} disagree, "
            f"{count.static_only} static only"
            f"{f', {count.not_sampled} not sampled by the twin' if count.not_sampled else ''}")
        report.add(self.check, [summary, *self.findings])


def compare(prediction: Prediction, observation: Observation, title: str = "fidelity") -> FidelityResult:
    """Pure: one Finding per disagreement (error), one per agreed fault (info), a count line per aspect."""
    report = Report(title)
    aspects: dict[str, _Aspect] = {}

    sessions = aspects["bgp_sessions"] = _Aspect("bgp_sessions", "established BGP sessions per device and "
                                                                 "address family")
    for device in sorted(set(prediction.sessions) | set(observation.sessions)):
        predicted_afis = prediction.sessions.get(device, {})
        measured_afis = observation.sessions.get(device)
        for afi in sorted(set(predicted_afis) | set(measured_afis or {})):
            predicted = predicted_afis.get(afi, 0)
            measured = None if measured_afis is None else measured_afis.get(afi, 0)
            intended = prediction.sessions_intended.get(device, predicted)
            sessions.item(f"{device} {afi}", predicted, measured, failure=predicted < intended,
                          describe=f"{device} Established {afi} sessions ({intended} fabric links)")

    flood = aspects["evpn_flood"] = _Aspect("evpn_flood", "EVPN flood list per leaf and L2VNI")
    for key in sorted(set(prediction.flood) | set(observation.flood)):
        predicted = prediction.flood.get(key)
        configured = prediction.flood_configured.get(key, predicted)
        # A VXLAN device the twin does not have floods to nobody: [] (only an unmeasured twin gives None).
        measured = observation.flood.get(key, []) if observation.flood else None
        flood.item(key, predicted, measured, failure=predicted is not None and
                   predicted != configured, describe=f"remote VTEPs flooded for VNI {key.split(':')[-1]} on "
                                                    f"{key.split(':')[0]} (configured {configured})")

    ecmp = aspects["ecmp"] = _Aspect("ecmp", "ECMP width per ordered VTEP pair")
    for pair in sorted(set(prediction.ecmp) | set(observation.ecmp)):
        predicted = prediction.ecmp.get(pair, 0)
        measured = observation.ecmp.get(pair)
        designed = prediction.ecmp_designed.get(pair, predicted)
        ecmp.item(pair, predicted, measured, failure=predicted < designed,
                  describe=f"next hops at {pair.split('->')[0]} toward {pair.split('->')[1]}'s VTEP "
                           f"(designed {designed})")

    _compare_reachability(prediction, observation, aspects)

    link_mtu = aspects["link_mtu"] = _Aspect("link_mtu", "largest IP packet passing each fabric link, both ways")
    for key in sorted(set(prediction.link_mtu) | set(observation.link_mtu)):
        predicted = prediction.link_mtu.get(key)
        intended = prediction.link_mtu_intended.get(key, predicted)
        link_mtu.item(key, predicted, observation.link_mtu.get(key) if key in observation.link_mtu else None,
                      failure=predicted is not None and intended is not None and predicted < intended,
                      describe=f"largest packet across {key} (intended {intended})")

    host_mtu = aspects["host_mtu"] = _Aspect("host_mtu", "largest inner IP packet between hosts of one network on "
                                                         "different leaves, on every ECMP path")
    for pair in sorted(prediction.host_mtu):
        if pair not in observation.host_mtu:
            host_mtu.count.not_sampled += 1
            continue
        predicted = prediction.host_mtu[pair]
        intended = prediction.host_mtu_intended.get(pair, predicted)
        flows = observation.host_mtu_flows.get(pair)
        host_mtu.item(pair, predicted, observation.host_mtu.get(pair), failure=predicted < intended,
                      describe=f"{pair} end to end (host MTU {intended}"
                               f"{f', {flows} UDP flows per size' if flows else ''})")

    n_minus_1 = aspects["n_minus_1"] = _Aspect("n_minus_1", "minimum ECMP and unreachable VTEP pairs after the same "
                                                            "single failure")
    predicted_by_subject = {(s["kind"], s["subject"]): s for s in prediction.scenarios}
    for measured in observation.scenarios:
        predicted = predicted_by_subject.get((measured["kind"], measured["subject"]))
        if predicted is None:
            continue
        subject = f"{measured['kind']} {measured['subject']}"
        for metric in ("min_ecmp", "unreachable_pairs"):
            failure = (metric == "unreachable_pairs" and predicted[metric] > prediction.baseline.get(metric, 0)) or \
                (metric == "min_ecmp" and predicted[metric] == 0)
            n_minus_1.item(f"{subject} {metric}", predicted[metric], measured[metric], failure=failure,
                           describe=f"{metric.replace('_', ' ')} with {subject} down")

    for aspect in aspects.values():
        aspect.finish(report)
    if observation.notes:
        report.add("fidelity.measurement", [Finding(
            check="fidelity.measurement", severity=Severity.WARNING, subject="twin", expected=None, actual=note,
            message=note)
                                            for note in observation.notes])
    return FidelityResult(report, {name: aspect.count for name, aspect in aspects.items()})


def _compare_reachability(prediction: Prediction, observation: Observation, aspects: dict) -> None:
    """Static matrix cells (network -> network) vs the twin's pings of the ports it models in those networks."""
    aspect = aspects["reachability"] = _Aspect("reachability", "host matrix cells network -> network: every "
                                                               "measured port pair replied")
    cells: dict[str, dict[str, list]] = defaultdict(lambda: {"replied": [], "silent": [], "static_only": []})
    for pair, replied in observation.pings.items():
        source, destination = pair.split("->")
        networks = observation.ping_networks.get(pair) or [prediction.port_networks.get(source),
                                                           prediction.port_networks.get(destination)]
        cell = f"{networks[0]}->{networks[1]}"
        bucket = "static_only" if replied is None else ("replied" if replied else "silent")
        cells[cell][bucket].append(pair)
    for cell in sorted(prediction.reachability):
        predicted = prediction.reachability[cell]
        reason = prediction.reachability_reasons.get(cell, "")
        source_net, destination_net = cell.split("->")
        measured_pairs = cells.get(cell)
        if measured_pairs is None:
            aspect.count.not_sampled += 1  # no host of these networks in the twin
            continue
        if not (measured_pairs["replied"] or measured_pairs["silent"]):
            aspect.item(cell, predicted, None, failure=False, describe=reason)
            continue
        measured = not measured_pairs["silent"]
        same_tenant = prediction.network_tenants.get(source_net) == prediction.network_tenants.get(destination_net)
        detail = (f"{len(measured_pairs['replied'])} pairs replied, {len(measured_pairs['silent'])} silent"
                  f"{' (e.g. ' + ', '.join(measured_pairs['silent'][:3]) + ')' if measured_pairs['silent'] else ''}"
                  f"; static: {reason}")
        aspect.item(cell, predicted, measured, failure=same_tenant and not predicted, describe=detail)
