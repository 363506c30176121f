"""End to end through the real product path (root + FRR; skipped otherwise): inventory from the Clos planner, a
fabric intent, a compile run, a twin booted from that compile; then a network with a new VNI is added to the
intent, compiled again, turned into a change set from the compile run and rolled out canary-first on the twin
with the static validators as pre-check. Every twin node then runs exactly the new compile's FRR files, and the
twin follows: its record says every switch runs the new compile and its live checks, which compare against what
each switch runs, are green (before the twin followed rollouts they kept comparing against the boot compile)."""

from __future__ import annotations

import uuid

import pytest

from changes import services
from changes.choices import RolloutStateChoices as State
from changes.choices import StepPhaseChoices as Phase
from changes.drivers.twin import TwinDriver
from changes.models import Step
from changes.pipelines.runner import rollout_execute
from compiler.clos import ClosParams, plan_clos
from intents import services as intent_services
from intents.deployed import deployed_on_twin
from inventory.models import Fabric
from inventory.services import inventory_persist
from twins import services as twin_services

pytestmark = [pytest.mark.twin, pytest.mark.django_db, pytest.mark.slow]


def test_new_vni_from_compile_run_rolls_out_on_the_twin(twin_required, tmp_path):
    inventory_persist(inventory=plan_clos(ClosParams(name="e2e", spines=2, leaves=2, servers_per_leaf=1)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="e2e"), name="e2e-intent")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    first = intent_services.compile_run_create(fabric_intent=intent)
    assert first.status == "succeeded", first.error
    prefix = "fte" + uuid.uuid4().hex[:6]
    twin = twin_services.twin_up(fabric_intent=intent, compile_run=first, prefix=prefix, state_dir=str(tmp_path),
                                 checks=False)
    try:
        intent_services.network_create(tenant=tenant, name="net30", vlan_id=30, subnet="10.30.0.0/24",
                                       gateway="10.30.0.1")
        second = intent_services.compile_run_create(fabric_intent=intent)
        assert second.status == "succeeded", second.error
        change_set = services.changeset_create_from_compile_run(compile_run_id=second.pk, target="twin", twin=twin)
        changed = sorted(change_set.devices.filter(has_diff=True).values_list("hostname", flat=True))
        assert changed and all(name.startswith("leaf") for name in changed), changed
        rollout = services.rollout_create(
            name="add net30", kind="canary_push", target="twin", change_set=change_set,  # its twin: the set's
            policy={"soak_s": 1, "wave_size": 1, "checks": ["static", "bgp", "evpn", "ping"], "converge_timeout_s": 45})
        assert (change_set.twin, rollout.twin) == (twin, twin)
        services.rollout_start(rollout=rollout, enqueue=False)
        state = rollout_execute(rollout_id=rollout.pk, owner="e2e")
        rollout.refresh_from_db()
        pre = Step.objects.get(rollout=rollout, phase=Phase.PRE_CHECK)
        assert state == State.SUCCEEDED, f"{rollout.error}\n{pre.output}"
        assert any(check["name"].startswith("static.") and check["status"] == "passed"
                   for check in pre.detail["report"]["checks"]), pre.output
        frr_files = {config.hostname: config.files for config in second.device_configs.filter(platform="frr")}
        for node, files in frr_files.items():
            assert TwinDriver(prefix, node, str(tmp_path)).is_at(files), node
        twin = twin_services.twin_check(twin=twin)
        failed = {check["name"]: [finding["message"] for finding in check["findings"]][:3]
                  for check in twin.last_report["checks"] if check["status"] == "failed"}
        assert (twin.status, twin.compile_run_id, twin.last_report["compile_run"]) == ("up", second.pk, second.pk), \
            failed
        assert set(twin.last_report["switch_compile_runs"].values()) == {second.pk}
        running = deployed_on_twin(twin_id=twin.pk)  # the twin's intents.DeployedConfig rows
        assert {entry["source"] for host, entry in running.items() if host in changed} == {"rollout"}
    finally:
        twin_services.twin_down(twin=twin, force=True)
