"""The Finding/Report shape shared by every validator."""

import pytest

from validators.findings import Finding, Report, Severity


def test_report_aggregates_per_check_with_skips():
    report = Report("demo")
    report.add("a")
    report.add("b", [Finding(
        check="b", severity=Severity.WARNING, subject="leaf1", expected=1, actual=2, message="odd")])
    report.add("c", [Finding(
        check="c", severity=Severity.ERROR, subject="leaf1:Ethernet1", expected=9214, actual=1500,
        message="MTU too small")])
    report.skip("d", "no twin on this machine")
    assert report.counts() == {"passed": 2, "failed": 1, "skipped": 1, "incomplete": 0}
    assert not report.ok
    data = report.as_dict()
    assert [c["status"] for c in data["checks"]] == ["passed", "passed", "failed", "skipped"]
    assert data["checks"][3]["reason"] == "no twin on this machine"
    assert data["checks"][2]["findings"][0] == {"check": "c", "severity": "error", "subject": "leaf1:Ethernet1",
                                               "expected": 9214, "actual": 1500, "message": "MTU too small"}
    text = report.as_text()
    assert "2 passed, 1 failed, 1 skipped" in text and "[SKIPPED] d (no twin on this machine)" in text


def test_report_without_errors_is_ok_and_skipped_is_never_passed():
    report = Report()
    report.skip("twin", "not root")
    assert report.ok and report.counts()["passed"] == 0


def test_finding_rejects_unknown_severity():
    with pytest.raises(ValueError, match="severity"):
        Finding(check="x", severity="fatal", subject="s", expected=None, actual=None, message="m")
