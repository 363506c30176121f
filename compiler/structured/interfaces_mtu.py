"""Feature interfaces_mtu: every switch port with its role (fabric, server, peer link, unused), MTU, address
and VLAN membership. Fabric and peer-link ports run at the underlay MTU; server ports at the host MTU (the
largest frame a host may send); unused ports are shut and keep their inventory MTU.
"""

from __future__ import annotations

from compiler.model import Endpoint
from compiler.natural import natural_key

KIND_FABRIC, KIND_SERVER, KIND_PEER_LINK, KIND_UNUSED = "fabric", "server", "peer_link", "unused"


def apply(context, switch, config: dict) -> None:
    inventory, intent, facts = context.inventory, context.intent, context.facts
    cable_at = inventory.cable_at
    switches = inventory.switches_by_name
    port_networks = facts.placement.port_networks
    numbered = intent.underlay == "numbered"
    interfaces = []
    for port in sorted(switch.interfaces, key=lambda item: natural_key(item.name)):
        endpoint = Endpoint(switch.hostname, port.name)
        cable = cable_at.get(endpoint)
        entry = {
            "name": port.name, "kind": KIND_UNUSED, "speed_gbps": port.speed_gbps, "mtu": port.mtu, "enabled": False,
            "description": port.description, "peer_device": None, "peer_interface": None, "cable": None,
            "cable_length_m": None, "ip": None, "unnumbered": False, "access_vlan": None, "trunk_vlans": [],
            "qos": {},
        }
        if cable is not None:
            peer = cable.other_end(endpoint)
            entry.update(enabled=port.enabled, peer_device=peer.device, peer_interface=peer.interface,
                         cable=cable.label, cable_length_m=cable.length_m)
            if peer.device in switches:
                if cable.peer_link:
                    entry.update(kind=KIND_PEER_LINK, mtu=intent.underlay_mtu,
                                 description=f"PEER_LINK {peer.device} {peer.interface}")
                else:
                    link = facts.links_at[endpoint]
                    entry.update(kind=KIND_FABRIC, mtu=intent.underlay_mtu, unnumbered=not numbered,
                                 description=f"P2P {peer.device} {peer.interface}",
                                 ip=link.upper_address if link.upper == endpoint else link.lower_address)
            else:
                networks = port_networks.get(endpoint, ())
                entry.update(kind=KIND_SERVER, mtu=intent.host_mtu, description=f"SERVER {peer.device} {peer.interface}")
                if len(networks) == 1:
                    entry["access_vlan"] = networks[0].vlan_id
                elif networks:
                    entry["trunk_vlans"] = sorted({network.vlan_id for network in networks})
        interfaces.append(entry)
    config["interfaces"] = interfaces
