"""FRR's running config and our frr.conf in one comparable form (changes.drivers.frr_text), and an ECMP break in a
running config raising its check error for the device on the drift page (issue #30 point 3). Pure tests: the
running text is FRR 10.3's ``show running-config`` of a twin leaf, recorded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from changes.drift import remediation_build
from changes.drivers.frr_text import frr_comparable
from compiler.parse import ParseError, parse_device
from compiler.parse.drift import field_drift
from validators.configs import running_state_errors

INTENDED = """frr defaults datacenter
hostname leaf1
service integrated-vtysh-config
!
router bgp 65101
 bgp router-id 10.0.0.101
 no bgp ebgp-requires-policy
 bgp bestpath as-path multipath-relax
 neighbor 10.1.0.0 remote-as 65000
 !
 address-family ipv4 unicast
  network 10.0.0.101/32
  maximum-paths 64
 exit-address-family
!
"""
# FRR 10.3 vtysh "show running-config" on a twin node after `maximum-paths 1` (machine hostname "vm").
RUNNING = """Building configuration...

Current configuration:
!
frr version 10.3
frr defaults datacenter
hostname leaf1
hostname vm
service integrated-vtysh-config
!
router bgp 65101
 bgp router-id 10.0.0.101
 bgp bestpath as-path multipath-relax
 neighbor 10.1.0.0 remote-as 65000
 !
 address-family ipv4 unicast
  network 10.0.0.101/32
  maximum-paths 1
 exit-address-family
exit
!
end
"""


def test_frr_printing_is_not_drift_but_a_changed_setting_is():
    want = {"frr.conf": frr_comparable(INTENDED, system_hostname="vm")}
    have = {"frr.conf": frr_comparable(RUNNING, system_hostname="vm")}
    assert frr_comparable(RUNNING.replace("maximum-paths 1", "maximum-paths 64"), system_hostname="vm") == want["frr.conf"]
    drift, _ = field_drift("leaf1", want, have, platform="frr")
    assert [item.path for item in drift] == ["bgp.maximum_paths"]
    commands = remediation_build(platform="frr", intended=want, running=have)["cli"]
    assert "  maximum-paths 64" in commands
    assert not any("hostname" in line or "ebgp-requires-policy" in line for line in commands), commands


def test_the_raw_texts_cannot_be_compared_as_printed():
    """The broken case: as printed, FRR's running config names two hosts (the machine's for a daemon that never got
    the configured one), which the reader refuses (compiler.parse: files of one device naming different hosts);
    before that refusal it came out as false drift items."""
    with pytest.raises(ParseError, match="hostname vm"):
        field_drift("leaf1", {"frr.conf": INTENDED}, {"frr.conf": RUNNING}, platform="frr")


def test_a_hostname_that_is_not_the_machine_s_is_kept():
    changed = RUNNING.replace("hostname leaf1\nhostname vm", "hostname leaf1\nhostname rogue")
    assert "hostname rogue" in frr_comparable(changed, system_hostname="vm")
    assert "no bgp ebgp-requires-policy" in frr_comparable(INTENDED.replace("datacenter", "traditional"))


GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "single_tenant_2x4" / "expected" / "rendered"


def _eos(host: str) -> dict[str, str]:
    return {path.name: path.read_text() for path in (GOLDEN / host / "eos").iterdir() if path.is_file()}


def test_an_ecmp_break_in_the_running_config_is_an_error_of_that_device():
    """routing.ecmp names the pair ("leaf4->leaf1"), not "host:port": it is still the running leaf's error."""
    intended = {path.name: parse_device(_eos(path.name), hostname_hint=path.name) for path in GOLDEN.iterdir()}
    files = _eos("leaf1")
    files["startup-config"] = re.sub(r"maximum-paths \d+ ecmp \d+", "maximum-paths 1", files["startup-config"])
    errors = running_state_errors(intended, {"leaf1": parse_device(files, hostname_hint="leaf1")})
    assert [error["check"] for error in errors["leaf1"]] == ["routing.ecmp"]
    assert running_state_errors(intended, {"leaf1": parse_device(_eos("leaf1"), hostname_hint="leaf1")}) == {}
