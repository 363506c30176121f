"""BGP export policy (the 5-stage Clos valley-free route maps, compiler.structured.valley_free) read back.

EOS and FRR both print a route map entry per ``bgp.route_maps[].entries[]`` (``route-map NAME ACTION SEQ``) whose
AS-path regex, when it has one, sits in an AS-path access list named ``NAME-SEQ`` (EOS ``ip as-path access-list
NAME-SEQ permit REGEX any``, FRR ``bgp as-path access-list NAME-SEQ seq 5 permit REGEX``) matched by ``match as-path
NAME-SEQ``; a neighbor states its export policy as ``neighbor X route-map NAME out`` in the IPv4 unicast address
family. :class:`AsPathPolicies` collects those lines and yields the structured ``route_maps`` the neighbors use.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.parse.common import Node
from compiler.structured.contract import RouteMap, RouteMapEntry


class AsPathPolicies:
    """AS-path access lists and AS-path route maps of one config, in the order the text states them."""

    def __init__(self) -> None:
        self.as_paths: dict[str, tuple[str, Node]] = {}
        self.entries: dict[str, list[tuple[int, str, str | None, Node]]] = {}

    def as_path_line(self, node: Node, platform: str) -> bool:
        """An AS-path access list line (single permit regex): True when it is one (used once a route map in use
        matches it)."""
        words = node.words()
        if platform == "eos":
            matched = words[:3] == ["ip", "as-path", "access-list"] and len(words) == 7 and words[4] == "permit" \
                and words[6] == "any"
        else:
            matched = words[:3] == ["bgp", "as-path", "access-list"] and len(words) == 8 and words[4] == "seq" \
                and words[6] == "permit"
        if not matched or node.children or words[3] in self.as_paths:
            return False
        self.as_paths[words[3]] = (words[-2] if platform == "eos" else words[-1], node)
        return True

    def route_map(self, node: Node) -> bool:
        """``route-map NAME permit|deny SEQ`` with no match or one ``match as-path LIST`` (used once a neighbor
        exports through it)."""
        words = node.words()
        if words[0] != "route-map" or len(words) != 4 or words[2] not in ("permit", "deny") or not words[3].isdigit():
            return False
        children = [child for child in node.children if child.text != "exit"]
        as_path_list = None
        if len(children) == 1 and children[0].words()[:2] == ["match", "as-path"] and len(children[0].words()) == 3:
            as_path_list = children[0].words()[2]
        elif children:
            return False
        self.entries.setdefault(words[1], []).append((int(words[3]), words[2], as_path_list, node))
        return True

    def route_maps(self, names: list[str]) -> list[RouteMap] | None:
        """The route maps ``names`` (those neighbors export through), or None when one is not fully stated (its
        entries or an AS-path list missing): then the neighbor lines stay unmodelled."""
        out: list[RouteMap] = []
        stated: list[Node] = []
        for name in dict.fromkeys(names):
            if name not in self.entries:
                return None
            entries: list[RouteMapEntry] = []
            for seq, action, as_path_list, node in self.entries[name]:
                regex = None
                if as_path_list is not None:
                    if as_path_list not in self.as_paths:
                        return None
                    regex, list_node = self.as_paths[as_path_list]
                    stated.append(list_node)
                stated += [node, *node.children]
                entries.append({"seq": seq, "action": action, "as_path": regex})
            out.append({"name": name, "entries": entries})
        for node in stated:
            node.used = True
        return out


def apply_route_maps(policies: AsPathPolicies, exports: list[tuple[Node, str, str]], neighbors: dict[str, dict],
                     bgp: dict) -> None:
    """Set ``route_map_out`` on the neighbors of ``exports`` ((line, neighbor key, route map)) and ``bgp.route_maps``
    when every named route map is stated; a line naming no known neighbor stays unmodelled."""
    known = [(node, target, name) for node, target, name in exports if target in neighbors]
    route_maps = policies.route_maps([name for _, _, name in known])
    if not known or route_maps is None:
        return
    for node, target, name in known:
        neighbors[target]["route_map_out"] = name
        node.used = True
    bgp["route_maps"] = route_maps


def route_map_out(words: list[str]) -> tuple[str, str] | None:
    """``neighbor X route-map NAME out`` -> (X, NAME)."""
    if words[0] == "neighbor" and len(words) == 5 and words[2] == "route-map" and words[4] == "out":
        return words[1], words[3]
    return None


# ------------------------------------------------------------------------------ contents of neighbor policies
# Route-map and prefix-list CONTENTS for the policies neighbors name (``neighbor X route-map NAME in|out``,
# ``neighbor X prefix-list NAME in|out``), read into ``bgp.policy_contents`` so the routing simulation
# (validators.policy) applies them. Syntax: Arista EOS User Manual "Route Maps" / "Prefix Lists" and the FRR user
# guide "Route Maps" / "IP Prefix Lists": a route map's entries are tried by sequence, the first whose every match
# clause holds decides (permit/deny), none matching is an implicit deny; a prefix list is tried the same way.
# What is read: ``match ip address prefix-list NAME`` and ``match as-path NAME`` (both platforms), ``description``.
# Any other match or set clause stays unmodelled (a coverage gap naming device and line: the routing checks are
# then incomplete) and is listed on the entry, so the simulation never denies on what it did not read.
_SKIPPED_CLAUSES = ("description", "exit")
IPV4_UNICAST = "ipv4_unicast"


def _prefix_entry(words: list[str], line: int, default_seq: int) -> dict | None:
    """``[seq N] permit|deny PREFIX [ge A] [le B] | [eq C]`` (``any``: 0.0.0.0/0 le 32) -> entry, else None."""
    seq = default_seq
    if words[:1] == ["seq"]:
        if len(words) < 2 or not words[1].isdigit():
            return None
        seq, words = int(words[1]), words[2:]
    if len(words) < 2 or words[0] not in ("permit", "deny"):
        return None
    prefix = "0.0.0.0/0" if words[1] == "any" else words[1]
    if "/" not in prefix or ":" in prefix:
        return None  # IPv4 only: the routing simulation carries IPv4 unicast
    bounds: dict[str, int] = {}
    rest = words[2:]
    if words[1] == "any":
        bounds = {"ge": 0, "le": 32}
    while rest:
        if len(rest) < 2 or rest[0] not in ("ge", "le", "eq") or not rest[1].isdigit():
            return None
        if rest[0] == "eq":
            bounds["ge"] = bounds["le"] = int(rest[1])
        else:
            bounds[rest[0]] = int(rest[1])
        rest = rest[2:]
    return {"seq": seq, "action": words[0], "prefix": prefix, "ge": bounds.get("ge"), "le": bounds.get("le"),
            "line": line}


def policy_contents(roots: list[Node], bgp: dict, at: Callable[[str, Node], None]) -> None:
    """``bgp.policy_contents`` for the route maps and prefix lists the neighbors and peer groups of ``bgp`` name
    (their ``policy_refs``), with the lines read marked used; nothing when no neighbor names a policy. Each route
    map entry's header is located (``at("route-map NAME SEQ", node)``) so a clause it holds that stays unmodelled
    is reported under routing policy, naming the route map (validators.configs.coverage_gaps)."""
    refs = [ref for entry in (*bgp["peer_groups"], *bgp["neighbors"]) for ref in entry.get("policy_refs", ())
            if ref.get("family", IPV4_UNICAST) == IPV4_UNICAST]  # what the simulation carries
    if not refs:
        return
    prefix_nodes: dict[str, list[tuple[Node, list[str]]]] = {}
    as_path_nodes: dict[str, list[tuple[Node, str, str]]] = {}
    map_nodes: dict[str, list[Node]] = {}
    for node in roots:
        words = node.words()
        if words[:2] == ["ip", "prefix-list"] and len(words) == 3:  # EOS block form: `seq N ...` below
            for child in node.children:
                prefix_nodes.setdefault(words[2], []).append((child, child.words()))
            prefix_nodes.setdefault(words[2], []).append((node, []))
        elif words[:2] == ["ip", "prefix-list"] and len(words) >= 5:  # one line (FRR, older EOS)
            prefix_nodes.setdefault(words[2], []).append((node, words[3:]))
        elif words[:3] == ["ip", "as-path", "access-list"] and len(words) >= 6 and words[4] in ("permit", "deny"):
            # EOS: `ip as-path access-list NAME permit|deny REGEX [any]`
            regex = " ".join(words[5:-1] if words[-1] in ("any", "igp", "egp", "incomplete") else words[5:])
            as_path_nodes.setdefault(words[3], []).append((node, words[4], regex))
        elif words[:3] == ["bgp", "as-path", "access-list"] and len(words) >= 6:
            # FRR: `bgp as-path access-list NAME [seq N] permit|deny REGEX`
            rest = words[6:] if words[4] == "seq" else words[4:]
            if len(rest) >= 2 and rest[0] in ("permit", "deny"):
                as_path_nodes.setdefault(words[3], []).append((node, rest[0], " ".join(rest[1:])))
        elif words[0] == "route-map" and len(words) == 4 and words[2] in ("permit", "deny") and words[3].isdigit():
            map_nodes.setdefault(words[1], []).append(node)
    contents: dict = {"route_maps": {}, "prefix_lists": {}, "as_path_lists": {}}

    def prefix_list(name: str) -> bool:
        if name in contents["prefix_lists"]:
            return True
        if name not in prefix_nodes:
            return False
        entries, stated = [], []
        for number, (node, words) in enumerate(prefix_nodes[name]):
            if not words:  # the block header
                stated.append(node)
                continue
            entry = _prefix_entry(words, node.line, (number + 1) * 5)  # FRR numbers unnumbered entries by 5
            if entry is None:
                return False  # a line not read: the list stays unmodelled, and its references unapplied
            entries.append(entry)
            stated.append(node)
        for node in stated:
            node.used = True
        contents["prefix_lists"][name] = sorted(entries, key=lambda entry: entry["seq"])
        return True

    def as_path_list(name: str) -> bool:
        if name not in as_path_nodes:
            return False
        contents["as_path_lists"][name] = [{"action": action, "regex": regex}
                                           for _node, action, regex in as_path_nodes[name]]
        for node, _action, _regex in as_path_nodes[name]:
            node.used = True
        return True

    for ref in refs:
        if ref["kind"] == "prefix_list":
            prefix_list(ref["name"])
            continue
        if ref["name"] in contents["route_maps"] or ref["name"] not in map_nodes:
            continue
        entries = []
        for node in map_nodes[ref["name"]]:
            words = node.words()
            entry: dict = {"seq": int(words[3]), "action": words[2], "line": node.line, "prefix_lists": [],
                           "as_path_lists": [], "unsupported": []}
            at(f"route-map {ref['name']} {words[3]}", node)
            for child in node.children:
                child_words = child.words()
                if child_words[0] in _SKIPPED_CLAUSES:
                    child.used = True
                elif child_words[:4] == ["match", "ip", "address", "prefix-list"] and len(child_words) == 5 \
                        and prefix_list(child_words[4]):
                    entry["prefix_lists"].append(child_words[4])
                    child.used = True
                elif child_words[:2] == ["match", "as-path"] and len(child_words) == 3 \
                        and as_path_list(child_words[2]):
                    entry["as_path_lists"].append(child_words[2])
                    child.used = True
                else:
                    entry["unsupported"].append({"line": child.line, "text": child.text})
            # An entry whose match clauses were all read is read (an unread set clause stays unmodelled alone);
            # one with a match clause not read cannot be judged: its header stays unmodelled too.
            node.used = node.used or not any(clause["text"].startswith("match") for clause in entry["unsupported"])
            entries.append(entry)
        contents["route_maps"][ref["name"]] = sorted(entries, key=lambda entry: entry["seq"])
    bgp["policy_contents"] = contents
