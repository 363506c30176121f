"""The optional per-neighbor BGP lines of parsed foreign configs (docs/structured-config.md, "Foreign routing
features"), printed the same way by the EOS and FRR renderers: what compiler.parse.bgp_options reads back.

Compiled structured configs never carry these keys, so generated configs (and the goldens) do not change.
Syntax: Arista EOS User Manual "BGP" and the FRR user guide "BGP" (identical for these commands).
"""

from __future__ import annotations

from compiler.structured.contract import Neighbor, PeerGroup


def session_lines(peer: str, neighbor: Neighbor | PeerGroup, indent: str, bfd: bool = True) -> str:
    """Session options: ``shutdown`` (RFC 4486), ``local-as`` (RFC 7705), ``bfd`` / FRR ``bfd profile``
    (``bfd`` False: a peer group's plain ``bfd``, which the templates print already)."""
    out = []
    if "update_source" in neighbor:
        out.append(f"{indent}neighbor {peer} update-source {neighbor['update_source']}\n")
    if "ebgp_multihop" in neighbor:
        out.append(f"{indent}neighbor {peer} ebgp-multihop {neighbor['ebgp_multihop']}\n")
    if neighbor.get("extended_nexthop"):
        out.append(f"{indent}neighbor {peer} capability extended-nexthop\n")
    if neighbor.get("shutdown"):
        out.append(f"{indent}neighbor {peer} shutdown\n")
    if "local_as" in neighbor:
        out.append(f"{indent}neighbor {peer} local-as {neighbor['local_as']} no-prepend replace-as\n")
    if "bfd_profile" in neighbor:
        out.append(f"{indent}neighbor {peer} bfd profile {neighbor['bfd_profile']}\n")
    elif bfd and neighbor.get("bfd"):
        out.append(f"{indent}neighbor {peer} bfd\n")
    return "".join(out)


def family_lines(peer: str, neighbor: Neighbor | PeerGroup, indent: str, evpn: bool | None = None) -> str:
    """Address-family options: ``route-reflector-client`` (RFC 4456) and the route maps / prefix lists named,
    except the export policy ``route_map_out`` the renderers print already. ``evpn``: None prints them all in one
    block (EOS); False the ones outside ``address-family l2vpn evpn``, True only the policies stated in it (FRR,
    which prints that family's block apart)."""
    out = []
    if evpn is not True and neighbor.get("route_reflector_client"):
        out.append(f"{indent}neighbor {peer} route-reflector-client\n")
    if evpn is not True and neighbor.get("next_hop_self"):
        out.append(f"{indent}neighbor {peer} next-hop-self\n")
    for ref in neighbor.get("policy_refs", ()):
        if evpn is not None and evpn != (ref.get("family") == "l2vpn_evpn"):
            continue
        if ref["kind"] == "route_map" and ref["direction"] == "out" and ref["name"] == neighbor.get("route_map_out"):
            continue
        out.append(f"{indent}neighbor {peer} {ref['kind'].replace('_', '-')} {ref['name']} {ref['direction']}\n")
    return "".join(out)


def group_lines(groups: list[PeerGroup], indent: str, family: bool, evpn: bool | None = None) -> str:
    """The session (``family`` False) or address-family options of parsed peer groups, in group order; a
    group's description with its session options. ``evpn``: as :func:`family_lines`."""
    return "".join(family_lines(group["name"], group, indent, evpn) if family else
                   (f"{indent}neighbor {group['name']} description {group['description']}\n"
                    if group.get("description") else "") + session_lines(group["name"], group, indent, bfd=False)
                   for group in groups)
