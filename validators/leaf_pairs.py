"""The leaf-pair matrix (what :mod:`validators.ecmp`, reachability and the what-ifs read): the leaf-to-leaf
routing outcome for every VTEP pair, fast: the ECMP width each leaf has towards every other leaf's VTEP
loopback, and the designed width it should have.

Why this is fast on a 64 x 1,024 fabric (1M leaf pairs): in a two-tier leaf-spine fabric the eBGP outcome for
the pair (origin o, receiver r) is decided by few facts -- which spines each of them has established sessions
to and how many, and whether an ASN collision makes loop prevention drop a path. Leaves with identical facts
form one class (:class:`LeafSignature`; a healthy fabric has one class), and the width is computed once per
class pair with spine sets as Python int bitsets:

* a spine s hears o's VTEP with AS path [A_o] unless s itself is in A_o (loop prevention);
* r hears [asn(s), A_o] from every such spine it has a session to, unless r's own ASN is in that path;
  those are all the length-2 paths, the shortest a leaf can have, so when there is one the answer is exact:
  width = sessions to the accepting spines, capped at ``maximum_paths``.

When no length-2 path exists the pair is handed to :func:`validators.routing.propagate` (longer "valley" paths
through another leaf exist only when spines do not all share one ASN, e.g. multi-plane designs). Fabrics
that are not two-tier leaf-spine (leaf-leaf sessions, ASN schemes other than RFC 7938's) use ``propagate`` per origin
for every pair; 5-stage Clos fabrics under the RFC 7938 scheme use the class algebra of :mod:`validators.tiers`.
Tests check both paths against :func:`validators.routing.simulate_reference`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, replace

from compiler.model import Role
from validators.common import VTEP_ROLES, short_list
from validators.routing import RoutingModel, propagate
from validators.tiers import TierModel, tier_model

UNLIMITED_PATHS = 1 << 30


@dataclass(frozen=True, slots=True)
class LeafSignature:
    """Everything the leaf-spine routing outcome of a leaf depends on."""

    mask: int  # bit p set: established session(s) to spine position p
    extra: tuple[tuple[int, int], ...] = ()  # (spine position, sessions) where more than one session
    asn_key: int | None = None  # the ASN when loop prevention can matter (shared with another leaf or a spine)
    allowas_in: int = 0
    maximum_paths: int = UNLIMITED_PATHS
    relax: bool = True
    advertises: bool = True  # originates its VTEP /32

    def sessions(self, mask: int) -> int:
        count = mask.bit_count()
        for position, sessions in self.extra:
            if mask >> position & 1:
                count += sessions - 1
        return count

    def without_spine(self, position: int) -> LeafSignature:
        return replace(self, mask=self.mask & ~(1 << position),
                       extra=tuple(item for item in self.extra if item[0] != position))

    def without_session(self, position: int) -> LeafSignature:
        """One of the sessions to spine ``position`` is gone."""
        for item_position, sessions in self.extra:
            if item_position == position:
                extra = tuple(item if item[0] != position else (position, sessions - 1) for item in self.extra
                              if item[0] != position or sessions - 1 > 1)
                return replace(self, extra=extra)
        return self.without_spine(position)


class SpineTier:
    """Spine positions ordered by tie-break (lowest router ID first) and the ASN masks loop prevention needs."""

    def __init__(self, model: RoutingModel, spines: list[int]) -> None:
        self.devices = sorted(spines, key=lambda device: (model.router_id[device], model.names[device]))
        self.position = {device: position for position, device in enumerate(self.devices)}
        self.names = [model.names[device] for device in self.devices]
        self.asn_mask: dict[int, int] = defaultdict(int)  # ASN -> spines in it
        self.rejects_own: dict[int, int] = defaultdict(int)  # ASN -> spines in it without allowas-in
        for position, device in enumerate(self.devices):
            self.asn_mask[model.asn[device]] |= 1 << position
            if model.allowas_in[device] < 1:
                self.rejects_own[model.asn[device]] |= 1 << position
        self.asns = [model.asn[device] for device in self.devices]
        # Paths longer than leaf-spine-leaf need a spine to accept a path through another spine.
        self.long_paths_possible = len(self.asn_mask) > 1 or any(model.allowas_in[d] for d in self.devices)

    def spine_names(self, mask: int) -> list[str]:
        return [self.names[position] for position in range(len(self.names)) if mask >> position & 1]


def pair_width(origin: LeafSignature, receiver: LeafSignature, tier: SpineTier | None) -> tuple[int, int]:
    """(ECMP width, mask of spines used) at ``receiver`` towards ``origin``'s VTEP over length-2 paths."""
    if not origin.advertises:
        return 0, 0
    layer1 = origin.mask
    if origin.asn_key is not None and tier is not None:
        layer1 &= ~tier.rejects_own.get(origin.asn_key, 0)
    accepted = layer1 & receiver.mask
    if receiver.asn_key is not None and tier is not None and accepted:
        own = 1 if origin.asn_key == receiver.asn_key else 0
        if own > receiver.allowas_in:
            accepted = 0
        elif own + 1 > receiver.allowas_in:
            accepted &= ~tier.asn_mask.get(receiver.asn_key, 0)
    if accepted and not receiver.relax and tier is not None:
        best = (accepted & -accepted).bit_length() - 1  # lowest router ID wins the tie-break
        accepted &= tier.asn_mask[tier.asns[best]]  # without multipath-relax only identical AS paths
    return min(receiver.sessions(accepted), receiver.maximum_paths), accepted


class LeafPairMatrix:
    """Actual and designed ECMP widths for every ordered VTEP pair, stored per class pair."""

    def __init__(self, model: RoutingModel) -> None:
        self.model = model
        self.leaf_devices = model.vteps()
        self.leaves = [model.names[device] for device in self.leaf_devices]
        self.leaf_position = {device: position for position, device in enumerate(self.leaf_devices)}
        self.tier: SpineTier | None = None
        self.tiers: TierModel | None = None  # five-stage mode
        self.mode = "general"
        self.class_of: list[int] = []
        self.members: list[list[int]] = []
        self.signatures: list[LeafSignature] = []
        self.designed_signatures: list[LeafSignature] = []
        self.widths: dict[tuple[int, int], tuple[int, int]] = {}  # (origin class, receiver class) -> (width, mask)
        self.designed: dict[tuple[int, int], tuple[int, int]] = {}
        self.overrides: dict[tuple[int, int], int] = {}  # (origin leaf, receiver leaf) -> width, from propagate
        self._routes_cache: dict[int, dict] = {}

    # ---------------------------------------------------------------------------------------- queries

    def width(self, origin: str, receiver: str) -> int:
        """ECMP width at ``receiver`` towards ``origin``'s VTEP loopback (0: unreachable)."""
        o = self.leaf_position[self.model.index[origin]]
        r = self.leaf_position[self.model.index[receiver]]
        if (o, r) in self.overrides:
            return self.overrides[(o, r)]
        return self.widths[(self.class_of[o], self.class_of[r])][0]

    def designed_width(self, origin: str, receiver: str) -> int | None:
        if not self.designed:
            return None
        o = self.leaf_position[self.model.index[origin]]
        r = self.leaf_position[self.model.index[receiver]]
        return self.designed[(self.class_of[o], self.class_of[r])][0]

    def class_pairs(self):
        """(origin class, receiver class, number of ordered leaf pairs in it), skipping empty ones."""
        for origin_class, origin_members in enumerate(self.members):
            for receiver_class, receiver_members in enumerate(self.members):
                count = len(origin_members) * len(receiver_members)
                if origin_class == receiver_class:
                    count -= len(origin_members)
                if count:
                    yield origin_class, receiver_class, count

    def pairs_in(self, origin_class: int, receiver_class: int):
        for o in self.members[origin_class]:
            for r in self.members[receiver_class]:
                if o != r:
                    yield o, r

    def routes_from(self, origin_leaf: int) -> dict:
        if origin_leaf not in self._routes_cache:
            self._routes_cache[origin_leaf] = propagate(self.model, self.leaf_devices[origin_leaf])
        return self._routes_cache[origin_leaf]

    def summary(self) -> dict:
        widths = [self.widths[(o, r)][0] for o, r, _count in self.class_pairs()] + list(self.overrides.values())
        return {"mode": self.mode, "leaves": len(self.leaves), "classes": len(self.members),
                "spines": len(self.tier.devices) if self.tier else None,
                "min_ecmp": min(widths) if widths else None, "max_ecmp": max(widths) if widths else None}


# ---------------------------------------------------------------------------------------------- building


def is_leaf_spine(model: RoutingModel) -> bool:
    """Every established session joins a VTEP-role device to a spine (two-tier Clos)."""
    for a, _a_interface, b, _b_interface in model.sessions:
        roles = {model.role[a], model.role[b]}
        if "spine" not in roles or not roles & VTEP_ROLES:
            return False
    return True


def leaf_signatures(model: RoutingModel, tier: SpineTier) -> dict[int, LeafSignature]:
    """Actual signature of every VTEP device (by device index) from the established sessions."""
    sessions_to: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for a, _a_interface, b, _b_interface in model.sessions:
        leaf, spine = (a, b) if b in tier.position else (b, a)
        sessions_to[leaf][tier.position[spine]] += 1
    asn_count: dict[int, int] = defaultdict(int)
    for device in model.vteps():
        asn_count[model.asn[device]] += 1
    signatures = {}
    for device in model.vteps():
        counts = sessions_to.get(device, {})
        asn = model.asn[device]
        matters = asn_count[asn] > 1 or asn in tier.asn_mask
        prefix = model.vtep_prefix[device]
        signatures[device] = LeafSignature(
            mask=sum(1 << position for position in counts),
            extra=tuple(sorted((position, n) for position, n in counts.items() if n > 1)),
            asn_key=asn if matters else None, allowas_in=model.allowas_in[device],
            maximum_paths=model.maximum_paths[device], relax=model.multipath_relax[device],
            advertises=prefix is not None and prefix in model.networks[device])
    return signatures


def designed_signatures(ctx, model: RoutingModel, tier: SpineTier) -> dict[int, LeafSignature]:
    """What the cabling promises: links from each leaf to each spine (inventory first, else the configs)."""
    links: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    index = model.index
    if ctx.inventory is not None:
        for cable in ctx.inventory.cables:
            if cable.peer_link:
                continue
            a, b = index.get(cable.a.device), index.get(cable.b.device)
            if a is None or b is None:
                continue
            if a in tier.position:
                a, b = b, a
            if b in tier.position and model.role[a] in VTEP_ROLES:
                links[a][tier.position[b]] += 1
    else:
        for host, config in ctx.structured.items():
            device = index[host]
            if model.role[device] not in VTEP_ROLES:
                continue
            for interface in config["interfaces"]:
                peer = index.get(interface.get("peer_device") or "")
                if interface.get("kind") == "fabric" and peer in tier.position:
                    links[device][tier.position[peer]] += 1
        _complete_from_peers(links, model)
    return {device: LeafSignature(mask=sum(1 << p for p in links.get(device, {})),
                                  extra=tuple(sorted((p, n) for p, n in links.get(device, {}).items() if n > 1)))
            for device in model.vteps()}


def _complete_from_peers(links: dict[int, dict[int, int]], model: RoutingModel) -> None:
    """Configs alone state no cabling plan. In a two-tier Clos every leaf links to every spine (RFC 7938 section
    3.1), so a leaf linked to a strict subset of the spine links most leaves of its role have is missing links:
    its designed signature is theirs (a leaf cut from a spine is an ECMP error, not only an N-2 warning)."""
    by_role: dict[str, Counter] = defaultdict(Counter)
    for device in model.vteps():
        by_role[model.role[device]][frozenset(links.get(device, {}).items())] += 1
    for device in model.vteps():
        usual_items, count = by_role[model.role[device]].most_common(1)[0]
        usual, own = dict(usual_items), links.get(device, {})
        if count > 1 and own != usual and all(usual.get(position, 0) >= n for position, n in own.items()):
            links[device] = defaultdict(int, usual)


def leaf_pair_matrix(model: RoutingModel, ctx=None) -> LeafPairMatrix:
    matrix = LeafPairMatrix(model)
    if not matrix.leaf_devices:
        return matrix
    # Neighbor policies decide per prefix and per session: only the general engine (propagate) applies them.
    if is_leaf_spine(model) and not model.policies:
        matrix.mode = "leaf-spine"
        tier = matrix.tier = SpineTier(model, [d for d, role in enumerate(model.role) if role == Role.SPINE])
        actual = leaf_signatures(model, tier)
        designed = designed_signatures(ctx, model, tier) if ctx is not None else None
        classes: dict[tuple, int] = {}
        for position, device in enumerate(matrix.leaf_devices):
            key = (actual[device], designed[device] if designed else None)
            if key not in classes:
                classes[key] = len(classes)
                matrix.members.append([])
                matrix.signatures.append(key[0])
                if designed and key[1] is not None:  # with designed signatures, every leaf has one
                    matrix.designed_signatures.append(key[1])
            matrix.class_of.append(classes[key])
            matrix.members[classes[key]].append(position)
        for origin_class, receiver_class, _count in list(matrix.class_pairs()):
            matrix.widths[(origin_class, receiver_class)] = pair_width(
                matrix.signatures[origin_class], matrix.signatures[receiver_class], tier)
            if designed:
                matrix.designed[(origin_class, receiver_class)] = pair_width(
                    matrix.designed_signatures[origin_class], matrix.designed_signatures[receiver_class], None)
        if tier.long_paths_possible:
            for (origin_class, receiver_class), (width, _mask) in matrix.widths.items():
                if width == 0 and matrix.signatures[origin_class].advertises:
                    _resolve_by_propagation(matrix, origin_class, receiver_class)
        return matrix
    tiers = tier_model(model) if not model.policies else None
    if tiers is not None:  # 5-stage Clos under the RFC 7938 ASN scheme: classes of validators.tiers
        matrix.mode = "five-stage"
        matrix.tiers = tiers
        matrix.class_of = [0] * len(matrix.leaf_devices)
        for class_index, devices in enumerate(tiers.members):
            matrix.members.append([matrix.leaf_position[device] for device in devices])
            matrix.signatures.append(LeafSignature(mask=0))
            for device in devices:
                matrix.class_of[matrix.leaf_position[device]] = class_index
        matrix.widths = {pair: (width, 0) for pair, width in tiers.class_widths().items()}
        return matrix
    # General fabrics: one class per leaf, every pair by propagation.
    for position in range(len(matrix.leaf_devices)):
        matrix.class_of.append(position)
        matrix.members.append([position])
        matrix.signatures.append(LeafSignature(mask=0))
    for origin_class in range(len(matrix.leaf_devices)):
        origin_device = matrix.leaf_devices[origin_class]
        advertises = model.vtep_prefix[origin_device] in model.networks[origin_device]
        routes = matrix.routes_from(origin_class) if advertises else {}
        for receiver_class, device in enumerate(matrix.leaf_devices):
            if receiver_class != origin_class:
                route = routes.get(device)
                matrix.widths[(origin_class, receiver_class)] = (len(route[1]) if route else 0, 0)
    matrix._routes_cache.clear()
    return matrix


def _resolve_by_propagation(matrix: LeafPairMatrix, origin_class: int, receiver_class: int) -> None:
    for origin, receiver in matrix.pairs_in(origin_class, receiver_class):
        route = matrix.routes_from(origin).get(matrix.leaf_devices[receiver])
        matrix.overrides[(origin, receiver)] = len(route[1]) if route else 0


# ---------------------------------------------------------------------------------------------- checks


def side(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"({len(names)} leaves: {short_list(names, 3)})"


def pair_subject(matrix: LeafPairMatrix, origin_class: int, receiver_class: int) -> tuple[str, list[tuple]]:
    """'leaf3->leaf1' for one pair, 'leaf3->(1023 leaves: leaf1, leaf2, ...)' for a class pair."""
    pairs = list(_limited_pairs(matrix, origin_class, receiver_class, 3))
    origins = [matrix.leaves[o] for o in matrix.members[origin_class]]
    receivers = [matrix.leaves[r] for r in matrix.members[receiver_class]]
    # Traffic flows from the receiver of the route towards the origin of the prefix.
    return f"{side(receivers)}->{side(origins)}", pairs


def _limited_pairs(matrix, origin_class, receiver_class, limit):
    for count, pair in enumerate(matrix.pairs_in(origin_class, receiver_class)):
        if count >= limit:
            return
        yield pair
