"""The one allocator: ASNs, router-id and VTEP loopbacks, /31 fabric links, L2VNIs and L3VNIs.

Stable by construction: every entry in ``existing`` is kept as it is (also for objects that no longer exist,
so a value is never silently handed to a different object); only objects without an entry get one, and they
get the lowest free value, taken in natural order of their names (switches: core tiers first). Growing a
fabric therefore never moves anything already allocated.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from compiler.errors import AllocationError, FieldError
from compiler.model import Allocations, AsnScheme, FabricIntent, Inventory, Role, Underlay
from compiler.natural import natural_key
from compiler.topology import (
    FABRIC_ASN_ROLES,
    VTEP_ROLES,
    fabric_cables,
    is_fabric_cable,
    orient,
    switch_order_key,
)

RESERVED_ASNS = frozenset({0, 23456, 65535, 4294967295})  # RFC 7607 (0), RFC 6793 (AS_TRANS), RFC 7300 (last)
MAX_VNI = 16777215  # 24-bit VNI, RFC 7348
TRANSIT_VLAN_BASE = 3000  # tenant transit VLAN = 3000 + (l3vni - l3vni_first + 1): as stable as the L3VNI
# Linux kernel routing table of a tenant VRF (ip-link(8) "type vrf table N"; kernel docs networking/vrf.rst):
# 1000 + (transit VLAN - 3000), so also as stable as the L3VNI and clear of the kernel's reserved tables
# (253 default, 254 main, 255 local).
VRF_TABLE_BASE = 1000


def super_spine_asn(intent: FabricIntent) -> int:
    """All super-spines share one ASN (RFC 7938 section 5.2.1): the one just below the spine ASN."""
    return intent.pools.spine_asn - 1


def spine_asn(intent: FabricIntent, plane: int, pod: int = 0) -> int:
    """Two tiers: the spines of plane p share ``spine_asn + p``. Five stages (``pod`` >= 1): the spines of pod n
    share ``spine_asn + n - 1`` whatever their plane (RFC 7938 section 5.2.1: one ASN per tier-2 cluster), so a
    path never leaves a pod through one spine and comes back through another (AS_PATH loop prevention)."""
    return intent.pools.spine_asn + (pod - 1 if pod else plane)


def transit_vlan(intent: FabricIntent, l3vni: int) -> int:
    """Transit VLAN of a tenant's L3VNI, derived from the VNI so it is as stable as the VNI itself."""
    return TRANSIT_VLAN_BASE + (l3vni - intent.pools.l3vni_first + 1)


def linux_vrf_table(intent: FabricIntent, l3vni: int) -> int:
    """Linux kernel routing table of a tenant VRF (FRR/Linux platform and the twin), derived like the transit VLAN."""
    return VRF_TABLE_BASE + transit_vlan(intent, l3vni) - TRANSIT_VLAN_BASE


def usable_hosts(pool: str) -> tuple[int, int]:
    """[first, last] usable host integers of an IPv4 pool (network and broadcast excluded above /31)."""
    network = ipaddress.IPv4Network(pool)
    first, last = int(network.network_address), int(network.broadcast_address)
    if network.prefixlen < 31:
        first, last = first + 1, last - 1
    return first, last


def allocate(inventory: Inventory, intent: FabricIntent, existing: Allocations | None = None) -> Allocations:
    existing = existing or Allocations()
    switches = sorted(inventory.switches, key=switch_order_key)
    all_names = [switch.hostname for switch in switches]
    vtep_names = [switch.hostname for switch in switches if switch.role in VTEP_ROLES]
    pools = intent.pools
    asns = _allocate_asns(inventory, intent, existing.asns)
    loopbacks = _allocate_hosts(pools.loopback, "pools.loopback", "router-id loopbacks", all_names, existing.loopbacks)
    vteps = _allocate_hosts(pools.vtep, "pools.vtep", "VTEP loopbacks", vtep_names, existing.vteps)
    p2p = dict(existing.p2p)
    if intent.underlay == Underlay.NUMBERED:
        p2p = _allocate_p2p(inventory, pools.p2p, existing.p2p)
    l2vnis = {name: vni for name, vni in existing.l2vnis.items()}
    for network in intent.networks:
        if network.l2vni is not None:
            l2vnis[network.name] = network.l2vni  # explicit intent wins over a stored default
        elif network.name not in l2vnis:
            l2vnis[network.name] = pools.l2vni_base + network.vlan_id
    l3vnis = _allocate_l3vnis(intent, existing.l3vnis, l2vnis)
    return Allocations(asns=asns, loopbacks=loopbacks, vteps=vteps, p2p=p2p, l2vnis=l2vnis, l3vnis=l3vnis)


def ip_text(value: int) -> str:
    """Dotted quad of an IPv4 integer (ipaddress.IPv4Address(value) is ~10x slower; this runs per link)."""
    return f"{value >> 24 & 255}.{value >> 16 & 255}.{value >> 8 & 255}.{value & 255}"


def ip_value(text: str) -> int:
    """Integer of "a.b.c.d" or "a.b.c.d/len" (fast path for stored allocations)."""
    first, second, third, fourth = text.split("/", 1)[0].split(".")
    return int(first) << 24 | int(second) << 16 | int(third) << 8 | int(fourth)


def _next_free(cursor: int, last: int, used: set[int]) -> int:
    while cursor <= last and cursor in used:
        cursor += 1
    return cursor


def _allocate_hosts(pool: str, field: str, what: str, names: list[str], existing: Mapping[str, str]) -> dict[str, str]:
    first, last = usable_hosts(pool)
    result = dict(existing)
    owner_of: dict[int, str] = {}
    for name, address in existing.items():
        value = ip_value(address)
        if value in owner_of:
            raise AllocationError(FieldError(f"allocations.{field.split('.')[1]}s[{name}]", address,
                                             f"stored address collides with {owner_of[value]}"))
        owner_of[value] = name
    new_names = [name for name in names if name not in existing]
    used = set(owner_of)
    free = (last - first + 1) - sum(1 for value in used if first <= value <= last)
    if len(new_names) > free:
        raise AllocationError(FieldError(field, pool, f"too small for {what}: {len(names)} needed "
                                                      f"({len(new_names)} new), {free} free of {last - first + 1}"))
    cursor = first
    for name in new_names:
        cursor = _next_free(cursor, last, used)
        result[name] = ip_text(cursor)
        used.add(cursor)
    return result


def _allocate_p2p(inventory: Inventory, pool: str, existing: Mapping[str, tuple[str, str]]) -> dict:
    network = ipaddress.IPv4Network(pool)
    base = int(network.network_address)
    block_count = network.num_addresses // 2
    result = dict(existing)
    owner_of: dict[int, str] = {}
    for label, (a_end, _b_end) in existing.items():
        block = ip_value(a_end) & ~1  # the even address starts the /31
        if block in owner_of:
            raise AllocationError(FieldError(f"allocations.p2p[{label}]", a_end,
                                             f"stored /31 collides with cable {owner_of[block]}"))
        owner_of[block] = label
    cables = fabric_cables(inventory)
    new_cables = [cable for cable in cables if cable.label not in existing]
    used = set(owner_of)
    free = block_count - sum(1 for value in used if base <= value < base + 2 * block_count)
    if len(new_cables) > free:
        raise AllocationError(FieldError("pools.p2p", pool, f"too small for fabric links: {len(cables)} /31s needed "
                                                            f"({len(new_cables)} new), {free} free of {block_count}"))
    cursor = base
    for cable in new_cables:
        while cursor in used:
            cursor += 2
        used.add(cursor)
        upper, _lower = orient(inventory, cable)
        even, odd = f"{ip_text(cursor)}/31", f"{ip_text(cursor + 1)}/31"
        result[cable.label] = (even, odd) if upper == cable.a else (odd, even)
    return result


def _allocate_asns(inventory: Inventory, intent: FabricIntent, existing: Mapping[str, int]) -> dict[str, int]:
    pools = intent.pools
    result = dict(existing)
    core_asns: set[int] = set()
    for switch in inventory.switches:
        if switch.role == Role.SPINE:
            result.setdefault(switch.hostname, spine_asn(intent, switch.plane, switch.pod))
        elif switch.role == Role.SUPER_SPINE:
            result.setdefault(switch.hostname, super_spine_asn(intent))
        else:
            continue
        core_asns.add(result[switch.hostname])
    edge = sorted((s for s in inventory.switches if s.role in FABRIC_ASN_ROLES), key=switch_order_key)
    per_rack = intent.asn_scheme == AsnScheme.PER_RACK

    def group_of(switch) -> str:
        # Leaves without a rack form a group of their own even in the per-rack scheme.
        return f"rack {switch.rack}" if per_rack and switch.rack else switch.hostname

    group_asn: dict[str, int] = {}
    asn_owner: dict[int, str] = {}
    for switch in edge:
        stored = existing.get(switch.hostname)
        if stored is None:
            continue
        group = group_of(switch)
        field = f"allocations.asns[{switch.hostname}]"
        if stored in core_asns:
            raise AllocationError(FieldError(field, stored, "stored leaf ASN collides with a spine ASN"))
        if group in group_asn and group_asn[group] != stored:
            raise AllocationError(FieldError(field, stored, f"{group} already uses ASN {group_asn[group]} "
                                                            "(per_rack: one ASN per rack)"))
        if stored in asn_owner and asn_owner[stored] != group:
            raise AllocationError(FieldError(field, stored, f"stored ASN already used by {asn_owner[stored]}"))
        group_asn[group] = stored
        asn_owner[stored] = group
    # Stale stored ASNs of removed leaves stay reserved as well.
    used = set(asn_owner) | core_asns | set(existing.values()) | RESERVED_ASNS
    new_groups = list(dict.fromkeys(group_of(s) for s in edge if group_of(s) not in group_asn))
    range_size = pools.asn_last - pools.asn_first + 1
    free = range_size - sum(1 for asn in used if pools.asn_first <= asn <= pools.asn_last)
    if len(new_groups) > free:
        needed = len(set(group_asn) | set(new_groups))
        raise AllocationError(FieldError("pools.asn_first", pools.asn_first,
                                         f"ASN range {pools.asn_first}-{pools.asn_last} too small: {needed} ASNs "
                                         f"needed ({len(new_groups)} new), {free} free"))
    cursor = pools.asn_first
    for group in new_groups:
        cursor = _next_free(cursor, pools.asn_last, used)
        group_asn[group] = cursor
        used.add(cursor)
    for switch in edge:
        result.setdefault(switch.hostname, group_asn[group_of(switch)])
    return result


def _allocate_l3vnis(intent: FabricIntent, existing: Mapping[str, int], l2vnis: Mapping[str, int]) -> dict[str, int]:
    pools = intent.pools
    result = dict(existing)
    for tenant in intent.tenants:
        if tenant.l3vni is not None:
            result[tenant.name] = tenant.l3vni
    new_tenants = sorted((t.name for t in intent.tenants if t.name not in result), key=natural_key)
    used = set(result.values()) | set(l2vnis.values())
    free = (pools.l3vni_last - pools.l3vni_first + 1) - sum(
        1 for vni in used if pools.l3vni_first <= vni <= pools.l3vni_last)
    if len(new_tenants) > free:
        raise AllocationError(FieldError("pools.l3vni_first", pools.l3vni_first,
                                         f"L3VNI range {pools.l3vni_first}-{pools.l3vni_last} too small: "
                                         f"{len(new_tenants)} new tenants, {free} free"))
    cursor = pools.l3vni_first
    for name in new_tenants:
        cursor = _next_free(cursor, pools.l3vni_last, used)
        result[name] = cursor
        used.add(cursor)
    return result


def needed_counts(inventory: Inventory, intent: FabricIntent) -> dict[str, int]:
    """How many values each pool must provide for this inventory (used by validate_intent)."""
    edge = [s for s in inventory.switches if s.role in FABRIC_ASN_ROLES]
    if intent.asn_scheme == AsnScheme.PER_RACK:
        asn_groups = {f"rack {s.rack}" if s.rack else s.hostname for s in edge}
    else:
        asn_groups = {s.hostname for s in edge}
    return {
        "loopback": len(inventory.switches),
        "vtep": sum(1 for s in inventory.switches if s.role in VTEP_ROLES),
        "p2p": (sum(1 for cable in inventory.cables if is_fabric_cable(inventory, cable))
                if intent.underlay == Underlay.NUMBERED else 0),
        "asn": len(asn_groups),
        "l3vni": sum(1 for t in intent.tenants if t.l3vni is None),
    }
