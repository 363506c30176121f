"""BGP export policy (the 5-stage Clos valley-free route maps, compiler.structured.valley_free) read back.

EOS and FRR both print a route map entry per ``bgp.route_maps[].entries[]`` (``route-map NAME ACTION SEQ``) whose
AS-path regex, when it has one, sits in an AS-path access list named ``NAME-SEQ`` (EOS ``ip as-path access-list
NAME-SEQ permit REGEX any``, FRR ``bgp as-path access-list NAME-SEQ seq 5 permit REGEX``) matched by ``match as-path
NAME-SEQ``; a neighbor states its export policy as ``neighbor X route-map NAME out`` in the IPv4 unicast address
family. :class:`AsPathPolicies` collects those lines and yields the structured ``route_maps`` the neighbors use.
"""

from __future__ import annotations

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
