"""Feature evpn_overlay: the EVPN address family and the per-tenant BGP VRFs (RD/RT) on VTEPs.

Route distinguishers are type 1 (router-id:number, RFC 4364) so they are unique per device. Route targets
follow the intent's scheme: ``vni`` writes ``<vni>:<vni>`` on every VTEP (works across per-leaf ASNs on all
platforms); ``auto`` writes what auto-derivation means (RFC 8365 section 5.1.2.1: the VTEP's own ASN : VNI) and
spells it out: export ``<own ASN>:<vni>``, import ``<ASN>:<vni>`` for the ASN of every VTEP carrying the VNI.
Platform auto-derivation (EOS/FRR ``auto``) would derive each leaf's RT from its OWN ASN, so with per-leaf ASNs
no leaf would import another's routes; explicit lists work on every platform.
"""

from __future__ import annotations

from compiler.model import RouteTargetScheme
from compiler.structured.contract import RouteTargets, StructuredConfig
from compiler.topology import VTEP_ROLES

MAX_TWO_BYTE = 65535


def route_targets(context, asn: int, vni: int) -> RouteTargets:
    if context.intent.route_target_scheme == RouteTargetScheme.AUTO:
        # ASN:VNI, a type-0 (2-byte ASN : 4-byte value) or type-2 (4-byte ASN : 2-byte value) RT, RFC 4360/5668;
        # validate_intent refuses a 4-byte ASN with a VNI above 65535, which neither type can carry.
        imports = [f"{peer_asn}:{vni}" for peer_asn in context.asns_by_vni.get(vni, (asn,))]
        return {"import": imports, "export": [f"{asn}:{vni}"]}
    # Type-0 RT is 2-byte admin : 4-byte value; a VNI above 65535 cannot be the admin field, so use 1.
    target = f"{vni}:{vni}" if vni <= MAX_TWO_BYTE else f"1:{vni}"
    return {"import": [target], "export": [target]}


def route_distinguisher(router_id: str, vni: int) -> str:
    # Type-1 RD carries a 2-byte number; larger VNIs keep their low 16 bits (validate_intent rejects clashes).
    return f"{router_id}:{vni if vni <= MAX_TWO_BYTE else vni & 0xFFFF}"


def apply(context, switch, config: StructuredConfig) -> None:
    if not context.overlay_enabled:
        return
    is_vtep = switch.role in VTEP_ROLES
    bgp = config["bgp"]
    bgp["evpn"] = {"enabled": True, "advertise_all_vni": is_vtep}
    if not is_vtep:
        return
    l3vnis = context.facts.l3vnis_by_tenant
    bgp["vrfs"] = [
        {"name": tenant.vrf, "rd": route_distinguisher(config["router_id"], l3vnis[tenant.name]),
         "l3vni": l3vnis[tenant.name],
         "route_targets": route_targets(context, config["asn"], l3vnis[tenant.name])}
        for tenant in context.facts.placement.tenants_on[switch.hostname]
    ]
