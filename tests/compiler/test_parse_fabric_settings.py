"""``render(parse(text)) keeps it`` for the fabric settings read from foreign configs (issue #25: the most frequent
unmodelled line kinds on the corpus's fabric devices, docs/structured-config.md "Foreign fabric settings"): each
kind parses into the structured config, leaves no unmodelled line, renders back and parses to the same model; a
malformed line of the kind stays unmodelled (a broken case per kind)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.parse import parse_device
from compiler.render import render_device

EOS_HEAD = """hostname leaf1
!
vlan 10
   name ten
!
vlan 11
   name eleven
!
vlan 12
   name twelve
!
vrf instance BLUE
!
interface Ethernet1
   no switchport
   mtu 9214
   ip address 10.1.0.1/31
!
interface Loopback0
   ip address 10.0.0.1/32
!
ip routing
ip routing vrf BLUE
"""
EOS_BGP = """!
router bgp 65001
   router-id 10.0.0.1
   neighbor 10.1.0.0 remote-as 65000
{bgp}
   !
   address-family ipv4
      neighbor 10.1.0.0 activate
{vrf}
"""


def eos(top: str = "", bgp: str = "", vrf: str = "") -> dict[str, str]:
    vrf_block = f"   !\n   vrf BLUE\n      rd 10.0.0.1:5\n{vrf}" if vrf else ""
    return {"startup-config": EOS_HEAD + top + EOS_BGP.format(bgp=bgp, vrf=vrf_block) + "!\nend\n"}


def round_trip(files: dict[str, str], platform: str = "eos") -> tuple[dict, dict, str]:
    """(structured, structured again after render + parse, the rendered text); asserts nothing is unmodelled."""
    parsed = parse_device(files)
    assert [str(item) for item in parsed.unmodelled] == []
    rendered = render_device(parsed.structured, platform)
    again = parse_device(rendered, platform=platform)
    assert [str(item) for item in again.unmodelled] == []
    return parsed.structured, again.structured, "".join(rendered.values())


def unmodelled(files: dict[str, str]) -> list[str]:
    return [item.text for item in parse_device(files).unmodelled]


# ------------------------------------------------------------------------------------------------ EOS BGP
BUNDLE = """   !
   vlan-aware-bundle TENANT_A
      rd 10.0.0.1:10
      route-target both 10:10
      redistribute learned
      vlan 10-12
"""


def test_vlan_aware_bundle_round_trips():
    first, again, text = round_trip(eos(bgp=BUNDLE))
    assert first["bgp"]["vlan_aware_bundles"] == [{
        "name": "TENANT_A", "rd": "10.0.0.1:10", "route_targets": {"import": ["10:10"], "export": ["10:10"]},
        "redistribute_learned": True, "vlans": [10, 11, 12]}]
    assert again["bgp"]["vlan_aware_bundles"] == first["bgp"]["vlan_aware_bundles"]
    assert "      vlan 10-12\n" in text


def test_vlan_aware_bundle_with_a_vlan_keyword_it_does_not_know_keeps_that_line_unmodelled():
    broken = BUNDLE.replace("vlan 10-12", "vlan add 13")
    assert unmodelled(eos(bgp=broken)) == ["vlan add 13"]


def test_bgp_distance_and_wait_install_round_trip():
    first, again, text = round_trip(eos(bgp="   update wait-install\n   distance bgp 20 200 200\n"))
    assert first["bgp"]["distance"] == {"external": 20, "internal": 200, "local": 200}
    assert first["bgp"]["update_wait_install"] is True
    assert again["bgp"]["distance"] == first["bgp"]["distance"] and again["bgp"]["update_wait_install"]
    assert "   distance bgp 20 200 200\n" in text


def test_bgp_distance_with_one_value_stays_unmodelled():
    assert unmodelled(eos(bgp="   distance bgp 20\n")) == ["distance bgp 20"]


VRF = """      update wait-install
      neighbor 10.255.1.97 peer group MLAG-PEER
      neighbor 10.255.1.97 description leaf2_Vlan3009
      neighbor 10.9.9.9 remote-as 65100
      neighbor interface Vlan3011 peer-group MLAG_PEER remote-as 65001
      redistribute connected route-map RM-CONN-2-BGP-VRFS
      redistribute static
"""


def test_bgp_vrf_sessions_and_redistribution_round_trip():
    first, again, text = round_trip(eos(vrf=VRF))
    vrf = first["bgp"]["vrfs"][0]
    assert vrf["update_wait_install"] is True
    assert vrf["redistribute"] == [{"protocol": "connected", "route_map": "RM-CONN-2-BGP-VRFS"},
                                   {"protocol": "static", "route_map": None}]
    assert vrf["neighbors"] == [
        {"address": "10.255.1.97", "interface": None, "peer_group": "MLAG-PEER", "remote_as": None,
         "description": "leaf2_Vlan3009"},
        {"address": "10.9.9.9", "interface": None, "peer_group": None, "remote_as": 65100, "description": ""},
        {"address": None, "interface": "Vlan3011", "peer_group": "MLAG_PEER", "remote_as": 65001,
         "description": ""}]
    assert again["bgp"]["vrfs"][0] == vrf
    assert "      redistribute connected route-map RM-CONN-2-BGP-VRFS\n" in text


def test_bgp_vrf_without_redistribution_renders_none():
    first, again, text = round_trip(eos(vrf="      router-id 10.0.0.1\n"))
    assert first["bgp"]["vrfs"][0]["redistribute"] == [] and "redistribute" not in text.split("vrf BLUE")[-1]


def test_bgp_vrf_plain_redistribute_connected_keeps_the_compiled_shape():
    first, _, text = round_trip(eos(vrf="      redistribute connected\n"))
    assert "redistribute" not in first["bgp"]["vrfs"][0]  # the compiler's default form: no key
    assert text.split("vrf BLUE")[-1].count("redistribute connected") == 1


@pytest.mark.parametrize("line", ["redistribute bogus", "redistribute connected route-map",
                                  "neighbor 10.9.9.9 remote-as", "neighbor PEERS peer group X"])
def test_bgp_vrf_lines_of_another_shape_stay_unmodelled(line):
    assert unmodelled(eos(vrf=f"      {line}\n")) == [line]


# --------------------------------------------------------------------------------------------- SONiC VOQ
GOLDEN_SONIC = Path(__file__).parents[1] / "golden" / "multi_tenant_l3vni" / "expected" / "rendered" / "leaf1" / "sonic"
SYSTEM_PORTS = {  # shaped as sonic-mgmt's tests/vs_voq_cfgs (a VOQ chassis line card)
    "Linecard1|Asic0|Asic0": {"system_port_id": "0", "switch_id": "0", "core_index": "0", "core_port_index": "0",
                              "speed": "40000"},
    "Linecard1|Asic0|Ethernet0": {"speed": "40000", "system_port_id": "1", "switch_id": "0", "core_index": "0",
                                  "core_port_index": "1"},
}


def sonic_with(system_ports: dict) -> dict[str, str]:
    files = {path.name: path.read_text() for path in sorted(GOLDEN_SONIC.iterdir())}
    db = json.loads(files["config_db.json"])
    db["SYSTEM_PORT"] = system_ports
    files["config_db.json"] = json.dumps(db, indent=4)
    return files


def test_sonic_system_ports_round_trip():
    parsed = parse_device(sonic_with(SYSTEM_PORTS))
    assert parsed.unmodelled == []
    assert parsed.structured["system_ports"][1] == {
        "linecard": "Linecard1", "asic": "Asic0", "port": "Ethernet0", "system_port_id": 1, "switch_id": 0,
        "core_index": 0, "core_port_index": 1, "speed_mbps": 40000}
    rendered = render_device(parsed.structured, "sonic")
    assert json.loads(rendered["config_db.json"])["SYSTEM_PORT"] == SYSTEM_PORTS
    assert parse_device(rendered, platform="sonic").structured["system_ports"] == parsed.structured["system_ports"]


def test_sonic_system_port_row_of_another_shape_stays_unmodelled():
    broken = {**SYSTEM_PORTS, "Linecard1|Asic0|Ethernet4": {"speed": "fast", "system_port_id": "2", "switch_id": "0",
                                                            "core_index": "0", "core_port_index": "2"}}
    parsed = parse_device(sonic_with(broken))
    assert [item.text for item in parsed.unmodelled] == ["SYSTEM_PORT|Linecard1|Asic0|Ethernet4"]
    assert len(parsed.structured["system_ports"]) == 2


# ------------------------------------------------------------------------------------------- EOS system
SYSTEM = """no aaa root
no enable password
transceiver qsfp default-mode 4x10G
snmp-server location DC1 ROW2 RACK7
snmp-server contact noc@example.com
queue-monitor length
queue-monitor length log 5
hardware speed-group 1 serdes 10G
platform sand lag hardware-only
!
hardware tcam
   system profile vxlan-routing
!
daemon TerminAttr
   exec /usr/bin/TerminAttr -cvaddr=192.0.2.11:9910 -cvauth=token,/tmp/token -cvvrf=MGMT -taillogs
   no shutdown
!
router bfd
   interval 300 min-rx 300 multiplier 3
   multihop interval 300 min-rx 300 multiplier 3
"""


def test_system_settings_and_bfd_timers_round_trip():
    first, again, text = round_trip(eos(top=SYSTEM))
    assert first["system"] == {
        "aaa_root": False, "enable_password": False, "transceiver_qsfp_default_mode": "4x10G",
        "snmp_location": "DC1 ROW2 RACK7", "snmp_contact": "noc@example.com",
        "queue_monitor_length": {"log_interval_s": 5, "notifying": False},
        "speed_groups": {"1": "10G"}, "tcam_profile": "vxlan-routing", "sand_lag_hardware_only": True,
        "vlan_internal_order": None, "daemons": [{"name": "TerminAttr", "exec": "/usr/bin/TerminAttr -cvaddr=192.0.2.11:9910 "
                     "-cvauth=token,/tmp/token -cvvrf=MGMT -taillogs", "enabled": True}]}
    timers = {"interval_ms": 300, "min_rx_ms": 300, "multiplier": 3}
    assert first["bfd"] == {"single_hop": timers, "multihop": timers}
    assert again["system"] == first["system"] and again["bfd"] == first["bfd"]
    assert "router bfd\n   interval 300 min-rx 300 multiplier 3\n   multihop interval 300" in text


def test_the_internal_vlan_range_is_kept_as_stated_even_over_a_vlan():
    """AVD's 5-stage CI fabric pins 1006..1199 and has VLAN 1100: the device's own range renders as read (a
    compiled config's VLAN inside the pinned range is refused: tests/compiler/render)."""
    first, again, text = round_trip(eos(top="vlan internal order descending range 1100 1199\nvlan 1100\n"))
    assert first["system"]["vlan_internal_order"] == {"allocation": "descending", "beginning": 1100, "ending": 1199}
    assert again["system"] == first["system"]
    assert text.count("vlan internal order descending range 1100 1199\n") == 1


def test_a_config_stating_no_internal_vlan_range_renders_none():
    first, again, text = round_trip(eos())
    assert first["system"]["vlan_internal_order"] is None and "vlan internal order" not in text


@pytest.mark.parametrize("line", ["vlan internal order ascending range 1199 1006",
                                  "vlan internal order ascending range 1006 4095", "vlan internal order sideways"])
def test_a_malformed_internal_vlan_range_stays_unmodelled(line):
    assert unmodelled(eos(top=f"{line}\n")) == [line]


@pytest.mark.parametrize("stated, lanes, default", [("forced 100gfull", None, True), ("100g", None, True),
                                                    ("100g-2", 2, None), ("forced 25gfull", None, None)])
def test_a_rate_without_a_lane_count_keeps_the_cage_default(stated, lanes, default):
    files = eos()
    files["startup-config"] = files["startup-config"].replace("   mtu 9214\n", f"   mtu 9214\n   speed {stated}\n")
    first, again, text = round_trip(files)
    port = next(item for item in first["interfaces"] if item["name"] == "Ethernet1")
    assert (port["lanes"], port.get("speed_default_lanes")) == (lanes, default)
    assert next(item for item in again["interfaces"] if item["name"] == "Ethernet1") == port
    if default:
        assert "   speed forced 100gfull\n" in text


def test_a_daemon_exec_with_a_shared_key_is_a_secret_and_stays_unmodelled():
    line = "   exec /usr/bin/TerminAttr -cvaddr=192.0.2.11:9910 -cvauth=key,telarista -taillogs"
    parsed = parse_device(eos(top=f"daemon TerminAttr\n{line}\n   no shutdown\n"))
    assert [item.text for item in parsed.unmodelled] == [line.strip()]
    assert parsed.structured["system"]["daemons"] == [{"name": "TerminAttr", "exec": None, "enabled": True}]
    assert "telarista" not in render_device(parsed.structured, "eos")["startup-config"]


@pytest.mark.parametrize("line", ["transceiver qsfp default-mode fast", "queue-monitor length log soon",
                                  "aaa root secret sha512 $6$x", "enable password 0 clear", "snmp-server location",
                                  "hardware speed-group 1 serdes fast", "platform sand lag"])
def test_system_lines_of_another_shape_stay_unmodelled(line):
    assert unmodelled(eos(top=f"{line}\n")) == [line]


def test_bfd_timers_of_another_shape_stay_unmodelled():
    assert unmodelled(eos(top="router bfd\n   interval 300 min-rx 300\n")) == ["interval 300 min-rx 300"]


# ------------------------------------------------------------------------------------------ EOS ports
PORT_SETTINGS = """   storm-control broadcast level pps 100
   storm-control multicast level 1
   storm-control all level 0.5
   ptp enable
   spanning-tree bpdufilter enable
   mac security profile MACSEC_PROFILE
"""
PORTS = f"""!
interface Port-Channel3
   description SERVER_host3
   switchport access vlan 10
   switchport
{PORT_SETTINGS}!
interface Ethernet3
   description SERVER_host3
   channel-group 3 mode active
!
interface Ethernet4
   description SERVER_host4
   switchport access vlan 10
   switchport
{PORT_SETTINGS}"""
SETTINGS = {"ptp": True, "stp_bpdufilter": True,
            "macsec_profile": "MACSEC_PROFILE",
            "storm_control": {"broadcast": {"level": "100", "unit": "pps"},
                              "multicast": {"level": "1", "unit": "percent"},
                              "all": {"level": "0.5", "unit": "percent"}}}


def test_port_settings_round_trip_on_ports_and_port_channels():
    first, again, text = round_trip(eos(top=PORTS))
    port = next(item for item in first["interfaces"] if item["name"] == "Ethernet4")
    bundle = first["port_channels"][0]
    assert {key: port[key] for key in SETTINGS} == SETTINGS == {key: bundle[key] for key in SETTINGS}
    again_port = next(item for item in again["interfaces"] if item["name"] == "Ethernet4")
    assert {key: again_port[key] for key in SETTINGS} == SETTINGS
    assert {key: again["port_channels"][0][key] for key in SETTINGS} == SETTINGS
    assert text.count("   storm-control broadcast level pps 100\n") == 2


@pytest.mark.parametrize("line", ["service-profile NOT-DEFINED-HERE", "storm-control broadcast level 250", "storm-control broadcast level pps x",
                                  "storm-control everything level 1", "mac security profile", "ptp enable now"])
def test_port_settings_of_another_shape_stay_unmodelled(line):
    text = f"!\ninterface Ethernet4\n   switchport access vlan 10\n   switchport\n   {line}\n"
    assert unmodelled(eos(top=text)) == [line]


def test_vlans_in_a_bundle_take_its_rd_and_route_targets_and_render_inside_it_only():
    vxlan = "!\ninterface Vxlan1\n   vxlan source-interface Loopback0\n   vxlan vlan 10 vni 10010\n   vxlan vlan 11 vni 10011\n"
    first, again, text = round_trip(eos(top=vxlan, bgp=BUNDLE))
    vlan = next(item for item in first["vlans"] if item["id"] == 10)
    assert vlan["rd"] == "10.0.0.1:10" and vlan["route_targets"] == {"import": ["10:10"], "export": ["10:10"]}
    assert "\n   vlan 10\n" not in text and "\n   vlan 11\n" not in text  # no per-VLAN MAC-VRF beside the bundle
    assert [item["rd"] for item in again["vlans"]] == [item["rd"] for item in first["vlans"]]


# ----------------------------------------------------------------------------------------- EOS NTP
MANAGEMENT = "!\nvrf instance MGMT\n!\ninterface Management1\n   vrf MGMT\n   ip address 192.0.2.10/24\n!\n"


def test_ntp_server_options_round_trip():
    top = MANAGEMENT + ("ntp server vrf MGMT 192.0.2.1 prefer\nntp server vrf MGMT 192.0.2.2 iburst\n"
                        "ntp server vrf MGMT 192.0.2.3\n")
    first, again, text = round_trip(eos(top=top))
    management = first["management"]
    assert management["ntp_servers"] == ["192.0.2.1", "192.0.2.2", "192.0.2.3"]
    assert management["ntp_options"] == {"192.0.2.1": {"iburst": False, "prefer": True},
                                         "192.0.2.3": {"iburst": False, "prefer": False}}
    assert again["management"]["ntp_options"] == management["ntp_options"]
    assert "ntp server vrf MGMT 192.0.2.1 prefer\nntp server vrf MGMT 192.0.2.2 iburst\n" in text


@pytest.mark.parametrize("line", ["ntp server vrf MGMT 192.0.2.1 prefer prefer",
                                  "ntp server vrf MGMT 192.0.2.1 burst", "ntp server vrf MGMT 192.0.2.1 key 1"])
def test_ntp_server_lines_of_another_shape_stay_unmodelled(line):
    assert unmodelled(eos(top=MANAGEMENT + line + "\n")) == [line]


# ------------------------------------------------------------------------------- EOS VRF IPv6, IGMP
def test_vrf_ipv6_routing_and_igmp_snooping_round_trip():
    top = ("ip routing ipv6 interfaces vrf BLUE\nipv6 unicast-routing vrf BLUE\nno ip igmp snooping vlan 10\n"
           "ip igmp snooping vlan 11\n")
    first, again, text = round_trip(eos(top=top))
    assert first["vrfs"][0]["ipv6_unicast_routing"] is True and first["vrfs"][0]["ipv4_over_ipv6_routing"] is True
    assert [vlan.get("igmp_snooping") for vlan in first["vlans"]] == [False, True, None]
    assert [vlan.get("igmp_snooping") for vlan in again["vlans"]] == [False, True, None]
    assert again["vrfs"][0]["ipv6_unicast_routing"] and again["vrfs"][0]["ipv4_over_ipv6_routing"]
    assert "no ip igmp snooping vlan 10\n" in text and "ipv6 unicast-routing vrf BLUE\n" in text


@pytest.mark.parametrize("line", ["ipv6 unicast-routing vrf NOT_DEFINED", "no ip igmp snooping vlan 99",
                                  "no ip igmp snooping vlan ten"])
def test_vrf_and_vlan_lines_naming_what_the_config_does_not_define_stay_unmodelled(line):
    assert unmodelled(eos(top=line + "\n")) == [line]


# ------------------------------------------------------------------------------ peer group options
MLAG_GROUP = """   neighbor MLAG-PEER peer group
   neighbor MLAG-PEER remote-as 65001
   neighbor MLAG-PEER next-hop-self
   neighbor MLAG-PEER description leaf2
   neighbor 10.255.1.97 peer group MLAG-PEER
"""


def test_peer_group_next_hop_self_and_description_round_trip():
    first, again, text = round_trip(eos(bgp=MLAG_GROUP))
    group = next(item for item in first["bgp"]["peer_groups"] if item["name"] == "MLAG-PEER")
    assert group["next_hop_self"] is True and group["description"] == "leaf2"
    again_group = next(item for item in again["bgp"]["peer_groups"] if item["name"] == "MLAG-PEER")
    assert again_group["next_hop_self"] is True and again_group["description"] == "leaf2"
    assert "   neighbor MLAG-PEER next-hop-self\n" in text and "   neighbor MLAG-PEER description leaf2\n" in text


def test_frr_peer_group_description_and_next_hop_self_stay_on_the_group():
    text = ("frr version 8.4\nhostname r1\n!\nrouter bgp 65001\n neighbor MLAG peer-group\n neighbor MLAG remote-as "
            "internal\n neighbor MLAG description pair\n neighbor 10.0.0.1 peer-group MLAG\n !\n address-family ipv4 "
            "unicast\n  neighbor MLAG activate\n  neighbor MLAG next-hop-self\n exit-address-family\nexit\n!\n")
    parsed = parse_device({"frr.conf": text})
    assert [item.text for item in parsed.unmodelled] == []
    group = parsed.structured["bgp"]["peer_groups"][0]
    assert group["description"] == "pair" and group["next_hop_self"] is True
    assert [neighbor["address"] for neighbor in parsed.structured["bgp"]["neighbors"]] == ["10.0.0.1"]
    rendered = render_device(parsed.structured, "frr")
    assert "  neighbor MLAG next-hop-self\n" in rendered["frr.conf"]
    again = parse_device(rendered, platform="frr").structured["bgp"]["peer_groups"][0]
    assert again["description"] == "pair" and again["next_hop_self"] is True


def test_next_hop_self_with_an_argument_stays_unmodelled():
    assert unmodelled(eos(bgp=MLAG_GROUP.replace("next-hop-self", "next-hop-self all"))) == [
        "neighbor MLAG-PEER next-hop-self all"]


# ------------------------------------------------------------------------------------------- EOS SVIs
SVIS = """!
interface Vlan10
   vrf BLUE
   ip address virtual 10.10.10.1/24
   ip helper-address 192.0.2.5 vrf MGMT source-interface Loopback0
   ip helper-address 192.0.2.6
!
interface Vlan11
   mtu 9214
   vrf BLUE
   ipv6 enable
"""


def test_svi_dhcp_relay_and_ipv6_link_local_round_trip():
    first, again, text = round_trip(eos(top=SVIS))
    svis = {vlan["id"]: vlan["svi"] for vlan in first["vlans"]}
    assert svis[10]["dhcp_relay"] == [{"address": "192.0.2.5", "vrf": "MGMT", "source_interface": "Loopback0"},
                                      {"address": "192.0.2.6", "vrf": None, "source_interface": None}]
    assert svis[11]["ipv6_enable"] is True and svis[11]["ip"] is None
    # The link-local-only SVI is kept, so its VRF survives the round trip.
    assert [(vlan["id"], vlan["vrf"], vlan["svi"]) for vlan in again["vlans"]] == [
        (vlan["id"], vlan["vrf"], vlan["svi"]) for vlan in first["vlans"]]
    assert "   ip helper-address 192.0.2.5 vrf MGMT source-interface Loopback0\n" in text


@pytest.mark.parametrize("line", ["ip helper-address dhcp.example.com", "ip helper-address 192.0.2.5 vrf",
                                  "ip helper-address 192.0.2.5 source-interface Loopback0 vrf MGMT"])
def test_dhcp_relay_lines_of_another_shape_stay_unmodelled(line):
    assert unmodelled(eos(top=f"!\ninterface Vlan10\n   ip address virtual 10.10.10.1/24\n   {line}\n")) == [line]


# --------------------------------------------------------------------------- EOS EVPN multihoming
SEGMENT = """!
interface Port-Channel5
   description SERVER_host5
   switchport trunk allowed vlan 10
   switchport mode trunk
   switchport
   !
   evpn ethernet-segment
      identifier 0000:0000:0303:0202:0101
      route-target import 03:03:02:02:01:01
   lacp system-id 0303.0202.0101
"""


def test_evpn_ethernet_segment_round_trips():
    first, again, text = round_trip(eos(top=SEGMENT))
    bundle = first["port_channels"][0]
    assert bundle["evpn_ethernet_segment"] == {"identifier": "0000:0000:0303:0202:0101",
                                               "route_target_import": "03:03:02:02:01:01"}
    assert bundle["lacp_system_id"] == "0303.0202.0101"
    assert again["port_channels"][0]["evpn_ethernet_segment"] == bundle["evpn_ethernet_segment"]
    assert again["port_channels"][0]["lacp_system_id"] == bundle["lacp_system_id"]
    assert "      identifier 0000:0000:0303:0202:0101\n" in text


@pytest.mark.parametrize("old, new", [("identifier 0000:0000:0303:0202:0101", "identifier 0303:0202:0101"),
                                      ("route-target import 03:03:02:02:01:01", "route-target import 3:3"),
                                      ("lacp system-id 0303.0202.0101", "lacp system-id 0303:0202:0101")])
def test_ethernet_segment_values_of_another_shape_stay_unmodelled(old, new):
    assert unmodelled(eos(top=SEGMENT.replace(old, new))) == [new]


# ------------------------------------------------------------------------------------ EOS EVPN gateway
GATEWAY_VXLAN = "!\ninterface Vxlan1\n   vxlan source-interface Loopback0\n   vxlan vlan 11 vni 10011\n"
GATEWAY_BGP = """   !
   vlan 11
      rd 10.255.0.5:10011
      rd evpn domain remote 10.255.0.5:10011
      route-target both 10011:10011
      route-target import export evpn domain remote 10011:10011
      route-target import evpn domain remote 99:99
      redistribute learned
"""


def test_evpn_gateway_remote_domain_round_trips():
    first, again, text = round_trip(eos(top=GATEWAY_VXLAN, bgp=GATEWAY_BGP))
    vlan = next(item for item in first["vlans"] if item["id"] == 11)
    assert vlan["remote_domain"] == {"rd": "10.255.0.5:10011",
                                     "route_targets": {"import": ["10011:10011", "99:99"], "export": ["10011:10011"]}}
    assert vlan["route_targets"] == {"import": ["10011:10011"], "export": ["10011:10011"]}  # the local domain's
    assert next(item for item in again["vlans"] if item["id"] == 11)["remote_domain"] == vlan["remote_domain"]
    assert "      route-target import export evpn domain remote 10011:10011\n" in text


def test_remote_domain_lines_of_another_shape_stay_unmodelled():
    broken = GATEWAY_BGP.replace("rd evpn domain remote 10.255.0.5:10011", "rd evpn domain all 10.255.0.5:10011")
    assert unmodelled(eos(top=GATEWAY_VXLAN, bgp=broken)) == ["rd evpn domain all 10.255.0.5:10011"]
