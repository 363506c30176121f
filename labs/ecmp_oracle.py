"""The Linux kernel's ECMP hash as the oracle for the collective simulator's random-hash model (issue #32, ladder
rung iii).

A small twin of network namespaces -- ``leaves`` x ``spines``, one sending host behind each leaf -- whose leaves
hold one multipath route over every spine (what FRR installs for a BGP multipath prefix; the routes are static
here because the kernel's FIB multipath hash, not the routing protocol, is what is measured). Each leaf sets
``net.ipv4.fib_multipath_hash_policy=1`` (the L4 5-tuple; Documentation/networking/ip-sysctl.rst) and its own
``net.ipv4.fib_multipath_hash_seed``. Every host sends one UDP packet per flow, RoCE-like: destination port 4791
to one address behind each other leaf (a GPU talks to a few peers), source ports 49152..65535 (the RoCEv2 range,
IBTA annex A17). The flows a leaf put on each uplink are read from its interface counters (``ip -s -j link``,
tx packets), so nothing but the kernel decides where a flow goes.

Noise is designed out, then checked: IPv6 is off (no router/neighbour solicitations), every neighbour entry is
permanent (no ARP), destinations are blackholes on their leaf (no reply, no ICMP); :func:`measure` fails unless
each leaf's uplinks carried exactly the flows its host sent.

:func:`chi_square_uniform` tests the counts against the random-hash model (each flow independently uniform over
the n members: the simulator's ``random`` hash); :func:`ks_two_sample` compares them with the simulator's own
keyed random oracle hashing the same 5-tuples. p-values from the regularized upper incomplete
gamma function (scipy is not in the venv). Needs root; only namespaces named ``<prefix>-...`` are created and
deleted. Never imports Django.
"""

from __future__ import annotations

import ipaddress
import json
import math
import subprocess
import sys
from dataclasses import dataclass

import numpy as np

from validators.collective.hashing import UDP, member_index, pack_fields, random_oracle
from validators.collective.simulate import expected_used

from .shell import ip_batch, ns_exec, run

ROCE_DPORT = 4791  # IBTA RoCEv2 annex A17: the UDP destination port
SPORT_MIN, SPORT_MAX = 49152, 65535
SEED_SYSCTL = "net.ipv4.fib_multipath_hash_seed"  # Linux 6.11+ (ip-sysctl.rst); 0 = a random key per namespace

# Sends one datagram per (destination, source port), one socket each (a source port is bound per flow).
SENDER = """
import json, socket, sys
request = json.load(sys.stdin)
dport = request["dport"]
for dst, sport in request["flows"]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", sport))
    s.sendto(b"x" * 64, (dst, dport))
    s.close()
"""


@dataclass(frozen=True)
class OracleTwin:
    prefix: str
    leaves: int = 4
    spines: int = 4
    super_spines: int = 0  # > 0: a second hashing tier; hosts then send to addresses beyond it (10.99.x.1)

    def ns(self, kind: str, index: int) -> str:
        return f"{self.prefix}-{kind}{index}"

    @property
    def namespaces(self) -> list[str]:
        return ([self.ns("h", i) for i in range(self.leaves)] + [self.ns("l", i) for i in range(self.leaves)]
                + [self.ns("s", k) for k in range(self.spines)] + [self.ns("t", m) for m in range(self.super_spines)])

    def destination(self, leaf: int) -> str:
        """The one GPU address behind ``leaf`` every other host talks to (10.<leaf>.0.1, blackholed there); with
        super-spines, one behind them (10.99.<leaf>.1, blackholed on every super-spine: the other pod)."""
        return f"10.99.{leaf}.1" if self.super_spines else f"10.{leaf}.0.1"

    def uplink(self, leaf: int, spine: int) -> str:
        return f"up{spine}"


def seed_sysctl_problem() -> str | None:
    """Why per-namespace hash seeds cannot be set here (None: they can)."""
    result = subprocess.run(["sysctl", "-n", SEED_SYSCTL], capture_output=True, text=True)
    if result.returncode != 0:
        return f"{SEED_SYSCTL} is not supported by this kernel ({result.stderr.strip() or 'no such sysctl'})"
    return None


def _mac(kind: int, a: int, b: int) -> str:
    return f"02:fe:{kind:02x}:{a:02x}:{b:02x}:01"


def build(twin: OracleTwin) -> None:
    """Create the namespaces, links, addresses, permanent neighbours and routes (deleted by :func:`destroy`)."""
    for name in twin.namespaces:
        run(["ip", "netns", "add", name])
        ns_exec(name, ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1",
                       "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0"])
    host_cmds: dict[str, list[str]] = {name: [] for name in twin.namespaces}
    root: list[str] = []
    for leaf in range(twin.leaves):
        host, switch = twin.ns("h", leaf), twin.ns("l", leaf)
        # host link 192.168.<leaf>.0/31: leaf .0, host .1
        root.append(f"link add hl{leaf}-{twin.prefix} type veth peer name lh{leaf}-{twin.prefix}")
        root.append(f"link set hl{leaf}-{twin.prefix} netns {host} name eth0 address {_mac(1, leaf, 0)}")
        root.append(f"link set lh{leaf}-{twin.prefix} netns {switch} name host0 address {_mac(2, leaf, 0)}")
        host_cmds[host] += ["link set lo up", "link set eth0 up", f"addr add 192.168.{leaf}.1/31 dev eth0",
                            f"neigh replace 192.168.{leaf}.0 lladdr {_mac(2, leaf, 0)} dev eth0 nud permanent",
                            f"route add default via 192.168.{leaf}.0 dev eth0"]
        host_cmds[switch] += ["link set lo up", "link set host0 up", f"addr add 192.168.{leaf}.0/31 dev host0",
                              f"neigh replace 192.168.{leaf}.1 lladdr {_mac(1, leaf, 0)} dev host0 nud permanent",
                              f"route add blackhole 10.{leaf}.0.0/24"]
        nexthops = []
        for spine in range(twin.spines):
            # leaf-spine link 172.16.<leaf>.<2 spine>/31: leaf even, spine odd
            leaf_ip, spine_ip = f"172.16.{leaf}.{2 * spine}", f"172.16.{leaf}.{2 * spine + 1}"
            leaf_mac, spine_mac = _mac(3, leaf, spine), _mac(4, leaf, spine)
            root.append(f"link add ls{leaf}x{spine}-{twin.prefix} type veth peer name sl{leaf}x{spine}-{twin.prefix}")
            root.append(f"link set ls{leaf}x{spine}-{twin.prefix} netns {switch} name {twin.uplink(leaf, spine)} "
                        f"address {leaf_mac}")
            root.append(f"link set sl{leaf}x{spine}-{twin.prefix} netns {twin.ns('s', spine)} name down{leaf} "
                        f"address {spine_mac}")
            host_cmds[switch] += [f"link set up{spine} up", f"addr add {leaf_ip}/31 dev up{spine}",
                                  f"neigh replace {spine_ip} lladdr {spine_mac} dev up{spine} nud permanent"]
            nexthops.append(f"nexthop via {spine_ip} dev up{spine}")
            host_cmds[twin.ns("s", spine)] += [
                "link set lo up", f"link set down{leaf} up", f"addr add {spine_ip}/31 dev down{leaf}",
                f"neigh replace {leaf_ip} lladdr {leaf_mac} dev down{leaf} nud permanent",
                f"route add 10.{leaf}.0.0/24 via {leaf_ip} dev down{leaf}"]
        host_cmds[switch].append("route add 10.0.0.0/8 " + " ".join(nexthops))
    for spine in range(twin.spines):
        nexthops = []
        for top in range(twin.super_spines):
            # spine-super-spine link 172.17.<spine>.<2 top>/31: spine even, super-spine odd
            spine_ip, top_ip = f"172.17.{spine}.{2 * top}", f"172.17.{spine}.{2 * top + 1}"
            spine_mac, top_mac = _mac(5, spine, top), _mac(6, spine, top)
            root.append(f"link add st{spine}x{top}-{twin.prefix} type veth peer name ts{spine}x{top}-{twin.prefix}")
            root.append(f"link set st{spine}x{top}-{twin.prefix} netns {twin.ns('s', spine)} name up{top} "
                        f"address {spine_mac}")
            root.append(f"link set ts{spine}x{top}-{twin.prefix} netns {twin.ns('t', top)} name down{spine} "
                        f"address {top_mac}")
            host_cmds[twin.ns("s", spine)] += [
                f"link set up{top} up", f"addr add {spine_ip}/31 dev up{top}",
                f"neigh replace {top_ip} lladdr {top_mac} dev up{top} nud permanent"]
            host_cmds[twin.ns("t", top)] += ["link set lo up", f"link set down{spine} up",
                                             f"addr add {top_ip}/31 dev down{spine}"]
            nexthops.append(f"nexthop via {top_ip} dev up{top}")
        if nexthops:
            host_cmds[twin.ns("s", spine)].append("route add 10.99.0.0/16 " + " ".join(nexthops))
    for top in range(twin.super_spines):
        host_cmds[twin.ns("t", top)].append("route add blackhole 10.99.0.0/16")
    ip_batch(root)
    for name, commands in host_cmds.items():
        ip_batch(commands, netns=name)


def destroy(twin: OracleTwin) -> None:
    """Delete this twin's namespaces (only ``<prefix>-...``, only those that exist); veths go with them."""
    existing = run(["ip", "netns", "list"]).stdout.split()
    for name in twin.namespaces:
        if name in existing:
            run(["ip", "netns", "del", name], check=False)


def set_hashing(twin: OracleTwin, policy: int, seed: int | None, spine_seed: int | None = None,
                each_its_own: bool = True) -> None:
    """Every leaf (and spine): ``fib_multipath_hash_policy`` and the seed -- ``seed + leaf`` (each leaf its own)
    or, with ``each_its_own=False``, ``seed`` on every leaf; spines ``spine_seed`` (+ spine) likewise."""
    routers = [(twin.ns("l", leaf), seed, leaf) for leaf in range(twin.leaves)]
    if twin.super_spines:
        routers += [(twin.ns("s", spine), spine_seed, spine) for spine in range(twin.spines)]
    for namespace, base, index in routers:
        settings = [f"net.ipv4.fib_multipath_hash_policy={policy}"]
        if base is not None:
            settings.append(f"{SEED_SYSCTL}={base + index if each_its_own else base}")
        ns_exec(namespace, ["sysctl", "-qw", *settings])


def roce_flows(twin: OracleTwin, per_host: int, rng: np.random.Generator) -> dict[int, list[tuple[str, int]]]:
    """Per host: ``per_host`` distinct (destination, source port) flows, destinations round-robin over the other
    leaves, source ports uniform in the RoCE range."""
    flows = {}
    for leaf in range(twin.leaves):
        others = [other for other in range(twin.leaves) if other != leaf]
        chosen: set[tuple[str, int]] = set()
        while len(chosen) < per_host:
            destination = twin.destination(others[len(chosen) % len(others)])
            chosen.add((destination, int(rng.integers(SPORT_MIN, SPORT_MAX + 1))))
        flows[leaf] = sorted(chosen)
    return flows


def _tx_packets(namespace: str) -> dict[str, int]:
    links = json.loads(run(["ip", "-n", namespace, "-s", "-j", "link", "show"]).stdout)
    return {link["ifname"]: int(link["stats64"]["tx"]["packets"]) for link in links}


def measure(twin: OracleTwin, flows: dict[int, list[tuple[str, int]]]) -> np.ndarray:
    """Send the flows and return (leaves, spines) flows counted on each leaf uplink (see :func:`measure_tiers`)."""
    return measure_tiers(twin, flows)[0]


def measure_tiers(twin: OracleTwin, flows: dict[int, list[tuple[str, int]]]) -> tuple[np.ndarray, np.ndarray]:
    """Send the flows; (leaves, spines) flows on each leaf uplink and (spines, super-spines) on each spine uplink."""
    before = [_tx_packets(twin.ns("l", leaf)) for leaf in range(twin.leaves)]
    spine_before = [_tx_packets(twin.ns("s", spine)) for spine in range(twin.spines)] if twin.super_spines else []
    for leaf, leaf_flows in flows.items():
        ns_exec(twin.ns("h", leaf), [sys.executable, "-c", SENDER], input=json.dumps({"dport": ROCE_DPORT, "flows": leaf_flows}), timeout=120)
    counts = np.zeros((twin.leaves, twin.spines), dtype=np.int64)
    for leaf in range(twin.leaves):
        after = _tx_packets(twin.ns("l", leaf))
        for spine in range(twin.spines):
            name = twin.uplink(leaf, spine)
            counts[leaf, spine] = after[name] - before[leaf][name]
        if counts[leaf].sum() != len(flows[leaf]):
            raise AssertionError(f"leaf {leaf}: uplinks carried {counts[leaf].sum()} packets for "
                                 f"{len(flows[leaf])} flows sent: something else is on the wire")
    upper = np.zeros((twin.spines, twin.super_spines), dtype=np.int64)
    for spine, earlier in enumerate(spine_before):
        after = _tx_packets(twin.ns("s", spine))
        upper[spine] = [after[f"up{top}"] - earlier[f"up{top}"] for top in range(twin.super_spines)]
    if twin.super_spines and not np.array_equal(upper.sum(axis=1), counts.sum(axis=0)):
        raise AssertionError(f"spine uplinks carried {upper.sum(axis=1).tolist()} packets for "
                             f"{counts.sum(axis=0).tolist()} received: something else is on the wire")
    return counts, upper


def _headers(twin: OracleTwin, flows: dict[int, list[tuple[str, int]]]) -> dict[int, np.ndarray]:
    """Per leaf the packed 5-tuples its host's flows carry (source address, destination, UDP, ports)."""
    packed = {}
    for leaf, leaf_flows in flows.items():
        sip = np.full(len(leaf_flows), int(ipaddress.ip_address(f"192.168.{leaf}.1")), dtype=np.uint64)
        dip = np.array([int(ipaddress.ip_address(dst)) for dst, _ in leaf_flows], dtype=np.uint64)
        sport = np.array([port for _, port in leaf_flows], dtype=np.uint64)
        packed[leaf] = pack_fields([(sip, 4), (dip, 4), (np.full(len(sip), UDP, dtype=np.uint64), 1), (sport, 2),
                                    (np.full(len(sip), ROCE_DPORT, dtype=np.uint64), 2)])
    return packed


def simulated_counts(twin: OracleTwin, flows: dict[int, list[tuple[str, int]]], keys: list[int]) -> np.ndarray:
    """The simulator's keyed random-oracle hash (validators.collective.hashing, ``random``) over the same
    5-tuples: for each key, leaf ``i`` keyed by key + i as the twin's leaves are seeded. (keys, leaves, spines)."""
    headers = _headers(twin, flows)
    counts = np.zeros((len(keys), twin.leaves, twin.spines), dtype=np.int64)
    for leaf, data in headers.items():
        members = np.full(len(data), twin.spines, dtype=np.int64)
        no_table = np.zeros(len(data), dtype=np.int64)
        for position, key in enumerate(keys):
            value = random_oracle(data, np.full(len(data), key + leaf, dtype=np.uint64))
            counts[position, leaf] = np.bincount(member_index(value, members, no_table), minlength=twin.spines)
    return counts


def simulated_tiers(twin: OracleTwin, flows: dict[int, list[tuple[str, int]]], leaf_key: int, spine_key: int,
                    each_its_own: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The simulator's random-hash model of both hashing tiers, keyed as :func:`set_hashing` seeds the twin:
    (leaves, spines) and (spines, super-spines) flow counts."""
    headers = _headers(twin, flows)
    lower = np.zeros((twin.leaves, twin.spines), dtype=np.int64)
    upper = np.zeros((twin.spines, twin.super_spines), dtype=np.int64)
    for leaf, data in headers.items():
        count = len(data)
        key = np.full(count, leaf_key + leaf if each_its_own else leaf_key, dtype=np.uint64)
        spine = member_index(random_oracle(data, key), np.full(count, twin.spines), np.zeros(count, np.int64))
        lower[leaf] = np.bincount(spine, minlength=twin.spines)
        spine_keys = (spine_key + spine if each_its_own else np.full(count, spine_key)).astype(np.uint64)
        top = member_index(random_oracle(data, spine_keys), np.full(count, twin.super_spines), np.zeros(count, np.int64))
        np.add.at(upper, (spine, top), 1)
    return lower, upper


def concentration(counts: np.ndarray) -> float:
    """The simulator's concentration over one tier's ECMP groups (rows: a switch's members): 1 - sum(used - 1) /
    sum(E[used] - 1), E[used] the expectation under independent uniform hashing (validators.collective.simulate)."""
    flows = counts.sum(axis=1)
    used = (counts > 0).sum(axis=1)
    expected = expected_used(flows, np.full(len(flows), counts.shape[1]))
    busy = flows >= 2
    return float(np.clip(1 - (used[busy] - 1).sum() / (expected[busy] - 1).sum(), 0.0, 1.0))


def chi_square_p(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X ~ chi-square(dof): Q(dof/2, statistic/2), the regularized upper incomplete gamma
    function (series below a + 1, continued fraction above; Numerical Recipes 3rd ed. section 6.2)."""
    a, x = dof / 2.0, statistic / 2.0
    if x <= 0:
        return 1.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        denominator = a
        for _ in range(10_000):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for step in range(1, 10_000):
        an = -step * (step - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_prefix) * h


def chi_square_uniform(counts: np.ndarray) -> tuple[float, int, float]:
    """Goodness of fit of each row (one leaf's uplinks) to the uniform multinomial, pooled: (statistic, dof, p)."""
    counts = np.atleast_2d(counts).astype(np.float64)
    expected = counts.sum(axis=1, keepdims=True) / counts.shape[1]
    statistic = float(((counts - expected) ** 2 / expected).sum())
    dof = counts.shape[0] * (counts.shape[1] - 1)
    return statistic, dof, chi_square_p(statistic, dof)


def kolmogorov_p(statistic: float, effective_n: float) -> float:
    """Asymptotic P(D >= statistic) of the Kolmogorov-Smirnov statistic, with Stephens' small-sample correction
    (Numerical Recipes 3rd ed. section 14.3.3): Q(lambda) = 2 sum (-1)^(k-1) exp(-2 k^2 lambda^2)."""
    root = math.sqrt(effective_n)
    lam = (root + 0.12 + 0.11 / root) * statistic
    if lam < 1e-3:
        return 1.0
    total = sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return float(min(1.0, max(0.0, 2 * total)))


def ks_two_sample(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Two-sample Kolmogorov-Smirnov: (D, p). For integer counts the asymptotic p is conservative (ties)."""
    a, b = np.sort(np.ravel(a).astype(np.float64)), np.sort(np.ravel(b).astype(np.float64))
    values = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, values, side="right") / len(a)
    cdf_b = np.searchsorted(b, values, side="right") / len(b)
    statistic = float(np.abs(cdf_a - cdf_b).max())
    return statistic, kolmogorov_p(statistic, len(a) * len(b) / (len(a) + len(b)))

