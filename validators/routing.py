"""eBGP path-vector routing simulated over the structured configs.

The model (:class:`RoutingModel`) is built from what the configs say: each device's ASN, router ID,
``maximum_paths`` and advertised ``bgp.networks``, and only the sessions :mod:`validators.sessions` finds
establishable. Semantics (RFC 4271 with the RFC 7938 data-centre profile):

* a device originates its ``bgp.networks`` with an empty AS path and always prefers its own route;
* it advertises its best path to every established neighbor, prepending its ASN (eBGP);
* a receiver drops a path that already contains its own ASN more than ``allowas_in`` times (loop prevention,
  RFC 4271 9.1.2; ``allowas_in`` defaults to 0 and is read from ``bgp.allowas_in`` when a config sets it);
* best path = shortest AS path; ties are broken by the lowest peer router ID, then the natural order of the
  local interface (RFC 4271 9.1.2.2 steps f/g, without MED/IGP cost which an eBGP-only fabric does not use);
* multipath: every path of the best length (``as-path multipath-relax``, assumed unless ``bgp.multipath_relax``
  is false, in which case only paths with the best path's exact AS path) up to ``maximum_paths``;
* the route maps and prefix lists a neighbor names (IPv4 unicast, ``policy_refs`` with the contents in
  ``bgp.policy_contents``) filter what crosses the session, export at the sender and import at the receiver
  (:mod:`validators.policy`); a denied route is not advertised / not accepted there;
* a session between two devices of one AS is iBGP (the MLAG peers' session over their peer SVI, AVD's
  ``MLAG_PEER`` group): the path crosses it unchanged (no prepend, no loop check against the shared AS), an
  eBGP path beats an iBGP one of equal length (RFC 4271 9.1.2.2 d), and a route learned over iBGP is not passed
  on to another iBGP peer (RFC 4271 9.2, no route reflection on these sessions), only to eBGP peers.

Two independent engines implement these semantics, so one can check the other:

* :func:`simulate_reference` -- the straightforward one: per prefix, synchronous rounds in which every device
  recomputes its routes from its neighbors' current best paths, until nothing changes.
* :func:`propagate` -- per origin device (all prefixes of one device share their fate), breadth-first by AS-path
  length: once a device is reached it never changes, so each session is looked at once per origin.
  :mod:`validators.ecmp` uses it where its leaf-spine fast path does not apply.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from compiler.natural import natural_key
from validators.common import CORE_ROLES, VTEP_ROLES, ip_to_int
from validators.policy import Decision, SessionPolicies


@dataclass(frozen=True, slots=True)
class Route:
    as_path: tuple[int, ...]
    next_hops: tuple[tuple[str, str], ...]  # (peer device, local interface); () for a locally originated route

    @property
    def ecmp_width(self) -> int:
        return len(self.next_hops)


class RoutingModel:
    """Devices, ASNs and established sessions as integer-indexed arrays (built once per validation run)."""

    def __init__(self, structured, sessions) -> None:
        self.names: list[str] = list(structured)
        self.index = {name: position for position, name in enumerate(self.names)}
        self.role: list[str] = []
        self.asn: list[int] = []
        self.router_id: list[int] = []
        self.maximum_paths: list[int] = []
        self.allowas_in: list[int] = []
        self.multipath_relax: list[bool] = []
        self.networks: list[tuple[str, ...]] = []
        self.vtep_prefix: list[str | None] = []
        # VTEPs whose VXLAN source the model cannot resolve to an address (EOS WAN routers source their tunnels
        # from a DPS path-selection interface, not a loopback): not judged as leaves (reachability says so).
        self.unresolved_vteps: list[str] = []
        for name in self.names:
            config = structured[name]
            bgp = config["bgp"]
            self.role.append(config.get("role") or "")
            self.asn.append(bgp.get("asn") if bgp.get("asn") is not None else (config.get("asn") or 0))
            router_id = bgp.get("router_id") or config.get("router_id")
            self.router_id.append(ip_to_int(router_id) if router_id else 0)
            self.maximum_paths.append(max(int(bgp.get("maximum_paths") or 1), 1))
            self.allowas_in.append(int(bgp.get("allowas_in") or 0))
            self.multipath_relax.append(bgp.get("multipath_relax", True) is not False)
            self.networks.append(tuple(bgp.get("networks") or ()))
            self.vtep_prefix.append(vtep_prefix(config))
            vxlan = config.get("vxlan") or {}
            if self.vtep_prefix[-1] is None and vxlan.get("source_interface") and not vxlan.get("vtep_ip"):
                self.unresolved_vteps.append(name)
        # Established sessions; adjacency lists in tie-break order (lowest peer router ID, then local interface).
        self.sessions = [(self.index[s.a], s.a_interface, self.index[s.b], s.b_interface) for s in sessions]
        adjacency: list[list[tuple[int, str]]] = [[] for _ in self.names]
        for a, a_interface, b, b_interface in self.sessions:
            adjacency[a].append((b, a_interface))
            adjacency[b].append((a, b_interface))
        for neighbors in adjacency:
            neighbors.sort(key=lambda item: (self.router_id[item[0]], natural_key(item[1])))
        self.adjacency = adjacency
        # inbound[j]: who hears j, with j's rank in their tie-break order and their local interface.
        inbound: list[list[tuple[int, int, str]]] = [[] for _ in self.names]
        for receiver, neighbors in enumerate(adjacency):
            for rank, (sender, interface) in enumerate(neighbors):
                inbound[sender].append((receiver, rank, interface))
        self.inbound = inbound
        # Neighbor policies on established sessions, and (device, its interface) -> the far end's interface.
        self.policies = SessionPolicies(structured, sessions)
        self.facing: dict[tuple[int, str], str] = {}
        for a, a_interface, b, b_interface in self.sessions:
            self.facing[(a, a_interface)] = b_interface
            self.facing[(b, b_interface)] = a_interface

    def origin_prefix(self, device: int) -> str | None:
        """The prefix a per-origin propagation follows through policies: the VTEP loopback, else the first
        advertised network (what reachability, ECMP and the what-ifs are about)."""
        return self.vtep_prefix[device] or next(iter(self.networks[device]), None)

    def denial(self, sender: int, receiver: int, interface: str, prefix: str | None,
               path: tuple[int, ...]) -> Decision | None:
        """The policy that keeps ``prefix`` (with ``path`` at the sender, before any prepend) from crossing the
        session from ``sender`` to ``receiver`` (arriving on the receiver's ``interface``); None: it crosses."""
        if prefix is None or not self.policies:
            return None
        names = self.names
        facing = self.facing.get((receiver, interface))
        if facing is None:  # not a BGP session (an L2 link of validators.deadlock)
            return None
        decision = self.policies.decide(names[sender], facing, "out", prefix, path)
        if decision is None:
            received = path if self.asn[sender] == self.asn[receiver] else (self.asn[sender],) + path
            decision = self.policies.decide(names[receiver], interface, "in", prefix, received)
        return decision

    @classmethod
    def from_context(cls, ctx) -> RoutingModel:
        return cls(ctx.structured, ctx.sessions.established)

    def vteps(self) -> list[int]:
        # A leaf with neither a VTEP nor BGP is an L2-only leaf (AVD L2LS, campus): it bridges, it tunnels nothing.
        unresolved = set(self.unresolved_vteps)
        return [device for device, role in enumerate(self.role) if role in VTEP_ROLES
                and (self.vtep_prefix[device] is not None or self.asn[device])  # asn 0: no BGP
                and self.names[device] not in unresolved]

    def core(self) -> list[int]:
        return [device for device, role in enumerate(self.role) if role in CORE_ROLES]


def vtep_prefix(config: dict) -> str | None:
    """The VTEP /32 of a leaf: the VXLAN source address, else its Loopback with purpose ``vtep``."""
    if config.get("role") not in VTEP_ROLES:
        return None
    vtep_ip = (config.get("vxlan") or {}).get("vtep_ip")
    if vtep_ip:
        return f"{vtep_ip}/32"
    for loopback in config.get("loopbacks") or ():
        if loopback.get("purpose") == "vtep" and loopback.get("ip"):
            return loopback["ip"]
    return None


def _choose(candidates, maximum_paths: int, relax: bool):
    """candidates: (length, rank, path, next hop[, over iBGP]) -> (best path, chosen next hops, learned over
    iBGP). Shortest AS path first, then eBGP over iBGP (RFC 4271 9.1.2.2 d), then the tie-break rank; multipath
    never mixes eBGP and iBGP paths."""
    candidates.sort(key=lambda item: (item[0], _over_ibgp(item), item[1]))
    best = candidates[0]
    shortest, best_path, internal = best[0], best[2], _over_ibgp(best)
    chosen = [item for item in candidates if item[0] == shortest and _over_ibgp(item) == internal
              and (relax or item[2] == best_path)]
    return best_path, [item[3] for item in chosen[:maximum_paths]], internal


def _over_ibgp(candidate) -> bool:
    return len(candidate) > 4 and bool(candidate[4])


def simulate_reference(model: RoutingModel, prefixes=None, dead_devices=frozenset(), dead_endpoints=frozenset(),
                       max_rounds: int | None = None) -> dict[str, dict[str, Route]]:
    """Every device's routes (``{device: {prefix: Route}}``) by synchronous path-vector rounds.

    ``dead_devices`` are device names; ``dead_endpoints`` are ``(device, interface)`` ends of failed sessions
    (give both ends of a failed link).
    Quadratic and slow on purpose: it is the executable statement of the semantics the fast paths must match.
    """
    names, asn = model.names, model.asn
    dead = {model.index[name] for name in dead_devices}
    origins: dict[str, list[int]] = defaultdict(list)
    for device, networks in enumerate(model.networks):
        if device in dead:
            continue
        for prefix in networks:
            if prefixes is None or prefix in prefixes:
                origins[prefix].append(device)
    result: dict[str, dict[str, Route]] = {name: {} for name in names}
    rounds_cap = max_rounds or len(names) + 2
    for prefix, prefix_origins in origins.items():
        best: dict[int, tuple[tuple[int, ...], tuple, bool]] = {device: ((), (), False) for device in prefix_origins}
        for _round in range(rounds_cap):
            new: dict[int, tuple[tuple[int, ...], tuple, bool]] = {}
            for device in range(len(names)):
                if device in dead:
                    continue
                if device in prefix_origins:
                    new[device] = ((), (), False)
                    continue
                candidates = []
                for rank, (peer, interface) in enumerate(model.adjacency[device]):
                    if peer in dead or (names[device], interface) in dead_endpoints:
                        continue
                    route = best.get(peer)
                    if route is None:
                        continue
                    if model.policies and model.denial(peer, device, interface, prefix, route[0]):
                        continue
                    if asn[peer] == asn[device]:  # iBGP: unchanged, and never what the peer learned over iBGP
                        if not route[2]:
                            candidates.append((len(route[0]), rank, route[0], (names[peer], interface), True))
                        continue
                    path = (asn[peer],) + route[0]
                    if path.count(asn[device]) > model.allowas_in[device]:
                        continue
                    candidates.append((len(path), rank, path, (names[peer], interface), False))
                if candidates:
                    path, hops, internal = _choose(candidates, model.maximum_paths[device],
                                                   model.multipath_relax[device])
                    new[device] = (path, tuple(hops), internal)
            if new == best:
                break
            best = new
        for device, (path, hops, _internal) in best.items():
            result[names[device]][prefix] = Route(path, hops)
    return result


def propagate(model: RoutingModel, origin: int, dead_devices=frozenset(), dead_endpoints=frozenset(),
              prefix: str | None = None, denials: list[Decision] | None = None) -> dict:
    """Routes to ``origin``'s prefixes: ``{device index: (as_path, [(next-hop device index, local interface)])}``.

    Neighbor policies decide per prefix: with any in the model, the propagation follows ``prefix`` (default: the
    origin's VTEP loopback, else its first network, :meth:`RoutingModel.origin_prefix`) and appends each policy
    decision that stopped it to ``denials``.

    Breadth-first by AS-path length. ``dead_devices`` are indices; ``dead_endpoints`` are ``(device index,
    interface)`` ends of failed sessions (both ends of each failed link). A device reached at length k only ever hears longer paths afterwards, so
    its route is final when first set (shortest-path preference is monotone).
    """
    if origin in dead_devices:
        return {}
    asn, allowas = model.asn, model.allowas_in
    filtered = bool(model.policies)
    if filtered and prefix is None:
        prefix = model.origin_prefix(origin)

    def denied(sender: int, receiver: int, interface: str, path: tuple[int, ...]) -> bool:
        decision = model.denial(sender, receiver, interface, prefix, path)
        if decision is not None and denials is not None:
            denials.append(decision)
        return decision is not None

    routes: dict[int, tuple[tuple[int, ...], list[tuple[int, str]]]] = {origin: ((), [])}
    frontier = [origin]
    internal: set[int] = set()  # devices whose route was learned over iBGP (not passed on to iBGP peers)
    while frontier:
        # iBGP first, within this AS-path length: the path crosses unchanged, so it is as long as the sender's;
        # every device of this length that learned it over eBGP (or originates it) already holds it (eBGP wins).
        ibgp: dict[int, list] = defaultdict(list)
        for sender in frontier:
            if sender in internal:
                continue
            for receiver, rank, interface in model.inbound[sender]:
                if asn[receiver] != asn[sender] or receiver in routes or receiver in dead_devices:
                    continue
                if dead_endpoints and (receiver, interface) in dead_endpoints:
                    continue
                if filtered and denied(sender, receiver, interface, routes[sender][0]):
                    continue
                ibgp[receiver].append((0, rank, routes[sender][0], (sender, interface)))
        for receiver, items in ibgp.items():
            path, hops, _internal = _choose(items, model.maximum_paths[receiver], model.multipath_relax[receiver])
            routes[receiver] = (path, hops)
            internal.add(receiver)
            frontier.append(receiver)
        candidates: dict[int, list] = defaultdict(list)
        for sender in frontier:
            path = (asn[sender],) + routes[sender][0]
            for receiver, rank, interface in model.inbound[sender]:
                if receiver in routes or receiver in dead_devices or asn[receiver] == asn[sender]:
                    continue
                if dead_endpoints and (receiver, interface) in dead_endpoints:
                    continue
                if allowas[receiver] == 0:
                    if asn[receiver] in path:
                        continue
                elif path.count(asn[receiver]) > allowas[receiver]:
                    continue
                if filtered and denied(sender, receiver, interface, routes[sender][0]):
                    continue
                candidates[receiver].append((len(path), rank, path, (sender, interface)))
        frontier = []
        for receiver, items in candidates.items():
            path, hops, _internal = _choose(items, model.maximum_paths[receiver], model.multipath_relax[receiver])
            routes[receiver] = (path, hops)
            frontier.append(receiver)
    return routes
