"""Read-only views of the inventory the compiler stages share: tiers, fabric cables, server attachments,
which networks and tenants live on which leaf.

Everything here is O(switches + cables + networks); callers index the results instead of scanning.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.model import Cable, Endpoint, FabricIntent, Inventory, Network, Role, Tenant
from compiler.natural import natural_key

# Higher tier = closer to the core. Used to orient fabric links (the upper end gets the even /31 address).
TIER = {Role.SUPER_SPINE: 3, Role.SPINE: 2, Role.LEAF: 1, Role.BORDER: 1}
# Allocation order of switches: core first, so spines get the low router-ids (spine1=.1, spine2=.2, leaf1=.3).
ROLE_ORDER = {Role.SUPER_SPINE: 0, Role.SPINE: 1, Role.BORDER: 2, Role.LEAF: 3}
VTEP_ROLES = frozenset({Role.LEAF, Role.BORDER})
FABRIC_ASN_ROLES = frozenset({Role.LEAF, Role.BORDER})  # roles that take ASNs from the leaf range


def switch_order_key(switch) -> tuple:
    return (ROLE_ORDER.get(switch.role, 9), natural_key(switch.hostname))


def is_fabric_cable(inventory: Inventory, cable: Cable) -> bool:
    """Both ends are switches and the cable is not an MLAG-style peer link: it gets a /31 and a BGP session."""
    switches = inventory.switches_by_name
    return cable.a.device in switches and cable.b.device in switches and not cable.peer_link


def orient(inventory: Inventory, cable: Cable) -> tuple[Endpoint, Endpoint]:
    """(upper end, lower end) of a switch-to-switch cable; equal tiers order by natural device name."""
    switches = inventory.switches_by_name
    tier_a = TIER.get(switches[cable.a.device].role, 0)
    tier_b = TIER.get(switches[cable.b.device].role, 0)
    if tier_a != tier_b:
        return (cable.a, cable.b) if tier_a > tier_b else (cable.b, cable.a)
    if natural_key(cable.a.device) <= natural_key(cable.b.device):
        return cable.a, cable.b
    return cable.b, cable.a


def fabric_cables(inventory: Inventory) -> list[Cable]:
    return sorted((cable for cable in inventory.cables if is_fabric_cable(inventory, cable)),
                  key=lambda cable: natural_key(cable.label))


def server_port_of(inventory: Inventory, nic: Endpoint) -> Endpoint | None:
    """The switch port a server NIC is cabled to (None when uncabled or cabled to another server)."""
    cable = inventory.cable_at.get(nic)
    if cable is None:
        return None
    other = cable.other_end(nic)
    return other if other.device in inventory.switches_by_name else None


@dataclass(frozen=True, slots=True)
class OverlayPlacement:
    """Which networks and tenants each VTEP switch carries, and which switch ports are attached to networks."""

    networks_on: dict[str, tuple[Network, ...]]  # vtep hostname -> networks (sorted by VLAN)
    tenants_on: dict[str, tuple[Tenant, ...]]  # vtep hostname -> tenants with an L3VNI there (natural order)
    port_networks: dict[Endpoint, tuple[Network, ...]]  # switch port -> networks of the NIC cabled to it


def place_overlay(inventory: Inventory, intent: FabricIntent) -> OverlayPlacement:
    """Networks go on their listed leaves (all leaves when none listed); borders carry every tenant VRF."""
    leaves = [s.hostname for s in inventory.switches if s.role == Role.LEAF]
    vteps = [s.hostname for s in inventory.switches if s.role in VTEP_ROLES]
    tenants_by_name = {tenant.name: tenant for tenant in intent.tenants}
    networks_on: dict[str, list[Network]] = {name: [] for name in vteps}
    tenant_names_on: dict[str, set[str]] = {name: set() for name in vteps}
    port_networks: dict[Endpoint, list[Network]] = {}
    for network in intent.networks:
        for leaf in network.leaves or leaves:
            if leaf in networks_on:
                networks_on[leaf].append(network)
                tenant_names_on[leaf].add(network.tenant)
        for nic in network.attachments:
            port = server_port_of(inventory, nic)
            if port is not None:
                port_networks.setdefault(port, []).append(network)
    for switch in inventory.switches:
        if switch.role == Role.BORDER:
            tenant_names_on[switch.hostname].update(tenants_by_name)
    return OverlayPlacement(
        networks_on={name: tuple(sorted(nets, key=lambda n: (n.vlan_id, natural_key(n.name))))
                     for name, nets in networks_on.items()},
        tenants_on={name: tuple(tenants_by_name[t] for t in sorted(names, key=natural_key) if t in tenants_by_name)
                    for name, names in tenant_names_on.items()},
        port_networks={port: tuple(sorted(nets, key=lambda n: n.vlan_id)) for port, nets in port_networks.items()},
    )
