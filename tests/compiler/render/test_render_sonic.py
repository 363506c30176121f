"""SONiC renderer: config_db.json tables, key formats per the SONiC YANG models, RoCE values, refusals, frr.conf."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess

import pytest
from render_structured_fixtures import HEADROOM_3M, HEADROOM_5M, ROCE2_ECN, ROCE_ECN, leaf_structured, spine_structured

from compiler.errors import RenderError
from compiler.render.sonic import dumps_sorted_indented, render_config_db, sonic_structured
from compiler.render.sonic.config_db import build_config_db

# Key patterns from the YANG list keys (sonic-net/sonic-buildimage src/sonic-yang-models/yang-models).
PORT = r"Ethernet\d+"
IPV4_PREFIX = r"\d{1,3}(\.\d{1,3}){3}/\d{1,2}"
VLAN = r"Vlan(409[0-5]|40[0-8][0-9]|[1-3][0-9]{3}|[1-9][0-9]{2}|[1-9][0-9]|[2-9])"  # sonic-vlan.yang
KEY_PATTERNS = {
    "PORT": rf"{PORT}",
    "INTERFACE": rf"{PORT}(\|{IPV4_PREFIX})?",
    "LOOPBACK_INTERFACE": rf"Loopback\d+(\|{IPV4_PREFIX})?",
    "VLAN": VLAN,
    "VLAN_MEMBER": rf"{VLAN}\|{PORT}",
    "VLAN_INTERFACE": rf"{VLAN}(\|{IPV4_PREFIX})?",
    "VRF": r"Vrf[a-zA-Z0-9_-]+",  # sonic-vrf.yang
    "VXLAN_TUNNEL_MAP": rf"vtep\|map_\d+_{VLAN}",
    "QUEUE": rf"{PORT}\|[0-7](-[0-7])?",
    "BUFFER_PG": rf"{PORT}\|[0-7](-[0-7])?",  # sonic-buffer-pg.yang pg_num
    "PFC_WD": rf"{PORT}|GLOBAL",
    "PORT_QOS_MAP": rf"{PORT}|global",
    "WRED_PROFILE": r"[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}",  # sonic-wred-profile.yang
    "DEVICE_NEIGHBOR": PORT,
}
LEAF_TABLES = {
    "DEVICE_METADATA", "DEVICE_NEIGHBOR", "PORT", "INTERFACE", "LOOPBACK_INTERFACE", "VLAN", "VLAN_MEMBER",
    "VLAN_INTERFACE", "VRF", "VXLAN_TUNNEL", "VXLAN_TUNNEL_MAP", "VXLAN_EVPN_NVO", "DSCP_TO_TC_MAP",
    "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    "PORT_QOS_MAP", "WRED_PROFILE", "QUEUE", "BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "PFC_WD", "CABLE_LENGTH",
    "BREAKOUT_CFG", "BUFFER_QUEUE", "SCHEDULER", "MGMT_PORT", "MGMT_INTERFACE", "MGMT_VRF_CONFIG", "NTP", "NTP_SERVER", "SYSLOG_SERVER", "DNS_NAMESERVER",
}
QOS_PORTS = ["Ethernet0", "Ethernet8", "Ethernet128", "Ethernet136"]
UNUSED_PORT = "Ethernet248"


def config_db(structured: dict) -> dict:
    return json.loads(render_config_db(structured))


@pytest.fixture(scope="module")
def leaf_db() -> dict:
    return config_db(leaf_structured("sonic"))


@pytest.fixture(scope="module")
def spine_db() -> dict:
    return config_db(spine_structured("sonic"))


def test_text_is_sorted_indented_json():
    text = render_config_db(leaf_structured("sonic"))
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=4) + "\n"
    assert text == render_config_db(leaf_structured("sonic")), "not deterministic"


def test_leaf_has_every_table(leaf_db):
    assert set(leaf_db) == LEAF_TABLES


def test_spine_has_no_overlay_tables(spine_db):
    for table in ("VLAN", "VLAN_MEMBER", "VLAN_INTERFACE", "VRF", "VXLAN_TUNNEL", "VXLAN_TUNNEL_MAP", "VXLAN_EVPN_NVO"):
        assert table not in spine_db, table
    assert spine_db["DEVICE_METADATA"]["localhost"]["type"] == "LeafRouter"
    assert set(spine_db["PORT_QOS_MAP"]) == {"Ethernet0", "Ethernet8", "global"}


@pytest.mark.parametrize("make", [leaf_structured, spine_structured])
def test_keys_match_yang_patterns_and_values_are_strings(make):
    database = config_db(make("sonic"))
    for table, pattern in KEY_PATTERNS.items():
        for key in database.get(table, {}):
            assert re.fullmatch(pattern, key), f"{table} key {key!r}"

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}")
        else:
            assert isinstance(node, str), f"{path} = {node!r} is not a string"

    walk(database, "config_db")


def test_device_metadata(leaf_db):
    assert leaf_db["DEVICE_METADATA"]["localhost"] == {
        "hostname": "leaf1",
        "bgp_asn": "65101",
        "bgp_router_id": "10.0.0.3",
        "docker_routing_config_mode": "split-unified",
        "type": "ToRRouter",
        "buffer_model": "traditional",  # Broadcom Tomahawk 4: SONiC has no dynamic buffer plugin for it
        # From the platform data: sonic-buildimage device/arista/x86_64-arista_7060dx5_64s/default_sku.
        "hwsku": "Arista-7060DX5-64S",
        "platform": "x86_64-arista_7060dx5_64s",
        "mac": "02:00:00:00:00:03",
    }
    assert "BGP_NEIGHBOR" not in leaf_db and "BGP_GLOBALS" not in leaf_db  # FRR is configured by frr.conf


def test_device_metadata_mac_only_from_the_inventory():
    """DEVICE_METADATA.mac is the switch's own base MAC when the inventory knows it, and absent otherwise: the
    renderer never invents one for a real device (issue #27), so a push keeps the switch's own."""
    structured = leaf_structured("sonic")
    structured["system_mac"] = None
    assert "mac" not in build_config_db(structured)["DEVICE_METADATA"]["localhost"]
    structured["system_mac"] = "1c:34:da:5e:00:02"
    assert build_config_db(structured)["DEVICE_METADATA"]["localhost"]["mac"] == "1c:34:da:5e:00:02"


def test_ports_speed_in_mbps_mtu_and_admin_status(leaf_db):
    # lanes/alias/index transcribed from Arista-7060DX5-64S/port_config.ini (compiler/platforms/data).
    assert leaf_db["PORT"]["Ethernet0"] == {
        "admin_status": "up", "speed": "400000", "fec": "rs", "mtu": "9214", "description": "P2P spine1 Ethernet0",
        "lanes": "17,18,19,20,21,22,23,24", "alias": "Ethernet1/1", "index": "1"}
    assert leaf_db["PORT"]["Ethernet8"]["lanes"] == "9,10,11,12,13,14,15,16"
    assert leaf_db["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "1x400G[200G,100G,50G,40G,25G,10G]"}
    assert leaf_db["PORT"][UNUSED_PORT]["admin_status"] == "down"
    assert set(leaf_db["PORT"]) == {*QOS_PORTS, UNUSED_PORT}


def test_routed_ports_and_loopbacks(leaf_db):
    assert leaf_db["INTERFACE"] == {
        "Ethernet0": {}, "Ethernet0|10.1.0.1/31": {}, "Ethernet8": {}, "Ethernet8|10.1.0.3/31": {}}
    assert leaf_db["LOOPBACK_INTERFACE"] == {
        "Loopback0": {}, "Loopback0|10.0.0.3/32": {}, "Loopback1": {}, "Loopback1|10.0.4.3/32": {}}


def test_unnumbered_port_uses_ipv6_link_local_only():
    structured = leaf_structured("sonic")
    structured["interfaces"][0].update(ip=None, unnumbered=True)
    database = config_db(structured)
    assert database["INTERFACE"]["Ethernet0"] == {"ipv6_use_link_local_only": "enable"}
    assert not [key for key in database["INTERFACE"] if key.startswith("Ethernet0|")]


def test_vlans_members_svis_and_vrfs(leaf_db):
    assert leaf_db["VLAN"]["Vlan10"] == {"vlanid": "10", "description": "net10", "mtu": "9000"}
    assert leaf_db["VLAN"]["Vlan3001"]["vlanid"] == "3001"
    assert leaf_db["VLAN_MEMBER"] == {
        "Vlan10|Ethernet128": {"tagging_mode": "untagged"},
        "Vlan10|Ethernet136": {"tagging_mode": "tagged"},
        "Vlan20|Ethernet136": {"tagging_mode": "tagged"},
    }
    assert leaf_db["VLAN_INTERFACE"]["Vlan10"] == {"vrf_name": "Vrf_TENANT_A", "mac_addr": "00:1c:73:00:00:99"}
    assert leaf_db["VLAN_INTERFACE"]["Vlan10|10.10.0.1/24"] == {}
    assert leaf_db["VLAN_INTERFACE"]["Vlan3002"] == {"vrf_name": "Vrf_TENANT_B"}
    assert leaf_db["VRF"] == {"Vrf_TENANT_A": {"vni": "50001"}, "Vrf_TENANT_B": {"vni": "50002"}}
    # A port in a VLAN must not also be a router interface (sonic-vlan.yang must-condition).
    members = {key.split("|")[1] for key in leaf_db["VLAN_MEMBER"]}
    assert not members & {key.split("|")[0] for key in leaf_db["INTERFACE"]}


def test_vxlan_tunnel_maps_l2_and_l3_vnis(leaf_db):
    assert leaf_db["VXLAN_TUNNEL"] == {"vtep": {"src_ip": "10.0.4.3"}}
    assert leaf_db["VXLAN_EVPN_NVO"] == {"nvo": {"source_vtep": "vtep"}}
    assert leaf_db["VXLAN_TUNNEL_MAP"] == {
        "vtep|map_10010_Vlan10": {"vlan": "Vlan10", "vni": "10010"},
        "vtep|map_10020_Vlan20": {"vlan": "Vlan20", "vni": "10020"},
        "vtep|map_50001_Vlan3001": {"vlan": "Vlan3001", "vni": "50001"},
        "vtep|map_50002_Vlan3002": {"vlan": "Vlan3002", "vni": "50002"},
    }


def test_qos_maps(leaf_db):
    dscp_map = leaf_db["DSCP_TO_TC_MAP"]["AZURE"]
    assert sorted(int(dscp) for dscp in dscp_map) == list(range(64))
    assert (dscp_map["26"], dscp_map["34"], dscp_map["48"], dscp_map["0"]) == ("3", "4", "6", "0")
    assert leaf_db["TC_TO_QUEUE_MAP"]["AZURE"] == {"0": "0", "3": "3", "4": "4", "6": "6"}
    assert leaf_db["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"] == {"0": "0", "3": "3", "4": "4", "6": "0"}
    assert leaf_db["MAP_PFC_PRIORITY_TO_QUEUE"]["AZURE"]["3"] == "3"
    assert leaf_db["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"]["AZURE"]["4"] == "4"


def test_pfc_enable_lists_exactly_the_lossless_priorities(leaf_db):
    lossless = ",".join(str(priority) for priority in leaf_structured("sonic")["qos"]["lossless_priorities"])
    for port in QOS_PORTS:
        binding = leaf_db["PORT_QOS_MAP"][port]
        assert binding["pfc_enable"] == lossless == "3,4"
        assert binding["pfcwd_sw_enable"] == "3,4"
        assert binding["dscp_to_tc_map"] == binding["tc_to_queue_map"] == binding["tc_to_pg_map"] == "AZURE"
    assert UNUSED_PORT not in leaf_db["PORT_QOS_MAP"]


def test_port_without_pfc_has_no_pfc_enable():
    structured = leaf_structured("sonic")
    structured["interfaces"][2]["qos"]["pfc_priorities"] = []
    database = config_db(structured)
    assert "pfc_enable" not in database["PORT_QOS_MAP"]["Ethernet128"]
    assert "Ethernet128" not in database["PFC_WD"]


def test_wred_thresholds_in_bytes(leaf_db):
    for port in QOS_PORTS:
        for queue, ecn in (("3", ROCE_ECN), ("4", ROCE2_ECN)):
            profile = leaf_db["WRED_PROFILE"][leaf_db["QUEUE"][f"{port}|{queue}"]["wred_profile"]]
            assert profile["ecn"] == "ecn_all" and profile["wred_green_enable"] == "true"
            assert profile["green_min_threshold"] == str(ecn["min_bytes"])
            assert profile["green_max_threshold"] == str(ecn["max_bytes"])
            assert profile["green_drop_probability"] == str(ecn["probability"])
    assert len(leaf_db["WRED_PROFILE"]) == 2, "identical ECN settings share one profile"


def test_lossless_buffers_carry_the_structured_headroom(leaf_db):
    for port, headroom in (("Ethernet0", HEADROOM_3M), ("Ethernet8", HEADROOM_5M), ("Ethernet128", HEADROOM_3M)):
        for priority_group in ("3", "4"):
            profile = leaf_db["BUFFER_PROFILE"][leaf_db["BUFFER_PG"][f"{port}|{priority_group}"]["profile"]]
            assert profile["xoff"] == str(headroom["xoff_bytes"])
            assert profile["xon"] == str(headroom["xon_bytes"])
            assert profile["size"] == str(headroom["size_bytes"])
            assert profile["pool"] == "ingress_lossless_pool"
    # Traditional model (Broadcom): pools sized here. Shared = 113 MB catalogue buffer - all lossless headroom.
    buffer_bytes = 113 * 1024 * 1024
    headroom = 2 * (2 * HEADROOM_3M["size_bytes"] + HEADROOM_5M["size_bytes"] + HEADROOM_3M["size_bytes"])
    assert leaf_db["BUFFER_POOL"] == {
        "ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": str(buffer_bytes - headroom),
                                  "xoff": str(headroom)},
        "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": str(buffer_bytes - headroom)},
        "egress_lossless_pool": {"type": "egress", "mode": "static", "size": str(buffer_bytes)}}
    assert not [key for key in leaf_db["BUFFER_PG"] if key.startswith(UNUSED_PORT)]
    assert "DEFAULT_LOSSLESS_BUFFER_PARAMETER" not in leaf_db  # a dynamic-model table


def test_headroom_beyond_the_buffer_is_refused():
    structured = leaf_structured("sonic")
    structured["interfaces"][0]["qos"]["headroom"]["3"]["size_bytes"] = 200 * 1024 * 1024
    with pytest.raises(RenderError, match=r"leaf1: lossless headroom \d+ bytes over all ports exceeds the "
                                          r"DCS-7060DX5-64S buffer"):
        render_config_db(structured)


def test_nvidia_spectrum_gets_the_dynamic_model_with_what_the_buffer_manager_needs():
    structured = leaf_structured("sonic")
    structured["model"] = "SN5600"  # Ethernet0, Ethernet8 ... exist on the ACS-SN5600 HWSKU too (8-lane ports)
    database = config_db(structured)
    assert database["DEVICE_METADATA"]["localhost"]["buffer_model"] == "dynamic"
    # Without these the dynamic buffer manager never programs the lossless PGs (SONiC buffer manager design).
    assert database["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] == {"AZURE": {"default_dynamic_th": "0"}}
    assert database["LOSSLESS_TRAFFIC_PATTERN"] == {"AZURE": {"mtu": "1024", "small_packet_percentage": "100"}}
    assert database["BUFFER_POOL"]["ingress_lossless_pool"] == {"type": "ingress", "mode": "dynamic"}  # sized by SONiC
    assert database["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "1x800G[400G,200G,100G,50G,40G,25G,10G]"}


def test_every_qos_port_gets_lossy_pg_0_and_egress_queue_profiles(leaf_db):
    for port in QOS_PORTS:
        assert leaf_db["BUFFER_PG"][f"{port}|0"] == {"profile": "ingress_lossy_profile"}  # lossy traffic: PG 0
        assert leaf_db["BUFFER_QUEUE"][f"{port}|3-4"] == {"profile": "egress_lossless_profile"}
        assert leaf_db["BUFFER_QUEUE"][f"{port}|0-2"] == leaf_db["BUFFER_QUEUE"][f"{port}|5-7"] == {
            "profile": "egress_lossy_profile"}
    for profile in ("ingress_lossy_profile", "egress_lossless_profile", "egress_lossy_profile"):
        assert leaf_db["BUFFER_PROFILE"][profile]["pool"] in leaf_db["BUFFER_POOL"]


def test_cnp_queue_is_strict_priority_and_lossless_queues_dwrr(leaf_db):
    # qos.cnp.traffic_class 6 -> queue 6: CNP overtakes the RoCE data it throttles.
    assert leaf_db["QUEUE"]["Ethernet0|6"] == {"scheduler": "scheduler.strict"}
    assert leaf_db["SCHEDULER"]["scheduler.strict"] == {"type": "STRICT"}
    # The weights are the structured config's qos.scheduling (the one decision, EOS prints the same).
    assert leaf_db["QUEUE"]["Ethernet0|3"]["scheduler"] == "scheduler.dwrr_40"
    assert leaf_db["QUEUE"]["Ethernet0|0"] == {"scheduler": "scheduler.dwrr_20"}
    assert leaf_db["SCHEDULER"]["scheduler.dwrr_40"] == {"type": "DWRR", "weight": "40"}
    assert leaf_db["SCHEDULER"]["scheduler.dwrr_20"] == {"type": "DWRR", "weight": "20"}


def test_sonic_schedulers_follow_qos_scheduling():
    structured = leaf_structured("sonic")
    structured["qos"]["scheduling"].update({"0": {"mode": "dwrr", "weight_percent": 10},
                                            "3": {"mode": "dwrr", "weight_percent": 45},
                                            "4": {"mode": "dwrr", "weight_percent": 45}})
    db = build_config_db(structured)
    assert db["QUEUE"]["Ethernet0|0"] == {"scheduler": "scheduler.dwrr_10"}
    assert db["SCHEDULER"] == {"scheduler.strict": {"type": "STRICT"}, "scheduler.dwrr_10": {"type": "DWRR", "weight": "10"},
                               "scheduler.dwrr_45": {"type": "DWRR", "weight": "45"}}


def test_a_queue_without_scheduling_keeps_the_default_scheduler():
    """A foreign config_db whose QUEUE rows name no scheduler for a queue (sonic-mgmt's VOQ T2: queue 7): no row
    names one in the rendering either; the other queues keep theirs."""
    structured = leaf_structured("sonic")
    del structured["qos"]["scheduling"]["0"]
    db = build_config_db(structured)
    assert "scheduler" not in db["QUEUE"].get("Ethernet0|0", {})
    assert db["QUEUE"]["Ethernet0|3"]["scheduler"] == "scheduler.dwrr_40"


@pytest.mark.parametrize(("queue", "entry", "message"), [
    ("3", {"mode": "dwrr", "weight_percent": 0}, r"qos\.scheduling\[3\]\.weight_percent=0: SONiC DWRR weights"),
    ("3", {"mode": "wrr"}, r"qos\.scheduling\[3\]\.mode='wrr'"),
])
def test_broken_scheduling_is_refused(queue, entry, message):
    structured = leaf_structured("sonic")
    structured["qos"]["scheduling"][queue] = entry
    with pytest.raises(RenderError, match=message):
        build_config_db(structured)


def test_cnp_sharing_a_lossless_queue_is_refused():
    structured = leaf_structured("sonic")
    structured["qos"]["cnp"]["traffic_class"] = 3
    with pytest.raises(RenderError, match=r"qos\.cnp\.traffic_class=3: CNP shares queue 3 with a lossless class"):
        render_config_db(structured)


def test_management_plane_from_the_structured_config(leaf_db):
    assert leaf_db["MGMT_PORT"] == {"eth0": {"admin_status": "up", "alias": "eth0"}}
    assert leaf_db["MGMT_INTERFACE"] == {"eth0|172.16.1.1/16": {"gwaddr": "172.16.255.254"}}
    assert leaf_db["MGMT_VRF_CONFIG"] == {"vrf_global": {"mgmtVrfEnabled": "true"}}
    assert leaf_db["NTP_SERVER"] == {"192.0.2.10": {"association_type": "server", "iburst": "on"}}
    assert leaf_db["NTP"] == {"global": {"vrf": "mgmt"}}
    assert leaf_db["SYSLOG_SERVER"] == {"192.0.2.20": {"vrf": "mgmt"}}
    assert leaf_db["DNS_NAMESERVER"] == {"192.0.2.53": {}}


def test_without_a_management_address_the_interface_is_left_to_the_switch():
    structured = leaf_structured("sonic")
    structured["management"]["address"] = None
    database = config_db(structured)
    assert "MGMT_INTERFACE" not in database and database["MGMT_PORT"]["eth0"]["admin_status"] == "up"


def test_breakout_ports_get_their_lanes_and_mode():
    structured = leaf_structured("sonic")
    first = structured["interfaces"][0]
    second = {**copy.deepcopy(first), "name": "Ethernet4", "description": "second half"}
    for interface in (first, second):
        interface.update(speed_gbps=200, breakout_parent="Ethernet0")
    structured["interfaces"].insert(1, second)
    database = config_db(structured)
    assert database["PORT"]["Ethernet0"]["lanes"] == "17,18,19,20"
    assert database["PORT"]["Ethernet4"]["lanes"] == "21,22,23,24"
    assert database["PORT"]["Ethernet4"]["alias"] == "Ethernet1/5" and database["PORT"]["Ethernet4"]["index"] == "1"
    assert database["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "2x200G[100G,50G,40G,25G,10G]"}


def test_a_breakout_the_platform_does_not_offer_is_refused():
    structured = leaf_structured("sonic")
    first = structured["interfaces"][0]
    second = {**copy.deepcopy(first), "name": "Ethernet4"}
    for interface in (first, second):
        interface.update(breakout_parent="Ethernet0")  # 2 x 400G on a 400G port: no such platform.json mode
    structured["interfaces"].insert(1, second)
    with pytest.raises(RenderError, match=r"interfaces\[Ethernet0\]: port Ethernet0: no breakout mode gives 2 x 400G"):
        render_config_db(structured)


def test_a_sub_port_name_outside_the_mode_is_refused():
    structured = leaf_structured("sonic")
    first = structured["interfaces"][0]
    second = {**copy.deepcopy(first), "name": "Ethernet2"}  # 2x200G names Ethernet0 and Ethernet4
    for interface in (first, second):
        interface.update(speed_gbps=200, breakout_parent="Ethernet0")
    structured["interfaces"].insert(1, second)
    with pytest.raises(RenderError, match=r"interfaces\[Ethernet2\]: not a port of Ethernet0 in breakout mode "
                                          r"'2x200G\[100G,50G,40G,25G,10G\]'.*Ethernet0, Ethernet4"):
        render_config_db(structured)


def test_a_port_the_hwsku_does_not_have_is_refused():
    structured = leaf_structured("sonic")
    structured["interfaces"][1]["name"] = "Ethernet4"  # the 7060DX5-64S HWSKU has Ethernet0, Ethernet8, ...
    with pytest.raises(RenderError, match=r"leaf1: interfaces\[Ethernet4\]: .*no SONiC port Ethernet4"):
        render_config_db(structured)


def test_a_model_without_sonic_platform_data_is_refused():
    structured = leaf_structured("sonic")
    structured["model"] = "ACME-1"
    with pytest.raises(RenderError, match=r"leaf1: model='ACME-1'.*no platform data"):
        render_config_db(structured)


def test_pfc_watchdog_per_port(leaf_db):
    assert set(leaf_db["PFC_WD"]) == {*QOS_PORTS, "GLOBAL"}
    assert leaf_db["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "200"}  # SONiC's default, <= every detection time
    assert leaf_db["PFC_WD"]["Ethernet0"] == {"action": "drop", "detection_time": "200", "restoration_time": "400"}


def test_cable_length_rounds_up_to_whole_metres(leaf_db):
    # 3.0 m -> 3m, 4.2 m -> 5m (rounding down would under-size headroom), 2.0 m -> 2m; the unused port has no cable.
    assert leaf_db["CABLE_LENGTH"] == {
        "AZURE": {"Ethernet0": "3m", "Ethernet8": "5m", "Ethernet128": "2m", "Ethernet136": "2m"}}


def test_no_roce_classes_means_no_qos_tables():
    structured = leaf_structured("sonic")
    structured["qos"] = {}
    for interface in structured["interfaces"]:
        interface["qos"] = {}
    database = config_db(structured)
    for table in ("DSCP_TO_TC_MAP", "PORT_QOS_MAP", "WRED_PROFILE", "BUFFER_PG", "PFC_WD", "BUFFER_QUEUE",
                  "SCHEDULER", "DEFAULT_LOSSLESS_BUFFER_PARAMETER"):
        assert table not in database
    assert "buffer_model" not in database["DEVICE_METADATA"]["localhost"]
    assert "CABLE_LENGTH" not in database


def test_sonic_structured_renames_vrfs_without_touching_the_input():
    structured = leaf_structured("sonic")
    pristine = copy.deepcopy(structured)
    renamed = sonic_structured(structured)
    assert structured == pristine
    assert [vrf["name"] for vrf in renamed["bgp"]["vrfs"]] == ["Vrf_TENANT_A", "Vrf_TENANT_B"]
    assert [vlan["vrf"] for vlan in renamed["vlans"]] == ["Vrf_TENANT_A", "Vrf_TENANT_B"]
    assert renamed["vxlan"]["vrf_vnis"] == {"Vrf_TENANT_A": 50001, "Vrf_TENANT_B": 50002}


# ------------------------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("bad_name", ["Ethernet1/1", "Et0", "eth0", "Ethernet"])
def test_invalid_port_name_is_refused(bad_name):
    structured = leaf_structured("sonic")
    structured["interfaces"][1]["name"] = bad_name
    with pytest.raises(RenderError, match=rf"leaf1: interfaces\[\]\.name={re.escape(repr(bad_name))}"):
        render_config_db(structured)


def test_vlan_1_is_refused():
    structured = leaf_structured("sonic")
    structured["vlans"][0]["id"] = 1
    with pytest.raises(RenderError, match=r"vlans\[1\]\.id=1: SONiC VLAN ids are 2\.\.4094"):
        render_config_db(structured)


def test_vrf_name_too_long_for_linux_is_refused():
    structured = leaf_structured("sonic")
    structured["vrfs"][0]["name"] = "TENANT_WITH_LONG_NAME"
    with pytest.raises(RenderError, match=r"vrfs\[TENANT_WITH_LONG_NAME\]\.name"):
        render_config_db(structured)


def test_member_of_unknown_vlan_is_refused():
    structured = leaf_structured("sonic")
    structured["interfaces"][2]["access_vlan"] = 99
    with pytest.raises(RenderError, match=r"interfaces\[Ethernet128\] VLAN 99"):
        render_config_db(structured)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("detect_ms", 50, r"detect_ms=50"), ("restore_ms", 90000, r"restore_ms=90000"), ("action", "panic", r"action")],
)
def test_pfc_watchdog_out_of_sonic_range_is_refused(field, value, message):
    structured = leaf_structured("sonic")
    structured["qos"]["pfc_watchdog"][field] = value
    with pytest.raises(RenderError, match=rf"qos\.pfc_watchdog\.{message}"):
        render_config_db(structured)


def test_non_iana_vxlan_port_is_refused():
    structured = leaf_structured("sonic")
    structured["vxlan"]["udp_port"] = 8472
    with pytest.raises(RenderError, match=r"vxlan\.udp_port=8472"):
        render_config_db(structured)


def test_two_priorities_on_one_priority_group_with_different_headroom_are_refused():
    structured = leaf_structured("sonic")
    structured["qos"]["tc_to_priority_group"]["4"] = 3
    structured["interfaces"][0]["qos"]["headroom"]["4"]["xoff_bytes"] = 999
    with pytest.raises(RenderError, match=r"interfaces\[Ethernet0\]\.qos\.headroom\[4\]: priority group 3"):
        render_config_db(structured)


# ------------------------------------------------------------------------------------------- frr.conf



def test_render_returns_config_db_and_frr_conf_with_sonic_vrf_names():
    from compiler.render.sonic import render

    files = render(leaf_structured("sonic"))
    assert set(files) == {"config_db.json", "frr.conf"}
    assert files["config_db.json"] == render_config_db(leaf_structured("sonic"))
    assert "Vrf_TENANT_A" in files["frr.conf"]
    assert "vrf TENANT_A\n" not in files["frr.conf"]


@pytest.mark.parametrize("make", [leaf_structured, spine_structured])
def test_frr_conf_passes_vtysh_dry_run(make, tmp_path):
    vtysh = shutil.which("vtysh")
    if vtysh is None:
        pytest.skip("vtysh (FRR) is not installed on this machine")
    from compiler.render.sonic import render

    path = tmp_path / "frr.conf"
    path.write_text(render(make("sonic"))["frr.conf"])
    result = subprocess.run([vtysh, "-C", "-f", str(path)], capture_output=True, text=True, timeout=60)
    if result.returncode != 0 and "ermission denied" in result.stderr + result.stdout:
        pytest.skip(f"vtysh cannot run here: {result.stderr.strip()[:200]}")
    assert result.returncode == 0, result.stdout + result.stderr


def test_vtysh_dry_run_rejects_a_broken_frr_conf(tmp_path):
    """The check above can fail: the same dry run refuses a frr.conf with one bad line appended."""
    vtysh = shutil.which("vtysh")
    if vtysh is None:
        pytest.skip("vtysh (FRR) is not installed on this machine")
    from compiler.render.sonic import render

    path = tmp_path / "frr.conf"
    path.write_text(render(leaf_structured("sonic"))["frr.conf"] + "router bgp 65101\n neighbor 10.9.9.9 remote-as banana\n")
    result = subprocess.run([vtysh, "-C", "-f", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0


@pytest.mark.parametrize(
    "value",
    [{}, {"a": {}}, {"b": "x", "a": {"z": "1", "y": {"q": "é\"\\n"}}}, {"n": 1, "l": [1, "2", {"k": []}], "t": True, "0": None}, {"e": [], "f": 1.5}],
)
def test_fast_writer_matches_json_dumps(value):
    parts: list[str] = []
    dumps_sorted_indented(value, 0, parts)
    assert "".join(parts) == json.dumps(value, sort_keys=True, indent=4)


@pytest.mark.parametrize("make", [leaf_structured, spine_structured])
def test_config_db_text_equals_standard_json_dumps(make):
    structured = make("sonic")
    assert render_config_db(structured) == json.dumps(build_config_db(structured), sort_keys=True, indent=4) + "\n"


AAA = {"tacacs_servers": ["192.0.2.5", "192.0.2.6"], "secret_ref": "vault:secret/fabric/tacacs"}


def test_tacacs_aaa_tables_carry_the_secret_reference_only():
    structured = leaf_structured("sonic")
    structured["management"]["aaa"] = dict(AAA)
    db = build_config_db(structured)
    assert db["TACPLUS"] == {"global": {"passkey": "FT-SECRET[vault:secret/fabric/tacacs]", "src_intf": "eth0"}}
    assert db["TACPLUS_SERVER"] == {"192.0.2.5": {"priority": "2", "tcp_port": "49", "vrf": "mgmt"},
                                    "192.0.2.6": {"priority": "1", "tcp_port": "49", "vrf": "mgmt"}}
    assert db["AAA"] == {"authentication": {"login": "tacacs+,local", "failthrough": "True"}}
    assert not {"TACPLUS", "TACPLUS_SERVER", "AAA"} & set(build_config_db(leaf_structured("sonic")))


@pytest.mark.parametrize(("aaa", "message"), [
    ({**AAA, "secret_ref": "s3cret"}, r"management\.aaa\.secret_ref='s3cret'"),
    ({**AAA, "tacacs_servers": [f"192.0.2.{n}" for n in range(1, 10)]}, r"SONiC takes 1\.\.8 TACACS\+ servers"),
])
def test_broken_aaa_is_refused(aaa, message):
    structured = leaf_structured("sonic")
    structured["management"]["aaa"] = aaa
    with pytest.raises(RenderError, match=message):
        build_config_db(structured)
