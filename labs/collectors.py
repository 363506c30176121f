"""Read a running twin's state as plain data: FRR (vtysh JSON), kernel routes/links/FDB (iproute2 JSON), ping.

Each source has a pure ``parse_*`` function (unit-tested on captured samples in tests/labs/data/) and a thin
``collect_*`` wrapper that runs the command in the node's namespace or FRR pathspace from the root namespace.
"""

from __future__ import annotations

import ipaddress
import json
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from compiler.errors import TwinError

from .frr_binaries import active_frr
from .shell import ns_exec, run

FLOOD_MAC = "00:00:00:00:00:00"  # EVPN type-3 (inclusive multicast) routes become all-zero-MAC FDB entries


# --------------------------------------------------------------------------------------------- parsers


@dataclass(frozen=True, slots=True)
class BgpSession:
    afi: str  # ipv4Unicast | l2VpnEvpn | ...
    peer: str  # address, or interface name for unnumbered peers
    state: str
    peer_hostname: str = ""
    prefixes_received: int = 0
    uptime_ms: int = 0

    @property
    def established(self) -> bool:
        return self.state == "Established"


def parse_bgp_summary(data: dict) -> list[BgpSession]:
    """``show bgp summary json`` (all address families) -> one row per (address family, peer)."""
    sessions = []
    for afi, summary in sorted(data.items()):
        if not isinstance(summary, dict):
            continue
        for peer, info in sorted(summary.get("peers", {}).items()):
            sessions.append(BgpSession(afi=afi, peer=peer, state=info.get("state", "unknown"),
                                       peer_hostname=info.get("hostname", ""),
                                       prefixes_received=int(info.get("pfxRcd", 0) or 0),
                                       uptime_ms=int(info.get("peerUptimeMsec", 0) or 0)))
    return sessions


@dataclass(frozen=True, slots=True)
class Nexthop:
    gateway: str | None
    dev: str | None


def _prefix(dst: str) -> str:
    if dst == "default":
        return "0.0.0.0/0"
    return str(ipaddress.ip_network(dst, strict=False))


def parse_kernel_routes(data: list) -> dict[str, list[Nexthop]]:
    """``ip -j route`` -> prefix -> kernel next hops (a multipath route lists them under ``nexthops``)."""
    routes: dict[str, list[Nexthop]] = {}
    for route in data:
        if route.get("type") not in (None, "unicast"):
            continue
        hops = route.get("nexthops") or [route]
        routes[_prefix(route["dst"])] = [Nexthop(hop.get("gateway"), hop.get("dev")) for hop in hops]
    return routes


def ecmp_width(routes: dict[str, list[Nexthop]], prefix: str) -> int:
    """Number of kernel next hops for ``prefix`` (0: no route)."""
    return len(routes.get(_prefix(prefix), []))


def parse_ip_route(data: dict) -> dict[str, int]:
    """``show ip route json`` (zebra RIB) -> prefix -> number of FIB-installed next hops of the selected route."""
    out = {}
    for prefix, entries in data.items():
        for entry in entries:
            if entry.get("selected"):
                out[prefix] = sum(1 for hop in entry.get("nexthops", []) if hop.get("fib"))
    return out


@dataclass(frozen=True, slots=True)
class LinkState:
    mtu: int
    up: bool
    kind: str  # veth | bridge | vxlan | loopback ...
    master: str | None = None


def parse_links(data: list) -> dict[str, LinkState]:
    """``ip -j -d link`` (or plain ``ip -j link``) -> ifname -> MTU / admin+carrier state / kind / bridge master."""
    out = {}
    for link in data:
        kind = (link.get("linkinfo") or {}).get("info_kind") or link.get("link_type", "")
        out[link["ifname"]] = LinkState(mtu=int(link["mtu"]), up="UP" in link.get("flags", []) and
                                        "LOWER_UP" in link.get("flags", []), kind=kind, master=link.get("master"))
    return out


@dataclass(frozen=True, slots=True)
class EvpnVni:
    vni: int
    type: str  # L2 | L3
    vxlan_if: str
    remote_vteps: tuple[str, ...] = ()
    macs: int = 0


def parse_evpn_vni(data: dict) -> dict[int, EvpnVni]:
    """``show evpn vni json`` -> VNI -> type, VXLAN device and the remote VTEPs zebra knows."""
    out = {}
    for key, info in data.items():
        if not isinstance(info, dict) or "vni" not in info:
            continue
        vni = int(info.get("vni", key))
        out[vni] = EvpnVni(vni=vni, type=info.get("type", ""), vxlan_if=info.get("vxlanIf", ""),
                           remote_vteps=tuple(sorted(info.get("remoteVteps", []) or [])),
                           macs=int(info.get("numMacs", 0) or 0))
    return out


@dataclass(frozen=True, slots=True)
class L3Vni:
    vni: int
    vrf: str
    state: str  # "Up" once zebra has the VXLAN device, its bridge (SVI) and the VRF
    router_mac: str
    svi: str
    l2_vnis: tuple[int, ...] = ()


def parse_l3vnis(data: dict | list) -> dict[int, L3Vni]:
    """``show evpn vni detail json`` (a list in FRR 8.4, a dict keyed by VNI in some releases) -> the L3 VNIs.
    The VRF is ``vrf`` in FRR 8.4 and ``tenantVrf`` in FRR 10.3 (measured on both)."""
    items = data if isinstance(data, list) else list(data.values())
    out = {}
    for info in items:
        if not isinstance(info, dict) or info.get("type") != "L3" or "vni" not in info:
            continue
        vni = int(info["vni"])
        out[vni] = L3Vni(vni=vni, vrf=info.get("vrf") or info.get("tenantVrf", ""), state=info.get("state", ""),
                         router_mac=info.get("routerMac", ""), svi=info.get("sviIntf", ""),
                         l2_vnis=tuple(sorted(int(v) for v in info.get("l2Vnis", []) or [])))
    return out


def parse_evpn_route_types(data: dict) -> dict[int, int]:
    """``show bgp l2vpn evpn route json`` -> EVPN route type -> number of distinct routes (best paths)."""
    counts: dict[int, int] = {}
    for rd_block in data.values():
        if not isinstance(rd_block, dict):
            continue
        for route in rd_block.values():
            if not isinstance(route, dict) or "paths" not in route:
                continue
            paths = [path for group in route["paths"] for path in (group if isinstance(group, list) else [group])]
            best = next((path for path in paths if path.get("bestpath")), paths[0] if paths else None)
            if best is not None and "routeType" in best:
                counts[best["routeType"]] = counts.get(best["routeType"], 0) + 1
    return counts


@dataclass(frozen=True, slots=True)
class BfdPeer:
    peer: str
    interface: str
    status: str  # up | down | init | adminDown

    @property
    def up(self) -> bool:
        return self.status == "up"


def parse_bfd_peers(data: list) -> list[BfdPeer]:
    """``show bfd peers json`` -> one row per BFD session."""
    return [BfdPeer(peer=item.get("peer", ""), interface=item.get("interface", ""), status=item.get("status", ""))
            for item in data]


def parse_flood_lists(data: list) -> dict[str, set[str]]:
    """``bridge -j fdb show`` -> VXLAN device -> remote VTEPs in its head-end-replication flood list."""
    out: dict[str, set[str]] = {}
    for entry in data:
        if entry.get("mac") == FLOOD_MAC and entry.get("dst"):
            out.setdefault(entry["ifname"], set()).add(entry["dst"])
    return out


@dataclass(slots=True)
class PingResult:
    transmitted: int = 0
    received: int = 0
    errors: int = 0
    local_error: str = ""  # e.g. "message too long, mtu=9000" when DF forbids sending
    reply_times: list[float] = field(default_factory=list)  # -D epoch timestamps of the replies
    # Epoch seconds of the first and (at the latest) last send, when known (background flows): an outage that
    # lasts until the flow ends has no reply after it, so it only shows against these bounds.
    first_send: float | None = None
    last_send: float | None = None

    @property
    def ok(self) -> bool:
        return self.transmitted > 0 and self.received == self.transmitted

    @property
    def any_reply(self) -> bool:
        return self.received > 0

    @property
    def largest_gap_s(self) -> float:
        """Largest gap between consecutive replies: the data-plane outage (ping slows down while replies are
        missing, so the lost-packet count understates it; docs/twin-notes.md measurement traps)."""
        times = list(self.reply_times)
        if self.first_send is not None and times:
            times.insert(0, self.first_send)
        if self.last_send is not None and times and self.last_send > times[-1]:
            times.append(self.last_send)
        return max((b - a for a, b in zip(times, times[1:], strict=False)), default=0.0)


_STATS = re.compile(r"(?<!\d)(\d+) packets transmitted, (\d+) received(?:, \+(\d+) errors)?")
_REPLY = re.compile(r"^\[(\d+\.\d+)\] \d+ bytes from")
_LOCAL_ERROR = re.compile(r"(message too long, mtu=\d+|Frag needed and DF set \(mtu = \d+\)|Network is unreachable"
                          r"|Destination Host Unreachable)")


def parse_ping(text: str) -> PingResult:
    """iputils ``ping`` output (run with -D for timestamps) -> counts, first local error, reply times."""
    result = PingResult()
    for line in text.splitlines():
        reply = _REPLY.match(line)
        if reply:
            result.reply_times.append(float(reply.group(1)))
            continue
        stats = _STATS.search(line)
        if stats:
            result.transmitted, result.received = int(stats.group(1)), int(stats.group(2))
            result.errors = int(stats.group(3) or 0)
            continue
        error = _LOCAL_ERROR.search(line)
        if error and not result.local_error:
            result.local_error = error.group(1)
    return result


# --------------------------------------------------------------------------------------------- collectors


def vtysh_json(pathspace: str, command: str, timeout: float = 20.0) -> dict | list:
    result = run([active_frr().vtysh, "-N", pathspace, "-c", command], check=False, timeout=timeout)
    if result.returncode != 0:
        raise TwinError(f"vtysh -N {pathspace} -c {command!r}: {(result.stderr or result.stdout).strip()}")
    try:
        return json.loads(result.stdout or "{}")
    except json.JSONDecodeError as exc:
        raise TwinError(f"vtysh -N {pathspace} -c {command!r} did not return JSON: {result.stdout[:200]!r}") from exc


def collect_bgp_summary(pathspace: str) -> list[BgpSession]:
    return parse_bgp_summary(cast(dict, vtysh_json(pathspace, "show bgp summary json")))  # FRR prints an object


def collect_evpn_route_types(pathspace: str) -> dict[int, int]:
    return parse_evpn_route_types(cast(dict, vtysh_json(pathspace, "show bgp l2vpn evpn route json")))  # an object


def collect_l3vnis(pathspace: str) -> dict[int, L3Vni]:
    return parse_l3vnis(vtysh_json(pathspace, "show evpn vni detail json"))


def collect_bfd_peers(pathspace: str) -> list[BfdPeer]:
    return parse_bfd_peers(cast(list, vtysh_json(pathspace, "show bfd peers json")))  # FRR prints an array


def collect_kernel_routes(netns: str, prefix: str | None = None) -> dict[str, list[Nexthop]]:
    args = ["ip", "-n", netns, "-j", "route", "show"] + ([prefix] if prefix else [])
    return parse_kernel_routes(json.loads(run(args).stdout or "[]"))


def collect_links(netns: str) -> dict[str, LinkState]:
    return parse_links(json.loads(run(["ip", "-n", netns, "-j", "-d", "link", "show"]).stdout or "[]"))


def collect_flood_lists(namespaces: str | Sequence[str]) -> dict[str, set[str]]:
    """Flood lists of every VXLAN device in a switch: its own namespace plus, with netns VRFs, the VRF namespaces
    its tenant VXLAN devices live in (``TwinState.switch_namespaces``)."""
    out: dict[str, set[str]] = {}
    for netns in [namespaces] if isinstance(namespaces, str) else namespaces:
        fdb = json.loads(run(["bridge", "-n", netns, "-j", "fdb", "show"]).stdout or "[]")
        for device, vteps in parse_flood_lists(fdb).items():
            out.setdefault(device, set()).update(vteps)
    return out


@dataclass(frozen=True, slots=True)
class LinkCounters:
    """An interface's cumulative traffic counters (the kernel's 64-bit ``rtnl_link_stats64``)."""

    rx_bytes: int = 0
    rx_packets: int = 0
    tx_bytes: int = 0
    tx_packets: int = 0


def parse_link_counters(data: list) -> dict[str, LinkCounters]:
    """``ip -s -j link show`` -> ifname -> bytes and packets received and sent (``stats64``)."""
    out = {}
    for link in data:
        stats = link.get("stats64") or {}
        rx, tx = stats.get("rx") or {}, stats.get("tx") or {}
        out[link.get("ifname")] = LinkCounters(rx_bytes=int(rx.get("bytes", 0)), rx_packets=int(rx.get("packets", 0)),
                                               tx_bytes=int(tx.get("bytes", 0)), tx_packets=int(tx.get("packets", 0)))
    return out


def collect_link_counters(netns: str) -> dict[str, LinkCounters]:
    """Every interface's traffic counters in one ``ip -s link`` of the namespace."""
    return parse_link_counters(json.loads(run(["ip", "-n", netns, "-s", "-j", "link", "show"], check=False).stdout
                                          or "[]"))


def collect_tx_packets(netns: str, ifnames: list[str]) -> dict[str, int]:
    """Transmitted packets per interface (an absent interface counts 0)."""
    counters = collect_link_counters(netns)
    return {ifname: counters[ifname].tx_packets if ifname in counters else 0 for ifname in ifnames}


def ping_args(destination: str, *, count: int = 3, interval: float = 0.2, size: int | None = None,
              dont_fragment: bool = False, wait_s: float = 1.0, interface: str | None = None) -> list[str]:
    args = ["ping", "-n", "-D", "-c", str(count), "-i", str(interval), "-W", str(wait_s)]
    if size is not None:
        args += ["-s", str(size)]
    if dont_fragment:
        args += ["-M", "do"]  # set DF and never fragment locally: the probe must fit every hop
    if interface:
        args += ["-I", interface]
    if ipaddress.ip_address(destination.split("%")[0]).version == 6:
        args.insert(1, "-6")
    return args + [destination]


def ping(netns: str, destination: str, **kwargs) -> PingResult:
    args = ping_args(destination, **kwargs)
    # ping bounds itself (-c, -W); this only guards a hung process. 10 s of slack was not enough at load average
    # 140 (a 256-switch twin beside other work): one ping process took 11.2 s and stopped the whole check.
    timeout = kwargs.get("count", 3) * (kwargs.get("interval", 0.2) + kwargs.get("wait_s", 1.0)) + 60
    result = ns_exec(netns, args, check=False, timeout=timeout)
    return parse_ping(result.stdout + "\n" + result.stderr)


def start_ping(netns: str, destination: str, *, deadline_s: float | None = None, **kwargs) -> subprocess.Popen:
    """A background ping (continuous flow during failure injection); finish with ``finish_ping``.
    ``deadline_s`` bounds the flow in time: iputils ping throttles its sending while replies are missing (and
    did not honour ``-w`` with ``-c`` here), so ``finish_ping`` interrupts it at the deadline.

    Its output goes to an unlinked temporary file, never a pipe: nobody reads while the flow runs, and a pipe
    (64 KiB, ~1,100 reply lines at 500 pps) fills in about 2 s; ping then blocks in write() and stops sending,
    which read as a 3-4 s "outage" with no packet lost (issue 19: the restore flow of a 4x64 failover)."""
    output = tempfile.TemporaryFile(mode="w+", prefix="ft-ping-")
    try:
        process = subprocess.Popen(["ip", "netns", "exec", netns, *ping_args(destination, **kwargs)],
                                   stdout=output, stderr=subprocess.STDOUT, text=True)
    except BaseException:
        output.close()
        raise
    process.ft_output = output  # type: ignore[attr-defined]
    process.ft_started_at = time.time()  # type: ignore[attr-defined]
    duration = kwargs.get("count", 3) * kwargs.get("interval", 0.2)
    process.ft_duration_s = min(duration, deadline_s) if deadline_s else duration  # type: ignore[attr-defined]
    process.ft_deadline_s = deadline_s  # type: ignore[attr-defined]
    return process


def finish_ping(process: subprocess.Popen, timeout: float = 60.0) -> PingResult:
    deadline_s = getattr(process, "ft_deadline_s", None)
    if deadline_s:
        remaining = process.ft_started_at + deadline_s - time.time()  # type: ignore[attr-defined]
        try:
            process.wait(timeout=max(remaining, 0.01))
        except subprocess.TimeoutExpired:
            # SIGINT, not SIGKILL: ping prints its statistics on interrupt. ``ip netns exec`` execs ping, so
            # the PID is ping itself.
            process.send_signal(signal.SIGINT)
    process.wait(timeout=timeout)
    with process.ft_output as output:  # type: ignore[attr-defined]
        output.seek(0)
        result = parse_ping(output.read())
    started = getattr(process, "ft_started_at", None)
    if started is not None:
        # Sends are paced at -i at the fastest, so the last one is no earlier than start + count x interval.
        result.first_send = started
        result.last_send = started + process.ft_duration_s  # type: ignore[attr-defined]
    return result


def rss_kib(pid: int) -> int:
    """Resident memory of a process in KiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return 0
