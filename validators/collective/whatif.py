"""What-ifs of one collective, side by side, and the per-link loads a heat map draws (the API and UI's model).

``compare(inventory, scenario, what_if_qps=16)`` simulates the scenario as given and four variants -- QPs = k,
distinct seeds per switch, DLB on every switch, single-choice planes (dual-plane) -- and returns one row per
variant: p50/p95 bottleneck factor, the worst tier polarization and the idle usable links. ``link_loads`` gives
every usable switch/host link's mean and worst load against the fluid ideal, per tier.

Work is bounded before anything is allocated: ``flow_rows`` counts a scenario's flows x trials from the placement
alone, and ``check_budget`` refuses (field-named) a request whose rows exceed the budget.

Single-choice planes (Alibaba HPN's dual-plane principle, SIGCOMM 2024 section 4: after the first hop one way
up): every spine cabled to k >= 2 super-spines is split into k plane spines, plane j keeping the cables to
super-spine j and a 1/k share of each leaf link's speed, so the leaf's first hash picks the plane and no later
switch chooses upward. Total capacity per tier is unchanged; this is the construction of ladder rung (iv) applied
to any fabric. A 2-tier fabric has no upward choice after the first hop: the variant is "not applicable".
Pure Python + numpy; never imports Django.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np

from compiler.errors import FieldError, InputError
from compiler.model import Cable, Endpoint, Inventory, Role

from .fabric import FabricGraph
from .jobs import place
from .simulate import Prediction, Scenario, simulate

MAX_FLOW_ROWS = 2_000_000  # flows x trials of one simulation in a request: ~1 s of CPU on this machine
WHAT_IFS = ("as-given", "qps", "distinct-seeds", "dlb", "dual-plane")
PLANE_MARK = "~plane"  # plane spines are named "<spine>~plane<j>"


@dataclass
class WhatIfRow:
    name: str
    label: str
    bottleneck_p50: float | None
    bottleneck_p95: float | None
    polarization: float | None  # the worst tier's polarization index (None: no tier after the first chooses)
    idle_links: float | None  # usable links of the hashed tiers carrying no flow, mean over trials
    links: int | None  # usable links of the hashed tiers
    skipped: str = ""  # why the variant was not simulated

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def flow_rows(inventory: Inventory, graph: FabricGraph, scenario: Scenario) -> int:
    """Flows x trials ``simulate`` would create, from the placement alone (nothing large is allocated)."""
    placement = place(inventory, graph, scenario.job)
    servers, rails, gpus = len(placement.servers), placement.rails, placement.gpus_per_server
    channels = scenario.channels or rails
    if scenario.collective in ("ring-allreduce", "allgather", "reduce-scatter"):
        count = servers * channels
    elif scenario.collective == "tree-allreduce":
        count = 2 * (servers - 1) * channels
    elif scenario.collective == "alltoall-pxn":
        count = servers * (servers - 1) * rails
    else:
        count = servers * (servers - 1) * gpus * gpus
    return count * scenario.qps * scenario.trials


def check_budget(inventory: Inventory, graph: FabricGraph, scenario: Scenario, what_if_qps: int | None = None,
                 budget: int = MAX_FLOW_ROWS) -> int:
    """The largest simulation's rows; an InputError naming the fields to lower when it is above ``budget``."""
    scenario.validate()
    rows = flow_rows(inventory, graph, scenario)
    if what_if_qps:
        rows = max(rows, rows // scenario.qps * what_if_qps)
    if rows > budget:
        message = (f"{rows:,} flow rows (flows x QPs x trials) exceed this endpoint's {budget:,}; lower trials, qps "
                   "or what_if_qps, use fewer GPUs, or run manage.py collective")
        raise InputError([FieldError(name, value, message) for name, value in
                          (("trials", scenario.trials), ("qps", scenario.qps), ("what_if_qps", what_if_qps))
                          if value])
    return rows


def single_choice_planes(inventory: Inventory) -> Inventory | None:
    """The fabric with every multi-super-spine spine split into single-choice plane spines; None when no spine
    has a choice of super-spine (a 2-tier fabric, or planes already of one)."""
    role = {switch.hostname: switch.role for switch in inventory.switches}
    up: dict[str, dict[str, list[Cable]]] = defaultdict(lambda: defaultdict(list))
    down: dict[str, list[Cable]] = defaultdict(list)
    for cable in inventory.cables:
        for near, far in ((cable.a, cable.b), (cable.b, cable.a)):
            if role.get(near.device) == Role.SPINE:
                if role.get(far.device) == Role.SUPER_SPINE:
                    up[near.device][far.device].append(cable)
                elif far.device in role and role[far.device] in (Role.LEAF, Role.BORDER):
                    down[near.device].append(cable)
    split = {spine: sorted(groups) for spine, groups in up.items() if len(groups) >= 2}
    if not split:
        return None
    switches, cables = [], [cable for cable in inventory.cables
                            if not any(end.device in split for end in (cable.a, cable.b))]
    for switch in inventory.switches:
        planes = split.get(switch.hostname)
        if planes is None:
            switches.append(switch)
            continue
        share = len(planes)
        for plane, super_spine in enumerate(planes):
            name = f"{switch.hostname}{PLANE_MARK}{plane}"
            keep = {end.interface for cable in up[switch.hostname][super_spine] for end in (cable.a, cable.b)
                    if end.device == switch.hostname}
            keep |= {end.interface for cable in down[switch.hostname] for end in (cable.a, cable.b)
                     if end.device == switch.hostname}
            down_ports = {end.interface for cable in down[switch.hostname] for end in (cable.a, cable.b)
                          if end.device == switch.hostname}
            interfaces = tuple(replace(interface, speed_gbps=max(1, interface.speed_gbps // share))
                               if interface.name in down_ports else interface
                               for interface in switch.interfaces if interface.name in keep)
            switches.append(replace(switch, hostname=name, interfaces=interfaces))
            for cable in up[switch.hostname][super_spine] + down[switch.hostname]:
                cables.append(replace(cable, label=f"{cable.label}{PLANE_MARK}{plane}",
                                      a=_renamed(cable.a, switch.hostname, name),
                                      b=_renamed(cable.b, switch.hostname, name)))
    return replace(inventory, switches=tuple(switches), cables=tuple(cables))


def _renamed(end: Endpoint, old: str, new: str) -> Endpoint:
    return Endpoint(new, end.interface) if end.device == old else end


def _row(name: str, label: str, prediction: Prediction) -> WhatIfRow:
    hashed = [tier for tier in prediction.tiers if tier.concentration is not None]
    polarized = [tier.polarization for tier in hashed if tier.polarization is not None]
    return WhatIfRow(name=name, label=label, bottleneck_p50=prediction.percentile(50),
                     bottleneck_p95=prediction.percentile(95), polarization=max(polarized) if polarized else None,
                     idle_links=float(sum(tier.idle_links for tier in hashed)),
                     links=sum(tier.links for tier in hashed))


def compare(inventory: Inventory, scenario: Scenario, what_if_qps: int = 16, graph: FabricGraph | None = None,
            base: Prediction | None = None) -> list[WhatIfRow]:
    """The scenario as given and each variant (``WHAT_IFS``), in that order."""
    graph = graph or FabricGraph(inventory)
    base = base or simulate(inventory, scenario, graph=graph)
    default = scenario.hashing.default
    rows = [_row("as-given", f"as given ({scenario.qps} QP{'s' if scenario.qps > 1 else ''})", base),
            _row("qps", f"QPs = {what_if_qps}", simulate(inventory, replace(scenario, qps=what_if_qps), graph=graph)),
            _row("distinct-seeds", "distinct seeds per switch",
                 simulate(inventory, replace(scenario, hashing=replace(scenario.hashing, distinct_seeds=True)),
                          graph=graph)),
            _row("dlb", "DLB on every switch",
                 simulate(inventory, replace(scenario, hashing=replace(
                     scenario.hashing, default=replace(default, dlb=True),
                     by_role={role: replace(config, dlb=True) for role, config in scenario.hashing.by_role.items()},
                     by_switch={name: replace(config, dlb=True) for name, config in scenario.hashing.by_switch.items()})),
                          graph=graph))]
    planes = single_choice_planes(inventory)
    label = "dual-plane (single-choice planes)"
    if planes is None:
        rows.append(WhatIfRow(name="dual-plane", label=label, bottleneck_p50=None, bottleneck_p95=None,
                              polarization=None, idle_links=None, links=None,
                              skipped="not applicable: no spine chooses among super-spines (after the first hop "
                                      "there is already one way up)"))
    else:
        rows.append(_row("dual-plane", label, simulate(planes, scenario)))
    return rows


def link_loads(prediction: Prediction, graph: FabricGraph) -> dict[str, list[dict]]:
    """Per tier (in the prediction's order): every usable link's mean and worst flows and load / the fluid max
    (1.0 = the load every link of the worst tier would carry under perfect balancing), busiest first."""
    ratio = prediction.link_bytes / graph.gbps[None, :] / prediction.ideal_utilisation
    mean, worst = ratio.mean(axis=0), ratio.max(axis=0)
    flows_mean, flows_max = prediction.link_flows.mean(axis=0), prediction.link_flows.max(axis=0)
    usable = prediction.usable_links
    result: dict[str, list[dict]] = {}
    for tier in prediction.tiers:
        code = graph.tier_names.index(tier.tier)
        links = np.flatnonzero((graph.link_tier == code) & usable)
        links = links[np.lexsort((links, -mean[links]))]
        result[tier.tier] = [{"link": graph.label(int(link)), "mean_load": float(mean[link]),
                              "max_load": float(worst[link]), "mean_flows": float(flows_mean[link]),
                              "max_flows": int(flows_max[link])} for link in links]
    return result
