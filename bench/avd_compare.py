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

from compiler.api import allocate, build_facts, render_device, structured_configs, validate_intent
from compiler.clos import ClosParams, plan_clos
from compiler.model import Allocations, FabricIntent, Network, Role, Snapshot, Tenant


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
    import pyavd  # lazy: an optional bench-only dependency (requirements-bench.txt), heavy to import

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


# ------------------------------------------------------------------------------------------ the run


def reference_intent_snapshot(spines: int, leaves: int) -> Snapshot:
    """One tenant with a VRF, two routed networks and one L2 network: the same intent for both tools."""
    inventory = plan_clos(ClosParams(name=f"avd{spines}x{leaves}", spines=spines, leaves=leaves, servers_per_leaf=2))
    intent = FabricIntent(
        name=f"avd{spines}x{leaves}", inventory_fabric=inventory.fabric,
        tenants=(Tenant("A", "TENANT_A", 50001),),
        networks=(
            Network("net10", "A", 10, "10.10.0.0/24", "10.10.0.1"),
            Network("net20", "A", 20, "10.20.0.0/24", "10.20.0.1"),
            Network("net30", "A", 30, "10.30.0.0/24", None),
        ),
    )
    return Snapshot(inventory, intent, allocate(inventory, intent, Allocations()))


def compare(spines: int, leaves: int, sample: int = 3) -> dict:
    snapshot = reference_intent_snapshot(spines, leaves)
    devices = [switch.hostname for switch in snapshot.inventory.switches]

    started = time.perf_counter()
    validate_intent(snapshot)
    facts = build_facts(snapshot)
    ours_structured = structured_configs(snapshot, facts)
    ours_configs = {host: render_device(ours_structured[host], "eos") for host in devices}
    ours_seconds = time.perf_counter() - started

    all_inputs = avd_inputs(snapshot)
    avd, avd_timings = run_pyavd(all_inputs, devices)
    avd_seconds = sum(avd_timings.values())

    checked = devices[:1] + devices[spines:spines + sample - 1]
    differences = {
        host: compare_semantics(semantics_from_ours(ours_structured[host]),
                                semantics_from_avd(avd["structured"][host]._as_dict()))
        for host in checked
    }
    assert all(ours_configs[host]["startup-config"] for host in devices)
    return {
        "fabric": f"{spines}x{leaves}", "devices": len(devices),
        "ours_s": round(ours_seconds, 4), "avd_s": round(avd_seconds, 3),
        "ours_ms_per_device": round(ours_seconds * 1000 / len(devices), 3),
        "avd_ms_per_device": round(avd_seconds * 1000 / len(devices), 2),
        "ratio": round(avd_seconds / ours_seconds, 1) if ours_seconds else None,
        "avd_phases_s": {name: round(value, 3) for name, value in avd_timings.items()},
        "semantic_check": {host: (diffs or "same") for host, diffs in differences.items()},
    }


def table(rows: list[dict]) -> str:
    lines = [
        "EOS compile vs Arista AVD (pyavd): same intent, same devices",
        f"{'fabric':<8} {'devices':>7} {'ours s':>8} {'pyavd s':>8} {'ours ms/dev':>11} {'pyavd ms/dev':>12} "
        f"{'ratio':>6}  semantic check (BGP peers+AS, EVPN peers, VLAN->VNI, VRF->VNI)",
    ]
    for row in rows:
        same = all(value == "same" for value in row["semantic_check"].values())
        lines.append(
            f"{row['fabric']:<8} {row['devices']:>7} {row['ours_s']:>8} {row['avd_s']:>8} "
            f"{row['ours_ms_per_device']:>11} {row['avd_ms_per_device']:>12} {row['ratio']:>5}x  "
            f"{'same on ' + ', '.join(row['semantic_check']) if same else row['semantic_check']}"
        )
    return "\n".join(lines)


def run(sizes=((2, 4), (4, 16), (8, 64))) -> list[dict]:
    try:
        import pyavd  # noqa: F401 - lazy: optional bench-only dependency; absent means "skipped"
    except ImportError:
        return [{"skipped": "pyavd is not installed (make bench installs requirements-bench.txt)"}]
    return [compare(spines, leaves) for spines, leaves in sizes]


if __name__ == "__main__":
    results = run()
    if results and "skipped" in results[0]:
        print(f"skipped: {results[0]['skipped']}")
    else:
        print(table(results))
