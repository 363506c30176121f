"""Post-push verification (issue #15 item 6): after each push the runner reads what the device runs, parses it and
compares it field by field with the files pushed. A device that silently drops a line (here the PFC no-drop line
of an EOS QoS profile, or SONiC's ``pfc_enable``) fails its verify step with the field-level difference, and the
rollout rolls back; a device that runs what was pushed passes. Devices are the in-memory test double."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from changes_memory_fabric import MemoryDevice, MemoryFabric
from django.contrib.auth.models import Group, User

from changes import drift, services
from changes.choices import RolloutStateChoices as State
from changes.choices import StepPhaseChoices as Phase
from changes.choices import StepResultChoices as Result
from changes.drivers.netmiko_sonic import NetmikoSonicDriver
from changes.models import Step
from changes.pipelines.runner import rollout_execute
from compiler.errors import FabricTwinError

pytestmark = pytest.mark.django_db

RENDERED = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected" / "rendered"
PFC_LINE = "   priority-flow-control priority 3 no-drop\n"
HOSTS = {"leaf1": "eos", "leaf2": "sonic"}


def _golden(host: str) -> dict[str, str]:
    directory = RENDERED / host / HOSTS[host]
    return {path.name: path.read_text() for path in sorted(directory.iterdir())}


def _drops_pfc(files: dict[str, str]) -> dict[str, str]:
    """What a device that rejected the PFC setting runs."""
    if "startup-config" in files:
        return {**files, "startup-config": files["startup-config"].replace(PFC_LINE, "")}
    document = json.loads(files["config_db.json"])
    for entry in document["PORT_QOS_MAP"].values():
        entry.pop("pfc_enable", None)
    return {**files, "config_db.json": json.dumps(document, indent=4, sort_keys=True)}


class DroppingDevice(MemoryDevice):
    """Commits, then runs the candidate without its PFC setting."""

    def commit(self) -> None:
        candidate = self._candidate
        super().commit()
        self.fabric.configs[self.hostname] = _drops_pfc(candidate)


class Fabric(MemoryFabric):
    def __init__(self, *, drops: bool):
        super().__init__(list(HOSTS))
        self.drops = drops
        # Before the change the devices run the golden with a different MTU on one port: the change fixes it.
        for host in HOSTS:
            files = _golden(host)
            if "startup-config" in files:
                files["startup-config"] = files["startup-config"].replace("   mtu 9000\n", "   mtu 1500\n", 1)
            else:
                document = json.loads(files["config_db.json"])
                document["PORT"][sorted(document["PORT"])[0]]["mtu"] = "1500"
                files["config_db.json"] = json.dumps(document, indent=4, sort_keys=True)
            self.configs[host] = files

    def driver(self, hostname: str) -> MemoryDevice:
        return DroppingDevice(self, hostname) if self.drops else MemoryDevice(self, hostname)


def _rollout(fabric: Fabric):
    intended = {host: {"files": _golden(host), "platform": platform, "role": "leaf", "driver": "twin"}
                for host, platform in HOSTS.items()}
    change_set = services.changeset_create(name="fix-mtu", intended=intended, driver_for=fabric.driver)
    submitter = User.objects.get_or_create(username="submitter")[0]
    admin = User.objects.create_user("alice", password="x")
    admin.groups.add(Group.objects.get_or_create(name="admin")[0])
    rollout = services.rollout_create(name="r", kind="canary_push", target="production", change_set=change_set,
                                      policy={"checks": ["health"], "soak_s": 0, "wave_size": 2,
                                              "converge_timeout_s": 1}, user=submitter)
    services.rollout_approve(rollout=rollout, user=admin)
    return services.rollout_start(rollout=rollout, user=admin, enqueue=False)


def test_a_device_that_runs_what_was_pushed_passes_verification():
    fabric = Fabric(drops=False)
    rollout = _rollout(fabric)
    assert rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=fabric.driver) == State.SUCCEEDED
    verified = Step.objects.filter(rollout=rollout, phase=Phase.VERIFY).exclude(device="")
    assert sorted(verified.values_list("device", "result")) == [("leaf1", Result.OK), ("leaf2", Result.OK)]
    assert all("equals the pushed one" in step.output and step.detail["differences"] == [] for step in verified)


def test_a_device_that_drops_a_pushed_line_fails_verification_and_rolls_back():
    fabric = Fabric(drops=True)
    before = {host: dict(files) for host, files in fabric.configs.items()}
    rollout = _rollout(fabric)
    assert rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=fabric.driver) == State.ROLLED_BACK
    failed = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, device="leaf1")
    assert failed.result == Result.FAILED
    assert "leaf1 Ethernet1/1: PFC priorities [3] intended, [] running" in failed.output
    assert any(item["path"] == "interfaces[Ethernet1/1].qos.pfc_priorities" for item in failed.detail["differences"])
    assert fabric.configs["leaf1"] == before["leaf1"]  # rolled back to what it ran before
    assert not Step.objects.filter(rollout=rollout, phase=Phase.PUSH, device="leaf2").exists()  # canary stopped it
    rollout.refresh_from_db()
    assert "PushVerifyFailed" in rollout.error and rollout.report["outcome"]["leaf1"]["outcome"] == "rolled_back"


@pytest.mark.parametrize("host", list(HOSTS))
def test_push_verify_at_the_driver_boundary(host):
    """The comparison itself, per platform: equal running config -> no difference; PFC dropped -> the field."""
    fabric = Fabric(drops=False)
    fabric.configs[host] = _golden(host)
    same, _ = drift.push_verify(hostname=host, driver=fabric.driver(host), pushed=_golden(host))
    assert same == []
    fabric.configs[host] = _drops_pfc(_golden(host))
    differences, _ = drift.push_verify(hostname=host, driver=fabric.driver(host), pushed=_golden(host),
                                       platform=HOSTS[host])
    assert any(item.path.endswith(".qos.pfc_priorities") and item.intended == [3] and item.running == []
               for item in differences), [item.message for item in differences]


class SonicRunning(NetmikoSonicDriver):
    """The SONiC driver's own comparison logic on a fixed running config (no SSH)."""

    def __init__(self, running: dict[str, str]):
        super().__init__("leaf2", "192.0.2.10", "admin")
        self.running = running

    def get_running_config(self):
        return self.normalize(dict(self.running))


def test_sonic_verification_keeps_what_the_patch_merges():
    """SONiC's push merges PORT, DEVICE_METADATA and the management tables: a port the intent does not use and the
    switch's own tables are no difference after a push; a dropped ``pfc_enable`` still is."""
    pushed = _golden("leaf2")
    document = json.loads(pushed["config_db.json"])
    document["PORT"]["Ethernet512"] = {"admin_status": "down", "lanes": "512,513", "mtu": "9100", "speed": "400000"}
    document["DEVICE_METADATA"]["localhost"]["mac"] = "52:54:00:12:34:56"  # platform data
    document["FEATURE"] = {"lldp": {"state": "enabled"}}  # a table the intent does not render
    running = {**pushed, "config_db.json": json.dumps(document, indent=4, sort_keys=True)}
    assert drift.push_verify(hostname="leaf2", driver=SonicRunning(running), pushed=pushed)[0] == []
    # Without the driver's merge (the base class: the device should run exactly the pushed files) it would differ.
    assert drift.push_verify(hostname="leaf2", driver=MemoryFabricDriver(running), pushed=pushed)[0]
    dropped = _drops_pfc(running)
    differences, _ = drift.push_verify(hostname="leaf2", driver=SonicRunning(dropped), pushed=pushed)
    assert any(item.path.endswith(".qos.pfc_priorities") for item in differences)


def MemoryFabricDriver(running: dict[str, str]) -> MemoryDevice:  # reads as the driver it returns
    fabric = MemoryFabric(["leaf2"])
    fabric.configs["leaf2"] = running
    return fabric.driver("leaf2")


def test_a_running_config_that_does_not_parse_is_no_pass():
    fabric = Fabric(drops=False)
    fabric.configs["leaf1"] = {"startup-config": "% Invalid input (privileged mode required)\n"}
    differences, _ = drift.push_verify(hostname="leaf1", driver=fabric.driver("leaf1"), pushed=_golden("leaf1"),
                                       platform="eos")
    assert {"interfaces", "bgp.neighbors"} <= {item.path for item in differences}  # read as EOS: none of it
    fabric.configs["leaf2"] = {"config_db.json": "{not json", "frr.conf": ""}
    with pytest.raises(FabricTwinError, match="config_db.json"):
        drift.push_verify(hostname="leaf2", driver=fabric.driver("leaf2"), pushed=_golden("leaf2"), platform="sonic")
