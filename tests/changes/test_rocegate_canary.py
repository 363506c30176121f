"""The RoCE gate wired into the canary runner (issue 34): a canary whose push breaks the lossless class (a fault
model of the synthetic counter plane, read through the drivers' ``counters()``) is rolled back with the gate's
reason in its step; a healthy canary proceeds; a bad ``roce_gate`` policy is a 400 naming the field. Devices are
the in-memory double (changes_memory_fabric) whose counters come from the synthetic plane, as the twin's do."""

from __future__ import annotations

import io

import pytest
from changes_memory_fabric import ROCE_FAULT
from django.contrib.auth.models import Group, User
from django.core.management import call_command

from changes import services
from changes.choices import RolloutStateChoices as State
from changes.choices import StepPhaseChoices as Phase
from changes.choices import StepResultChoices as Result
from changes.models import Step
from changes.pipelines.runner import rollout_execute
from changes.rocegate import synthetic

pytestmark = pytest.mark.django_db
# 6 polls before the push, 2 after, 50 ms apart: the plane advances one modelled 10 s interval per read.
FAST_GATE = {"enabled": True, "pre_s": 0.25, "post_s": 0.1, "polls": 2}


@pytest.fixture
def admin_user():
    user = User.objects.create_user("alice", password="x")
    user.groups.add(Group.objects.get_or_create(name="admin")[0])
    return user


def _started(memory_fabric, admin_user, changes: dict[str, str], roce_gate=FAST_GATE):
    intended = {}
    for host, config in memory_fabric.configs.items():
        files = {"config": config["config"] + changes[host]} if host in changes else dict(config)
        intended[host] = {"files": files, "role": "spine" if host.startswith("spine") else "leaf", "driver": "twin"}
    change_set = services.changeset_create(name="t", intended=intended, driver_for=memory_fabric.driver)
    rollout = services.rollout_create(
        name="r", kind="canary_push", target="production", change_set=change_set,
        policy={"checks": ["health"], "soak_s": 0, "wave_size": 2, "converge_timeout_s": 1, "roce_gate": roce_gate},
        user=User.objects.get_or_create(username="submitter")[0])
    services.rollout_approve(rollout=rollout, user=admin_user)
    return services.rollout_start(rollout=rollout, user=admin_user, enqueue=False)


def _gate_step(rollout) -> Step:
    return Step.objects.get(rollout=rollout, phase=Phase.VERIFY, detail__tag="roce_gate")


@pytest.mark.parametrize("fault", ["ecn_threshold_10x", "pfc_wrong_priority", "nic_np_off"])
def test_a_canary_that_breaks_roce_is_rolled_back_with_the_gates_reason(memory_fabric, admin_user, fault):
    change = f"qos change {ROCE_FAULT}{fault}\n"
    rollout = _started(memory_fabric, admin_user, {"leaf1": change, "leaf2": change, "leaf3": change})
    assert rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver) == \
        State.ROLLED_BACK
    assert memory_fabric.commits == {"leaf1": 1}  # BGP stayed up; only the RoCE gate stopped it
    assert memory_fabric.configs["leaf1"] == {"config": "hostname leaf1\n"}
    step = _gate_step(rollout)
    assert step.result == Result.FAILED and step.output.startswith("RoCE gate failed:")
    decision = step.detail["decision"]
    assert decision["passed"] is False and decision["decided_at_poll"] <= 2
    assert step.detail["canary"] == ["leaf1"] and step.detail["peers"] == ["leaf2", "leaf3", "leaf4"]
    failure = decision["failures"][0]
    assert failure["verdict"] == "failed" and failure["numbers"]
    assert any(row["failed"] for row in step.detail["table"])  # the page marks the counter that decided
    rollout.refresh_from_db()
    assert "RoCE gate failed" in rollout.error and rollout.report["outcome"]["leaf2"]["outcome"] == "not_reached"
    # the pre window was read before the canary's push, the peers were polled with it
    pre = Step.objects.get(rollout=rollout, phase=Phase.PRE_CHECK, detail__tag="roce_pre")
    push = Step.objects.get(rollout=rollout, phase=Phase.PUSH, device="leaf1")
    assert pre.id < push.id and len(pre.detail["polls"]) == 6


def test_a_healthy_canary_proceeds(memory_fabric, admin_user):
    rollout = _started(memory_fabric, admin_user, {"leaf1": "vlan 30\n", "leaf2": "vlan 30\n", "leaf3": "vlan 30\n"})
    assert rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver) == State.SUCCEEDED
    assert memory_fabric.commits == {"leaf1": 1, "leaf2": 1, "leaf3": 1}
    step = _gate_step(rollout)
    assert step.result == Result.OK and step.output.startswith("RoCE gate passed after 2 poll(s)")
    compared = step.detail["decision"]["compared"]
    assert {item["gate"] for item in compared} >= {"relative:pfc_rx", "relative:ecn_marked", "relative:cnp_sent"}
    assert all(0 <= item["numbers"]["p_vs_pre"] <= 1 for item in compared)
    assert memory_fabric.counter_reads["leaf1"] == 8 and "spine1" not in memory_fabric.counter_reads


def test_without_the_gate_the_same_fault_goes_through(memory_fabric, admin_user):
    # The deliberately broken case: the gate off, a push that breaks RoCE (BGP up) reaches every leaf.
    change = f"qos change {ROCE_FAULT}ecn_threshold_10x\n"
    rollout = _started(memory_fabric, admin_user, {"leaf1": change, "leaf2": change}, roce_gate={"enabled": False})
    assert rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver) == State.SUCCEEDED
    assert memory_fabric.counter_reads == {}
    assert not Step.objects.filter(rollout=rollout, detail__tag__in=["roce_pre", "roce_gate"]).exists()


def test_unreadable_counters_stop_the_rollout_before_any_push(memory_fabric, admin_user):
    memory_fabric.counters_unreadable.add("leaf2")
    rollout = _started(memory_fabric, admin_user, {"leaf1": "vlan 30\n"})
    assert rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver) == State.FAILED
    assert memory_fabric.commits == {}
    rollout.refresh_from_db()
    assert "RoCE gate pre window failed, nothing pushed" in rollout.error and "leaf2" in rollout.error


@pytest.mark.parametrize("roce_gate, field, message", [
    ({"enabled": "yes"}, "policy.roce_gate.enabled", "true or false"),
    ({"enabled": True, "polls": 0}, "policy.roce_gate.polls", "integer in 1..60"),
    ({"enabled": True, "pre_s": -5}, "policy.roce_gate.pre_s", "seconds in"),
    ({"enabled": True, "alpha": 0.7}, "policy.roce_gate.alpha", "significance level"),
    ({"enabled": True, "ecn_queues": [3, 9]}, "policy.roce_gate.ecn_queues", "queue numbers 0..7"),
    ({"enabled": True, "pre_s": 5, "post_s": 20, "polls": 2}, "policy.roce_gate.pre_s", "at least one poll interval"),
    ({"enabeld": True}, "policy.roce_gate.enabeld", "unknown key"),
    (True, "policy.roce_gate", "must be an object"),
])
def test_bad_roce_gate_policy_is_a_400_naming_the_field(api_client, roce_gate, field, message):
    response = api_client.post("/api/rollouts/", {"name": "r", "kind": "canary_push", "target": "production",
                                                   "policy": {"roce_gate": roce_gate}}, format="json")
    assert response.status_code == 400, response.content
    errors = response.json()
    assert field in errors and message in str(errors[field]), errors


def test_the_fault_models_are_what_the_gate_was_measured_on():
    assert len(synthetic.FAULTS) == 12


def test_the_rollout_page_shows_the_gates_verdict_per_canary_device(memory_fabric, admin_user, client):
    change = f"qos change {ROCE_FAULT}pfc_wrong_priority\n"
    rollout = _started(memory_fabric, admin_user, {"leaf1": change, "leaf2": change})
    rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver)
    client.force_login(admin_user)
    page = client.get(f"/rollouts/{rollout.pk}/").content.decode()
    gate = page[page.index('id="roce-gate"'):page.index('<div class="waves">')]
    assert "leaf1: counter" in gate and "leaf2, leaf3, leaf4" in gate
    assert "hard:lossless_drops on leaf1:" in gate  # the rule, the port and the numbers
    failed_rows = [row for row in gate.split("<tr") if "var(--err)" in row and "failed" in row]
    assert any('"mono">lossless_drops<' in row for row in failed_rows), failed_rows
    assert "p vs peers" in gate
    charts = gate.split('<svg')[1:]
    # the deciding counter first: the first counter the failures name (their order follows the poll's keys)
    decision = Step.objects.get(rollout=rollout, detail__tag="roce_gate").detail["decision"]
    first = next(failure["counter"] for failure in decision["failures"] if failure["counter"])
    assert charts and f"{first} /s" in charts[0] and "#e03131" in charts[0], (first, charts[0][:300])
    assert any("lossless_drops /s" in chart for chart in charts) or len(dict.fromkeys(
        failure["counter"] for failure in decision["failures"])) > 4  # charted unless more counters failed than fit
    assert len(charts) <= 4
    healthy = _started(memory_fabric, admin_user, {"leaf3": "vlan 40\n"})
    assert client.get(f"/rollouts/{healthy.pk}/").content.decode().count('id="roce-gate"') == 0  # not run yet


def test_rollout_status_shows_the_gates_verdict(memory_fabric, admin_user):
    change = f"qos change {ROCE_FAULT}mtu_drop\n"
    rollout = _started(memory_fabric, admin_user, {"leaf1": change})
    rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver)
    out = io.StringIO()
    call_command("rollout", "status", str(rollout.pk), stdout=out)
    text = out.getvalue()
    assert "RoCE gate: failed at poll 1; control peers leaf2, leaf3, leaf4" in text, text
    assert "hard:local_ack_timeout on leaf1-gpu" in text  # an MTU drop: the NICs' requesters time out
    assert "leaf1 local_ack_timeout: before 0/s, after" in text


def test_counters_a_driver_models_are_labelled_synthetic(memory_fabric, admin_user, client, monkeypatch):
    """A driver that models counters (the twin: no DCB on veths) says so; the page and `rollout status` label them,
    and counters read from a device are never labelled."""
    change = f"qos change {ROCE_FAULT}pfc_wrong_priority\n"
    real = _started(memory_fabric, admin_user, {"leaf1": change})
    rollout_execute(rollout_id=real.pk, owner="w1", driver_factory=memory_fabric.driver)
    assert _gate_step(real).detail["synthetic"] == []
    client.force_login(admin_user)
    assert "(synthetic)" not in client.get(f"/rollouts/{real.pk}/").content.decode()

    driver_class = type(memory_fabric.driver("leaf1"))
    monkeypatch.setattr(driver_class, "counter_sources", lambda self: {"pfc_rx": "synthetic",
                                                                      "lossless_drops": "synthetic",
                                                                      "tx_packets": "measured"})
    modelled = _started(memory_fabric, admin_user, {"leaf1": change})
    rollout_execute(rollout_id=modelled.pk, owner="w1", driver_factory=memory_fabric.driver)
    assert _gate_step(modelled).detail["synthetic"] == ["lossless_drops", "pfc_rx"]
    page = client.get(f"/rollouts/{modelled.pk}/").content.decode()
    rows = [row for row in page[page.index('id="roce-gate"'):].split("<tr") if "(synthetic)" in row]
    assert rows and all('"mono">lossless_drops' in row or '"mono">pfc_rx' in row for row in rows), rows
    out = io.StringIO()
    call_command("rollout", "status", str(modelled.pk), stdout=out)
    assert "synthetic (modelled, not measured): lossless_drops, pfc_rx" in out.getvalue()


def test_the_spine_ports_facing_the_canary_are_polled_and_watched(memory_fabric, admin_user):
    """The canary leaf's fabric links (structured ``peer_device``/``peer_interface``) name the spine ports that
    face it: the spines are polled with the canary and those ports are judged by the quiet-port PFC rule."""
    uplinks = [{"name": f"Ethernet{number}", "kind": "fabric", "peer_device": f"spine{number}",
                "peer_interface": "Ethernet1"} for number in (1, 2)]
    uplinks.append({"name": "Ethernet9", "kind": "fabric", "peer_device": "border9", "peer_interface": "Ethernet1"})
    intended = {}
    for host, config in memory_fabric.configs.items():
        intended[host] = {"files": {"config": config["config"] + ("vlan 30\n" if host == "leaf1" else "")},
                          "role": "spine" if host.startswith("spine") else "leaf", "driver": "twin"}
    intended["leaf1"]["structured"] = {"interfaces": uplinks}
    change_set = services.changeset_create(name="t", intended=intended, driver_for=memory_fabric.driver)
    rollout = services.rollout_create(
        name="r", kind="canary_push", target="production", change_set=change_set,
        policy={"checks": ["health"], "soak_s": 0, "wave_size": 2, "converge_timeout_s": 1, "roce_gate": FAST_GATE},
        user=User.objects.get_or_create(username="submitter")[0])
    services.rollout_approve(rollout=rollout, user=admin_user)
    rollout = services.rollout_start(rollout=rollout, user=admin_user, enqueue=False)
    assert rollout_execute(rollout_id=rollout.pk, owner="w1", driver_factory=memory_fabric.driver) == State.SUCCEEDED
    pre = Step.objects.get(rollout=rollout, phase=Phase.PRE_CHECK, detail__tag="roce_pre")
    # border9 is not in the change set: nobody to poll
    assert pre.detail["watched"] == [["spine1", "Ethernet1"], ["spine2", "Ethernet1"]]
    assert {"spine1", "spine2"} <= set(pre.detail["groups"]) and "2 neighbour port(s)" in pre.output
    gate = _gate_step(rollout)
    assert gate.detail["watched"] == pre.detail["watched"] and gate.detail["peers"] == ["leaf2", "leaf3", "leaf4"]
    assert gate.detail["decision"]["examined"]["watched neighbour ports"] == 2
