"""Port-channels, MLAG, trunk groups, peer SVIs and spanning tree through the EOS writer: render(parse(text)) of
Arista AVD's L2LS and MLAG EVPN configs (tests/data/avd_l2) and parse(render(s)) of a RoCE leaf whose server
ports are bundled, dual-attached and carry PFC on the members and the bundle."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from render_structured_fixtures import leaf_structured
from sonic_yang import validate_config_db, yanglint_path

from compiler.errors import RenderError
from compiler.model import Platform
from compiler.parse import parse_device
from compiler.render import render_device
from validators.configs import validate_configs

DATA = Path(__file__).resolve().parents[2] / "data" / "avd_l2"
LAYER2 = ("port_channels", "mlag", "spanning_tree", "vlans", "interfaces")


def parse_eos(text: str):
    return parse_device({"startup-config": text}, "eos")


@pytest.mark.parametrize("name", sorted(path.name for path in DATA.glob("*.cfg")))
def test_render_parse_round_trip_of_avd_configs(name):
    first = parse_eos((DATA / name).read_text())
    # Not Layer 2 and outside this test: a foreign config without BGP timers reads them as null.
    first.structured["bgp"]["keepalive_s"], first.structured["bgp"]["hold_s"] = 3, 9
    text = render_device(first.structured, "eos")["startup-config"]
    second = parse_eos(text)
    assert "None" not in text
    assert {key: second.structured.get(key) for key in LAYER2} == {key: first.structured.get(key) for key in LAYER2}
    layer2 = ("channel-group", "mlag", "switchport", "spanning-tree", "trunk group", "peer-link", "no autostate")
    assert [item.text for item in second.unmodelled if item.text.strip().startswith(layer2)] == []


def bundled_leaf() -> dict:
    """leaf1 with its two RoCE server ports in one LACP bundle, dual-attached (mlag 5), PFC on the bundle too,
    and an MLAG peer-link on the unused port."""
    structured = leaf_structured("eos")
    servers = [port for port in structured["interfaces"] if port["kind"] == "server"]
    for port in servers:
        port.update(port_channel="Port-Channel5", lacp_mode="active", access_vlan=None, trunk_vlans=[])
    peer_port = structured["interfaces"][-1]
    peer_port.update(kind="peer_link", enabled=True, qos={}, port_channel="Port-Channel47", lacp_mode="active")
    bundle_qos = copy.deepcopy(servers[0]["qos"])
    bundle_qos["headroom"], bundle_qos["ecn"] = {}, {}
    structured["port_channels"] = [
        {"name": "Port-Channel5", "members": [port["name"] for port in servers], "min_links": 1, "mtu": 9214,
         "enabled": True, "description": "SERVER gpu01 bond0", "ip": None, "switchport_mode": "trunk",
         "access_vlan": None, "trunk_vlans": [10, 20], "trunk_groups": [], "native_vlan_tag": False, "mlag": 5,
         "qos": bundle_qos},
        {"name": "Port-Channel47", "members": [peer_port["name"]], "min_links": None, "mtu": None, "enabled": True,
         "description": "MLAG leaf2", "ip": None, "switchport_mode": "trunk", "access_vlan": None, "trunk_vlans": [],
         "trunk_groups": ["MLAG"], "native_vlan_tag": False, "mlag": None, "qos": {}},
    ]
    structured["mlag"] = {"domain_id": "PAIR1", "local_interface": "Vlan4094", "peer_address": "10.0.255.1",
                          "peer_link": "Port-Channel47", "reload_delay_mlag_s": 300, "reload_delay_non_mlag_s": 330}
    structured["spanning_tree"] = {"mode": "mstp", "priorities": {"0": 4096}, "disabled_vlans": [4094]}
    structured["vlans"].append({"id": 4094, "name": "MLAG", "network": "MLAG", "vni": None, "tenant": None,
                                "vrf": None, "rd": None, "route_targets": {"import": [], "export": []},
                                "trunk_groups": ["MLAG"],
                                "svi": {"ip": None, "mac": None, "mtu": 9214, "address": "10.0.255.0/31"}})
    return structured


def test_parse_render_round_trip_of_a_bundled_roce_leaf():
    structured = bundled_leaf()
    text = render_device(structured, "eos")["startup-config"]
    parsed = parse_eos(text).structured
    assert parsed["port_channels"] == structured["port_channels"]
    assert parsed["mlag"] == structured["mlag"] and parsed["spanning_tree"] == structured["spanning_tree"]
    members = {port["name"]: port for port in parsed["interfaces"] if port.get("port_channel")}
    assert sorted(members) == ["Ethernet17", "Ethernet18", "Ethernet32"]
    for name, member in members.items():
        expected_kind = "peer_link" if name == "Ethernet32" else "server"
        assert (member["kind"], member["lacp_mode"]) == (expected_kind, "active")
    # The RoCE class survives the bundle: PFC on every member and on the bundle itself.
    lossless = structured["interfaces"][2]["qos"]["pfc_priorities"]
    assert lossless and members["Ethernet17"]["qos"]["pfc_priorities"] == lossless
    assert parsed["port_channels"][0]["qos"]["pfc_priorities"] == lossless
    assert "   mtu 9214\n   channel-group" not in text  # members inherit the bundle's MTU, not restated
    vlan = next(vlan for vlan in parsed["vlans"] if vlan["id"] == 4094)
    assert vlan["svi"]["address"] == "10.0.255.0/31" and vlan["trunk_groups"] == ["MLAG"]
    assert "   no autostate\n" in text


def test_peer_link_outside_the_mlag_peer_link_is_still_refused():
    structured = bundled_leaf()
    structured["mlag"]["peer_link"] = "Port-Channel48"
    with pytest.raises(RenderError, match=r"interfaces\[Ethernet32\]\.kind='peer_link'"):
        render_device(structured, "eos")


@pytest.mark.parametrize("platform", [Platform.SONIC, Platform.FRR])
def test_mlag_peer_link_is_refused_where_no_writer_prints_mlag(platform):
    structured = leaf_structured(platform)
    structured["interfaces"][0].update(kind="peer_link", port_channel="PortChannel47")
    structured["mlag"] = {"domain_id": "PAIR1", "local_interface": "Vlan4094", "peer_address": "10.0.255.1",
                          "peer_link": "PortChannel47", "reload_delay_mlag_s": None, "reload_delay_non_mlag_s": None}
    with pytest.raises(RenderError, match="peer_link"):
        render_device(structured, platform)


def sonic_bundled_leaf() -> dict:
    """leaf1 (SONiC) with its two server ports in PortChannel5 (a trunk) and its uplinks in a routed
    PortChannel1 with min-links 1 and MTU 9100 the members inherit."""
    structured = leaf_structured("sonic")
    fabric = [port for port in structured["interfaces"] if port["kind"] == "fabric"]
    servers = [port for port in structured["interfaces"] if port["kind"] == "server"]
    for port in fabric:
        port.update(port_channel="PortChannel1", lacp_mode="active", ip=None, mtu=9100)
    for port in servers:
        port.update(port_channel="PortChannel5", lacp_mode="active", access_vlan=None, trunk_vlans=[])
    base = {"min_links": None, "mtu": None, "enabled": True, "description": "", "ip": None, "switchport_mode": None,
            "access_vlan": None, "trunk_vlans": [], "trunk_groups": [], "native_vlan_tag": False, "mlag": None,
            "qos": {}}
    structured["port_channels"] = [
        {**base, "name": "PortChannel1", "members": [port["name"] for port in fabric], "min_links": 1, "mtu": 9100,
         "ip": "10.1.0.1/31"},
        {**base, "name": "PortChannel5", "members": [port["name"] for port in servers], "switchport_mode": "trunk",
         "trunk_vlans": [10, 20], "description": "gpu01 bond0"},
    ]
    structured["bgp"]["neighbors"] = structured["bgp"]["neighbors"][:1]
    return structured


def test_sonic_port_channels_round_trip_and_pass_sonic_yang():
    structured = sonic_bundled_leaf()
    files = render_device(structured, "sonic")
    config_db = json.loads(files["config_db.json"])
    assert config_db["PORTCHANNEL"]["PortChannel1"] == {"admin_status": "up", "lacp_key": "auto", "mtu": "9100",
                                                        "min_links": "1"}
    assert config_db["VLAN_MEMBER"]["Vlan20|PortChannel5"] == {"tagging_mode": "tagged"}
    if yanglint_path():
        report = validate_config_db(config_db)
        assert report.ok, report.errors
    parsed = parse_device(files, "sonic")
    assert parsed.structured["port_channels"] == structured["port_channels"]
    members = {port["name"]: port for port in parsed.structured["interfaces"] if port.get("port_channel")}
    expected = {port["name"]: (port["port_channel"], "active", port["kind"], port["mtu"])
                for port in structured["interfaces"] if port.get("port_channel")}
    assert len(expected) == 4 and {name: (port["port_channel"], port["lacp_mode"], port["kind"], port["mtu"])
                                   for name, port in members.items()} == expected
    assert not [item for item in parsed.unmodelled if item.text.startswith("PORTCHANNEL")]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("lacp_mode", "passive", "lacp_mode='passive': SONiC's teamd runs LACP active"),
    ("port_channel", "PortChannel9", "port_channel='PortChannel9': not in port_channels"),
])
def test_sonic_refuses_what_teamd_cannot_express(field, value, message):
    structured = sonic_bundled_leaf()
    structured["interfaces"][0][field] = value
    with pytest.raises(RenderError, match=re.escape(message)):
        render_device(structured, "sonic")


def test_sonic_refuses_an_eos_bundle_name():
    structured = sonic_bundled_leaf()
    structured["port_channels"][0]["name"] = "Port-Channel1"
    with pytest.raises(RenderError, match=r"port_channels\[\]\.name='Port-Channel1': SONiC names a bundle"):
        render_device(structured, "sonic")


def test_a_roce_class_carried_through_the_bundle():
    """QoS on the port-channel only: the members inherit it (EOS applies port-channel QoS to members), the writer
    prints it once on the bundle, and a member overriding it without PFC is a roce.pfc error on that member."""
    structured = bundled_leaf()
    bundle = structured["port_channels"][0]
    for port in structured["interfaces"]:
        if port.get("port_channel") == bundle["name"]:
            port["qos"] = bundle["qos"]
    text = render_device(structured, "eos")["startup-config"]
    member_block = text.split("interface Ethernet17\n", 1)[1].split("!", 1)[0]
    assert "service-profile" not in member_block and "priority-flow-control" not in member_block
    parsed = parse_eos(text).structured
    member = next(port for port in parsed["interfaces"] if port["name"] == "Ethernet17")
    assert member["qos"]["pfc_priorities"] == bundle["qos"]["pfc_priorities"] != []
    assert parse_eos(render_device(parsed, "eos")["startup-config"]).structured["port_channels"] == parsed[
        "port_channels"]
    def pfc_errors(config: str) -> set[str]:
        return {finding.subject for finding in validate_configs({"leaf1": {"startup-config": config}}).report.findings
                if finding.check == "roce.pfc" and finding.severity == "error"}

    faulty = text.replace("interface Ethernet17\n", "interface Ethernet17\n   qos trust dscp\n", 1)
    assert pfc_errors(faulty) - pfc_errors(text) == {"leaf1:Ethernet17"}


@pytest.mark.parametrize("lines", [
    "   switchport mode access\n   switchport\n",
    "   switchport trunk native vlan tag\n   switchport mode trunk\n   switchport\n",
    "   switchport trunk native vlan 20\n   switchport trunk allowed vlan 10\n   switchport mode trunk\n"
    "   switchport trunk group G1\n   switchport\n",
])
def test_switchport_forms_round_trip(lines):
    text = ("hostname sw1\nvlan 10\n   name ten\nvlan 20\n   name twenty\ninterface Ethernet1\n   description host\n"
            + lines)
    first = parse_eos(text)
    assert first.unmodelled == []
    second = parse_eos(render_device(first.structured, "eos")["startup-config"])
    assert second.structured["interfaces"] == first.structured["interfaces"]


def test_sonic_writes_an_svi_with_only_its_own_address_without_none():
    structured = sonic_bundled_leaf()
    structured["vlans"].append({"id": 4094, "name": "MLAG", "network": "MLAG", "vni": None, "tenant": None,
                                "vrf": None, "rd": None, "route_targets": {"import": [], "export": []},
                                "svi": {"ip": None, "mac": None, "mtu": None, "address": "10.0.255.0/31"}})
    config_db = render_device(structured, "sonic")["config_db.json"]
    assert "None" not in config_db and "null" not in config_db
    tables = json.loads(config_db)
    assert tables["VLAN_INTERFACE"]["Vlan4094|10.0.255.0/31"] == {} and tables["VLAN"]["Vlan4094"] == {
        "vlanid": "4094", "description": "MLAG"}
    if yanglint_path():
        report = validate_config_db(tables)
        assert report.ok, report.errors


def test_layer2_a_writer_cannot_print_is_refused_not_dropped():
    structured = bundled_leaf()
    structured["interfaces"][-1].update(kind="unused", port_channel="Port-Channel47")  # not a peer-link refusal
    with pytest.raises(RenderError, match=r"mlag.domain_id='PAIR1': MLAG is rendered by the EOS renderer only"):
        render_device(structured, "sonic")
    frr = sonic_bundled_leaf()
    with pytest.raises(RenderError, match=r"port_channels\[PortChannel1\]: the FRR/Linux plan has no bonds"):
        render_device(frr, "frr")
