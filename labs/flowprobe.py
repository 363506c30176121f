"""Multi-flow DF probes between two hosts of the twin: the largest IPv4 packet that *every* ECMP path carries,
both ways.

Why not ping: the VXLAN device derives the outer UDP source port (and with it the spine ECMP picks) from the
inner packet's flow hash, and Linux hashes an ICMP echo by its addresses only - the ICMP id is not part of it.
Every ping between two hosts therefore takes the same spine, whatever its id (measured on the twin: 6 pings
with 6 ids, all on one uplink), and a too-small hop on the other spine stays invisible. UDP flows with
different source ports hash apart, so this probe sends many of them, each echoed back at the same size by the
destination (the reply takes its own hashed path home). A size *passes* when every flow got its echo.

How many flows: a flow lands on one of ``paths`` next hops per direction; with F flows a given path escapes
all of them with probability (1 - 1/paths)^F. ``flows_for_paths`` picks the smallest F with
2 x paths x (1 - 1/paths)^F <= ``MISS_PROBABILITY`` (both directions, every path; union bound), so the report can
state the chance that a bad hop went unseen.

One process, no threads and nothing left running: the echo socket is opened in the destination host's
namespace and the flow sockets in the source host's, by switching this process's network namespace with
setns(2) (a socket stays in the namespace it was created in). Packets go out with DF set and without the
path-MTU cache (IP_PMTUDISC_PROBE), so earlier probes cannot make later ones fail locally; a size above the
sending host's own interface MTU fails locally (EMSGSIZE), as it does on a real server.

Run by the twin as ``python flowprobe.py`` with a JSON request on stdin (``probe`` builds it); standard library
only, so it needs nothing from the project at run time. ``largest_passing`` (the search) is pure and shared
with the per-link probes (``labs.fidelity`` through ``labs.measure.probe_link_mtu``).
"""

from __future__ import annotations

import ctypes
import errno
import json
import math
import os
import resource
import select
import socket
import struct
import subprocess
import sys
import time

IPV4_UDP_HEADERS = 28  # IPv4 20 + UDP 8: datagram payload = packet size - 28
MIN_PROBE_PACKET = 576  # smallest IPv4 packet every host must accept (RFC 791): the search floor
MAX_PROBE_PACKET = 16384
MISS_PROBABILITY = 1e-6
MAX_FLOWS = 1024
# A flow fails only when every attempt loses its echo (a drop on a busy host is not an MTU fault). Round trips
# on veth are well under a millisecond; the waits grow in case the 2-core host is busy.
ATTEMPT_TIMEOUTS_S = (0.05, 0.15, 0.4)
WARM_UP_PACKET = 128
WARM_UP_TIMEOUT_S = 2.0  # the first packet resolves ARP on both hosts
CLONE_NEWNET = 0x40000000
IP_MTU_DISCOVER = getattr(socket, "IP_MTU_DISCOVER", 10)
IP_PMTUDISC_PROBE = getattr(socket, "IP_PMTUDISC_PROBE", 3)
HEADER = struct.Struct("!II")  # flow index, token of the attempt


def flows_for_paths(paths: int, miss: float = MISS_PROBABILITY) -> int:
    """Smallest flow count such that any of ``paths`` next hops, in either direction, is missed by every flow
    with probability at most ``miss`` (union bound over 2 x paths events)."""
    if paths <= 1:
        return 4  # one path: a few flows only guard against a lost packet
    flows = math.ceil(math.log(miss / (2 * paths)) / math.log(1 - 1 / paths))
    return max(4, min(flows, MAX_FLOWS))


def miss_probability(paths: int, flows: int) -> float:
    """Upper bound on the chance that some path, in some direction, carried none of ``flows`` flows."""
    if paths <= 1:
        return 0.0
    return min(1.0, 2 * paths * (1 - 1 / paths) ** flows)


def largest_passing(passes, predicted: int, floor: int = MIN_PROBE_PACKET, ceiling: int = MAX_PROBE_PACKET) -> int:
    """The largest packet size for which ``passes(size)`` is true: two probes when it is exactly at
    ``predicted``, a binary search between ``floor`` and ``ceiling`` otherwise. 0 when even ``floor`` fails
    (no packet gets through at all), which is also how a prediction says "unreachable"."""
    if predicted >= floor:
        if passes(predicted) and not passes(predicted + 1):
            return predicted
    if not passes(floor):
        return 0
    low, high = floor, ceiling + 1  # passes(low) is true, passes(high) assumed false
    while high - low > 1:
        middle = (low + high) // 2
        if passes(middle):
            low = middle
        else:
            high = middle
    return low


def probe(source_netns: str, destination_netns: str, destination: str, *, flows: int, flush_netns: list[str],
          sizes: list[int] | None = None, search: dict | None = None, timeout_s: float = 300.0) -> dict:
    """Run one probe process (root: it enters namespaces). ``flush_netns``: the namespaces whose route caches
    are invalidated before every flow (the two leaves). Either ``sizes`` (per size: flows passed before the
    first that failed; ``flows`` when the size passes) or
    ``search`` = {"predicted": n, "floor": n, "ceiling": n} (the largest size passing on every flow).
    Returns the process's JSON answer; raises RuntimeError with what it printed when it fails."""
    request = {"source_netns": source_netns, "destination_netns": destination_netns, "destination": destination,
               "flows": flows, "flush_netns": flush_netns, "sizes": sizes or [], "search": search}
    result = subprocess.run([sys.executable, os.path.abspath(__file__)], input=json.dumps(request),
                            capture_output=True, text=True, timeout=timeout_s)
    if result.returncode != 0:
        raise RuntimeError(f"flow probe {source_netns} -> {destination} failed (rc={result.returncode}): "
                           f"{(result.stderr or result.stdout).strip()[-500:]}")
    return json.loads(result.stdout)


# ---- the probe process -------------------------------------------------------------------------------------

def _enter(netns: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/run/netns/{netns}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns({netns}): {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def _udp_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE)  # DF set, no local PMTU cache
    sock.setblocking(False)
    return sock


class Prober:
    """The echo socket in the destination namespace, ``flows`` connected sockets in the source namespace, and
    the route-cache flush files of the two leaves (see the module docstring)."""

    def __init__(self, source_netns: str, destination_netns: str, destination: str, flows: int,
                 flush_netns: list[str]):
        self.flush_files = []
        for netns in flush_netns:
            _enter(netns)
            # /proc/sys/net resolves to the opener's namespace: the file keeps flushing that leaf's cache.
            self.flush_files.append(os.open("/proc/sys/net/ipv4/route/flush", os.O_WRONLY))
        _enter(destination_netns)
        self.echo = _udp_socket()
        self.echo.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        try:
            self.echo.bind((destination, 0))
        except OSError as exc:
            if exc.errno != errno.EADDRNOTAVAIL:
                raise
            self.echo.bind(("0.0.0.0", 0))  # the address is not on that host: nothing will answer (unreachable)
        port = self.echo.getsockname()[1]
        _enter(source_netns)
        self.flows = []
        for _ in range(flows):
            sock = _udp_socket()
            sock.connect((destination, port))  # its own ephemeral source port: its own flow hash
            self.flows.append(sock)
        self.buffer = bytearray(MAX_PROBE_PACKET + 64)
        self.token = 0
        self.local_errors: set[str] = set()

    def _serve_echo(self) -> None:
        while True:
            try:
                length, address = self.echo.recvfrom_into(self.buffer)
            except BlockingIOError:
                return
            except OSError as exc:  # an ICMP error about an earlier echo: nothing to answer
                self.local_errors.add(f"echo: ICMP error: {exc.strerror}")
                continue
            try:
                self.echo.sendto(memoryview(self.buffer)[:length], address)
            except OSError as exc:  # the reply does not fit the destination's own interface: the flow fails
                self.local_errors.add(f"echo: {exc.strerror}")

    def _flush_route_caches(self) -> None:
        for fd in self.flush_files:
            os.write(fd, b"1")

    def try_flow(self, index: int, size: int, timeout_s: float) -> bool | None:
        """One packet of ``size`` bytes on flow ``index`` and its echo: True when it came back, False when it
        was lost, None when the source host could not even send it (larger than its own interface)."""
        self.token += 1
        payload = bytearray(max(size - IPV4_UDP_HEADERS, HEADER.size))
        HEADER.pack_into(payload, 0, index, self.token)
        sock = self.flows[index]
        self._flush_route_caches()
        try:
            sock.send(payload)
        except OSError as exc:  # EMSGSIZE: larger than the source's interface MTU, as ping's "message too long"
            self.local_errors.add(exc.strerror or errno.errorcode.get(exc.errno or -1, str(exc.errno)))
            return None
        poller = select.poll()
        poller.register(self.echo, select.POLLIN)
        poller.register(sock, select.POLLIN)
        deadline = time.monotonic() + timeout_s
        while (remaining := deadline - time.monotonic()) > 0:
            for fd, _event in poller.poll(remaining * 1000):
                if fd == self.echo.fileno():
                    self._serve_echo()
                    continue
                while True:
                    try:
                        data = sock.recv(len(self.buffer))
                    except BlockingIOError:
                        break
                    except OSError as exc:
                        # An ICMP error for this flow: "fragmentation needed" from a VXLAN device or router whose
                        # next hop is too small (EMSGSIZE), unreachable, ... The packet is lost; but it may be
                        # about an earlier attempt, so this one still waits for its echo.
                        self.local_errors.add(f"ICMP error: {exc.strerror}")
                        continue
                    if len(data) >= HEADER.size and HEADER.unpack_from(data) == (index, self.token):
                        return True
        return False

    def flows_passing(self, size: int) -> int:
        """How many flows, in order, carried ``size`` both ways before the first that did not (all of them when
        the size passes). A flow fails only when every attempt lost its echo; one failed flow decides the
        size, so the probe stops there."""
        for index in range(len(self.flows)):
            for timeout_s in ATTEMPT_TIMEOUTS_S:
                outcome = self.try_flow(index, size, timeout_s)
                if outcome is not False:
                    break
            if not outcome:
                return index
        return len(self.flows)


def _main() -> int:
    request = json.load(sys.stdin)
    started = time.monotonic()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # one socket per flow
    prober = Prober(request["source_netns"], request["destination_netns"], request["destination"],
                    int(request["flows"]), request.get("flush_netns") or [])
    flows = len(prober.flows)
    # A small first packet resolves ARP on both hosts and shows whether anything gets through at all.
    warm_up = prober.try_flow(0, WARM_UP_PACKET, WARM_UP_TIMEOUT_S) or prober.try_flow(0, WARM_UP_PACKET,
                                                                                       WARM_UP_TIMEOUT_S)
    answer: dict = {"flows": flows, "reachable": bool(warm_up)}
    if request.get("sizes"):
        answer["sizes"] = {str(size): prober.flows_passing(int(size)) if warm_up else 0 for size in request["sizes"]}
    search = request.get("search")
    if search:
        tried_sizes: dict[str, int] = {}

        def passes(size: int) -> bool:
            tried_sizes[str(size)] = prober.flows_passing(size)
            return tried_sizes[str(size)] == flows

        answer["largest"] = 0 if not warm_up else largest_passing(
            passes, int(search["predicted"]), int(search.get("floor", MIN_PROBE_PACKET)),
            int(search.get("ceiling", MAX_PROBE_PACKET)))
        answer["tried"] = tried_sizes
    answer["local_errors"] = sorted(prober.local_errors)
    answer["seconds"] = round(time.monotonic() - started, 3)
    json.dump(answer, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(_main())
