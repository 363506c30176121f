"""Feature underlay_bgp: eBGP on every fabric link (RFC 7938), one peer group, advertised loopbacks.

Numbered underlays peer with the /31 neighbor address; unnumbered ones peer on the interface (RFC 5549,
IPv6 link-local) and carry ``address: null``. Every neighbor names its remote ASN so a mis-cabled or
mis-numbered peer fails to establish instead of silently peering.
"""

from __future__ import annotations

from compiler.structured.contract import StructuredConfig
from compiler.topology import VTEP_ROLES

PEER_GROUP = "UNDERLAY"


def apply(context, switch, config: StructuredConfig) -> None:
    intent, facts = context.intent, context.facts
    policy = intent.bgp
    families = ["ipv4_unicast", "l2vpn_evpn"] if context.overlay_enabled else ["ipv4_unicast"]
    bgp = config["bgp"]
    bgp.update({"asn": config["asn"], "router_id": config["router_id"], "maximum_paths": policy.maximum_paths,
                "keepalive_s": policy.keepalive_s, "hold_s": policy.hold_s, "bfd": policy.bfd,
                # leaves sharing a rack ASN accept paths that already carry it once (their rack mates' routes)
                "allowas_in": 1 if switch.role in VTEP_ROLES and config["asn"] in context.shared_vtep_asns else 0})
    peers = facts.peers.get(switch.hostname, ())
    if peers:
        bgp["peer_groups"] = [{"name": PEER_GROUP, "remote_as": "external", "bfd": policy.bfd,
                               "address_families": list(families)}]
    bgp["neighbors"] = [
        {"address": peer.peer_address, "interface": peer.local_interface, "remote_as": peer.peer_asn,
         "peer_device": peer.peer_device, "peer_interface": peer.peer_interface, "peer_group": PEER_GROUP,
         "address_families": list(families), "description": f"{peer.peer_device}_{peer.peer_interface}"}
        for peer in peers
    ]
    networks = [f"{config['router_id']}/32"]
    if switch.role in VTEP_ROLES:
        networks.append(f"{facts.allocations.vteps[switch.hostname]}/32")
    bgp["networks"] = networks
