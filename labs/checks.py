"""Live checks on a running twin: what the fabric actually does, as findings plus measured numbers.

Every check records into a ``validators.findings.Report`` (the project's one report type) and returns the
numbers it measured. Expectations come from the topology itself (cables, Linux plans, hosts' networks), so a
twin booted from a compiled fabric is checked against its own intent:

- ``twin.frr_config_load``  every frr.conf line was accepted by ``vtysh -b``
- ``twin.bgp_sessions``     every fabric link has an Established session per address family (time-to-converge)
- ``twin.evpn_flood_lists`` every VTEP's flood list per VNI holds every other VTEP of that VNI (EVPN type 3)
- ``twin.ecmp_width``       kernel next hops from each VTEP loopback to each other VTEP loopback
- ``twin.l3vni_vrfs``       every leaf's tenant VRFs and L3VNIs are up in zebra with the planned L2VNIs, and
                            routed traffic between leaves uses them (symmetric IRB host routes in the VRF)
- ``twin.l3vni_next_hops``  every route through an L3VNI has its router MAC (FRR 8.4 loses them: warned, re-learned)
- ``twin.ping_*``           host reachability: same network (L2VNI), between networks of a tenant (IRB)
- ``twin.tenant_isolation`` across tenants must fail; "static only" when the twin could build no tenant VRFs
- ``twin.host_mtu`` / ``twin.link_mtu``  DF probes at exactly the MTU (must pass) and one byte more (must fail)
- ``twin.failover_*``       failure injection: convergence and outage of a continuous ping, then restore
- ``twin.pfc_ecn``          always skipped: veth has no PFC/ECN, verified statically only
"""

from __future__ import annotations

import contextlib
import ipaddress
import itertools
import json
import random
import time
from dataclasses import dataclass

from compiler.errors import TwinError
from validators.findings import Finding, Report, Severity

from . import collectors, flowprobe
from .runtime import TwinState, vtep_of
from .shell import parallel, run
from .topology import TwinLink, TwinTopology

# Outer headers a VXLAN packet adds over IPv4: Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8 (RFC 7348 section 5).
VXLAN_OVERHEAD = 50
IPV4_ICMP_HEADERS = 28  # IPv4 20 + ICMP 8: ping -s payload = MTU - 28
IPV6_ICMP_HEADERS = 48  # IPv6 40 + ICMPv6 8
# Why cross-tenant and L3VNI-only pairs are "static only" in a twin without tenant VRFs. Every kernel gets them
# (kernel VRF devices or FRR's netns VRF backend), so only a boot with FT_TWIN_VRF_BACKEND=none lacks them.
NO_TENANT_VRFS = "this twin was booted without tenant VRFs (FT_TWIN_VRF_BACKEND=none)"
PFC_ECN_REASON = ("verified statically only: veth devices support neither PFC (dcb pfc -> 'Operation not "
                  "supported') nor ECN marking queues (no red qdisc in this kernel); see docs/twin.md")


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


def host_ports(topology: TwinTopology) -> list[HostPort]:
    return [HostPort(host.name, i.ifname, i.address.split("/")[0], i.peer_node, i.network, i.tenant, i.gateway, i.mtu)
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


def expected_ecmp_widths(topology: TwinTopology) -> dict[tuple[str, str], int]:
    """(source VTEP node, destination VTEP node) -> equal-cost kernel next hops: every link from the source to a
    switch that is also cabled to the destination is one path; between pods of a 5-stage Clos, every link to a
    spine that reaches the destination's pod through a super-spine (validators/tiers.py states why)."""
    neighbours: dict[str, dict[str, int]] = {node.name: {} for node in topology.nodes}
    for link in topology.links:
        neighbours[link.a_node][link.b_node] = neighbours[link.a_node].get(link.b_node, 0) + 1
        neighbours[link.b_node][link.a_node] = neighbours[link.b_node].get(link.a_node, 0) + 1
    vteps = [node.name for node in topology.nodes if vtep_of(node)]
    role = {node.name: node.role for node in topology.nodes}

    def reaches_through_core(spine: str, destination: str) -> bool:
        # 5-stage Clos (RFC 7938 ASNs): spine -> a super-spine -> a spine of the destination's pod -> destination
        return any(role[top] == "super-spine" and any(role[down] == "spine" and destination in neighbours[down]
                                                      for down in neighbours[top])
                   for top in neighbours[spine])

    widths = {}
    for source, destination in itertools.permutations(vteps, 2):
        widths[(source, destination)] = sum(count for middle, count in neighbours[source].items()
                                            if destination in neighbours[middle])
        if not widths[(source, destination)]:  # another pod
            widths[(source, destination)] = sum(count for middle, count in neighbours[source].items()
                                                if role[middle] == "spine" and reaches_through_core(middle, destination))
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
        for node, (device, _vtep) in nodes.items():
            out.setdefault(node, {})[device] = {vtep for other, (_d, vtep) in nodes.items() if other != node}
    return out


def classify_pair(source: HostPort, destination: HostPort, vrf_devices: bool,
                  destination_svi_on_source_leaf: bool = True) -> str:
    """What the intent says about source -> destination: 'bridged' (same network), 'routed' (same tenant,
    different networks, both with a gateway), 'isolated' (different tenants) or 'unreachable' (no gateway).
    Without kernel VRF devices the twin routes every tenant in one table with asymmetric IRB, so it cannot
    measure isolation, nor routing toward a network whose SVI is absent on the source leaf (that needs the
    L3VNI): those pairs are 'static_only'."""
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


# --------------------------------------------------------------------------------------------- checks


def check_config_load(state: TwinState, report: Report) -> None:
    report.add("twin.frr_config_load", [
        Finding(
            check="twin.frr_config_load", severity=Severity.ERROR, subject=node,
            expected="every frr.conf line accepted", actual=error.splitlines()[-1],
            message=f"vtysh -b rejected part of {node}'s frr.conf: {error[-300:]}")
        for node, error in sorted(state.config_errors.items())
    ])


def check_bgp_sessions(state: TwinState, report: Report, timeout_s: float = 60.0, poll_s: float = 0.2) -> dict:
    """Wait until every expected session is Established (or the timeout) and report what is missing.
    The time is measured from daemon start, so right after ``up`` it is the boot-to-converged time."""
    topology = state.topology_obj()
    expected = expected_sessions(topology)
    if not any(count for families in expected.values() for count in families.values()):
        report.skip("twin.bgp_sessions", "no switch-to-switch links, so no BGP session is expected")
        return {}
    deadline = time.monotonic() + timeout_s
    polls = 0
    slowest_poll = 0.0
    while True:
        polls += 1
        poll_started = time.monotonic()
        observed = dict(zip(expected, parallel(lambda node: _established_counts(state, node), expected), strict=True))
        missing = {node: {afi: (want, observed[node][0].get(afi, 0)) for afi, want in families.items()
                          if observed[node][0].get(afi, 0) < want}
                   for node, families in expected.items()}
        missing = {node: afis for node, afis in missing.items() if afis}
        slowest_poll = max(slowest_poll, time.monotonic() - poll_started)
        if not missing or time.monotonic() > deadline:
            break
        time.sleep(poll_s)
    converged_at = time.time()
    findings = []
    for node, afis in sorted(missing.items()):
        down_peers = observed[node][1]
        for afi, (want, got) in sorted(afis.items()):
            findings.append(Finding(
                check="twin.bgp_sessions", severity=Severity.ERROR, subject=node,
                expected=f"{want} Established ({afi})", actual=f"{got} Established",
                message=f"{node}: {got}/{want} {afi} sessions Established after "
                f"{timeout_s:.0f}s; not up: {', '.join(down_peers.get(afi, [])) or 'not configured'}"))
    measured = {"sessions": sum(sum(families.values()) for families in expected.values()), "polls": polls,
                "resolution_s": round(slowest_poll + poll_s, 2)}  # one poll of every node + the pause
    if not missing and state.daemons_started_at:
        measured["converged_s"] = round(converged_at - state.daemons_started_at, 2)
        # Daemons start node after node; this is the part after the last one was started.
        measured["after_last_daemon_s"] = round(measured["converged_s"] - state.timings.get("daemons_s", 0.0), 2)
        # Already converged at the first look: the number is an upper bound, not the convergence time.
        measured["upper_bound_only"] = polls == 1
        findings.append(Finding(
            check="twin.bgp_sessions", severity=Severity.INFO, subject="fabric", expected="all sessions Established",
            actual=measured["converged_s"], message=f"{measured['sessions']} sessions Established "
            f"{measured['converged_s']}s after daemon start"))
    report.add("twin.bgp_sessions", findings)
    return measured


def _established_counts(state: TwinState, node: str) -> tuple[dict[str, int], dict[str, list[str]]]:
    try:
        sessions = collectors.collect_bgp_summary(state.node_netns[node])
    except TwinError:
        return {}, {}
    counts: dict[str, int] = {}
    down: dict[str, list[str]] = {}
    for session in sessions:
        if session.established:
            counts[session.afi] = counts.get(session.afi, 0) + 1
        else:
            down.setdefault(session.afi, []).append(f"{session.peer} ({session.state})")
    return counts, down


def check_bfd_sessions(state: TwinState, report: Report, timeout_s: float = 30.0) -> dict:
    """Where the config enables BFD (the twin then runs bfdd), every fabric link's BFD session must be up."""
    topology = state.topology_obj()
    links_per_node = {node: sum(1 for link in topology.links if node in (link.a_node, link.b_node))
                      for node in state.pids}
    with_bfd = sorted(node for node, daemons in state.pids.items() if "bfdd" in daemons)
    if not with_bfd:
        report.skip("twin.bfd_sessions", "no node's frr.conf enables BFD")
        return {}
    started = time.monotonic()
    while True:
        peers = dict(zip(with_bfd, parallel(lambda node: _bfd_or_empty(state, node), with_bfd), strict=True))
        short = {node: rows for node, rows in peers.items()
                 if sum(1 for row in rows if row.up) < links_per_node[node]}
        if not short or time.monotonic() - started > timeout_s:
            break
        time.sleep(0.5)
    report.add("twin.bfd_sessions", [
        Finding(
            check="twin.bfd_sessions", severity=Severity.ERROR, subject=node,
            expected=f"{links_per_node[node]} BFD sessions up", actual=f"{sum(1 for row in rows if row.up)} up",
            message=f"{node}: BFD not up on {', '.join(f'{r.interface or r.peer} ({r.status})' for r in rows if not r.up) or 'any link (no sessions)'}")
        for node, rows in sorted(short.items())
    ])
    return {"nodes": len(with_bfd), "waited_s": round(time.monotonic() - started, 2)}


def _bfd_or_empty(state: TwinState, node: str) -> list:
    try:
        return collectors.collect_bfd_peers(state.node_netns[node])
    except TwinError:
        return []


def check_evpn_flood_lists(state: TwinState, report: Report, timeout_s: float = 30.0) -> dict:
    topology = state.topology_obj()
    expected = expected_flood_lists(topology)
    if not any(expected.values()):
        report.skip("twin.evpn_flood_lists", "no VNI is carried by two or more VTEPs")
        return {}
    started = time.monotonic()
    deadline = started + timeout_s
    while True:
        actual = dict(zip(expected, parallel(lambda node: collectors.collect_flood_lists(state.switch_namespaces(node)),
                                             expected), strict=True))
        gaps = {(node, device): (want, actual[node].get(device, set()))
                for node, devices in expected.items() for device, want in devices.items()
                if not want <= actual[node].get(device, set())}
        if not gaps or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    report.add("twin.evpn_flood_lists", [
        Finding(
            check="twin.evpn_flood_lists", severity=Severity.ERROR, subject=f"{node}:{device}", expected=sorted(want),
            actual=sorted(got),
            message=f"{node} {device} floods BUM traffic to {len(got)} of {len(want)} remote VTEPs; missing "
            f"{', '.join(sorted(want - got))} (EVPN type-3 routes not received)")
        for (node, device), (want, got) in sorted(gaps.items())
    ])
    measured = {"vxlan_devices": sum(len(devices) for devices in expected.values()),
                "waited_s": round(time.monotonic() - started, 2)}
    if expected:
        # A sample of what BGP carries (type 2 MAC/IP, type 3 flood, type 5 prefix) on the first VTEP.
        sample = sorted(expected)[0]
        with contextlib.suppress(TwinError):
            types = collectors.collect_evpn_route_types(state.node_netns[sample])
            measured["route_types"] = {"node": sample, **{f"type{kind}": count for kind, count in sorted(types.items())}}
    return measured


def check_ecmp_width(state: TwinState, report: Report, settle_s: float = 15.0) -> dict:
    """Kernel ECMP width from each VTEP to each other VTEP loopback (what the data plane hashes over).

    Sessions being Established does not mean every path is in the kernel yet (bestpath, then zebra's install), so
    the tables are re-read until every width matches or ``settle_s`` passes; the last reading is what is reported.
    """
    topology = state.topology_obj()
    widths = expected_ecmp_widths(topology)
    if not widths:
        report.skip("twin.ecmp_width", "fewer than two VTEPs: no VTEP-to-VTEP paths to measure")
        return {}
    nodes = topology.nodes_by_name
    sources = sorted({source for source, _ in widths})
    started = time.monotonic()
    while True:
        tables = dict(zip(sources, parallel(lambda node: collectors.collect_kernel_routes(state.node_netns[node]),
                                            sources), strict=True))
        measured = {(source, destination): collectors.ecmp_width(tables[source], f"{vtep_of(nodes[destination])}/32")
                    for source, destination in widths}
        if measured == widths or time.monotonic() - started >= settle_s:
            break
        time.sleep(0.5)
    findings = []
    for (source, destination), want in sorted(widths.items()):
        got = measured[(source, destination)]
        if got != want:
            vtep = vtep_of(nodes[destination])
            findings.append(Finding(
                check="twin.ecmp_width", severity=Severity.ERROR, subject=f"{source}->{destination}", expected=want,
                actual=got, message=f"{source} reaches {destination}'s VTEP {vtep} over {got} kernel next hops, "
                f"the cabling gives {want}"))
    report.add("twin.ecmp_width", findings)
    return {"pairs": len(widths), "min_width": min(measured.values(), default=0),
            "max_width": max(measured.values(), default=0), "settled_s": round(time.monotonic() - started, 2)}


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


def check_l3vni_vrfs(state: TwinState, report: Report, timeout_s: float = 30.0) -> dict:
    """Tenant VRFs and their L3VNIs as zebra sees them on every leaf: type L3, state Up, bound to the planned
    VRF, with a router MAC and exactly the planned L2VNIs. Only where the twin built tenant VRFs (kernel VRF
    devices or netns VRFs); otherwise ``check_not_modelled`` says "static only"."""
    expected = expected_l3vnis(state.topology_obj())
    if not expected or not state.tenant_vrfs_built:
        return {}
    started = time.monotonic()
    while True:
        actual = dict(zip(expected, parallel(lambda node: _l3vnis_or_empty(state, node), expected), strict=True))
        findings = []
        for node, vnis in sorted(expected.items()):
            for vni, (vrf, l2_vnis) in sorted(vnis.items()):
                got = actual[node].get(vni)
                subject = f"{node}:L3VNI {vni}"
                if got is None:
                    findings.append(Finding(
                        check="twin.l3vni_vrfs", severity=Severity.ERROR, subject=subject,
                        expected=f"L3VNI in VRF {vrf}", actual=None,
                        message=f"{node}: zebra has no L3VNI {vni} (VRF {vrf}): routed tenant traffic "
                        "between leaves has no symmetric IRB path"))
                    continue
                problems = []
                if got.state != "Up":
                    problems.append(f"state {got.state or 'unknown'}")
                if got.vrf != vrf:
                    problems.append(f"bound to VRF {got.vrf or '-'} instead of {vrf}")
                if not got.router_mac:
                    problems.append("no router MAC")
                if got.l2_vnis != l2_vnis:
                    problems.append(f"L2VNIs {list(got.l2_vnis)} instead of {list(l2_vnis)}")
                if problems:
                    findings.append(Finding(check="twin.l3vni_vrfs", severity=Severity.ERROR, subject=subject,
                                            expected={"vrf": vrf, "state": "Up", "l2_vnis": list(l2_vnis)},
                                            actual={"vrf": got.vrf, "state": got.state, "l2_vnis": list(got.l2_vnis)},
                                            message=f"{node} L3VNI {vni}: {'; '.join(problems)}"))
        if not findings or time.monotonic() - started > timeout_s:
            break
        time.sleep(0.5)
    report.add("twin.l3vni_vrfs", findings)
    return {"backend": state.vrf_backend, "leaves": len(expected),
            "l3vnis": sum(len(vnis) for vnis in expected.values()), "waited_s": round(time.monotonic() - started, 2)}


def _l3vnis_or_empty(state: TwinState, node: str) -> dict:
    try:
        return collectors.collect_l3vnis(state.node_netns[node])
    except TwinError:
        return {}


def l3vni_tables(state: TwinState):
    """(switch, VRF, namespace, ``ip route`` table arguments, L3VNI bridge) of every tenant VRF the twin built."""
    if not state.tenant_vrfs_built:
        return
    for node in state.topology_obj().nodes:
        for vrf in node.linux_plan.get("vrfs", []):
            if not vrf.get("bridge"):
                continue
            if state.vrf_backend == "netns":
                namespace, table = state.vrf_netns.get(node.name, {}).get(vrf["name"]), []
            else:
                namespace, table = state.node_netns[node.name], ["table", str(vrf["table"])]
            if namespace is not None:
                yield node.name, vrf["name"], namespace, table, vrf["bridge"]["name"]


def count_l3vni_host_routes(state: TwinState) -> dict[str, int]:
    """Per switch: kernel routes in its tenant VRFs that leave through an L3VNI bridge (symmetric IRB: remote
    hosts' /32s learned from EVPN type-2 MAC/IP routes carrying the L3VNI). Measured after the ping matrix."""
    counts: dict[str, int] = {}
    for node, _vrf, namespace, table, bridge in l3vni_tables(state):
        routes = json.loads(run(["ip", "-n", namespace, "-j", "route", "show", *table], check=False).stdout or "[]")
        counts[node] = counts.get(node, 0) + sum(1 for route in routes if route.get("dev") == bridge)
    return counts


def l3vni_next_hop_gaps(state: TwinState) -> dict[str, list[str]]:
    """Per switch: remote VTEPs that routes in a tenant VRF point at through the L3VNI bridge, but that have no
    router-MAC neighbour entry (installed by zebra as NOARP) on that bridge: routed packets toward them have no
    destination MAC and are dropped."""
    gaps: dict[str, set[str]] = {}
    for node, _vrf, namespace, table, bridge in l3vni_tables(state):
        routes = json.loads(run(["ip", "-n", namespace, "-j", "route", "show", *table], check=False).stdout or "[]")
        vteps = {route["gateway"] for route in routes if route.get("dev") == bridge and route.get("gateway")}
        if not vteps:
            continue
        neighbours = json.loads(run(["ip", "-n", namespace, "-j", "neigh", "show", "dev", bridge],
                                    check=False).stdout or "[]")
        installed = {entry["dst"] for entry in neighbours if entry.get("lladdr") and "NOARP" in entry.get("state", [])}
        if vteps - installed:
            gaps.setdefault(node, set()).update(vteps - installed)
    return {node: sorted(vteps) for node, vteps in sorted(gaps.items())}


def resync_l3vni_next_hops(state: TwinState, report: Report, check: str = "twin.l3vni_next_hops",
                           settle_s: float = 3.0, timeout_s: float = 45.0) -> dict:
    """Find L3VNI next hops FRR lost and restore them, saying so in the report.

    Why (measured with FRR 8.4.4 here): when the best path of an EVPN route imported into a tenant VRF moves to
    another spine (a spine or a leaf uplink went down), bgpd withdraws the VRF route from zebra and announces
    it again; zebra deletes the remote VTEP's router MAC and neighbour entry on the withdraw and does not
    install them again on the announce (its log shows "L3VNI ... RMAC ... delete" and no add). Every routed
    packet toward that VTEP is then dropped, for good: restoring the link does not bring them back. FRR
    documents the withdraw-then-announce (FRRouting/frr#18240); the lost re-install is the defect. It is a
    property of this FRR build, not of the intent, so it is a warning, and the twin re-learns the routes with
    ``clear bgp *`` on the affected leaves (a fresh install works, as at boot) so later checks measure the
    fabric, not the leftover. An entry still missing after that is an error."""
    deadline = time.monotonic() + settle_s
    gaps = l3vni_next_hop_gaps(state)
    while gaps and time.monotonic() < deadline:  # entries may still be on their way after a change
        time.sleep(0.5)
        gaps = l3vni_next_hop_gaps(state)
    if not gaps:
        if next(l3vni_tables(state), None) is not None:
            report.add(check)  # every route through an L3VNI has its router MAC: passed
        return {}
    started = time.monotonic()
    parallel(lambda leaf: run(["vtysh", "-N", state.node_netns[leaf], "-c", "clear bgp *"], check=False, timeout=60),
             sorted(gaps))
    # Back to a converged fabric before anything else is measured: sessions, kernel ECMP, then the next hops.
    converged = Report()
    check_bgp_sessions(state, converged, timeout_s=timeout_s)
    check_ecmp_width(state, converged)
    left = l3vni_next_hop_gaps(state)
    while left and time.monotonic() - started < timeout_s:
        time.sleep(0.5)
        left = l3vni_next_hop_gaps(state)
    measured = {"lost": gaps, "resynced_s": round(time.monotonic() - started, 2), "still_missing": left}
    lost = ", ".join(f"{leaf}: {', '.join(vteps)}" for leaf, vteps in gaps.items())
    findings = [Finding(
        check=check, severity=Severity.WARNING, subject=leaf, expected="router MAC + neighbour per remote VTEP",
        actual=vteps,
        message=f"{leaf}: FRR lost the L3VNI next hops (router MACs) of {', '.join(vteps)} after a best-path "
        "change (FRR 8.4 zebra defect: a withdraw + re-announce of an EVPN-imported route is not "
        "re-installed); routed traffic toward them was blackholed. Re-learned with `clear bgp *` "
        f"in {measured['resynced_s']}s")
                for leaf, vteps in gaps.items()]
    findings += [Finding(
        check=check, severity=Severity.ERROR, subject=leaf, expected="router MAC + neighbour per remote VTEP",
        actual=vteps,
        message=f"{leaf}: L3VNI next hops {', '.join(vteps)} still missing {timeout_s:.0f}s after re-learning "
        f"the routes (lost at first: {lost})") for leaf, vteps in left.items()]
    findings += [Finding(
        check=check, severity=Severity.ERROR, subject=finding.subject, expected=finding.expected, actual=finding.actual,
        message=f"after re-learning the routes: {finding.message}")
                 for finding in converged.findings if finding.severity == Severity.ERROR]
    report.add(check, findings)
    return measured


def check_ping_matrix(state: TwinState, report: Report, max_pairs: int = 200) -> dict:
    """Ping between host ports and compare with what the intent allows (see ``classify_pair``)."""
    topology = state.topology_obj()
    ports = host_ports(topology)
    vrf_devices = state.tenant_vrfs_built
    resync_l3vni_next_hops(state, report)  # FRR 8.4 leftovers of an earlier failure would read as a routing fault
    _warm_up_hosts(state, ports)
    pairs = sample_pairs([(a, b) for a, b in itertools.permutations(ports, 2) if a.host != b.host], max_pairs)
    if not pairs:
        report.skip("twin.ping_bridged", "fewer than two hosts in the topology")
        return {}
    svis = svi_networks(topology)
    classes = {(a, b): classify_pair(a, b, vrf_devices, any(ipaddress.ip_address(b.address) in subnet
                                                            for subnet in svis.get(a.leaf, [])))
               for a, b in pairs}
    to_ping = [pair for pair in pairs if classes[pair] != "static_only"]
    results = dict(zip(to_ping, parallel(lambda pair: collectors.ping(state.host_netns[pair[0].host],
                                                                       pair[1].address, count=3, interval=0.2),
                                         to_ping), strict=True))
    findings: dict[str, list[Finding]] = {"twin.ping_bridged": [], "twin.ping_routed": [], "twin.tenant_isolation": []}
    ran = {check: False for check in findings}
    for (source, destination), result in results.items():
        kind = classes[(source, destination)]
        subject = f"{source.host}->{destination.host}"
        if kind in ("bridged", "routed"):
            check = f"twin.ping_{kind}"
            ran[check] = True
            if not result.ok:
                findings[check].append(Finding(
                    check=check, severity=Severity.ERROR, subject=subject, expected="3/3 replies",
                    actual=f"{result.received}/{result.transmitted}",
                    message=f"{subject} ({source.network} -> {destination.network}) "
                    f"{result.local_error or 'lost replies'}"))
        elif kind in ("isolated", "unreachable"):
            ran["twin.tenant_isolation"] = True
            if result.any_reply:
                findings["twin.tenant_isolation"].append(Finding(
                    check="twin.tenant_isolation", severity=Severity.ERROR, subject=subject, expected="no reply",
                    actual=f"{result.received} replies",
                    message=f"{source.host} ({source.tenant}/{source.network}) reached {destination.host} "
                    f"({destination.tenant}/{destination.network}) although the intent separates them"))
    for check, rows in findings.items():
        if ran[check]:
            report.add(check, rows)
    static_only = [pair for pair, kind in classes.items() if kind == "static_only"]
    cross_tenant = sum(1 for a, b in static_only if a.tenant != b.tenant)
    for check, count, reason in (
        ("twin.tenant_isolation", cross_tenant, f"static only: {NO_TENANT_VRFS}, so it routes "
         f"all tenants in one table and cannot measure isolation ({cross_tenant} cross-tenant pairs not pinged)"),
        ("twin.ping_routed", len(static_only) - cross_tenant, f"static only: {len(static_only) - cross_tenant} "
         f"pairs need the L3VNI (destination network has no SVI on the source leaf) and {NO_TENANT_VRFS}"),
    ):
        if count and ran[check]:
            report.add(check, [Finding(
                check=check, severity=Severity.INFO, subject="fabric", expected=None, actual=count, message=reason)])
        elif count:
            report.skip(check, reason)
    # Per sampled pair: what the intent says and whether it replied (None: not pinged, static only). Pairs
    # outside the sample are absent, so a caller never mistakes "not measured" for "reachable".
    outcomes = {f"{a.host}->{b.host}": {"kind": classes[(a, b)],
                                         "replied": results[(a, b)].any_reply if (a, b) in results else None}
                for a, b in pairs}
    return {"pairs": len(pairs), "pinged": len(to_ping), "static_only_pairs": len(static_only), "outcomes": outcomes}


def sample_pairs(pairs: list[tuple[HostPort, HostPort]], limit: int) -> list[tuple[HostPort, HostPort]]:
    """At most ``limit`` pairs, taken round-robin over the classes (source network, destination network,
    same leaf or not) so every class is represented, each class in a fixed shuffled order so many different
    hosts and leaves are used. The full matrix is O(hosts^2); small fabrics get all of it."""
    if len(pairs) <= limit:
        return pairs
    groups: dict[tuple, list] = {}
    for pair in pairs:
        groups.setdefault((pair[0].network, pair[1].network, pair[0].leaf == pair[1].leaf), []).append(pair)
    shuffler = random.Random(0)  # deterministic: the same topology always gets the same sample
    queues = []
    for key in sorted(groups):
        shuffler.shuffle(groups[key])
        queues.append(iter(groups[key]))
    chosen: list = []
    while len(chosen) < limit and queues:
        for queue in list(queues):
            pair = next(queue, None)
            if pair is None:
                queues.remove(queue)
            elif len(chosen) < limit:
                chosen.append(pair)
    return chosen


def _warm_up_hosts(state: TwinState, ports: list[HostPort]) -> None:
    """Each host ARPs its gateway first: the leaves learn and advertise the host (EVPN type 2), as real
    servers do when they boot (docs/twin-notes.md: asymmetric IRB needs the hosts to ARP first)."""
    with_gateway = [port for port in ports if port.gateway]
    parallel(lambda port: collectors.ping(state.host_netns[port.host], port.gateway, count=1, wait_s=1),
             with_gateway)
    time.sleep(0.5)


def check_host_mtu(state: TwinState, report: Report) -> dict:
    """End-to-end DF probe between hosts on different leaves in the same network: a packet of exactly the host
    MTU must pass on every ECMP path both ways, one byte more must fail. Probed with many UDP flows whose
    route lookups are forced apart (``labs.flowprobe``: a ping would take one spine whatever its ICMP id). With
    the VXLAN device's ``df set`` an underlay hop smaller than MTU+50 drops the packet."""
    topology = state.topology_obj()
    ports = host_ports(topology)
    widths = expected_ecmp_widths(topology)
    pairs = []
    seen = set()
    for source, destination in itertools.permutations(ports, 2):
        if source.network == destination.network and source.leaf != destination.leaf and source.network not in seen:
            seen.add(source.network)
            pairs.append((source, destination))
    if not pairs:
        report.skip("twin.host_mtu", "no network has hosts on two different leaves")
        return {}

    def measure(pair):
        source, destination = pair
        mtu = min(source.mtu, destination.mtu)
        paths = widths.get((source.leaf, destination.leaf), 1)
        flows = flowprobe.flows_for_paths(paths)
        return flowprobe.probe(state.host_netns[source.host], state.host_netns[destination.host],
                               destination.address, flows=flows, sizes=[mtu, mtu + 1],
                               flush_netns=[state.node_netns[source.leaf], state.node_netns[destination.leaf]])

    findings = []
    measured = {}
    for (source, destination), result in zip(pairs, parallel(measure, pairs), strict=True):
        mtu = min(source.mtu, destination.mtu)
        flows = result["flows"]
        fits, over = result["sizes"][str(mtu)], result["sizes"][str(mtu + 1)]
        subject = f"{source.host}->{destination.host}"
        paths = widths.get((source.leaf, destination.leaf), 1)
        measured[subject] = {"mtu": mtu, "flows": flows, "flows_passed": fits, "over_mtu_failed": over < flows,
                             "ecmp_paths": paths, "miss_probability": flowprobe.miss_probability(paths, flows),
                             "seconds": result["seconds"]}
        if not result["reachable"]:
            findings.append(Finding(
                check="twin.host_mtu", severity=Severity.ERROR, subject=subject, expected=f"{mtu}-byte packets pass",
                actual=None, message=f"{subject}: not even a {flowprobe.WARM_UP_PACKET}-byte packet got through"))
        elif fits < flows:
            local = f" ({'; '.join(result['local_errors'])})" if result["local_errors"] else ""
            findings.append(Finding(
                check="twin.host_mtu", severity=Severity.ERROR, subject=subject,
                expected=f"{flows}/{flows} flows at {mtu} bytes", actual=f"lost on flow {fits + 1} of {flows}{local}",
                message=f"{subject}: a {mtu}-byte DF packet was lost on flow {fits + 1} of {flows} "
                f"(every earlier flow passed): a hop on one of the {paths} ECMP paths is "
                "smaller than the host MTU + VXLAN overhead"))
        if result["reachable"] and over == flows:
            findings.append(Finding(
                check="twin.host_mtu", severity=Severity.ERROR, subject=subject, expected=f"{mtu + 1} bytes fail",
                actual="passed on every flow", message=f"{subject}: a {mtu + 1}-byte DF packet got through, "
                f"so the host MTU is larger than the intended {mtu}"))
    report.add("twin.host_mtu", findings)
    return measured


def check_link_mtu(state: TwinState, report: Report) -> dict:
    """Per cable and direction: a DF ping of exactly the intended link MTU to the peer's address on that link
    must pass, one byte more must fail. Finds a single mis-set port that ECMP would hide from host probes."""
    topology = state.topology_obj()
    if not topology.links:
        report.skip("twin.link_mtu", "no switch-to-switch links")
        return {}
    addresses = _port_addresses(state)
    probes = []
    for link in topology.links:
        probes.append((link, link.a_node, link.a_ifname, link.b_node, link.b_ifname))
        probes.append((link, link.b_node, link.b_ifname, link.a_node, link.a_ifname))
    results = parallel(lambda probe: _probe_link(state, addresses, *probe), probes)
    link_nodes = sorted({link.a_node for link in topology.links} | {link.b_node for link in topology.links})
    kernel_links = dict(zip(link_nodes, parallel(lambda node: collectors.collect_links(state.node_netns[node]),
                                                 link_nodes), strict=True))
    findings = []
    # The configured MTU of each end, read back from the kernel: finds an end set *larger* than intended,
    # which no probe can see (the smaller peer simply drops what it cannot take).
    for link in topology.links:
        for node, ifname in ((link.a_node, link.a_ifname), (link.b_node, link.b_ifname)):
            configured = kernel_links[node].get(ifname)
            if configured is not None and configured.mtu != link.mtu:
                findings.append(Finding(
                    check="twin.link_mtu", severity=Severity.ERROR, subject=f"{node}:{ifname}", expected=link.mtu,
                    actual=configured.mtu, message=f"{node}:{ifname} has MTU {configured.mtu} in the kernel, "
                    f"the link {link.subject} is meant to carry {link.mtu}"))
    for (link, node, ifname, _peer, _peer_if), (target, fits, too_big) in zip(probes, results, strict=True):
        if target is None:
            findings.append(Finding(
                check="twin.link_mtu", severity=Severity.ERROR, subject=link.subject, expected="peer address",
                actual=None, message=f"{node}:{ifname}: no IPv4 or link-local address to probe the peer"))
            continue
        if not fits.ok:
            findings.append(Finding(
                check="twin.link_mtu", severity=Severity.ERROR, subject=link.subject, expected=link.mtu,
                actual="smaller", message=f"{node}:{ifname} -> {target}: DF ping of {link.mtu} bytes failed "
                f"({fits.local_error or 'no reply'}); one end of the link is below {link.mtu}"))
        if too_big.any_reply:
            findings.append(Finding(
                check="twin.link_mtu", severity=Severity.ERROR, subject=link.subject, expected=link.mtu,
                actual="larger", message=f"{node}:{ifname} -> {target}: a {link.mtu + 1}-byte DF ping got through; "
                f"the port MTU is above the intended {link.mtu}"))
    report.add("twin.link_mtu", findings)
    return {"links": len(topology.links), "probes": len(probes)}


def _port_addresses(state: TwinState) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    """(node, ifname) -> (IPv4 address, IPv6 link-local address) from the kernel."""
    out = {}
    for node, netns in state.node_netns.items():
        for link in json.loads(run(["ip", "-n", netns, "-j", "addr", "show"]).stdout or "[]"):
            ipv4 = next((a["local"] for a in link.get("addr_info", []) if a["family"] == "inet"), None)
            ll6 = next((a["local"] for a in link.get("addr_info", [])
                        if a["family"] == "inet6" and a.get("scope") == "link"), None)
            out[(node, link["ifname"])] = (ipv4, ll6)
    return out


def _probe_link(state, addresses, link: TwinLink, node: str, ifname: str, peer: str, peer_if: str):
    netns = state.node_netns[node]
    peer_v4, peer_ll = addresses.get((peer, peer_if), (None, None))
    own_v4, _ = addresses.get((node, ifname), (None, None))
    if own_v4 and peer_v4:
        target, headers = peer_v4, IPV4_ICMP_HEADERS
    elif peer_ll:
        target, headers = f"{peer_ll}%{ifname}", IPV6_ICMP_HEADERS
    else:
        return None, None, None
    payload = link.mtu - headers
    fits = collectors.ping(netns, target, count=1, size=payload, dont_fragment=True, interface=ifname)
    if not fits.ok:  # one retry: the first packet may wait for ARP/ND
        fits = collectors.ping(netns, target, count=1, size=payload, dont_fragment=True, interface=ifname)
    too_big = collectors.ping(netns, target, count=1, size=payload + 1, dont_fragment=True, interface=ifname)
    return target, fits, too_big


def check_pfc_ecn(report: Report) -> None:
    report.skip("twin.pfc_ecn", PFC_ECN_REASON)


def check_not_modelled(state: TwinState, report: Report) -> None:
    """Say plainly what the twin did not build, so nobody reads a missing check as a pass."""
    topology = state.topology_obj()
    tenant_vrfs = sorted({vrf["name"] for node in topology.nodes for vrf in node.linux_plan.get("vrfs", [])})
    if tenant_vrfs and not state.tenant_vrfs_built:
        report.skip("twin.l3vni_vrfs", f"static only: {NO_TENANT_VRFS}, so tenant VRFs "
                    f"{', '.join(tenant_vrfs)} and their L3VNIs (symmetric IRB) are not built; routing between "
                    "networks is measured as asymmetric IRB in the default table")
    limitations = topology.extra.get("limitations", [])
    if limitations:
        report.skip("twin.not_modelled", "; ".join(limitations))


# --------------------------------------------------------------------------------------------- failure injection


def _width(state: TwinState, node: str, prefix: str) -> int:
    return collectors.ecmp_width(collectors.collect_kernel_routes(state.node_netns[node], prefix), prefix)


def _uplinks(topology: TwinTopology, node: str) -> list[tuple[str, str, str]]:
    """(own ifname, peer node, peer ifname) of a node's switch-to-switch links."""
    out = []
    for link in topology.links:
        if link.a_node == node:
            out.append((link.a_ifname, link.b_node, link.b_ifname))
        elif link.b_node == node:
            out.append((link.b_ifname, link.a_node, link.a_ifname))
    return out


def _flow_endpoints(topology: TwinTopology) -> tuple[HostPort, HostPort]:
    ports = host_ports(topology)
    for source, destination in itertools.permutations(ports, 2):
        if source.network == destination.network and source.leaf != destination.leaf:
            return source, destination
    raise TwinError("failure injection needs two hosts of one network on different leaves")


def _busiest_uplink(state: TwinState, leaf: str, ifnames: list[str]) -> str:
    netns = state.node_netns[leaf]
    before = collectors.collect_tx_packets(netns, ifnames)
    time.sleep(0.5)
    after = collectors.collect_tx_packets(netns, ifnames)
    return max(ifnames, key=lambda ifname: after[ifname] - before[ifname])


def inject_failure(state: TwinState, report: Report, scope: str = "link", timeout_s: float = 30.0,
                   max_outage_s: float = 2.0, flow_seconds: float = 4.0) -> dict:
    """Cut the path a continuous host-to-host ping uses and measure, then restore and measure again.

    scope="link": the source leaf's uplink carrying the flow goes down. scope="spine": every link of the spine
    behind that uplink goes down (the spine side, as if the spine lost power). Convergence is the time until
    the kernel on the source leaf (local) and on the destination leaf (remote, needs the BGP withdraw) lists
    the reduced ECMP set toward the other VTEP; the outage is the largest gap between ping replies."""
    check = f"twin.failover_{scope}"
    topology = state.topology_obj()
    nodes = topology.nodes_by_name
    try:
        source, destination = _flow_endpoints(topology)
    except TwinError as error:
        report.skip(check, str(error))
        return {}
    src_vtep, dst_vtep = f"{vtep_of(nodes[source.leaf])}/32", f"{vtep_of(nodes[destination.leaf])}/32"
    widths = expected_ecmp_widths(topology)
    full_local, full_remote = widths[(source.leaf, destination.leaf)], widths[(destination.leaf, source.leaf)]
    uplinks = _uplinks(topology, source.leaf)
    # -i 0.002: 500 pps gives ~2 ms resolution on the outage; bounded in count and time.
    count = int(flow_seconds / 0.002)
    flow_netns = state.host_netns[source.host]
    deadline = flow_seconds + 1.0
    flow = collectors.start_ping(flow_netns, destination.address, count=count, interval=0.002, wait_s=1,
                                 deadline_s=deadline)
    targets: list[tuple[str, str]] = []
    try:
        time.sleep(0.5)
        cut = _busiest_uplink(state, source.leaf, [ifname for ifname, _, _ in uplinks])
        spine = next(peer for ifname, peer, _ in uplinks if ifname == cut)
        if scope == "link":
            cut_targets = [(source.leaf, cut)]
        elif scope == "spine":
            cut_targets = [(spine, ifname) for ifname, _, _ in _uplinks(topology, spine)]
        else:
            raise TwinError(f"scope={scope!r}: use 'link' or 'spine'")
        links_to_spine = {leaf: sum(1 for _, peer, _ in _uplinks(topology, leaf) if peer == spine)
                          for leaf in (source.leaf, destination.leaf)}
        lost_local = 1 if scope == "link" else links_to_spine[source.leaf]
        # The destination leaf loses its paths through the spine once the spine has no link left to the source.
        spine_cut_off = scope == "spine" or links_to_spine[source.leaf] == 1
        want_local = full_local - lost_local
        want_remote = full_remote - (links_to_spine[destination.leaf] if spine_cut_off else 0)
        started = time.monotonic()
        targets = cut_targets
        _set_links(state, targets, "down")
        local_s, remote_s = _wait_widths(state, [(source.leaf, dst_vtep, want_local),
                                                 (destination.leaf, src_vtep, want_remote)], started, timeout_s)
        outage = collectors.finish_ping(flow, timeout=flow_seconds + 30)
        # Restore under a second flow: bringing paths back must not drop traffic either.
        flow = collectors.start_ping(flow_netns, destination.address, count=count, interval=0.002, wait_s=1,
                                     deadline_s=deadline)
        time.sleep(0.3)
        restored = time.monotonic()
        _set_links(state, targets, "up")
        targets = []
        local_back, remote_back = _wait_widths(state, [(source.leaf, dst_vtep, full_local),
                                                       (destination.leaf, src_vtep, full_remote)], restored, 90.0)
        restore_outage = collectors.finish_ping(flow, timeout=flow_seconds + 30)
        resynced = resync_l3vni_next_hops(state, report)
    except BaseException:
        flow.kill()
        raise
    finally:
        if targets:  # never leave the twin with links down because a measurement failed
            _set_links(state, targets, "up")
    what = f"{source.leaf}:{cut}" if scope == "link" else f"{spine} (all {len(cut_targets)} links)"
    measured = {
        "cut": what, "flow": f"{source.host}->{destination.host}",
        "local_converged_s": local_s, "remote_converged_s": remote_s,
        "outage_s": round(outage.largest_gap_s, 3), "pings_sent": outage.transmitted,
        "pings_lost": outage.transmitted - outage.received,
        "restored_local_s": local_back, "restored_remote_s": remote_back,
        "restore_outage_s": round(restore_outage.largest_gap_s, 3),
        **({"l3vni_next_hops_resynced": resynced} if resynced else {}),
    }
    findings = [Finding(
        check=check, severity=Severity.INFO, subject=what, expected=None, actual=measured,
        message=f"{what} down: {source.leaf} converged in {local_s}s, {destination.leaf} in {remote_s}s, "
        f"flow {measured['flow']} outage {measured['outage_s'] * 1000:.0f} ms; restored ECMP in "
        f"{local_back}s/{remote_back}s (flow gap while restoring {measured['restore_outage_s'] * 1000:.0f} ms)")]
    for label, value, limit in (("local convergence", local_s, timeout_s), ("remote convergence", remote_s, timeout_s),
                                ("ECMP restore (local)", local_back, 90.0),
                                ("ECMP restore (remote)", remote_back, 90.0)):
        if value is None:
            findings.append(Finding(
                check=check, severity=Severity.ERROR, subject=what, expected=f"within {limit:.0f}s",
                actual="not reached", message=f"{label} after cutting {what} did not happen within {limit:.0f}s"))
    if restore_outage.received and restore_outage.largest_gap_s > max_outage_s:
        findings.append(Finding(
            check=check, severity=Severity.ERROR, subject=measured["flow"],
            expected=f"restore outage <= {max_outage_s}s", actual=measured["restore_outage_s"],
            message=f"bringing {what} back interrupted {measured['flow']} "
            f"for {restore_outage.largest_gap_s:.3f}s"))
    if outage.received == 0:
        findings.append(Finding(
            check=check, severity=Severity.ERROR, subject=measured["flow"], expected="flow survives",
            actual="no replies at all", message=f"the flow {measured['flow']} never got a reply while {what} was down"))
    elif outage.largest_gap_s > max_outage_s:
        findings.append(Finding(
            check=check, severity=Severity.ERROR, subject=measured["flow"], expected=f"outage <= {max_outage_s}s",
            actual=round(outage.largest_gap_s, 3), message=f"cutting {what} interrupted {measured['flow']} for "
            f"{outage.largest_gap_s:.3f}s"))
    report.add(check, findings)
    return measured


def _set_links(state: TwinState, targets: list[tuple[str, str]], updown: str) -> None:
    by_node: dict[str, list[str]] = {}
    for node, ifname in targets:
        by_node.setdefault(node, []).append(f"link set dev {ifname} {updown}")
    for node, commands in by_node.items():
        run(["ip", "-n", state.node_netns[node], "-batch", "-"], input="\n".join(commands) + "\n")


def _wait_widths(state: TwinState, watches: list[tuple[str, str, int]], started: float, timeout_s: float
                 ) -> list[float | None]:
    """Poll kernel routes (~10 ms apart, plus fork/exec) until each (node, prefix) has the wanted width."""
    reached: list[float | None] = [None] * len(watches)
    while time.monotonic() - started < timeout_s and None in reached:
        for index, (node, prefix, want) in enumerate(watches):
            if reached[index] is None and _width(state, node, prefix) == want:
                reached[index] = round(time.monotonic() - started, 3)
        time.sleep(0.01)
    return reached


# --------------------------------------------------------------------------------------------- resources


def measure_resources(state: TwinState) -> dict:
    """RSS of the recorded FRR daemons (KiB), per switch and in total."""
    per_switch = {node: sum(collectors.rss_kib(pid) for pid in daemons.values())
                  for node, daemons in state.pids.items()}
    total = sum(per_switch.values())
    return {"switches": len(per_switch), "rss_total_mib": round(total / 1024, 1),
            "rss_per_switch_mib": round(total / 1024 / max(len(per_switch), 1), 1)}


def verify(state: TwinState, *, failover: bool = True, converge_timeout_s: float = 60.0) -> tuple[Report, dict]:
    """Run every live check in order; returns the report and the measured numbers."""
    report = Report(f"twin {state.prefix} ({state.label})")
    measured: dict = {}
    check_config_load(state, report)
    measured["bgp"] = check_bgp_sessions(state, report, timeout_s=converge_timeout_s)
    measured["bfd"] = check_bfd_sessions(state, report)
    measured["evpn"] = check_evpn_flood_lists(state, report)
    measured["ecmp"] = check_ecmp_width(state, report)
    measured["l3vni"] = check_l3vni_vrfs(state, report)
    measured["ping"] = check_ping_matrix(state, report)
    if measured["l3vni"]:
        measured["l3vni"]["host_routes_via_l3vni"] = count_l3vni_host_routes(state)
    measured["host_mtu"] = check_host_mtu(state, report)
    measured["link_mtu"] = check_link_mtu(state, report)
    if failover:
        measured["failover_link"] = inject_failure(state, report, scope="link")
        measured["failover_spine"] = inject_failure(state, report, scope="spine")
    check_pfc_ecn(report)
    check_not_modelled(state, report)
    measured["resources"] = measure_resources(state)
    return report, measured
