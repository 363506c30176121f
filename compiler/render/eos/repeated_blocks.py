"""The EOS blocks repeated per port and per BGP neighbor, formatted in Python instead of Jinja.

A 1,024-port spine prints ~15,000 lines of interface and neighbor configuration; in Jinja every ``{{ a.b }}``
on a dict first tries ``getattr`` and pays for an AttributeError before reading the item, which made these two
loops ~80% of EOS render time at 1,088 switches. Here they are plain string formatting with the same output,
byte for byte, as the templates they replace (tests/golden pins it). Nothing is decided here: every line is a
field of the structured config (docs/structured-config.md) printed as it is.

Ports share their QoS block: the compiler hands every port with the same speed, cable length and MTU the SAME
``qos`` dict object (compiler.structured.qos_policy.FabricQos.port_qos), so the QoS lines are formatted once per
distinct dict object and reused. The cache lives for one render call only, while the structured config holds
every dict alive, so an ``id()`` can never be reused by another object during the call.
"""

from __future__ import annotations

from collections.abc import Callable

KIND_SERVER, KIND_UNUSED = "server", "unused"


def _by_int_key(mapping: dict) -> list:
    return sorted(mapping.items(), key=lambda item: int(item[0]))


def vlan_list(vlan_ids) -> str:
    """``switchport trunk allowed vlan`` argument: sorted, de-duplicated, comma separated."""
    return ",".join(str(vlan_id) for vlan_id in sorted(set(vlan_ids)))


def port_qos_lines(port_qos: dict, watchdog_action: str | None) -> str:
    """DSCP trust, PFC on the lossless priorities, PFC watchdog and ECN per tx-queue of one port."""
    lines = []
    if port_qos["trust"]:
        lines.append(f"   qos trust {port_qos['trust']}\n")
    if port_qos["pfc_priorities"]:
        lines.append("   priority-flow-control on\n")
        for priority in sorted(port_qos["pfc_priorities"]):
            lines.append(f"   priority-flow-control priority {priority} no-drop\n")
        if port_qos["pfc_watchdog"] and watchdog_action:
            lines.append("   priority-flow-control pause watchdog\n")
    for queue, ecn in _by_int_key(port_qos["ecn"]):
        lines.append(
            f"   !\n   tx-queue {queue}\n      random-detect ecn minimum-threshold {ecn['min_bytes']} bytes "
            f"maximum-threshold {ecn['max_bytes']} bytes max-mark-probability {ecn['probability']}\n"
        )
    return "".join(lines)


def ethernet_interfaces(interfaces: list[dict], watchdog_action: str | None,
                        eos_speed: Callable[[dict], str]) -> str:
    """Front-panel ports: routed fabric links, server access/trunk ports, unused ports shut; per-port RoCE QoS."""
    parts: list[str] = []
    append = parts.append
    qos_text_by_id: dict[int, str] = {}
    speed_by_rate: dict[tuple, str] = {}
    for interface in interfaces:
        append(f"!\ninterface {interface['name']}\n")
        if interface["description"]:
            append(f"   description {interface['description']}\n")
        append("   no shutdown\n" if interface["enabled"] else "   shutdown\n")
        if interface["mtu"]:
            append(f"   mtu {interface['mtu']}\n")
        if interface["speed_gbps"]:
            rate = (type(interface["speed_gbps"]), interface["speed_gbps"], interface.get("lanes"))
            speed = speed_by_rate.get(rate)
            if speed is None:
                speed = speed_by_rate[rate] = eos_speed(interface)
            append(f"   speed {speed}\n")
        kind = interface["kind"]
        if kind == KIND_SERVER and interface["trunk_vlans"]:
            access_vlan = interface["access_vlan"]
            allowed = interface["trunk_vlans"] + ([access_vlan] if access_vlan else [])
            append(f"   switchport mode trunk\n   switchport trunk allowed vlan {vlan_list(allowed)}\n")
            if access_vlan:
                append(f"   switchport trunk native vlan {access_vlan}\n")
        elif kind == KIND_SERVER and interface["access_vlan"]:
            append(f"   switchport mode access\n   switchport access vlan {interface['access_vlan']}\n")
        elif kind != KIND_UNUSED:
            append("   no switchport\n")
            if interface["ip"]:
                append(f"   ip address {interface['ip']}\n")
        port_qos = interface["qos"]
        if port_qos:
            text = qos_text_by_id.get(id(port_qos))
            if text is None:
                text = qos_text_by_id[id(port_qos)] = port_qos_lines(port_qos, watchdog_action)
            append(text)
    return "".join(parts)


def bgp_neighbor_lines(neighbors: list[dict]) -> str:
    """``neighbor <address> peer group / remote-as / description`` for every BGP neighbor, in contract order."""
    parts: list[str] = []
    append = parts.append
    for neighbor in neighbors:
        address = neighbor["address"]
        if neighbor["peer_group"]:
            append(f"   neighbor {address} peer group {neighbor['peer_group']}\n")
        append(f"   neighbor {address} remote-as {neighbor['remote_as']}\n")
        if neighbor["description"]:
            append(f"   neighbor {address} description {neighbor['description']}\n")
    return "".join(parts)
