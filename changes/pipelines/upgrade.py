"""Rolling hitless upgrade: plan waves that keep every leaf pair connected, then drain/upgrade/undrain per wave.

Planning (pure, at rollout creation, so what an admin approves is exactly what runs):
- a wave never drains more spines than ``max_spines_drained`` nor both members of a redundant pair;
- the static N-1 what-if: with the wave's devices removed from the cabling graph, every pair of remaining
  leaves still has ECMP >= 1 (equal-cost next hops on shortest paths, parallel links counted).
Execution per wave: drain every device, verify the traffic moved away (no neighbour still forwards transit
traffic through it), install + reboot, verify health (sessions back, routes, new version), undrain, verify the
fabric. Any failure aborts and HOLDS: devices stay drained for an operator, the rollout ends failed.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Iterable

from compiler.errors import DriverError, FabricTwinError, FieldError, InputError

from ..choices import RolloutStateChoices, StepPhaseChoices, StepResultChoices
from ..errors import CheckFailed, RolloutStopped
from .checks import fabric_checks

Phase = StepPhaseChoices
Result = StepResultChoices
LEAF_ROLES = frozenset({"leaf", "border"})
SPINE_ROLES = frozenset({"spine", "super-spine"})
ROLE_ORDER = {"super-spine": 0, "spine": 1, "border": 2, "leaf": 3}


# --------------------------------------------------------------------------------------------- planning (pure)


def _adjacency(links: Iterable[tuple[str, str]]) -> dict[str, dict[str, int]]:
    graph: dict[str, dict[str, int]] = {}
    for a, b in links:
        graph.setdefault(a, {})[b] = graph.setdefault(a, {}).get(b, 0) + 1
        graph.setdefault(b, {})[a] = graph.setdefault(b, {}).get(a, 0) + 1
    return graph


def _distances(graph: dict[str, dict[str, int]], source: str, removed: set[str]) -> dict[str, int]:
    distance = {source: 0}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for neighbour in graph.get(node, {}):
            if neighbour not in distance and neighbour not in removed:
                distance[neighbour] = distance[node] + 1
                queue.append(neighbour)
    return distance


class FabricGraph:
    """The cabling graph for N-1 what-ifs, built once per plan. Leaves with identical cabling (same neighbours,
    same link counts) are equivalent, so one representative per class is checked: a regular Clos of 1,000 leaves
    has a handful of classes. Two-tier fabrics (leaves only cabled to spines) use the direct formula, every
    other shape a BFS per destination class."""

    def __init__(self, roles: dict[str, str], links: Iterable[tuple[str, str]]):
        self.roles = roles
        self.graph = _adjacency(links)
        leaves = sorted(name for name, role in roles.items() if role in LEAF_ROLES)
        self.classes: dict[tuple, list[str]] = {}
        for leaf in leaves:
            self.classes.setdefault(tuple(sorted(self.graph.get(leaf, {}).items())), []).append(leaf)
        # Two-tier: leaves are cabled only to spines and those spines only to leaves (no super-spine layer), so
        # every leaf-to-leaf shortest path is leaf-spine-leaf.
        uplinks = {neighbour for leaf in leaves for neighbour in self.graph.get(leaf, {})}
        self.two_tier = all(roles.get(spine) in SPINE_ROLES and all(roles.get(n) in LEAF_ROLES for n in self.graph[spine])
                            for spine in uplinks)

    def min_leaf_pair_ecmp(self, removed: Iterable[str]) -> tuple[int, tuple[str, str] | None, int]:
        """(smallest ECMP width over leaf pairs, the worst pair, class pairs checked) with ``removed`` drained.
        Pairs involving a removed leaf are not counted: its own single-homed hosts are down whatever the plan."""
        removed = set(removed)
        classes = [[leaf for leaf in members if leaf not in removed] for members in self.classes.values()]
        classes = [members for members in classes if members]
        worst, worst_pair, checked = None, None, 0
        for index, destination_class in enumerate(classes):
            destination = destination_class[0]
            sources = [members[0] for members in classes[index + 1:]]
            if len(destination_class) > 1:
                sources.append(destination_class[1])
            distance = None if self.two_tier else _distances(self.graph, destination, removed)
            for source in sources:
                checked += 1
                if self.two_tier:
                    targets = self.graph[destination]
                    width = sum(count for spine, count in self.graph[source].items()
                                if spine not in removed and spine in targets)
                elif source not in distance:
                    width = 0
                else:
                    width = sum(count for neighbour, count in self.graph[source].items()
                                if neighbour not in removed and distance.get(neighbour) == distance[source] - 1)
                if worst is None or width < worst:
                    worst, worst_pair = width, (source, destination)
        return (worst if worst is not None else 1), worst_pair, checked


def plan_upgrade(*, roles: dict[str, str], links: list[tuple[str, str]], devices: list[str] | None = None,
                 max_spines_drained: int = 1, wave_size: int = 1,
                 redundant_pairs: list[tuple[str, str]] | None = None,
                 max_spine_fraction: float | None = None) -> dict:
    """Greedy waves: each device joins the first wave where every constraint and the what-if still hold.
    ``max_spine_fraction`` (0-1] also caps drained spines at that share of all spines (at least one)."""
    spine_count = sum(role in SPINE_ROLES for role in roles.values())
    if max_spine_fraction is not None:
        max_spines_drained = min(max_spines_drained, max(1, math.floor(max_spine_fraction * spine_count)))
    devices = list(devices or [name for name, role in roles.items() if role in SPINE_ROLES])
    unknown = [device for device in devices if device not in roles]
    if unknown:
        raise InputError(FieldError("policy.devices", unknown, "not devices of this fabric"))
    if not devices:
        raise InputError(FieldError("policy.devices", devices, "nothing to upgrade"))
    partner: dict[str, set[str]] = {}
    for a, b in redundant_pairs or []:
        partner.setdefault(a, set()).add(b)
        partner.setdefault(b, set()).add(a)
    devices.sort(key=lambda name: (ROLE_ORDER.get(roles[name], 9), name))
    fabric_graph = FabricGraph(roles, links)
    waves: list[list[str]] = []
    whatif: list[dict] = []

    def fits(wave: list[str], device: str) -> tuple[bool, int, tuple | None]:
        if len(wave) >= wave_size:
            return False, 0, None
        if roles[device] in SPINE_ROLES and sum(roles[m] in SPINE_ROLES for m in wave) >= max_spines_drained:
            return False, 0, None
        if partner.get(device, set()) & set(wave):
            return False, 0, None
        width, pair, _ = fabric_graph.min_leaf_pair_ecmp(wave + [device])
        return width >= 1, width, pair

    for device in devices:
        for wave in waves:
            ok, _, _ = fits(wave, device)
            if ok:
                wave.append(device)
                break
        else:
            width, pair, _ = fabric_graph.min_leaf_pair_ecmp([device])
            if width < 1:
                raise InputError(FieldError(
                    "policy.devices", device, f"draining it alone leaves leaf pair {pair[0]}-{pair[1]} without any "
                    "path (ECMP 0): it cannot be upgraded hitlessly"))
            waves.append([device])
    for index, wave in enumerate(waves, start=1):
        width, pair, checked = fabric_graph.min_leaf_pair_ecmp(wave)
        whatif.append({"wave": index, "devices": wave, "min_leaf_pair_ecmp": width,
                       "worst_pair": list(pair) if pair else None, "leaf_classes_pairs_checked": checked})
    return {"waves": waves, "whatif": whatif, "max_spines_drained": max_spines_drained}


# --------------------------------------------------------------------------------------------- execution


class UpgradePipeline:
    def __init__(self, context):
        self.ctx = context
        self.rollout = context.rollout
        self.version = self.rollout.policy["target_version"]
        self.timeout_s = float(self.rollout.policy.get("converge_timeout_s", 60))

    def run(self) -> None:
        waves = self.rollout.plan.get("waves", [])
        for index, wave in enumerate(waves, start=1):
            try:
                for device in wave:
                    self.drain(index, device)
                for device in wave:
                    self.verify_drained(index, device)
                for device in wave:
                    self.upgrade(index, device)
                for device in wave:
                    self.verify_health(index, device)
                for device in wave:
                    self.undrain(index, device)
                self.verify_fabric(index, wave)
            except RolloutStopped:
                raise  # paused or cancelled at a step boundary: resumable, nothing to undo
            except Exception as exc:  # any failure aborts and holds, bugs included
                held = [device for device in self.planned() if self.is_held(device)]
                self.ctx.finish(RolloutStateChoices.FAILED, error=f"wave {index} ({', '.join(wave)}): {exc}; "
                                f"holding, drained devices left for an operator: {held or 'none'}",
                                held=held, outcome=self.outcomes())
                return
        self.ctx.finish(RolloutStateChoices.SUCCEEDED, outcome=self.outcomes())

    def planned(self) -> list[str]:
        return [device for wave in self.rollout.plan.get("waves", []) for device in wave]

    def is_held(self, device: str) -> bool:
        try:
            return self.ctx.driver(device).is_drained()
        except (DriverError, FabricTwinError):
            return True  # unknown: treat as held

    def drain(self, wave: int, device: str) -> None:
        if self.ctx.completed(Phase.DRAIN, device, wave):
            return
        with self.ctx.step(Phase.DRAIN, device, wave) as step:
            driver = self.ctx.driver(device)
            if driver.is_drained():
                step.result, step.output = Result.SKIPPED, "already drained"
                return
            driver.drain()
            step.output = "drained"

    def verify_drained(self, wave: int, device: str) -> None:
        """Traffic moved away: no neighbour forwards transit traffic through the device any more."""
        if self.rollout.steps.filter(phase=Phase.VERIFY, device=device, wave=wave, result=Result.OK,
                                     detail__tag="drained").exists():
            return
        with self.ctx.step(Phase.VERIFY, device, wave) as step:
            driver = self.ctx.driver(device)
            started = time.monotonic()
            deadline = started + self.timeout_s
            while True:
                remaining = driver.transit_routes_via_me()
                if remaining is None:
                    if not driver.is_drained():
                        raise CheckFailed(f"{device}: drain did not take effect")
                    step.output = "device reports it is drained (traffic shift not measurable from here)"
                    break
                if remaining == 0:
                    step.output = f"traffic moved away in {time.monotonic() - started:.1f}s (0 transit routes via it)"
                    break
                if time.monotonic() > deadline:
                    raise CheckFailed(f"{device}: {remaining} neighbour routes still forward through it after "
                                      f"{self.timeout_s:.0f}s")
                self.ctx.checkpoint()
                time.sleep(0.5)
            step.detail = {"tag": "drained", "seconds": round(time.monotonic() - started, 2)}

    def upgrade(self, wave: int, device: str) -> None:
        if self.ctx.completed(Phase.UPGRADE, device, wave):
            return
        with self.ctx.step(Phase.UPGRADE, device, wave) as step:
            driver = self.ctx.driver(device)
            if driver.health().version == self.version:
                step.result, step.output = Result.SKIPPED, f"already runs {self.version}"
                return
            started = time.monotonic()
            driver.install_image(self.version)
            driver.reboot()
            step.output = f"installed {self.version} and restarted in {time.monotonic() - started:.1f}s"

    def verify_health(self, wave: int, device: str) -> None:
        if self.rollout.steps.filter(phase=Phase.VERIFY, device=device, wave=wave, result=Result.OK,
                                     detail__tag="healthy").exists():
            return
        with self.ctx.step(Phase.VERIFY, device, wave) as step:
            driver = self.ctx.driver(device)
            started = time.monotonic()
            deadline = started + self.timeout_s
            while True:
                health = driver.health()
                if health.all_established and health.routes > 0 and health.version == self.version:
                    break
                if time.monotonic() > deadline:
                    raise CheckFailed(f"{device} after upgrade: {health.bgp_established}/{health.bgp_total} sessions, "
                                      f"{health.routes} routes, version {health.version!r} (want {self.version!r})")
                self.ctx.checkpoint()
                time.sleep(0.5)
            step.output = (f"healthy after {time.monotonic() - started:.1f}s: {health.bgp_established}/"
                           f"{health.bgp_total} sessions, {health.routes} routes, version {health.version}")
            step.detail = {"tag": "healthy", "health": health.as_dict()}

    def undrain(self, wave: int, device: str) -> None:
        if self.ctx.completed(Phase.UNDRAIN, device, wave):
            return
        with self.ctx.step(Phase.UNDRAIN, device, wave) as step:
            driver = self.ctx.driver(device)
            if not driver.is_drained():
                step.result, step.output = Result.SKIPPED, "not drained"
                return
            driver.undrain()
            step.output = "undrained"

    def verify_fabric(self, wave: int, devices: list[str]) -> None:
        if self.rollout.steps.filter(phase=Phase.VERIFY, device="", wave=wave, result=Result.OK).exists():
            return
        with self.ctx.step(Phase.VERIFY, wave=wave) as step:
            report = fabric_checks(self.ctx, title=f"fabric after wave {wave}", devices=devices)
            step.detail = {"report": report.as_dict()}
            step.output = report.as_text()
            if not report.ok:
                step.result = Result.FAILED
        if not report.ok:
            raise CheckFailed(f"fabric checks after wave {wave} failed", report.as_dict())

    def outcomes(self) -> dict:
        out = {}
        for device in self.planned():
            steps = {step.phase: step for step in self.rollout.steps.filter(device=device).order_by("id")}
            upgrade, undrain = steps.get(Phase.UPGRADE), steps.get(Phase.UNDRAIN)
            if undrain is not None and undrain.result in (Result.OK, Result.SKIPPED):
                outcome = "upgraded" if upgrade and upgrade.result == Result.OK else "already_at_version"
            elif upgrade is None:
                outcome = "not_reached" if Phase.DRAIN not in steps else "drained_held"
            else:
                outcome = f"upgrade_{upgrade.result}_held"
            out[device] = {"outcome": outcome, "target_version": self.version}
        return out
