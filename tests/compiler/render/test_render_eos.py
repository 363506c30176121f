"""Arista EOS renderer: each feature's block and values, no template artifacts, and the refusals."""

from __future__ import annotations

import copy
import re

import pytest
from render_structured_fixtures import leaf_structured, spine_structured

from compiler.errors import RenderError
from compiler.render.eos import eos_speed, render


def startup_config(structured: dict) -> str:
    return render(structured)["startup-config"]


def block(text: str, header: str) -> str:
    """The lines of one top-level block (``interface Ethernet1``) up to the next ``!`` at column 0."""
    lines = text.splitlines()
    start = lines.index(header)
    body = []
    for line in lines[start + 1 :]:
        if line == "!" or not line.startswith(" "):
            break
        body.append(line)
    return "\n".join(body)


@pytest.fixture(scope="module")
def leaf_text() -> str:
    return startup_config(leaf_structured())


@pytest.fixture(scope="module")
def spine_text() -> str:
    return startup_config(spine_structured())


def test_returns_one_startup_config_file():
    assert set(render(leaf_structured())) == {"startup-config"}


@pytest.mark.parametrize("make", [leaf_structured, spine_structured])
def test_no_template_artifacts(make):
    text = startup_config(make())
    for artifact in ("{{", "}}", "{%", "%}", "{#", "None", "Undefined", "[]", "{}", "True", "False"):
        assert artifact not in text, artifact
    assert "\n\n" not in text, "blank lines in the config"
    assert not [line for line in text.splitlines() if line != line.rstrip()], "trailing whitespace"
    assert text.endswith("!\nend\n")


def test_render_is_deterministic():
    assert startup_config(leaf_structured()) == startup_config(leaf_structured())


def test_global_blocks(leaf_text):
    assert leaf_text.splitlines()[2:5] == ["vlan internal order ascending range 1006 1199", "!",
                                           "service routing protocols model multi-agent"]
    assert "\nhostname leaf1\n" in leaf_text
    # the management VRF is not routed (it holds one interface and a static default route)
    assert "\nip routing\nno ip routing vrf mgmt\nip routing vrf TENANT_A\nip routing vrf TENANT_B\n" in leaf_text
    assert "\nip virtual-router mac-address 00:1c:73:00:00:99\n" in leaf_text


def test_fabric_port_is_routed_31_with_mtu_speed_description(leaf_text):
    ethernet1 = block(leaf_text, "interface Ethernet1")
    for line in ("description P2P spine1 Ethernet1", "no shutdown", "mtu 9214", "speed 400g-8", "no switchport",
                 "ip address 10.1.0.1/31"):
        assert f"   {line}" in ethernet1.splitlines(), line


def test_server_ports_access_and_trunk(leaf_text):
    access = block(leaf_text, "interface Ethernet17").splitlines()
    assert "   switchport mode access" in access and "   switchport access vlan 10" in access
    assert "   no switchport" not in access
    trunk = block(leaf_text, "interface Ethernet18").splitlines()
    assert "   switchport mode trunk" in trunk and "   switchport trunk allowed vlan 10,20" in trunk


def test_trunk_with_native_vlan_carries_it():
    structured = leaf_structured()
    structured["interfaces"][3]["access_vlan"] = 30
    trunk = block(startup_config(structured), "interface Ethernet18").splitlines()
    assert "   switchport trunk allowed vlan 10,20,30" in trunk
    assert "   switchport trunk native vlan 30" in trunk


def test_unused_port_is_shut_without_qos(leaf_text):
    unused = block(leaf_text, "interface Ethernet32").splitlines()
    assert "   shutdown" in unused
    assert not [line for line in unused if "switchport" in line or "priority-flow-control" in line]


def test_loopbacks(leaf_text):
    assert block(leaf_text, "interface Loopback0").splitlines()[-1] == "   ip address 10.0.0.3/32"
    assert block(leaf_text, "interface Loopback1").splitlines()[-1] == "   ip address 10.0.4.3/32"


def test_dscp_map_covers_every_dscp_once(leaf_text):
    mapped: dict[int, int] = {}
    for match in re.finditer(r"^qos map dscp ([\d ]+) to traffic-class (\d)$", leaf_text, re.M):
        for dscp in match.group(1).split():
            assert int(dscp) not in mapped, f"DSCP {dscp} mapped twice"
            mapped[int(dscp)] = int(match.group(2))
    assert sorted(mapped) == list(range(64))
    assert (mapped[26], mapped[34], mapped[48], mapped[0], mapped[46]) == (3, 4, 6, 0, 0)
    for traffic_class, queue in ((0, 0), (3, 3), (4, 4), (6, 6)):
        assert f"\nqos map traffic-class {traffic_class} to tx-queue {queue}\n" in leaf_text


def test_roce_qos_profile_trust_pfc_watchdog_scheduling_and_ecn(leaf_text):
    profile = block(leaf_text, "qos profile FT_ROCE").splitlines()
    assert profile[:5] == ["   qos trust dscp", "   priority-flow-control on",
                           "   priority-flow-control priority 3 no-drop", "   priority-flow-control priority 4 no-drop",
                           "   priority-flow-control pause watchdog"]
    # Tomahawk (Strata) takes ECN and scheduling on the unicast queue; CNP's queue is strict, the rest weighted.
    # ECN thresholds are printed in bytes, the structured config's unit, so nothing is rounded.
    assert profile[5:] == [
        "   !", "   uc-tx-queue 0", "      no priority", "      bandwidth percent 20",
        "   !", "   uc-tx-queue 3", "      no priority", "      bandwidth percent 40",
        "      random-detect ecn minimum-threshold 153600 bytes maximum-threshold 1536000 bytes "
        "max-mark-probability 10",
        "   !", "   uc-tx-queue 4", "      no priority", "      bandwidth percent 40",
        "      random-detect ecn minimum-threshold 204800 bytes maximum-threshold 2048000 bytes "
        "max-mark-probability 20",
        "   !", "   uc-tx-queue 6", "      priority strict",
    ]
    assert "\n   tx-queue" not in leaf_text


@pytest.mark.parametrize("port", ["Ethernet1", "Ethernet2", "Ethernet17", "Ethernet18"])
def test_every_fabric_and_server_port_names_the_roce_profile(leaf_text, port):
    lines = block(leaf_text, f"interface {port}").splitlines()
    assert lines[-1] == "   service-profile FT_ROCE"
    assert not [line for line in lines if "priority-flow-control" in line or "tx-queue" in line]


def test_jericho_takes_ecn_on_tx_queue_and_has_no_mmu_profile():
    structured = leaf_structured()
    structured["hardware"] = {"model": "DCS-7816R4", "asic": "Broadcom Jericho3", "asic_family": "sand"}
    text = startup_config(structured)
    assert "\n   tx-queue 3\n      no priority\n      bandwidth percent 40\n      random-detect ecn" in text
    assert "uc-tx-queue" not in text and "platform trident" not in text


@pytest.mark.parametrize("hardware", [{}, {"model": "SN5600", "asic": "NVIDIA Spectrum-4", "asic_family": "spectrum"}])
def test_roce_on_an_asic_family_without_eos_queues_is_refused(hardware):
    structured = leaf_structured()
    structured["hardware"] = hardware
    with pytest.raises(RenderError, match=r"leaf1: hardware\.asic_family=.*EOS RoCE queues are known for"):
        render(structured)


def test_pfc_headroom_reserved_by_the_mmu_profile(leaf_text):
    # Ethernet2 (4.2 m) needs the most: 2 lossless priority groups x 121000 bytes XOFF.
    assert block(leaf_text, "platform trident mmu queue profile FT_ROCE").splitlines() == [
        "    ingress headroom bytes 242000"]
    assert leaf_text.endswith("!\nplatform trident mmu queue profile FT_ROCE apply\n!\nend\n")


def test_vxlan_carries_dscp_and_ecn_across_the_overlay(leaf_text):
    vxlan = block(leaf_text, "interface Vxlan1").splitlines()
    for line in ("vxlan qos ecn propagation", "vxlan qos dscp propagation encapsulation",
                 "vxlan qos map dscp to traffic-class decapsulation"):
        assert f"   {line}" in vxlan, line


@pytest.mark.parametrize("port", ["Ethernet17", "Ethernet18"])
def test_server_ports_are_portfast_edges(leaf_text, port):
    assert "   spanning-tree portfast" in block(leaf_text, f"interface {port}").splitlines()


def test_fabric_ports_are_not_portfast(leaf_text):
    assert "spanning-tree" not in block(leaf_text, "interface Ethernet1")


def test_server_port_outside_any_network_is_routed_and_not_portfast():
    structured = leaf_structured()
    structured["interfaces"][2]["access_vlan"] = None
    port = block(startup_config(structured), "interface Ethernet17").splitlines()
    assert "   no switchport" in port and not [line for line in port if "spanning-tree" in line]


def test_pfc_watchdog_defaults_in_seconds_with_two_decimals(leaf_text):
    assert "\npriority-flow-control pause watchdog default timeout 0.20\n" in leaf_text
    assert "\npriority-flow-control pause watchdog default recovery-time 0.40\n" in leaf_text
    assert "\npriority-flow-control pause watchdog action drop\n" in leaf_text


def test_watchdog_forward_is_eos_notify_only():
    structured = leaf_structured()
    structured["qos"]["pfc_watchdog"]["action"] = "forward"
    text = startup_config(structured)
    assert "\npriority-flow-control pause watchdog action notify-only\n" in text
    assert "no-drop\n" not in text.split("qos profile")[0]


@pytest.mark.parametrize(("field", "value"), [("detect_ms", 205), ("detect_ms", 5), ("restore_ms", 61_000),
                                              ("restore_ms", 0)])
def test_watchdog_timer_eos_cannot_take_is_refused(field, value):
    structured = leaf_structured()
    structured["qos"]["pfc_watchdog"][field] = value
    with pytest.raises(RenderError, match=rf"qos\.pfc_watchdog\.{field}={value}: EOS takes 0\.01\.\.60 s"):
        render(structured)


def test_watchdog_off_prints_no_watchdog():
    structured = leaf_structured()
    structured["qos"]["pfc_watchdog"]["enabled"] = False
    assert "watchdog" not in startup_config(structured)


def test_no_roce_classes_prints_no_qos():
    structured = leaf_structured()
    structured["qos"] = {}
    for interface in structured["interfaces"]:
        interface["qos"] = {}
    text = startup_config(structured)
    assert "qos " not in text and "priority-flow-control" not in text and "random-detect" not in text
    assert "service-profile" not in text and "platform trident" not in text


def test_vlans_vrfs_svis_and_vxlan(leaf_text):
    assert block(leaf_text, "vlan 10") == "   name net10"
    assert "\nvrf instance TENANT_A\n" in leaf_text and "\nvrf instance TENANT_B\n" in leaf_text
    assert block(leaf_text, "interface Vlan20").splitlines() == [
        "   description net20", "   no shutdown", "   mtu 9000", "   vrf TENANT_B", "   ip address virtual 10.20.0.1/24"]
    assert block(leaf_text, "interface Vxlan1").splitlines() == [
        "   vxlan source-interface Loopback1",
        "   vxlan udp-port 4789",
        "   vxlan qos ecn propagation",
        "   vxlan qos dscp propagation encapsulation",
        "   vxlan qos map dscp to traffic-class decapsulation",
        "   vxlan vlan 10 vni 10010",
        "   vxlan vlan 20 vni 10020",
        "   vxlan vrf TENANT_A vni 50001",
        "   vxlan vrf TENANT_B vni 50002",
    ]


def test_router_bgp_underlay(leaf_text):
    bgp = block(leaf_text, "router bgp 65101")
    for line in (
        "   router-id 10.0.0.3",
        "   no bgp default ipv4-unicast",
        "   maximum-paths 64 ecmp 64",
        "   neighbor UNDERLAY peer group",
        "   neighbor UNDERLAY bfd",
        "   neighbor UNDERLAY timers 3 9",
        "   neighbor UNDERLAY send-community extended",
        "   neighbor 10.1.0.0 peer group UNDERLAY",
        "   neighbor 10.1.0.0 remote-as 65000",
        "   neighbor 10.1.0.0 description spine1_Ethernet1",
        "   neighbor 10.1.0.2 remote-as 65000",
    ):
        assert line in bgp.splitlines(), line
    # "remote_as: external" is not an EOS peer-group keyword: each neighbor carries its ASN.
    assert "neighbor UNDERLAY remote-as" not in bgp
    ipv4 = bgp.split("   address-family ipv4\n")[1].split("   !")[0]
    assert ipv4.splitlines() == ["      neighbor UNDERLAY activate", "      network 10.0.0.3/32",
                                 "      network 10.0.4.3/32"]
    evpn = bgp.split("   address-family evpn\n")[1].split("   !")[0]
    assert evpn.splitlines() == ["      neighbor UNDERLAY activate"]


def test_router_bgp_mac_vrfs_and_ip_vrfs(leaf_text):
    bgp = block(leaf_text, "router bgp 65101")
    assert "   vlan 10\n      rd 10.0.0.3:10010\n      route-target both 10010:10010\n      redistribute learned" in bgp
    assert ("   vrf TENANT_B\n      rd 10.0.0.3:50002\n      route-target import evpn 50002:50002\n"
            "      route-target export evpn 50002:50002\n      router-id 10.0.0.3\n      redistribute connected") in bgp


def test_asymmetric_route_targets_print_import_and_export():
    structured = leaf_structured()
    structured["vlans"][0]["route_targets"] = {"import": ["10010:10010", "65000:1"], "export": ["10010:10010"]}
    bgp = block(startup_config(structured), "router bgp 65101")
    assert "      route-target import 65000:1" in bgp and "      route-target export 10010:10010" in bgp
    assert "route-target both 10010:10010" not in bgp


def test_numeric_peer_group_remote_as_and_groupless_neighbor():
    structured = spine_structured()
    structured["bgp"]["peer_groups"][0]["remote_as"] = 65101
    extra = dict(structured["bgp"]["neighbors"][0], address="10.9.9.9", peer_group=None,
                 address_families=["ipv4_unicast"], description="extra")
    structured["bgp"]["neighbors"].append(extra)
    bgp = block(startup_config(structured), "router bgp 65000")
    assert "   neighbor UNDERLAY remote-as 65101" in bgp
    assert "   neighbor 10.9.9.9 remote-as 65101" in bgp
    ipv4 = bgp.split("   address-family ipv4\n")[1]
    assert "      neighbor 10.9.9.9 activate" in ipv4
    assert "10.9.9.9" not in bgp.split("   address-family evpn\n")[1].split("   !")[0]


def test_spine_relays_evpn_with_next_hop_unchanged(spine_text, leaf_text):
    evpn = block(spine_text, "router bgp 65000").split("   address-family evpn\n")[1].split("   !")[0]
    assert evpn.splitlines() == ["      bgp next-hop-unchanged", "      neighbor UNDERLAY activate"]
    assert "next-hop-unchanged" not in leaf_text
    for absent in ("interface Vxlan1", "\nvlan 1", "\nvlan 2", "vrf instance TENANT", "ip virtual-router", "interface Vlan"):
        assert absent not in spine_text, absent


@pytest.mark.parametrize(
    ("speed_gbps", "lanes", "expected"),
    [(400, 8, "400g-8"), (400, 4, "400g-4"), (800, 8, "800g-8"), (100, 2, "100g-2"), (100, 4, "100g-4"),
     (200, 4, "200g-4"), (1600, 8, "1.6t-8"), (25, None, "25g"), (10, None, "10g")],
)
def test_eos_speed_keyword(speed_gbps, lanes, expected):
    assert eos_speed({"name": "Ethernet1", "speed_gbps": speed_gbps, "lanes": lanes}) == expected


@pytest.mark.parametrize(("speed_gbps", "lanes", "message"), [
    (400, None, r"interfaces\[Ethernet1\]\.lanes=None: EOS names 400G by its lane count"),
    (400, 1, r"interfaces\[Ethernet1\]\.speed_gbps=400: no EOS speed keyword for this rate over 1 lane"),
    (100, 3, r"interfaces\[Ethernet1\]\.speed_gbps=100: no EOS speed keyword"),
])
def test_speed_without_a_lane_mode_is_refused(speed_gbps, lanes, message):
    with pytest.raises(RenderError, match=message):
        eos_speed({"name": "Ethernet1", "speed_gbps": speed_gbps, "lanes": lanes})


# ------------------------------------------------------------------------------------------- refusals


def test_unnumbered_bgp_outside_a_peer_group_is_refused_naming_the_neighbor():
    structured = leaf_structured()
    structured["bgp"]["neighbors"][1]["address"] = None
    structured["bgp"]["neighbors"][1]["peer_group"] = None
    with pytest.raises(RenderError, match=r"leaf1: bgp\.neighbors\[Ethernet2\]\.address=None: unnumbered BGP "
                                          r"\(peer spine2\) outside a peer group"):
        render(structured)


def test_unnumbered_bgp_in_a_peer_group_is_eos_neighbor_interface():
    structured = leaf_structured()
    neighbor = structured["bgp"]["neighbors"][1]
    neighbor["address"] = None
    structured["interfaces"][1]["ip"], structured["interfaces"][1]["unnumbered"] = None, True
    text = render(structured)["startup-config"]
    assert (f"   neighbor interface Ethernet2 peer-group {neighbor['peer_group']} remote-as {neighbor['remote_as']}\n"
            in text)
    block = text.split("interface Ethernet2\n", 1)[1].split("!", 1)[0]
    assert "   ipv6 enable\n" in block and "ip address" not in block


def test_svis_with_different_gateway_macs_are_refused():
    structured = leaf_structured()
    structured["vlans"][1]["svi"]["mac"] = "00:1c:73:00:00:aa"
    with pytest.raises(RenderError, match=r"vlans\[\]\.svi\.mac differ .*vlan 20: 00:1c:73:00:00:aa"):
        render(structured)


def test_watchdog_action_eos_cannot_take_is_refused():
    structured = leaf_structured()
    structured["qos"]["pfc_watchdog"]["action"] = "alert"
    with pytest.raises(RenderError, match=r"qos\.pfc_watchdog\.action='alert'"):
        render(structured)


def test_lossless_priority_other_than_its_traffic_class_is_refused():
    structured = leaf_structured()
    structured["qos"]["lossless_priorities"] = [3, 5]
    with pytest.raises(RenderError, match=r"leaf1: qos\.lossless_priorities=\[3, 5\]: EOS makes the traffic class "
                                          r"lossless, and the lossless classes' DSCPs land on traffic classes \[3, 4\]"):
        render(structured)


def test_strict_queue_below_a_weighted_queue_is_refused():
    structured = leaf_structured()
    structured["qos"]["scheduling"]["6"] = {"mode": "dwrr", "weight_percent": 10}
    structured["qos"]["scheduling"]["0"] = {"mode": "strict"}
    with pytest.raises(RenderError, match=r"qos\.scheduling\[0\]\.mode='strict': EOS needs strict-priority queues "
                                          r"above every weighted queue, and queue 6 is weighted"):
        render(structured)


def test_weights_above_100_percent_are_refused():
    structured = leaf_structured()
    structured["qos"]["scheduling"]["0"]["weight_percent"] = 30
    with pytest.raises(RenderError, match=r"qos\.scheduling weights sum to 110%"):
        render(structured)


def test_remapping_traffic_class_7_is_refused():
    structured = leaf_structured()
    structured["qos"]["tc_to_queue"]["7"] = 5
    with pytest.raises(RenderError, match=r"qos\.tc_to_queue\[7\]=5"):
        render(structured)


def test_missing_contract_field_is_a_render_error_not_silent_output():
    structured = copy.deepcopy(leaf_structured())
    del structured["vlans"][0]["rd"]
    with pytest.raises(RenderError, match=r"leaf1: structured config does not match .*rd"):
        render(structured)


def test_underlay_only_fabric_has_no_evpn():
    structured = spine_structured()
    structured["bgp"]["evpn"] = {"enabled": False, "advertise_all_vni": False}
    structured["bgp"]["peer_groups"][0]["address_families"] = ["ipv4_unicast"]
    for neighbor in structured["bgp"]["neighbors"]:
        neighbor["address_families"] = ["ipv4_unicast"]
    bgp = block(startup_config(structured), "router bgp 65000")
    assert "address-family evpn" not in bgp and "send-community" not in bgp and "next-hop-unchanged" not in bgp
    assert "   address-family ipv4\n      neighbor UNDERLAY activate" in bgp


def test_speed_without_an_eos_keyword_is_refused():
    structured = leaf_structured()
    structured["interfaces"][4]["speed_gbps"] = 40
    with pytest.raises(RenderError, match=r"interfaces\[Ethernet32\]\.speed_gbps=40"):
        render(structured)


# ------------------------------------------------------------------------------------------- management plane

MANAGEMENT = {"interface": "Management1", "vrf": "MGMT", "address": "192.168.0.10/24", "gateway": "192.168.0.1",
              "ntp_servers": ["192.168.0.250", "192.168.0.251"], "syslog_servers": ["192.168.0.240"],
              "dns_servers": ["192.168.0.53"]}


def with_management(**changes) -> dict:
    structured = leaf_structured()
    structured["management"] = {**copy.deepcopy(MANAGEMENT), **changes}
    return structured


def test_management_plane_in_its_vrf():
    text = startup_config(with_management())
    assert "\nvrf instance MGMT\n" in text
    assert block(text, "interface Management1").splitlines() == [
        "   description oob_management", "   no shutdown", "   vrf MGMT", "   ip address 192.168.0.10/24"]
    assert block(text, "management api http-commands").splitlines() == [
        "   protocol https", "   no shutdown", "   !", "   vrf MGMT", "      no shutdown"]
    for line in ("no ip routing vrf MGMT", "ip route vrf MGMT 0.0.0.0/0 192.168.0.1",
                 "ntp local-interface vrf MGMT Management1", "ntp server vrf MGMT 192.168.0.250 iburst",
                 "ntp server vrf MGMT 192.168.0.251 iburst", "logging vrf MGMT host 192.168.0.240",
                 "ip name-server vrf MGMT 192.168.0.53"):
        assert f"\n{line}\n" in text, line


def test_management_in_the_default_vrf_prints_no_vrf():
    text = startup_config(with_management(vrf="default"))
    assert " vrf MGMT" not in text and "vrf instance MGMT" not in text
    assert "\nip route 0.0.0.0/0 192.168.0.1\n" in text and "\nntp server 192.168.0.250 iburst\n" in text
    assert "\nip name-server vrf default 192.168.0.53\n" in text
    assert block(text, "management api http-commands").splitlines() == ["   protocol https", "   no shutdown"]


def test_no_management_key_prints_no_management_plane():
    structured = leaf_structured()
    del structured["management"]  # the fixtures carry one (compiler/structured/management.py); here it is absent
    leaf_text = startup_config(structured)
    for absent in ("Management1", "management api", "ntp ", "logging ", "name-server", "ip route"):
        assert absent not in leaf_text, absent


AAA = {"tacacs_servers": ["192.0.2.5", "192.0.2.6"], "secret_ref": "vault:secret/fabric/tacacs"}


def test_aaa_tacacs_in_the_management_vrf_with_the_secret_reference_only():
    text = startup_config(with_management(aaa=AAA))
    for line in ("tacacs-server host 192.0.2.5 vrf MGMT key 7 FT-SECRET[vault:secret/fabric/tacacs]",
                 "tacacs-server host 192.0.2.6 vrf MGMT key 7 FT-SECRET[vault:secret/fabric/tacacs]",
                 "aaa authentication login default group FT_TACACS local",
                 "aaa authorization exec default group FT_TACACS local",
                 "ip tacacs vrf MGMT source-interface Management1"):
        assert f"\n{line}\n" in text, line
    assert block(text, "aaa group server tacacs+ FT_TACACS").splitlines() == [
        "   server 192.0.2.5 vrf MGMT", "   server 192.0.2.6 vrf MGMT"]
    assert "tacacs" not in startup_config(with_management()).lower()  # no AAA in the intent: none printed


@pytest.mark.parametrize(("changes", "message"), [
    ({"aaa": {**AAA, "secret_ref": "hunter2"}}, r"leaf1: management\.aaa\.secret_ref='hunter2'"),
    ({"aaa": {**AAA, "secret_ref": "vault:a b"}}, r"leaf1: management\.aaa\.secret_ref='vault:a b'"),
    ({"aaa": {**AAA, "tacacs_servers": []}}, r"leaf1: management\.aaa\.tacacs_servers=\[\]"),
    ({"interface": ""}, r"leaf1: management\.interface='': required"),
    ({"vrf": "TENANT_A"}, r"leaf1: management\.vrf='TENANT_A': also a tenant VRF"),
])
def test_broken_management_is_refused(changes, message):
    with pytest.raises(RenderError, match=message):
        render(with_management(**changes))


def test_management_without_an_address_keeps_the_booted_one():
    # A parsed config with DHCP or no address on Management1: no `ip address None`, the switch keeps its own
    # address (as the SONiC renderer does; compiler.render.unset).
    text = startup_config(with_management(address=None))
    assert "None" not in text and "\ninterface Management1\n" in text
    assert not any(line.strip().startswith("ip address") for line in block(text, "interface Management1").splitlines())


# ------------------------------------------------------------------ internal VLAN order (issue 27 item 5)


def test_internal_vlan_range_grows_with_the_routed_ports():
    spine = spine_structured()
    port = spine["interfaces"][0]
    spine["interfaces"] = [{**port, "name": f"Ethernet{index}/1"} for index in range(1, 301)]
    assert "\nvlan internal order ascending range 1006 1305\n" in startup_config(spine)  # 300 routed ports


def test_a_vlan_inside_the_internal_range_is_refused():
    leaf = leaf_structured()
    leaf["vlans"][0]["id"] = 1100
    with pytest.raises(RenderError, match=r"leaf1: vlans\[1100\]\.id=1100: inside EOS's internal VLAN range "
                                          r"1006\.\.1199"):
        startup_config(leaf)
