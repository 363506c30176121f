"""The rollout gate on the text (issue #15 item 6), end to end: a change set whose files to push differ from the
compiled structured config (PFC removed from one EOS port) fails the pre-checks and pushes nothing; the same
change set with the compiled files goes through."""

from __future__ import annotations

import pytest
from changes_memory_fabric import MemoryFabric
from django.contrib.auth.models import Group, User

from changes import services
from changes.choices import RolloutStateChoices as State
from changes.choices import StepPhaseChoices as Phase
from changes.models import Step
from changes.pipelines.runner import rollout_execute
from compiler.clos import ClosParams, plan_clos
from intents import services as intent_services
from inventory.models import Fabric
from inventory.services import inventory_persist

pytestmark = pytest.mark.django_db


def _rollout(admin_user, edit) -> tuple[object, MemoryFabric]:
    inventory_persist(inventory=plan_clos(ClosParams(name="gate", spines=2, leaves=2, servers_per_leaf=1)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="gate"), name="gate-intent")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    intent_services.roce_defaults_apply(fabric_intent=intent)
    run = intent_services.compile_run_create(fabric_intent=intent)
    configs = {config.hostname: config for config in run.device_configs.exclude(platform="frr")}
    devices = MemoryFabric(sorted(configs))
    intended = {host: {"files": edit(host, dict(config.files)), "platform": config.platform,
                       "role": config.structured["role"], "structured": config.structured}
                for host, config in configs.items()}
    change_set = services.changeset_create(name="gate", intended=intended, driver_for=devices.driver,
                                           compile_run_id=run.pk)
    submitter = User.objects.create_user("gate-submitter")
    submitter.groups.add(Group.objects.get(name="operator"))
    rollout = services.rollout_create(name="gate", kind="canary_push", target="production", change_set=change_set,
                                      policy={"checks": ["static", "health"], "soak_s": 0, "converge_timeout_s": 1},
                                      user=submitter)
    services.rollout_approve(rollout=rollout, user=admin_user)
    services.rollout_start(rollout=rollout, user=admin_user, enqueue=False)
    return rollout, devices


def _drop_pfc(host: str, files: dict) -> dict:
    if host == "leaf1":
        text = files["startup-config"]
        port = text.index("   service-profile FT_ROCE\n", text.index("\ninterface Ethernet"))
        files["startup-config"] = text[:port] + text[port + len("   service-profile FT_ROCE\n"):]
    return files


def test_files_that_lost_pfc_stop_the_rollout(admin_user):
    rollout, devices = _rollout(admin_user, _drop_pfc)
    assert rollout_execute(rollout_id=rollout.pk, owner="w", driver_factory=devices.driver) == State.FAILED
    rollout.refresh_from_db()
    assert "pre-checks failed, nothing pushed" in rollout.error and "static.text.render" in rollout.error
    assert devices.commits == {}
    report = Step.objects.get(rollout=rollout, phase=Phase.PRE_CHECK).detail["report"]
    text = next(check for check in report["checks"] if check["name"] == "static.text.render")
    assert any("PFC priorities" in f["message"] and f["subject"].startswith("leaf1:") for f in text["findings"])


def test_compiled_files_pass_the_gate(admin_user):
    rollout, devices = _rollout(admin_user, lambda host, files: files)
    assert rollout_execute(rollout_id=rollout.pk, owner="w", driver_factory=devices.driver) == State.SUCCEEDED
    report = Step.objects.get(rollout=rollout, phase=Phase.PRE_CHECK).detail["report"]
    assert {check["name"]: check["status"] for check in report["checks"]}["static.text.render"] == "passed"
    sessions = next(check for check in report["checks"] if check["name"] == "static.bgp.sessions")
    assert sessions["status"] == "passed" and sessions["examined"]["BGP neighbors"] > 0  # coverage kept (issue 25)
