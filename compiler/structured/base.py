"""Feature base: identity (hostname, role, platform, model, hardware, system MAC), ASN, router-id, MTUs and
loopbacks."""

from __future__ import annotations

from compiler.catalog import SWITCH_MODELS
from compiler.hardware import asic_family
from compiler.structured.contract import Loopback, StructuredConfig
from compiler.topology import VTEP_ROLES


def model_spec(context, switch):
    """The switch's model: the inventory's own spec first, else the catalogue's (None when neither knows it)."""
    return context.inventory.models_by_name.get(switch.model) or SWITCH_MODELS.get(switch.model)


def apply(context, switch, config: StructuredConfig) -> None:
    allocations = context.facts.allocations
    router_id = allocations.loopbacks[switch.hostname]
    config["role"] = switch.role
    config["platform"] = switch.platform
    spec = model_spec(context, switch)
    config["model"] = switch.model
    config["hardware"] = {"model": switch.model, "asic": spec.asic if spec else None,
                          "asic_family": asic_family(spec) if spec else None}
    # The device's own base MAC from the inventory, or None: never invented for a real switch (a made-up MAC in
    # DEVICE_METADATA would replace the switch's own; the pre-push guard refuses that). The twin makes its own
    # (labs.containerlab.twin_system_mac).
    config["system_mac"] = switch.base_mac.lower() if switch.base_mac else None
    config["asn"] = allocations.asns[switch.hostname]
    config["router_id"] = router_id
    config["mtu"] = {"underlay": context.intent.underlay_mtu, "host": context.intent.host_mtu}
    loopbacks: list[Loopback] = [{"name": "Loopback0", "ip": f"{router_id}/32", "purpose": "router_id"}]
    if switch.role in VTEP_ROLES:
        loopbacks.append({"name": "Loopback1", "ip": f"{allocations.vteps[switch.hostname]}/32", "purpose": "vtep"})
    config["loopbacks"] = loopbacks
