"""Production canaries rehearse the change on a scratch twin first (root + FRR; skipped with the reason otherwise):
the twin is booted from the change set's compile run, every live check runs on the NEW configs, and a change that
breaks the twin stops the rollout before any device is pushed. The scratch twin is always torn down."""

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
from intents.models import DeviceConfig
from inventory.models import Fabric
from inventory.services import inventory_persist
from labs.runtime import namespaces_with_prefix

pytestmark = [pytest.mark.django_db, pytest.mark.twin]


def _submitter():
    """Who creates production rollouts: a second person (the admin) approves them (changes.services)."""
    return User.objects.get_or_create(username="submitter")[0]


@pytest.fixture
def admin_user():
    user = User.objects.create_user("rehearsal-admin")
    user.groups.add(Group.objects.get_or_create(name="admin")[0])
    return user


def _production_canary(admin_user, name: str, break_leaf1: bool):
    inventory_persist(inventory=plan_clos(ClosParams(name=name, spines=2, leaves=2, servers_per_leaf=1)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name=name), name=f"{name}-intent")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    run = intent_services.compile_run_create(fabric_intent=intent)
    assert run.status == "succeeded", run.error
    if break_leaf1:  # what the run would push to leaf1 peers with the wrong spine ASN: sessions cannot come up
        # (its EOS text: the scratch twin runs each switch's own config, the text that would be pushed)
        row = DeviceConfig.objects.get(run=run, hostname="leaf1", platform="eos")
        spine_asn = str(row.structured["bgp"]["neighbors"][0]["remote_as"])
        text = row.files["startup-config"]
        assert f"remote-as {spine_asn}" in text
        row.files = {**row.files, "startup-config": text.replace(f"remote-as {spine_asn}", "remote-as 64999")}
        row.save()
    configs = {config.hostname: config for config in run.device_configs.exclude(platform="frr")}
    devices = MemoryFabric(sorted(configs))
    intended = {host: {"files": {"config": "\n".join(config.files.values())}, "role": config.structured["role"],
                       "driver": "napalm_eos", "structured": config.structured} for host, config in configs.items()}
    change_set = services.changeset_create(name=name, intended=intended, driver_for=devices.driver,
                                           compile_run_id=run.pk)
    rollout = services.rollout_create(name=name, kind="canary_push", target="production", change_set=change_set,
                                      policy={"checks": ["static", "rehearsal", "health"], "soak_s": 0,
                                              "converge_timeout_s": 45}, user=_submitter())
    services.rollout_approve(rollout=rollout, user=admin_user)
    services.rollout_start(rollout=rollout, user=admin_user, enqueue=False)
    state = rollout_execute(rollout_id=rollout.pk, owner="w", driver_factory=devices.driver)
    pre_check = Step.objects.get(rollout=rollout, phase=Phase.PRE_CHECK)
    statuses = {check["name"]: check["status"] for check in pre_check.detail["report"]["checks"]}
    return state, statuses, devices


@pytest.mark.usefixtures("twin_required")
def test_good_change_is_rehearsed_on_a_scratch_twin_then_pushed(admin_user):
    state, statuses, devices = _production_canary(admin_user, "rehok", break_leaf1=False)
    assert state == State.SUCCEEDED, statuses
    assert statuses["rehearsal.twin.bgp_sessions"] == "passed"
    assert statuses["rehearsal.twin.evpn_flood_lists"] == statuses["rehearsal.twin.link_mtu"] == "passed"
    assert devices.commits  # pushed after the rehearsal
    assert not namespaces_with_prefix("ftr")  # the scratch twin is gone


@pytest.mark.usefixtures("twin_required")
def test_change_that_breaks_the_twin_stops_before_any_push(admin_user):
    state, statuses, devices = _production_canary(admin_user, "rehbad", break_leaf1=True)
    assert state == State.FAILED
    assert statuses["rehearsal.twin.bgp_sessions"] == "failed"
    assert not devices.commits  # nothing pushed to production
    assert not namespaces_with_prefix("ftr")
