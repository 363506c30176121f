"""BGP neighbor policies applied in the routing simulation: the route maps and prefix lists a neighbor names
(``policy_refs``, IPv4 unicast) with the contents the parser read (``bgp.policy_contents``).

Semantics (Arista EOS User Manual "Route Maps" and "Prefix Lists"; FRR user guide "Route Maps", "IP Prefix
Lists", "AS Path Access Lists"):

* a route map's entries are tried in sequence order; the first entry whose every match clause holds decides
  (permit or deny); a route no entry matches is denied (implicit deny); an entry with no match clause matches all;
* ``match ip address prefix-list L``: the first entry of L covering the route decides; no entry: no match;
  a prefix-list entry ``P [ge A] [le B]`` covers a route inside P whose length is P's (neither bound) or within
  [A or len(P), B or 32];
* ``match as-path L``: the first AS-path regex of L found in the path decides (``_`` is an AS boundary);
* ``neighbor X prefix-list L in|out`` filters as the list alone (implicit deny at its end);
* an export policy sees the path before the sender prepends its AS, an import policy the path as received.

Honest about what it did not read: an entry with a match clause the parser did not model cannot be judged, so a
route reaching it is *permitted* (never a false error); its line is unmodelled, so the routing checks depending on
it say incomplete (validators.configs, feature "routing policy"). A policy a neighbor names but its config does
not define is bgp.sessions' error; here it lets everything through, so one fault is reported once.
"""

from __future__ import annotations

import re
from functools import lru_cache
from ipaddress import IPv4Network, ip_network

_BOUNDARY = "(?:^|$|[ ,{}()])"
IPV4_UNICAST = "ipv4_unicast"


@lru_cache(maxsize=256)
def as_path_regex(pattern: str) -> re.Pattern:
    # Arista/Cisco/FRR AS-path regular expressions: '_' matches a boundary between ASNs (EOS user manual,
    # "AS path access lists"; FRR user guide, "AS Path Regular Expressions").
    return re.compile(pattern.replace("_", _BOUNDARY))


@lru_cache(maxsize=4096)
def _network(prefix: str) -> IPv4Network | None:
    try:
        network = ip_network(prefix, strict=False)
    except ValueError:
        return None
    return network if isinstance(network, IPv4Network) else None


def _covers(entry: dict, route: IPv4Network) -> bool:
    listed = _network(entry["prefix"])
    if listed is None or not route.subnet_of(listed):
        return False
    low = entry["ge"] if entry.get("ge") is not None else listed.prefixlen
    high = entry["le"] if entry.get("le") is not None else (32 if entry.get("ge") is not None else listed.prefixlen)
    return low <= route.prefixlen <= high


def prefix_list_permits(entries: list[dict], route: IPv4Network) -> bool | None:
    """True/False from the first entry covering ``route``; None when none does."""
    for entry in entries:
        if _covers(entry, route):
            return entry["action"] == "permit"
    return None


def _as_path_permits(entries: list[dict], path: tuple[int, ...]) -> bool:
    text = " ".join(str(asn) for asn in path)
    for entry in entries:
        if as_path_regex(entry["regex"]).search(text):
            return entry["action"] == "permit"
    return False


class Decision:
    """The outcome of one policy on one route: permitted or not, and the line that decided."""

    __slots__ = ("permitted", "cite")

    def __init__(self, permitted: bool, cite: str) -> None:
        self.permitted = permitted
        self.cite = cite


def evaluate(contents: dict, ref: dict, prefix: str, path: tuple[int, ...]) -> Decision | None:
    """What the policy ``ref`` (a neighbor's policy_refs entry) does to ``prefix`` with ``path``; None when the
    simulation cannot say (not defined, not read, or an entry it reached has a match clause it did not read)."""
    route = _network(prefix)
    if route is None:
        return None
    kind, name = ref["kind"], ref["name"]
    if kind == "prefix_list":
        entries = contents["prefix_lists"].get(name)
        if entries is None:
            return None
        verdict = prefix_list_permits(entries, route)
        if verdict is None:
            return Decision(False, f"prefix-list {name} (line {ref['line']}) has no entry for {prefix}: "
                                   "implicit deny")
        entry = next(entry for entry in entries if _covers(entry, route))
        return Decision(verdict, f"prefix-list {name} seq {entry['seq']} {entry['action']} {entry['prefix']} "
                                 f"(line {entry['line']})")
    entries = contents["route_maps"].get(name)
    if entries is None:
        return None
    for entry in entries:
        if any(clause["text"].startswith("match") for clause in entry["unsupported"]):
            return None  # cannot tell whether it matches
        matched = True
        for list_name in entry["prefix_lists"]:
            if not prefix_list_permits(contents["prefix_lists"][list_name], route):
                matched = False
        for list_name in entry["as_path_lists"]:
            if not _as_path_permits(contents["as_path_lists"][list_name], path):
                matched = False
        if matched:
            return Decision(entry["action"] == "permit",
                            f"route-map {name} {entry['action']} {entry['seq']} (line {entry['line']})")
    return Decision(False, f"route-map {name}: no entry matches {prefix} (implicit deny)")


def can_deny(contents: dict, ref: dict) -> bool:
    """False for a policy that lets every route through as far as the simulation reads it (a route map whose first
    entry permits with no match clause, AVD's RM-MLAG-PEER-IN; one not defined or not read): such a session keeps
    the fast per-origin engines (validators.leaf_pairs)."""
    if ref["kind"] == "prefix_list":
        return ref["name"] in contents["prefix_lists"]
    entries = contents["route_maps"].get(ref["name"])
    if not entries:
        return False
    first = entries[0]
    matches = first["prefix_lists"] or first["as_path_lists"] or any(
        clause["text"].startswith("match") for clause in first["unsupported"])
    return first["action"] == "deny" or bool(matches)


class SessionPolicies:
    """Per session end, the IPv4 unicast policies its neighbor statement names, by direction."""

    def __init__(self, structured, sessions) -> None:
        # (device, local interface) -> {"in": [refs], "out": [refs]}, and the device's policy contents
        self.refs: dict[tuple[str, str], dict[str, list[dict]]] = {}
        self.contents: dict[str, dict] = {}
        ends = {(s.a, s.a_interface) for s in sessions} | {(s.b, s.b_interface) for s in sessions}
        for host, config in structured.items():
            bgp = config.get("bgp") or {}
            contents = bgp.get("policy_contents")
            if not contents:
                continue
            self.contents[host] = contents
            for neighbor in bgp.get("neighbors") or ():
                key = (host, neighbor.get("interface"))
                if key not in ends:
                    continue
                for ref in neighbor.get("policy_refs", ()):
                    if ref.get("family", IPV4_UNICAST) == IPV4_UNICAST and can_deny(contents, ref):
                        self.refs.setdefault(key, {"in": [], "out": []})[ref["direction"]].append(ref)

    def __bool__(self) -> bool:
        return bool(self.refs)

    def decide(self, host: str, interface: str, direction: str, prefix: str,
               path: tuple[int, ...]) -> Decision | None:
        """The first policy at this end that denies the route (None: every one permits it or cannot tell)."""
        refs = self.refs.get((host, interface))
        if not refs:
            return None
        for ref in refs[direction]:
            decision = evaluate(self.contents[host], ref, prefix, path)
            if decision is not None and not decision.permitted:
                decision.cite = f"{host} {decision.cite}, {direction} on neighbor at {interface}"
                return decision
        return None
