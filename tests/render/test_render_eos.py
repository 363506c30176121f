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
    assert leaf_text.splitlines()[2] == "service routing protocols model multi-agent"
    assert "\nhostname leaf1\n" in leaf_text
    assert "\nip routing\nip routing vrf TENANT_A\nip routing vrf TENANT_B\n" in leaf_text
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


@pytest.mark.parametrize("port", ["Ethernet1", "Ethernet2", "Ethernet17", "Ethernet18"])
def test_roce_qos_on_every_fabric_and_server_port(leaf_text, port):
    lines = block(leaf_text, f"interface {port}").splitlines()
    for line in ("qos trust dscp", "priority-flow-control on", "priority-flow-control priority 3 no-drop",
                 "priority-flow-control priority 4 no-drop", "priority-flow-control pause watchdog"):
        assert f"   {line}" in lines, (port, line)
    assert [line for line in lines if "no-drop" in line] == [
        "   priority-flow-control priority 3 no-drop", "   priority-flow-control priority 4 no-drop"]
    # ECN thresholds are printed in bytes, the structured config's unit, so nothing is rounded.
    queue3 = lines.index("   tx-queue 3")
    assert lines[queue3 + 1] == ("      random-detect ecn minimum-threshold 153600 bytes maximum-threshold 1536000 "
                                 "bytes max-mark-probability 10")
    queue4 = lines.index("   tx-queue 4")
    assert lines[queue4 + 1] == ("      random-detect ecn minimum-threshold 204800 bytes maximum-threshold 2048000 "
                                 "bytes max-mark-probability 20")


def test_pfc_watchdog_defaults_in_seconds(leaf_text):
    assert "\npriority-flow-control pause watchdog default timeout 0.2\n" in leaf_text
    assert "\npriority-flow-control pause watchdog default recovery-time 0.4\n" in leaf_text
    assert "\npriority-flow-control pause watchdog action drop\n" in leaf_text


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


def test_vlans_vrfs_svis_and_vxlan(leaf_text):
    assert block(leaf_text, "vlan 10") == "   name net10"
    assert "\nvrf instance TENANT_A\n" in leaf_text and "\nvrf instance TENANT_B\n" in leaf_text
    assert block(leaf_text, "interface Vlan20").splitlines() == [
        "   description net20", "   no shutdown", "   mtu 9000", "   vrf TENANT_B", "   ip address virtual 10.20.0.1/24"]
    assert block(leaf_text, "interface Vxlan1").splitlines() == [
        "   vxlan source-interface Loopback1",
        "   vxlan udp-port 4789",
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
    for absent in ("interface Vxlan1", "\nvlan ", "vrf instance", "ip virtual-router", "interface Vlan"):
        assert absent not in spine_text, absent


@pytest.mark.parametrize(
    ("speed_gbps", "lanes", "expected"),
    [(400, None, "400g-8"), (800, None, "800g-8"), (100, None, "100g-4"), (25, None, "25g"), (400, 4, "400g-4")],
)
def test_eos_speed_keyword(speed_gbps, lanes, expected):
    assert eos_speed({"name": "Ethernet1", "speed_gbps": speed_gbps, "lanes": lanes}) == expected


# ------------------------------------------------------------------------------------------- refusals


def test_unnumbered_bgp_is_refused_naming_the_neighbor():
    structured = leaf_structured()
    structured["bgp"]["neighbors"][1]["address"] = None
    with pytest.raises(RenderError, match=r"leaf1: bgp\.neighbors\[Ethernet2\]\.address=None: unnumbered BGP "
                                          r"\(peer spine2\)"):
        render(structured)


def test_unnumbered_interface_is_refused():
    structured = leaf_structured()
    structured["interfaces"][0]["unnumbered"] = True
    with pytest.raises(RenderError, match=r"interfaces\[Ethernet1\]\.unnumbered=True"):
        render(structured)


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
