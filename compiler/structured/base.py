"""Feature base: identity (hostname, role, platform), ASN, router-id, MTUs and loopbacks."""

from __future__ import annotations

from compiler.topology import VTEP_ROLES


def apply(context, switch, config: dict) -> None:
    allocations = context.facts.allocations
    router_id = allocations.loopbacks[switch.hostname]
    config["role"] = switch.role
    config["platform"] = switch.platform
    config["asn"] = allocations.asns[switch.hostname]
    config["router_id"] = router_id
    config["mtu"] = {"underlay": context.intent.underlay_mtu, "host": context.intent.host_mtu}
    loopbacks = [{"name": "Loopback0", "ip": f"{router_id}/32", "purpose": "router_id"}]
    if switch.role in VTEP_ROLES:
        loopbacks.append({"name": "Loopback1", "ip": f"{allocations.vteps[switch.hostname]}/32", "purpose": "vtep"})
    config["loopbacks"] = loopbacks
