"""Side by side with Arista AVD (pyavd): the same fabric intent, compiled by both, timed, and compared.

pyavd is a bench-only dependency (requirements-bench.txt), never a runtime one. The translation maps our
Snapshot (inventory + intent + allocations) onto AVD's eos_designs inputs for an L3LS-EVPN fabric: spines and
l3leaf node groups with the same ASNs, uplink interfaces and pools, and one AVD tenant per tenant with its VRF,
SVIs and L2 VLANs. pyavd's pipeline (validate_inputs -> get_avd_facts -> get_device_structured_config ->
get_device_config) is timed against our EOS compile of the same devices, and a semantic comparison of BGP
neighbours (peer device + remote AS), VLAN->VNI maps and VRF VNIs shows that the two did the same work.
Addresses are not compared: AVD derives them from node ids, we from our stable allocator.
"""

from __future__ import annotations

import time
from ipaddress import IPv4Network

from compiler.model import Role, Snapshot


def avd_inputs(snapshot: Snapshot) -> dict[str, dict]:
    """hostname -> AVD eos_designs inputs (the shared fabric vars plus the node's `type`)."""
    inventory, intent, allocations = snapshot.inventory, snapshot.intent, snapshot.allocations
    spines = inventory.switches_with_role(Role.SPINE)
    leaves = inventory.switches_with_role(Role.LEAF)
    spine_names = [spine.hostname for spine in spines]
    uplinks: dict[str, list[tuple[str, str, str]]] = {leaf.hostname: [] for leaf in leaves}
    for cable in inventory.cables:
        for near, far in ((cable.a, cable.b), (cable.b, cable.a)):
            if near.device in uplinks and far.device in spine_names:
                uplinks[near.device].append((far.device, near.interface, far.interface))
    order = {name: index for index, name in enumerate(spine_names)}
    for links in uplinks.values():
        links.sort(key=lambda link: order[link[0]])

    tenants = []
    for tenant in intent.tenants:
        networks = [n for n in intent.networks if n.tenant == tenant.name]
        svis = [
            {
                "id": n.vlan_id, "name": n.name, "enabled": True,
                "ip_address_virtual": f"{n.gateway}/{IPv4Network(n.subnet, strict=False).prefixlen}",
            }
            for n in networks if n.gateway
        ]
        vrf = {"name": tenant.vrf, "svis": svis}
        l3vni = allocations.l3vnis.get(tenant.name, tenant.l3vni)
        if l3vni:
            vrf["vrf_vni"] = l3vni
        tenants.append({
            "name": tenant.name,
            "mac_vrf_vni_base": intent.pools.l2vni_base,
            "vrfs": [vrf],
            "l2vlans": [{"id": n.vlan_id, "name": n.name} for n in networks if not n.gateway],
        })

    fabric = {
        "fabric_name": intent.name.upper().replace("-", "_"),
        "underlay_routing_protocol": "ebgp",
        "overlay_routing_protocol": "ebgp",
        "p2p_uplinks_mtu": intent.underlay_mtu,
        "bgp_maximum_paths": intent.bgp.maximum_paths,
        "bgp_ecmp": intent.bgp.maximum_paths,
        "spine": {
            "defaults": {
                "loopback_ipv4_pool": intent.pools.loopback,
                "bgp_as": str(allocations.asns[spine_names[0]]),
            },
            "nodes": [
                {"name": spine.hostname, "id": index, "mgmt_ip": f"{spine.mgmt_ip}/24"}
                for index, spine in enumerate(spines, start=1)
            ],
        },
        "l3leaf": {
            "defaults": {
                "loopback_ipv4_pool": intent.pools.loopback,
                "loopback_ipv4_offset": len(spines),
                "vtep_loopback_ipv4_pool": intent.pools.vtep,
                "uplink_ipv4_pool": intent.pools.p2p,
                "uplink_switches": spine_names,
                "max_uplink_switches": len(spines),
                "virtual_router_mac_address": intent.anycast_gateway_mac,
                "spanning_tree_mode": "none",
            },
            "node_groups": [
                {
                    "group": leaf.hostname,
                    "bgp_as": str(allocations.asns[leaf.hostname]),
                    "nodes": [{
                        "name": leaf.hostname,
                        "id": index,
                        "mgmt_ip": f"{leaf.mgmt_ip}/24",
                        "uplink_interfaces": [link[1] for link in uplinks[leaf.hostname]],
                        "uplink_switches": [link[0] for link in uplinks[leaf.hostname]],
                        "uplink_switch_interfaces": [link[2] for link in uplinks[leaf.hostname]],
                    }],
                }
                for index, leaf in enumerate(leaves, start=1)
            ],
        },
        "tenants": tenants,
    }
    return {
        switch.hostname: {**fabric, "type": "spine" if switch.role == Role.SPINE else "l3leaf"}
        for switch in (*spines, *leaves)
    }


def run_pyavd(all_inputs: dict[str, dict], devices: list[str]) -> tuple[dict, dict[str, float]]:
    """pyavd's documented pipeline; returns (structured configs for `devices`, phase timings in seconds)."""
    import pyavd

    timings: dict[str, float] = {}
    started = time.perf_counter()
    designs = {}
    for hostname, inputs in all_inputs.items():
        result = pyavd.validate_inputs(inputs)
        violations = list(result.validation_result.violations)
        if violations:
            raise RuntimeError(f"pyavd rejected inputs for {hostname}: {[str(v) for v in violations[:3]]}")
        designs[hostname] = result.validated_data
    timings["validate_inputs"] = time.perf_counter() - started
    started = time.perf_counter()
    facts = pyavd.get_avd_facts(designs)
    timings["get_avd_facts"] = time.perf_counter() - started
    structured = {}
    started = time.perf_counter()
    for hostname in devices:
        structured[hostname] = pyavd.get_device_structured_config(hostname, designs[hostname], facts)
    timings["get_device_structured_config"] = time.perf_counter() - started
    started = time.perf_counter()
    configs = {hostname: pyavd.get_device_config(structured[hostname]) for hostname in devices}
    timings["get_device_config"] = time.perf_counter() - started
    return {"structured": structured, "configs": configs}, timings


# ------------------------------------------------------------------------------------------ semantic comparison


def semantics_from_ours(structured: dict) -> dict:
    """What both tools must agree on, from our structured config: underlay peers, EVPN peers, VNI maps."""
    bgp = structured["bgp"]
    underlay = sorted(
        (n["peer_device"], int(n["remote_as"])) for n in bgp["neighbors"] if "ipv4_unicast" in n["address_families"]
    )
    evpn = sorted({n["peer_device"] for n in bgp["neighbors"] if "l2vpn_evpn" in n["address_families"]})
    vxlan = structured.get("vxlan") or {}
    return {
        "underlay_peers": underlay,
        "evpn_peers": evpn,
        "vlan_vni": {int(vlan): int(vni) for vlan, vni in (vxlan.get("vlan_vnis") or {}).items()},
        "vrf_vni": {vrf: int(vni) for vrf, vni in (vxlan.get("vrf_vnis") or {}).items()},
    }


def semantics_from_avd(structured: dict) -> dict:
    """The same facts from pyavd's structured config (as a dict). AVD runs EVPN on separate loopback sessions."""
    bgp = structured.get("router_bgp", {})
    group_type = {group["name"]: group.get("metadata", {}).get("type") for group in bgp.get("peer_groups", [])}
    underlay, evpn = [], set()
    for neighbor in bgp.get("neighbors", []):
        peer = neighbor.get("metadata", {}).get("peer") or neighbor.get("description", "").split("_")[0]
        kind = group_type.get(neighbor.get("peer_group"))
        if kind == "ipv4":
            underlay.append((peer, int(neighbor["remote_as"])))
        elif kind == "evpn":
            evpn.add(peer)
    vxlan = structured.get("vxlan_interface", {}).get("vxlan1", {}).get("vxlan", {})
    return {
        "underlay_peers": sorted(underlay),
        "evpn_peers": sorted(evpn),
        "vlan_vni": {int(v["id"]): int(v["vni"]) for v in vxlan.get("vlans", [])},
        "vrf_vni": {v["name"]: int(v["vni"]) for v in vxlan.get("vrfs", [])},
    }


def compare_semantics(ours: dict, avd: dict) -> list[str]:
    """Differences between the two readings; empty when both tools did the same work."""
    return [
        f"{key}: ours={ours[key]!r} avd={avd[key]!r}" for key in ("underlay_peers", "evpn_peers", "vlan_vni", "vrf_vni")
        if ours[key] != avd[key]
    ]
