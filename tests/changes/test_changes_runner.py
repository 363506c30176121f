"""The durable runner: records before/after each action, canary + rollback, resume without double pushes,
pause/cancel at step boundaries, rolling-upgrade execution. Devices are the in-memory test double (conftest)."""

from __future__ import annotations

import datetime

import pytest
from changes_memory_fabric import BREAKS_BGP
from django.contrib.auth.models import Group, User
from django.utils import timezone

from changes import services
from changes.choices import RolloutStateChoices as State
from changes.choices import StepPhaseChoices as Phase
from changes.choices import StepResultChoices as Result
from changes.credentials import running_files_open
from changes.models import AuditLog, Rollout, Step
from changes.pipelines.runner import rollout_execute

pytestmark = pytest.mark.django_db


def _submitter():
    """Who creates production rollouts: a second person (the admin) approves them (changes.services)."""
    return User.objects.get_or_create(username="submitter")[0]


@pytest.fixture
def admin_user():
    user = User.objects.create_user("alice", password="x")
    user.groups.add(Group.objects.get_or_create(name="admin")[0])
    return user


def _change_set(memory_fabric, changes: dict[str, str]):
    intended = {}
    for host, config in memory_fabric.configs.items():
        files = {"config": config["config"] + changes[host]} if host in changes else dict(config)
        intended[host] = {"files": files, "role": "spine" if host.startswith("spine") else "leaf", "driver": "twin"}
    return services.changeset_create(name="test", intended=intended, driver_for=memory_fabric.driver)


def _started(memory_fabric, admin_user, changes, **policy):
    change_set = _change_set(memory_fabric, changes)
    rollout = services.rollout_create(name="r", kind="canary_push", target="production", change_set=change_set,
                                      policy={"checks": ["health"], "soak_s": 0, "wave_size": 2,
                                              "converge_timeout_s": 1, **policy}, user=_submitter())
    services.rollout_approve(rollout=rollout, user=admin_user)
    return services.rollout_start(rollout=rollout, user=admin_user, enqueue=False)


def test_change_set_skips_devices_without_diff(memory_fabric):
    change_set = _change_set(memory_fabric, {"leaf1": "vlan 30\n", "leaf2": "vlan 30\n"})
    rows = {row.hostname: row for row in change_set.devices.all()}
    assert rows["leaf1"].has_diff and "+vlan 30" in rows["leaf1"].diff
    assert not rows["spine1"].has_diff and rows["spine1"].diff == ""
    assert running_files_open(rows["leaf1"].running_files) == {"config": "hostname leaf1\n"}  # the rollback target


def test_canary_success_pushes_every_changed_device_once(memory_fabric, admin_user):
    rollout = _started(memory_fabric, admin_user, {"leaf1": "vlan 30\n", "leaf2": "vlan 30\n", "leaf3": "vlan 30\n"})
    assert rollout.plan["waves"] == [["leaf1"], ["leaf2", "leaf3"]]  # canary = first leaf, then waves of 2
    state = rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver)
    assert state == State.SUCCEEDED
    assert memory_fabric.commits == {"leaf1": 1, "leaf2": 1, "leaf3": 1}
    rollout.refresh_from_db()
    assert rollout.report["outcome"]["leaf1"]["outcome"] == "pushed"
    assert rollout.report["outcome"]["spine1"]["outcome"] == "unchanged"
    pushes = Step.objects.filter(rollout=rollout, phase=Phase.PUSH)
    assert all(step.finished_at and step.result == Result.OK and step.config_hash for step in pushes)
    assert AuditLog.objects.filter(object_type="changes.rollout", object_id=str(rollout.pk),
                                   changes__to=State.SUCCEEDED).exists()


def test_bad_canary_is_rolled_back_and_later_waves_never_pushed(memory_fabric, admin_user):
    rollout = _started(memory_fabric, admin_user, {"leaf1": BREAKS_BGP, "leaf2": BREAKS_BGP, "leaf3": BREAKS_BGP})
    state = rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver)
    assert state == State.ROLLED_BACK
    assert memory_fabric.commits == {"leaf1": 1}
    assert memory_fabric.configs["leaf1"] == {"config": "hostname leaf1\n"}
    rollout.refresh_from_db()
    assert rollout.report["outcome"]["leaf1"]["outcome"] == "rolled_back"
    assert rollout.report["outcome"]["leaf2"]["outcome"] == "not_reached"
    assert rollout.report["green_after_rollback"] is True
    failed = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, result=Result.FAILED)
    assert "leaf1" in failed.output


def test_resume_after_crash_never_pushes_twice(memory_fabric, admin_user):
    rollout = _started(memory_fabric, admin_user, {"leaf1": "vlan 30\n", "leaf2": "vlan 30\n", "leaf3": "vlan 30\n"})
    memory_fabric.crash_before_commit_of = "leaf2"
    with pytest.raises(SystemExit):  # the "worker" dies in the middle of pushing leaf2
        rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver)
    crashed = Step.objects.get(rollout=rollout, device="leaf2", phase=Phase.PUSH)
    assert crashed.result == Result.RUNNING and crashed.finished_at is None  # exact record: outcome unknown
    # SIGKILL runs no `finally`: the dead runner's lease stays in the row until it expires (the Celery test kills
    # a real worker; here the row is put back the way a kill leaves it).
    Rollout.objects.filter(pk=rollout.pk).update(lease_owner="w1",
                                                 lease_expires_at=timezone.now() + datetime.timedelta(seconds=60))
    # A second runner cannot take over while the dead one's lease is valid...
    assert rollout_execute(rollout_id=rollout.pk, owner="w2", driver_factory=memory_fabric.driver) == "busy"
    Rollout.objects.filter(pk=rollout.pk).update(lease_expires_at=None, lease_owner="")  # ...it expires
    state = rollout_execute(rollout_id=rollout.pk, owner="w2", driver_factory=memory_fabric.driver)
    assert state == State.SUCCEEDED
    assert memory_fabric.commits == {"leaf1": 1, "leaf2": 1, "leaf3": 1}
    crashed.refresh_from_db()
    assert crashed.result == Result.INTERRUPTED
    assert Step.objects.filter(rollout=rollout, device="leaf1", phase=Phase.PUSH).count() == 1


def test_resume_when_commit_landed_but_step_was_not_recorded(memory_fabric, admin_user):
    rollout = _started(memory_fabric, admin_user, {"leaf1": "vlan 30\n"})
    row = rollout.change_set.devices.get(hostname="leaf1")
    memory_fabric.configs["leaf1"] = dict(row.intended_files)  # the commit happened, then the worker died
    Step.objects.create(rollout=rollout, device="leaf1", wave=1, phase=Phase.PUSH, result=Result.RUNNING)
    state = rollout_execute(rollout_id=rollout.pk, owner="w2", driver_factory=memory_fabric.driver)
    assert state == State.SUCCEEDED
    assert memory_fabric.commits == {}  # compared the running hash: nothing pushed again
    skipped = Step.objects.get(rollout=rollout, device="leaf1", phase=Phase.PUSH, result=Result.SKIPPED)
    assert "already runs the intended config" in skipped.output


def test_pause_and_cancel_take_effect_at_step_boundaries(memory_fabric, admin_user):
    rollout = _started(memory_fabric, admin_user, {"leaf1": "a\n", "leaf2": "a\n", "leaf3": "a\n"}, wave_size=1)
    original = memory_fabric.before_commit

    def pause_after_leaf1(hostname):
        original(hostname)
        if hostname == "leaf1":
            services.rollout_pause(rollout=rollout, user=admin_user)

    memory_fabric.before_commit = pause_after_leaf1
    assert rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver) == State.PAUSED
    assert memory_fabric.commits == {"leaf1": 1}  # the running step finished; nothing after the boundary
    services.rollout_start(rollout=rollout, user=admin_user, enqueue=False)  # resume
    memory_fabric.before_commit = original
    assert rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver) == State.SUCCEEDED
    assert memory_fabric.commits == {"leaf1": 1, "leaf2": 1, "leaf3": 1}

    second = _started(memory_fabric, admin_user, {"leaf4": "b\n"})
    services.rollout_cancel(rollout=second, user=admin_user)
    assert rollout_execute(rollout_id=second.pk, owner="w1", driver_factory=memory_fabric.driver) == State.CANCELLED
    assert "leaf4" not in memory_fabric.commits


def test_rolling_upgrade_drains_upgrades_undrains_one_spine_at_a_time(memory_fabric, admin_user):
    roles = {name: ("spine" if name.startswith("spine") else "leaf") for name in memory_fabric.configs}
    links = [[leaf, spine] for leaf in roles if roles[leaf] == "leaf" for spine in ("spine1", "spine2")]
    rollout = services.rollout_create(name="up", kind="rolling_upgrade", target="production",
                                      policy={"target_version": "2.0", "checks": ["health"], "converge_timeout_s": 1},
                                      topology={"roles": roles, "links": links}, user=_submitter())
    assert rollout.plan["waves"] == [["spine1"], ["spine2"]]
    services.rollout_approve(rollout=rollout, user=admin_user)
    services.rollout_start(rollout=rollout, user=admin_user, enqueue=False)
    assert rollout_execute(rollout_id=rollout.pk, owner="w", driver_factory=memory_fabric.driver) == State.SUCCEEDED
    assert memory_fabric.versions == {"spine1": "2.0", "spine2": "2.0"}
    assert memory_fabric.drained == set()
    phases = list(Step.objects.filter(rollout=rollout, device="spine1").values_list("phase", flat=True))
    assert phases == [Phase.DRAIN, Phase.VERIFY, Phase.UPGRADE, Phase.VERIFY, Phase.UNDRAIN]
    # spine2 is drained only after spine1 is back (never both spines at once)
    spine1_undrain = Step.objects.get(rollout=rollout, device="spine1", phase=Phase.UNDRAIN)
    spine2_drain = Step.objects.get(rollout=rollout, device="spine2", phase=Phase.DRAIN)
    assert spine2_drain.id > spine1_undrain.id


def test_rolling_upgrade_failure_aborts_and_holds(memory_fabric, admin_user):
    roles = {name: ("spine" if name.startswith("spine") else "leaf") for name in memory_fabric.configs}
    links = [[leaf, spine] for leaf in roles if roles[leaf] == "leaf" for spine in ("spine1", "spine2")]
    rollout = services.rollout_create(name="up", kind="rolling_upgrade", target="production",
                                      policy={"target_version": "2.0", "checks": ["health"], "converge_timeout_s": 1},
                                      topology={"roles": roles, "links": links}, user=_submitter())
    services.rollout_approve(rollout=rollout, user=admin_user)
    services.rollout_start(rollout=rollout, user=admin_user, enqueue=False)
    memory_fabric.configs["spine1"] = {"config": BREAKS_BGP}  # the new image comes up without sessions
    assert rollout_execute(rollout_id=rollout.pk, owner="w", driver_factory=memory_fabric.driver) == State.FAILED
    rollout.refresh_from_db()
    assert rollout.report["held"] == ["spine1"] and "spine1" in memory_fabric.drained
    assert "spine2" not in memory_fabric.reboots  # aborted: the next wave never started


def test_production_success_marks_the_compile_run_deployed(admin_user):
    from changes_memory_fabric import MemoryFabric

    from compiler.clos import ClosParams, plan_clos
    from intents import services as intent_services
    from intents.models import DeployedConfig
    from inventory.models import Fabric
    from inventory.services import inventory_persist

    inventory_persist(inventory=plan_clos(ClosParams(name="prod", spines=2, leaves=2, servers_per_leaf=1)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="prod"), name="prod-intent")
    run = intent_services.compile_run_create(fabric_intent=intent)
    configs = {config.hostname: config for config in run.device_configs.exclude(platform="frr")}
    devices = MemoryFabric(sorted(configs))
    intended = {host: {"files": {"config": "\n".join(config.files.values())}, "role": config.structured["role"],
                       "driver": "napalm_eos", "structured": config.structured} for host, config in configs.items()}
    change_set = services.changeset_create(name="prod", intended=intended, driver_for=devices.driver,
                                           compile_run_id=run.pk)
    rollout = services.rollout_create(name="prod", kind="canary_push", target="production", change_set=change_set,
                                      policy={"checks": ["static", "health"], "soak_s": 0, "converge_timeout_s": 1},
                                      user=_submitter())
    services.rollout_approve(rollout=rollout, user=admin_user)
    services.rollout_start(rollout=rollout, user=admin_user, enqueue=False)
    assert rollout_execute(rollout_id=rollout.pk, owner="w", driver_factory=devices.driver) == State.SUCCEEDED
    pre_check = Step.objects.get(rollout=rollout, phase=Phase.PRE_CHECK)
    statuses = {check["name"]: check["status"] for check in pre_check.detail["report"]["checks"]}
    assert any(name.startswith("static.") for name in statuses) and "failed" not in statuses.values(), statuses
    deployed = set(DeployedConfig.objects.filter(fabric_intent=intent).values_list("hostname", flat=True))
    assert deployed == set(configs)
    assert all(count == 1 for count in devices.commits.values()) and len(devices.commits) == len(configs)


def test_static_precheck_failure_stops_before_any_push(admin_user):
    import copy

    from changes_memory_fabric import MemoryFabric

    from compiler.clos import ClosParams, plan_clos
    from intents import services as intent_services
    from inventory.models import Fabric
    from inventory.services import inventory_persist

    inventory_persist(inventory=plan_clos(ClosParams(name="bad", spines=2, leaves=2, servers_per_leaf=1)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="bad"), name="bad-intent")
    run = intent_services.compile_run_create(fabric_intent=intent)
    configs = {config.hostname: config for config in run.device_configs.exclude(platform="frr")}
    devices = MemoryFabric(sorted(configs))
    intended = {}
    for host, config in configs.items():
        structured = copy.deepcopy(config.structured)
        if host == "leaf1":  # a fabric port with a wrong MTU: the far end keeps the underlay MTU
            next(port for port in structured["interfaces"] if port["kind"] == "fabric")["mtu"] = 1500
        intended[host] = {"files": {"config": f"{host} v2\n"}, "role": structured["role"], "structured": structured}
    change_set = services.changeset_create(name="bad", intended=intended, driver_for=devices.driver,
                                           compile_run_id=run.pk)
    rollout = services.rollout_create(name="bad", kind="canary_push", target="production", change_set=change_set,
                                      policy={"checks": ["static", "health"], "converge_timeout_s": 1},
                                      user=_submitter())
    services.rollout_approve(rollout=rollout, user=admin_user)
    services.rollout_start(rollout=rollout, user=admin_user, enqueue=False)
    assert rollout_execute(rollout_id=rollout.pk, owner="w", driver_factory=devices.driver) == State.FAILED
    rollout.refresh_from_db()
    assert "pre-checks failed, nothing pushed" in rollout.error and "static." in rollout.error
    assert devices.commits == {}
    assert "leaf1" in Step.objects.get(rollout=rollout, phase=Phase.PRE_CHECK).output


def test_unexpected_error_after_a_push_still_rolls_back(memory_fabric, admin_user, monkeypatch):
    from changes_memory_fabric import MemoryDevice

    rollout = _started(memory_fabric, admin_user, {"leaf1": "vlan 30\n", "leaf2": "vlan 30\n"})
    original, raised = MemoryDevice.health, []

    def buggy_once(self):
        if self.hostname == "leaf1" and not raised and memory_fabric.commits:
            raised.append(True)
            raise KeyError("bug in a health parser")
        return original(self)

    monkeypatch.setattr(MemoryDevice, "health", buggy_once)
    assert rollout_execute(rollout_id=rollout.pk, owner="w", driver_factory=memory_fabric.driver) == State.ROLLED_BACK
    rollout.refresh_from_db()
    assert "KeyError" in rollout.error and memory_fabric.configs["leaf1"] == {"config": "hostname leaf1\n"}
    assert "leaf2" not in memory_fabric.commits
