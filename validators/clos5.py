"""Checks of a 5-stage Clos (super-spines over pods): ECMP per tier, valley-free routing, N-1 with per-plane capacity.

* ``clos5.ecmp`` -- ECMP width at every leaf towards every other leaf, intra-pod and inter-pod, against the widths
  the cabling promises (the same class algebra, :mod:`validators.tiers`, over the inventory's links).
* ``clos5.valley_free`` -- the RFC 7938 section 5.2.1 ASN scheme that makes AS_PATH loop prevention drop every
  valley path (one super-spine ASN, one ASN per pod's spines, unique leaf ASNs), and the explicit export policy of
  compiler/structured/valley_free.py on every upward session (leaf -> spine: originated only; spine -> super-spine:
  nothing learned from the core).
* ``clos5.n_minus_1`` -- every super-spine, pod spine, leaf-spine link and spine-super-spine link failed one at a
  time: leaf pairs left without a route (error), the smallest ECMP widths, and the capacity ratio of the affected
  plane (spines of plane k: leaf-facing / super-spine-facing) or pod leaves under that failure ("losing
  superspine3 makes plane 3 2.00:1"), and per rail (the leaves of a pod carrying NIC rail r: server-facing /
  spine-facing) the worst ratio a spine, leaf-spine link or rail-leaf failure leaves ("losing pod1-spine3 makes
  pod 1 rail 2 1.07:1 (was 1.00:1)"; a leaf failure also says how much of its rail's server capacity goes).

Skipped with the reason on fabrics without super-spines (two tiers: routing.ecmp and whatif.* cover them).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace

from compiler.model import Role
from compiler.pods import oversubscription, tier_capacity
from validators.common import CheckSkipped
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.tiers import LEAF_ROLES, SPINE, SUPER_SPINE, TierModel, five_stage_problem

ECMP = "clos5.ecmp"
VALLEY_FREE = "clos5.valley_free"
N_MINUS_1 = "clos5.n_minus_1"
INDIVIDUAL_FINDINGS = 20


def _tiers(ctx) -> TierModel:
    matrix = ctx.leaf_pairs
    if Role.SUPER_SPINE not in ctx.routing.role:
        raise CheckSkipped("no super-spine: a two-tier fabric (routing.ecmp and whatif.* check it)")
    if matrix.tiers is None:
        raise CheckSkipped(f"not routable by tier classes: {five_stage_problem(ctx.routing)} (clos5.valley_free "
                           "says why; routing.vtep_reachability still checks every pair)")
    return matrix.tiers


def _designed(ctx, tiers: TierModel) -> TierModel | None:
    """The class model of the inventory's cabling (every cabled fabric link a session)."""
    if ctx.inventory is None:
        return None
    index, roles = tiers.model.index, tiers.model.role
    leaf_spine: dict[int, Counter] = defaultdict(Counter)
    spine_super: dict[int, Counter] = defaultdict(Counter)
    for cable in ctx.inventory.cables:
        a, b = index.get(cable.a.device), index.get(cable.b.device)
        if a is None or b is None or cable.peer_link:
            continue
        pair = {roles[a], roles[b]}
        if pair == {SPINE, SUPER_SPINE}:
            spine, core = (a, b) if roles[a] == SPINE else (b, a)
            spine_super[spine][core] += 1
        elif SPINE in pair and pair & LEAF_ROLES:
            leaf, spine = (a, b) if roles[b] == SPINE else (b, a)
            leaf_spine[leaf][spine] += 1
    return TierModel(tiers.model, leaf_spine, spine_super)


def _name(tiers: TierModel, class_index: int) -> str:
    members = tiers.members[class_index]
    names = tiers.model.names
    return names[members[0]] if len(members) == 1 else f"({len(members)} leaves: {names[members[0]]}, ...)"


def _by_scope(tiers: TierModel, widths: dict[tuple[int, int], int]) -> dict[str, tuple[int, int]]:
    scopes: dict[str, list[int]] = {"intra-pod": [], "inter-pod": []}
    for (o, r), width in widths.items():
        scopes["intra-pod" if tiers.is_intra_pod(o, r) else "inter-pod"].append(width)
    return {scope: (min(values), max(values)) for scope, values in scopes.items() if values}


def check_ecmp(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    tiers = _tiers(ctx)
    widths = tiers.class_widths()
    ctx.record_examined(ECMP, {"leaf pairs": sum(tiers.pair_count(o, r) for o, r in widths)})
    findings: list[Finding] = []
    designed_model = _designed(ctx, tiers)
    if designed_model is not None:
        designed_class = {leaf: designed_model.class_of[leaf] for leaf in tiers.leaves}
        designed_widths: dict[tuple[int, int], int] = {}
        for (o, r), width in widths.items():
            # every leaf of an actual class pair; the designed model may split it further, so take the worst
            wanted = max(designed_model.width(designed_model.classes[designed_class[origin]],
                                              designed_model.classes[designed_class[receiver]])
                         for origin in tiers.members[o][:1] for receiver in tiers.members[r][:1])
            designed_widths[(o, r)] = wanted
            if width < wanted:
                scope = "intra-pod" if tiers.is_intra_pod(o, r) else "inter-pod"
                findings.append(Finding(
                    check=ECMP, severity=Severity.ERROR, subject=f"{_name(tiers, r)}->{_name(tiers, o)}",
                    expected=wanted, actual=width,
                    message=f"{scope} ECMP width {width}, cabling gives {wanted} "
                            f"({tiers.pair_count(o, r)} leaf pair(s))"))
    summary = _by_scope(tiers, widths)
    findings[INDIVIDUAL_FINDINGS:] = []
    findings.append(Finding(
        check=ECMP, severity=Severity.INFO, subject="fabric", expected=None, actual=summary,
        message="; ".join(f"{scope} ECMP {low}..{high}" for scope, (low, high) in summary.items())
        + f" over {len(tiers.leaves)} leaves in {len(tiers.classes)} classes"))
    return findings


def check_valley_free(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    model = ctx.routing
    roles = model.role
    if SUPER_SPINE not in roles:
        raise CheckSkipped("no super-spine: a two-tier fabric has no valley to fall into")
    ctx.record_examined(VALLEY_FREE, {"devices": len(roles), "sessions": len(model.sessions)})
    findings: list[Finding] = []
    super_asns = Counter(model.asn[d] for d, role in enumerate(roles) if role == SUPER_SPINE)
    core_asn = super_asns.most_common(1)[0][0]
    for device, role in enumerate(roles):
        if role == SUPER_SPINE and model.asn[device] != core_asn:
            findings.append(Finding(
                check=VALLEY_FREE, severity=Severity.ERROR, subject=model.names[device], expected=core_asn,
                actual=model.asn[device], message="super-spines must share one ASN (RFC 7938 section 5.2.1), "
                "else a route can come back up through another super-spine"))
    # a pod = the spines its leaves reach; its spines must share one ASN that no other pod uses
    leaf_spine: dict[int, set[int]] = defaultdict(set)
    for a, _ai, b, _bi in model.sessions:
        if {roles[a], roles[b]} & LEAF_ROLES:
            leaf, spine = (a, b) if roles[a] in LEAF_ROLES else (b, a)
            if roles[spine] == SPINE:
                leaf_spine[leaf].add(spine)
    pods: list[set[int]] = []
    for spines in leaf_spine.values():
        merged = [pod for pod in pods if pod & spines]
        for pod in merged:
            pods.remove(pod)
            spines = spines | pod
        pods.append(set(spines))
    owner: dict[int, int] = {}
    for number, pod in enumerate(pods):
        asns = Counter(model.asn[spine] for spine in pod)
        pod_asn = asns.most_common(1)[0][0]
        for spine in sorted(pod):
            if model.asn[spine] != pod_asn:
                findings.append(Finding(
                    check=VALLEY_FREE, severity=Severity.ERROR, subject=model.names[spine], expected=pod_asn,
                    actual=model.asn[spine], message="the spines of a pod must share one ASN (RFC 7938 section "
                    "5.2.1), else a path can leave the pod through one spine and come back through another"))
        if pod_asn in owner or pod_asn == core_asn:
            findings.append(Finding(
                check=VALLEY_FREE, severity=Severity.ERROR, subject=model.names[min(pod)], expected="a pod ASN of its own",
                actual=pod_asn, message="two pods (or a pod and the core) share an ASN: loop prevention drops the "
                "routes between them"))
        owner[pod_asn] = number
    # explicit export policy on every upward session
    for host, config in ctx.structured.items():
        role = config.get("role")
        upward = {SPINE} if role in LEAF_ROLES else {SUPER_SPINE} if role == SPINE else set()
        if not upward:
            continue
        maps = {m["name"]: m for m in config["bgp"].get("route_maps", [])}
        for neighbor in config["bgp"]["neighbors"]:
            peer = ctx.structured.get(neighbor["peer_device"])
            if peer is None or peer.get("role") not in upward:
                continue
            policy = maps.get(neighbor.get("route_map_out") or "")
            problem = _policy_problem(policy, role, core_asn)
            if problem:
                findings.append(Finding(
                    check=VALLEY_FREE, severity=Severity.ERROR, subject=f"{host}->{neighbor['peer_device']}",
                    expected="valley-free export policy", actual=neighbor.get("route_map_out"), message=problem))
    return findings[:INDIVIDUAL_FINDINGS] + (
        [Finding(check=VALLEY_FREE, severity=Severity.ERROR, subject="fabric", expected=0, actual=len(findings),
                 message=f"{len(findings)} valley-free problems in total")] if len(findings) > INDIVIDUAL_FINDINGS else [])


def _policy_problem(policy, role: str, core_asn: int) -> str | None:
    if policy is None:
        return "no export policy towards the tier above: a route learned from above could be sent back up"
    entries = sorted(policy["entries"], key=lambda entry: entry["seq"])
    if role in LEAF_ROLES:
        if [(e["action"], e["as_path"]) for e in entries] != [("permit", "^$")]:
            return f"leaf export policy {policy['name']} must permit only originated routes (AS path ^$)"
        return None
    if not entries or (entries[0]["action"], entries[0]["as_path"]) != ("deny", f"_{core_asn}_"):
        return f"spine export policy {policy['name']} must first deny paths through the core ASN {core_asn}"
    return None


# ------------------------------------------------------------------------------------------------- N-1


def _capacities(ctx):
    """Cabled capacity from the inventory (compiler.pods.tier_capacity) and each spine's / super-spine's plane."""
    inventory = ctx.inventory
    plane_of = {s.hostname: s.plane for s in inventory.switches if s.role in (SPINE, SUPER_SPINE)}
    return tier_capacity(inventory), plane_of


class _RailCapacity:
    """Per (pod, rail): the server-facing and spine-facing Gb/s of the leaves carrying that NIC rail, and what a
    failure takes away from it ("losing pod1-spine3 makes pod 1 rail 2 1.07:1 (was 1.00:1)")."""

    def __init__(self, ctx, capacity) -> None:
        switches = ctx.inventory.switches_by_name
        self.capacity = capacity
        self.rail_key = {leaf: (switches[leaf].pod, rail) for leaf, rail in capacity.rail_of.items()}
        self.totals: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
        for leaf, key in self.rail_key.items():
            self.totals[key][0] += capacity.down[leaf]
            self.totals[key][1] += capacity.up[leaf]
        self.leaves_under: dict[str, list[tuple[str, float]]] = defaultdict(list)  # spine -> (leaf, Gb/s)
        for (lower, upper), speed in capacity.link.items():
            if lower in self.rail_key:
                self.leaves_under[upper].append((lower, speed))

    def text(self, key: tuple[int, int], lost_down: float, lost_up: float) -> tuple[float, str]:
        down, up = self.totals[key]
        pod, rail = key
        return (oversubscription(down - lost_down, up - lost_up),
                f"pod {pod} rail {rail} {_ratio(down - lost_down, up - lost_up)} (was {_ratio(down, up)})")

    def spine_lost(self, spine: str) -> tuple[float, str] | None:
        """The worst rail of the spine's pod once the spine's links are gone."""
        lost: dict[tuple[int, int], float] = defaultdict(float)
        for leaf, speed in self.leaves_under.get(spine, ()):
            lost[self.rail_key[leaf]] += speed
        worst = None
        for key in sorted(lost):  # ties: the lowest pod and rail
            found = self.text(key, 0.0, lost[key])
            if worst is None or found[0] > worst[0]:
                worst = found
        return worst

    def link_lost(self, leaf: str, spine: str, links: int) -> tuple[float, str] | None:
        key = self.rail_key.get(leaf)
        return None if key is None else self.text(key, 0.0, self.capacity.link[(leaf, spine)] / max(links, 1))

    def leaf_lost(self, leaf: str) -> tuple[float, str]:
        """A rail leaf down: its servers lose that rail; the rest of the rail keeps its ratio."""
        key = self.rail_key[leaf]
        ratio, text = self.text(key, self.capacity.down[leaf], self.capacity.up[leaf])
        share = self.capacity.down[leaf] / self.totals[key][0] if self.totals[key][0] else 0.0
        return ratio, f"{text}, {share:.1%} of its server-facing capacity gone"


def _ratio(down: float, up: float) -> str:
    return f"{down / up:.2f}:1" if up else "no uplink"


def check_n_minus_1(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    tiers = _tiers(ctx)
    model = tiers.model
    names, roles = model.names, model.role
    baseline = tiers.class_widths()
    leaf_pairs = sum(tiers.pair_count(o, r) for o, r in baseline)
    base_unreachable = sum(tiers.pair_count(o, r) for (o, r), w in baseline.items() if w == 0)
    plane_totals: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])
    capacity, rails = None, None
    lost_by_core: dict[str, float] = defaultdict(float)  # super-spine -> the spine-facing Gb/s it takes down
    if ctx.inventory is not None:
        capacity, plane_of = _capacities(ctx)
        rails = _RailCapacity(ctx, capacity)
        for switch in ctx.inventory.switches:
            if switch.role == SPINE:
                plane_totals[switch.plane][0] += capacity.down[switch.hostname]
                plane_totals[switch.plane][1] += capacity.up[switch.hostname]
        cores = {switch.hostname for switch in ctx.inventory.switches if switch.role == SUPER_SPINE}
        for (_spine, upper), speed in capacity.link.items():
            if upper in cores:
                lost_by_core[upper] += speed
    results: list[tuple[str, str, int, int, str]] = []  # kind, subject, unreachable pairs, min width, capacity
    worst_rail: dict[str, tuple[float, str, str]] = {}  # failure kind -> (ratio, subject, text): the worst rail

    def note_rail(kind: str, subject: str, found: tuple[float, str] | None) -> str:
        if found is None:
            return ""
        if kind not in worst_rail or found[0] > worst_rail[kind][0]:
            worst_rail[kind] = (found[0], subject, found[1])
        return found[1]

    def outcome(widths: dict[tuple[int, int], int], model_: TierModel) -> tuple[int, int]:
        unreachable = sum(model_.pair_count(o, r) for (o, r), w in widths.items() if w == 0)
        return unreachable, min(widths.values()) if widths else 0

    def plane_text(plane: int, lost_down: float, lost_up: float) -> str:
        if capacity is None:
            return ""
        total_down, total_up = plane_totals[plane]
        return (f"plane {plane + 1} {_ratio(total_down - lost_down, total_up - lost_up)} "
                f"(was {_ratio(total_down, total_up)})")

    leaf_spine, spine_super = tiers.leaf_spine, tiers.spine_super
    # super-spines
    for core in (d for d, role in enumerate(roles) if role == SUPER_SPINE):
        widths = tiers.class_widths(dead_supers=frozenset({core}))
        unreachable, low = outcome(widths, tiers)
        text = plane_text(plane_of.get(names[core], 0), 0.0, lost_by_core[names[core]]) if capacity else ""
        results.append(("super-spine", names[core], unreachable, low, text))
    # A pod spine or one of its super-spine links only changes the class pairs with a leaf in its pod.
    pod_pairs: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for o, r in baseline:
        for pod in {tiers.classes[o].pod, tiers.classes[r].pod}:
            pod_pairs[pod].append((o, r))
    all_pods = set(pod_pairs)
    min_outside = {pod: min((w for (o, r), w in baseline.items()
                             if pod not in (tiers.classes[o].pod, tiers.classes[r].pod)), default=None)
                   for pod in all_pods}

    def pod_outcome(pod: int, classes: list, spine_super_now: dict) -> tuple[int, int]:
        unreachable, widths = base_unreachable, []
        for o, r in pod_pairs.get(pod, ()):
            width = tiers.width(classes[o], classes[r], spine_super=spine_super_now)
            widths.append(width)
            unreachable += tiers.pair_count(o, r) * ((width == 0) - (baseline[(o, r)] == 0))
        lows = [w for w in (min_outside.get(pod), min(widths, default=None)) if w is not None]
        return unreachable, min(lows) if lows else 0

    for spine in (d for d, role in enumerate(roles) if role == SPINE):
        pod = model.asn[spine]
        without = [replace(c, spines=tuple(item for item in c.spines if item[0] != spine))
                   if any(item[0] == spine for item in c.spines) else c for c in tiers.classes]
        core_map = {s: c for s, c in spine_super.items() if s != spine}
        unreachable, low = pod_outcome(pod, without, core_map)
        text = ""
        if capacity is not None and rails is not None:
            name = names[spine]
            text = "; ".join(part for part in (
                plane_text(plane_of.get(name, 0), capacity.down[name], capacity.up[name]),
                note_rail("spine", name, rails.spine_lost(name))) if part)
        results.append(("spine", names[spine], unreachable, low, text))
        for core, sessions in spine_super.get(spine, {}).items():
            core_map = dict(spine_super)
            core_map[spine] = Counter({**spine_super[spine], core: sessions - 1})
            unreachable, low = pod_outcome(pod, tiers.classes, core_map)
            text = ""
            if capacity is not None:
                per_link = capacity.link[(names[spine], names[core])] / max(sessions, 1)
                text = plane_text(plane_of.get(names[spine], 0), 0.0, per_link)
            for link in range(sessions):  # parallel links of one spine/super-spine pair: the same outcome
                suffix = f" (link {link + 1}/{sessions})" if sessions > 1 else ""
                results.append(("link", f"{names[spine]}<->{names[core]}{suffix}", unreachable, low, text))
    # leaf<->spine links: the leaf's class changes alone; same (class, spine) -> same outcome
    cache: dict[tuple[int, int], tuple[int, int]] = {}
    for leaf, spines in leaf_spine.items():
        leaf_class = tiers.class_of[leaf]
        for spine, sessions in spines.items():
            key = (leaf_class, spine)
            if key not in cache:
                original = tiers.classes[leaf_class]
                changed = tiers.leaf_class(leaf, Counter({**spines, spine: sessions - 1}))
                # pairs without this leaf keep their widths (the baseline minimum bounds them from below)
                unreachable, low = base_unreachable, min(baseline.values()) if baseline else 0
                for other_index, other in enumerate(tiers.classes):
                    peers = len(tiers.members[other_index]) - (1 if other_index == leaf_class else 0)
                    if not peers:
                        continue
                    for before, after in ((tiers.width(original, other), tiers.width(changed, other)),
                                          (tiers.width(other, original), tiers.width(other, changed))):
                        low = min(low, after)
                        unreachable += peers * ((after == 0) - (before == 0))
                cache[key] = (unreachable, low)
            unreachable, low = cache[key]
            text = note_rail("link", f"{names[leaf]}<->{names[spine]}",
                             rails.link_lost(names[leaf], names[spine], sessions)) if rails is not None else ""
            for link in range(sessions):
                suffix = f" (link {link + 1}/{sessions})" if sessions > 1 else ""
                results.append(("link", f"{names[leaf]}<->{names[spine]}{suffix}", unreachable, low, text))
    if rails is not None:  # a rail leaf down: reachability among the other leaves is unchanged, its rail shrinks
        for leaf in rails.rail_key:
            note_rail("leaf", leaf, rails.leaf_lost(leaf))
    findings: list[Finding] = []
    breaking = [r for r in results if r[2] > base_unreachable]
    ctx.record_examined(N_MINUS_1, {"failure scenarios": len(results), "leaf pairs": leaf_pairs})
    for kind, subject, unreachable, _low, _text in breaking[:INDIVIDUAL_FINDINGS]:
        findings.append(Finding(
            check=N_MINUS_1, severity=Severity.ERROR, subject=subject, expected=base_unreachable, actual=unreachable,
            message=f"losing {kind} {subject} leaves {unreachable - base_unreachable} more leaf pair(s) without a "
                    f"route"))
    if len(breaking) > INDIVIDUAL_FINDINGS:
        findings.append(Finding(check=N_MINUS_1, severity=Severity.ERROR, subject="fabric", expected=0,
                                actual=len(breaking), message=f"{len(breaking)} single failures break reachability"))
    # A plane oversubscribed by design: collective traffic between pods crosses it at 1/ratio of its offered rate,
    # and with lossless RoCE the queue builds into PFC pauses that spread back into the pods (issue #30 point 8:
    # an 8:1 plane was reported only as info under a failure). Non-blocking (1:1) is what AI backend fabrics are
    # built for (NVIDIA's rail-optimised reference designs); above it is said, as a warning, with what it costs.
    for plane, (total_down, total_up) in sorted(plane_totals.items()):
        ratio = oversubscription(total_down, total_up)
        if ratio > 1.0 + 1e-9:
            findings.append(Finding(
                check=N_MINUS_1, severity=Severity.WARNING, subject=f"plane {plane + 1}", expected="1.00:1",
                actual=_ratio(total_down, total_up),
                message=f"super-spine plane {plane + 1} is {_ratio(total_down, total_up)} oversubscribed: traffic "
                        f"between pods gets 1/{ratio:.2g} of its rate there, and lossless RoCE queues into PFC "
                        "pauses back into the pods; keep jobs within a pod or add super-spine capacity"))
    for kind, subject, _unreachable, low, text in results:
        if kind == "super-spine" and text:
            findings.append(Finding(check=N_MINUS_1, severity=Severity.INFO, subject=subject, expected=None,
                                    actual=low, message=f"losing {subject} makes {text}; minimum ECMP {low}"))
    for kind in ("spine", "link", "leaf"):
        if kind in worst_rail:
            _ratio_value, subject, text = worst_rail[kind]
            findings.append(Finding(check=N_MINUS_1, severity=Severity.INFO, subject=subject, expected=None,
                                    actual=text, message=f"worst rail under a {kind} failure: losing {subject} "
                                                         f"makes {text}"))
    counts = Counter(kind for kind, *_rest in results)
    worst = min(results, key=lambda r: (r[3], -r[2])) if results else None
    if worst is not None:
        findings.append(Finding(
            check=N_MINUS_1, severity=Severity.INFO, subject=worst[1], expected=min(baseline.values()),
            actual=worst[3],
            message=f"{len(results)} single failures ({', '.join(f'{n} {k}' for k, n in sorted(counts.items()))}) "
                    f"over {leaf_pairs} leaf pairs: worst {worst[0]} {worst[1]} -> minimum ECMP {worst[3]} "
                    f"(baseline {min(baseline.values())}){'; ' + worst[4] if worst[4] else ''}"))
    return findings


CHECKS = {ECMP: check_ecmp, VALLEY_FREE: check_valley_free, N_MINUS_1: check_n_minus_1}
