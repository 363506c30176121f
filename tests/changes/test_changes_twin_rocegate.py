"""The RoCE gate on the live twin (root + FRR; skipped with the reason otherwise): counters from the twin's
synthetic plane through the twin driver.

A change that is fine for BGP (a new VNI on every leaf) is pushed to the canary leaf whose synthetic counter plane
has a fault armed (``TwinDriver.roce_fault_inject``: it shows from the node's next commit, as if the push had set
ECN thresholds ten times too high). BGP stays up, the RoCE gate fails on the canary's counters against its own pre
window and the other leaf, the canary is rolled back, the fault goes with the config, the other leaf is never
pushed. Without the armed fault the same change passes the gate and reaches both leaves.
"""

from __future__ import annotations

import uuid

import pytest
from changes_fabric import BASE_NETWORKS, fabric
from django.contrib.auth.models import User

from changes import services
from changes.choices import RolloutStateChoices as State
from changes.choices import StepPhaseChoices as Phase
from changes.choices import StepResultChoices as Result
from changes.drivers.twin import ROCE_FAULT, ROCE_FAULT_ARMED, TwinDriver
from changes.models import Step
from changes.pipelines.runner import rollout_execute
from labs import runtime

pytestmark = [pytest.mark.twin, pytest.mark.django_db]
NEW_NETWORK = {"net30": (30, 10030, "10.30.0")}


@pytest.fixture
def twin(twin_required, tmp_path):
    prefix = "rgt" + uuid.uuid4().hex[:6]
    topology, files, roles = fabric(prefix, spines=2, leaves=2)
    state = runtime.up(topology, state_dir=tmp_path)
    try:
        yield {"prefix": prefix, "state_dir": str(tmp_path), "files": files, "roles": roles, "state": state}
    finally:
        runtime.down(prefix, state_dir=tmp_path, force=True)


def _rollout(twin):
    _, new_files, _ = fabric(twin["prefix"], networks={**BASE_NETWORKS, **NEW_NETWORK})
    user = User.objects.create_user("operator")
    change_set = services.changeset_create_for_twin(name="change", prefix=twin["prefix"], state_dir=twin["state_dir"],
                                                    intended_files=new_files, roles=twin["roles"], user=user)
    rollout = services.rollout_create(
        name="canary", kind="canary_push", target="twin", change_set=change_set, user=user,
        policy={"twin_prefix": twin["prefix"], "twin_state_dir": twin["state_dir"], "checks": ["bgp"],
                "soak_s": 0, "wave_size": 1, "converge_timeout_s": 30,
                "roce_gate": {"enabled": True, "pre_s": 0.3, "post_s": 0.1, "polls": 2}})
    return services.rollout_start(rollout=rollout, user=user, enqueue=False), new_files


def test_a_canary_that_breaks_roce_on_the_twin_is_rolled_back(twin):
    canary = TwinDriver(twin["prefix"], "leaf1", twin["state_dir"])
    canary.roce_fault_inject("ecn_threshold_10x")
    rollout, _ = _rollout(twin)

    assert rollout_execute(rollout_id=rollout.pk, owner="test") == State.ROLLED_BACK
    rollout.refresh_from_db()
    assert rollout.error.startswith("wave 1 (leaf1): CheckFailed: RoCE gate failed"), rollout.error
    bgp = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, wave=1, device="", detail__tag="")
    assert bgp.result == Result.OK  # every session up: only the RoCE gate saw the fault
    gate = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, detail__tag="roce_gate")
    assert gate.result == Result.FAILED and gate.detail["peers"] == ["leaf2"]
    assert gate.detail["decision"]["decided_at_poll"] <= 2
    assert not Step.objects.filter(rollout=rollout, phase=Phase.PUSH, device="leaf2").exists()
    assert canary.push_count() == 2  # the push, then the rollback
    assert canary.is_at(twin["files"]["leaf1"])
    assert (canary.etc / ROCE_FAULT).read_text() == "" and (canary.etc / ROCE_FAULT_ARMED).read_text() == ""


def test_the_same_change_without_the_fault_passes_the_gate_on_the_twin(twin):
    rollout, new_files = _rollout(twin)
    assert rollout_execute(rollout_id=rollout.pk, owner="test") == State.SUCCEEDED
    gate = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, detail__tag="roce_gate")
    assert gate.result == Result.OK and gate.output.startswith("RoCE gate passed after 2 poll(s)")
    assert {row["device"] for row in gate.detail["table"]} == {"leaf1"}
    for node in ("leaf1", "leaf2"):
        assert TwinDriver(twin["prefix"], node, twin["state_dir"]).is_at(new_files[node])
