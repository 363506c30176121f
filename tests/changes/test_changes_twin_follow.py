"""The twin follows rollouts (issue #15 item 8, #16 item 2): after each successful push to a twin switch, the
twin's records (the runtime's state file topology the live checks and fidelity expect from, and the switch's
``intents.DeployedConfig`` row of the twin) say what that switch runs now; a failed push changes nothing; a rolled-back push
is recorded back. The twin driver is the in-memory device double (tests/changes/changes_memory_fabric.py) at the
driver boundary: the live twin is not the point here (test_changes_compile_twin.py is)."""

from __future__ import annotations

import time

import pytest
from changes_memory_fabric import BREAKS_BGP, MemoryDevice, MemoryFabric

from changes import services as change_services
from changes.choices import RolloutStateChoices as State
from changes.pipelines.runner import rollout_execute
from compiler.clos import ClosParams, plan_clos
from compiler.errors import DriverError, InputError
from intents import services as intent_services
from intents.deployed import deployed_on_twin, deployed_twin_boot
from inventory.models import Fabric
from inventory.services import inventory_persist
from labs import expect
from labs.from_compile import topology_from_compile
from labs.runtime import TwinState
from twins import services
from twins.choices import TwinStatusChoices

pytestmark = pytest.mark.django_db
PREFIX = "twfollow1"


@pytest.fixture
def booted(tmp_path):
    """A 2x2 fabric compiled twice (the second adds network net30, VNI on the leaves); a twin record and state
    file as ``twin up`` leaves them after booting the first compile; the in-memory switches run its frr files."""
    inventory_persist(inventory=plan_clos(ClosParams(name="follow", spines=2, leaves=2, servers_per_leaf=1)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="follow"), name="follow-intent")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    first = intent_services.compile_run_create(fabric_intent=intent)
    intent_services.network_create(tenant=tenant, name="net30", vlan_id=30, subnet="10.30.0.0/24",
                                   gateway="10.30.0.1")
    second = intent_services.compile_run_create(fabric_intent=intent)
    assert first.status == second.status == "succeeded", (first.error, second.error)
    topology = topology_from_compile(services.compile_result_for_run(run=first), name_prefix=PREFIX)
    TwinState(prefix=PREFIX, label=topology.label, digest=topology.digest(), state_dir=str(tmp_path), status="up",
              created_at=time.time(), node_netns={node.name: topology.netns(node.name) for node in topology.nodes},
              host_netns={}, frr_dirs=[], topology=topology.to_dict()).save()
    twin = services.twin_get_or_create(fabric_intent=intent, prefix=PREFIX, state_dir=str(tmp_path))
    twin.status, twin.compile_run = TwinStatusChoices.UP, first
    deployed_twin_boot(fabric_intent_id=intent.pk, twin_id=twin.pk, run=first,
                       hostnames=[node.name for node in topology.nodes])
    twin.save()
    frr = {run.pk: {c.hostname: c.files for c in run.device_configs.filter(platform="frr")} for run in (first, second)}
    devices = MemoryFabric(sorted(frr[first.pk]))
    devices.configs = {host: dict(files) for host, files in frr[first.pk].items()}
    return {"intent": intent, "first": first, "second": second, "frr": frr, "devices": devices,
            "state_dir": str(tmp_path), "twin": twin}


def _rollout(booted, intended: dict[str, dict[str, str]]):
    devices = booted["devices"]
    rows = {host: {"files": files, "role": "spine" if host.startswith("spine") else "leaf", "driver": "twin"}
            for host, files in intended.items()}
    change_set = change_services.changeset_create(name="follow", intended=rows, driver_for=devices.driver,
                                                  compile_run_id=booted["second"].pk, twin=booted["twin"])
    rollout = change_services.rollout_create(
        name="follow", kind="canary_push", target="twin", change_set=change_set,
        policy={"checks": ["health"], "soak_s": 0, "wave_size": 1, "converge_timeout_s": 1})
    change_services.rollout_start(rollout=rollout, enqueue=False)
    state = rollout_execute(rollout_id=rollout.pk, owner="follow", driver_factory=devices.driver)
    rollout.refresh_from_db()
    return state, rollout


def _configs(twin) -> dict[str, dict]:
    """What each switch of the twin runs: its intents.DeployedConfig rows (issue #28 point 4)."""
    return deployed_on_twin(twin_id=twin.pk)


def _state_nodes(booted) -> dict:
    state = TwinState.load(PREFIX, booted["state_dir"])
    return {node.name: node for node in state.topology_obj().nodes}


def _vnis(booted) -> dict[str, set[int]]:
    state = TwinState.load(PREFIX, booted["state_dir"])
    return {node: set(vnis.values()) for node, vnis in expect.vxlan_vnis(state.topology_obj()).items()}


def test_rollout_to_the_twin_moves_its_record_and_the_checks_expectations_to_the_new_compile(booted):
    first, second, frr = booted["first"], booted["second"], booted["frr"]
    before = _vnis(booted)
    state, rollout = _rollout(booted, frr[second.pk])
    assert state == State.SUCCEEDED, rollout.error
    twin = booted["twin"]
    twin.refresh_from_db()
    # The stale twin: before the fix the record kept the boot compile and the live checks expected its VNIs only.
    assert twin.compile_run_id == second.pk, _configs(twin)
    assert {entry["compile_run"] for entry in _configs(twin).values()} == {second.pk}
    pushed = {host for host in frr[second.pk] if frr[second.pk][host] != frr[first.pk][host]}
    assert pushed and all(host.startswith("leaf") for host in pushed)
    for host in pushed:
        entry = _configs(twin)[host]
        assert (entry["source"], entry["rollout"], entry["previous"]["compile_run"]) == ("rollout", rollout.pk,
                                                                                        first.pk)
    nodes = _state_nodes(booted)
    assert all(nodes[host].frr_conf == frr[second.pk][host]["frr.conf"] for host in frr[second.pk])
    after = _vnis(booted)
    assert all(after[leaf] > before[leaf] for leaf in pushed), (before, after)  # net30's VNI is now expected
    assert TwinState.load(PREFIX, booted["state_dir"]).digest == \
        TwinState.load(PREFIX, booted["state_dir"]).topology_obj().digest()
    assert services.twin_runs_text(twin=twin) == f"runs compile #{second.pk}"
    # the per-switch account of its own config (what runs live, what is static-only) follows the push too
    accounts = TwinState.load(PREFIX, booted["state_dir"]).topology_obj().extra["device_configs"]
    assert {host: (accounts[host]["compile_run"], accounts[host]["source"]) for host in pushed} == {
        host: (second.pk, "rollout") for host in pushed}
    assert all(accounts[host]["live"] for host in pushed)


def test_a_push_that_fails_does_not_move_the_record(booted, monkeypatch):
    first, second, frr = booted["first"], booted["second"], booted["frr"]
    boot_nodes = _state_nodes(booted)

    def refuse(self):
        raise DriverError(f"{self.hostname}: commit refused by the device")

    monkeypatch.setattr(MemoryDevice, "commit", refuse)
    state, rollout = _rollout(booted, frr[second.pk])
    assert state in (State.ROLLED_BACK, State.FAILED) and "commit refused" in rollout.error
    twin = booted["twin"]
    twin.refresh_from_db()
    assert twin.compile_run_id == first.pk
    assert {entry["source"] for entry in _configs(twin).values()} == {"boot"}
    assert _state_nodes(booted) == boot_nodes


def test_a_canary_that_pushed_one_switch_then_rolled_back_is_recorded_back(booted):
    first, second, frr = booted["first"], booted["second"], booted["frr"]
    intended = {host: dict(files) for host, files in frr[second.pk].items()}
    intended["leaf1"]["frr.conf"] += f"! {BREAKS_BGP}\n"  # the canary's post-checks fail: BGP down on leaf1
    state, rollout = _rollout(booted, intended)
    assert state == State.ROLLED_BACK, rollout.error
    twin = booted["twin"]
    twin.refresh_from_db()
    leaf1 = _configs(twin)["leaf1"]
    assert (leaf1["source"], leaf1["compile_run"], leaf1["rollout"]) == ("rollback", first.pk, rollout.pk)
    assert twin.compile_run_id == first.pk  # every switch runs the boot compile again
    assert _state_nodes(booted)["leaf1"].frr_conf == frr[first.pk]["leaf1"]["frr.conf"]
    account = TwinState.load(PREFIX, booted["state_dir"]).topology_obj().extra["device_configs"]["leaf1"]
    assert (account["compile_run"], account["source"]) == (first.pk, "rollback")
    assert booted["devices"].commits == {"leaf1": 1}  # the canary only: later waves never pushed


def test_status_vocabulary_is_one_and_healthy_is_derived(booted):
    from twins.api.serializers import TwinSerializer

    twin = booted["twin"]
    twin.status = TwinStatusChoices.DEGRADED
    twin.last_report = {"ok": False, "checks": [{"name": "twin.evpn_flood_lists", "status": "failed"}]}
    twin.save()
    data = TwinSerializer(twin).data
    assert (data["status"], data["healthy"]) == ("degraded", False)
    assert services.twin_status_reason(twin=twin) == "live checks failed: twin.evpn_flood_lists"
    twin.status = TwinStatusChoices.UP
    assert TwinSerializer(twin).data["healthy"] is True
    assert services.twin_status_reason(twin=twin) == "every live check passed"


def test_diffs_say_what_the_target_runs_and_agree_across_api_and_command(booted, api_client):
    from io import StringIO

    from django.core.management import call_command

    first, second, frr = booted["first"], booted["second"], booted["frr"]
    intent = booted["intent"]
    # Right after booting compile #first: the intent (= compile #second) differs from what the twin runs.
    diffs = {(d.hostname, d.platform): d for d in intent_services.config_diff(fabric_intent=intent)}
    leaf1 = diffs[("leaf1", "frr")]
    assert leaf1.label == f"diff vs twin (running compile #{first.pk})" and leaf1.changed
    assert (leaf1.baseline, leaf1.target, leaf1.baseline_run) == ("twin", "twin", first.pk)
    other = next(d for (host, platform), d in diffs.items() if host == "leaf1" and platform != "frr")
    assert other.label.endswith("; the twin runs its frr rendering)")
    compiled = intent_services.config_diff(fabric_intent=intent, device="leaf1", platform="frr", target="compile")
    assert compiled[0].label == f"diff vs last compile (#{second.pk})" and not compiled[0].changed
    state, _rollout_row = _rollout(booted, frr[second.pk])
    assert state == State.SUCCEEDED
    # After the rollout the twin runs #second: nothing left to push, and every client says so in the same words.
    body = api_client.get(f"/api/fabric-intents/{intent.pk}/diff/", {"device": "leaf1", "platform": "frr"}).json()
    (result,) = body["results"]
    assert (result["label"], result["changed"]) == (f"diff vs twin (running compile #{second.pk})", False)
    out = StringIO()
    call_command("config_diff", fabric=intent.name, stdout=out)
    assert out.getvalue().strip().endswith(f"(compared with twin: {len(diffs)})"), out.getvalue()
    assert api_client.get(f"/api/fabric-intents/{intent.pk}/diff/", {"target": "bogus"}).status_code == 400
    booted["twin"].status = TwinStatusChoices.DOWN
    booted["twin"].save()
    missing = api_client.get(f"/api/fabric-intents/{intent.pk}/diff/", {"target": "twin"})
    assert missing.status_code == 400 and "no running twin" in missing.content.decode()
    # nothing deployed, no twin: the last compile, said so
    assert intent_services.config_diff(fabric_intent=intent, device="leaf1", platform="frr")[0].label == \
        f"diff vs last compile (#{second.pk})"


def test_switches_on_different_compiles_are_said_so(booted):
    first, second, frr = booted["first"], booted["second"], booted["frr"]
    twin = services.twin_switch_record(twin=booted["twin"], hostname="leaf1",
                                       files=frr[second.pk]["leaf1"], sha256="x", source="rollout",
                                       compile_run_id=second.pk, rollout_id=None)
    assert twin.compile_run_id is None  # no single compile runs everywhere: fidelity refuses, diffs go per switch
    assert services.twin_runs_text(twin=twin) == (f"switches run different compiles (#{second.pk}: leaf1; "
                                                  f"#{first.pk}: leaf2, spine1, spine2)")
    with pytest.raises(InputError, match="source='pushed': one of boot, rollout, rollback"):
        services.twin_switch_record(twin=twin, hostname="leaf1", files={}, sha256="", source="pushed")


def test_recording_a_push_again_after_a_resume_keeps_what_the_switch_ran_before(booted):
    first, second, frr = booted["first"], booted["second"], booted["frr"]
    record = {"twin": booted["twin"], "hostname": "leaf1", "rollout_id": 99}
    for _ in range(2):  # the second one is a resumed rollout recording the same push
        twin = services.twin_switch_record(**record, files=frr[second.pk]["leaf1"], sha256="new", source="rollout",
                                           compile_run_id=second.pk)
        assert _configs(twin)["leaf1"]["previous"]["compile_run"] == first.pk
    for _ in range(2):
        twin = services.twin_switch_record(**record, files=frr[first.pk]["leaf1"], sha256="old", source="rollback",
                                           compile_run_id=second.pk)
        assert (_configs(twin)["leaf1"]["compile_run"], twin.compile_run_id) == (first.pk, first.pk)
