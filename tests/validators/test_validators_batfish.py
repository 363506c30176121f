"""Batfish adapter: answer frames (shaped like pybatfish's) become findings; without BATFISH_HOST the check is
skipped, never passed; the live integration runs only when a Batfish service answers."""

import os
import socket

import pandas
import pytest
from validator_fabrics import compiled

from validators import batfish
from validators.context import CheckSkipped
from validators.run import validate_fabric

SESSION_COLUMNS = ["Node", "VRF", "Local_AS", "Local_Interface", "Local_IP", "Remote_AS", "Remote_Node",
                   "Remote_Interface", "Remote_IP", "Address_Families", "Session_Type", "Configured_Status"]


def test_session_compatibility_frame_to_findings():
    frame = pandas.DataFrame([
        ["leaf1", "default", 65100, None, "10.1.0.1", "65000", "spine1", None, "10.1.0.0", ["IPV4_UNICAST"],
         "EBGP_SINGLEHOP", "UNIQUE_MATCH"],
        ["leaf2", "default", 65101, None, "10.1.0.3", "65000", None, None, "10.1.0.2", [], "EBGP_SINGLEHOP",
         "HALF_OPEN"],
        ["spine1", "default", 65000, None, None, "65102", None, None, "10.1.0.5", [], "EBGP_SINGLEHOP",
         "UNKNOWN_REMOTE"],
    ], columns=SESSION_COLUMNS)
    findings = batfish.findings_from_session_compatibility(frame)
    assert [(f.subject, f.actual) for f in findings] == [("leaf2:10.1.0.3", "HALF_OPEN"), ("spine1", "UNKNOWN_REMOTE")]
    assert all(f.severity == "error" and f.check == "batfish" for f in findings)
    assert "10.1.0.2" in findings[0].message


def test_undefined_references_frame_to_findings():
    frame = pandas.DataFrame([
        ["configs/leaf1.cfg", "route-map", "RM_MISSING", "bgp neighbor export", "configs/leaf1.cfg:[42]"],
        ["sonic_configs/leaf2/frr.conf", "prefix-list", "PL_LOOPBACKS", "route-map match", "frr.conf:[7]"],
    ], columns=["File_Name", "Struct_Type", "Ref_Name", "Context", "Lines"])
    findings = batfish.findings_from_undefined_references(frame)
    assert [f.subject for f in findings] == ["leaf1", "leaf2"]
    assert "RM_MISSING" in findings[0].message and findings[1].actual == "PL_LOOPBACKS"


def test_multipath_frame_to_findings():
    frame = pandas.DataFrame([[{"ingressNode": "leaf3", "dstIp": "10.0.4.1"}, [], 4]],
                             columns=["Flow", "Traces", "TraceCount"])
    findings = batfish.findings_from_multipath(frame)
    assert len(findings) == 1 and findings[0].subject == "leaf3" and findings[0].actual == 4


def test_empty_frames_give_no_findings():
    assert batfish.findings_from_session_compatibility(pandas.DataFrame(columns=SESSION_COLUMNS)) == []


def test_without_batfish_host_the_check_is_skipped(monkeypatch):
    monkeypatch.delenv("BATFISH_HOST", raising=False)
    with pytest.raises(CheckSkipped):
        batfish.check_batfish(compiled())
    report = validate_fabric(compiled(), checks=["batfish"])
    result = report.checks["batfish"]
    assert result.status == "skipped" and "no Batfish service" in result.reason


def test_snapshot_layout(tmp_path):
    left_out = batfish.write_snapshot(compiled(), tmp_path)
    assert left_out == []  # the reference fabric is all EOS
    assert (tmp_path / "configs" / "leaf1.cfg").read_text().startswith(("!", "hostname", "service")) or \
        "hostname leaf1" in (tmp_path / "configs" / "leaf1.cfg").read_text()


def _batfish_reachable() -> bool:
    host = os.environ.get("BATFISH_HOST")
    if not host:
        return False
    try:
        with socket.create_connection((host, 9996), timeout=2):
            return True
    except OSError:
        return False


@pytest.mark.skipif(not _batfish_reachable(), reason="no Batfish service reachable at BATFISH_HOST:9996")
def test_live_batfish_on_the_reference_fabric():  # pragma: no cover - needs the service
    findings = batfish.check_batfish(compiled(roce=False))
    assert all(f.check == "batfish" for f in findings)
