"""What every validator module shares and nothing else: role sets, the "check cannot run here" signal and the
integer address helpers of the hot paths. It imports no other validators module, so sessions, routing and the
leaf-pair matrix (which the context builds) depend on it without an import circle. Pure Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from ipaddress import ip_interface
from socket import inet_aton

from compiler.hardware import ASIC_FAMILIES
from compiler.model import Role
from compiler.topology import VTEP_ROLES

__all__ = ["VTEP_ROLES", "CORE_ROLES", "CheckSkipped", "ip_to_int", "split_prefix", "same_subnet", "host_of",
           "short_list", "asic_family_of", "subnet_links"]

CORE_ROLES = frozenset({Role.SPINE, Role.SUPER_SPINE})


class CheckSkipped(Exception):
    """Raised by a check that cannot run here; the report records it as skipped with this reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def asic_family_of(ctx, host: str, config) -> str | None:
    """The ASIC family the config names, else the inventory model's (FRR/Linux text names no model)."""
    family = (config.get("hardware") or {}).get("asic_family")
    if family is None and ctx.inventory is not None:
        switch = ctx.inventory.switches_by_name.get(host)
        model = ctx.inventory.models_by_name.get(switch.model) if switch is not None else None
        family = ASIC_FAMILIES.get(model.asic) if model is not None else None
    return family


# --------------------------------------------------------------------------------------------- addresses
# The ipaddress module costs microseconds per parse; a 65,536-link fabric has 262,144 addresses to compare,
# so the hot paths use these integer helpers instead.


def ip_to_int(text: str) -> int:
    try:
        return int.from_bytes(inet_aton(text), "big")
    except OSError:
        raise ValueError(f"not an IPv4 address: {text!r}") from None


def split_prefix(text: str) -> tuple[int, int]:
    """"10.1.0.1/31" -> (address as int, prefix length); a bare address is a /32."""
    address, _, length = text.partition("/")
    return ip_to_int(address), int(length) if length else 32


def same_subnet(address_a: int, address_b: int, prefix_length: int) -> bool:
    shift = 32 - prefix_length
    return address_a >> shift == address_b >> shift


def host_of(text: str | None) -> str | None:
    return text.split("/", 1)[0] if text else None


def short_list(names: Iterable[str], limit: int = 4) -> str:
    """'leaf1, leaf2, leaf3 and 1021 more' for messages about many devices."""
    names = list(names)
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit} more"


def subnet_links(structured: Mapping) -> dict[tuple[str, str], tuple[str, str]]:
    """(device, port) -> (device, port) at the other end, for routed ports no cabling names (FRR, SONiC testbeds
    without DEVICE_NEIGHBOR): two ports of two devices alone in one IPv4 or IPv6 subnet are one link, the address
    plan's point-to-point (RFC 3021 /31, /30, RFC 6164 /127, a /126, or a /24 only two devices use). A subnet with
    three or more members is a LAN, not a link: not paired. Ports of a tenant VRF are left out."""
    members: dict[object, list[tuple[str, str]]] = {}
    for host, config in structured.items():
        for port in config["interfaces"]:
            if port.get("peer_device") or port.get("vrf") not in (None, "default"):
                continue
            for key in ("ip", "ipv6"):
                text = port.get(key)
                if not isinstance(text, str) or "/" not in text:
                    continue
                network = ip_interface(text).network
                if network.num_addresses > 1:
                    members.setdefault(network, []).append((host, port["name"]))
    links: dict[tuple[str, str], tuple[str, str]] = {}
    for ends in members.values():
        if len(ends) == 2 and ends[0][0] != ends[1][0]:
            links.setdefault(ends[0], ends[1])
            links.setdefault(ends[1], ends[0])
    return links
