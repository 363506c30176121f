"""validate_intent: the valid base passes; each broken input fails with its field, value and message."""

from __future__ import annotations

import copy

import pytest
from compiler_scenarios import BASE_SCENARIO

from compiler.errors import InputError, IntentValidationError
from compiler.model import Allocations, Snapshot
from compiler.scenario import snapshot_from_scenario
from compiler.validate import validate_intent


def _net(data, name):
    return next(item for item in data["intent"]["networks"] if item["name"] == name)


def _cls(data, name):
    return next(item for item in data["intent"]["roce_classes"] if item["name"] == name)


# (id, mutate(scenario dict), expected field, expected value, message fragment)
NEGATIVE_CASES = [
    ("vlan0", lambda d: _net(d, "net10").update(vlan_id=0), "networks[net10].vlan_id", 0, "VLAN must be 1..4094"),
    ("vlan4095", lambda d: _net(d, "net10").update(vlan_id=4095), "networks[net10].vlan_id", 4095, "1..4094"),
    ("vni_too_big", lambda d: _net(d, "net10").update(l2vni=16777216), "networks[net10].l2vni", 16777216,
     "VNI must be 1..16777215"),
    ("vni_zero", lambda d: d["intent"]["tenants"][0].update(l3vni=0), "tenants[A].l3vni", 0, "VNI must be"),
    ("dscp_64", lambda d: _cls(d, "roce").update(dscp=[64]), "roce_classes[roce].dscp", 64, "DSCP must be 0..63"),
    ("dscp_negative", lambda d: _cls(d, "roce").update(dscp=[-1]), "roce_classes[roce].dscp", -1, "0..63"),
    ("priority_8", lambda d: _cls(d, "roce").update(priority=8), "roce_classes[roce].priority", 8, "0..7"),
    ("tc_8", lambda d: _cls(d, "bulk").update(traffic_class=8), "roce_classes[bulk].traffic_class", 8, "0..7"),
    ("ecn_min_gt_max", lambda d: _cls(d, "roce").update(ecn_min_kb=2000), "roce_classes[roce].ecn_min_kb", 2000,
     "ECN minimum threshold above maximum 1500 KB"),
    ("ecn_min_eq_max_prob", lambda d: _cls(d, "roce").update(ecn_min_kb=1500),
     "roce_classes[roce].ecn_mark_probability", 10, "step marking"),
    ("ecn_prob_zero", lambda d: _cls(d, "roce").update(ecn_mark_probability=0),
     "roce_classes[roce].ecn_mark_probability", 0, "1..100"),
    ("ecn_prob_without_thresholds", lambda d: _cls(d, "bulk").update(ecn_mark_probability=5),
     "roce_classes[bulk].ecn_mark_probability", 5, "ECN off"),
    ("two_lossless_one_priority", lambda d: d["intent"]["roce_classes"].append(
        {"name": "roce2", "dscp": [24], "priority": 3, "traffic_class": 3, "lossless": True}),
     "roce_classes[roce2].priority", 3, "lossless priority already used by class roce with DSCP [26]"),
    ("dscp_two_classes", lambda d: _cls(d, "bulk").update(dscp=[10, 26]), "roce_classes[bulk].dscp", 26,
     "DSCP already mapped by class roce"),
    ("cnp_on_lossless", lambda d: _cls(d, "roce").update(cnp_priority=3), "roce_classes.cnp_priority", 3,
     "lossless priority"),
    # issue 13: a lossy storage class (DSCP 10, priority 3, TC 5) on the RoCE class's PFC priority 3.
    ("lossy_on_roce_priority", lambda d: d["intent"]["roce_classes"].append(
        {"name": "storage", "dscp": [10], "priority": 3, "traffic_class": 5, "lossless": False}) or
     _cls(d, "bulk").update(dscp=[12]),
     "roce_classes[storage].priority", 3, "lossy class on priority 3, the PFC priority of lossless class roce"),
    ("lossy_in_roce_queue", lambda d: _cls(d, "bulk").update(traffic_class=3),
     "roce_classes[bulk].traffic_class", 3, "egress queue) 3 of lossless class roce"),
    ("cnp_in_roce_queue", lambda d: _cls(d, "roce").update(traffic_class=6, priority=3),
     "roce_classes.cnp_priority", 6, "the queue of lossless class roce"),
    ("static_headroom_zero", lambda d: _cls(d, "roce").update(headroom_policy="static"),
     "roce_classes[roce].headroom_bytes", 0, "positive headroom_bytes"),
    ("loopback_pool_small", lambda d: d["intent"].update(pools={"loopback": "10.0.0.0/30"}), "pools.loopback",
     "10.0.0.0/30", "6 addresses needed, 2 available"),
    ("p2p_pool_small", lambda d: d["intent"].update(pools={"p2p": "10.1.0.0/29"}), "pools.p2p", "10.1.0.0/29",
     "8 /31s needed, 4 available"),
    ("asn_range_small", lambda d: d["intent"].update(pools={"asn_first": 65100, "asn_last": 65102}),
     "pools.asn_first", 65100, "4 ASNs needed, 3 usable"),
    ("asn_out_of_range", lambda d: d["intent"].update(pools={"asn_first": 0}), "pools.asn_first", 0, "ASN must be"),
    ("asn_too_big", lambda d: d["intent"].update(pools={"asn_last": 4294967296}), "pools.asn_last", 4294967296,
     "ASN must be 1..4294967295"),
    ("spine_asn_reserved", lambda d: d["intent"].update(pools={"spine_asn": 23456}), "pools.spine_asn", 23456,
     "AS_TRANS"),
    ("spine_asn_65535", lambda d: d["intent"].update(pools={"spine_asn": 65535}), "pools.spine_asn", 65535,
     "reserved ASN"),
    ("spine_in_leaf_range", lambda d: d["intent"].update(pools={"spine_asn": 65200}), "pools.spine_asn", 65200,
     "inside the leaf range"),
    ("pools_overlap", lambda d: d["intent"].update(pools={"vtep": "10.0.0.0/23"}), "pools.vtep", "10.0.0.0/23",
     "overlaps pools.loopback 10.0.0.0/22"),
    ("pool_host_bits", lambda d: d["intent"].update(pools={"p2p": "10.1.0.1/16"}), "pools.p2p", "10.1.0.1/16",
     "not an IPv4 prefix"),
    ("subnets_overlap", lambda d: d["intent"]["networks"].append(
        {"name": "net11", "tenant": "A", "vlan_id": 11, "subnet": "10.10.0.128/25"}),
     "networks[net11].subnet", "10.10.0.128/25", "overlaps network net10 10.10.0.0/24 in VRF TENANT_A"),
    ("subnet_vs_infra", lambda d: _net(d, "net20").update(subnet="10.0.0.0/24", gateway="10.0.0.1"),
     "networks[net20].subnet", "10.0.0.0/24", "overlaps infrastructure pool pools.loopback"),
    ("gateway_outside", lambda d: _net(d, "net10").update(gateway="10.11.0.1"), "networks[net10].gateway",
     "10.11.0.1", "gateway not inside subnet 10.10.0.0/24"),
    ("gateway_broadcast", lambda d: _net(d, "net10").update(gateway="10.10.0.255"), "networks[net10].gateway",
     "10.10.0.255", "broadcast"),
    ("duplicate_vni", lambda d: _net(d, "net20").update(l2vni=10010), "networks[net20].l2vni", 10010,
     "duplicate VNI: already used by network net10"),
    ("l3vni_equals_l2vni", lambda d: d["intent"]["tenants"][1].update(l3vni=10010), "networks[net10].l2vni", 10010,
     "already used by tenant B"),
    ("vlan_reused_other_vni", lambda d: d["intent"]["networks"].append(
        {"name": "net10b", "tenant": "B", "vlan_id": 10, "subnet": "10.30.0.0/24", "l2vni": 30010}),
     "networks[net10b].vlan_id", 10, "VLAN reused with a different VNI: network net10 maps it to 10010"),
    ("unknown_tenant", lambda d: _net(d, "net20").update(tenant="Z"), "networks[net20].tenant", "Z", "unknown tenant"),
    ("unknown_leaf", lambda d: _net(d, "net20").update(leaves=["leaf9"]), "networks[net20].leaves", "leaf9",
     "unknown leaf"),
    ("unknown_nic", lambda d: _net(d, "net20").update(attachments=["gpu0001:eth7"]), "networks[net20].attachments",
     "gpu0001:eth7", "unknown server NIC port"),
    ("nic_on_other_leaf", lambda d: _net(d, "net20").update(attachments=["gpu0008:eth0"]),
     "networks[net20].attachments", "gpu0008:eth0", "cabled to leaf4, which is not in the network's leaves"),
    ("host_mtu_too_big", lambda d: d["intent"].update(host_mtu=9200), "host_mtu", 9200,
     "9250 exceeds underlay_mtu 9214"),
    ("unnumbered_on_eos", lambda d: (d["clos"].update(platform="eos"), d["intent"].update(underlay="unnumbered")),
     "underlay", "unnumbered", "not supported by the EOS renderer"),
    ("vrf_name_long", lambda d: d["intent"]["tenants"][0].update(vrf="TENANT_WITH_LONG_NAME"), "tenants[A].vrf",
     "TENANT_WITH_LONG_NAME", "at most 15 allowed"),
    ("vrf_default", lambda d: d["intent"]["tenants"][0].update(vrf="default"), "tenants[A].vrf", "default",
     "is reserved"),
    ("vrf_mgmt_any_case", lambda d: d["intent"]["tenants"][1].update(vrf="Mgmt"), "tenants[B].vrf", "Mgmt",
     "is reserved (all, default, mgmt cannot be used)"),
    ("lossless_priority_not_tc_on_eos", lambda d: (d["clos"].update(platform="eos"), _cls(d, "roce").update(priority=4)),
     "roce_classes[roce].priority", 4, "must use its traffic class 3 as PFC priority"),
    ("watchdog_3_decimals_on_eos", lambda d: (d["clos"].update(platform="eos"),
                                              _cls(d, "roce").update(watchdog_detect_ms=205)),
     "roce_classes[roce].watchdog_detect_ms", 205, "steps of 10 ms"),
    ("watchdog_above_60s_on_eos", lambda d: (d["clos"].update(platform="eos"),
                                             _cls(d, "roce").update(watchdog_restore_ms=61000)),
     "roce_classes[roce].watchdog_restore_ms", 61000, "10..60000 ms"),
    # the planner refuses it first: the platform data has no EOS port map for a Spectrum switch
    ("roce_on_spectrum_running_eos", lambda d: d["clos"].update(platform="eos", leaf_model="SN5600"),
     "leaf_model", "SN5600", "SN5600 has no eos platform data"),
    ("cnp_queue_below_a_class_on_eos", lambda d: (d["clos"].update(platform="eos"),
                                                  _cls(d, "roce").update(cnp_priority=2)),
     "roce_classes.cnp_priority", 2, "traffic class(es) [3] are higher"),
    ("rt_auto_4byte_asn_big_vni", lambda d: (d["intent"].update(route_target_scheme="auto", pools={
        "asn_first": 4200000000, "asn_last": 4200000100}), _net(d, "net10").update(l2vni=70000)),
     "route_target_scheme", "auto", "ASN 4200000000 is 4-byte and network net10 has VNI 70000 > 65535"),
    ("transit_vlan_clash", lambda d: _net(d, "net20").update(vlan_id=3002), "tenants[B].l3vni", 50002,
     "transit VLAN 3002 of this L3VNI is used by network net20"),
    ("hold_time", lambda d: d["intent"].update(bgp={"keepalive_s": 10, "hold_s": 9}), "bgp.hold_s", 9, "RFC 4271"),
    ("multicast_gateway_mac", lambda d: d["intent"].update(anycast_gateway_mac="01:00:5e:00:00:01"),
     "anycast_gateway_mac", "01:00:5e:00:00:01", "unicast"),
]


def test_base_scenario_is_valid(snapshot):
    validate_intent(snapshot)  # raises on any problem


@pytest.mark.parametrize("mutate,field,value,fragment", [case[1:] for case in NEGATIVE_CASES],
                         ids=[case[0] for case in NEGATIVE_CASES])
def test_broken_intent_names_field_and_value(mutate, field, value, fragment):
    data = copy.deepcopy(BASE_SCENARIO)
    mutate(data)
    with pytest.raises(InputError) as caught:
        validate_intent(snapshot_from_scenario(data))
    matching = [error for error in caught.value.errors if error.field == field and fragment in error.message]
    assert matching, f"no error on {field} containing {fragment!r}; got {[str(e) for e in caught.value.errors]}"
    assert matching[0].value == value
    assert field in caught.value.as_dict()


def test_all_errors_reported_at_once():
    data = copy.deepcopy(BASE_SCENARIO)
    _net(data, "net10").update(vlan_id=0)
    _cls(data, "roce").update(dscp=[99])
    data["intent"]["host_mtu"] = 9200
    with pytest.raises(IntentValidationError) as caught:
        validate_intent(snapshot_from_scenario(data))
    fields = {error.field for error in caught.value.errors}
    assert {"networks[net10].vlan_id", "roce_classes[roce].dscp", "host_mtu"} <= fields


def test_stored_reserved_asn_flagged(snapshot):
    broken = Snapshot(snapshot.inventory, snapshot.intent, Allocations(asns={"leaf1": 23456}))
    with pytest.raises(IntentValidationError, match=r"allocations.asns\[leaf1\]=23456"):
        validate_intent(broken)


def test_unnumbered_allowed_on_frr(make_snapshot):
    validate_intent(make_snapshot(intent={"underlay": "unnumbered"}))


def test_leaf_to_leaf_cable_needs_peer_link(snapshot):
    from dataclasses import replace

    from compiler.model import Cable, Endpoint

    leaf1 = snapshot.inventory.switches_by_name["leaf1"]
    leaf2 = snapshot.inventory.switches_by_name["leaf2"]
    free1 = next(i.name for i in leaf1.interfaces if Endpoint("leaf1", i.name) not in snapshot.inventory.cable_at)
    free2 = next(i.name for i in leaf2.interfaces if Endpoint("leaf2", i.name) not in snapshot.inventory.cable_at)
    cable = Cable("X1", Endpoint("leaf1", free1), Endpoint("leaf2", free2), "dac", 1.0)
    inventory = replace(snapshot.inventory, cables=snapshot.inventory.cables + (cable,))
    with pytest.raises(IntentValidationError, match="must be marked as a peer link"):
        validate_intent(Snapshot(inventory, snapshot.intent))
    marked = replace(inventory, cables=snapshot.inventory.cables + (replace(cable, peer_link=True),))
    with pytest.raises(IntentValidationError) as caught:  # marked, it is refused as a peer link (no MLAG anywhere)
        validate_intent(Snapshot(marked, snapshot.intent))
    assert "must be marked as a peer link" not in str(caught.value)
    assert any(e.field == "cables[X1].peer_link" for e in caught.value.errors)


def test_lossless_priority_other_than_traffic_class_is_fine_off_eos(make_snapshot):
    data = copy.deepcopy(BASE_SCENARIO)
    _cls(data, "roce").update(priority=4, watchdog_detect_ms=205)
    validate_intent(snapshot_from_scenario(data))  # FRR: explicit DSCP -> priority map, millisecond timers


@pytest.mark.parametrize(("platform", "label"), [("eos", "EOS"), ("sonic", "SONiC"), ("frr", "FRR/Linux")])
def test_peer_link_is_refused_naming_the_cable_on_every_platform(make_snapshot, platform, label):
    from dataclasses import replace

    from compiler.model import Cable, Endpoint

    snapshot = make_snapshot(clos={"platform": platform})
    inventory = snapshot.inventory
    free1, free2 = (next(i.name for i in inventory.switches_by_name[leaf].interfaces
                         if Endpoint(leaf, i.name) not in inventory.cable_at) for leaf in ("leaf1", "leaf2"))
    cable = Cable("X1", Endpoint("leaf1", free1), Endpoint("leaf2", free2), "dac", 1.0, peer_link=True)
    broken = Snapshot(replace(inventory, cables=inventory.cables + (cable,)), snapshot.intent)
    with pytest.raises(IntentValidationError) as caught:
        validate_intent(broken)
    errors = [e for e in caught.value.errors if e.field == "cables[X1].peer_link"]
    assert errors and errors[0].value is True
    assert f"MLAG peer links are not supported on {label} switches (leaf1, leaf2)" in errors[0].message
    validate_intent(snapshot)  # the same fabric without the peer link is valid


def test_base_scenario_is_valid_on_eos(make_snapshot):
    """The passing twin of the EOS-only checks: CNP strict above the data classes, priority == traffic class,
    10 ms-step watchdog timers, a Tomahawk leaf model."""
    validate_intent(make_snapshot(clos={"platform": "eos"}))
