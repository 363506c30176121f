"""Typed contracts of the validators: Finding by keyword only."""

import pytest

from validators.findings import Finding, Severity


def test_finding_is_built_by_keyword():
    finding = Finding(check="mtu.links", severity=Severity.ERROR, subject="leaf1:Ethernet1", expected=9214,
                      actual=9000, message="MTU differs")
    assert finding.as_dict()["expected"] == 9214 and finding.as_dict()["actual"] == 9000


def test_positional_finding_is_refused():
    with pytest.raises(TypeError):
        Finding("mtu.links", Severity.ERROR, "leaf1:Ethernet1", 9214, 9000, "MTU differs")  # type: ignore[misc]
