"""Per-neighbor BGP options EOS and FRR state the same way, read into the structured config's optional neighbor
and peer-group keys (docs/structured-config.md, "Foreign routing features"), and peer-group inheritance.

``neighbor X shutdown`` (administratively down: RFC 4486 cease subcode 2), ``neighbor X local-as N`` (the AS
presented to that peer, RFC 7705), ``neighbor X bfd`` (RFC 5880/5882; FRR ``bfd profile P``), ``neighbor X
route-reflector-client`` (RFC 4456), ``neighbor X next-hop-self`` (RFC 4271 section 5.1.3), ``neighbor X ebgp-multihop [N]`` (FRR), ``neighbor X
capability extended-nexthop`` (RFC 8950) and the policies a neighbor names (``route-map NAME in|out``,
``prefix-list NAME in|out``): existence is modelled, so a name no ``route-map``/``prefix-list`` defines is a
finding citing the line (validators.sessions). Syntax: Arista EOS User Manual "BGP" and the FRR user guide "BGP".
"""

from __future__ import annotations

from compiler.parse.common import Node, node_value, parse_asn

# The address families the model names, in the order the contract lists them.
FAMILY_ORDER = ("ipv4_unicast", "ipv6_unicast", "l2vpn_evpn")
# Keys a neighbor takes from its peer group when it does not state them itself (EOS and FRR inheritance). Not
# ``bfd``/``bfd_profile``: every peer group states BFD (the contract's PeerGroup.bfd) and the checks read it there.
INHERITED = ("shutdown", "local_as", "route_reflector_client", "update_source", "ebgp_multihop", "extended_nexthop")
# ``neighbor X ebgp-multihop`` with no count: FRR allows 255 hops (FRR user guide "BGP", ebgp-multihop).
EBGP_MULTIHOP_DEFAULT = 255


def neighbor_option(rest: list[str], entry: dict, node: Node, family: str | None = None) -> bool:
    """One ``neighbor X <rest>`` option (line ``node``) onto ``entry`` (a neighbor or a peer group); True when
    understood. A policy reference keeps its line so a finding about it cites the line, and the address family
    it was stated in (``family``; none: stated outside one, which EOS applies to IPv4 unicast)."""
    if rest == ["shutdown"]:
        entry["shutdown"] = True
    elif rest[0] == "local-as" and len(rest) >= 2 and set(rest[2:]) <= {"no-prepend", "replace-as", "dual-as",
                                                                         "fallback"}:
        entry["local_as"] = node_value(node, parse_asn, rest[1])
    elif rest == ["bfd"]:
        entry["bfd"] = True
    elif rest[:2] == ["bfd", "profile"] and len(rest) == 3:  # FRR: a named bfd profile (bfdd)
        entry["bfd"] = True
        entry["bfd_profile"] = rest[2]
    elif rest[0] == "ebgp-multihop" and len(rest) <= 2:
        # an eBGP session between loopbacks, N hops away (FRR user guide "BGP"; EOS alike)
        entry["ebgp_multihop"] = node_value(node, int, rest[1]) if len(rest) == 2 else EBGP_MULTIHOP_DEFAULT
    elif rest == ["capability", "extended-nexthop"]:
        entry["extended_nexthop"] = True  # RFC 8950 (was 5549): IPv4 routes with an IPv6 next hop
    elif rest == ["route-reflector-client"]:
        entry["route_reflector_client"] = True
    elif rest == ["next-hop-self"]:
        entry["next_hop_self"] = True  # routes to this peer carry our address as next hop (RFC 4271 5.1.3)
    elif rest[0] in ("route-map", "prefix-list") and len(rest) == 3 and rest[2] in ("in", "out"):
        ref = {"kind": rest[0].replace("-", "_"), "name": rest[1], "direction": rest[2], "line": node.line}
        # IPv4 unicast, where EOS applies a policy stated outside an address family, is the default: not stated.
        ref |= {"family": family} if family and family != "ipv4_unicast" else {}
        # One route map (prefix list) per direction: a later statement replaces the earlier one (EOS and FRR).
        entry["policy_refs"] = [old for old in entry.get("policy_refs", ()) if (
            old["kind"], old["direction"], old.get("family")) != (ref["kind"], ref["direction"], family)] + [ref]
    else:
        return False
    return True


def inherit(neighbor: dict, group: dict | None) -> None:
    """The options a neighbor does not state, from its peer group; policy references are the union."""
    if not group:
        return
    for key in INHERITED:
        if key in group and key not in neighbor:
            neighbor[key] = group[key]
    if group.get("policy_refs"):
        own = neighbor.get("policy_refs", [])
        stated = {(ref["kind"], ref["direction"]) for ref in own}
        neighbor["policy_refs"] = own + [ref for ref in group["policy_refs"]
                                         if (ref["kind"], ref["direction"]) not in stated]


def defined_policies(roots: list[Node]) -> dict[str, list[str]]:
    """Names of the route maps and prefix lists a config defines (EOS ``ip prefix-list NAME`` blocks and
    ``route-map NAME permit|deny SEQ``; FRR ``ip prefix-list NAME seq ...`` lines; IPv6 lists alike)."""
    route_maps: set[str] = set()
    prefix_lists: set[str] = set()
    for node in roots:
        words = node.words()
        if words[0] == "route-map" and len(words) >= 2:
            route_maps.add(words[1])
        elif words[:2] in (["ip", "prefix-list"], ["ipv6", "prefix-list"]) and len(words) >= 3:
            prefix_lists.add(words[2])
    return {"route_map": sorted(route_maps), "prefix_list": sorted(prefix_lists)}

