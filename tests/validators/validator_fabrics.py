"""Compiled reference fabrics for the validator tests, and helpers to break one device's structured config.

Every broken test starts from a correct compile (``compiler.api.compile_fabric``) and mutates a deep copy of
the structured configs, the way a hand edit or a bad template would, so the checks see exactly one fault.
"""

from __future__ import annotations

import copy
import dataclasses
from functools import lru_cache

from compiler.api import compile_fabric
from compiler.clos import ClosParams, plan_clos
from compiler.model import Endpoint, FabricIntent, Network, RoceClass, Snapshot, Tenant
from validators.context import FabricContext

ROCE = RoceClass(name="roce", dscp=(26,), priority=3, traffic_class=3, lossless=True, ecn_min_kb=150,
                 ecn_max_kb=1500, ecn_mark_probability=10, cnp_dscp=48, cnp_priority=6)
BULK = RoceClass(name="bulk", dscp=(10,), priority=1, traffic_class=1, lossless=False, ecn_min_kb=0, ecn_max_kb=0)


def intent_for(inventory, roce=True, tenants=2, **overrides) -> FabricIntent:
    """Tenant A with net10/net11 (all servers on rail 0 attached to net10), tenant B with net20."""
    attachments = tuple(Endpoint(server.name, "eth0") for server in inventory.servers)
    tenant_list = [Tenant("A", "TENANT_A")]
    networks = [Network("net10", "A", 10, "10.10.0.0/22", "10.10.0.1", attachments=attachments),
                Network("net11", "A", 11, "10.11.0.0/24", "10.11.0.1")]
    if tenants > 1:
        tenant_list.append(Tenant("B", "TENANT_B"))
        networks.append(Network("net20", "B", 20, "10.20.0.0/24", "10.20.0.1"))
    fields = dict(name=inventory.fabric, inventory_fabric=inventory.fabric, tenants=tuple(tenant_list),
                  networks=tuple(networks), roce_classes=(ROCE, BULK) if roce else ())
    fields.update(overrides)
    return FabricIntent(**fields)


@lru_cache(maxsize=32)
def compiled(spines=4, leaves=6, servers_per_leaf=1, uplinks_per_spine=1, planes=1, roce=True, asn_scheme="per_leaf",
             rails_per_server=1):
    inventory = plan_clos(ClosParams(name=f"t{spines}x{leaves}", spines=spines, leaves=leaves,
                                     servers_per_leaf=servers_per_leaf, uplinks_per_spine=uplinks_per_spine,
                                     planes=planes, rails_per_server=rails_per_server))
    return compile_fabric(Snapshot(inventory, intent_for(inventory, roce=roce, asn_scheme=asn_scheme)))


def compile_snapshot(snapshot: Snapshot):
    return compile_fabric(snapshot)


def context(result, mutate=None) -> FabricContext:
    """A fresh context over a deep copy of ``result``'s configs, after ``mutate(structured)`` when given."""
    structured = copy.deepcopy(dict(result.structured))
    for config in structured.values():
        for port in config["interfaces"]:
            # The compiler shares one read-only qos dict between identical ports; a test edits one port only.
            port["qos"] = copy.deepcopy(port["qos"])
    if mutate is not None:
        mutate(structured)
    return FabricContext(structured, result.snapshot)


def interface(structured, host: str, *, peer: str | None = None, kind: str | None = None, name: str | None = None):
    """The first interface of ``host`` matching the filters."""
    for entry in structured[host]["interfaces"]:
        if peer is not None and entry["peer_device"] != peer:
            continue
        if kind is not None and entry["kind"] != kind:
            continue
        if name is not None and entry["name"] != name:
            continue
        return entry
    raise LookupError(f"no interface on {host} with peer={peer} kind={kind} name={name}")


def neighbor(structured, host: str, peer: str):
    return next(n for n in structured[host]["bgp"]["neighbors"] if n["peer_device"] == peer)


def set_asn(structured, host: str, asn: int) -> None:
    """Renumber ``host`` consistently (device, router bgp and every peer's remote-as), like a bad allocation."""
    structured[host]["asn"] = asn
    structured[host]["bgp"]["asn"] = asn
    for config in structured.values():
        for entry in config["bgp"]["neighbors"]:
            if entry["peer_device"] == host:
                entry["remote_as"] = asn


def subjects(findings) -> list[str]:
    return [finding.subject for finding in findings]


def errors(findings):
    return [finding for finding in findings if finding.severity == "error"]


def with_cable_length(inventory, label_contains: str, length_m: float):
    """The inventory with one cable (the first whose label contains ``label_contains``) re-measured."""
    cables = list(inventory.cables)
    for position, cable in enumerate(cables):
        if label_contains in cable.label:
            cables[position] = dataclasses.replace(cable, length_m=length_m)
            return dataclasses.replace(inventory, cables=tuple(cables)), cables[position]
    raise LookupError(label_contains)


# --------------------------------------------------------------------------- hand-made three-tier fabric


def _device(name, role, asn, router_id, vtep=None):
    networks = [f"{router_id}/32"] + ([f"{vtep}/32"] if vtep else [])
    return {"hostname": name, "role": role, "asn": asn, "router_id": router_id, "interfaces": [],
            "bgp": {"asn": asn, "router_id": router_id, "maximum_paths": 8, "neighbors": [], "networks": networks,
                    "peer_groups": []},
            "vlans": [], "vrfs": [], "vxlan": {"vtep_ip": vtep} if vtep else {}, "qos": {}, "loopbacks": []}


def three_tier() -> dict:
    """Two pods (spine1: leaf1+leaf2, spine2: leaf3) joined by two super-spines."""
    fabric = {
        "leaf1": _device("leaf1", "leaf", 65101, "10.0.0.11", "10.0.4.1"),
        "leaf2": _device("leaf2", "leaf", 65102, "10.0.0.12", "10.0.4.2"),
        "leaf3": _device("leaf3", "leaf", 65103, "10.0.0.13", "10.0.4.3"),
        "spine1": _device("spine1", "spine", 65001, "10.0.0.1"),
        "spine2": _device("spine2", "spine", 65002, "10.0.0.2"),
        "super1": _device("super1", "super-spine", 64999, "10.0.0.101"),
        "super2": _device("super2", "super-spine", 64999, "10.0.0.102"),
    }
    links = [("leaf1", "spine1"), ("leaf2", "spine1"), ("leaf3", "spine2"),
             ("spine1", "super1"), ("spine1", "super2"), ("spine2", "super1"), ("spine2", "super2")]
    for number, (a, b) in enumerate(links):
        a_ip, b_ip = f"10.1.{number}.0", f"10.1.{number}.1"
        for host, peer, ip, peer_ip in ((a, b, a_ip, b_ip), (b, a, b_ip, a_ip)):
            name = f"Ethernet{len(fabric[host]['interfaces']) + 1}"
            fabric[host]["interfaces"].append({
                "name": name, "kind": "fabric", "speed_gbps": 400, "mtu": 9214, "enabled": True, "ip": f"{ip}/31",
                "peer_device": peer, "peer_interface": None, "access_vlan": None, "trunk_vlans": [], "qos": {}})
            fabric[host]["bgp"]["neighbors"].append({
                "address": peer_ip, "interface": name, "remote_as": fabric[peer]["asn"], "peer_device": peer,
                "address_families": ["ipv4_unicast"]})
    for host, config in fabric.items():  # fill peer_interface now that both ends have names
        for entry in config["interfaces"]:
            peer = fabric[entry["peer_device"]]
            entry["peer_interface"] = next(i["name"] for i in peer["interfaces"]
                                           if i["ip"].split("/")[0] in {n["address"] for n in config["bgp"]["neighbors"]}
                                           and i["peer_device"] == host)
    return fabric
