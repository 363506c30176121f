"""Stitching a sharded twin: every cable between switches on different twin hosts becomes a VXLAN link (issue 35).

Per cross-host cable, one VXLAN device per end: created in that end's host underlay namespace (``local`` = this
host's underlay address, ``remote`` = the peer host's, ``dev`` = the underlay interface), then moved into the
switch's namespace and renamed to the cable's port name. A VXLAN device moved to another namespace keeps its
underlay socket in the namespace it was created in (measured on this kernel: a 9,214-byte ping crosses it with
DF set, and deleting the underlay interface deletes the VXLAN device in the switch namespace too: the port
vanishes, as a cut cable would). GRE-tap and Geneve are not available on this kernel (issue 35).

- VNI: ``STITCH_VNI_BASE + the cable's index in topology.links`` (the cable's id in the topology, the same on
  every host that reads the same topology). 24 bits (RFC 7348 section 5).
- UDP port ``STITCH_UDP_PORT`` (8472, the Linux kernel's historical VXLAN default), never the fabric's own 4789
  (IANA, RFC 7348 section 5), so stitching and the fabric's EVPN-VXLAN never share a socket.
- MTU: the underlay must carry the cable's MTU plus the encapsulation (``VXLAN_OVERHEAD_BYTES``); where the cable
  itself carries the fabric's EVPN-VXLAN, the tenant MTU plus twice the encapsulation as well. Otherwise
  ``stitch_plan`` refuses with an InputError naming the host, its underlay MTU and what is needed.

Emulated hosts (tests, benches): ``emulate_hosts`` makes K "machines" on this one: a namespace per host, each
with a veth (``ul0``) to one lab bridge in a lab namespace and an underlay address from ``EMULATED_UNDERLAY``.
Nothing is created in the root namespace. Their names (``<prefix>_lab``, ``<prefix>_h_<host>``) contain ``_``,
which no twin prefix does, so they never look like another twin's ``<prefix>-…`` namespaces.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from compiler.errors import FieldError, InputError

from .shell import ip_batch, ns_exec, parallel, run
from .topology import TwinTopology

STITCH_UDP_PORT = 8472
FABRIC_VXLAN_PORT = 4789  # IANA-assigned VXLAN port (RFC 7348 section 5): what the fabric's own VTEPs use
STITCH_VNI_BASE = 1 << 20  # 1,048,576: above the compiler's L2/L3 VNI pools, readable in captures
MAX_VNI = (1 << 24) - 1  # RFC 7348: 24-bit VNI
# RFC 7348 section 5 over IPv4: outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8 = 50 bytes on top of the inner
# frame's payload MTU (the inner Ethernet header is inside the outer IP packet: 14 + 8 + 8 + 20 = 50 of IP MTU).
VXLAN_OVERHEAD_BYTES = 50
EMULATED_UNDERLAY = ipaddress.ip_network("198.18.0.0/24")  # RFC 2544 benchmarking range: never a real network
EMULATED_UNDERLAY_MTU = 9300  # 9,214 + 50 for the stitch, with room; veth and bridge accept up to 65,535
UNDERLAY_IFNAME = "ul0"


@dataclass(frozen=True, slots=True)
class UnderlayHost:
    """One twin host's underlay: its address, the interface VXLAN binds to, that interface's MTU, and the
    namespace that interface lives in (``None``: the machine's own, for real hosts)."""

    name: str
    address: str
    ifname: str = UNDERLAY_IFNAME
    mtu: int = EMULATED_UNDERLAY_MTU
    netns: str | None = None


@dataclass(frozen=True, slots=True)
class StitchLink:
    index: int  # position in topology.links
    vni: int
    a_node: str
    a_ifname: str
    a_host: str
    b_node: str
    b_ifname: str
    b_host: str
    mtu: int
    required_underlay_mtu: int


@dataclass(frozen=True)
class StitchPlan:
    port: int
    links: tuple[StitchLink, ...]
    hosts: Mapping[str, UnderlayHost]
    assignment: Mapping[str, str]  # switch -> host

    def as_dict(self) -> dict:
        return {"port": self.port, "links": [asdict(link) for link in self.links],
                "hosts": {name: asdict(host) for name, host in self.hosts.items()}, "assignment": dict(self.assignment)}

    @classmethod
    def from_dict(cls, data: Mapping) -> StitchPlan:
        return cls(port=data["port"], links=tuple(StitchLink(**link) for link in data["links"]),
                   hosts={name: UnderlayHost(**host) for name, host in data["hosts"].items()},
                   assignment=dict(data["assignment"]))

    @property
    def stitched_indexes(self) -> set[int]:
        return {link.index for link in self.links}


def carries_evpn_vxlan(topology: TwinTopology) -> bool:
    """A fabric with any VTEP (a bridge with a VXLAN device in a Linux plan) carries EVPN-VXLAN on its cables."""
    return any(bridge.get("vxlan") for node in topology.nodes for bridge in node.linux_plan.get("bridges", []))


def tenant_mtu(topology: TwinTopology) -> int:
    """The largest frame a server sends into the fabric (what the fabric's VXLAN wraps)."""
    return max((interface.mtu for host in topology.hosts for interface in host.interfaces), default=1500)


def required_underlay_mtu(link_mtu: int, *, evpn: bool, tenant: int) -> int:
    """IP MTU the underlay needs for one stitched cable: the cable's MTU plus the stitch's encapsulation; on a
    cable that carries the fabric's EVPN-VXLAN, at least the tenant MTU plus both encapsulations."""
    needed = link_mtu + VXLAN_OVERHEAD_BYTES
    if evpn:
        needed = max(needed, tenant + 2 * VXLAN_OVERHEAD_BYTES)
    return needed


def stitch_plan(topology: TwinTopology, assignment: Mapping[str, str], hosts: Mapping[str, UnderlayHost], *,
                port: int = STITCH_UDP_PORT) -> StitchPlan:
    """The VXLAN links for every cable whose ends ``assignment`` puts on different hosts. InputError (every
    problem, each naming the field and value) for an unassigned switch, an unknown host, the fabric's own port,
    a VNI out of range or an underlay MTU too small."""
    errors: list[FieldError] = []
    if port == FABRIC_VXLAN_PORT or not 1 <= port <= 65535:
        errors.append(FieldError("stitch.port", port, f"use a UDP port other than the fabric's VXLAN port "
                                                      f"{FABRIC_VXLAN_PORT} (default {STITCH_UDP_PORT})"))
    for node in topology.nodes:
        host = assignment.get(node.name)
        if host is None:
            errors.append(FieldError(f"assignment[{node.name}]", None, "switch is not assigned to a host"))
        elif host not in hosts:
            errors.append(FieldError(f"assignment[{node.name}]", host, f"unknown host (known: {sorted(hosts)})"))
    if errors:
        raise InputError(errors)
    evpn, tenant = carries_evpn_vxlan(topology), tenant_mtu(topology)
    links = []
    short: dict[str, list[tuple[int, str, int]]] = {}  # host -> (needed, cable, cable MTU) it cannot carry
    for index, link in enumerate(topology.links):
        a_host, b_host = assignment[link.a_node], assignment[link.b_node]
        if a_host == b_host:
            continue
        vni = STITCH_VNI_BASE + index
        if vni > MAX_VNI:
            errors.append(FieldError(f"links[{index}]", link.subject, f"VNI {vni} exceeds 24 bits (RFC 7348)"))
        needed = required_underlay_mtu(link.mtu, evpn=evpn, tenant=tenant)
        for host in (a_host, b_host):
            if hosts[host].mtu < needed:
                short.setdefault(host, []).append((needed, link.subject, link.mtu))
        links.append(StitchLink(index=index, vni=vni, a_node=link.a_node, a_ifname=link.a_ifname, a_host=a_host,
                                b_node=link.b_node, b_ifname=link.b_ifname, b_host=b_host, mtu=link.mtu,
                                required_underlay_mtu=needed))
    for host, cables in short.items():  # one error per host, naming its largest need and the cables
        needed, subject, link_mtu = max(cables)
        why = f"cable MTU {link_mtu} + {VXLAN_OVERHEAD_BYTES} VXLAN" + (
            f"; the cable carries EVPN-VXLAN: tenant MTU {tenant} + 2 x {VXLAN_OVERHEAD_BYTES}" if evpn else "")
        errors.append(FieldError(f"hosts[{host}].mtu", hosts[host].mtu,
                                 f"underlay MTU too small: needs {needed} ({why}) for {len(cables)} stitched "
                                 f"cable(s), e.g. {subject}"))
    if errors:
        raise InputError(errors)
    return StitchPlan(port=port, links=tuple(links), hosts=dict(hosts), assignment=dict(assignment))


def stitched_topology(topology: TwinTopology, plan: StitchPlan) -> TwinTopology:
    """``topology`` with the stitch plan recorded in ``extra["stitch"]``: ``labs.runtime.up`` then creates the
    cross-host cables as VXLAN links instead of veth pairs (and the state file records the plan)."""
    return TwinTopology(name_prefix=topology.name_prefix, nodes=topology.nodes, links=topology.links,
                        hosts=topology.hosts, label=topology.label, extra={**topology.extra, "stitch": plan.as_dict()})


@dataclass(frozen=True, slots=True)
class VxlanEnd:
    """One end of a stitched cable as ``ip -batch`` lines: created in the underlay namespace under a temporary
    name unique on the host (``st<vni>``) and moved into the switch namespace, then renamed there."""

    underlay_netns: str | None  # None: the machine's own namespace (a real host)
    underlay_lines: tuple[str, ...]
    switch_netns: str
    switch_lines: tuple[str, ...]


def vxlan_end(topology: TwinTopology, plan: StitchPlan, link: StitchLink, side: str) -> VxlanEnd:
    """The commands for one end of a stitched cable (``side`` "a" or "b"), run on that end's host."""
    host_name = link.a_host if side == "a" else link.b_host
    peer_name = link.b_host if side == "a" else link.a_host
    node, ifname = (link.a_node, link.a_ifname) if side == "a" else (link.b_node, link.b_ifname)
    host, peer = plan.hosts[host_name], plan.hosts[peer_name]
    temporary = f"st{link.vni}"
    switch_ns = topology.netns(node)
    return VxlanEnd(
        underlay_netns=host.netns,
        underlay_lines=(f"link add {temporary} mtu {link.mtu} type vxlan id {link.vni} local {host.address} "
                        f"remote {peer.address} dstport {plan.port} dev {host.ifname}",
                        f"link set {temporary} netns {switch_ns}"),
        switch_netns=switch_ns,
        switch_lines=(f"link set {temporary} name {ifname}",),
    )


def create_stitched_links(topology: TwinTopology, plan: StitchPlan, *, only_host: str | None = None) -> None:
    """Create both ends of every stitched cable (``only_host``: only the ends on that host, as each machine of a
    real multi-host twin does for itself): one ``ip -batch`` per underlay namespace, then one per switch."""
    ends = [vxlan_end(topology, plan, link, side) for link in plan.links for side in ("a", "b")
            if only_host is None or (link.a_host if side == "a" else link.b_host) == only_host]
    by_underlay: dict[str | None, list[str]] = {}
    by_switch: dict[str, list[str]] = {}
    for end in ends:
        by_underlay.setdefault(end.underlay_netns, []).extend(end.underlay_lines)
        by_switch.setdefault(end.switch_netns, []).extend(end.switch_lines)
    parallel(lambda item: ip_batch(item[1], netns=item[0]), list(by_underlay.items()))
    parallel(lambda item: ip_batch(item[1], netns=item[0]), list(by_switch.items()))


def stitched_far_ends(topology: TwinTopology, ends: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """For ends (node, ifname) of stitched cables, the other ends. A veth pair whose one end goes down takes the
    carrier from the other; a VXLAN link does not, so a cut of a stitched cable downs both ends to match."""
    if not topology.extra.get("stitch"):
        return []
    peers = {}
    for link in topology.extra["stitch"]["links"]:
        peers[(link["a_node"], link["a_ifname"])] = (link["b_node"], link["b_ifname"])
        peers[(link["b_node"], link["b_ifname"])] = (link["a_node"], link["a_ifname"])
    wanted = set(ends)
    return [peers[end] for end in ends if end in peers and peers[end] not in wanted]


# --------------------------------------------------------------------------------------------- emulated hosts


def lab_netns(prefix: str) -> str:
    return f"{prefix}_lab"


def host_netns(prefix: str, host: str) -> str:
    return f"{prefix}_h_{host}"


def emulate_hosts(prefix: str, hosts: list[str], *, mtu: int = EMULATED_UNDERLAY_MTU) -> dict[str, UnderlayHost]:
    """K emulated twin hosts on this machine: a namespace each, a veth to one lab bridge, an underlay address.
    Remove with ``remove_emulated_hosts``."""
    if len(hosts) > EMULATED_UNDERLAY.num_addresses - 2:
        raise InputError([FieldError("hosts", len(hosts), f"at most {EMULATED_UNDERLAY.num_addresses - 2} emulated hosts")])
    lab = lab_netns(prefix)
    addresses = list(EMULATED_UNDERLAY.hosts())
    underlay = {host: UnderlayHost(name=host, address=str(addresses[index]), mtu=mtu, netns=host_netns(prefix, host))
                for index, host in enumerate(hosts)}
    # ``ip -batch`` takes no per-line ``-n``: namespace-wide commands first, then one batch per namespace.
    try:
        ip_batch([f"netns add {lab}", *(f"netns add {host.netns}" for host in underlay.values()),
                  *(f"link add ul{index} netns {lab} mtu {mtu} type veth peer name {UNDERLAY_IFNAME} "
                    f"netns {host.netns} mtu {mtu}" for index, host in enumerate(underlay.values()))])
        ip_batch([f"link add br0 mtu {mtu} type bridge", "link set br0 up",
                  *(f"link set ul{index} master br0 up" for index in range(len(hosts)))], netns=lab)
        for host in underlay.values():
            ip_batch([f"addr add {host.address}/{EMULATED_UNDERLAY.prefixlen} dev {UNDERLAY_IFNAME}",
                      f"link set {UNDERLAY_IFNAME} up", "link set lo up"], netns=host.netns)
    except BaseException:
        remove_emulated_hosts(prefix, underlay)
        raise
    return underlay


def remove_emulated_hosts(prefix: str, hosts: Mapping[str, UnderlayHost]) -> None:
    existing = set(run(["ip", "netns", "list"], check=False).stdout.split())
    for netns in [*(host.netns for host in hosts.values() if host.netns), lab_netns(prefix)]:
        if netns in existing:
            run(["ip", "netns", "del", netns], check=False)


# --------------------------------------------------------------------------------------------- failure reporting


def _underlay_up(host: UnderlayHost) -> bool:
    result = run(["ip", *(["-n", host.netns] if host.netns else []), "-o", "link", "show", host.ifname], check=False)
    return result.returncode == 0 and "state DOWN" not in result.stdout and ",UP" in result.stdout


def _reaches(host: UnderlayHost, peer: UnderlayHost) -> bool:
    command = ["ping", "-c", "1", "-W", "1", "-I", host.ifname, peer.address]
    result = ns_exec(host.netns, command, check=False) if host.netns else run(command, check=False)
    return result.returncode == 0


def _main_component(hosts: Mapping[str, UnderlayHost], up: Mapping[str, bool],
                    reach: Mapping[tuple[str, str], bool]) -> set[str]:
    """The hosts that still form the twin: of the hosts whose underlay is up, the largest group that reach each
    other (ties: the group holding the first host, the coordinator's)."""
    remaining = [name for name in hosts if up[name]]
    groups: list[set[str]] = []
    while remaining:
        group, frontier = {remaining[0]}, [remaining[0]]
        while frontier:
            current = frontier.pop()
            for other in remaining:
                if other not in group and (reach.get((current, other)) or reach.get((other, current))):
                    group.add(other)
                    frontier.append(other)
        groups.append(group)
        remaining = [name for name in remaining if name not in group]
    first = next(iter(hosts))
    return max(groups, key=lambda group: (len(group), first in group), default=set())


def partition_report(plan: StitchPlan) -> dict:
    """Which twin hosts are lost and which switches with them. A host whose underlay interface is gone or down is
    lost; of the rest, hosts outside the largest group that reach each other are lost (``_main_component``). Each
    lost switch is named. A twin with a lost host is partitioned: never healthy, whatever the switches on the
    other hosts say."""
    hosts = plan.hosts
    up = dict(zip(hosts, parallel(lambda name: _underlay_up(hosts[name]), list(hosts)), strict=True))
    pairs = [(a, b) for a in hosts for b in hosts if a != b and up[a] and up[b]]
    reach = dict(zip(pairs, parallel(lambda pair: _reaches(hosts[pair[0]], hosts[pair[1]]), pairs), strict=True))
    lost = sorted(set(hosts) - _main_component(hosts, up, reach))
    lost_switches = sorted(node for node, host in plan.assignment.items() if host in lost)
    cut = [link for link in plan.links if link.a_host in lost or link.b_host in lost]
    return {"partitioned": bool(lost), "lost_hosts": lost, "lost_switches": lost_switches,
            "cut_cables": [f"{link.a_node}:{link.a_ifname}<->{link.b_node}:{link.b_ifname}" for link in cut],
            "underlay_up": up, "reachable": {f"{a}->{b}": ok for (a, b), ok in reach.items()},
            "message": (f"partition: host(s) {', '.join(lost)} lost with switches {', '.join(lost_switches)}"
                        if lost else "every twin host reaches the others")}
