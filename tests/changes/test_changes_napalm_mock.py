"""The NAPALM EOS driver's logic against NAPALM's own mock driver (recorded responses in napalm_mock/<scenario>/).

No real EOS device can be reached here: these tests prove what the driver sends and how it reads answers
(push = replace candidate, compare, commit with a timer, confirm; empty diff = discard, no commit; errors name the device), not eAPI.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from changes.drivers.napalm_eos import NapalmEosDriver
from compiler.errors import DriverError

RECORDED = Path(__file__).parent / "napalm_mock"
MANAGEMENT = "interface Management1\n   ip address 192.0.2.11/24\n!\n"
INTENDED = {"startup-config": "hostname leaf1\n!\nvlan 10\n!\nvlan 30\n   name net30\n!\n" + MANAGEMENT + "end\n"}


def _driver(scenario: str) -> NapalmEosDriver:
    return NapalmEosDriver("leaf1", "192.0.2.11", "admin", "s3cret-Pa55", napalm_driver="mock",
                           optional_args={"path": str(RECORDED / scenario)})


def test_push_replaces_then_is_at_and_health():
    with _driver("eos_push") as driver:
        assert driver.get_running_config() == {"startup-config": "hostname leaf1\n!\nvlan 10\n!\n" + MANAGEMENT + "end\n"}
        diff = driver.push(INTENDED)
        assert "+vlan 30" in diff
        mock = driver.device
        assert mock.calls["commit_config"] == 1 and mock.calls["load_replace_candidate"] == 1
        assert mock.calls["confirm_commit"] == 1 and not mock.has_pending_commit()  # commit-confirm, confirmed
        assert driver.is_at(INTENDED)  # the device now reports an empty diff: no second commit
        assert mock.calls["commit_config"] == 1 and mock.calls["discard_config"] == 1
        health = driver.health()
    assert (health.bgp_established, health.bgp_total, health.routes) == (1, 2, 5)
    assert health.down_peers == ("10.1.0.4",) and not health.all_established
    assert health.version == "4.33.1F"


def test_commit_error_names_the_device_and_hides_the_password():
    with _driver("eos_commit_error") as driver, pytest.raises(DriverError) as error:
        driver.push(INTENDED)
    assert "leaf1" in str(error.value) and "commit_config (commit timer) failed" in str(error.value)
    assert "s3cret-Pa55" not in str(error.value) and "s3cret-Pa55" not in repr(driver)


def test_eos_needs_its_config_file():
    with _driver("eos_push") as driver, pytest.raises(DriverError, match="startup-config"):
        driver.load_candidate({"frr.conf": "x"})


def test_drain_uses_maintenance_mode_and_reads_it_back():
    with _driver("eos_drain") as driver:
        sent = []
        merge = driver.device.load_merge_candidate
        driver.device.load_merge_candidate = lambda filename=None, config=None: (sent.append(config), merge(config=config))
        driver.drain()
        assert driver.is_drained()
        driver.undrain()
    assert sent == ["maintenance\n   unit System\n      quiesce\n", "maintenance\n   unit System\n      no quiesce\n"]

