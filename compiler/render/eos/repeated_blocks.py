"""The EOS blocks repeated per port and per BGP neighbor, formatted in Python instead of Jinja.

A 1,024-port spine prints ~15,000 lines of interface and neighbor configuration; in Jinja every ``{{ a.b }}``
on a dict first tries ``getattr`` and pays for an AttributeError before reading the item, which made these two
loops ~80% of EOS render time at 1,088 switches. Here they are plain string formatting with the same output,
byte for byte, as the templates they replace (tests/golden pins it). Nothing is decided here: every line is a
field of the structured config (docs/structured-config.md) printed as it is.

Ports share their QoS: the compiler hands every port with the same speed, cable length and MTU the SAME ``qos``
dict object (compiler.structured.qos_policy.FabricQos.port_qos); the renderer prints one ``qos profile`` per
distinct policy and each port names it (``service-profile``), looked up by the dict's ``id()``. The mapping lives
for one render call only, while the structured config holds every dict alive, so an ``id()`` can never be reused
by another object during the call.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.render import bgp_options, igp
from compiler.render.unset import unset_or
from compiler.structured.contract import Interface, Neighbor, PortChannel, PortQos, QueueScheduling

KIND_SERVER, KIND_UNUSED = "server", "unused"
PORT_CHANNEL = "Port-Channel"


def vlan_list(vlan_ids) -> str:
    """``switchport trunk allowed vlan`` argument: sorted, de-duplicated, comma separated."""
    return ",".join(str(vlan_id) for vlan_id in sorted(set(vlan_ids)))


def qos_profile_lines(port_qos: PortQos, scheduling: dict[str, QueueScheduling], queue_keyword: str, watchdog_enabled: bool) -> str:
    """The body of a ``qos profile``: DSCP trust, PFC on the lossless traffic classes, the PFC watchdog, and per
    egress queue (``uc-tx-queue`` on Strata, ``tx-queue`` on Sand) its scheduling and ECN thresholds."""
    lines = []
    if port_qos["trust"]:
        lines.append(f"   qos trust {port_qos['trust']}\n")
    if port_qos["pfc_priorities"]:
        lines.append("   priority-flow-control on\n")
        for priority in sorted(port_qos["pfc_priorities"]):
            lines.append(f"   priority-flow-control priority {priority} no-drop\n")
        if port_qos["pfc_watchdog"] and watchdog_enabled:
            lines.append("   priority-flow-control pause watchdog\n")
    ecn_by_queue = port_qos["ecn"]
    for queue in sorted({*scheduling, *ecn_by_queue}, key=int):
        lines.append(f"   !\n   {queue_keyword} {queue}\n")
        entry = scheduling.get(queue)
        if entry and entry["mode"] == "strict":
            lines.append("      priority strict\n")
        elif entry:
            lines.append(f"      no priority\n      bandwidth percent {entry['weight_percent']}\n")
        ecn = ecn_by_queue.get(queue)
        if ecn:
            lines.append(f"      random-detect ecn minimum-threshold {ecn['min_bytes']} bytes maximum-threshold "
                         f"{ecn['max_bytes']} bytes max-mark-probability {ecn['probability']}\n")
    return "".join(lines)


def ethernet_interfaces(interfaces: list[Interface], profile_by_port_qos: dict[int, str],
                        eos_speed: Callable[[Interface], str], bundle_mtus: dict[str, int | None],
                        bundle_qos: dict[str, PortQos], igp_process: str = "") -> str:
    """Front-panel ports: routed fabric links, server access/trunk ports (edge ports: portfast), unused ports shut;
    RoCE ports name their QoS profile; port-channel members name their bundle (and print an MTU only where it
    differs from the bundle's, which they inherit)."""
    parts: list[str] = []
    append = parts.append
    speed_by_rate: dict[tuple, str] = {}
    for interface in interfaces:
        append(f"!\ninterface {interface['name']}\n")
        if interface["description"]:
            append(f"   description {interface['description']}\n")
        append("   no shutdown\n" if interface["enabled"] else "   shutdown\n")
        bundle = interface.get("port_channel")
        if interface["mtu"] and (not bundle or interface["mtu"] != bundle_mtus.get(bundle)):
            append(f"   mtu {interface['mtu']}\n")
        if interface["speed_gbps"]:
            rate = (type(interface["speed_gbps"]), interface["speed_gbps"], interface.get("lanes"))
            speed = speed_by_rate.get(rate)
            if speed is None:
                speed = speed_by_rate[rate] = eos_speed(interface)
            append(f"   speed {speed}\n")
        kind = interface["kind"]
        # A Layer-2 port says `switchport` explicitly (EOS's default, printed as Arista's AVD prints it).
        if bundle:
            # `channel-group N mode active|passive|on` (EOS "Port Channels"): the bundle carries the L2/L3 lines.
            append(f"   channel-group {bundle[len(PORT_CHANNEL):]} mode {interface.get('lacp_mode') or 'on'}\n")
        elif kind == KIND_SERVER and (interface.get("switchport_mode") == "trunk" or interface.get("trunk_groups")
                                      or interface.get("native_vlan_tag")):
            append(switchport_lines(interface))  # read from a foreign config: printed in AVD's order
        elif kind == KIND_SERVER and interface["trunk_vlans"]:
            access_vlan = interface["access_vlan"]
            allowed = interface["trunk_vlans"] + ([access_vlan] if access_vlan else [])
            append(f"   switchport mode trunk\n   switchport trunk allowed vlan {vlan_list(allowed)}\n")
            if access_vlan:
                append(f"   switchport trunk native vlan {access_vlan}\n")
            append("   switchport\n")
        elif kind == KIND_SERVER and interface.get("switchport_mode") == "access" and not interface["access_vlan"]:
            append("   switchport mode access\n   switchport\n")  # read from a foreign config: VLAN 1, EOS's default
        elif kind == KIND_SERVER and interface["access_vlan"]:
            append(f"   switchport mode access\n   switchport access vlan {interface['access_vlan']}\n   switchport\n")
        elif kind != KIND_UNUSED:
            append("   no switchport\n")
            if interface["ip"]:
                append(f"   ip address {interface['ip']}\n")
            elif interface.get("dhcp"):
                append("   ip address dhcp\n")
            if interface.get("ipv6"):
                append(f"   ipv6 address {interface['ipv6']}\n")
            elif interface["unnumbered"]:
                append("   ipv6 enable\n")  # RFC 5549: BGP over the IPv6 link-local address
            if "igp" in interface:  # parsed foreign configs only (compiler.render.igp)
                append(igp.interface_lines(interface["igp"], igp_process, "eos", "   "))
        if kind == KIND_SERVER and not bundle and (interface["access_vlan"] or interface["trunk_vlans"]):
            # A server NIC is an edge port: forward at once instead of waiting out STP listening/learning.
            append("   spanning-tree portfast\n")
        if interface["qos"] and not (bundle and interface["qos"] == bundle_qos.get(bundle)):
            append(f"   service-profile {profile_by_port_qos[id(interface['qos'])]}\n")  # not one the bundle gives
        if len(interface) > len(Interface.__required_keys__):  # foreign port settings (parsed configs only)
            append(port_setting_lines(interface))
    return "".join(parts)


def port_setting_lines(port: Interface | PortChannel) -> str:
    """Port settings read from foreign configs (compiler.parse.eos._port_setting): storm control, PTP, BPDU
    filter, MACsec profile."""
    lines = []
    for traffic, level in (port.get("storm_control") or {}).items():
        unit = "pps " if level["unit"] == "pps" else ""
        lines.append(f"   storm-control {traffic} level {unit}{level['level']}\n")
    if port.get("ptp"):
        lines.append("   ptp enable\n")
    if port.get("stp_bpdufilter"):
        lines.append("   spanning-tree bpdufilter enable\n")
    if port.get("macsec_profile"):
        lines.append(f"   mac security profile {port['macsec_profile']}\n")
    return "".join(lines)


def switchport_lines(port) -> str:
    """A trunk's lines, as AVD prints them: native VLAN (tagged or not), allowed VLANs (none listed: all),
    trunk groups, then ``switchport``. ``port`` is an interface or a port-channel (same keys)."""
    lines = []
    access_vlan = port["access_vlan"]
    if access_vlan:
        lines.append(f"   switchport trunk native vlan {access_vlan}\n")
    if port.get("native_vlan_tag"):
        lines.append("   switchport trunk native vlan tag\n")
    if port["trunk_vlans"]:
        allowed = port["trunk_vlans"] + ([access_vlan] if access_vlan else [])
        lines.append(f"   switchport trunk allowed vlan {vlan_list(allowed)}\n")
    lines.append("   switchport mode trunk\n")
    lines.extend(f"   switchport trunk group {group}\n" for group in port.get("trunk_groups") or [])
    lines.append("   switchport\n")
    return "".join(lines)


def port_channel_interfaces(port_channels: list[PortChannel], profile_by_port_qos: dict[int, str]) -> str:
    """``interface Port-ChannelN`` blocks (EOS "Port Channels", "MLAG"): the bundle's L2 or L3 settings, min-links,
    its MLAG id on a dual-attached bundle, and QoS stated on the bundle itself as the ``service-profile`` of its
    qos profile, in AVD's order. EOS takes PFC and queue settings on Ethernet ports only (AVD's
    port_channel_interfaces schema has service_profile and qos trust, no priority-flow-control or tx-queue)."""
    parts: list[str] = []
    for bundle in port_channels:
        parts.append(f"!\ninterface {bundle['name']}\n")
        if bundle["description"]:
            parts.append(f"   description {bundle['description']}\n")
        parts.append("   no shutdown\n" if bundle["enabled"] else "   shutdown\n")
        if bundle["mtu"]:
            parts.append(f"   mtu {bundle['mtu']}\n")
        if bundle["switchport_mode"] == "trunk" or (bundle["trunk_vlans"] and not bundle["ip"]):
            parts.append(switchport_lines(bundle))
        elif bundle["switchport_mode"] == "access" or bundle["access_vlan"]:
            access = f"   switchport access vlan {bundle['access_vlan']}\n" if bundle["access_vlan"] else ""
            parts.append(f"   switchport mode access\n{access}   switchport\n")
        elif bundle["ip"]:
            parts.append(f"   no switchport\n   ip address {bundle['ip']}\n")
        if bundle["min_links"] is not None:
            parts.append(f"   port-channel min-links {bundle['min_links']}\n")
        if bundle["mlag"] is not None:
            parts.append(f"   mlag {bundle['mlag']}\n")
        if bundle["qos"]:
            parts.append(f"   service-profile {profile_by_port_qos[id(bundle['qos'])]}\n")
        parts.append(port_setting_lines(bundle))
        segment = bundle.get("evpn_ethernet_segment")
        if segment:  # EVPN multihoming (parsed foreign configs only)
            parts.append("   !\n   evpn ethernet-segment\n")
            if segment["identifier"]:
                parts.append(f"      identifier {segment['identifier']}\n")
            if segment["route_target_import"]:
                parts.append(f"      route-target import {segment['route_target_import']}\n")
        if bundle.get("lacp_system_id"):
            parts.append(f"   lacp system-id {bundle['lacp_system_id']}\n")
    return "".join(parts)


def bgp_neighbor_lines(neighbors: list[Neighbor]) -> str:
    """``neighbor <address> peer group / remote-as / description`` for every BGP neighbor, in contract order."""
    parts: list[str] = []
    append = parts.append
    for neighbor in neighbors:
        address = neighbor["address"]
        if address is None:  # unnumbered (RFC 5549): EOS names the interface and needs the peer group
            # No remote-as: the peer group states it, or a peer filter accepts the ASN (EOS `peer-filter`).
            remote_as = "" if neighbor["remote_as"] is None else f" remote-as {neighbor['remote_as']}"
            append(f"   neighbor interface {neighbor['interface']} peer-group {neighbor['peer_group']}{remote_as}\n")
            continue
        if neighbor["peer_group"]:
            append(f"   neighbor {address} peer group {neighbor['peer_group']}\n")
        append(f"   neighbor {address} remote-as {unset_or(neighbor['remote_as'])}\n")  # None: line left out
        if neighbor["description"]:
            append(f"   neighbor {address} description {neighbor['description']}\n")
        if len(neighbor) > len(Neighbor.__required_keys__):  # foreign options (parsed configs only)
            append(bgp_options.session_lines(address, neighbor, "   "))
            append(bgp_options.family_lines(address, neighbor, "   "))
    return "".join(parts)
