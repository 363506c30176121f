"""Layer 2 as real fabrics write it (Arista AVD's L2LS and MLAG EVPN examples, tests/data/avd_l2/README.md):
port-channels and their members, MLAG, trunk groups, SVIs with their own and VARP addresses, spanning tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_structured_contract import shape_problems  # the contract test's checker: one home

from compiler.parse import parse_device
from compiler.parse.drift import field_drift
from compiler.render import render_device
from compiler.structured.contract import Interface, Mlag, PortChannel, SpanningTree, Vlan

DATA = Path(__file__).resolve().parents[1] / "data" / "avd_l2"


def parse_file(name: str):
    return parse_device({"startup-config": (DATA / name).read_text()}, "eos")


@pytest.fixture(scope="module")
def leaf1():
    return parse_file("l2ls-fabric-LEAF1.cfg")


@pytest.fixture(scope="module")
def mlag_leaf():
    return parse_file("single-dc-l3ls-dc1-leaf1a.cfg")


def by_name(items, name):
    return next(item for item in items if item["name"] == name)


def test_port_channels_and_members(leaf1):
    structured = leaf1.structured
    uplink = by_name(structured["port_channels"], "Port-Channel1")
    assert uplink["members"] == ["Ethernet1", "Ethernet2"]
    assert (uplink["switchport_mode"], uplink["trunk_vlans"], uplink["mlag"]) == ("trunk", [10, 20], 1)
    peer_link = by_name(structured["port_channels"], "Port-Channel47")
    assert peer_link["trunk_groups"] == ["MLAG"] and peer_link["mlag"] is None
    member = by_name(structured["interfaces"], "Ethernet47")
    assert (member["port_channel"], member["lacp_mode"], member["kind"]) == ("Port-Channel47", "active", "peer_link")
    assert by_name(structured["interfaces"], "Ethernet1")["kind"] == "server"  # a switched bundle's member


def test_mlag_block_and_peer_svi(leaf1):
    structured = leaf1.structured
    assert structured["mlag"] == {"domain_id": "RACK1", "local_interface": "Vlan4094", "peer_address": "192.168.0.1",
                                  "peer_link": "Port-Channel47", "reload_delay_mlag_s": 300,
                                  "reload_delay_non_mlag_s": 330}
    vlan = next(vlan for vlan in structured["vlans"] if vlan["id"] == 4094)
    assert vlan["trunk_groups"] == ["MLAG"] and vlan["vni"] is None
    assert vlan["svi"] == {"ip": None, "mac": None, "mtu": 1500, "address": "192.168.0.0/31"}
    assert structured["spanning_tree"] == {"mode": "mstp", "priorities": {"0": 16384}, "disabled_vlans": [4094]}
    assert leaf1.locations["mlag domain-id"][1] > 0


def test_no_l2_line_is_left_unmodelled(leaf1, mlag_leaf):
    layer2 = ("interface Port-Channel", "channel-group", "mlag", "switchport", "spanning-tree", "trunk group",
              "domain-id", "peer-link", "peer-address", "local-interface", "reload-delay", "no autostate")
    for device in (leaf1, mlag_leaf):
        gaps = [item.text for item in device.unmodelled if item.text.strip().startswith(layer2)]
        assert gaps == []


def test_mlag_ibgp_neighbor_sits_on_the_peer_svi(mlag_leaf):
    neighbor = next(n for n in mlag_leaf.structured["bgp"]["neighbors"] if n["address"] == "10.255.1.97")
    assert neighbor["interface"] == "Vlan4093"
    assert neighbor["remote_as"] == mlag_leaf.structured["bgp"]["asn"] == 65101


def test_member_inherits_the_bundle_mtu():
    text = ("hostname sw1\ninterface Port-Channel5\n   mtu 9214\n   port-channel min-links 1\n   no switchport\n"
            "   ip address 10.0.0.0/31\ninterface Ethernet5\n   channel-group 5 mode passive\n"
            "interface Ethernet6\n   mtu 1500\n   channel-group 5 mode on\n")
    structured = parse_device({"startup-config": text}, "eos").structured
    bundle = structured["port_channels"][0]
    assert (bundle["mtu"], bundle["min_links"], bundle["ip"]) == (9214, 1, "10.0.0.0/31")
    five, six = (by_name(structured["interfaces"], name) for name in ("Ethernet5", "Ethernet6"))
    assert (five["mtu"], five["lacp_mode"], five["kind"]) == (9214, "passive", "fabric")
    assert (six["mtu"], six["lacp_mode"]) == (1500, "on")  # stated: kept, for mtu.port_channels to judge


def test_varp_and_native_vlan_tag():
    text = ("hostname sw1\nvlan 10\n   name users\ninterface Ethernet1\n   switchport mode trunk\n"
            "   switchport trunk native vlan tag\n   switchport trunk allowed vlan 10\n   switchport\n"
            "interface Vlan10\n   ip address 10.1.0.2/24\n   ip virtual-router address 10.1.0.1\n"
            "ip virtual-router mac-address 00:1c:73:00:00:99\n")
    device = parse_device({"startup-config": text}, "eos")
    port = by_name(device.structured["interfaces"], "Ethernet1")
    assert (port["native_vlan_tag"], port["trunk_vlans"]) == (True, [10])
    assert "switchport_mode" not in port  # a trunk with allowed VLANs: the mode is implied
    assert device.structured["vlans"][0]["svi"] == {"ip": None, "mac": "00:1c:73:00:00:99", "mtu": None,
                                                    "address": "10.1.0.2/24",
                                                    "virtual_router_addresses": ["10.1.0.1"]}
    assert device.unmodelled == []


def test_an_unknown_lacp_mode_stays_unmodelled():
    text = "hostname sw1\ninterface Ethernet1\n   channel-group 5 mode desirable\n"
    device = parse_device({"startup-config": text}, "eos")
    assert [item.text.strip() for item in device.unmodelled] == ["channel-group 5 mode desirable"]


def test_parsed_layer2_has_the_contract_shape(leaf1, mlag_leaf):
    blocks = {"interfaces": list[Interface], "port_channels": list[PortChannel], "vlans": list[Vlan],
              "mlag": Mlag, "spanning_tree": SpanningTree}
    for device in (leaf1, mlag_leaf):
        for key, typed in blocks.items():
            assert shape_problems(device.structured[key], typed, key) == []


def test_sonic_port_channel_tables():
    """The shape of sonic-mgmt's vs-voq-t2 config_db (a routed PortChannel0002 with IPv4 and IPv6 addresses) plus
    a switched bundle in a VLAN."""
    db = {
        "DEVICE_METADATA": {"localhost": {"hostname": "t2-01", "type": "SpineRouter"}},
        "PORT": {name: {"admin_status": "up", "mtu": "9100", "speed": "100000", "lanes": "1,2,3,4"}
                 for name in ("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12")},
        "PORTCHANNEL": {"PortChannel0002": {"members": ["Ethernet0", "Ethernet4"], "min_links": "2", "mtu": "9100",
                                            "admin_status": "up"},
                        "PortChannel0010": {"admin_status": "up", "mtu": "9100", "static": "true"}},
        "PORTCHANNEL_MEMBER": {"PortChannel0002|Ethernet0": {}, "PortChannel0002|Ethernet4": {},
                               "PortChannel0010|Ethernet8": {}},
        "PORTCHANNEL_INTERFACE": {"PortChannel0002": {}, "PortChannel0002|10.0.0.0/31": {},
                                  "PortChannel0002|FC00::1/126": {}},
        "VLAN": {"Vlan100": {"vlanid": "100"}},
        "VLAN_MEMBER": {"Vlan100|PortChannel0010": {"tagging_mode": "untagged"}},
    }
    device = parse_device({"config_db.json": json.dumps(db, indent=4)}, "sonic")
    routed, switched = device.structured["port_channels"]
    assert (routed["name"], routed["members"], routed["min_links"], routed["ip"]) == (
        "PortChannel0002", ["Ethernet0", "Ethernet4"], 2, "10.0.0.0/31")
    assert (switched["access_vlan"], switched["switchport_mode"], switched["members"]) == (100, "access",
                                                                                          ["Ethernet8"])
    ports = {port["name"]: port for port in device.structured["interfaces"]}
    assert (ports["Ethernet0"]["kind"], ports["Ethernet0"]["lacp_mode"]) == ("fabric", "active")
    assert (ports["Ethernet8"]["kind"], ports["Ethernet8"]["lacp_mode"]) == ("server", "on")  # static: no LACP
    assert [item.text for item in device.unmodelled] == ["PORTCHANNEL_INTERFACE|PortChannel0002|FC00::1/126"]


def test_layer2_drift_is_named_in_the_model_words():
    intended = (DATA / "l2ls-fabric-LEAF1.cfg").read_text()
    running = intended.replace("domain-id RACK1", "domain-id RACK9").replace(
        "   channel-group 47 mode active\n", "   channel-group 47 mode passive\n", 1)
    drift, _ = field_drift("LEAF1", {"startup-config": intended}, {"startup-config": running})
    assert [item.message for item in drift] == [
        "LEAF1 Ethernet47: lacp mode 'active' intended, 'passive' running",
        "LEAF1 mlag: domain id 'RACK1' intended, 'RACK9' running"]
    assert field_drift("LEAF1", {"startup-config": intended}, {"startup-config": intended})[0] == []


@pytest.mark.parametrize(("line", "trunk_vlans", "unmodelled"), [
    ("switchport trunk allowed vlan all", [], []),  # EOS's default: every VLAN
    ("switchport trunk allowed vlan none", [], ["switchport trunk allowed vlan none"]),  # not in the model
    ("switchport trunk allowed vlan add 30", [], ["switchport trunk allowed vlan add 30"]),
])
def test_allowed_vlan_forms_never_crash(line, trunk_vlans, unmodelled):
    text = f"hostname sw1\ninterface Ethernet1\n   switchport mode trunk\n   {line}\n   switchport\n"
    device = parse_device({"startup-config": text}, "eos")
    assert by_name(device.structured["interfaces"], "Ethernet1")["trunk_vlans"] == trunk_vlans
    assert [item.text.strip() for item in device.unmodelled] == unmodelled


def test_ip_address_dhcp_is_read_and_written_back():
    text = "hostname wan1\ninterface Ethernet4\n   description INTERNET\n   no switchport\n   ip address dhcp\n"
    device = parse_device({"startup-config": text}, "eos")
    port = by_name(device.structured["interfaces"], "Ethernet4")
    assert (port["ip"], port["dhcp"], port["kind"], device.unmodelled) == (None, True, "fabric", [])
    rendered = render_device(device.structured, "eos")["startup-config"]
    assert "   no switchport\n   ip address dhcp\n" in rendered
    assert parse_device({"startup-config": rendered}, "eos").structured["interfaces"] == device.structured[
        "interfaces"]


def test_interface_ranges_expand_in_linear_time_and_stay_bounded():
    """``Ethernet1-4`` expands; a hostile range neither backtracks (tests/test_regex_budget.py found the regex
    quadratic on a long digit run) nor expands into millions of names."""
    import time

    from compiler.parse.eos import _interface_range

    assert _interface_range("Ethernet1/1-3") == ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3"]
    assert _interface_range("Ethernet1-99999999") == ["Ethernet1-99999999"]
    started = time.process_time()
    _interface_range("0" * 100_000 + " x")
    assert time.process_time() - started < 0.1
