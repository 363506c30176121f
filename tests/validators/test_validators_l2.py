"""Checks over Layer 2 read from real configs (Arista AVD L2LS and MLAG EVPN examples, tests/data/avd_l2):
mlag.peers, mtu.port_channels, the MLAG iBGP session over the peer SVI in bgp.sessions, L2-only VLANs in the
overlay checks and L2-only leaves in VTEP reachability. Each check has a passing case and a broken one whose
finding cites the faulted line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from validators.configs import validate_configs
from validators.mlag import mlag_pairs
from validators.sessions import build_sessions

DATA = Path(__file__).resolve().parents[1] / "data" / "avd_l2"
L2LS = ("LEAF1", "LEAF2", "SPINE1", "SPINE2")
MLAG_EVPN = ("dc1-leaf1a", "dc1-leaf1b")


def configs(prefix: str, hosts, edits: dict[str, tuple[str, str]] | None = None) -> dict[str, dict[str, str]]:
    out = {}
    for host in hosts:
        text = (DATA / f"{prefix}-{host}.cfg").read_text()
        if edits and host in edits:
            old, new = edits[host]
            assert old in text
            text = text.replace(old, new, 1)
        out[host] = {"startup-config": text}
    return out


def findings(result, check: str, severity: str = "error"):
    return [finding for finding in result.report.checks[check].findings if finding.severity == severity]


def line_of(host: str, prefix: str, text: str, hosts) -> str:
    lines = configs(prefix, hosts)[host]["startup-config"].splitlines()
    return f"{host}/startup-config:{lines.index(text) + 1}"


@pytest.fixture(scope="module")
def l2ls():
    return validate_configs(configs("l2ls-fabric", L2LS))


def test_l2ls_fabric_has_no_l2_false_errors(l2ls):
    for check in ("mlag.peers", "mtu.port_channels", "overlay.vlan_vni", "overlay.route_targets",
                  "routing.vtep_reachability", "bgp.sessions", "mtu.overlay_budget"):
        assert check in l2ls.report.checks
        assert findings(l2ls, check) == [], check
    assert l2ls.report.checks["mlag.peers"].status == "passed"


def test_mismatched_mlag_domain_id_is_caught_on_both_lines():
    result = validate_configs(configs("l2ls-fabric", L2LS, {"LEAF2": ("domain-id RACK1", "domain-id RACK9")}))
    (finding,) = findings(result, "mlag.peers")
    assert (finding.expected, finding.actual) == ("RACK1", "RACK9")
    assert result.where(finding) == [line_of("LEAF1", "l2ls-fabric", "   domain-id RACK1", L2LS),
                                     line_of("LEAF2", "l2ls-fabric", "   domain-id RACK1", L2LS)]


def test_missing_peer_link_is_caught_on_its_line():
    result = validate_configs(configs("l2ls-fabric", L2LS, {"SPINE1": ("peer-link Port-Channel47",
                                                                      "peer-link Port-Channel48")}))
    (finding,) = findings(result, "mlag.peers")
    assert "Port-Channel48 is not a port-channel with members" in finding.message
    assert result.where(finding) == [line_of("SPINE1", "l2ls-fabric", "   peer-link Port-Channel47", L2LS)]


def test_peer_address_off_the_local_subnet_is_caught():
    result = validate_configs(configs("l2ls-fabric", L2LS, {"LEAF1": ("peer-address 192.168.0.1",
                                                                     "peer-address 192.168.1.1")}))
    messages = [finding.message for finding in findings(result, "mlag.peers")]
    assert any("192.168.1.1 is not on the subnet of local-interface Vlan4094" in message for message in messages)


def test_dual_attached_bundle_on_one_peer_only_is_caught():
    result = validate_configs(configs("l2ls-fabric", L2LS, {"SPINE2": ("   mlag 5\n", "")}))
    (finding,) = findings(result, "mlag.peers")
    assert "SPINE1:Port-Channel5 is MLAG 5 but SPINE2 has no MLAG 5" in finding.message
    assert result.where(finding) == [line_of("SPINE1", "l2ls-fabric", "   mlag 5", L2LS)]


def test_a_peer_outside_the_set_is_a_warning_not_an_error():
    result = validate_configs(configs("l2ls-fabric", ("LEAF1",)))
    assert findings(result, "mlag.peers") == []
    assert [finding.subject for finding in findings(result, "mlag.peers", "warning")] == ["LEAF1:mlag peer-address"]


def test_members_of_a_bundle_without_an_mtu_carry_one_mtu():
    member = "interface Ethernet48\n   description MLAG_LEAF2_Ethernet48\n"
    other = "interface Ethernet47\n   description MLAG_LEAF2_Ethernet47\n"
    both = {"LEAF1": (member, member + "   mtu 9214\n")}
    text = configs("l2ls-fabric", L2LS, both)["LEAF1"]["startup-config"].replace(other, other + "   mtu 9214\n")
    result = validate_configs({**configs("l2ls-fabric", L2LS), "LEAF1": {"startup-config": text}})
    assert findings(result, "mtu.port_channels") == []  # both members at 9214: one MTU
    result = validate_configs(configs("l2ls-fabric", L2LS, both))  # Ethernet47 left at the default
    (finding,) = findings(result, "mtu.port_channels")
    assert finding.subject == "LEAF1:Ethernet48 mtu" and "Ethernet47 default" in finding.message
    lines = configs("l2ls-fabric", L2LS, both)["LEAF1"]["startup-config"].splitlines()
    assert result.where(finding)[0] == f"LEAF1/startup-config:{lines.index('   mtu 9214') + 1}"


def test_member_mtu_differing_from_the_bundle_is_caught_on_its_line():
    bundle = "interface Port-Channel47\n   description MLAG_LEAF2_Port-Channel47\n"
    member = "interface Ethernet48\n   description MLAG_LEAF2_Ethernet48\n"
    result = validate_configs(configs("l2ls-fabric", L2LS, {"LEAF1": (bundle, bundle + "   mtu 9214\n")}))
    assert findings(result, "mtu.port_channels") == []  # members inherit the bundle's MTU
    text = configs("l2ls-fabric", L2LS)["LEAF1"]["startup-config"].replace(bundle, bundle + "   mtu 9214\n")
    text = text.replace(member, member + "   mtu 1500\n")
    result = validate_configs({**configs("l2ls-fabric", L2LS), "LEAF1": {"startup-config": text}})
    (finding,) = findings(result, "mtu.port_channels")
    assert (finding.subject, finding.expected, finding.actual) == ("LEAF1:Ethernet48 mtu", 9214, 1500)
    assert result.where(finding)[0] == f"LEAF1/startup-config:{text.splitlines().index('   mtu 1500') + 1}"


def test_mlag_ibgp_session_over_the_peer_svi_is_established():
    result = validate_configs(configs("single-dc-l3ls", MLAG_EVPN))
    assert not [f for f in findings(result, "bgp.sessions") if "Vlan4093" in f.subject or "10.255.1.9" in f.message]
    assert result.report.checks["mlag.peers"].status == "passed"


def test_mlag_ibgp_session_to_a_wrong_address_is_caught():
    result = validate_configs(configs("single-dc-l3ls", MLAG_EVPN, {
        "dc1-leaf1a": ("neighbor 10.255.1.97 peer group", "neighbor 10.255.1.99 peer group")}))
    # The edit leaves `neighbor 10.255.1.97 description ...` behind: a neighbor with no remote-as, never started.
    subjects = [finding.subject for finding in findings(result, "bgp.sessions")]
    assert any(subject.endswith(("neighbor 10.255.1.99", "neighbor 10.255.1.97")) or "Vlan4093" in subject
               for subject in subjects)


def test_vlans_without_vni_next_to_vxlan_are_l2_only():
    result = validate_configs(configs("single-dc-l3ls", MLAG_EVPN))
    assert findings(result, "overlay.vlan_vni") == []  # VLANs 3009, 4093, 4094 have no VNI: L2-only


def test_a_vni_missing_on_one_carrier_is_still_caught():
    result = validate_configs(configs("single-dc-l3ls", MLAG_EVPN, {"dc1-leaf1b": ("   vxlan vlan 11 vni 10011\n",
                                                                                  "")}))
    assert any("VRF10_VLAN11" in finding.subject for finding in findings(result, "overlay.vlan_vni"))


def test_an_mlag_pair_shares_one_asn_and_one_vtep():
    result = validate_configs(configs("single-dc-l3ls", MLAG_EVPN))
    assert findings(result, "bgp.asns") == [] and findings(result, "routing.vtep_reachability") == []


def test_an_mlag_pair_shares_its_vtep_without_a_described_peer_link():
    """AVD describes the peer-link members as MLAG_<peer>_<port>, which names no peer device: the pair is known
    from the MLAG configuration (each names the other's peer address), the shared VTEP is by design."""
    assert findings(validate_configs(configs("single-dc-l3ls", MLAG_EVPN)), "overlay.flood_lists") == []
    result = validate_configs(configs("single-dc-l3ls", MLAG_EVPN, {"dc1-leaf1b": ("peer-address 10.255.1.64",
                                                                                  "peer-address 10.255.1.66")}))
    assert sorted(finding.subject for finding in findings(result, "overlay.flood_lists")) == ["dc1-leaf1a",
                                                                                              "dc1-leaf1b"]


def test_an_mlag_peer_address_reused_on_the_peers_vrf_svis_still_names_the_peer():
    """AVD gives a pair's VRF iBGP SVIs the MLAG peer addresses again (evpn_underlay_ebgp_overlay_ebgp, public
    corpus): one device owning the address on several SVIs is still one peer."""
    corpus = DATA.parent / "corpus" / "avd" / "evpn_underlay_ebgp_overlay_ebgp"
    pair = {host: {"startup-config": (corpus / f"{host}.cfg").read_text()} for host in ("DC1-SVC3A", "DC1-SVC3B")}
    structured = {host: device.structured for host, device in validate_configs(pair).devices.items()}
    assert mlag_pairs(structured) == {"DC1-SVC3A": "DC1-SVC3B", "DC1-SVC3B": "DC1-SVC3A"}
    pair["DC1-SVC3B"]["startup-config"] = pair["DC1-SVC3B"]["startup-config"].replace(
        "   peer-address 10.255.252.6", "   peer-address 10.255.252.9")
    structured = {host: device.structured for host, device in validate_configs(pair).devices.items()}
    assert mlag_pairs(structured) == {}


def test_hosts_of_an_mlag_pair_bridge_without_a_route_between_its_members():
    """evpn_underlay_ebgp_overlay_ebgp (public corpus): DC1-SVC3A/B share one VTEP, so neither needs a route to
    the other's; with the pair broken (a wrong peer-address) the same network is cut."""
    corpus = DATA.parent / "corpus" / "avd" / "evpn_underlay_ebgp_overlay_ebgp"
    fabric = {path.stem: {"startup-config": path.read_text()} for path in sorted(corpus.glob("*.cfg"))}
    cut = "DC1-SVC3A has no route to the VTEP of DC1-SVC3B"
    result = validate_configs(fabric)
    assert not any(cut in finding.message for finding in findings(result, "overlay.host_reachability"))
    text = fabric["DC1-SVC3B"]["startup-config"].replace("   peer-address 10.255.252.6", "   peer-address 10.255.252.9")
    result = validate_configs({**fabric, "DC1-SVC3B": {"startup-config": text}})
    assert any(cut in finding.message for finding in findings(result, "overlay.host_reachability"))


def test_two_leaves_sharing_an_asn_without_being_mlag_peers_are_caught():
    result = validate_configs(configs("single-dc-l3ls", MLAG_EVPN, {"dc1-leaf1b": ("peer-address 10.255.1.64",
                                                                                  "peer-address 10.255.1.66")}))
    assert sorted(finding.subject for finding in findings(result, "bgp.asns")) == ["dc1-leaf1a", "dc1-leaf1b"]


def test_ibgp_over_a_peer_subnet_every_pair_reuses():
    """AVD L2LS gives every MLAG pair 192.168.0.0/31 on Vlan4094: each session pairs with the device that peers
    back, not with whichever device was read last."""
    def bgp(asn: int, neighbor: str) -> str:
        return f"router bgp {asn}\n   router-id 10.0.0.{asn % 100}\n   neighbor {neighbor} remote-as {asn}\n" \
               f"   address-family ipv4\n      neighbor {neighbor} activate\n"
    tails = {"LEAF1": bgp(65001, "192.168.0.1"), "LEAF2": bgp(65001, "192.168.0.0"),
             "SPINE1": bgp(65000, "192.168.0.1"), "SPINE2": bgp(65000, "192.168.0.0")}
    sets = {host: {"startup-config": files["startup-config"].replace("\nend\n", "\n" + tails[host] + "end\n")}
            for host, files in configs("l2ls-fabric", L2LS).items()}
    result = validate_configs(sets)
    assert findings(result, "bgp.sessions") == []
    established = build_sessions({host: device.structured for host, device in result.devices.items()}).established
    assert sorted(str(session) for session in established) == ["LEAF1:Vlan4094<->LEAF2:Vlan4094",
                                                               "SPINE1:Vlan4094<->SPINE2:Vlan4094"]
    sets["SPINE2"]["startup-config"] = sets["SPINE2"]["startup-config"].replace("remote-as 65000", "remote-as 65009")
    (finding,) = findings(validate_configs(sets), "bgp.sessions")
    assert "SPINE2 expects SPINE1 in AS 65009" in finding.message


def test_svi_mtu_judges_gateways_not_mlag_peer_svis():
    server_port = "interface Ethernet5\n   description SERVER_dc1-leaf1-server1_PCI1\n"
    gateway = "interface Vlan11\n   description VRF10_VLAN11\n"
    edits = {"dc1-leaf1a": (server_port, server_port + "   mtu 9214\n")}
    result = validate_configs(configs("single-dc-l3ls", MLAG_EVPN, edits))
    assert findings(result, "mtu.svi") == []  # Vlan4093/4094 (MTU 1500) are peer SVIs, not gateways
    text = configs("single-dc-l3ls", MLAG_EVPN, edits)["dc1-leaf1a"]["startup-config"].replace(
        gateway, gateway + "   mtu 1500\n")
    result = validate_configs({**configs("single-dc-l3ls", MLAG_EVPN), "dc1-leaf1a": {"startup-config": text}})
    assert [finding.subject for finding in findings(result, "mtu.svi")] == ["dc1-leaf1a:Vlan11"]


def test_peer_link_without_the_peer_vlan_trunk_group_is_caught():
    result = validate_configs(configs("l2ls-fabric", L2LS, {"LEAF2": (
        "   switchport mode trunk\n   switchport trunk group MLAG\n", "   switchport mode trunk\n")}))
    (finding,) = findings(result, "mlag.peers")
    assert "LEAF2: MLAG peer-link Port-Channel47 does not carry the VLAN of local-interface Vlan4094" in finding.message
    assert result.where(finding) == [line_of("LEAF2", "l2ls-fabric", "interface Port-Channel47", L2LS)]


def test_sonic_member_mtu_differing_from_its_portchannel_is_caught():
    def config_db(member_mtu: str) -> str:
        ports = {name: {"admin_status": "up", "mtu": "9100", "speed": "100000", "lanes": "1,2,3,4"}
                 for name in ("Ethernet0", "Ethernet4")}
        ports["Ethernet4"]["mtu"] = member_mtu
        return json.dumps({
            "DEVICE_METADATA": {"localhost": {"hostname": "t1", "type": "LeafRouter"}}, "PORT": ports,
            "PORTCHANNEL": {"PortChannel0002": {"admin_status": "up", "mtu": "9100", "min_links": "1"}},
            "PORTCHANNEL_MEMBER": {"PortChannel0002|Ethernet0": {}, "PortChannel0002|Ethernet4": {}},
            "PORTCHANNEL_INTERFACE": {"PortChannel0002": {}, "PortChannel0002|10.0.0.0/31": {}}}, indent=4)

    assert findings(validate_configs({"t1": {"config_db.json": config_db("9100")}}), "mtu.port_channels") == []
    text = config_db("1500")
    result = validate_configs({"t1": {"config_db.json": text}})
    (finding,) = findings(result, "mtu.port_channels")
    assert (finding.subject, finding.expected, finding.actual) == ("t1:Ethernet4 mtu", 9100, 1500)
    # The member's own `mtu` field (the SONiC reader locates fields, not only rows).
    mtu_field = next(number for number, line in enumerate(text.splitlines(), 1) if '"mtu": "1500"' in line)
    assert result.where(finding) == [f"t1/config_db.json:{mtu_field}"]
