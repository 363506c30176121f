"""Feature vxlan_vrf: VLANs with their L2VNI and anycast gateway (SVI), tenant VRFs with their L3VNI, transit
VLAN and Linux VRF table (both facts: compiler.facts), and the VXLAN tunnel interface with its flood lists (the remote VTEPs carrying each VNI,
which EVPN type-3 routes are expected to reproduce).

The VXLAN/bridge MTU is the underlay MTU minus 50 bytes (RFC 7348 outer headers over IPv4).
"""

from __future__ import annotations

import ipaddress

from compiler.qos_math import VXLAN_UDP_PORT, vxlan_mtu
from compiler.structured.contract import StructuredConfig, Svi, Vlan
from compiler.structured.evpn_overlay import route_distinguisher, route_targets
from compiler.topology import VTEP_ROLES


def apply(context, switch, config: StructuredConfig) -> None:
    if switch.role not in VTEP_ROLES:
        return
    intent, facts = context.intent, context.facts
    placement = facts.placement
    networks = placement.networks_on[switch.hostname]
    tenants = placement.tenants_on[switch.hostname]
    if not networks and not tenants and not intent.evpn_overlay:
        return  # an overlay stated with no VNI on this VTEP yet (evpn_overlay) still has its VXLAN interface
    vrf_of = {tenant.name: tenant.vrf for tenant in intent.tenants}
    router_id = config["router_id"]
    vlans: list[Vlan] = []
    for network in networks:
        vni = facts.l2vnis_by_network[network.name]
        svi: Svi | None = None
        if network.gateway:
            prefix = ipaddress.IPv4Network(network.subnet).prefixlen
            svi = {"ip": f"{network.gateway}/{prefix}", "mac": intent.anycast_gateway_mac, "mtu": intent.host_mtu}
        vlans.append({"id": network.vlan_id, "name": network.name, "network": network.name, "vni": vni,
                      "tenant": network.tenant, "vrf": vrf_of.get(network.tenant),
                      "rd": route_distinguisher(router_id, vni),
                      "route_targets": route_targets(context, config["asn"], vni), "svi": svi})
    config["vlans"] = vlans
    l3vnis = facts.l3vnis_by_tenant
    config["vrfs"] = [{"name": tenant.vrf, "tenant": tenant.name, "l3vni": l3vnis[tenant.name],
                       "transit_vlan": facts.transit_vlans_by_tenant[tenant.name],
                       "linux_table": facts.linux_vrf_tables_by_tenant[tenant.name]} for tenant in tenants]
    own_vtep = facts.allocations.vteps[switch.hostname]
    vteps = facts.allocations.vteps
    flood_lists = {}
    for vlan in vlans:
        flood_lists[str(vlan["vni"])] = _other_vteps(context, vlan["vni"], switch.hostname, vteps)
    config["vxlan"] = {
        "source_interface": "Loopback1",
        "vtep_ip": own_vtep,
        "udp_port": VXLAN_UDP_PORT,
        "mtu": vxlan_mtu(intent.underlay_mtu),
        "vlan_vnis": {str(vlan["id"]): vlan["vni"] for vlan in vlans},
        "vrf_vnis": {vrf["name"]: vrf["l3vni"] for vrf in config["vrfs"]},
        "flood_lists": flood_lists,
    }


def _other_vteps(context, vni: int, hostname: str, vteps) -> list[str]:
    """VTEP IPs of every other switch carrying ``vni``, in facts order (a new list per device)."""
    ips, index_of = context.vtep_ips_by_vni.get(vni, ([], {}))
    if index_of is None:  # a host listed twice: filter every occurrence out
        return [vteps[host] for host in context.facts.vtep_hosts_by_vni[vni] if host != hostname]
    index = index_of.get(hostname)
    return ips[:index] + ips[index + 1:] if index is not None else list(ips)
