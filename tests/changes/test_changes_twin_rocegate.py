"""The RoCE gate on the live twin (root + FRR; skipped with the reason otherwise): counters from the twin's
synthetic plane through the twin driver.

A change that is fine for BGP (a new VNI on every leaf) is pushed to the canary leaf whose synthetic counter plane
has a fault armed (``TwinDriver.roce_fault_inject``: it shows from the node's next commit, as if the push had set
ECN thresholds ten times too high). BGP stays up, the RoCE gate fails on the canary's counters against its own pre
window and the other leaf, the canary is rolled back, the fault goes with the config, the other leaf is never
pushed. Without the armed fault the same change passes the gate and reaches both leaves.
"""

from __future__ import annotations

import signal
import time
import uuid

import pytest
from changes_fabric import BASE_NETWORKS, fabric
from django.contrib.auth.models import User
from twin_rows import twin_row

from changes import services
from changes.choices import RolloutStateChoices as State
from changes.choices import StepPhaseChoices as Phase
from changes.choices import StepResultChoices as Result
from changes.drivers.twin import ROCE_FAULT, ROCE_FAULT_ARMED, TwinDriver
from changes.models import Step
from changes.pipelines.runner import rollout_execute
from changes.rocegate import synthetic
from changes.rocegate.schema import Key, rates
from labs import collectors, runtime

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


def _rollout(twin, gate=None):
    _, new_files, _ = fabric(twin["prefix"], networks={**BASE_NETWORKS, **NEW_NETWORK})
    user = User.objects.create_user("operator")
    row = twin_row(prefix=twin["prefix"], state_dir=twin["state_dir"])
    change_set = services.changeset_create_for_twin(name="change", twin=row, intended_files=new_files,
                                                    roles=twin["roles"], user=user)
    rollout = services.rollout_create(
        name="canary", kind="canary_push", target="twin", change_set=change_set, user=user,
        policy={"checks": ["bgp"], "soak_s": 0, "wave_size": 1, "converge_timeout_s": 30,
                "roce_gate": gate or {"enabled": True, "pre_s": 0.3, "post_s": 0.1, "polls": 2}})
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


def _reachable(twin) -> None:
    """h1 reaches h2 (EVPN has converged): the flow below must not be a stream of unreachables."""
    state, deadline = twin["state"], time.monotonic() + 60
    while collectors.ping(state.host_netns["h1"], "10.10.0.12", count=1, wait_s=1).received == 0:
        assert time.monotonic() < deadline, "h1 never reached h2"
        time.sleep(0.5)


def _flow(twin, seconds: float):
    """h1 (behind leaf1) pings h2 (behind leaf2): up to 500 pps of 3,000-byte payloads (~12 Mb/s asked; a loaded
    2-core machine sends 200-300 pps, 5-7 Mb/s: a load of 0.5-0.7 at the twin's 10 Mb/s scale, where the model's
    lossless queue marks)."""
    _reachable(twin)
    state = twin["state"]
    return collectors.start_ping(state.host_netns["h1"], "10.10.0.12", count=int(seconds / 0.002), interval=0.002,
                                 size=3000, wait_s=1, deadline_s=seconds)


def test_twin_counters_follow_the_traffic_the_twin_carries(twin):
    """The plane is driven by the veths' measured traffic: leaf1's host port sends what h1 receives, its loaded
    queue marks ECN, and a port that carries nothing marks nothing."""
    driver = TwinDriver(twin["prefix"], "leaf1", twin["state_dir"])
    h1 = twin["state"].host_netns["h1"]
    flow = _flow(twin, 6.0)
    try:
        time.sleep(1.0)  # ARP and the first replies
        host_before, polls = collectors.collect_link_counters(h1)["eth0"], [driver.counters(lossless_queues=[3])]
        started = time.monotonic()
        for _ in range(5):
            time.sleep(0.5)
            polls.append(driver.counters(lossless_queues=[3]))
        span, host_after = time.monotonic() - started, collectors.collect_link_counters(h1)["eth0"]
    finally:
        flow_result = collectors.finish_ping(flow)
    assert flow_result.received > 500, flow_result
    windows = [rates(before, now).values for before, now in zip(polls, polls[1:], strict=False)]
    sent = [window[Key("leaf1", "Ethernet3", -1, "tx_packets")] for window in windows]
    received_by_h1 = (host_after.rx_packets - host_before.rx_packets) / span
    # what the gate sees leaf1 send towards h1 is what h1 received (the same veth pair, read from both ends)
    assert 0.75 * received_by_h1 < sum(sent) / len(sent) < 1.25 * received_by_h1, (sent, received_by_h1)
    assert received_by_h1 > 150  # the flow really ran (500 pps asked; a loaded 2-core machine sends fewer)
    marks = {port: sum(window.get(Key("leaf1", port, 3, "ecn_marked"), 0.0) for window in windows)
             for port in ("Ethernet1", "Ethernet2", "Ethernet3")}
    quiet = [port for port in ("Ethernet1", "Ethernet2")
             if sum(window[Key("leaf1", port, -1, "tx_bytes")] for window in windows) < 1_000]
    # the marks follow the model's marking at the measured load (Poisson counts over the modelled 10 s windows)
    expected = sum(window[Key("leaf1", "Ethernet3", -1, "tx_packets")] * synthetic.INTERVAL_S * synthetic.ecn_mark_fraction(
        min(window[Key("leaf1", "Ethernet3", -1, "tx_bytes")] * 8 / synthetic.TWIN_LINE_RATE_BPS, 1.0)) for window in windows)
    assert expected > 5, expected
    assert expected / 3 < marks["Ethernet3"] * synthetic.INTERVAL_S < expected * 3, (marks, expected)
    assert quiet and all(marks[port] == 0 for port in quiet), (marks, quiet)  # one flow hashes to one uplink
    assert {key.device for key in polls[-1].values} == {"leaf1", "h1"}  # the host behind Ethernet3 (eth3) is its "NIC"
    assert driver.counter_sources()["tx_packets"] == "measured"
    assert driver.counter_sources()["ecn_marked"] == "synthetic"


def test_a_twin_canary_under_traffic_sees_rates_of_that_traffic(twin):
    """A canary push while h1 sends to h2: the gate's table shows leaf1's measured packet rates, ECN marks of the
    loaded lossless queue, every modelled kind labelled synthetic; the healthy change passes."""
    rollout, _ = _rollout(twin, gate={"enabled": True, "pre_s": 1.0, "post_s": 0.5, "polls": 2})
    flow = _flow(twin, 40.0)
    try:
        time.sleep(1.0)
        assert rollout_execute(rollout_id=rollout.pk, owner="test") == State.SUCCEEDED
    finally:
        flow.send_signal(signal.SIGINT)
        collectors.finish_ping(flow)
    gate = Step.objects.get(rollout=rollout, phase=Phase.VERIFY, detail__tag="roce_gate")
    rows = {row["counter"]: row for row in gate.detail["table"] if row["device"] == "leaf1"}
    assert rows["tx_packets"]["pre_per_s"] > 150 and rows["tx_packets"]["post_per_s"] > 150, rows["tx_packets"]
    assert rows["tx_bytes"]["pre_per_s"] > 150 * 3000, rows["tx_bytes"]
    assert rows["ecn_marked"]["pre_per_s"] > 0, rows["ecn_marked"]
    assert "ecn_marked" in gate.detail["synthetic"] and "pfc_rx" in gate.detail["synthetic"]
    assert "tx_packets" not in gate.detail["synthetic"]
