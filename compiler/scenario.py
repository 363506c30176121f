"""Scenario files: a Clos inventory plus an intent described in YAML/dict form -> Snapshot.

Used by the golden tests, the benchmark and anyone who wants a fabric without a database::

    clos: {spines: 2, leaves: 4, servers_per_leaf: 2, platform: eos}      # compiler.clos.ClosParams fields
    intent:                                                              # compiler.model.FabricIntent fields
      name: ref
      pools: {p2p: 10.1.0.0/16}
      bgp: {bfd: true}
      tenants: [{name: A, vrf: TENANT_A}]
      networks: [{name: net10, tenant: A, vlan_id: 10, subnet: 10.10.0.0/24, gateway: 10.10.0.1,
                  attachments: all}]            # "all": every server NIC cabled to one of the network's leaves
      roce_classes: [{name: roce, dscp: [26], priority: 3, traffic_class: 3, lossless: true}]
    allocations: {asns: {leaf1: 65101}}                                  # optional stored allocations

A 5-stage Clos names ``pods`` instead of ``clos`` (compiler.pods.PodsParams fields; ``pod`` is the ClosParams of
every pod)::

    pods: {pods: 2, super_spines_per_plane: 1, pod: {spines: 2, leaves: 2, servers_per_leaf: 2}}
"""

from __future__ import annotations

from dataclasses import fields

from compiler.clos import ClosParams, plan_clos
from compiler.errors import FieldError, IntentValidationError
from compiler.model import (
    Allocations,
    BgpPolicy,
    EcmpHashing,
    Endpoint,
    FabricIntent,
    Inventory,
    Management,
    Network,
    Pools,
    RoceClass,
    Snapshot,
    Tenant,
)
from compiler.natural import natural_key
from compiler.pods import PodsParams, plan_pods
from compiler.topology import VTEP_ROLES, server_port_of


def _build(cls, data: dict, field: str):
    known = {item.name for item in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise IntentValidationError([FieldError(f"{field}.{name}", data[name], f"unknown field of {cls.__name__}")
                                     for name in unknown])
    return cls(**{key: tuple(value) if isinstance(value, list) else value for key, value in data.items()})


def clos_params(data: dict) -> ClosParams:
    return _build(ClosParams, dict(data), "clos")


def pods_params(data: dict) -> PodsParams:
    data = dict(data)
    data["pod"] = _build(ClosParams, dict(data.get("pod", {})), "pods.pod")
    return _build(PodsParams, data, "pods")


def _attachments(inventory: Inventory, raw, leaves: tuple[str, ...], field: str) -> tuple[Endpoint, ...]:
    if raw in (None, ()):
        return ()
    if raw == "all":
        vteps = {s.hostname for s in inventory.switches if s.role in VTEP_ROLES}
        wanted = set(leaves) or vteps
        found = []
        for server in sorted(inventory.servers, key=lambda s: natural_key(s.name)):
            for nic in server.nics:
                endpoint = Endpoint(server.name, nic.name)
                port = server_port_of(inventory, endpoint)
                if port is not None and port.device in wanted:
                    found.append(endpoint)
        return tuple(found)
    endpoints = []
    for item in raw:
        if not isinstance(item, str) or ":" not in item:
            raise IntentValidationError(FieldError(field, item, "attachment must be 'server:nic' or 'all'"))
        device, interface = item.split(":", 1)
        endpoints.append(Endpoint(device, interface))
    return tuple(endpoints)


def intent_from_dict(data: dict, inventory: Inventory) -> FabricIntent:
    data = dict(data)
    data.setdefault("inventory_fabric", inventory.fabric)
    data["pools"] = _build(Pools, data.get("pools", {}), "pools")
    data["bgp"] = _build(BgpPolicy, data.get("bgp", {}), "bgp")
    data["management"] = _build(Management, data.get("management", {}), "management")
    hashing = dict(data.get("ecmp_hashing", {}))
    if isinstance(hashing.get("roles"), list):
        hashing["roles"] = tuple(hashing["roles"])
    data["ecmp_hashing"] = _build(EcmpHashing, hashing, "ecmp_hashing")
    data["tenants"] = tuple(_build(Tenant, item, f"tenants[{item.get('name')}]") for item in data.get("tenants", ()))
    networks = []
    for item in data.get("networks", ()):
        item = dict(item)
        item["leaves"] = tuple(item.get("leaves", ()))
        item["attachments"] = _attachments(inventory, item.get("attachments"), item["leaves"],
                                           f"networks[{item.get('name')}].attachments")
        networks.append(_build(Network, item, f"networks[{item.get('name')}]"))
    data["networks"] = tuple(networks)
    data["roce_classes"] = tuple(_build(RoceClass, item, f"roce_classes[{item.get('name')}]")
                                 for item in data.get("roce_classes", ()))
    return _build(FabricIntent, data, "intent")


def allocations_from_dict(data: dict | None) -> Allocations:
    data = dict(data or {})
    if "p2p" in data:
        data["p2p"] = {label: tuple(ends) for label, ends in data["p2p"].items()}
    return _build(Allocations, data, "allocations")


def allocations_to_dict(allocations: Allocations) -> dict:
    def ordered(mapping):
        return {key: (list(value) if isinstance(value, tuple) else value)
                for key, value in sorted(mapping.items(), key=lambda item: natural_key(item[0]))}

    return {"asns": ordered(allocations.asns), "loopbacks": ordered(allocations.loopbacks),
            "vteps": ordered(allocations.vteps), "p2p": ordered(allocations.p2p),
            "l2vnis": ordered(allocations.l2vnis), "l3vnis": ordered(allocations.l3vnis)}


def snapshot_from_scenario(data: dict) -> Snapshot:
    if "pods" in data:
        inventory = plan_pods(pods_params(data["pods"]))
    else:
        inventory = plan_clos(clos_params(data.get("clos", {})))
    intent = intent_from_dict(data.get("intent", {"name": inventory.fabric}), inventory)
    return Snapshot(inventory=inventory, intent=intent, allocations=allocations_from_dict(data.get("allocations")))
