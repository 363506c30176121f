"""Feature base: identity (hostname, role, platform, model, hardware, system MAC), ASN, router-id, MTUs and
loopbacks."""

from __future__ import annotations

import hashlib

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
    config["system_mac"] = system_mac(switch.serial or switch.hostname)
    config["asn"] = allocations.asns[switch.hostname]
    config["router_id"] = router_id
    config["mtu"] = {"underlay": context.intent.underlay_mtu, "host": context.intent.host_mtu}
    loopbacks: list[Loopback] = [{"name": "Loopback0", "ip": f"{router_id}/32", "purpose": "router_id"}]
    if switch.role in VTEP_ROLES:
        loopbacks.append({"name": "Loopback1", "ip": f"{allocations.vteps[switch.hostname]}/32", "purpose": "vtep"})
    config["loopbacks"] = loopbacks


def system_mac(seed: str) -> str:
    """A stable switch MAC from the serial (or hostname): locally administered, unicast (IEEE 802 U/L and I/G bits).

    The inventory carries no base MAC; the same switch always gets the same one, and two switches never share one
    unless their serials collide in the first 46 bits of SHA-256.
    """
    digest = bytearray(hashlib.sha256(seed.encode()).digest()[:6])
    digest[0] = (digest[0] & 0xFC) | 0x02  # U/L bit set (locally administered), I/G bit clear (unicast)
    return ":".join(f"{byte:02x}" for byte in digest)
