"""Flow-level prediction of how one collective's flows land on the fabric's links under static ECMP hashing.

Model (docs/collective.md): every QP of every connection is one flow with a constant byte count; a flow follows
one path, chosen hop by hop by each switch's hash of the flow's header (:mod:`.hashing`) over the ECMP members
towards the destination leaf (:mod:`.fabric`). No queueing, no congestion control, no time: a link's *load* is
the bytes of the flows on it, and since the collective ends when its most loaded link (per Gb/s) drains, the
**bottleneck factor** = max link load/capacity divided by the same under perfect fluid balancing (every switch
splitting every flow evenly over its members) is the collective's predicted slowdown from hashing.

What varies between trials is what the operator does not control: the QP numbers the NICs hand out (each NIC
allocates consecutively from a random base, so the kernel's source port, :mod:`.kernel`, changes) and, in the
``random`` source-port mode, the ports themselves. Trials run together, vectorised (trial-major rows).

DLB (dynamic load balancing / flowlet switching) on a switch is modelled as its ideal: the flows meeting one
ECMP group on that switch are dealt to its members round-robin, largest first -- for equal flows this is the
greedy least-loaded assignment flowlet switching converges to when flowlet gaps are frequent. Flowlet timing,
quality thresholds and reordering are not modelled.
Pure Python + numpy; never imports Django.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from compiler.errors import FieldError, InputError
from compiler.model import Inventory

from .fabric import NIC, FabricGraph, Routes
from .hashing import (
    UDP,
    VXLAN_DPORT,
    HashConfig,
    HashFields,
    HashFunction,
    hash_value,
    member_index,
    pack_fields,
    random_oracle,
    rotate,
)
from .jobs import COLLECTIVES, Job, Placement, connections, place
from .kernel import QPN_MASK, ROCE_DPORT, ROCE_SPORT_MIN, ROCE_SPORT_VALUES, roce_udp_sport

SPORT_MODES = ("kernel", "random", "pinned")
QP_POLICIES = ("split", "round-robin")
ENCAPSULATIONS = ("none", "vxlan")
FIRST_QPN = 0x100  # QPNs below are reserved (QP0/QP1 and driver-internal ones)
ROWS_PER_CHUNK = 4_000_000  # flow rows (trials x flows) simulated at once: ~0.5 GB of working arrays


@dataclass(frozen=True)
class HashPolicy:
    """Hashing per switch: ``by_switch`` over ``by_role`` over ``default``. ``distinct_seeds`` XORs every switch's
    seed with the CRC-32 of its hostname, the usual way to give each switch its own seed."""

    default: HashConfig = field(default_factory=HashConfig)
    by_role: Mapping[str, HashConfig] = field(default_factory=dict)
    by_switch: Mapping[str, HashConfig] = field(default_factory=dict)
    distinct_seeds: bool = False

    def config_for(self, hostname: str, role: str) -> HashConfig:
        config = self.by_switch.get(hostname) or self.by_role.get(role) or self.default
        if self.distinct_seeds:
            return HashConfig(function=config.function, seed=config.seed ^ zlib.crc32(hostname.encode()),
                              offset=config.offset, fields=config.fields, table_size=config.table_size,
                              dlb=config.dlb)
        return config


@dataclass(frozen=True)
class Scenario:
    """One job running one collective, and everything that decides where its flows go."""

    job: Job
    collective: str = "ring-allreduce"
    size_bytes: int = 1 << 30
    channels: int = 0  # 0: one ring/tree channel per NIC rail
    qps: int = 1  # NCCL_IB_QPS_PER_CONNECTION
    qp_policy: str = "split"  # NCCL_IB_SPLIT_DATA_ON_QPS=1 splits each message; "round-robin" deals whole messages
    message_bytes: int = 1 << 20
    sport: str = "kernel"  # kernel: rdma_get_udp_sport from the QPNs; random; pinned: pinned_sports[qp % len]
    pinned_sports: tuple[int, ...] = ()
    hashing: HashPolicy = field(default_factory=HashPolicy)
    encapsulation: str = "none"  # "vxlan": leaves are VTEPs; the outer source port hashes the inner headers
    trials: int = 16
    seed: int = 0
    elephant_fraction: float = 0.5  # a flow is an elephant when it carries >= this share of the largest flow

    def validate(self) -> None:
        errors = []
        choices = (("collective", self.collective, COLLECTIVES), ("qp_policy", self.qp_policy, QP_POLICIES),
                   ("sport", self.sport, SPORT_MODES), ("encapsulation", self.encapsulation, ENCAPSULATIONS))
        for name, value, allowed in choices:
            if value not in allowed:
                errors.append(FieldError(name, value, f"must be one of {', '.join(allowed)}"))
        for field_name, number, low, high in (("qps", self.qps, 1, 1024), ("trials", self.trials, 1, 100_000),
                                       ("channels", self.channels, 0, 256), ("message_bytes", self.message_bytes, 1, None)):
            if not isinstance(number, int) or number < low or (high is not None and number > high):
                errors.append(FieldError(field_name, number, f"must be an integer {low}..{high if high else 'up'}"))
        if self.sport == "pinned" and not self.pinned_sports:
            errors.append(FieldError("pinned_sports", self.pinned_sports, "sport=pinned needs at least one port"))
        for port in self.pinned_sports:
            if not isinstance(port, int) or not ROCE_SPORT_MIN <= port <= 0xFFFF:
                errors.append(FieldError("pinned_sports", port, "must be a RoCE source port 49152..65535"))
        if not 0 < self.elephant_fraction <= 1:
            errors.append(FieldError("elephant_fraction", self.elephant_fraction, "must be in (0, 1]"))
        configs = [("hashing.default", self.hashing.default)]
        configs += [(f"hashing.by_role[{role}]", config) for role, config in self.hashing.by_role.items()]
        configs += [(f"hashing.by_switch[{name}]", config) for name, config in self.hashing.by_switch.items()]
        for where, config in configs:
            errors += config.problems(where)
            if config.fields == HashFields.VXLAN_OUTER and self.encapsulation != "vxlan":
                errors.append(FieldError(f"{where}.fields", config.fields, "needs encapsulation=vxlan"))
        if errors:
            raise InputError(errors)


@dataclass
class TierReport:
    """One tier of links ("leaf->spine", ...): means are over trials; loads in bytes, ratios per Gb/s."""

    tier: str
    links: int  # links of the tier the collective could use (its fluid load > 0)
    flows: int  # flow crossings of the tier (every trial the same)
    bytes: float
    max_flows: int  # on one link, the worst trial
    mean_flows: float  # per usable link
    max_load: float  # bytes on the most loaded link (per Gb/s normalised to the tier's speed), median trial
    mean_load: float
    ideal_load: float  # the fluid (perfectly balanced) max load
    bottleneck_p50: float
    bottleneck_p95: float
    idle_links: float  # usable links carrying no flow (mean over trials)
    # fraction of trials where >= 2 elephants share some link of the tier; None on NIC links, which carry all
    # their QPs by construction (no hash decides)
    elephant_share_probability: float | None
    shared_links: float | None  # links carrying >= 2 elephants (mean over trials); None on NIC links
    concentration: float | None  # 1 - (used - 1) / (E[used] - 1) over this tier's ECMP choices; None: no choice
    polarization: float | None  # concentration beyond the upstream choice tier's (see docs/collective.md)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Prediction:
    scenario: Scenario
    servers: int
    gpus: int
    rails: int
    channels: int
    connections: int
    flows: int
    trials: int
    bottleneck: np.ndarray  # per trial
    tiers: list[TierReport]
    worst_links: list[dict]
    seconds: float
    link_flows: np.ndarray  # (trials, links) flows on every link of FabricGraph, per trial
    ideal_utilisation: float  # the fluid ideal's max load per Gb/s: the bottleneck factor's denominator
    link_bytes: np.ndarray  # (trials, links) bytes on every link, per trial
    usable_links: np.ndarray  # (links,) the links the collective could use (fluid load > 0)

    def percentile(self, q: float) -> float:
        return float(np.percentile(self.bottleneck, q))

    def as_dict(self) -> dict:
        scenario = self.scenario
        return {
            "collective": scenario.collective, "qps": scenario.qps, "sport": scenario.sport,
            "encapsulation": scenario.encapsulation, "servers": self.servers, "gpus": self.gpus, "rails": self.rails,
            "channels": self.channels, "connections": self.connections, "flows": self.flows, "trials": self.trials,
            "bottleneck_p50": self.percentile(50), "bottleneck_p95": self.percentile(95),
            "bottleneck_max": float(self.bottleneck.max()), "tiers": [tier.as_dict() for tier in self.tiers],
            "worst_links": self.worst_links, "seconds": self.seconds,
        }


def expected_used(flows: np.ndarray, members: np.ndarray) -> np.ndarray:
    """E[members used] when ``flows`` land independently and uniformly on ``members``: n (1 - (1 - 1/n)^m)."""
    n = members.astype(np.float64)
    return n * (1.0 - np.power(1.0 - 1.0 / n, flows.astype(np.float64)))


class _Flows:
    """Trial-independent per-flow arrays of one scenario."""

    def __init__(self, graph: FabricGraph, placement: Placement, scenario: Scenario, channels: int) -> None:
        src_nic, dst_nic, size = connections(placement, scenario.collective, scenario.size_bytes, channels)
        qps = scenario.qps
        self.connections = len(src_nic)
        self.src_nic = np.repeat(src_nic, qps)
        self.dst_nic = np.repeat(dst_nic, qps)
        self.qp = np.tile(np.arange(qps), len(src_nic))
        if scenario.qp_policy == "split" or qps == 1:
            self.bytes = np.repeat(size / qps, qps)
        else:  # whole messages dealt to the QPs in turn
            messages = np.ceil(size / scenario.message_bytes)
            dealt = (messages[:, None] // qps) + (np.arange(qps)[None, :] < (messages[:, None] % qps))
            self.bytes = (dealt / messages[:, None] * size[:, None]).ravel()
        nic_leaf = np.array([nic.leaf for nic in graph.nics], dtype=np.int64)
        nic_ip = np.array([nic.ip for nic in graph.nics], dtype=np.uint64)
        self.src_leaf, self.dst_leaf = nic_leaf[self.src_nic], nic_leaf[self.dst_nic]
        self.src_ip, self.dst_ip = nic_ip[self.src_nic], nic_ip[self.dst_nic]
        self.up_link = np.array([nic.up_link for nic in graph.nics], dtype=np.int64)[self.src_nic]
        self.down_link = np.array([nic.down_link for nic in graph.nics], dtype=np.int64)[self.dst_nic]
        # Each NIC numbers its QPs consecutively in the order they are created: a rank per endpoint.
        count = len(self.src_nic)
        nic = np.concatenate([self.src_nic, self.dst_nic])
        order = np.argsort(nic, kind="stable")
        sorted_nic = nic[order]
        first = np.searchsorted(sorted_nic, sorted_nic, side="left")
        rank = np.empty(2 * count, dtype=np.int64)
        rank[order] = np.arange(2 * count) - first
        self.local_rank, self.remote_rank = rank[:count], rank[count:]
        self.max_rank = int(rank.max()) + 1 if count else 1
        largest = float(self.bytes.max()) if count else 0.0
        self.elephant = self.bytes >= scenario.elephant_fraction * largest
        carrying = self.bytes > 0  # round-robin dealing can leave a QP without a message: it exists, sends nothing
        if not carrying.all():
            for name in ("src_nic", "dst_nic", "qp", "bytes", "src_leaf", "dst_leaf", "src_ip", "dst_ip", "up_link",
                         "down_link", "local_rank", "remote_rank", "elephant"):
                setattr(self, name, getattr(self, name)[carrying])

    def __len__(self) -> int:
        return len(self.src_nic)


class _SwitchHashing:
    """Per-switch hash configuration as arrays indexed by switch."""

    def __init__(self, graph: FabricGraph, policy: HashPolicy) -> None:
        configs = [policy.config_for(name, role) for name, role in zip(graph.names, graph.role, strict=True)]
        self.function = np.array([HashFunction.ALL.index(c.function) for c in configs], dtype=np.int8)
        self.fields = np.array([HashFields.ALL.index(c.fields) for c in configs], dtype=np.int8)
        self.seed = np.array([c.seed for c in configs], dtype=np.uint64)
        self.offset = np.array([c.offset for c in configs], dtype=np.int64)
        self.table = np.array([c.table_size or 0 for c in configs], dtype=np.int64)
        self.dlb = np.array([c.dlb for c in configs], dtype=bool)


def simulate(inventory: Inventory, scenario: Scenario, graph: FabricGraph | None = None) -> Prediction:
    """Predict the link loads of ``scenario`` on ``inventory`` (pass ``graph`` to reuse one across scenarios)."""
    scenario.validate()
    started = time.perf_counter()
    graph = graph or FabricGraph(inventory)
    placement = place(inventory, graph, scenario.job)
    channels = scenario.channels or placement.rails
    flows = _Flows(graph, placement, scenario, channels)
    destinations = np.unique(flows.dst_leaf)
    routes = Routes(graph, destinations)
    dest_position = np.searchsorted(destinations, flows.dst_leaf)
    hashing = _SwitchHashing(graph, scenario.hashing)
    links = graph.link_count
    fluid = _fluid_loads(graph, routes, flows, dest_position)
    per_chunk = max(1, ROWS_PER_CHUNK // max(len(flows), 1))
    rng = np.random.default_rng(scenario.seed)
    counts = np.zeros((scenario.trials, links), dtype=np.int32)
    loads = np.zeros((scenario.trials, links), dtype=np.float64)
    elephants = np.zeros((scenario.trials, links), dtype=np.int32)
    choices: list[tuple[np.ndarray, ...]] = []
    for first in range(0, scenario.trials, per_chunk):
        trials = min(per_chunk, scenario.trials - first)
        _run_chunk(graph, routes, hashing, flows, dest_position, scenario, rng, trials,
                   counts[first: first + trials], loads[first: first + trials],
                   elephants[first: first + trials], choices, first)
    tiers, bottleneck, worst = _report(graph, routes, flows, fluid, counts, loads, elephants, choices)
    ideal = float((fluid / graph.gbps).max())
    return Prediction(scenario=scenario, servers=len(placement.servers), gpus=placement.ranks,
                      rails=placement.rails, channels=channels, connections=flows.connections, flows=len(flows),
                      trials=scenario.trials, bottleneck=bottleneck, tiers=tiers, worst_links=worst,
                      seconds=time.perf_counter() - started, link_flows=counts,
                      ideal_utilisation=ideal, link_bytes=loads, usable_links=fluid > 0)


def _fluid_loads(graph: FabricGraph, routes: Routes, flows: _Flows, dest_position: np.ndarray) -> np.ndarray:
    """Link loads when every switch splits every flow evenly over its members (the ideal ECMP can approach)."""
    fluid = np.zeros(graph.link_count)
    np.add.at(fluid, flows.up_link, flows.bytes)
    np.add.at(fluid, flows.down_link, flows.bytes)
    dest_count = routes.dest_count
    key = flows.src_leaf * dest_count + dest_position
    key, inverse = np.unique(key, return_inverse=True)
    amount = np.bincount(inverse, weights=flows.bytes)
    while len(key):
        switch, destination = key // dest_count, key % dest_count
        moving = routes.destinations[destination] != switch
        key, amount, switch, destination = key[moving], amount[moving], switch[moving], destination[moving]
        if not len(key):
            break
        pair = routes.groups(switch, destination)
        count, start = routes.count[pair], routes.start[pair]
        row = np.repeat(np.arange(len(pair)), count)
        member = routes.members[np.repeat(start, count) + (np.arange(len(row)) - np.repeat(np.cumsum(count) - count, count))]
        share = (amount / count)[row]
        fluid += np.bincount(member, weights=share, minlength=graph.link_count)
        next_key = graph.head[member].astype(np.int64) * dest_count + destination[row]
        key, inverse = np.unique(next_key, return_inverse=True)
        amount = np.bincount(inverse, weights=share)
    return fluid


def _run_chunk(graph: FabricGraph, routes: Routes, hashing: _SwitchHashing, flows: _Flows,
               dest_position: np.ndarray, scenario: Scenario, rng: np.random.Generator, trials: int,
               counts: np.ndarray, loads: np.ndarray, elephants: np.ndarray, choices: list, first_trial: int) -> None:
    count = len(flows)
    links = graph.link_count
    trial = np.repeat(np.arange(trials), count)
    flow = np.tile(np.arange(count), trials)
    # QP numbers: every NIC allocates consecutively from its own random base (per trial)
    nics = len(graph.nics)
    bases = rng.integers(FIRST_QPN, QPN_MASK + 1 - flows.max_rank, size=(trials, nics), dtype=np.int64)
    lqpn = (bases[trial, flows.src_nic[flow]] + flows.local_rank[flow]) & QPN_MASK
    rqpn = (bases[trial, flows.dst_nic[flow]] + flows.remote_rank[flow]) & QPN_MASK
    if scenario.sport == "kernel":
        sport = roce_udp_sport(lqpn, rqpn).astype(np.uint64)
    elif scenario.sport == "random":
        sport = rng.integers(ROCE_SPORT_MIN, ROCE_SPORT_MIN + ROCE_SPORT_VALUES, size=len(flow)).astype(np.uint64)
    else:
        pinned = np.array(scenario.pinned_sports, dtype=np.uint64)
        sport = pinned[flows.qp[flow] % len(pinned)]
    header = {"sip": flows.src_ip[flow], "dip": flows.dst_ip[flow], "sport": sport, "dqp": rqpn.astype(np.uint64)}
    if scenario.encapsulation == "vxlan":
        # RFC 7348 section 5: the ingress VTEP sets the outer source port from a hash of the inner headers
        inner = pack_fields([(header["sip"], 4), (header["dip"], 4), (np.full(len(flow), UDP), 1),
                             (sport, 2), (np.full(len(flow), ROCE_DPORT), 2)])
        entropy = random_oracle(inner, hashing.seed[flows.src_leaf[flow]]) & np.uint32(ROCE_SPORT_VALUES - 1)
        header["outer_sport"] = (entropy | np.uint32(ROCE_SPORT_MIN)).astype(np.uint64)
        header["vsip"] = graph.vtep_ip[flows.src_leaf[flow]].astype(np.uint64)
        header["vdip"] = graph.vtep_ip[flows.dst_leaf[flow]].astype(np.uint64)
    size = flows.bytes[flow]
    elephant = flows.elephant[flow]
    offset = trial.astype(np.int64) * links
    # host links: fixed, every trial
    for link in (flows.up_link[flow], flows.down_link[flow]):
        _accumulate(counts, loads, elephants, offset + link, size, elephant)
    current = flows.src_leaf[flow].copy()
    destination = dest_position[flow]
    target = flows.dst_leaf[flow]
    active = np.flatnonzero(current != target)
    while len(active):
        pair = routes.groups(current[active], destination[active])
        group_size = routes.count[pair]
        choice = np.zeros(len(active), dtype=np.int64)
        multi = np.flatnonzero(group_size > 1)
        if len(multi):
            rows = active[multi]
            choice[multi] = _choose(hashing, header, current[rows], group_size[multi], rows,
                                    routes.signature[pair[multi]], trial[rows], size[rows], rng)
            choices.append((graph.link_tier[routes.members[routes.start[pair[multi]]]],
                            trial[rows] + first_trial, current[rows], routes.signature[pair[multi]],
                            choice[multi], group_size[multi]))
        link = routes.members[routes.start[pair] + choice]
        _accumulate(counts, loads, elephants, offset[active] + link, size[active], elephant[active])
        current[active] = graph.head[link]
        active = active[current[active] != target[active]]


def _accumulate(counts, loads, elephants, key, size, elephant) -> None:
    total = counts.size
    counts.reshape(-1)[:] += np.bincount(key, minlength=total).astype(np.int32)
    loads.reshape(-1)[:] += np.bincount(key, weights=size, minlength=total)
    elephants.reshape(-1)[:] += np.bincount(key[elephant], minlength=total).astype(np.int32)


def _choose(hashing: _SwitchHashing, header: dict, switch: np.ndarray, group_size: np.ndarray, rows: np.ndarray,
            signature: np.ndarray, trial: np.ndarray, size: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The member index each flow takes at its current switch."""
    choice = np.zeros(len(rows), dtype=np.int64)
    function, fields = hashing.function[switch], hashing.fields[switch]
    static = ~hashing.dlb[switch]
    for code in np.unique(function[static].astype(np.int64) * 8 + fields[static]):
        picked = np.flatnonzero(static & (function.astype(np.int64) * 8 + fields == code))
        name, field_set = HashFunction.ALL[code // 8], HashFields.ALL[code % 8]
        data = pack_fields(_columns(field_set, header, rows[picked]))
        value = hash_value(name, data, hashing.seed[switch[picked]])
        value = rotate(value, hashing.offset[switch[picked]], HashFunction.WIDTH[name])
        choice[picked] = member_index(value, group_size[picked], hashing.table[switch[picked]])
    dynamic = np.flatnonzero(~static)
    if len(dynamic):
        # ideal flowlet balancing: per (trial, switch, member set), deal flows round-robin, largest first
        tiebreak = rng.random(len(dynamic))
        order = np.lexsort((tiebreak, -size[dynamic], signature[dynamic], switch[dynamic], trial[dynamic]))
        ranked = dynamic[order]
        group_key = np.stack([trial[ranked], switch[ranked], signature[ranked].astype(np.int64)], axis=1)
        new_group = np.ones(len(ranked), dtype=bool)
        new_group[1:] = np.any(group_key[1:] != group_key[:-1], axis=1)
        group_first = np.maximum.accumulate(np.where(new_group, np.arange(len(ranked)), 0))
        choice[ranked] = (np.arange(len(ranked)) - group_first) % group_size[ranked]
    return choice


def _columns(field_set: str, header: dict, rows: np.ndarray) -> list[tuple[np.ndarray, int]]:
    count = len(rows)
    udp = np.full(count, UDP, dtype=np.uint64)
    roce = np.full(count, ROCE_DPORT, dtype=np.uint64)
    inner = [(header["sip"][rows], 4), (header["dip"][rows], 4), (udp, 1), (header["sport"][rows], 2), (roce, 2)]
    if field_set == HashFields.FIVE_TUPLE_DQP:
        return inner + [(header["dqp"][rows], 3)]
    # On the wire under VXLAN the packet's 5-tuple is the outer one (Scenario.validate refuses vxlan-outer
    # without VXLAN); vxlan-inner reads past it, as SAI's INNER_* native hash fields do.
    if field_set == HashFields.VXLAN_OUTER or (field_set == HashFields.FIVE_TUPLE and "outer_sport" in header):
        return [(header["vsip"][rows], 4), (header["vdip"][rows], 4), (udp, 1), (header["outer_sport"][rows], 2),
                (np.full(count, VXLAN_DPORT, dtype=np.uint64), 2)]
    return inner  # the RoCE 5-tuple; under VXLAN the inner one (vxlan-inner)


def _concentration(choices: list, tier_count: int) -> list[float | None]:
    """Per tier: 1 - sum(used - 1) / sum(E[used] - 1) over the ECMP groups (trial, switch, member set) with at
    least two flows: 0 when the members used match independent uniform hashing, 1 when every group's flows all
    take one member."""
    if not choices:
        return [None] * tier_count
    tier, trial, switch, signature, member, group_size = (np.concatenate(column) for column in zip(*choices, strict=True))
    order = np.lexsort((member, signature, switch, trial))
    tier, trial, switch, signature, member, group_size = (
        array[order] for array in (tier, trial, switch, signature, member, group_size))
    boundary = np.ones(len(order), dtype=bool)
    boundary[1:] = (trial[1:] != trial[:-1]) | (switch[1:] != switch[:-1]) | (signature[1:] != signature[:-1])
    group = np.cumsum(boundary) - 1
    distinct = np.ones(len(order), dtype=bool)
    distinct[1:] = boundary[1:] | (member[1:] != member[:-1])
    flows = np.bincount(group)
    used = np.bincount(group, weights=distinct)
    first = np.flatnonzero(boundary)
    group_tier, size = tier[first], group_size[first]
    expected = expected_used(flows, size)
    result: list[float | None] = []
    for code in range(tier_count):
        mask = (group_tier == code) & (flows >= 2)
        if not mask.any():
            result.append(None)
            continue
        excess = float((expected[mask] - 1).sum())
        result.append(float(np.clip(1 - (used[mask] - 1).sum() / excess, 0.0, 1.0)) if excess > 0 else None)
    return result


def _report(graph: FabricGraph, routes: Routes, flows: _Flows, fluid: np.ndarray, counts: np.ndarray,
            loads: np.ndarray, elephants: np.ndarray, choices: list) -> tuple[list[TierReport], np.ndarray, list[dict]]:
    capacity = graph.gbps
    usable = fluid > 0
    utilisation = loads / capacity[None, :]
    ideal = fluid / capacity
    ideal_max = float(ideal.max())
    bottleneck = utilisation.max(axis=1) / ideal_max
    concentration = _concentration(choices, len(graph.tier_names))
    tiers: list[TierReport] = []
    upstream: float | None = None
    for code, name in enumerate(graph.tier_names):
        mask = (graph.link_tier == code) & usable
        if not mask.any():
            continue
        tier_util, tier_ideal = utilisation[:, mask], float(ideal[mask].max())
        speed = float(capacity[mask].max())
        factors = tier_util.max(axis=1) / tier_ideal
        tier_counts, tier_elephants = counts[:, mask], elephants[:, mask]
        shared = (tier_elephants >= 2).sum(axis=1)
        hashless = NIC in name.split("->")
        conc = concentration[code]
        polarization = None
        if conc is not None:
            polarization = max(0.0, conc - upstream) if upstream is not None else None
            upstream = conc
        tiers.append(TierReport(
            tier=name, links=int(mask.sum()), flows=int(tier_counts[0].sum()), bytes=float(loads[0, mask].sum()),
            max_flows=int(tier_counts.max()), mean_flows=float(tier_counts.mean()),
            max_load=float(np.median(tier_util.max(axis=1)) * speed), mean_load=float(tier_util.mean() * speed),
            ideal_load=tier_ideal * speed, bottleneck_p50=float(np.percentile(factors, 50)),
            bottleneck_p95=float(np.percentile(factors, 95)),
            idle_links=float(((tier_counts == 0).sum(axis=1)).mean()),
            elephant_share_probability=None if hashless else float((shared > 0).mean()),
            shared_links=None if hashless else float(shared.mean()),
            concentration=conc, polarization=polarization))
    worst_ratio = utilisation.max(axis=0) / ideal_max
    top = np.argsort(-worst_ratio)[:5]
    worst = [{"link": graph.label(int(link)), "tier": graph.tier_names[int(graph.link_tier[link])],
              "max_flows": int(counts[:, link].max()), "load_vs_ideal": float(worst_ratio[link])}
             for link in top if worst_ratio[link] > 0]
    return tiers, bottleneck, worst
