"""Feature base: identity (hostname, role, platform, hardware), ASN, router-id, MTUs and loopbacks."""

from __future__ import annotations

from compiler.catalog import SWITCH_MODELS
from compiler.hardware import asic_family
from compiler.topology import VTEP_ROLES


def model_spec(context, switch):
    """The switch's model: the inventory's own spec first, else the catalogue's (None when neither knows it)."""
    return context.inventory.models_by_name.get(switch.model) or SWITCH_MODELS.get(switch.model)


def apply(context, switch, config: dict) -> None:
    allocations = context.facts.allocations
    router_id = allocations.loopbacks[switch.hostname]
    config["role"] = switch.role
    config["platform"] = switch.platform
    spec = model_spec(context, switch)
    config["hardware"] = {"model": switch.model, "asic": spec.asic if spec else None,
                          "asic_family": asic_family(spec) if spec else None}
    config["asn"] = allocations.asns[switch.hostname]
    config["router_id"] = router_id
    config["mtu"] = {"underlay": context.intent.underlay_mtu, "host": context.intent.host_mtu}
    loopbacks = [{"name": "Loopback0", "ip": f"{router_id}/32", "purpose": "router_id"}]
    if switch.role in VTEP_ROLES:
        loopbacks.append({"name": "Loopback1", "ip": f"{allocations.vteps[switch.hostname]}/32", "purpose": "vtep"})
    config["loopbacks"] = loopbacks
