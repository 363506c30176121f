"""Verdicts honest about coverage (issue 25 item 1): every check says what it examined; nothing examined is
skipped, never passed; a check that raises is an internal-failure finding and the run completes; unmodelled
lines make the checks depending on them incomplete; BGP peers outside the set are external, not errors. The
foreign-config crashes of overlay.*, mtu.* and roce.headroom are reproduced with small hand-written configs."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from test_validators_clos5 import five_stage
from test_validators_l2 import L2LS
from test_validators_l2 import configs as l2_configs
from validator_fabrics import compiled

from compiler.errors import InputError
from compiler.parse.common import empty_structured
from validators import run
from validators.configs import coverage_gaps, parse_configs, validate_configs
from validators.findings import CheckStatus, Finding, InternalFailure, Severity
from validators.run import check_names, validate_fabric

GOLDEN = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected"
# Why a check may legitimately not run on a compiled fabric: no Batfish service here, or the check is for the
# other Clos shape (two-tier fabric vs 5-stage).
NOT_HERE = ("no Batfish service", "no super-spine", "designed ECMP widths are defined for two-tier", "five-stage Clos",
            "no port-channels", "no MLAG configuration", "no device runs OSPF or IS-IS", "no multi-plane server",
            "no EVPN ethernet segment")
# The Layer 2 checks run on real MLAG/port-channel configs (tests/data/avd_l2): the compiler emits neither.
L2_CHECKS = {"mlag.peers", "mtu.port_channels"}


def _internal(report) -> list[str]:
    return [f"{f.check}: {f.message}" for f in report.findings if isinstance(f, InternalFailure)]


@pytest.mark.parametrize("structured", [{}, {"lonely": empty_structured("lonely", "eos")}], ids=["empty", "bare"])
def test_no_check_passes_on_nothing(structured):
    report = validate_fabric(structured)
    assert set(report.checks) == set(check_names())
    assert _internal(report) == []
    passed = [name for name, result in report.checks.items() if result.status == CheckStatus.PASSED]
    assert passed == []
    assert all(result.reason for result in report.checks.values())  # every skip says why


def test_every_check_reports_what_it_examined_on_a_real_fabric():
    report = validate_fabric(compiled())
    ran = set()
    for fabric in (report, validate_fabric(five_stage())):
        assert _internal(fabric) == []
        for name, result in fabric.checks.items():
            if result.status == CheckStatus.SKIPPED and result.reason.startswith(NOT_HERE):
                continue
            assert result.status == CheckStatus.PASSED, (name, result.reason)
            assert any(result.examined.values()), name
            ran.add(name)
    # routing.igp: tests/validators/test_igp.py; hosts.plane (multi-plane servers): tests/validators/test_validators_hosts.py;
    # overlay.esi (EVPN multihoming, which the compiler does not emit): tests/validators/test_validators_esi.py
    assert ran == set(check_names()) - {"batfish", "routing.igp", "hosts.plane", "overlay.esi"} - L2_CHECKS
    bundle = "interface Port-Channel47\n   description MLAG_LEAF2_Port-Channel47\n"  # given an MTU: judged
    l2ls = validate_configs(l2_configs("l2ls-fabric", L2LS, {"LEAF1": (bundle, bundle + "   mtu 9214\n")})).report
    for name in L2_CHECKS:
        assert l2ls.checks[name].status == CheckStatus.PASSED and any(l2ls.checks[name].examined.values()), name
    plain = validate_configs(l2_configs("l2ls-fabric", L2LS)).report.checks["mtu.port_channels"]
    # No bundle states an MTU, but both ends of every member link bundle it: that much was judged, and passed.
    assert plain.status == CheckStatus.PASSED and plain.examined.get("bundle member links", 0) > 0
    assert report.checks["bgp.sessions"].examined == {"BGP neighbors": 2 * 4 * 6}
    assert report.checks["mtu.links"].examined["switch-to-switch links"] == 4 * 6
    data = report.as_dict()["checks"]
    assert all("examined" in check for check in data)
    assert "examined 48 BGP neighbors" in report.as_text()


def test_a_check_that_examined_nothing_is_skipped_centrally(monkeypatch):
    def lazy(ctx):
        ctx.record_examined("bgp.sessions", {"BGP neighbors": 0})
        return []

    monkeypatch.setitem(run.CHECKS, "bgp.sessions", lazy)
    result = validate_fabric(compiled(), checks=["bgp.sessions"]).checks["bgp.sessions"]
    assert result.status == CheckStatus.SKIPPED and result.reason == "nothing to examine: 0 BGP neighbors"

    monkeypatch.setitem(run.CHECKS, "bgp.sessions", lambda ctx: [])  # says nothing about what it looked at
    result = validate_fabric(compiled(), checks=["bgp.sessions"]).checks["bgp.sessions"]
    assert result.status == CheckStatus.SKIPPED and "did not say what it examined" in result.reason


def test_a_crashing_check_is_a_finding_and_the_run_completes(monkeypatch, caplog):
    def broken(ctx):
        raise KeyError("mtu")

    monkeypatch.setitem(run.CHECKS, "mtu.links", broken)
    with caplog.at_level(logging.ERROR, logger="validators.run"):
        report = validate_fabric(compiled(), checks=["bgp.sessions", "mtu.links", "mtu.svi"])
    assert list(report.checks) == ["bgp.sessions", "mtu.links", "mtu.svi"]  # the checks after it still ran
    assert report.checks["mtu.svi"].status == CheckStatus.PASSED
    crashed = report.checks["mtu.links"]
    assert crashed.status == CheckStatus.FAILED and not report.ok
    (finding,) = crashed.findings
    assert isinstance(finding, InternalFailure)
    assert (finding.check, finding.severity, finding.subject) == ("mtu.links", Severity.ERROR, "t4x6")
    assert finding.message == "check mtu.links failed internally: KeyError: 'mtu'"
    assert finding.as_dict()["internal_failure"] is True
    assert "internal_failure" not in Finding(check="x", severity="info", subject="s", expected=None, actual=None,
                                             message="m").as_dict()
    assert "Traceback" in caplog.text and "raise KeyError" in caplog.text


# ----------------------------------------------------------------------------------------- foreign configs

LEAF = """hostname {name}
!
vlan 10
   name net10
!
vlan 4094
   name mlag-peer
!
interface Ethernet1
   description to {peer}
   no switchport
   ip address {ip}/31
!
interface Ethernet2
   switchport access vlan 10
!
interface Ethernet3
   no switchport
   ip address 192.0.2.{wan}/31
!
interface Loopback0
   ip address {loopback}/32
!
interface Loopback1
   ip address {vtep}/32
!
interface Vxlan1
   vxlan source-interface Loopback1
   vxlan udp-port 4789
   vxlan vlan 10 vni 10010
!
router bgp {asn}
   router-id {loopback}
   neighbor {peer_ip} remote-as {peer_asn}
   neighbor 192.0.2.{wan_peer} remote-as 65535
   vlan 10
      rd {loopback}:10010
      route-target both 10010:10010
      redistribute learned
!
end
"""


def _pair(extra: str = "") -> dict[str, dict[str, str]]:
    """Two hand-written EOS leaves (no `mtu` line anywhere, VLAN 4094 without a VNI, a WAN neighbor each)."""
    leaf1 = LEAF.format(name="leaf1", peer="leaf2", ip="10.0.0.0", peer_ip="10.0.0.1", loopback="10.255.0.1",
                        vtep="10.254.0.1", asn=65001, peer_asn=65002, wan=0, wan_peer=1)
    leaf2 = LEAF.format(name="leaf2", peer="leaf1", ip="10.0.0.1", peer_ip="10.0.0.0", loopback="10.255.0.2",
                        vtep="10.254.0.2", asn=65002, peer_asn=65001, wan=2, wan_peer=3)
    return {"leaf1": {"startup-config": leaf1.replace("end\n", extra + "end\n")}, "leaf2": {"startup-config": leaf2}}


def test_vlan_without_vni_and_port_without_mtu_do_not_crash():
    result = validate_configs(_pair(), checks=["overlay", "mtu"])
    assert _internal(result.report) == []
    assert result.report.checks["overlay.vlan_vni"].status == CheckStatus.PASSED
    assert result.report.checks["overlay.vlan_vni"].examined == {"VXLAN VLANs": 2, "networks": 1}
    assert result.report.checks["overlay.route_targets"].status == CheckStatus.PASSED
    # No port states an MTU: nothing to compare, so skipped with the count, never passed.
    links = result.report.checks["mtu.links"]
    assert links.status == CheckStatus.SKIPPED and links.reason.startswith("nothing to examine: 0 switch-to-switch")
    assert result.report.checks["mtu.overlay_budget"].status == CheckStatus.SKIPPED


def test_a_wrong_vni_is_still_caught_next_to_a_vlan_without_one():
    files = _pair()
    files["leaf2"]["startup-config"] = files["leaf2"]["startup-config"].replace("vni 10010", "vni 10011")
    errors = [f for f in validate_configs(files, checks=["overlay.vlan_vni"]).report.findings if f.severity == "error"]
    assert errors and all(not isinstance(f, InternalFailure) for f in errors)


def _golden_files(golden: Path = GOLDEN) -> dict[str, dict[str, str]]:
    """{host: {file: text}} of a golden scenario's rendered configs, each host on its own platform."""
    files = {}
    for structured in sorted((golden / "structured").glob("*.json")):
        host = structured.stem
        platform = json.loads(structured.read_text())["platform"]
        files[host] = {path.name: path.read_text() for path in sorted((golden / "rendered" / host / platform).iterdir())}
    return files


def test_sonic_port_without_mtu_does_not_crash_headroom():
    files = _golden_files()
    db = json.loads(files["leaf2"]["config_db.json"])
    for port in db["PORT"].values():
        port.pop("mtu", None)
    files["leaf2"]["config_db.json"] = json.dumps(db)
    result = validate_configs(files, checks=["roce.headroom"])
    headroom = result.report.checks["roce.headroom"]
    assert _internal(result.report) == [] and headroom.status == CheckStatus.PASSED
    unjudged = [f for f in headroom.findings if f.severity == "info"]
    assert len(unjudged) == 1 and "leaf2:Ethernet0" in unjudged[0].message and "no MTU" in unjudged[0].message
    assert headroom.examined["lossless ports"] > 0  # the other leaves' ports are still judged


@pytest.mark.parametrize("scenario", sorted(path.parent.parent.name for path in GOLDEN.parents[1].glob("*/expected/structured")))
def test_no_internal_failure_and_no_coverage_gap_on_any_golden_config_set(scenario):
    result = validate_configs(_golden_files(GOLDEN.parents[1] / scenario / "expected"))
    assert _internal(result.report) == []
    assert result.gaps == [] and result.report.counts()["incomplete"] == 0


# ------------------------------------------------------------------------------------------------- incomplete


def test_unmodelled_bgp_lines_make_the_bgp_checks_incomplete_naming_device_and_line():
    # (OSPF's process and network statements and local-as are modelled: lines the model does not read.)
    files = _pair(extra="router ospf 1\n   network 10.0.0.0/8 area 0\n   redistribute static\n!\n")
    files["leaf1"]["startup-config"] = files["leaf1"]["startup-config"].replace(
        "   vlan 10\n", "   neighbor 10.0.0.1 weight 100\n   vlan 10\n", 1)
    devices = parse_configs(files)
    gaps = {(gap.device, gap.feature) for gap in coverage_gaps(devices)}
    assert ("leaf1", "BGP") in gaps and ("leaf1", "IGP/static routing") in gaps
    # "redistribute static" belongs to router ospf (the block above), not to BGP; "weight" to router bgp.
    lines = {gap.feature: gap.lines for gap in coverage_gaps(devices) if gap.device == "leaf1"}
    assert any("redistribute static" in line for line in lines["IGP/static routing"])
    assert not any("redistribute static" in line for line in lines["BGP"])
    assert any("weight 100" in line for line in lines["BGP"])
    result = validate_configs(files, checks=["bgp", "roce", "overlay.vlan_vni"])
    router_ids = result.report.checks["bgp.router_ids"]
    assert router_ids.status == CheckStatus.INCOMPLETE
    assert "leaf1: BGP not fully read (leaf1/startup-config:" in router_ids.reason and "weight 100" in router_ids.reason
    assert result.report.checks["overlay.vlan_vni"].status == CheckStatus.PASSED  # depends on no gap
    assert result.report.counts()["incomplete"] >= 3
    text = result.as_text()
    assert "incomplete" in text.splitlines()[0] and "[INCOMPLETE] bgp.router_ids (leaf1: BGP" in text
    data = result.as_dict()
    assert any(gap["device"] == "leaf1" and gap["feature"] == "BGP" for gap in data["coverage_gaps"])
    assert next(c for c in data["checks"] if c["name"] == "bgp.router_ids")["status"] == "incomplete"


def test_management_lines_make_nothing_incomplete():
    files = _pair(extra="clock timezone UTC\nsnmp-server community x ro\nip domain lookup source-interface Management1\n")
    result = validate_configs(files, checks=["bgp.asns"])
    assert result.report.checks["bgp.asns"].status == CheckStatus.PASSED
    assert len(result.unmodelled()) == 3 and result.gaps == []


def test_an_error_next_to_an_unread_line_stays_an_error_and_the_reason_names_the_gap():
    files = _pair(extra="router ospf 1\n!\n")
    files["leaf1"]["startup-config"] = files["leaf1"]["startup-config"].replace(
        "   vlan 10\n", "   neighbor 10.0.0.1 weight 100\n   vlan 10\n", 1)
    files["leaf2"]["startup-config"] = files["leaf2"]["startup-config"].replace("router-id 10.255.0.2",
                                                                                "router-id 10.255.0.1")
    result = validate_configs(files, checks=["bgp.router_ids"])
    router_ids = result.report.checks["bgp.router_ids"]
    # A real fault next to a BGP line the parser did not read is still an error (a warning would hide it)...
    assert router_ids.status == CheckStatus.FAILED and not result.ok
    assert sorted(f.subject for f in router_ids.findings if f.severity == "error") == ["leaf1", "leaf2"]
    # ... and the check says what else it depends on that was not read.
    assert router_ids.reason.startswith("also depends on lines not read: leaf1: BGP not fully read (leaf1/startup")


# --------------------------------------------------------------------------------------------- external peers


def test_external_peers_are_reported_not_errors_and_the_setting_is_honoured():
    files = _pair()
    sessions = validate_configs(files, checks=["bgp.sessions"]).report.checks["bgp.sessions"]
    assert sessions.examined == {"BGP neighbors": 2, "external peers": 2}
    external = [f for f in sessions.findings if f.subject == "external peers"]
    assert len(external) == 1 and external[0].severity == "info"
    assert "leaf1->192.0.2.1 (AS 65535)" in external[0].message and "leaf2->192.0.2.3" in external[0].message
    assert not any("192.0.2" in f.message for f in sessions.findings if f.severity == "error")
    warned = validate_configs(files, checks=["bgp.sessions"], external_peers="warning").report
    assert [f.severity for f in warned.findings if f.subject == "external peers"] == ["warning"]
    strict = validate_configs(files, checks=["bgp.sessions"], external_peers="error")
    errors = [f for f in strict.report.findings if "is external" in f.message]
    assert sorted(f.subject for f in errors) == ["leaf1:neighbor 192.0.2.1", "leaf2:neighbor 192.0.2.3"]
    assert all(strict.where(f)[0].startswith(f.subject.split(":")[0] + "/startup-config:") for f in errors)
    assert not strict.ok
    with pytest.raises(InputError) as raised:
        validate_configs(files, external_peers="loud")
    assert raised.value.errors[0].field == "external_peers" and raised.value.errors[0].value == "loud"


def test_an_internal_failure_stays_an_error_on_an_incomplete_device_set(monkeypatch):
    def broken(ctx):
        raise TypeError("unexpected shape")

    monkeypatch.setitem(run.CHECKS, "bgp.asns", broken)
    files = _pair(extra="router ospf 1\n!\n")
    files["leaf1"]["startup-config"] = files["leaf1"]["startup-config"].replace(
        "   vlan 10\n", "   neighbor 10.0.0.1 weight 100\n   vlan 10\n", 1)
    result = validate_configs(files, checks=["bgp.asns"])
    asns = result.report.checks["bgp.asns"]
    assert asns.status == CheckStatus.FAILED and isinstance(asns.findings[0], InternalFailure)
    assert asns.findings[0].severity == Severity.ERROR and not result.ok


def test_sonic_tables_classify_by_name_never_by_the_table_above():
    files = _golden_files()
    db = json.loads(files["leaf2"]["config_db.json"])
    db["BGP_GLOBALS"] = {"default": {"local_asn": "65535"}}  # BGP_NEIGHBOR is read (compiler.parse.sonic)
    db["COPP_TABLE"] = {"default": {"queue": "0"}}
    files["leaf2"]["config_db.json"] = json.dumps(db, indent=4, sort_keys=True)
    result = validate_configs(files, checks=["bgp.sessions", "roce.pfc"])
    gaps = {gap.feature: gap.lines for gap in result.gaps if gap.device == "leaf2"}
    # COPP_TABLE, the next table in the file, is neither BGP nor anything a check reads.
    assert list(gaps) == ["BGP"] and len(gaps["BGP"]) == 1 and gaps["BGP"][0].endswith(": BGP_GLOBALS")
    assert result.report.checks["bgp.sessions"].status == CheckStatus.INCOMPLETE
    assert "leaf2/config_db.json:" in result.report.checks["bgp.sessions"].reason
    assert result.report.checks["roce.pfc"].status == CheckStatus.PASSED
