"""build_facts and structured_configs: peers, ECMP, VTEP lists, the structured-config contract."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from compiler.api import build_facts, compile_fabric, structured_configs
from compiler.model import Snapshot
from compiler.structured import skeleton
from validators import overlay


def _configs(snapshot):
    return structured_configs(snapshot, build_facts(snapshot))


def test_peers_both_ends_and_asns(snapshot):
    facts = build_facts(snapshot)
    assert len(facts.links) == 8
    leaf1 = facts.peers["leaf1"]
    assert [peer.peer_device for peer in leaf1] == ["spine1", "spine2"]
    assert all(peer.peer_asn == 65000 for peer in leaf1)
    spine_side = {(p.peer_device, p.local_address): p for p in facts.peers["spine1"]}
    for peer in leaf1:
        mirror = next(p for p in facts.peers[peer.peer_device] if p.peer_device == "leaf1")
        assert mirror.peer_address == peer.local_address and mirror.local_address == peer.peer_address
    assert len(spine_side) == 4


def test_ecmp_width_is_shared_spines(snapshot):
    facts = build_facts(snapshot)
    assert facts.ecmp_width("leaf1", "leaf4") == 2
    assert len(facts.ecmp_groups) == 1 and facts.ecmp_groups[0].spines == ("spine1", "spine2")
    # Break one uplink: leaf1 now only shares spine2 with the others.
    cables = tuple(c for c in snapshot.inventory.cables
                   if not ({c.a.device, c.b.device} == {"leaf1", "spine1"}))
    broken = build_facts(Snapshot(replace(snapshot.inventory, cables=cables), snapshot.intent))
    assert broken.ecmp_width("leaf1", "leaf4") == 1
    assert broken.ecmp_width("leaf2", "leaf4") == 2
    assert len(broken.ecmp_groups) == 2
    assert sum(1 for _ in broken.ecmp_pairs()) == 6


def test_vteps_per_vni(snapshot):
    facts = build_facts(snapshot)
    assert facts.vtep_hosts_by_vni[10010] == ("leaf1", "leaf2", "leaf3", "leaf4")
    assert facts.vtep_hosts_by_vni[10020] == ("leaf1", "leaf2")  # net20 only on leaf1, leaf2
    assert facts.vtep_hosts_by_vni[50002] == ("leaf1", "leaf2")


def test_every_contract_key_present_everywhere(snapshot):
    configs = _configs(snapshot)
    expected_top = set(skeleton("x"))
    interface_keys = {"name", "kind", "speed_gbps", "lanes", "mtu", "enabled", "description", "peer_device",
                      "peer_interface", "cable", "cable_length_m", "ip", "unnumbered", "access_vlan", "trunk_vlans",
                      "qos", "breakout_parent"}
    for config in configs.values():
        assert set(config) == expected_top
        assert set(config["bgp"]) == set(skeleton("x")["bgp"])
        for interface in config["interfaces"]:
            assert set(interface) == interface_keys
        json.dumps(config)  # JSON-serialisable


def test_leaf_structured_matches_contract_values(snapshot):
    leaf1 = _configs(snapshot)["leaf1"]
    assert leaf1["router_id"] == "10.0.0.3" and leaf1["asn"] == 65100
    assert [lo["purpose"] for lo in leaf1["loopbacks"]] == ["router_id", "vtep"]
    fabric = [i for i in leaf1["interfaces"] if i["kind"] == "fabric"]
    assert len(fabric) == 2 and all(i["mtu"] == 9214 and i["ip"].endswith("/31") for i in fabric)
    servers = [i for i in leaf1["interfaces"] if i["kind"] == "server"]
    assert servers and all(i["access_vlan"] == 10 and i["mtu"] == 9000 for i in servers)
    unused = [i for i in leaf1["interfaces"] if i["kind"] == "unused"]
    assert unused and all(not i["enabled"] and i["qos"] == {} for i in unused)
    neighbor = leaf1["bgp"]["neighbors"][0]
    assert neighbor["remote_as"] == 65000 and neighbor["address"].startswith("10.1.0.")
    assert neighbor["address_families"] == ["ipv4_unicast", "l2vpn_evpn"]
    assert leaf1["bgp"]["evpn"] == {"enabled": True, "advertise_all_vni": True}
    assert [v["id"] for v in leaf1["vlans"]] == [10, 20]
    assert leaf1["vlans"][0]["route_targets"] == {"import": ["10010:10010"], "export": ["10010:10010"]}
    assert leaf1["vlans"][0]["svi"] == {"ip": "10.10.0.1/24", "mac": "00:1c:73:00:00:99", "mtu": 9000}
    assert leaf1["vrfs"] == [
        {"name": "TENANT_A", "tenant": "A", "l3vni": 50001, "transit_vlan": 3001, "linux_table": 1001},
        {"name": "TENANT_B", "tenant": "B", "l3vni": 50002, "transit_vlan": 3002, "linux_table": 1002}]
    vxlan = leaf1["vxlan"]
    assert vxlan["mtu"] == 9164 and vxlan["udp_port"] == 4789
    assert vxlan["flood_lists"]["10020"] == ["10.0.4.2"]  # only leaf2 shares net20
    assert "10.0.4.1" not in vxlan["flood_lists"]["10010"]  # never floods to itself
    leaf3 = _configs(snapshot)["leaf3"]
    assert [v["id"] for v in leaf3["vlans"]] == [10]


def test_spine_has_no_overlay_state(snapshot):
    spine = _configs(snapshot)["spine1"]
    assert spine["vxlan"] == {} and spine["vlans"] == [] and spine["vrfs"] == []
    assert spine["bgp"]["evpn"] == {"enabled": True, "advertise_all_vni": False}
    assert len(spine["bgp"]["neighbors"]) == 4
    assert spine["bgp"]["networks"] == [f"{spine['router_id']}/32"]


def test_roce_qos_on_every_used_port(snapshot):
    leaf1 = _configs(snapshot)["leaf1"]
    qos = leaf1["qos"]
    assert qos["dscp_to_tc"] == {"10": 1, "26": 3, "48": 6}
    assert qos["tc_to_priority_group"] == {"0": 0, "1": 0, "3": 3, "6": 0}
    assert qos["lossless_priorities"] == [3]
    assert qos["cnp"] == {"dscp": 48, "priority": 6, "traffic_class": 6}
    assert qos["pfc_watchdog"] == {"enabled": True, "detect_ms": 200, "restore_ms": 400, "action": "drop"}
    for interface in leaf1["interfaces"]:
        if interface["kind"] == "unused":
            continue
        port = interface["qos"]
        assert port["pfc_priorities"] == [3] and port["trust"] == "dscp"
        assert port["ecn"] == {"3": {"min_bytes": 153600, "max_bytes": 1536000, "probability": 10}}
        assert set(port["headroom"]) == {"3"} and port["headroom"]["3"]["policy"] == "dynamic"
    fabric = next(i for i in leaf1["interfaces"] if i["kind"] == "fabric")
    server = next(i for i in leaf1["interfaces"] if i["kind"] == "server")
    if fabric["cable_length_m"] > server["cable_length_m"]:
        assert fabric["qos"]["headroom"]["3"]["xoff_bytes"] > server["qos"]["headroom"]["3"]["xoff_bytes"]


def test_static_headroom_policy(make_snapshot):
    from compiler_scenarios import scenario

    from compiler.scenario import snapshot_from_scenario

    data = scenario()
    data["intent"]["roce_classes"][0].update(headroom_policy="static", headroom_bytes=200000)
    leaf1 = _configs(snapshot_from_scenario(data))["leaf1"]
    port = next(i for i in leaf1["interfaces"] if i["kind"] == "fabric")
    assert port["qos"]["headroom"]["3"]["size_bytes"] == 200000
    assert port["qos"]["headroom"]["3"]["policy"] == "static"


def test_no_roce_no_qos(make_snapshot):
    leaf1 = _configs(make_snapshot(intent={"roce_classes": []}))["leaf1"]
    assert leaf1["qos"] == {} and all(i["qos"] == {} for i in leaf1["interfaces"])


def test_unnumbered_neighbors(make_snapshot):
    leaf1 = _configs(make_snapshot(intent={"underlay": "unnumbered"}))["leaf1"]
    assert all(n["address"] is None and n["interface"] for n in leaf1["bgp"]["neighbors"])
    assert all(i["unnumbered"] and i["ip"] is None for i in leaf1["interfaces"] if i["kind"] == "fabric")


def test_route_target_auto_scheme_spells_out_asn_vni(make_snapshot):
    """auto = ASN:VNI (RFC 8365): export the own ASN's RT, import the RT of every VTEP carrying the VNI."""
    configs = _configs(make_snapshot(intent={"route_target_scheme": "auto"}))
    leaf1, leaf3 = configs["leaf1"], configs["leaf3"]
    assert leaf1["vlans"][0]["route_targets"] == {
        "import": ["65100:10010", "65101:10010", "65102:10010", "65103:10010"], "export": ["65100:10010"]}
    assert leaf3["vlans"][0]["route_targets"]["export"] == ["65102:10010"]
    # net20 and tenant B live on leaf1 and leaf2 only: only their ASNs are imported.
    assert leaf1["vlans"][1]["route_targets"]["import"] == ["65100:10020", "65101:10020"]
    vrf_b = next(vrf for vrf in leaf1["bgp"]["vrfs"] if vrf["name"] == "TENANT_B")
    assert vrf_b["route_targets"] == {"import": ["65100:50002", "65101:50002"], "export": ["65100:50002"]}


def test_route_target_auto_scheme_passes_the_route_target_check(make_snapshot):
    result = compile_fabric(make_snapshot(intent={"route_target_scheme": "auto"}), platforms=["frr"])
    assert overlay.check_route_targets(result) == []
    # A leaf that forgot one peer's ASN would never learn its routes: the same check catches it.
    result.structured["leaf1"]["vlans"][0]["route_targets"]["import"].remove("65103:10010")
    assert [f.subject for f in overlay.check_route_targets(result)] == ["leaf1:VNI 10010"]


@pytest.mark.parametrize(("clos", "port", "lanes"), [
    # DCS-7060X6-64PE: 8-lane OSFP; 2 x 400G breakout -> 4 lanes each (EOS 400g-4).
    ({"platform": "eos", "leaf_model": "DCS-7060X6-64PE", "spine_model": "DCS-7060X6-64PE"}, "Ethernet1/1", 4),
    # DCS-7060DX5-64S: 8-lane QSFP-DD; 4 x 100G breakout -> 2 lanes each (EOS 100g-2).
    ({"platform": "eos", "leaf_model": "DCS-7060DX5-64S", "spine_model": "DCS-7060DX5-64S",
      "downlink_speed_gbps": 100}, "Ethernet1/1", 2),
    # No breakout: the port uses every lane of its cage.
    ({"platform": "eos", "leaf_model": "DCS-7060DX5-64S", "spine_model": "DCS-7060DX5-64S"}, "Ethernet1/1", 8),
])
def test_port_lanes_are_cage_lanes_divided_by_breakout(make_snapshot, clos, port, lanes):
    leaf1 = _configs(make_snapshot(clos={"name": "t", "spines": 2, "leaves": 2, "servers_per_leaf": 2, **clos}))["leaf1"]
    interface = next(i for i in leaf1["interfaces"] if i["name"] == port)
    assert interface["lanes"] == lanes


def test_hardware_names_model_asic_and_family(make_snapshot):
    configs = _configs(make_snapshot(clos={"name": "t", "spines": 2, "leaves": 2, "servers_per_leaf": 2,
                                           "platform": "eos", "spine_model": "DCS-7816R4"}))
    assert configs["leaf1"]["hardware"] == {"model": "DCS-7060DX5-64S", "asic": "Broadcom Tomahawk 4",
                                            "asic_family": "strata"}
    assert configs["spine1"]["hardware"] == {"model": "DCS-7816R4", "asic": "Broadcom Jericho3", "asic_family": "sand"}


def test_scheduling_cnp_strict_lossless_and_lossy_weighted(snapshot):
    qos = _configs(snapshot)["leaf1"]["qos"]
    # roce (lossless, TC 3) 80 %, best effort TC 0 and bulk TC 1 share 20 %, CNP (TC 6) strict.
    assert qos["scheduling"] == {"0": {"mode": "dwrr", "weight_percent": 10},
                                 "1": {"mode": "dwrr", "weight_percent": 10},
                                 "3": {"mode": "dwrr", "weight_percent": 80},
                                 "6": {"mode": "strict"}}


@pytest.mark.parametrize("platform, clos", [
    ("eos", {"platform": "eos", "leaf_model": "DCS-7060DX5-64S", "spine_model": "DCS-7060DX5-64S"}),
    ("sonic", {"platform": "sonic"}), ("frr", {})])
def test_evpn_overlay_without_tenants_gives_every_vtep_its_vxlan_interface(make_snapshot, platform, clos):
    """intent.evpn_overlay: EVPN and a VNI-less VXLAN interface on every VTEP before any tenant or network; off
    (the default), a fabric with no tenant has neither."""
    bare = make_snapshot(intent={"tenants": [], "networks": [], "roce_classes": [], "evpn_overlay": True}, clos=clos)
    configs = _configs(bare)
    leaf, spine = configs["leaf1"], configs["spine1"]
    assert leaf["vxlan"]["vtep_ip"] and leaf["vxlan"]["vlan_vnis"] == {} and leaf["vxlan"]["flood_lists"] == {}
    assert leaf["bgp"]["evpn"]["enabled"] and spine["bgp"]["evpn"]["enabled"] and not spine["vxlan"]
    assert compile_fabric(bare).rendered["leaf1"][platform]  # every renderer takes a VXLAN interface with no VNI
    off = make_snapshot(intent={"tenants": [], "networks": [], "roce_classes": []}, clos=clos)
    assert not _configs(off)["leaf1"]["vxlan"] and not _configs(off)["leaf1"]["bgp"]["evpn"]["enabled"]
