"""Routing through the three tiers of a 5-stage Clos, by class algebra instead of per-origin propagation.

When the fabric follows the RFC 7938 section 5.2.1 ASN scheme (every super-spine in one ASN, the spines of a pod
in one ASN per pod, every leaf its own ASN, no allowas-in) and every established session joins a leaf to a spine
or a spine to a super-spine, eBGP best paths are fully determined by the cabling:

* intra-pod (origin leaf L, receiver R in the same pod): AS path [pod, L], next hops = R's sessions to the spines
  that have a session with L; a path through the super-spines would carry the pod ASN twice (dropped);
* inter-pod (R in another pod): AS path [pod(R), core, pod(L), L], next hops = R's sessions to the spines sq of its
  pod for which some super-spine has a session to sq and to a spine of L's pod that has a session to L; longer
  "valley" paths through a leaf or back up through the core repeat an ASN and are dropped.

Leaves with the same sessions (spine -> count), ``maximum_paths`` and VTEP advertisement form one class, so a
5,000-switch fabric has about one class per pod and every leaf pair is answered per class pair.
:func:`validators.routing.propagate` is the reference these widths are tested against (tests/validators).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from validators.routing import RoutingModel

SPINE, SUPER_SPINE, LEAF_ROLES = "spine", "super-spine", frozenset({"leaf", "border"})


@dataclass(frozen=True, slots=True)
class LeafClass:
    pod: int  # the spines' shared ASN
    spines: tuple[tuple[int, int], ...]  # (spine device, sessions), sorted
    maximum_paths: int
    advertises: bool


class TierModel:
    """Leaf classes, spine -> super-spine sessions and the widths between classes (one model per failure state)."""

    def __init__(self, model: RoutingModel, leaf_spine: dict[int, Counter], spine_super: dict[int, Counter]) -> None:
        self.model = model
        self.leaf_spine = leaf_spine
        self.spine_super = spine_super
        self.leaves = [d for d, role in enumerate(model.role) if role in LEAF_ROLES]
        self.class_index: dict[LeafClass, int] = {}
        self.classes: list[LeafClass] = []
        self.members: list[list[int]] = []
        self.class_of: dict[int, int] = {}
        for leaf in self.leaves:
            key = self.leaf_class(leaf, leaf_spine.get(leaf, Counter()))
            if key not in self.class_index:
                self.class_index[key] = len(self.classes)
                self.classes.append(key)
                self.members.append([])
            self.class_of[leaf] = self.class_index[key]
            self.members[self.class_index[key]].append(leaf)

    def leaf_class(self, leaf: int, spines: Counter) -> LeafClass:
        model = self.model
        pods = {model.asn[spine] for spine in spines}
        return LeafClass(pod=min(pods) if len(pods) == 1 else -1,
                         spines=tuple(sorted((s, n) for s, n in spines.items() if n > 0)),
                         maximum_paths=model.maximum_paths[leaf],
                         advertises=model.vtep_prefix[leaf] is not None
                         and model.vtep_prefix[leaf] in model.networks[leaf])

    def core_reach(self, origin: LeafClass, dead_supers: frozenset[int] = frozenset(),
                   spine_super: dict[int, Counter] | None = None) -> set[int]:
        """Super-spines holding a route to a leaf of ``origin``: those with a session to one of its spines."""
        spine_super = self.spine_super if spine_super is None else spine_super
        reach: set[int] = set()
        for spine, _sessions in origin.spines:
            reach.update(s for s, n in spine_super.get(spine, {}).items() if n > 0 and s not in dead_supers)
        return reach

    def width(self, origin: LeafClass, receiver: LeafClass, reach: set[int] | None = None,
              dead_supers: frozenset[int] = frozenset(), spine_super: dict[int, Counter] | None = None) -> int:
        """ECMP width at a receiver leaf towards an origin leaf's VTEP (0: no route). ``spine_super``: a failure
        state's spine -> super-spine sessions instead of the model's."""
        if not origin.advertises or origin.pod < 0 or receiver.pod < 0:
            return 0
        spine_super = self.spine_super if spine_super is None else spine_super
        if origin.pod == receiver.pod:
            origin_spines = {spine for spine, _n in origin.spines}
            total = sum(n for spine, n in receiver.spines if spine in origin_spines)
        else:
            if reach is None:
                reach = self.core_reach(origin, dead_supers, spine_super)
            total = 0
            for spine, n in receiver.spines:
                supers: Counter = spine_super.get(spine, Counter())
                if any(count > 0 and s in reach for s, count in supers.items()):
                    total += n
        return min(total, receiver.maximum_paths)

    def class_widths(self, dead_supers: frozenset[int] = frozenset()) -> dict[tuple[int, int], int]:
        """(origin class, receiver class) -> width for every class pair that holds at least one leaf pair."""
        widths = {}
        for o, origin in enumerate(self.classes):
            reach = self.core_reach(origin, dead_supers)
            for r, receiver in enumerate(self.classes):
                if o == r and len(self.members[o]) < 2:
                    continue
                widths[(o, r)] = self.width(origin, receiver, reach)
        return widths

    def is_intra_pod(self, origin_class: int, receiver_class: int) -> bool:
        return self.classes[origin_class].pod == self.classes[receiver_class].pod

    def pair_count(self, origin_class: int, receiver_class: int) -> int:
        count = len(self.members[origin_class]) * len(self.members[receiver_class])
        return count - len(self.members[origin_class]) if origin_class == receiver_class else count


def five_stage_problem(model: RoutingModel) -> str | None:
    """Why the class algebra does not apply to this fabric (None: it does)."""
    roles = model.role
    if SUPER_SPINE not in roles:
        return "no super-spine"
    for a, _ai, b, _bi in model.sessions:
        pair = {roles[a], roles[b]}
        if not (pair == {SPINE, SUPER_SPINE} or (SPINE in pair and pair & LEAF_ROLES)):
            return f"session {model.names[a]}<->{model.names[b]} is not leaf-spine or spine-super-spine"
    super_asns = {model.asn[d] for d, role in enumerate(roles) if role == SUPER_SPINE}
    spine_asns = {model.asn[d] for d, role in enumerate(roles) if role == SPINE}
    if len(super_asns) != 1:
        return f"super-spines use {len(super_asns)} ASNs (RFC 7938 5.2.1: one)"
    if super_asns & spine_asns:
        return "a spine shares the super-spines' ASN"
    leaf_asns = Counter(model.asn[d] for d, role in enumerate(roles) if role in LEAF_ROLES)
    if any(count > 1 for count in leaf_asns.values()) or set(leaf_asns) & (super_asns | spine_asns):
        return "leaf ASNs are not unique per leaf"
    if any(model.allowas_in) or not all(model.multipath_relax):
        return "allowas-in or no multipath-relax"
    return None


def sessions_by_tier(model: RoutingModel) -> tuple[dict[int, Counter], dict[int, Counter]]:
    roles = model.role
    leaf_spine: dict[int, Counter] = defaultdict(Counter)
    spine_super: dict[int, Counter] = defaultdict(Counter)
    for a, _ai, b, _bi in model.sessions:
        if roles[a] == SPINE and roles[b] == SPINE:
            continue
        if SUPER_SPINE in (roles[a], roles[b]):
            spine, core = (a, b) if roles[b] == SUPER_SPINE else (b, a)
            spine_super[spine][core] += 1
        else:
            leaf, spine = (a, b) if roles[b] == SPINE else (b, a)
            leaf_spine[leaf][spine] += 1
    return leaf_spine, spine_super


def tier_model(model: RoutingModel) -> TierModel | None:
    """The class model of the established sessions, or None when :func:`five_stage_problem` finds one."""
    if five_stage_problem(model) is not None:
        return None
    leaf_spine, spine_super = sessions_by_tier(model)
    return TierModel(model, leaf_spine, spine_super)
