"""bgp.sessions pairs tenant VRF neighbors (bgp.vrfs[].neighbors) within their VRF: the MLAG pair's per-VRF iBGP
over a peer SVI (what AVD's L3 leaves carry), with passing and broken cases; the same address in two VRFs is two
sessions; an address outside the set is an external peer; and VRF neighbors no longer make bgp.sessions
incomplete (only bgp.timers_bfd, which does not examine them)."""

from __future__ import annotations

from pathlib import Path

from validators.configs import validate_configs
from validators.findings import CheckStatus

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus" / "avd"


def leaf(hostname: str, own: str, peer: str, vrf: str = "VRF10", neighbor_as: str = "", group_as: int = 65101,
         vrf_neighbor: bool = True, second_vrf: str = "") -> dict[str, str]:
    """One of an MLAG pair's leaves (AS 65101): VLAN 3009's SVI in ``vrf`` with ``own``/31, a VRF neighbor toward
    ``peer`` through the peer group (``neighbor_as``: its own remote-as line instead). ``second_vrf``: VLAN 3010's
    SVI in that VRF with the same addresses and its own neighbor (AVD reuses one /31 per VRF)."""
    statement = (f"      neighbor {peer} peer group MLAG-PEER\n"
                 + (f"      neighbor {peer} remote-as {neighbor_as}\n" if neighbor_as else "")) if vrf_neighbor else ""
    text = f"""hostname {hostname}
vlan 3009
   name MLAG_VRF10
!
vrf instance {vrf}
!
interface Vlan3009
   vrf {vrf}
   ip address {own}/31
!
"""
    if second_vrf:
        text += f"""vlan 3010
   name MLAG_VRF11
!
vrf instance {second_vrf}
!
interface Vlan3010
   vrf {second_vrf}
   ip address {own}/31
!
"""
    text += f"""interface Loopback0
   ip address 10.255.0.{1 if hostname.endswith('a') else 2}/32
!
ip routing
ip routing vrf {vrf}
!
router bgp 65101
   router-id 10.255.0.{1 if hostname.endswith('a') else 2}
   neighbor MLAG-PEER peer group
   neighbor MLAG-PEER remote-as {group_as}
   !
   vrf {vrf}
      rd 10.255.0.1:10
{statement}"""
    if second_vrf:
        text += f"   !\n   vrf {second_vrf}\n      rd 10.255.0.1:11\n      neighbor {peer} peer group MLAG-PEER\n"
    return {"startup-config": text + "end\n"}


def run(configs: dict[str, dict[str, str]]):
    validation = validate_configs(configs, checks=["bgp.sessions", "bgp.timers_bfd"])
    findings = [(f.severity, f.message) for f in validation.report.findings if f.check == "bgp.sessions"]
    return validation, findings


def test_the_mlag_pairs_vrf_session_establishes_and_is_examined():
    validation, findings = run({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.97"),
                                "leaf1b": leaf("leaf1b", "10.255.1.97", "10.255.1.96")})
    assert findings == []
    table = validation.report.context.sessions
    assert [(vrf, str(session)) for vrf, session in table.vrf_established] == [
        ("VRF10", "leaf1a:Vlan3009<->leaf1b:Vlan3009")]
    sessions = validation.report.checks["bgp.sessions"]
    assert sessions.examined == {"BGP neighbors": 0, "VRF BGP neighbors": 2}
    assert sessions.status == CheckStatus.PASSED


def test_a_wrong_remote_as_in_the_vrf_is_an_error_citing_both_statements():
    validation, findings = run({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.97"),
                                "leaf1b": leaf("leaf1b", "10.255.1.97", "10.255.1.96", neighbor_as="65199")})
    assert findings == [("error", "VRF VRF10 session down: leaf1b expects leaf1a in AS 65199 but leaf1a is AS "
                                  "65101")]
    error = next(f for f in validation.report.findings if f.check == "bgp.sessions")
    # leaf1a's statement (its peer group line: the remote AS is the group's) and leaf1b's own remote-as line
    assert validation.where(error) == ["leaf1a/startup-config:24", "leaf1b/startup-config:25"]


def test_a_vrf_neighbor_with_no_mirror_is_one_sided():
    _, findings = run({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.97"),
                       "leaf1b": leaf("leaf1b", "10.255.1.97", "10.255.1.96", vrf_neighbor=False)})
    assert findings == [("error", "one-sided session: leaf1a VRF VRF10 peers with leaf1b (10.255.1.97) but leaf1b "
                                  "has no VRF VRF10 neighbor statement for 10.255.1.96")]


def test_ends_in_two_vrfs_are_an_error_on_each():
    """leaf1b's peer SVI and BGP VRF are VRF11, leaf1a's VRF10: each peers with the other across VRFs."""
    _, findings = run({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.97"),
                       "leaf1b": leaf("leaf1b", "10.255.1.97", "10.255.1.96", vrf="VRF11")})
    assert findings == [
        ("error", "leaf1a: VRF VRF10 neighbor 10.255.1.97 is leaf1b, which peers back from VRF VRF11: the two ends "
                  "are in different VRFs, the session never opens (RFC 4364: a VRF's sessions and addresses are its "
                  "own)"),
        ("error", "leaf1b: VRF VRF11 neighbor 10.255.1.96 is leaf1a, which peers back from VRF VRF10: the two ends "
                  "are in different VRFs, the session never opens (RFC 4364: a VRF's sessions and addresses are its "
                  "own)")]


def test_an_address_reused_in_another_vrf_only_is_a_warning():
    """VRFs may reuse addresses (RFC 4364): owned elsewhere, with no statement back, it is reported, not an error."""
    _, findings = run({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.97"),
                       "leaf1b": leaf("leaf1b", "10.255.1.97", "10.255.1.96", vrf="VRF11", vrf_neighbor=False)})
    assert findings == [("warning", "leaf1a: VRF VRF10 neighbor 10.255.1.97 is owned by leaf1b VRF VRF11 only, not "
                                    "in VRF VRF10: if that is the peer, the session never opens (a VRF's sessions "
                                    "stay inside it)")]


def test_a_vrf_neighbor_on_no_port_of_its_vrf_is_an_error():
    """leaf1b's SVI is in VRF11 but its BGP neighbor still in VRF10: the session has no port to run on."""
    b = leaf("leaf1b", "10.255.1.97", "10.255.1.96", vrf="VRF11")
    b["startup-config"] = b["startup-config"].replace("   vrf VRF11\n      rd", "   vrf VRF10\n      rd")
    _, findings = run({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.97"), "leaf1b": b})
    assert ("error", "leaf1b: VRF VRF10 neighbor 10.255.1.96 is in the subnet of no interface of VRF VRF10") \
        in findings


def test_a_vrf_neighbor_naming_its_own_address_is_an_error():
    _, findings = run({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.96")})
    assert findings == [("error", "leaf1a: VRF VRF10 neighbor 10.255.1.96 is this device's own address in VRF "
                                  "VRF10: the session never opens")]


def test_one_address_in_two_vrfs_is_two_sessions():
    validation, findings = run({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.97", second_vrf="VRF11"),
                                "leaf1b": leaf("leaf1b", "10.255.1.97", "10.255.1.96", second_vrf="VRF11")})
    assert findings == []
    assert sorted(vrf for vrf, _ in validation.report.context.sessions.vrf_established) == ["VRF10", "VRF11"]


def test_a_vrf_neighbor_outside_the_set_is_an_external_peer():
    validation, findings = run({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.97")})
    assert findings == [("info", "1 BGP neighbor(s) outside this config set, not judged as sessions: leaf1a (VRF "
                                 "VRF10)->10.255.1.97 (AS 65101)")]
    assert validation.report.checks["bgp.sessions"].examined == {"BGP neighbors": 0, "VRF BGP neighbors": 0,
                                                                 "external peers": 1}


def test_a_vrf_external_peer_as_an_error_cites_its_statement():
    validation = validate_configs({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.97")}, checks=["bgp.sessions"],
                                  external_peers="error")
    [error] = [f for f in validation.report.findings if f.check == "bgp.sessions"]
    assert (error.severity, error.subject) == ("error", "leaf1a:vrf VRF10 neighbor 10.255.1.97")
    assert error.message == ("leaf1a (VRF VRF10): BGP neighbor 10.255.1.97 (AS 65101) is external: no device of "
                             "this set has that address")
    assert validation.where(error) == ["leaf1a/startup-config:24"]


def test_vrf_neighbors_leave_only_timers_and_bfd_incomplete():
    validation, _ = run({"leaf1a": leaf("leaf1a", "10.255.1.96", "10.255.1.97"),
                         "leaf1b": leaf("leaf1b", "10.255.1.97", "10.255.1.96")})
    checks = validation.report.checks
    assert checks["bgp.sessions"].status == CheckStatus.PASSED
    assert "BGP in VRFs" not in str(checks["bgp.sessions"].reason)
    assert checks["bgp.timers_bfd"].status != CheckStatus.PASSED  # no default-VRF session; VRF ones not examined


def test_avd_l3ls_vrf_sessions_all_pair():
    """AVD's single-DC L3LS fabric: each MLAG pair's VRF10/VRF11 iBGP sessions over their peer SVIs."""
    configs = {path.stem: {path.name: path.read_text()} for path in sorted((CORPUS / "single-dc-l3ls").glob("*.cfg"))}
    validation, findings = run(configs)
    assert not [message for severity, message in findings if "VRF" in message and severity == "error"]
    table = validation.report.context.sessions
    assert table.vrf_neighbor_count == 8 and len(table.vrf_established) == 4 and table.vrf_external == []
