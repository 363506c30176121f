"""N-1 what-ifs: fail every single spine and every single established fabric link, one at a time, and recompute
VTEP reachability, the minimum ECMP width over all leaf pairs and the capacity lost (pybatfish-style forks of
the model with one node or link deactivated).

Two engines give the same answers (tests compare them):

* leaf-spine fabrics use the class algebra of :mod:`validators.ecmp`: a spine failure clears one bit in every
  leaf signature (recompute the few class pairs); a link failure only changes the pairs involving its leaf, and
  every leaf of a class losing a link to the same spine has the same outcome, so the 65,536 link failures of a
  64 x 1,024 fabric cost one computation per (class, spine) plus a lookup each. Pairs left without a
  leaf-spine-leaf path are re-checked exactly with :func:`validators.routing.propagate`.
* every other fabric (or ``engine="exact"``) re-runs :func:`validators.routing.propagate` for every VTEP
  origin in every scenario: exact, but O(scenarios x leaves x sessions), so it is capped.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from compiler.model import Role
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.leaf_pairs import LeafPairMatrix, pair_width
from validators.routing import propagate
from validators.subjects import Subject

CHECK = "whatif.n_minus_1"
CHECK_N2 = "whatif.n_minus_2"
SPINE_PAIR = "spine-pair"
EXACT_WORK_LIMIT = 30_000_000  # scenarios x origins x sessions the exact engine may take on
INDIVIDUAL_FINDINGS = 20


@dataclass(frozen=True, slots=True)
class Scenario:
    kind: str  # "spine" | "link" | "spine-pair" (N-2)
    subject: str  # "spine3" or "leaf7:Ethernet61/1<->spine1:Ethernet7/1"
    min_ecmp: int  # smallest ECMP width over every ordered leaf pair (0: some pair unreachable)
    unreachable_pairs: int
    worst_pair: str  # "leafA->leafB" with the smallest width
    capacity_lost_gbps: float
    capacity_lost_fraction: float  # of all established leaf-spine capacity

    def as_dict(self) -> dict:
        return {"kind": self.kind, "subject": self.subject, "min_ecmp": self.min_ecmp,
                "unreachable_pairs": self.unreachable_pairs, "worst_pair": self.worst_pair,
                "capacity_lost_gbps": self.capacity_lost_gbps,
                "capacity_lost_fraction": round(self.capacity_lost_fraction, 6)}


@dataclass
class WhatIfResult:
    engine: str
    baseline_min_ecmp: int
    baseline_unreachable: int
    scenarios: list[Scenario]
    skipped_reason: str = ""

    def single(self) -> list[Scenario]:
        return [s for s in self.scenarios if s.kind != SPINE_PAIR]

    def double(self) -> list[Scenario]:
        return [s for s in self.scenarios if s.kind == SPINE_PAIR]

    def breaking(self, scenarios: list[Scenario] | None = None) -> list[Scenario]:
        scenarios = self.single() if scenarios is None else scenarios
        return [s for s in scenarios if s.unreachable_pairs > self.baseline_unreachable]

    def worst(self, scenarios: list[Scenario] | None = None) -> Scenario | None:
        scenarios = self.single() if scenarios is None else scenarios
        if not scenarios:
            return None
        return min(scenarios, key=lambda s: (-s.unreachable_pairs, s.min_ecmp, -s.capacity_lost_gbps))


def _speeds(ctx, model) -> dict[tuple, float]:
    """Session (a, a_interface, b, b_interface) -> link speed in Gb/s (from a's interface)."""
    speeds = {}
    for session in model.sessions:
        interface = ctx.interface_index.get((model.names[session[0]], session[1])) or {}
        speeds[session] = float(interface.get("speed_gbps") or 0)
    return speeds


def _failures(ctx, model, spine_pairs: bool = False):
    """(kind, subject, dead device indices, dead (device, interface) ends, capacity lost Gb/s)."""
    speeds = _speeds(ctx, model)
    lost_with: dict[int, float] = {}
    for (a, _a_interface, b, _b_interface), speed in speeds.items():
        lost_with[a] = lost_with.get(a, 0.0) + speed
        lost_with[b] = lost_with.get(b, 0.0) + speed
    for spine in (device for device, role in enumerate(model.role) if role == Role.SPINE):
        yield "spine", model.names[spine], frozenset({spine}), frozenset(), lost_with.get(spine, 0.0)
    for session, speed in speeds.items():
        a, a_interface, b, b_interface = session
        subject = str(Subject.link(model.names[a], a_interface, model.names[b], b_interface))
        yield "link", subject, frozenset(), frozenset({(a, a_interface), (b, b_interface)}), speed
    if spine_pairs:
        spines = [device for device, role in enumerate(model.role) if role == Role.SPINE]
        for first, second in combinations(spines, 2):
            yield (SPINE_PAIR, f"{model.names[first]}+{model.names[second]}", frozenset({first, second}), frozenset(),
                   lost_with.get(first, 0.0) + lost_with.get(second, 0.0)
                   - sum(speed for (a, _ai, b, _bi), speed in speeds.items() if {a, b} == {first, second}))


# ---------------------------------------------------------------------------------------------- exact engine


def _outcome_exact(matrix: LeafPairMatrix, dead_devices, dead_ends) -> tuple[int, int, str]:
    model = matrix.model
    minimum, unreachable, worst = None, 0, ""
    for origin_position, origin in enumerate(matrix.leaf_devices):
        advertises = model.vtep_prefix[origin] in model.networks[origin]
        routes = propagate(model, origin, dead_devices, dead_ends) if advertises else {}
        for receiver_position, receiver in enumerate(matrix.leaf_devices):
            if receiver == origin or receiver in dead_devices:
                continue
            if model.vtep_prefix[receiver] is not None and model.vtep_prefix[receiver] == model.vtep_prefix[origin]:
                continue  # MLAG peers sharing one anycast VTEP are one VTEP: nothing to reach (as reachability)
            route = routes.get(receiver)
            width = len(route[1]) if route else 0
            if width == 0:
                unreachable += 1
            if minimum is None or width < minimum:
                minimum = width
                worst = f"{matrix.leaves[receiver_position]}->{matrix.leaves[origin_position]}"
    return minimum or 0, unreachable, worst


def _run_exact(ctx, matrix: LeafPairMatrix, spine_pairs: bool = False) -> WhatIfResult:
    model = matrix.model
    baseline_min, baseline_unreachable, _ = _outcome_exact(matrix, frozenset(), frozenset())
    total = sum(_speeds(ctx, model).values()) or 1.0
    scenarios = []
    for kind, subject, dead_devices, dead_ends, lost in _failures(ctx, model, spine_pairs):
        minimum, unreachable, worst = _outcome_exact(matrix, dead_devices, dead_ends)
        scenarios.append(Scenario(kind, subject, minimum, unreachable, worst, lost, lost / total))
    return WhatIfResult("exact", baseline_min, baseline_unreachable, scenarios)


# ---------------------------------------------------------------------------------------------- fast engine


class _Fast:
    """Class-pair arithmetic over a leaf-spine :class:`LeafPairMatrix`."""

    def __init__(self, matrix: LeafPairMatrix) -> None:
        self.matrix = matrix
        self.tier = matrix.tier
        self.sizes = [len(members) for members in matrix.members]
        self.cache: dict = {}

    def width(self, origin_signature, receiver_signature) -> int:
        key = (origin_signature, receiver_signature)
        value = self.cache.get(key)
        if value is None:
            value = self.cache[key] = pair_width(origin_signature, receiver_signature, self.tier)[0]
        return value

    def all_pairs(self, signatures, skip_class=None) -> tuple[int | None, int, tuple[int, int] | None]:
        """min width, unreachable count, worst (origin class, receiver class) over every class pair."""
        minimum: int | None = None
        unreachable = 0
        worst: tuple[int, int] | None = None
        for origin_class, origin_signature in enumerate(signatures):
            for receiver_class, receiver_signature in enumerate(signatures):
                count = self._count(origin_class, receiver_class, skip_class)
                if not count:
                    continue
                width = self.width(origin_signature, receiver_signature)
                if width == 0:
                    unreachable += count
                if minimum is None or width < minimum:
                    minimum, worst = width, (origin_class, receiver_class)
        return minimum, unreachable, worst

    def _count(self, origin_class, receiver_class, skip_class=None) -> int:
        """Ordered leaf pairs between two classes, optionally with one member of ``skip_class`` removed."""
        origin_size = self.sizes[origin_class] - (origin_class == skip_class)
        receiver_size = self.sizes[receiver_class] - (receiver_class == skip_class)
        if origin_class == receiver_class:
            return origin_size * (receiver_size - 1) if origin_size > 0 else 0
        return origin_size * receiver_size

    def name_pair(self, origin_class, receiver_class, exclude=None) -> str:
        matrix = self.matrix
        for origin, receiver in matrix.pairs_in(origin_class, receiver_class):
            if exclude not in (origin, receiver):
                return f"{matrix.leaves[receiver]}->{matrix.leaves[origin]}"
        return ""


def _run_fast(ctx, matrix: LeafPairMatrix, spine_pairs: bool = False) -> WhatIfResult:
    model, tier = matrix.model, matrix.tier
    assert tier is not None  # the fast engine runs in leaf-spine mode only, which always has a spine tier
    fast = _Fast(matrix)
    signatures = matrix.signatures
    baseline_min, baseline_unreachable, _worst = fast.all_pairs(signatures)
    speeds = _speeds(ctx, model)
    total = sum(speeds.values()) or 1.0
    leaf_position = matrix.leaf_position
    scenarios: list[Scenario] = []
    exact_needed = tier.long_paths_possible

    # Spine failures: one bit fewer everywhere.
    spine_capacity = [0.0] * len(tier.devices)
    for (a, _a_interface, b, _b_interface), speed in speeds.items():
        spine_capacity[tier.position[b] if b in tier.position else tier.position[a]] += speed
    for position, spine in enumerate(tier.devices):
        reduced = [signature.without_spine(position) for signature in signatures]
        minimum, unreachable, worst = fast.all_pairs(reduced)
        worst_name = fast.name_pair(*worst) if worst else ""
        if exact_needed and unreachable:
            minimum, unreachable, worst_name = _outcome_exact(matrix, frozenset({spine}), frozenset())
        lost = spine_capacity[position]
        scenarios.append(Scenario("spine", model.names[spine], minimum or 0, unreachable, worst_name, lost,
                                  lost / total))

    # Link failures: only pairs involving the link's leaf change; pairs without it keep the baseline.
    excluded: dict[int, tuple[int | None, int, tuple[int, int] | None]] = {}
    outcome_cache: dict[tuple[int, int], tuple] = {}
    classes = range(len(signatures))
    for session, lost in speeds.items():
        a, a_interface, b, b_interface = session
        leaf, spine = (a, b) if b in tier.position else (b, a)
        position = tier.position[spine]
        leaf_index = leaf_position[leaf]
        leaf_class = matrix.class_of[leaf_index]
        if leaf_class not in excluded:
            excluded[leaf_class] = fast.all_pairs(signatures, skip_class=leaf_class)
        key = (leaf_class, position)
        if key not in outcome_cache:
            changed = signatures[leaf_class].without_session(position)
            minimum, unreachable = None, 0
            worst_link: tuple[int, str] | None = None  # (other class, direction) of the narrowest pair
            for other in classes:
                count = fast.sizes[other] - (other == leaf_class)
                if not count:
                    continue
                for width, direction in ((fast.width(changed, signatures[other]), "to"),
                                         (fast.width(signatures[other], changed), "from")):
                    if width == 0:
                        unreachable += count
                    if minimum is None or width < minimum:
                        minimum, worst_link = width, (other, direction)
            outcome_cache[key] = (minimum, unreachable, worst_link)
        minimum, unreachable, worst_link = outcome_cache[key]
        rest_min, rest_unreachable, rest_worst = excluded[leaf_class]
        worst_name = ""
        if worst_link is not None:
            other, direction = worst_link
            other_leaf = next(m for m in matrix.members[other] if m != leaf_index)
            pair = (matrix.leaves[other_leaf], matrix.leaves[leaf_index])
            worst_name = f"{pair[0]}->{pair[1]}" if direction == "to" else f"{pair[1]}->{pair[0]}"
        if rest_min is not None and rest_worst is not None and (minimum is None or rest_min < minimum):
            minimum, worst_name = rest_min, fast.name_pair(*rest_worst, exclude=leaf_index)
        unreachable += rest_unreachable
        dead_ends = frozenset({(a, a_interface), (b, b_interface)})
        if exact_needed and unreachable:
            minimum, unreachable, worst_name = _outcome_exact(matrix, frozenset(), dead_ends)
        scenarios.append(Scenario("link", str(Subject.link(model.names[a], a_interface, model.names[b], b_interface)),
                                  minimum or 0, unreachable, worst_name, lost, lost / total))
    if spine_pairs:  # N-2: every pair of spines (a link failure pair would be 2 billion scenarios at 64x1024)
        for first, second in combinations(range(len(tier.devices)), 2):
            reduced = [signature.without_spine(first).without_spine(second) for signature in signatures]
            minimum, unreachable, worst = fast.all_pairs(reduced)
            worst_name = fast.name_pair(*worst) if worst else ""
            dead = frozenset({tier.devices[first], tier.devices[second]})
            if exact_needed and unreachable:
                minimum, unreachable, worst_name = _outcome_exact(matrix, dead, frozenset())
            lost = spine_capacity[first] + spine_capacity[second]
            scenarios.append(Scenario(SPINE_PAIR, f"{tier.names[first]}+{tier.names[second]}", minimum or 0,
                                      unreachable, worst_name, lost, lost / total))
    if exact_needed and baseline_unreachable:
        baseline_min, baseline_unreachable, _ = _outcome_exact(matrix, frozenset(), frozenset())
    return WhatIfResult("leaf-spine", baseline_min or 0, baseline_unreachable, scenarios)


def run_whatif(fabric, engine: str = "auto", spine_pairs: bool = False) -> WhatIfResult:
    """Every N-1 scenario (plus every pair of spines with ``spine_pairs``: N-2).

    ``engine``: auto (fast on leaf-spine fabrics), exact (always propagate)."""
    ctx = as_context(fabric)
    matrix = ctx.leaf_pairs
    if not matrix.leaf_devices:
        return WhatIfResult(engine, 0, 0, [], skipped_reason="no VTEP leaves")
    if engine == "auto" and matrix.mode == "leaf-spine":
        return _run_fast(ctx, matrix, spine_pairs)
    if engine == "auto" and matrix.mode == "five-stage":
        return WhatIfResult(engine, 0, 0, [], skipped_reason=(
            "five-stage Clos: every super-spine, pod spine and link failure is clos5.n_minus_1 (validators/clos5.py)"))
    model = matrix.model
    spines = len(model.core())
    scenarios = len(model.sessions) + spines + (spines * (spines - 1) // 2 if spine_pairs else 0)
    work = scenarios * len(matrix.leaf_devices) * max(len(model.sessions), 1)
    if work > EXACT_WORK_LIMIT:
        return WhatIfResult("exact", 0, 0, [], skipped_reason=(
            f"exact N-1 on a {matrix.mode} fabric would take {work:,} steps (limit {EXACT_WORK_LIMIT:,})"))
    return _run_exact(ctx, matrix, spine_pairs)


def check_whatif(fabric, result: WhatIfResult | None = None) -> list[Finding]:
    result = result or run_whatif(fabric)
    as_context(fabric).record_examined(CHECK, {"failure scenarios": len(result.single())})
    findings: list[Finding] = []
    breaking = result.breaking()
    for scenario in breaking[:INDIVIDUAL_FINDINGS]:
        findings.append(Finding(
            check=CHECK, severity=Severity.ERROR, subject=scenario.subject, expected=result.baseline_unreachable,
            actual=scenario.unreachable_pairs,
            message=f"losing {scenario.kind} {scenario.subject} leaves {scenario.unreachable_pairs - result.baseline_unreachable}"
            f" more leaf pair(s) without a route (e.g. {scenario.worst_pair})"))
    if len(breaking) > INDIVIDUAL_FINDINGS:
        findings.append(Finding(
            check=CHECK, severity=Severity.ERROR, subject="fabric", expected=0, actual=len(breaking),
            message=f"{len(breaking)} single failures break VTEP reachability in total"))
    worst = result.worst()
    if worst is not None:
        findings.append(Finding(
            check=CHECK, severity=Severity.INFO, subject=worst.subject, expected=result.baseline_min_ecmp,
            actual=worst.min_ecmp,
            message=f"worst single failure of {len(result.single())} ({result.engine} engine): {worst.kind} {worst.subject} "
            f"-> minimum ECMP {worst.min_ecmp} (baseline {result.baseline_min_ecmp}) at {worst.worst_pair}, "
            f"{worst.capacity_lost_gbps:g} Gb/s = {worst.capacity_lost_fraction:.2%} of leaf-spine capacity lost"))
    return findings


def check_whatif_n2(fabric, result: WhatIfResult | None = None) -> list[Finding]:
    """N-2 over spine pairs: losing reachability there is a warning (surviving two failures is a design choice)."""
    result = result or run_whatif(fabric, spine_pairs=True)
    pairs = result.double()
    as_context(fabric).record_examined(CHECK_N2, {"spine pairs": len(pairs)})
    findings = [Finding(
        check=CHECK_N2, severity=Severity.WARNING, subject=s.subject, expected=result.baseline_unreachable,
        actual=s.unreachable_pairs, message=f"losing spines {s.subject} together leaves "
        f"{s.unreachable_pairs - result.baseline_unreachable} more leaf pair(s) without a route "
        f"(e.g. {s.worst_pair})") for s in result.breaking(pairs)[:INDIVIDUAL_FINDINGS]]
    worst = result.worst(pairs)
    if worst is not None:
        findings.append(Finding(
            check=CHECK_N2, severity=Severity.INFO, subject=worst.subject, expected=result.baseline_min_ecmp,
            actual=worst.min_ecmp,
            message=f"worst spine pair of {len(pairs)}: {worst.subject} -> minimum ECMP {worst.min_ecmp} at "
            f"{worst.worst_pair}, {worst.capacity_lost_fraction:.2%} of leaf-spine capacity lost"))
    return findings
