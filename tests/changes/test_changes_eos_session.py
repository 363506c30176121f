"""The NAPALM EOS push through NAPALM's real eos driver against a recorded EOS device (eos_recorded_device.py).

Proves the exact eAPI command sequence (configuration session, replace inside it, commit timer, reachability
check, confirm), that the guard refuses before any session is opened, that a drained switch stays drained, that an
unreachable switch is never confirmed (EOS reverts), and that a rollback after a failed canary leaves the running
config byte-identical to the one saved before the push.
"""

from __future__ import annotations

import re

import pyeapi
import pytest
from eos_recorded_device import RECORDED, RecordedEosNode

from changes.credentials import running_files_open
from changes.drivers.napalm_eos import NapalmEosDriver, carry_maintenance
from changes.errors import PushRefused
from compiler.errors import DriverError

BEFORE = (RECORDED / "running-before.cfg").read_text()
AFTER = (RECORDED / "running-after.cfg").read_text()
MAINTENANCE = "maintenance\n   unit System\n      quiesce\n!\n"
# What the compiler renders: the new VLAN, the management plane, no maintenance stanza (that is device state).
INTENDED = {"startup-config": AFTER.replace(MAINTENANCE, "")}


@pytest.fixture
def device(monkeypatch):
    node = RecordedEosNode()
    monkeypatch.setattr(pyeapi.client, "Node", lambda connection, **kwargs: node)
    return node


def _driver(**options) -> NapalmEosDriver:
    return NapalmEosDriver("leaf1", "192.0.2.11", "admin", "s3cret-Pa55", optional_args=options)


def _shape(commands: list[str]) -> list[str]:
    return [re.sub(r"napalm_\d+", "napalm_N", command) for command in commands]


def test_push_is_a_session_with_commit_timer_then_confirm_and_keeps_the_drain(device):
    with _driver(commit_confirm_s=120) as driver:
        device.calls.clear()
        diff = driver.push(INTENDED)
        assert "+vlan 30" in diff and "maintenance" not in diff  # the drain stanza was carried, not removed
        sent = _shape(device.commands)
    candidate = ["configure session napalm_N", "rollback clean-config"]
    load_at = sent.index("rollback clean-config") - 1
    assert sent[:load_at] == ["show running-config", "show configuration sessions"]  # guard input, NAPALM's lock
    commit_at = sent.index("configure session napalm_N commit timer 00:02:00")
    assert sent[load_at:load_at + 2] == candidate
    loaded = sent[load_at + 2:sent.index("end")]
    assert "maintenance" in loaded and "quiesce" in loaded  # still drained after the push
    assert "interface Management1" in loaded and "ip route vrf MGMT 0.0.0.0/0 192.0.2.1" in loaded
    assert sent[sent.index("end") + 1:] == [
        "show session-config named napalm_N diffs",
        "show configuration sessions detail", "show version",  # NAPALM: no other commit-confirm pending
        "copy startup-config flash:rollback-0",
        "configure session napalm_N commit timer 00:02:00",
        "show version", "show hostname", "show interfaces",  # reachability over the management address
        "show configuration sessions detail", "show version",  # NAPALM: our session is the pending one
        "configure session napalm_N commit", "write memory",  # confirmed
    ], sent
    assert commit_at > 0 and not any("configure replace" in command or "reload" in command for command in sent)
    assert device.running == AFTER and device.pending is None and device.startup == AFTER


def test_guard_refuses_before_any_session_is_opened(device):
    broken = {"startup-config": INTENDED["startup-config"].replace("   ip address 192.0.2.11/24\n", "")}
    with _driver() as driver, pytest.raises(PushRefused) as refused:
        driver.push(broken)
    message = str(refused.value)
    assert message.startswith("leaf1: push refused") and "interface Management1" in message
    assert "ip address 192.0.2.11/24" in message
    assert not any(command.startswith("configure session") for command in device.commands)
    assert device.running == BEFORE


def test_an_undrain_in_the_candidate_is_refused(device):
    undrain = {"startup-config": AFTER.replace("      quiesce\n", "      no quiesce\n")}
    with _driver() as driver, pytest.raises(PushRefused, match=r"drain state 'maintenance': line 'unit System / quiesce'"):
        driver.push(undrain)
    assert device.running == BEFORE


def test_unreachable_after_commit_is_never_confirmed_and_eos_reverts(device):
    with _driver() as driver:
        original = device.run_commands

        def cut_after_commit_timer(commands, **kwargs):
            result = original(commands, **kwargs)
            if any(" commit timer " in command for command in commands):
                device.unreachable = True  # the new config cut the management path
            return result

        device.run_commands = cut_after_commit_timer
        with pytest.raises(DriverError, match="leaf1: reachability check after commit.*NOT confirmed"):
            driver.push(INTENDED)
        assert not any(command.endswith(" commit") for command in device.commands)  # never confirmed
        assert device.running == AFTER and device.pending is not None
        device.expire_commit_timer()  # EOS's own revert when the timer runs out
        device.unreachable = False
    assert device.running == BEFORE


def test_rollback_after_a_failed_canary_restores_the_running_config_byte_identical(device):
    device.startup = BEFORE.replace("vlan 10\n   name net10\n!\n", "")  # running had unsaved changes
    with _driver() as driver:
        saved = driver.get_running_config()
        driver.push(INTENDED)
        assert device.running == AFTER
        device.calls.clear()
        driver.rollback(saved)  # what the canary does when its post-checks fail
        sent = _shape(device.commands)
        assert "configure session napalm_N commit timer 00:05:00" in sent and "configure session napalm_N commit" in sent
        assert "configure replace flash:rollback-0" not in sent  # not NAPALM's startup-config checkpoint
        assert driver.get_running_config() == saved
    assert device.running.encode() == BEFORE.encode()


def test_rollback_that_does_not_restore_the_saved_config_fails(device):
    with _driver() as driver:
        driver.push(INTENDED)
        # The device renders the same commands with one more comment line: not byte-identical any more.
        device.configs["running-before.cfg"] = BEFORE.replace("!\nend\n", "! restored\n!\nend\n")
        with pytest.raises(DriverError, match="leaf1: after the rollback the running config differs"):
            driver.rollback({"startup-config": BEFORE})


def test_carry_maintenance_keeps_end_last_and_leaves_an_explicit_stanza_alone():
    carried = carry_maintenance(BEFORE, "hostname leaf1\n!\nend\n")
    assert carried == "hostname leaf1\n!\n" + MAINTENANCE + "end\n"
    explicit = "maintenance\n   unit System\n      no quiesce\n"
    assert carry_maintenance(BEFORE, explicit) == explicit
    assert carry_maintenance("hostname leaf1\n", "hostname leaf1\n") == "hostname leaf1\n"


# --------------------------------------------------------------------------------------------- through the runner


@pytest.fixture
def admin(db):
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user("alice", password="x")
    user.groups.add(Group.objects.get_or_create(name="admin")[0])
    return user


def test_runner_failed_canary_rolls_eos_back_byte_identical(device, admin):
    """A wrong BGP ASN (recorded: the peer goes Active) fails the canary's health check; the runner rolls the
    switch back through a new session to the running config saved in the change set, byte for byte."""
    from changes import services
    from changes.choices import RolloutStateChoices as State
    from changes.pipelines.runner import rollout_execute

    bad = {"startup-config": (RECORDED / "running-bad.cfg").read_text().replace(MAINTENANCE, "")}
    change_set = services.changeset_create(name="eos", driver_for=lambda hostname: _driver(), intended={
        "leaf1": {"files": bad, "role": "leaf", "driver": "napalm_eos", "platform": "eos"}})
    assert running_files_open(change_set.devices.get().running_files) == {"startup-config": BEFORE}
    rollout = services.rollout_create(name="r", kind="canary_push", target="production", change_set=change_set,
                                      policy={"checks": ["health"], "soak_s": 0, "converge_timeout_s": 1}, user=admin)
    services.rollout_approve(rollout=rollout, user=_second_admin())
    rollout = services.rollout_start(rollout=rollout, user=admin, enqueue=False)
    state = rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=lambda hostname: _driver())
    rollout.refresh_from_db()
    assert state == State.ROLLED_BACK and rollout.report["outcome"]["leaf1"]["outcome"] == "rolled_back"
    assert rollout.report["green_after_rollback"] is True
    commits = [command for command in _shape(device.commands) if command.startswith("configure session napalm_N commit")]
    assert commits == ["configure session napalm_N commit timer 00:05:00", "configure session napalm_N commit"] * 2
    assert device.running.encode() == BEFORE.encode() and "quiesce" in device.running  # restored, still drained


@pytest.mark.parametrize("bad", [0, 29, 86400, "300", 1.5, True])
def test_commit_confirm_time_out_of_range_is_refused_by_name(bad):
    with pytest.raises(DriverError, match=rf"leaf1: optional_args.commit_confirm_s={bad!r} must be whole seconds"):
        _driver(commit_confirm_s=bad)
    assert _driver(commit_confirm_s=30).commit_confirm_s == 30


def _second_admin():
    """Production rollouts need a second person to approve them (changes.services.rollout_approve)."""
    from django.contrib.auth.models import Group, User

    user, _ = User.objects.get_or_create(username="bob-approver")
    user.groups.add(Group.objects.get_or_create(name="admin")[0])
    return user
