"""Every live measurement of a running twin, written once: one function per measurement, numbers out.

The live checks (``labs.checks``: measurement vs what the topology predicts, ``labs.expect``) and the fidelity
comparison (``labs.fidelity``: measurement vs the validators' static prediction, ``validators.prediction``)
both measure through this module, so a fix to a measurement (like re-learning the L3VNI next hops FRR 8.4
loses after a best-path change) is made in one place. Nothing here builds a ``Finding``; the callers judge.

Measurements: port addresses, warm-up, link down/up, BGP session counts (and waiting for them), BFD peers,
EVPN flood lists, ECMP tables (and waiting for them), L3VNIs and their next hops, link MTU probe, host MTU
probe, ping and its classification, failure injection (one ``inject`` for the failover checks and the
what-if scenarios), daemon memory.
"""

from __future__ import annotations

import contextlib
import ipaddress
import itertools
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from compiler.errors import TwinError

from . import collectors, expect, flowprobe
from .collectors import PingResult
from .expect import HostPort
from .frr_binaries import active_frr
from .runtime import TwinState
from .runtime.sizing import CONVERGE_BASE_S, recorded_policy
from .shell import parallel, run
from .stitch import stitched_far_ends

IPV4_ICMP_HEADERS = 28  # IPv4 20 + ICMP 8: ping -s payload = packet size - 28
IPV6_ICMP_HEADERS = 48  # IPv6 40 + ICMPv6 8
FLOW_INTERVAL_S = 0.002  # -i 0.002: 500 pps gives ~2 ms resolution on an outage

T = TypeVar("T")


# --------------------------------------------------------------------------------------------- addresses, ping


def port_addresses(state: TwinState) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    """(node, ifname) -> (IPv4 address, IPv6 link-local address) from the kernel."""
    out = {}
    for node, netns in state.node_netns.items():
        for link in json.loads(run(["ip", "-n", netns, "-j", "addr", "show"]).stdout or "[]"):
            infos = link.get("addr_info", [])
            ipv4 = next((a["local"] for a in infos if a["family"] == "inet"), None)
            ll6 = next((a["local"] for a in infos if a["family"] == "inet6" and a.get("scope") == "link"), None)
            out[(node, link["ifname"])] = (ipv4, ll6)
    return out


def ping(state: TwinState, host: str, address: str, **kwargs) -> PingResult:
    """Ping from a host's namespace (``collectors.ping_args`` keywords: count, interval, size, ...)."""
    return collectors.ping(state.host_netns[host], address, **kwargs)


def classify_ping(source: HostPort, destination: HostPort, *, vrf_devices: bool, svis: Mapping[str, list]) -> str:
    """What a ping from ``source`` to ``destination`` should do on this twin: 'bridged', 'routed', 'isolated',
    'unreachable' or 'static_only' (``labs.expect.classify_pair``). ``vrf_devices``: the twin built tenant VRFs
    (``TwinState.tenant_vrfs_built``); ``svis``: ``labs.expect.svi_networks(topology)``, to know whether the
    destination's network has an SVI on the source leaf (without VRFs only then can the twin route it)."""
    destination_address = ipaddress.ip_address(destination.address)
    svi_on_source_leaf = any(destination_address in subnet for subnet in svis.get(source.leaf, []))
    return expect.classify_pair(source, destination, vrf_devices, svi_on_source_leaf)


def warm_up(state: TwinState, ports: Iterable[HostPort]) -> None:
    """Each host ARPs its gateway first: the leaves learn and advertise the host (EVPN type 2), as real
    servers do when they boot (docs/twin-notes.md: asymmetric IRB needs the hosts to ARP first)."""
    with_gateway = [port for port in ports if port.gateway]
    parallel(lambda port: ping(state, port.host, port.gateway, count=1, wait_s=1), with_gateway)
    time.sleep(0.5)


def stable(measure: Callable[[], T], *, settle_s: float, timeout_s: float) -> T:
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


# --------------------------------------------------------------------------------------------- BGP, BFD, EVPN


def bgp_sessions(state: TwinState, node: str) -> tuple[dict[str, int], dict[str, list[str]]]:
    """Per address family (FRR's names): Established sessions (0 when the family has sessions but none is up),
    and the peers that are not Established ('peer (state)'). Empty when the node's bgpd does not answer."""
    try:
        sessions = collectors.collect_bgp_summary(state.node_netns[node])
    except TwinError:
        return {}, {}
    counts: dict[str, int] = {}
    down: dict[str, list[str]] = {}
    for session in sessions:
        counts.setdefault(session.afi, 0)
        if session.established:
            counts[session.afi] += 1
        else:
            down.setdefault(session.afi, []).append(f"{session.peer} ({session.state})")
    return counts, down


def bgp_session_counts(state: TwinState) -> dict[str, dict[str, int]]:
    """Every node: address family -> Established sessions."""
    nodes = sorted(state.node_netns)
    return {node: counts for node, (counts, _down) in zip(nodes, parallel(lambda node: bgp_sessions(state, node),
                                                                          nodes), strict=True)}


@dataclass
class SessionWait:
    """Polling BGP until every expected session is Established (or a timeout)."""

    observed: dict[str, tuple[dict[str, int], dict[str, list[str]]]]  # node -> bgp_sessions()
    missing: dict[str, dict[str, tuple[int, int]]]  # node -> afi -> (wanted, Established)
    polls: int
    slowest_poll_s: float
    converged_at: float  # epoch seconds of the last poll


def wait_bgp_sessions(state: TwinState, expected: Mapping[str, Mapping[str, int]], *, timeout_s: float,
                      poll_s: float) -> SessionWait:
    """Poll until every node has its expected Established sessions. Each poll asks only the nodes still short of
    them (asking all of them every time made waiting on a big twin cost nodes x polls vtysh calls); once none
    is, one last poll of every node confirms no session dropped meanwhile (else the wait goes on)."""
    deadline = time.monotonic() + timeout_s
    polls = 0
    slowest_poll = 0.0
    observed: dict[str, tuple[dict[str, int], dict[str, list[str]]]] = {}
    pending = list(expected)
    all_seen_at = 0.0  # when the last short node was seen complete (the confirmation poll comes after it)
    while True:
        polls += 1
        poll_started = time.monotonic()
        observed.update(zip(pending, parallel(lambda node: bgp_sessions(state, node), pending), strict=True))
        missing = {node: {afi: (want, observed[node][0].get(afi, 0)) for afi, want in families.items()
                          if observed[node][0].get(afi, 0) < want}
                   for node, families in expected.items()}
        missing = {node: afis for node, afis in missing.items() if afis}
        slowest_poll = max(slowest_poll, time.monotonic() - poll_started)
        confirmed = len(pending) == len(expected)
        if not missing and not all_seen_at:
            all_seen_at = time.time()
        if missing:
            all_seen_at = 0.0
        if (not missing and confirmed) or time.monotonic() > deadline:
            break
        pending = [node for node in expected if node in missing] if missing else list(expected)
        if missing:
            time.sleep(poll_s)
    return SessionWait(observed, missing, polls, slowest_poll, all_seen_at or time.time())


def bfd_peers(state: TwinState, node: str) -> list:
    try:
        return collectors.collect_bfd_peers(state.node_netns[node])
    except TwinError:
        return []


def evpn_route_types(state: TwinState, node: str) -> dict[int, int]:
    """EVPN route type -> routes in the node's BGP table (type 2 MAC/IP, type 3 flood, type 5 prefix)."""
    return collectors.collect_evpn_route_types(state.node_netns[node])


def kernel_links(state: TwinState, node: str) -> dict:
    """ifname -> ``collectors.LinkState`` (MTU, state) of the node's kernel links."""
    return collectors.collect_links(state.node_netns[node])


def flood_lists(state: TwinState, nodes: Iterable[str]) -> dict[str, dict[str, set[str]]]:
    """Node -> VXLAN device -> VTEPs in its head-end replication list (EVPN type 3 -> all-zero-MAC FDB)."""
    nodes = list(nodes)
    return dict(zip(nodes, parallel(lambda node: collectors.collect_flood_lists(state.switch_namespaces(node)),
                                    nodes), strict=True))


# --------------------------------------------------------------------------------------------- ECMP


def ecmp_width(state: TwinState, node: str, prefix: str) -> int:
    """Kernel next hops at ``node`` toward ``prefix`` (one route read: cheap enough to poll)."""
    return collectors.ecmp_width(collectors.collect_kernel_routes(state.node_netns[node], prefix), prefix)


def ecmp_widths(state: TwinState, vteps: Mapping[str, str], pairs: Iterable[tuple[str, str]] | None = None
                ) -> dict[tuple[str, str], int]:
    """(source, destination) -> kernel next hops at the source toward the destination's VTEP /32 (what the data
    plane hashes over). ``pairs`` defaults to every ordered pair of ``vteps`` (node -> VTEP address)."""
    pairs = list(pairs) if pairs is not None else list(itertools.permutations(sorted(vteps), 2))
    sources = sorted({source for source, _ in pairs})
    tables = dict(zip(sources, parallel(lambda node: collectors.collect_kernel_routes(state.node_netns[node]),
                                        sources), strict=True))
    return {(source, destination): collectors.ecmp_width(tables[source], f"{vteps[destination]}/32")
            for source, destination in pairs}


def wait_ecmp_widths(state: TwinState, expected: Mapping[tuple[str, str], int], *, settle_s: float
                     ) -> tuple[dict[tuple[str, str], int], float]:
    """Re-read the ECMP tables until every width is the expected one or ``settle_s`` passed: sessions being
    Established does not mean every path is in the kernel yet (bestpath, then zebra's install). Returns the
    last reading and the seconds it took."""
    vteps = expect.vteps(state.topology_obj())
    started = time.monotonic()
    while True:
        measured = ecmp_widths(state, vteps, expected)
        if measured == expected or time.monotonic() - started >= settle_s:
            break
        time.sleep(0.5)
    return measured, round(time.monotonic() - started, 2)


def wait_widths(state: TwinState, watches: list[tuple[str, str, int]], started: float, timeout_s: float
                ) -> list[float | None]:
    """Poll kernel routes (~10 ms apart, plus fork/exec) until each (node, prefix) has the wanted width;
    per watch the seconds since ``started`` (None: not within the timeout)."""
    reached: list[float | None] = [None] * len(watches)
    while time.monotonic() - started < timeout_s and None in reached:
        for index, (node, prefix, want) in enumerate(watches):
            if reached[index] is None and ecmp_width(state, node, prefix) == want:
                reached[index] = round(time.monotonic() - started, 3)
        time.sleep(0.01)
    return reached


# --------------------------------------------------------------------------------------------- L3VNIs


def l3vnis(state: TwinState, node: str) -> dict:
    """L3VNI -> zebra's view (``collectors.L3Vni``); empty when zebra does not answer."""
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


@dataclass
class Relearn:
    """What ``relearn_l3vni_next_hops`` found and did."""

    has_l3vni: bool  # the twin routes through at least one L3VNI (else there is nothing to check)
    lost: dict[str, list[str]] = field(default_factory=dict)  # switch -> VTEPs without router MAC at first
    resynced_s: float | None = None
    still_missing: dict[str, list[str]] = field(default_factory=dict)
    sessions: SessionWait | None = None  # the convergence after `clear bgp *`
    # (expected, measured, VTEP addresses) of the ECMP re-read after `clear bgp *`
    ecmp: tuple[dict[tuple[str, str], int], dict[tuple[str, str], int], dict[str, str]] | None = None
    timeout_s: float = 45.0  # how long the convergence and the next hops were waited for
    relearned: bool = True  # `clear bgp *` was applied (only for FRR releases that need it: l3vni_relearn_enabled)
    frr_version: str = ""  # the FRR that ran (labs.frr_binaries), named in the findings

    def as_measured(self) -> dict:
        if not self.lost:
            return {}
        return {"lost": self.lost, "resynced_s": self.resynced_s, "still_missing": self.still_missing,
                "workaround_applied": self.relearned, "frr": self.frr_version}


def l3vni_relearn_enabled() -> bool:
    """Whether the twin re-learns lost L3VNI next hops with `clear bgp *`: ``FT_TWIN_L3VNI_RELEARN`` = 1 (always)
    or 0 (never: measure the FRR as it is), else only for the FRR releases that need it
    (``labs.frr_binaries.L3VNI_RELEARN_RELEASES``: 8.4)."""
    forced = os.environ.get("FT_TWIN_L3VNI_RELEARN", "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    return active_frr().relearns_l3vni


def relearn_l3vni_next_hops(state: TwinState, *, settle_s: float = 3.0, timeout_s: float | None = None) -> Relearn:
    """Find L3VNI next hops FRR lost and re-learn them.

    Why (measured with FRR 8.4.4 here): when the best path of an EVPN route imported into a tenant VRF moves to
    another spine (a spine or a leaf uplink went down), bgpd withdraws the VRF route from zebra and announces
    it again; zebra deletes the remote VTEP's router MAC and neighbour entry on the withdraw and does not
    install them again on the announce (its log shows "L3VNI ... RMAC ... delete" and no add). Every routed
    packet toward that VTEP is then dropped, for good: restoring the link does not bring them back. FRR
    documents the withdraw-then-announce (FRRouting/frr#18240); the lost re-install is the defect. The twin
    re-learns the routes with ``clear bgp *`` on the affected leaves (a fresh install works, as at boot) and
    waits for a converged fabric (sessions, kernel ECMP, then the next hops) so later measurements see the
    fabric, not the leftover. ``labs.checks.l3vni`` turns the result into findings. ``timeout_s`` defaults to
    the twin's convergence wait (labs.runtime.sizing: it grows with the fabric)."""
    if timeout_s is None:
        policy = recorded_policy(state.size_policy)
        timeout_s = policy.converge_timeout_s if policy else CONVERGE_BASE_S
    deadline = time.monotonic() + settle_s
    gaps = l3vni_next_hop_gaps(state)
    while gaps and time.monotonic() < deadline:  # entries may still be on their way after a change
        time.sleep(0.5)
        gaps = l3vni_next_hop_gaps(state)
    if not gaps:
        return Relearn(has_l3vni=next(l3vni_tables(state), None) is not None, frr_version=active_frr().version)
    if not l3vni_relearn_enabled():  # no workaround: the loss stays, and is reported as an error
        return Relearn(True, gaps, None, gaps, timeout_s=settle_s, relearned=False, frr_version=active_frr().version)
    started = time.monotonic()
    vtysh = active_frr().vtysh
    parallel(lambda leaf: run([vtysh, "-N", state.node_netns[leaf], "-c", "clear bgp *"], check=False, timeout=60),
             sorted(gaps))
    topology = state.topology_obj()
    expected_sessions = expect.expected_sessions(topology)
    sessions = None
    if any(count for families in expected_sessions.values() for count in families.values()):
        sessions = wait_bgp_sessions(state, expected_sessions, timeout_s=timeout_s, poll_s=0.2)
    expected_widths = expect.expected_ecmp_widths(topology)
    ecmp = None
    if expected_widths:
        ecmp = (expected_widths, wait_ecmp_widths(state, expected_widths, settle_s=max(15.0, timeout_s / 4))[0],
                expect.vteps(topology))
    left = l3vni_next_hop_gaps(state)
    while left and time.monotonic() - started < timeout_s:
        time.sleep(0.5)
        left = l3vni_next_hop_gaps(state)
    return Relearn(True, gaps, round(time.monotonic() - started, 2), left, sessions, ecmp, timeout_s,
                   frr_version=active_frr().version)


# --------------------------------------------------------------------------------------------- MTU probes


def link_probe_target(addresses: Mapping[tuple[str, str], tuple[str | None, str | None]], node: str, ifname: str,
                      peer: str, peer_if: str) -> tuple[str, int] | None:
    """The peer's address on a link to probe from (node, ifname) and the IP + ICMP header bytes of a probe to
    it: IPv4 when both ends have one, else the peer's IPv6 link-local; None when neither exists."""
    peer_v4, peer_ll = addresses.get((peer, peer_if), (None, None))
    own_v4, _ = addresses.get((node, ifname), (None, None))
    if own_v4 and peer_v4:
        return peer_v4, IPV4_ICMP_HEADERS
    if peer_ll:
        return f"{peer_ll}%{ifname}", IPV6_ICMP_HEADERS
    return None


def probe_link_mtu(state: TwinState, node: str, ifname: str, target: tuple[str, int], size: int | None, *,
                   wait_s: float = 1.0) -> PingResult:
    """One DF ping out of (node, ifname) to the peer carrying an IP packet of ``size`` bytes (``None``: a plain
    ping, to resolve ARP/ND before the probes)."""
    address, headers = target
    if size is None:
        return collectors.ping(state.node_netns[node], address, count=1, interface=ifname)
    return collectors.ping(state.node_netns[node], address, count=1, size=size - headers, dont_fragment=True,
                           interface=ifname, wait_s=wait_s)


def probe_host_mtu(state: TwinState, source: HostPort, destination: HostPort, *, paths: int,
                   sizes: list[int] | None = None, search: dict | None = None) -> dict:
    """DF packets from one host to another over enough UDP flows to cover ``paths`` ECMP paths, their route
    lookups forced apart (``labs.flowprobe`` says why a ping cannot): either the given ``sizes`` or a
    ``search`` for the largest size passing on every flow (``flowprobe.probe``)."""
    return flowprobe.probe(state.host_netns[source.host], state.host_netns[destination.host], destination.address,
                           flows=flowprobe.flows_for_paths(paths), sizes=sizes, search=search,
                           flush_netns=[state.node_netns[source.leaf], state.node_netns[destination.leaf]])


def probe_host_ping_mtu(state: TwinState, source: HostPort, address: str, size: int, *,
                        wait_s: float = 1.0) -> PingResult:
    """One DF ping (``ping -M do``) out of a host's NIC to ``address`` carrying an IPv4 packet of exactly ``size``
    bytes: payload = size - 28 (IPv4 20 + ICMP 8). A size above the NIC's own MTU fails locally ("message too
    long"), as on a real server; a smaller hop on the way drops it (a veth or bridge port drops a frame above its
    MTU; a router answers "frag needed")."""
    return collectors.ping(state.host_netns[source.host], address, count=1, size=size - IPV4_ICMP_HEADERS,
                           dont_fragment=True, interface=source.ifname, wait_s=wait_s)


def largest_host_ping(state: TwinState, source: HostPort, address: str, *, predicted: int,
                      wait_s: float = 0.5) -> int:
    """The largest IPv4 packet a DF ping from ``source`` to ``address`` gets an echo for (0: none at all), by
    ``flowprobe.largest_passing``'s search: the probed path MTU of that pair."""
    return flowprobe.largest_passing(lambda size: probe_host_ping_mtu(state, source, address, size,
                                                                      wait_s=wait_s).ok,
                                     predicted, floor=flowprobe.MIN_PROBE_PACKET, ceiling=max(predicted, 576))


def switch_port_links(state: TwinState, node: str) -> dict[str, tuple[str, collectors.LinkState]]:
    """ifname -> (namespace, ``collectors.LinkState``) of a switch's kernel links in its own namespace and its VRF
    namespaces (netns VRF backend: a tenant's server ports live in the VRF's namespace)."""
    out: dict[str, tuple[str, collectors.LinkState]] = {}
    for netns in state.switch_namespaces(node):
        for ifname, link in collectors.collect_links(netns).items():
            out.setdefault(ifname, (netns, link))
    return out


def host_links(state: TwinState, host: str) -> dict:
    """ifname -> ``collectors.LinkState`` (MTU, state) of a host namespace's kernel links."""
    return collectors.collect_links(state.host_netns[host])


# --------------------------------------------------------------------------------------------- failure injection


def set_links(state: TwinState, targets: Iterable[tuple[str, str] | list[str]], updown: str) -> None:
    """Link down or up: ``targets`` are (node, Linux ifname) pairs, one ``ip -batch`` per node. The far end of a
    stitched (VXLAN) cable follows (``labs.stitch.stitched_far_ends``), as a veth pair's carrier does."""
    ends = [(node, ifname) for node, ifname in targets]
    by_node: dict[str, list[str]] = {}
    for node, ifname in [*ends, *stitched_far_ends(state.topology_obj(), ends)]:
        by_node.setdefault(node, []).append(f"link set dev {ifname} {updown}")
    for node, commands in by_node.items():
        run(["ip", "-n", state.node_netns[node], "-batch", "-"], input="\n".join(commands) + "\n")


def link_counters(state: TwinState, node: str) -> dict[str, collectors.LinkCounters]:
    """A switch's per-interface traffic counters as the kernel counts them on its veths: what the twin really
    carried, e.g. to drive a model of what the hardware would count. One ``ip -s link`` per namespace of the switch
    (``TwinState.switch_namespaces``: with netns VRFs its host ports live in the tenant's namespace); a name found
    in two of them (``lo``) is the switch namespace's."""
    out: dict[str, collectors.LinkCounters] = {}
    for netns in state.switch_namespaces(node):
        for ifname, counters in collectors.collect_link_counters(netns).items():
            out.setdefault(ifname, counters)
    return out


def busiest_port(state: TwinState, node: str, ifnames: list[str]) -> str:
    """The interface of ``node`` that sent the most packets in half a second (the one a flow hashes to)."""
    netns = state.node_netns[node]
    before = collectors.collect_tx_packets(netns, ifnames)
    time.sleep(0.5)
    after = collectors.collect_tx_packets(netns, ifnames)
    return max(ifnames, key=lambda ifname: after[ifname] - before[ifname])


class Flow:
    """A continuous host-to-host ping at 500 pps, bounded in count and time; ``finish`` gives its outage."""

    def __init__(self, state: TwinState, source: HostPort, destination: HostPort, seconds: float) -> None:
        self.netns = state.host_netns[source.host]
        self.address = destination.address
        self.seconds = seconds
        self.process: subprocess.Popen | None = None

    def start(self) -> Flow:
        self.process = collectors.start_ping(self.netns, self.address, count=int(self.seconds / FLOW_INTERVAL_S),
                                             interval=FLOW_INTERVAL_S, wait_s=1, deadline_s=self.seconds + 1.0)
        return self

    def finish(self) -> PingResult:
        assert self.process is not None, "Flow.finish before Flow.start"
        return collectors.finish_ping(self.process, timeout=self.seconds + 30)

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process.ft_output.close()  # type: ignore[attr-defined]  # collectors.start_ping's output file


@dataclass
class Injection:
    """What ``inject`` measured. With watches: per watch the seconds until the reduced width (``converged``)
    and the full width again (``restored``). Without: the settled VTEP ECMP matrix while cut (``widths``,
    'src->dst' keys), ``converged`` = [seconds until it settled], ``restored`` = [seconds until the matrix was
    back to the reading before the cut]."""

    converged: list[float | None]
    restored: list[float | None]
    widths: dict[str, int] | None = None
    outage: PingResult | None = None
    restore_outage: PingResult | None = None
    relearn: Relearn | None = None


def inject(state: TwinState, targets: list[tuple[str, str]] | list[list[str]], *,
           watches: list[tuple[str, str, int, int]] | None = None, flow: Flow | None = None, settle_s: float = 2.0,
           timeout_s: float = 30.0, restore_timeout_s: float = 90.0) -> Injection:
    """Failure injection, the one way: cut ``targets`` (node, Linux ifname), measure until the kernels
    converged, restore, measure until they are whole again, then re-learn the L3VNI next hops FRR may have lost
    (``relearn_l3vni_next_hops``). The links always come back up, whatever fails on the way.

    ``watches`` (node, VTEP prefix, width when cut, width when whole): polled ~10 ms apart for a convergence
    time (failover checks). Without them the whole VTEP ECMP matrix is read until it is stable for
    ``settle_s`` (what-if scenarios) and, after the restore, until it equals the reading before the cut.
    ``flow``: a continuous ping (started by the caller when it picks the cut by traffic, else here) that is
    finished when the cut converged; a second one runs across the restore, which must not drop traffic either.
    """
    vteps = expect.vteps(state.topology_obj())

    def matrix() -> dict[str, int]:
        return {f"{source}->{destination}": width for (source, destination), width in ecmp_widths(state, vteps).items()}

    before = None if watches else matrix()
    injection = Injection([], [])
    if flow is not None and flow.process is None:
        flow.start()
    down = True
    cut_at = time.monotonic()
    set_links(state, targets, "down")
    try:
        if watches:
            injection.converged = wait_widths(state, [(node, prefix, cut) for node, prefix, cut, _ in watches],
                                              cut_at, timeout_s)
        else:
            time.sleep(0.5)
            injection.widths = stable(matrix, settle_s=settle_s, timeout_s=timeout_s)
            injection.converged = [round(time.monotonic() - cut_at - settle_s, 2)]
        if flow is not None:
            injection.outage = flow.finish()
            flow.start()
            time.sleep(0.3)
        restored_at = time.monotonic()
        set_links(state, targets, "up")
        down = False
        if watches:
            injection.restored = wait_widths(state, [(node, prefix, whole) for node, prefix, _, whole in watches],
                                             restored_at, restore_timeout_s)
        else:
            injection.restored = [None]
            while time.monotonic() - restored_at < restore_timeout_s:
                if matrix() == before:
                    injection.restored = [round(time.monotonic() - restored_at, 2)]
                    break
                time.sleep(0.2)
        if flow is not None:
            injection.restore_outage = flow.finish()
    except BaseException:
        if flow is not None:
            flow.kill()
        raise
    finally:
        if down:  # never leave the twin with links down because a measurement failed
            set_links(state, targets, "up")
    injection.relearn = relearn_l3vni_next_hops(state)
    return injection


# --------------------------------------------------------------------------------------------- resources


def measure_resources(state: TwinState) -> dict:
    """RSS of the recorded FRR daemons (KiB), per switch and in total."""
    per_switch = {node: sum(collectors.rss_kib(pid) for pid in daemons.values())
                  for node, daemons in state.pids.items()}
    total = sum(per_switch.values())
    return {"switches": len(per_switch), "rss_total_mib": round(total / 1024, 1),
            "rss_per_switch_mib": round(total / 1024 / max(len(per_switch), 1), 1)}


def measure_idle_cpu(state: TwinState, seconds: float = 10.0) -> dict:
    """CPU the twin's recorded FRR daemons use while nothing happens: utime + stime over ``seconds``, in cores
    (1.0 = one core busy); the machine's 1-minute load average beside it, since the host may be shared."""
    pids = [pid for daemons in state.pids.values() for pid in daemons.values()]
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu_ticks() -> int:
        total = 0
        for pid in pids:
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime (proc(5) fields 14, 15)
        return total

    before, started = cpu_ticks(), time.monotonic()
    time.sleep(seconds)
    used = (cpu_ticks() - before) / ticks
    window = time.monotonic() - started
    return {"frr_cores": round(used / window, 2), "window_s": round(window, 1), "load_1m": round(os.getloadavg()[0], 1)}
