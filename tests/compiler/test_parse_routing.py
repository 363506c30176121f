"""Routing features of configs we did not write (issue 25 item 2): asdot ASNs, VNI ranges, ``ip address dhcp``,
IPv6 addresses and neighbors, RFC 5549 neighbors, neighbor options and peer-group inheritance, read by the EOS and
FRR parsers; real forms from Arista AVD's molecule scenarios (tests/data/corpus/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.api import render_device
from compiler.parse import ParseError, parse_device
from compiler.parse.common import parse_asn

AVD = Path(__file__).resolve().parents[1] / "data" / "corpus" / "avd"


def eos(text: str):
    return parse_device({"startup-config": text}, platform="eos")


def test_asdot_is_rfc5396():
    assert parse_asn("65111.100") == 65111 * 65536 + 100
    assert parse_asn("0.65535") == 65535
    assert parse_asn("4294967295") == 2**32 - 1
    for bad in ("65536.1", "1.65536", "4294967296", "-1", "65111.", "x"):
        with pytest.raises(ValueError, match="AS number"):
            parse_asn(bad)


EOS_ASDOT = """hostname leaf1
interface Ethernet1
   no switchport
   ip address 10.0.0.1/31
!
router bgp 65111.100
   router-id 10.255.0.1
   neighbor 10.0.0.0 remote-as 65110.100
   address-family ipv4
      neighbor 10.0.0.0 activate
end
"""


def test_eos_asdot_router_and_remote_as_are_integers():
    bgp = eos(EOS_ASDOT).structured["bgp"]
    assert bgp["asn"] == 65111 * 65536 + 100
    assert bgp["neighbors"][0]["remote_as"] == 65110 * 65536 + 100
    assert bgp["neighbors"][0]["interface"] == "Ethernet1"


def test_a_bad_asn_is_refused_naming_the_line_and_the_command():
    with pytest.raises(ParseError, match=r"line 6: 'router bgp 65536\.100'.*asdot"):
        eos(EOS_ASDOT.replace("65111.100", "65536.100"))
    with pytest.raises(ParseError, match=r"line 8: 'neighbor 10.0.0.0 remote-as 1.99999'"):
        eos(EOS_ASDOT.replace("65110.100", "1.99999"))


def test_every_avd_5stage_device_with_asdot_is_read():
    configs = sorted((AVD / "eos_designs-twodc-5stage-clos").glob("*.cfg"))
    assert len(configs) == 25
    asdot = 0
    for path in configs:
        text = path.read_text()
        parsed = parse_device({path.name: text})
        if "\nrouter bgp " in text and "." in text.split("\nrouter bgp ", 1)[1].split()[0]:
            asdot += 1
            assert parsed.structured["bgp"]["asn"] > 65535
    assert asdot >= 5


EOS_VXLAN = """hostname leaf1
interface Loopback1
   ip address 10.1.0.1/32
interface Vxlan1
   vxlan source-interface Loopback1
   vxlan vlan 10-12 vni 10010-10012
   vxlan vlan 20 vni 10020
end
"""


def test_eos_vni_ranges_map_in_order():
    vxlan = eos(EOS_VXLAN).structured["vxlan"]
    assert vxlan["vlan_vnis"] == {"10": 10010, "11": 10011, "12": 10012, "20": 10020}


def test_vni_ranges_of_different_lengths_are_refused_naming_the_line():
    with pytest.raises(ParseError, match=r"line 6: 'vxlan vlan 10-12 vni 10010-10011': 3 VLANs but 2 VNIs"):
        eos(EOS_VXLAN.replace("10010-10012", "10010-10011"))


EOS_DHCP_V6 = """hostname leaf1
interface Ethernet1
   no switchport
   ip address dhcp
interface Ethernet2
   no switchport
   ip address 10.0.0.1/31
   ipv6 address 2001:DB8:0:0::1/64
interface Management1
   ip address dhcp
end
"""


def test_ip_address_dhcp_and_ipv6_addresses():
    parsed = eos(EOS_DHCP_V6)
    ports = {item["name"]: item for item in parsed.structured["interfaces"]}
    assert ports["Ethernet1"]["ip"] is None and ports["Ethernet1"]["dhcp"] is True
    assert ports["Ethernet2"]["ipv6"] == "2001:db8::1/64"  # RFC 5952 text
    assert parsed.structured["management"]["address"] is None
    assert parsed.unmodelled == []


def test_a_bad_ipv6_address_is_refused_naming_the_value():
    with pytest.raises(ParseError, match="not an IPv6 address/length: '2001:db8::zz/64'"):
        eos(EOS_DHCP_V6.replace("2001:DB8:0:0::1/64", "2001:db8::zz/64"))


EOS_OPTIONS = """hostname leaf1
interface Ethernet1
   no switchport
   ipv6 enable
interface Ethernet2
   no switchport
   ip address 10.0.0.1/31
   ipv6 address fd00::1/127
ip prefix-list PL-IN
   seq 10 permit 10.0.0.0/8 le 32
route-map RM-OUT permit 10
router bgp 65101
   neighbor UNDERLAY peer group
   neighbor UNDERLAY bfd
   neighbor UNDERLAY local-as 65555 no-prepend replace-as
   neighbor UNDERLAY route-map RM-OUT out
   neighbor 10.0.0.0 peer group UNDERLAY
   neighbor 10.0.0.0 remote-as 65001
   neighbor 10.0.0.0 shutdown
   neighbor FD00::0 remote-as 65001
   neighbor fd00::0 route-reflector-client
   neighbor interface Ethernet1 peer-group UNDERLAY remote-as 65001
   address-family ipv4
      neighbor UNDERLAY activate
      neighbor 10.0.0.0 prefix-list PL-IN in
      neighbor UNDERLAY next-hop address-family ipv6 originate
   address-family ipv6
      neighbor fd00:: activate
end
"""


def test_eos_neighbor_options_unnumbered_and_ipv6_neighbors():
    parsed = eos(EOS_OPTIONS)
    bgp = parsed.structured["bgp"]
    neighbors = {entry["address"] or entry["interface"]: entry for entry in bgp["neighbors"]}
    assert set(neighbors) == {"10.0.0.0", "fd00::", "Ethernet1"}
    numbered = neighbors["10.0.0.0"]
    assert numbered["shutdown"] is True
    assert numbered["local_as"] == 65555 and "bfd" not in numbered  # inherited from UNDERLAY (BFD: the group's)
    assert [(ref["kind"], ref["name"], ref["direction"]) for ref in numbered["policy_refs"]] == [
        ("prefix_list", "PL-IN", "in"), ("route_map", "RM-OUT", "out")]
    v6 = neighbors["fd00::"]
    assert v6["interface"] == "Ethernet2" and v6["route_reflector_client"] is True
    assert v6["address_families"] == ["ipv6_unicast"]
    unnumbered = neighbors["Ethernet1"]
    assert unnumbered["address"] is None and unnumbered["remote_as"] == 65001
    assert unnumbered["peer_group"] == "UNDERLAY" and unnumbered["address_families"] == ["ipv4_unicast"]
    ports = {item["name"]: item for item in parsed.structured["interfaces"]}
    assert ports["Ethernet1"]["unnumbered"] is True and ports["Ethernet2"]["unnumbered"] is False
    assert bgp["policies_defined"] == {"route_map": ["RM-OUT"], "prefix_list": ["PL-IN"]}
    assert parsed.unmodelled == []  # RM-OUT's one entry (permit, no match) is read: validators.policy applies it


def test_avd_rfc5549_neighbors_are_read_on_their_interfaces():
    text = (AVD / "evpn_underlay_rfc5549_overlay_ebgp" / "DC1-LEAF1A.cfg").read_text()
    parsed = parse_device({"DC1-LEAF1A.cfg": text})
    unnumbered = [entry for entry in parsed.structured["bgp"]["neighbors"] if entry["address"] is None]
    assert [entry["interface"] for entry in unnumbered] == ["Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4"]
    assert {entry["remote_as"] for entry in unnumbered} == {65001}
    assert not [item for item in parsed.unmodelled if item.text.startswith("neighbor interface Ethernet")]


FRR_LEAF = """frr version 10.3
frr defaults datacenter
hostname leaf1
!
interface lo
 ip address 10.255.0.1/32
 ip address 10.255.1.1/32
exit
!
interface swp1
 description to spine1 swp1
 ipv6 nd ra-interval 10
exit
!
interface swp2
 ip address 10.0.0.1/31
 ipv6 address 2001:DB8::1/127
exit
!
bfd
 profile fast
  detect-multiplier 3
 exit
exit
!
router bgp 65111.100
 bgp router-id 10.255.0.1
 neighbor fabric peer-group
 neighbor fabric remote-as external
 neighbor fabric bfd profile fast
 neighbor fabric local-as 65555 no-prepend replace-as
 neighbor swp1 interface peer-group fabric
 neighbor swp3 interface remote-as 65002
 neighbor 10.0.0.0 remote-as 65001.7
 neighbor 10.0.0.0 shutdown
 neighbor 2001:db8::0 remote-as 65001
 !
 address-family ipv4 unicast
  neighbor fabric activate
  neighbor fabric route-map IMPORT in
  neighbor 10.0.0.0 activate
  neighbor 10.0.0.0 prefix-list PL-OUT out
 exit-address-family
 !
 address-family ipv6 unicast
  neighbor 2001:db8:: activate
  neighbor 2001:db8:: route-reflector-client
 exit-address-family
exit
!
route-map IMPORT permit 10
exit
!
end
"""


def test_frr_zebra_addresses_unnumbered_peer_groups_and_options():
    parsed = parse_device({"frr.conf": FRR_LEAF}, platform="frr")
    structured = parsed.structured
    bgp = structured["bgp"]
    assert bgp["asn"] == 65111 * 65536 + 100
    assert [(lb["name"], lb["ip"], lb["purpose"]) for lb in structured["loopbacks"]] == [
        ("lo", "10.255.0.1/32", "router_id"), ("lo:1", "10.255.1.1/32", "vtep")]
    ports = {item["name"]: item for item in structured["interfaces"]}
    assert ports["swp2"]["ip"] == "10.0.0.1/31" and ports["swp2"]["ipv6"] == "2001:db8::1/127"
    assert ports["swp2"]["kind"] == "fabric"
    neighbors = {entry["address"] or entry["interface"]: entry for entry in bgp["neighbors"]}
    assert set(neighbors) == {"swp1", "swp3", "10.0.0.0", "2001:db8::"}
    swp1 = neighbors["swp1"]
    assert swp1["address"] is None and swp1["peer_group"] == "fabric"
    assert swp1["local_as"] == 65555  # inherited
    assert bgp["peer_groups"][0]["bfd"] is True and bgp["peer_groups"][0]["bfd_profile"] == "fast"
    assert "bfd" not in swp1 and "bfd_profile" not in swp1  # BFD is read on the group
    assert swp1["policy_refs"] == [{"kind": "route_map", "name": "IMPORT", "direction": "in", "line": 40}]
    assert neighbors["swp3"]["remote_as"] == 65002 and neighbors["swp3"]["address"] is None
    assert neighbors["10.0.0.0"]["remote_as"] == 65001 * 65536 + 7 and neighbors["10.0.0.0"]["shutdown"] is True
    assert neighbors["10.0.0.0"]["interface"] == "swp2"
    v6 = neighbors["2001:db8::"]
    assert v6["interface"] == "swp2" and v6["route_reflector_client"] is True
    assert v6["address_families"] == ["ipv6_unicast"]
    assert bgp["policies_defined"] == {"route_map": ["IMPORT"], "prefix_list": []}
    assert not [item for item in parsed.unmodelled if item.text.startswith(("neighbor", "ip address", "ipv6 addr"))]


def test_frr_bad_asdot_and_address_are_refused_naming_the_line():
    with pytest.raises(ParseError, match=r"line 26: 'router bgp 65111.70000'"):
        parse_device({"frr.conf": FRR_LEAF.replace("65111.100", "65111.70000")}, platform="frr")
    with pytest.raises(ParseError, match=r"line 16: 'ip address 10.0.0.300/31'"):
        parse_device({"frr.conf": FRR_LEAF.replace("10.0.0.1/31", "10.0.0.300/31")}, platform="frr")


FRR_EVPN_LEAF = AVD.parent / "dbono711" / "clab-frr-evpn-vxlan" / "leaf01" / "frr.conf"


def test_frr_evpn_leaf_multihop_extended_nexthop_and_group_export():
    """An FRR EVPN leaf (public containerlab lab): eBGP EVPN between loopbacks over peer groups."""
    text = FRR_EVPN_LEAF.read_text()
    parsed = parse_device({"frr.conf": text}, platform="frr")
    bgp = parsed.structured["bgp"]
    groups = {group["name"]: group for group in bgp["peer_groups"]}
    assert groups["OVERLAY"]["ebgp_multihop"] == 2 and groups["OVERLAY"]["extended_nexthop"] is True
    neighbors = {entry["address"]: entry for entry in bgp["neighbors"]}
    overlay, underlay = neighbors["172.29.1.1"], neighbors["172.31.1.0"]
    assert overlay["ebgp_multihop"] == 2 and overlay["update_source"] == "lo"  # inherited from OVERLAY
    assert "ebgp_multihop" not in underlay and "extended_nexthop" not in underlay
    assert underlay["route_map_out"] == "PERMIT_ALL"  # the UNDERLAY group's export policy, onto each member
    assert "route_map_out" not in overlay  # OVERLAY's is stated in l2vpn evpn, not IPv4 unicast
    assert parsed.locations["bgp router-id"] == ("frr.conf", 42)
    assert parsed.locations["bgp neighbor 172.31.1.0 remote-as"] == ("frr.conf", 54)
    unmodelled = [item.text for item in parsed.unmodelled]
    assert not [line for line in unmodelled if line.startswith(("neighbor", "bgp ", "frr defaults", "end"))]
    # broken: a hop count that is no number is refused naming the line; an export policy no route map defines
    # leaves the group's line unmodelled (the checks depending on it say incomplete)
    with pytest.raises(ParseError, match=r"line 46: 'neighbor OVERLAY ebgp-multihop two'"):
        parse_device({"frr.conf": text.replace("ebgp-multihop 2", "ebgp-multihop two")}, platform="frr")
    missing = parse_device({"frr.conf": text.replace("route-map PERMIT_ALL out", "route-map NOWHERE out", 1)},
                           platform="frr")
    assert "neighbor UNDERLAY route-map NOWHERE out" in [item.text for item in missing.unmodelled]
    assert "route_map_out" not in {entry["address"]: entry for entry in missing.structured["bgp"]["neighbors"]}[
        "172.31.1.0"]


def test_frr_redistribute_connected_through_a_permit_all_route_map():
    """``redistribute connected route-map CONNECTED`` whose map permits everything unchanged is read as plain
    ``redistribute connected``; a map that filters (a match clause) or is not defined leaves it unmodelled."""
    text = FRR_EVPN_LEAF.read_text()
    unmodelled = [item.text for item in parse_device({"frr.conf": text}, platform="frr").unmodelled]
    assert not [line for line in unmodelled if line.startswith(("redistribute", "route-map"))]
    filtering = text.replace("route-map CONNECTED permit 10\n", "route-map CONNECTED permit 10\n"
                             " match interface lo\n")
    unmodelled = [item.text for item in parse_device({"frr.conf": filtering}, platform="frr").unmodelled]
    assert "redistribute connected route-map CONNECTED" in unmodelled
    undefined = text.replace("route-map CONNECTED permit 10\nexit\n", "")
    unmodelled = [item.text for item in parse_device({"frr.conf": undefined}, platform="frr").unmodelled]
    assert "redistribute connected route-map CONNECTED" in unmodelled


def _routing(structured: dict) -> dict:
    """The routing facts these features carry, with reference line numbers dropped (a rendered text numbers its
    lines differently)."""
    def neighbor(entry: dict) -> dict:
        refs = sorted(({key: value for key, value in ref.items() if key != "line"}
                       for ref in entry.get("policy_refs", ())), key=str)  # stated in any order
        return {**entry, "policy_refs": refs, "description": None}  # EOS prints no description on `interface`
    bgp = structured["bgp"]
    return {"asn": bgp["asn"], "neighbors": sorted((neighbor(entry) for entry in bgp["neighbors"]), key=str),
            "ports": {item["name"]: (item["ip"], item.get("ipv6"), item.get("dhcp"), item["unnumbered"],
                                     item.get("igp")) for item in structured["interfaces"] if item["kind"] != "unused"},
            # FRR's plan renames zebra's `lo` addresses Loopback0, Loopback1, ...: compared by address and purpose
            "loopbacks": [(item["ip"], item["purpose"], item.get("igp")) for item in structured["loopbacks"]],
            "management": structured["management"], "igp": structured.get("igp")}


@pytest.mark.parametrize(("text", "platform", "file_name"), [
    (EOS_OPTIONS, "eos", "startup-config"), (EOS_DHCP_V6, "eos", "startup-config"),
    (EOS_ASDOT, "eos", "startup-config"), (FRR_LEAF, "frr", "frr.conf"),
    ((AVD / "evpn_underlay_rfc5549_overlay_ebgp" / "DC1-LEAF1A.cfg").read_text(), "eos", "startup-config"),
    ((AVD / "evpn_underlay_ospf_overlay_ebgp" / "DC1-LEAF1A.cfg").read_text(), "eos", "startup-config"),
    ((AVD / "evpn_underlay_isis_overlay_ibgp" / "DC1-SPINE1.cfg").read_text(), "eos", "startup-config"),
    ((AVD.parent / "containerlab" / "frr01" / "router2" / "frr.conf").read_text(), "frr", "frr.conf"),
    (FRR_EVPN_LEAF.read_text(), "frr", "frr.conf"),
], ids=["eos-options", "eos-dhcp-ipv6", "eos-asdot", "frr-leaf", "avd-rfc5549-leaf", "avd-ospf-leaf",
        "avd-isis-rr-spine", "containerlab-frr-ospf", "frr-evpn-leaf"])
def test_render_of_parse_keeps_the_routing_features(text, platform, file_name):
    """render(parse(text)) prints no None and parses back to the same routing facts; this is parse(render(s))
    for the structured config s the first parse built, so both round trips hold for the new fields."""
    first = parse_device({file_name: text}, platform=platform)
    files = render_device(first.structured, platform)
    assert not [line for body in files.values() for line in body.splitlines() if "None" in line]
    again = parse_device(files, platform=platform)
    assert _routing(again.structured) == _routing(first.structured)


# ------------------------------------------------------------------------------------------- OSPF / IS-IS
def test_eos_ospf_underlay_from_avd():
    parsed = parse_device({"x.cfg": (AVD / "evpn_underlay_ospf_overlay_ebgp" / "DC1-LEAF1A.cfg").read_text()})
    structured = parsed.structured
    assert structured["igp"] == {"protocol": "ospf", "process": "101", "router_id": "192.168.255.5", "net": None,
                                 "level": None, "maximum_paths": None}
    uplink = next(item for item in structured["interfaces"] if item["name"] == "Ethernet1")
    assert uplink["igp"] == {"protocol": "ospf", "area": "0.0.0.0", "level": None, "point_to_point": True,
                             "passive": False, "metric": None, "authentication": "message-digest"}
    loopbacks = {item["name"]: item["igp"]["passive"] for item in structured["loopbacks"]}
    assert loopbacks == {"Loopback0": True, "Loopback1": True}  # passive-interface default
    assert not [item for item in parsed.unmodelled
                if item.text.startswith(("router ospf", "ip ospf area", "ip ospf network", "passive-interface",
                                         "no passive-interface", "router-id"))]


def test_eos_isis_underlay_from_avd():
    parsed = parse_device({"x.cfg": (AVD / "evpn_underlay_isis_overlay_ibgp" / "DC1-LEAF1A.cfg").read_text()})
    structured = parsed.structured
    assert structured["igp"]["net"] == "49.0001.1921.6825.5005.00" and structured["igp"]["level"] == "level-2"
    assert structured["igp"]["maximum_paths"] == 4
    uplink = next(item for item in structured["interfaces"] if item["name"] == "Ethernet1")
    assert uplink["igp"] == {"protocol": "isis", "area": None, "level": "level-2", "point_to_point": True,
                             "passive": False, "metric": 50}
    assert not [item for item in parsed.unmodelled if item.text.startswith(("isis ", "router isis", "net "))]


def test_frr_ospf_network_statements_from_containerlab():
    text = (AVD.parent / "containerlab" / "frr01" / "router2" / "frr.conf").read_text()
    structured = parse_device({"frr.conf": text}, platform="frr").structured
    ports = {item["name"]: item for item in structured["interfaces"]}
    assert ports["eth1"]["ip"] == "192.168.1.2/24" and ports["eth1"]["igp"]["area"] == "0.0.0.0"
    assert ports["eth1"]["igp"]["passive"] is False and ports["eth3"]["igp"]["passive"] is True
    assert "igp" not in structured["loopbacks"][0]  # 10.10.10.2/32: no network statement covers it


FRR_ISIS = """frr version 10.3
hostname leaf1
interface lo
 ip address 10.255.0.1/32
 ip router isis UNDERLAY
 isis passive
exit
interface swp1
 ip address 10.0.0.1/31
 ip router isis UNDERLAY
 isis network point-to-point
 isis circuit-type level-2-only
 isis metric 20
exit
router isis UNDERLAY
 net 49.0001.0000.0000.0001.00
 is-type level-2-only
exit
"""


def test_frr_isis_underlay():
    parsed = parse_device({"frr.conf": FRR_ISIS}, platform="frr")
    structured = parsed.structured
    assert structured["igp"]["protocol"] == "isis" and structured["igp"]["level"] == "level-2"
    assert structured["loopbacks"][0]["igp"]["passive"] is True
    port = structured["interfaces"][0]
    assert port["igp"] == {"protocol": "isis", "area": None, "level": "level-2", "point_to_point": True,
                           "passive": False, "metric": 20}
    assert parsed.unmodelled == []


def test_frr_isis_round_trip():
    test_render_of_parse_keeps_the_routing_features(FRR_ISIS, "frr", "frr.conf")
    rendered = render_device(parse_device({"frr.conf": FRR_ISIS}, platform="frr").structured, "frr")["frr.conf"]
    assert "router isis UNDERLAY\n net 49.0001.0000.0000.0001.00\n is-type level-2-only\nexit\n" in rendered
