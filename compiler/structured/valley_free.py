"""Feature valley_free: export policy that keeps every underlay path valley-free in a 5-stage Clos.

A valley-free path goes up the tiers, then down, never down-up again (the "no valleys" export rule of
Gao-Rexford policy routing; RFC 7938 section 5.2.1 gets most of it from AS_PATH loop prevention once the
super-spines share one ASN and each pod's spines share one). This feature makes the rule explicit, so a
renumbered device cannot open a valley:

* a leaf advertises to its spines only what it originates itself (AS path ``^$``): a leaf is never transit;
* a spine advertises to the super-spines nothing that already went through the super-spine ASN (a route learned
  from the core never goes back up).

Super-spines are the top tier: every session goes down, nothing to filter. Only the IPv4 unicast underlay carries
the policy: EVPN next hops are VTEP loopbacks resolved through this underlay, so a valley-free underlay makes the
VXLAN data path valley-free too. Two-tier fabrics (no super-spine) get nothing here, so their configs are unchanged.
"""

from __future__ import annotations

from compiler.model import Role
from compiler.structured.contract import RouteMap, StructuredConfig
from compiler.topology import VTEP_ROLES

LEAF_POLICY = "VALLEY_FREE_LEAF_OUT"
SPINE_POLICY = "VALLEY_FREE_SPINE_UP"


def policies(core_asn: int) -> dict[str, RouteMap]:
    """The two export route maps, by name (AS-path regexes: '_' matches a boundary between ASNs)."""
    return {
        LEAF_POLICY: {"name": LEAF_POLICY, "entries": [{"seq": 10, "action": "permit", "as_path": "^$"}]},
        SPINE_POLICY: {"name": SPINE_POLICY, "entries": [{"seq": 10, "action": "deny", "as_path": f"_{core_asn}_"},
                                                         {"seq": 20, "action": "permit", "as_path": None}]},
    }


def apply(context, switch, config: StructuredConfig) -> None:
    core_asn = context.super_spine_asn
    if core_asn is None:
        return
    if switch.role in VTEP_ROLES:
        name, upward = LEAF_POLICY, {Role.SPINE, Role.SUPER_SPINE}
    elif switch.role == Role.SPINE:
        name, upward = SPINE_POLICY, {Role.SUPER_SPINE}
    else:
        return
    role_of = context.inventory.role_of
    bgp = config["bgp"]
    used = False
    for neighbor in bgp["neighbors"]:
        if role_of(neighbor["peer_device"]) in upward:
            neighbor["route_map_out"] = name
            used = True
    if used:
        bgp["route_maps"] = [policies(core_asn)[name]]
