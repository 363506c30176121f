"""The frr.conf blocks repeated per port and per BGP neighbor, formatted in Python instead of Jinja.

A 1,024-port spine prints ~8,000 such lines; as Jinja loops they were most of FRR render time at 1,088 switches
(and of SONiC's, which reuses this renderer). The output is byte for byte what ``templates/frr.conf.j2`` printed
in these loops (tests/golden pins it). The only decisions are the ones :func:`compiler.render.frr.frr_view` made
before: the interface name mapping, unused ports left out, unnumbered peers addressed by interface.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.render import bgp_options, igp
from compiler.render.unset import unset_or
from compiler.structured.contract import Bgp, Interface, Neighbor

KIND_UNUSED = "unused"


def interface_blocks(interfaces: list[Interface], ifname: Callable[[str], str], igp_process: str = "") -> str:
    """``interface`` blocks (description, router advertisements when unnumbered, shutdown) of the used ports."""
    parts: list[str] = []
    append = parts.append
    for interface in interfaces:
        if interface["kind"] == KIND_UNUSED:
            continue
        name, description = ifname(interface["name"]), interface["description"]
        unnumbered, shutdown = interface["unnumbered"], not interface["enabled"]
        # A parsed port may have no description (a compiled one always names its peer).
        append(f"interface {name}\n description {description}\n" if description else f"interface {name}\n")
        if interface.get("ipv6"):  # parsed foreign configs only: zebra states IPv6 addresses (the plan does not)
            append(f" ipv6 address {interface['ipv6']}\n")
        if unnumbered:
            # RFC 5549 unnumbered BGP learns the peer's link-local address from router advertisements.
            append(" ipv6 nd ra-interval 10\n no ipv6 nd suppress-ra\n")
        if shutdown:
            append(" shutdown\n")
        if "igp" in interface:  # parsed foreign configs only (compiler.render.igp)
            append(igp.interface_lines(interface["igp"], igp_process, "frr", " "))
        append("exit\n!\n")
    return "".join(parts)


def neighbor_lines(neighbors: list[Neighbor], ifname: Callable[[str], str]) -> str:
    """``neighbor`` lines of ``router bgp``: by address, or by interface when unnumbered (address null)."""
    parts: list[str] = []
    append = parts.append
    for neighbor in neighbors:
        unnumbered = neighbor["address"] is None
        peer = ifname(neighbor["interface"]) if unnumbered else neighbor["address"]
        remote_as, peer_group, description = unset_or(neighbor["remote_as"]), neighbor["peer_group"], neighbor["description"]
        if peer_group is None:
            # A neighbor outside every peer group: a parsed foreign or hand-edited config (the twin runs it).
            append(f" neighbor {peer} interface remote-as {remote_as}\n" if unnumbered
                   else f" neighbor {peer} remote-as {remote_as}\n")
        elif unnumbered:
            append(f" neighbor {peer} interface peer-group {peer_group}\n neighbor {peer} remote-as {remote_as}\n")
        else:
            append(f" neighbor {peer} remote-as {remote_as}\n neighbor {peer} peer-group {peer_group}\n")
        if description:
            append(f" neighbor {peer} description {description}\n")
        if len(neighbor) > len(Neighbor.__required_keys__):  # foreign options (parsed configs only)
            append(bgp_options.session_lines(str(peer), neighbor, " "))
    return "".join(parts)


def listen_range_lines(bgp: Bgp) -> str:
    """``bgp listen range`` of parsed dynamic neighbors (FRR; SONiC BGP_PEER_RANGE read back)."""
    return "".join(f" bgp listen range {prefix} peer-group {listen['name']}\n"
                   for listen in bgp.get("listen_ranges", ()) for prefix in listen["prefixes"]
                   if any(group["name"] == listen["name"] for group in bgp["peer_groups"]))


def ipv6_family_lines(neighbors: list[Neighbor]) -> str:
    """``address-family ipv6 unicast`` activation of parsed foreign IPv6 neighbors (the compiler builds none)."""
    return "".join(f"  neighbor {neighbor['address']} activate\n" for neighbor in neighbors
                   if neighbor["address"] is not None and "ipv6_unicast" in neighbor["address_families"])


def ipv4_family_lines(neighbors: list[Neighbor], ifname: Callable[[str], str]) -> str:
    """``address-family ipv4 unicast`` lines of parsed foreign neighbors: activation of a neighbor outside every
    peer group (groups are activated by the template), route-reflector clients, route maps and prefix lists."""
    parts: list[str] = []
    for neighbor in neighbors:
        peer = ifname(neighbor["interface"]) if neighbor["address"] is None else neighbor["address"]
        if neighbor["peer_group"] is None and "ipv4_unicast" in neighbor["address_families"]:
            parts.append(f"  neighbor {peer} activate\n")
        if len(neighbor) > len(Neighbor.__required_keys__):
            parts.append(bgp_options.family_lines(peer, neighbor, "  ", evpn=False))
    return "".join(parts)


def evpn_family_lines(neighbors: list[Neighbor], ifname: Callable[[str], str]) -> str:
    """The policies parsed foreign neighbors name in ``address-family l2vpn evpn`` (the compiler states none)."""
    return "".join(bgp_options.family_lines(ifname(neighbor["interface"]) if neighbor["address"] is None
                                            else neighbor["address"], neighbor, "  ", evpn=True)
                   for neighbor in neighbors if len(neighbor) > len(Neighbor.__required_keys__))
