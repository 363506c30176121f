"""Canary pushes on the live twin (root + FRR; skipped with the reason otherwise).

Good change: a network with a new VNI is added to every leaf; it goes canary-first and succeeds, and every twin node
then runs exactly the intended config, with EVPN flood lists for the new VNI complete. Bad change: the canary
leaf gets the spines' ASN, which breaks its eBGP sessions; the post-checks catch it at the canary, it is rolled
back, the other leaf is never touched, and the twin's checks are green again. A second bad change (a 1500-byte
fabric port) keeps BGP up and is caught by the DF probes instead.
"""

from __future__ import annotations

import uuid

import pytest
from changes_fabric import BASE_NETWORKS, SPINE_ASN, fabric
from django.contrib.auth.models import User
from twin_rows import twin_row

from changes import services
from changes.choices import RolloutStateChoices as State
from changes.choices import StepPhaseChoices as Phase
from changes.choices import StepResultChoices as Result
from changes.credentials import running_files_open
from changes.drivers.twin import TwinDriver
from changes.models import Step
from changes.pipelines.runner import rollout_execute
from labs import collectors, runtime

pytestmark = [pytest.mark.twin, pytest.mark.django_db]
NEW_NETWORK = {"net30": (30, 10030, "10.30.0")}


@pytest.fixture
def twin(twin_required, tmp_path):
    prefix = "ftc" + uuid.uuid4().hex[:6]
    topology, files, roles = fabric(prefix, spines=2, leaves=2)
    state = runtime.up(topology, state_dir=tmp_path)
    try:
        yield {"prefix": prefix, "state_dir": str(tmp_path), "files": files, "roles": roles, "state": state}
    finally:
        runtime.down(prefix, state_dir=tmp_path, force=True)


def _rollout(twin, intended_files, **policy):
    user = User.objects.create_user("operator")
    row = twin_row(prefix=twin["prefix"], state_dir=twin["state_dir"])
    change_set = services.changeset_create_for_twin(name="change", twin=row, intended_files=intended_files,
                                                    roles=twin["roles"], user=user)
    rollout = services.rollout_create(
        name="canary", kind="canary_push", target="twin", change_set=change_set, user=user,
        policy={"checks": ["bgp", "evpn", "ping"], "soak_s": 2, "wave_size": 1, "converge_timeout_s": 30, **policy})
    return services.rollout_start(rollout=rollout, user=user, enqueue=False)


def test_good_change_new_vni_rolls_out_canary_first(twin):
    _, new_files, _ = fabric(twin["prefix"], networks={**BASE_NETWORKS, **NEW_NETWORK})
    rollout = _rollout(twin, new_files)
    assert rollout.plan["waves"] == [["leaf1"], ["leaf2"]]  # spines have no diff: a new L2VNI lives on leaves
    assert sorted(rollout.plan["unchanged"]) == ["spine1", "spine2"]

    state = rollout_execute(rollout_id=rollout.pk, owner="test")
    rollout.refresh_from_db()
    assert state == State.SUCCEEDED, rollout.error
    pushes = list(Step.objects.filter(rollout=rollout, phase=Phase.PUSH).values_list("device", "result"))
    assert pushes == [("leaf1", Result.OK), ("leaf2", Result.OK)]  # canary first
    verified = Step.objects.filter(rollout=rollout, phase=Phase.VERIFY).exclude(device="")  # post-push: parsed
    assert sorted(verified.values_list("device", "result")) == [("leaf1", Result.OK), ("leaf2", Result.OK)]
    assert all("equals the pushed one" in step.output for step in verified)
    canary_verify = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, wave=1, detail__tag="")
    assert canary_verify.id < Step.objects.get(rollout=rollout, device="leaf2", phase=Phase.PUSH).id
    for node, files in new_files.items():  # every node runs the intent
        driver = TwinDriver(twin["prefix"], node, twin["state_dir"])
        assert driver.is_at(files), node
        assert driver.push_count() == (1 if node.startswith("leaf") else 0)
    flood = collectors.collect_flood_lists(runtime.TwinState.load(twin["prefix"], twin["state_dir"])
                                           .switch_namespaces("leaf1"))
    assert flood.get("vx10030") == {"10.0.4.102"}, flood  # EVPN type-3 for the new VNI from the other leaf
    report = canary_verify.detail["report"]
    assert report["ok"] and {c["name"] for c in report["checks"]} >= {"twin.bgp_sessions", "twin.evpn_flood_lists"}


def test_bad_change_caught_at_canary_and_rolled_back(twin):
    _, bad_files, _ = fabric(twin["prefix"], leaf_asn_override={"leaf1": SPINE_ASN, "leaf2": SPINE_ASN})
    rollout = _rollout(twin, bad_files, converge_timeout_s=12)
    state = rollout_execute(rollout_id=rollout.pk, owner="test")
    rollout.refresh_from_db()
    assert state == State.ROLLED_BACK, rollout.error
    failed = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, wave=1, result=Result.FAILED)
    assert "twin.bgp_sessions" in failed.output and "leaf1" in failed.output
    assert rollout.report["outcome"]["leaf1"]["outcome"] == "rolled_back"
    assert rollout.report["outcome"]["leaf2"]["outcome"] == "not_reached"
    assert rollout.report["green_after_rollback"] is True
    assert TwinDriver(twin["prefix"], "leaf2", twin["state_dir"]).push_count() == 0
    leaf1 = TwinDriver(twin["prefix"], "leaf1", twin["state_dir"])
    assert leaf1.is_at(twin["files"]["leaf1"])  # back on the original config
    saved = running_files_open(rollout.change_set.devices.get(hostname="leaf1").running_files)
    assert leaf1.get_running_config() == saved  # byte-identical to the running config saved before the push
    assert leaf1.health().all_established
    after = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, detail__tag="after_rollback")
    assert after.result == Result.OK and after.detail["report"]["ok"]


def test_bad_mtu_change_caught_at_canary_by_df_probes_and_rolled_back(twin):
    # BGP and small pings survive a 1500-byte fabric port (TCP MSS adapts): only the MTU probes see it.
    _, bad_files, _ = fabric(twin["prefix"], port_mtu_override={("leaf1", "eth1"): 1500, ("leaf2", "eth1"): 1500})
    rollout = _rollout(twin, bad_files, checks=["bgp", "mtu"], converge_timeout_s=20)
    state = rollout_execute(rollout_id=rollout.pk, owner="test")
    rollout.refresh_from_db()
    assert state == State.ROLLED_BACK, rollout.error
    failed = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, wave=1, result=Result.FAILED)
    statuses = {check["name"]: check["status"] for check in failed.detail["report"]["checks"]}
    assert statuses["twin.bgp_sessions"] == "passed" and statuses["twin.link_mtu"] == "failed"
    assert "leaf1:eth1" in failed.output
    assert TwinDriver(twin["prefix"], "leaf2", twin["state_dir"]).push_count() == 0
    assert TwinDriver(twin["prefix"], "leaf1", twin["state_dir"]).is_at(twin["files"]["leaf1"])
    after = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, detail__tag="after_rollback")
    assert after.result == Result.OK and after.detail["report"]["ok"]
