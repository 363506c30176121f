"""bgp.sessions on routing features of foreign configs: IPv6 neighbors, RFC 5549 unnumbered sessions, neighbor
shutdown, local-as and route maps / prefix lists named but not defined. Each has a passing and a broken case;
the RFC 5549 fabric is Arista AVD's (tests/data/corpus/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

from compiler.api import render_device
from compiler.parse import parse_device
from validators.configs import validate_configs

AVD_5549 = Path(__file__).resolve().parents[1] / "data" / "corpus" / "avd" / "evpn_underlay_rfc5549_overlay_ebgp"


def device(hostname: str, asn: int, address: str, peer: str, remote_as: int, extra: str = "",
           address_line: str = "") -> dict[str, str]:
    v6 = ":" in address
    family = "ipv6" if v6 else "ipv4"
    return {"startup-config": f"""hostname {hostname}
interface Ethernet1
   no switchport
   {address_line or (f"ipv6 address {address}/127" if v6 else f"ip address {address}/31")}
!
router bgp {asn}
   router-id 10.255.0.{asn % 250}
   neighbor {peer} remote-as {remote_as}
{extra}   address-family {family}
      neighbor {peer} activate
end
"""}


def sessions(configs: dict[str, dict[str, str]]):
    validation = validate_configs(configs, checks=["bgp.sessions"])
    return validation, [f for f in validation.report.findings if f.check == "bgp.sessions"]


def test_an_ipv6_session_establishes():
    validation, findings = sessions({"leaf1": device("leaf1", 65101, "fd00::1", "fd00::", 65001),
                                     "spine1": device("spine1", 65001, "fd00::", "fd00::1", 65101)})
    assert findings == []
    assert len(validation.report.context.sessions.established) == 1


def test_an_ipv6_session_with_the_wrong_remote_as_is_an_error():
    _, findings = sessions({"leaf1": device("leaf1", 65101, "fd00::1", "fd00::", 65001),
                            "spine1": device("spine1", 65001, "fd00::", "fd00::1", 65102)})
    assert [(f.severity, f.message) for f in findings] == [
        ("error", "session down: spine1 expects leaf1 in AS 65102 but leaf1 is AS 65101")]


def test_local_as_is_the_as_the_peer_sees():
    leaf = device("leaf1", 65101, "10.0.0.1", "10.0.0.0", 65001, extra="   neighbor 10.0.0.0 local-as 65555\n")
    _, findings = sessions({"leaf1": leaf, "spine1": device("spine1", 65001, "10.0.0.0", "10.0.0.1", 65555)})
    assert findings == []
    _, findings = sessions({"leaf1": leaf, "spine1": device("spine1", 65001, "10.0.0.0", "10.0.0.1", 65101)})
    assert [f.message for f in findings] == ["session down: spine1 expects leaf1 in AS 65101 but leaf1 is AS 65555"]


def test_a_shut_neighbor_is_a_warning_not_an_error():
    leaf = device("leaf1", 65101, "10.0.0.1", "10.0.0.0", 65001, extra="   neighbor 10.0.0.0 shutdown\n")
    validation, findings = sessions({"leaf1": leaf, "spine1": device("spine1", 65001, "10.0.0.0", "10.0.0.1", 65101)})
    assert [(f.severity, f.message) for f in findings] == [
        ("warning", "session administratively down: neighbor shutdown on leaf1")]
    assert validation.report.context.sessions.established == []


def test_a_route_map_named_but_not_defined_is_an_error_citing_the_line():
    extra = "   neighbor 10.0.0.0 route-map RM-IN in\n"
    defined = "route-map RM-IN permit 10\n!\n"
    spine = device("spine1", 65001, "10.0.0.0", "10.0.0.1", 65101)
    leaf = device("leaf1", 65101, "10.0.0.1", "10.0.0.0", 65001, extra=extra)
    _, findings = sessions({"leaf1": {"startup-config": defined + leaf["startup-config"]}, "spine1": spine})
    assert findings == []
    _, findings = sessions({"leaf1": leaf, "spine1": spine})
    assert [(f.severity, f.message) for f in findings] == [
        ("error", "leaf1 line 9: neighbor 10.0.0.0 route-map RM-IN in names a route-map the config does not "
                  "define")]


def _avd_5549() -> dict[str, dict[str, str]]:
    return {path.stem: {path.name: path.read_text()} for path in sorted(AVD_5549.glob("*.cfg"))}


def test_avd_rfc5549_unnumbered_sessions_pair_on_the_cable():
    validation, findings = sessions(_avd_5549())
    unnumbered = [s for s in validation.report.context.sessions.established if s.a_interface.startswith("Ethernet")
                  and s.a.startswith("DC1-LEAF1A")]
    assert len(unnumbered) == 4  # LEAF1A's four uplinks, RFC 5549
    assert not [f for f in findings if "unnumbered" in f.message or "one-sided" in f.message]


def test_avd_rfc5549_neighbor_removed_on_one_end_is_one_sided():
    configs = _avd_5549()
    spine = configs["DC1-SPINE1"]["DC1-SPINE1.cfg"]
    line = next(text for text in spine.splitlines() if text.startswith("   neighbor interface Ethernet1 "))
    configs["DC1-SPINE1"] = {"DC1-SPINE1.cfg": spine.replace(line + "\n", "")}
    _, findings = sessions(configs)
    one_sided = sorted(f.subject for f in findings if "one-sided" in f.message)
    # The underlay session, and the EVPN session between the loopbacks that no longer rides on it.
    assert one_sided == ["DC1-LEAF1A:Ethernet1<->DC1-SPINE1:Ethernet1", "DC1-SPINE1:Loopback0<->DC1-LEAF1A:Loopback0"]


def frr(hostname: str, asn: int, peer: str, neighbor: str = " neighbor swp1 interface remote-as external\n") -> dict:
    return {"frr.conf": f"""frr version 10.3
hostname {hostname}
interface swp1
 description {peer} swp1
exit
router bgp {asn}
 bgp router-id 10.255.0.{asn % 250}
{neighbor} address-family ipv4 unicast
  neighbor swp1 activate
 exit-address-family
exit
"""}


def test_frr_rfc5549_sessions_pair_on_mutual_descriptions():
    validation, findings = sessions({"leaf1": frr("leaf1", 65101, "spine1"), "spine1": frr("spine1", 65001, "leaf1")})
    assert findings == []
    assert [str(s) for s in validation.report.context.sessions.established] == ["leaf1:swp1<->spine1:swp1"]


def test_frr_rfc5549_neighbor_with_no_peer_statement_is_one_sided():
    _, findings = sessions({"leaf1": frr("leaf1", 65101, "spine1"),
                            "spine1": frr("spine1", 65001, "leaf1", neighbor="")})
    assert [f.message for f in findings] == [
        "one-sided session: leaf1:swp1 peers with spine1 but spine1 has no neighbor statement for leaf1 on swp1"]


def test_frr_rfc5549_neighbor_on_a_port_with_no_known_peer_is_an_error():
    _, findings = sessions({"leaf1": frr("leaf1", 65101, "nobody")})
    assert [f.message for f in findings] == [
        "leaf1:swp1 unnumbered neighbor has no switch at the other end of the cable"]


def test_frr_remote_as_external_to_the_same_as_is_an_error():
    _, findings = sessions({"leaf1": frr("leaf1", 65001, "spine1"), "spine1": frr("spine1", 65001, "leaf1")})
    assert {f.message for f in findings} == {
        "session down: leaf1 expects spine1 in AS external but spine1 is AS 65001",
        "session down: spine1 expects leaf1 in AS external but leaf1 is AS 65001"}


def test_avd_rfc5549_mlag_peers_pair_over_their_peer_svi():
    validation, findings = sessions(_avd_5549())
    pairs = {str(s) for s in validation.report.context.sessions.established if s.a_interface.startswith("Vlan")}
    assert "DC1-LEAF2A:Vlan4093<->DC1-LEAF2B:Vlan4093" in pairs
    assert not [f for f in findings if "Vlan4093" in f.subject]


def test_avd_rfc5549_mlag_peer_svi_session_with_a_wrong_as_is_an_error():
    configs = _avd_5549()
    text = configs["DC1-LEAF2A"]["DC1-LEAF2A.cfg"]
    configs["DC1-LEAF2A"] = {"DC1-LEAF2A.cfg": text.replace(
        "neighbor interface Vlan4093 peer-group MLAG_PEER remote-as 65102", "neighbor interface Vlan4093 peer-group "
        "MLAG_PEER remote-as 65199")}
    _, findings = sessions(configs)
    assert [f.message for f in findings if "Vlan4093" in f.subject] == [
        "session down: DC1-LEAF2A expects DC1-LEAF2B in AS 65199 but DC1-LEAF2B is AS 65102"]


def test_frr_listen_range_accepts_a_dynamic_neighbor():
    spine = {"frr.conf": """frr version 10.3
hostname spine1
interface swp1
 ip address 10.0.0.0/31
exit
router bgp 65001
 bgp router-id 10.255.0.1
 neighbor LEAVES peer-group
 neighbor LEAVES remote-as external
 bgp listen range 10.0.0.0/24 peer-group LEAVES
 address-family ipv4 unicast
  neighbor LEAVES activate
 exit-address-family
exit
"""}
    leaf = {"frr.conf": """frr version 10.3
hostname leaf1
interface swp1
 ip address 10.0.0.1/31
exit
router bgp 65101
 bgp router-id 10.255.0.2
 neighbor 10.0.0.0 remote-as 65001
 address-family ipv4 unicast
  neighbor 10.0.0.0 activate
 exit-address-family
exit
"""}
    validation, findings = sessions({"leaf1": leaf, "spine1": spine})
    assert findings == [] and len(validation.report.context.sessions.established) == 1
    spine_same_as = {"frr.conf": spine["frr.conf"].replace("router bgp 65001", "router bgp 65101")}
    _, findings = sessions({"leaf1": leaf, "spine1": spine_same_as})
    assert [f.message for f in findings] == [
        "one-sided session: leaf1:swp1 peers with spine1 but spine1 has no neighbor statement for leaf1 on swp1"]
    parsed = parse_device(spine, platform="frr").structured
    again = parse_device(render_device(parsed, "frr"), platform="frr").structured
    assert parsed["bgp"]["listen_ranges"] == again["bgp"]["listen_ranges"] == [
        {"name": "LEAVES", "prefixes": ["10.0.0.0/24"], "remote_as": "external"}]
