"""Feature interfaces_mtu: every switch port with its role (fabric, server, peer link, unused), MTU, address
and VLAN membership. Fabric and peer-link ports run at the underlay MTU; server ports at the host MTU (the
largest frame a host may send); unused ports are shut and keep their inventory MTU.

Each port carries ``lanes``, the electrical lanes it uses: its cage's lanes (compiler.hardware) divided by the
number of logical ports its physical port is broken out into (None when the model or cage is unknown).
"""

from __future__ import annotations

from collections import Counter

from compiler.hardware import port_lanes
from compiler.natural import natural_key
from compiler.structured.base import model_spec
from compiler.structured.contract import Interface, StructuredConfig

KIND_FABRIC, KIND_SERVER, KIND_PEER_LINK, KIND_UNUSED = "fabric", "server", "peer_link", "unused"


def apply(context, switch, config: StructuredConfig) -> None:
    intent = context.intent
    hostname = switch.hostname
    cabled = context.ports[hostname]
    switches = context.inventory.switches_by_name
    link_addresses = context.link_addresses
    port_networks = context.port_networks
    unnumbered = intent.underlay != "numbered"
    underlay_mtu, host_mtu = intent.underlay_mtu, intent.host_mtu
    interfaces: list[Interface] = []
    spec = model_spec(context, switch)
    breakout_counts = Counter(port.breakout_parent for port in switch.interfaces if port.breakout_parent)
    lanes_by_count: dict[int, int | None] = {}
    for port in sorted(switch.interfaces, key=lambda item: natural_key(item.name)):
        name = port.name
        count = breakout_counts[port.breakout_parent] if port.breakout_parent else 1
        if count not in lanes_by_count:
            lanes_by_count[count] = port_lanes(spec, count) if spec else None
        lanes = lanes_by_count[count]
        found = cabled.get(name)
        if found is None:
            interfaces.append({
                "name": name, "kind": KIND_UNUSED, "speed_gbps": port.speed_gbps, "lanes": lanes,
                "breakout_parent": port.breakout_parent, "mtu": port.mtu, "enabled": False,
                "description": port.description, "peer_device": None, "peer_interface": None, "cable": None,
                "cable_length_m": None, "ip": None, "unnumbered": False, "access_vlan": None, "trunk_vlans": [],
                "qos": {},
            })
            continue
        cable, peer_device, peer_interface = found
        access_vlan: int | None = None
        trunk_vlans: list[int] = []
        ip: str | None = None
        is_unnumbered = False
        if peer_device in switches:
            if cable.peer_link:
                kind, mtu, description = KIND_PEER_LINK, underlay_mtu, f"PEER_LINK {peer_device} {peer_interface}"
            else:
                kind, mtu, description = KIND_FABRIC, underlay_mtu, f"P2P {peer_device} {peer_interface}"
                ip, is_unnumbered = link_addresses[(hostname, name)], unnumbered
        else:
            kind, mtu, description = KIND_SERVER, host_mtu, f"SERVER {peer_device} {peer_interface}"
            networks = port_networks.get((hostname, name), ())
            if len(networks) == 1:
                access_vlan = networks[0].vlan_id
            elif networks:
                trunk_vlans = sorted({network.vlan_id for network in networks})
        interfaces.append({
            "name": name, "kind": kind, "speed_gbps": port.speed_gbps, "lanes": lanes,
            "breakout_parent": port.breakout_parent, "mtu": mtu, "enabled": port.enabled,
            "description": description, "peer_device": peer_device, "peer_interface": peer_interface,
            "cable": cable.label, "cable_length_m": cable.length_m, "ip": ip, "unnumbered": is_unnumbered,
            "access_vlan": access_vlan, "trunk_vlans": trunk_vlans, "qos": {},
        })
    config["interfaces"] = interfaces
