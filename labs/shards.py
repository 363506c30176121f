"""Shard planner: cut a fabric over several twin hosts (issue 35). Pure: no namespaces, no processes.

    python -m labs plan --hosts a:1,b:1,c:2 --scenario fabric.yaml
    python -m labs plan --hosts h1:1,h2:1,h3:1,h4:1,h5:1,h6:1,h7:1,h8:1 --clos 64x1024   # the 1,088-switch fabric
    python -m labs plan --hosts a:1,b:1 --clos 2x2 --worst-cut

Units of placement are never split: a whole pod (5-stage Clos: its spines and leaves), a rail group of leaves
(leaves serving the NICs of one rail, when rails differ), otherwise a block of ``leaf_block`` leaves in natural
order; each spine of a 2-tier fabric and each super-spine is a unit of its own (every leaf cables to every spine,
so spreading spines in proportion to the weights cuts fewer cables than keeping them together).

Method: greedy then local improvement (Kernighan-Lin style single moves). Units go largest first to the host
with the most cables to the units it already holds, among hosts whose load stays within its weighted share
(``ceil(share x (1 + BALANCE_TOLERANCE))``); ties go to the emptiest host. Then single-unit moves that cut fewer
cables and keep every host within its share are applied until none helps (at most ``IMPROVE_PASSES`` passes).
Not optimal (min-cut balanced partitioning is NP-hard), but deterministic and fast (64x1,024 in well under a
second). ``worst_cut=True`` places every spine and super-spine on the first host and the leaves on the others
by weight: every leaf-spine cable crosses hosts (the acceptance shape of issue 35).

Budgets use figures measured on this project's twin (each constant cites where); they are estimates for a host
of the given size, not measurements of that host.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field

from compiler.errors import FieldError, InputError

from .subset import leaf_groups, natural_key
from .topology import TwinTopology

SPINE_ROLES = ("spine", "super-spine")
BALANCE_TOLERANCE = 0.05  # a host may take 5 % more than its weighted share so whole units still fit
IMPROVE_PASSES = 20
LEAF_BLOCK = 16  # leaves per unit in a 2-tier fabric without distinct rails
HOST_SPEC = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]{0,31}):(?P<weight>\d+(?:\.\d+)?)$")

# Measured per-switch figures (docs/twin-notes.md "Measured after", 8x248 = 256 switches, late cabling, FRR 8.4,
# BFD off by the size policy): 50.4 MiB of FRR RSS per switch, the largest of every measured size (31-50 MiB).
MIB_PER_SWITCH = 50.4
# labs/runtime/limits.py: zebra takes one inotify instance (it watches /run/netns), two per switch are reserved;
# 128 is the kernel's default fs.inotify.max_user_instances that the runtime adds to.
INOTIFY_PER_SWITCH = 2
INOTIFY_BASE = 128
# labs/runtime/limits.py: zebra + bgpd + bfdd, each capped at 1,024 open files.
FILES_PER_SWITCH = 3 * 1024
# docs/twin-notes.md: at 8x248 FRR used 522 CPU-seconds in the first 703 s of a late-cabled boot to converge
# (leaf bgpd 209, leaf zebra 236, spine bgpd 72); the fabric has 8 x 248 = 1,984 cables = 3,968 cable ends (BGP
# sessions): 0.1316 CPU-s per session end. Linear in sessions: an extrapolation, since a leaf's route count
# also grows with the fabric (it underestimates big fabrics; the report says so).
CPU_S_PER_SESSION_END = 522 / 3968
CONVERGE_GOAL_S = 120.0  # issue 35 / issue 19: the fabric converges within 120 s
# The host a plan is checked against unless told otherwise: a 32-core, 128 GiB server (an assumption stated in
# every report, not a measured machine; this project's own machine has 2 cores and 23 GiB).
DEFAULT_HOST_CORES = 32
DEFAULT_HOST_MEMORY_MIB = 128 * 1024
INOTIFY_MAX = 2**31 - 1  # fs.inotify.max_user_instances is an int


@dataclass(frozen=True, slots=True)
class ShardHost:
    name: str
    weight: float


@dataclass(frozen=True, slots=True)
class HostCapacity:
    """What one twin host offers (every host of the plan alike)."""

    cores: int = DEFAULT_HOST_CORES
    memory_mib: int = DEFAULT_HOST_MEMORY_MIB


@dataclass(frozen=True, slots=True)
class FabricCable:
    a_node: str
    a_ifname: str
    b_node: str
    b_ifname: str
    label: str = ""

    @property
    def cable_id(self) -> str:
        return self.label or f"{self.a_node}:{self.a_ifname}--{self.b_node}:{self.b_ifname}"


@dataclass(frozen=True)
class FabricGraph:
    """What the planner needs of a fabric: each switch's role and placement unit, and the switch-to-switch cables
    in their topology order (the order gives each cable its stitching VNI)."""

    roles: Mapping[str, str]
    units: Mapping[str, str]  # switch -> unit key (pod:1, rail:0, leaves:3, spine1 ...)
    cables: tuple[FabricCable, ...]
    kind: str = "2-tier"  # 2-tier | 5-stage


@dataclass(frozen=True, slots=True)
class HostBudget:
    host: str
    weight: float
    switches: int
    spines: int
    leaves: int
    session_ends: int
    cross_cables: int
    memory_mib: float
    inotify_instances: int
    file_descriptors: int
    cpu_s_to_converge: float
    converge_s_estimate: float
    capacity_cores: int
    capacity_memory_mib: int
    problems: tuple[str, ...] = ()

    @property
    def within_budget(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class ShardPlan:
    hosts: tuple[ShardHost, ...]
    assignment: Mapping[str, str]  # switch -> host
    cross_cables: tuple[FabricCable, ...]
    budgets: tuple[HostBudget, ...]
    method: str
    kind: str
    units: Mapping[str, str] = field(default_factory=dict)
    cables: tuple[FabricCable, ...] = ()  # every switch-to-switch cable, in topology order

    @property
    def within_budget(self) -> bool:
        return all(budget.within_budget for budget in self.budgets)

    def switches_of(self, host: str) -> list[str]:
        return sorted((node for node, owner in self.assignment.items() if owner == host), key=natural_key)

    def as_dict(self) -> dict:
        return {
            "method": self.method,
            "kind": self.kind,
            "hosts": [asdict(host) for host in self.hosts],
            "shards": {host.name: self.switches_of(host.name) for host in self.hosts},
            "cross_cables": [{"id": cable.cable_id, "a": f"{cable.a_node}:{cable.a_ifname}",
                              "b": f"{cable.b_node}:{cable.b_ifname}", "a_host": self.assignment[cable.a_node],
                              "b_host": self.assignment[cable.b_node]} for cable in self.cross_cables],
            "budgets": [{**asdict(budget), "within_budget": budget.within_budget} for budget in self.budgets],
            "within_budget": self.within_budget,
            "budget_sources": BUDGET_SOURCES,
        }

    def as_text(self) -> str:
        lines = [f"shard plan ({self.kind}, {self.method}): {len(self.assignment)} switches on {len(self.hosts)} "
                 f"hosts, {len(self.cross_cables)} cross-host cables (VXLAN-stitched)"]
        for budget in self.budgets:
            verdict = "within budget" if budget.within_budget else "OVER BUDGET: " + "; ".join(budget.problems)
            lines.append(f"  {budget.host} (weight {budget.weight:g}): {budget.switches} switches ({budget.spines} "
                         f"spines, {budget.leaves} leaves), {budget.cross_cables} cross cables, "
                         f"{budget.memory_mib:,.0f} MiB, inotify {budget.inotify_instances}, fds "
                         f"{budget.file_descriptors:,}, {budget.cpu_s_to_converge:,.0f} CPU-s to converge "
                         f"(~{budget.converge_s_estimate:,.0f} s on {budget.capacity_cores} cores): {verdict}")
        lines.append("  figures: " + "; ".join(f"{key} {value}" for key, value in BUDGET_SOURCES.items()))
        return "\n".join(lines)


BUDGET_SOURCES = {
    "MiB/switch": f"{MIB_PER_SWITCH} (docs/twin-notes.md, 8x248 measured)",
    "inotify": f"{INOTIFY_BASE} + {INOTIFY_PER_SWITCH}/switch (labs/runtime/limits.py)",
    "fds": f"{FILES_PER_SWITCH}/switch (labs/runtime/limits.py)",
    "CPU": f"{CPU_S_PER_SESSION_END:.4f} CPU-s per BGP session end (docs/twin-notes.md, 8x248: 522 CPU-s, "
           "3,968 ends; linear extrapolation, optimistic for big fabrics)",
    "goal": f"converged within {CONVERGE_GOAL_S:.0f} s",
}


def parse_hosts(text: str, *, field: str = "--hosts") -> tuple[ShardHost, ...]:
    """``a:1,b:2`` -> hosts with weights. Errors name ``field`` and the item."""
    errors: list[FieldError] = []
    hosts: list[ShardHost] = []
    for item in [part.strip() for part in (text or "").split(",") if part.strip()]:
        match = HOST_SPEC.match(item)
        if not match:
            errors.append(FieldError(field, item, "use name:weight, e.g. a:1 (name letters/digits/_.-, weight > 0)"))
            continue
        if float(match["weight"]) <= 0:
            errors.append(FieldError(field, item, "weight must be > 0"))
            continue
        if any(host.name == match["name"] for host in hosts):
            errors.append(FieldError(field, item, "host named twice"))
            continue
        hosts.append(ShardHost(match["name"], float(match["weight"])))
    if not errors and not hosts:
        errors.append(FieldError(field, text, "name at least one host, e.g. a:1,b:1"))
    if errors:
        raise InputError(errors)
    return tuple(hosts)


# --------------------------------------------------------------------------------------------- fabric graphs


def _units(roles: Mapping[str, str], pods: Mapping[str, int], rails: Mapping[str, set[int]],
           leaf_block: int) -> tuple[dict[str, str], str]:
    kind = "5-stage" if any(pods.get(node, 0) for node in roles) else "2-tier"
    units: dict[str, str] = {}
    leaves = sorted((node for node, role in roles.items() if role not in SPINE_ROLES), key=natural_key)
    distinct_rails = {frozenset(rails.get(leaf, ())) for leaf in leaves}
    for node, role in roles.items():
        if kind == "5-stage" and pods.get(node, 0):
            units[node] = f"pod:{pods[node]}"
        elif role in SPINE_ROLES:
            units[node] = node
    unplaced = [leaf for leaf in leaves if leaf not in units]
    if len(distinct_rails) > 1:
        for leaf in unplaced:
            units[leaf] = "rail:" + ("+".join(str(rail) for rail in sorted(rails.get(leaf, ()))) or "none")
    else:
        for index, leaf in enumerate(unplaced):
            units[leaf] = f"leaves:{index // leaf_block + 1}"
    return units, kind


def graph_from_topology(topology: TwinTopology, *, pods: Mapping[str, int] | None = None,
                        rails: Mapping[str, set[int]] | None = None, leaf_block: int = LEAF_BLOCK) -> FabricGraph:
    """The planner's view of a twin topology; ``pods``/``rails`` from ``labs.subset.leaf_groups(inventory)``."""
    roles = {node.name: node.role for node in topology.nodes}
    units, kind = _units(roles, pods or {}, rails or {}, leaf_block)
    cables = tuple(FabricCable(link.a_node, link.a_ifname, link.b_node, link.b_ifname, link.label)
                   for link in topology.links)
    return FabricGraph(roles=roles, units=units, cables=cables, kind=kind)


def graph_from_inventory(inventory, *, leaf_block: int = LEAF_BLOCK) -> FabricGraph:
    """The planner's view of a ``compiler.model.Inventory`` (no compile needed: a 1,088-switch plan in seconds)."""
    roles = {switch.hostname: str(switch.role) for switch in inventory.switches}
    pods, rails = leaf_groups(inventory)
    units, kind = _units(roles, pods, rails, leaf_block)
    cables = tuple(FabricCable(cable.a.device, cable.a.interface, cable.b.device, cable.b.interface, cable.label)
                   for cable in inventory.cables if cable.a.device in roles and cable.b.device in roles)
    return FabricGraph(roles=roles, units=units, cables=cables, kind=kind)


# --------------------------------------------------------------------------------------------- planning


def plan_shards(graph: FabricGraph, hosts: Iterable[ShardHost], *, worst_cut: bool = False,
                capacity: HostCapacity | None = None) -> ShardPlan:
    """Cut ``graph`` over ``hosts`` (module docstring: method). Raises InputError when it cannot be cut."""
    hosts = tuple(hosts)
    capacity = capacity or HostCapacity()
    if not hosts:
        raise InputError([FieldError("hosts", "", "name at least one host")])
    if worst_cut:
        if len(hosts) < 2:
            raise InputError([FieldError("hosts", ",".join(h.name for h in hosts),
                                         "the worst cut needs two hosts or more (spines on one, leaves on the others)")])
        assignment = _worst_cut(graph, hosts)
        method = f"worst cut: spines on {hosts[0].name}, leaves on the others by weight"
    else:
        assignment = _balanced_cut(graph, hosts)
        method = "greedy by unit + single-move local improvement (balanced within 5 % of the weights)"
    cross = tuple(cable for cable in graph.cables if assignment[cable.a_node] != assignment[cable.b_node])
    budgets = tuple(_budget(graph, host, assignment, cross, capacity) for host in hosts)
    return ShardPlan(hosts=hosts, assignment=dict(assignment), cross_cables=cross, budgets=budgets, method=method,
                     kind=graph.kind, units=dict(graph.units), cables=graph.cables)


def _shares(total: int, hosts: tuple[ShardHost, ...]) -> dict[str, int]:
    weight = sum(host.weight for host in hosts)
    return {host.name: math.ceil(total * host.weight / weight * (1 + BALANCE_TOLERANCE)) for host in hosts}


def _worst_cut(graph: FabricGraph, hosts: tuple[ShardHost, ...]) -> dict[str, str]:
    assignment = {node: hosts[0].name for node, role in graph.roles.items() if role in SPINE_ROLES}
    leaves = sorted((node for node, role in graph.roles.items() if role not in SPINE_ROLES), key=natural_key)
    others = hosts[1:]
    weight = sum(host.weight for host in others)
    start = 0.0
    for host in others:  # contiguous runs of leaves in proportion to the weights
        end = start + len(leaves) * host.weight / weight
        for leaf in leaves[round(start):round(end)]:
            assignment[leaf] = host.name
        start = end
    return assignment


def _balanced_cut(graph: FabricGraph, hosts: tuple[ShardHost, ...]) -> dict[str, str]:
    members: dict[str, list[str]] = defaultdict(list)
    for node in graph.roles:
        members[graph.units.get(node, node)].append(node)
    links: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # unit -> unit -> cables
    for cable in graph.cables:
        a, b = graph.units.get(cable.a_node, cable.a_node), graph.units.get(cable.b_node, cable.b_node)
        if a != b:
            links[a][b] += 1
            links[b][a] += 1
    shares = _shares(len(graph.roles), hosts)
    load = {host.name: 0 for host in hosts}
    placed: dict[str, str] = {}
    order = sorted(members, key=lambda unit: (-len(members[unit]), natural_key(unit)))
    for unit in order:
        size = len(members[unit])

        def affinity(host: str, unit: str = unit) -> int:
            return sum(count for other, count in links[unit].items() if placed.get(other) == host)

        fitting = [host.name for host in hosts if load[host.name] + size <= shares[host.name]]
        candidates = fitting or [host.name for host in hosts]
        # Most cables to what the host holds; then the most room left relative to its share; then host order.
        best = max(candidates, key=lambda host: (affinity(host), shares[host] - load[host]))
        placed[unit] = best
        load[best] += size
    for _ in range(IMPROVE_PASSES):
        improved = False
        for unit in order:
            size, current = len(members[unit]), placed[unit]
            here = sum(count for other, count in links[unit].items() if placed[other] == current)
            for host in hosts:
                if host.name == current or load[host.name] + size > shares[host.name]:
                    continue
                there = sum(count for other, count in links[unit].items() if placed[other] == host.name)
                if there > here:
                    placed[unit], load[current], load[host.name] = host.name, load[current] - size, load[host.name] + size
                    current, here, improved = host.name, there, True
        if not improved:
            break
    return {node: placed[unit] for unit, nodes in members.items() for node in nodes}


def _budget(graph: FabricGraph, host: ShardHost, assignment: Mapping[str, str], cross: tuple[FabricCable, ...],
            capacity: HostCapacity) -> HostBudget:
    switches = [node for node, owner in assignment.items() if owner == host.name]
    spines = sum(1 for node in switches if graph.roles[node] in SPINE_ROLES)
    ends = sum((assignment[c.a_node] == host.name) + (assignment[c.b_node] == host.name) for c in graph.cables)
    memory = round(MIB_PER_SWITCH * len(switches), 1)
    cpu = round(CPU_S_PER_SESSION_END * ends, 1)
    converge = round(cpu / capacity.cores, 1)
    problems = []
    if memory > capacity.memory_mib:
        problems.append(f"memory {memory:,.0f} MiB > {capacity.memory_mib:,} MiB")
    if converge > CONVERGE_GOAL_S:
        problems.append(f"convergence ~{converge:,.0f} s on {capacity.cores} cores > {CONVERGE_GOAL_S:.0f} s goal")
    inotify = INOTIFY_BASE + INOTIFY_PER_SWITCH * len(switches)
    if inotify > INOTIFY_MAX:
        problems.append(f"inotify instances {inotify} > {INOTIFY_MAX}")
    return HostBudget(host=host.name, weight=host.weight, switches=len(switches), spines=spines,
                      leaves=len(switches) - spines, session_ends=ends,
                      cross_cables=sum(1 for c in cross if host.name in (assignment[c.a_node], assignment[c.b_node])),
                      memory_mib=memory, inotify_instances=inotify, file_descriptors=FILES_PER_SWITCH * len(switches),
                      cpu_s_to_converge=cpu, converge_s_estimate=converge, capacity_cores=capacity.cores,
                      capacity_memory_mib=capacity.memory_mib, problems=tuple(problems))
