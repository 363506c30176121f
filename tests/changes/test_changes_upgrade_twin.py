"""Rolling hitless upgrade of every spine of a 2x4 twin under a continuous ping (root + FRR; skipped otherwise).

h1 (leaf1) pings h4 (leaf4) every 10 ms across the VXLAN overlay for the whole rollout. Each spine is drained
(AS-path prepend), verified idle (no leaf forwards through it), its zebra+bgpd restarted with a new version tag,
verified healthy, and undrained; never both spines at once (the N-1 what-if forbids it even when the policy would
allow two). The measured loss and the largest reply gap are printed and bounded.
"""

from __future__ import annotations

import signal
import time
import uuid

import pytest
from changes_fabric import fabric
from django.contrib.auth.models import User
from twin_rows import twin_row

from changes import services
from changes.choices import RolloutStateChoices as State
from changes.choices import StepPhaseChoices as Phase
from changes.drivers.twin import TwinDriver
from changes.models import Step
from changes.pipelines.runner import rollout_execute
from labs import collectors, runtime

pytestmark = [pytest.mark.twin, pytest.mark.django_db, pytest.mark.slow]
NEW_VERSION = "frr-8.4.4-ft2"
# Bounds stated in docs/changes.md: a drained spine carries no traffic, so the restart itself must not cost more
# than a few probes; what remains is the moment the leaves' kernel route changes between 1 and 2 next hops.
MAX_LOSS_FRACTION = 0.01
MAX_GAP_S = 0.5


@pytest.fixture
def twin_2x4(twin_required, tmp_path):
    prefix = "ftu" + uuid.uuid4().hex[:6]
    topology, files, roles = fabric(prefix, spines=2, leaves=4)
    runtime.up(topology, state_dir=tmp_path)
    try:
        yield {"prefix": prefix, "state_dir": str(tmp_path)}
    finally:
        runtime.down(prefix, state_dir=tmp_path, force=True)


def _wait_for_reachability(prefix: str, host: str, address: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not collectors.ping(f"{prefix}-{host}", address, count=3, interval=0.2).ok:
        assert time.monotonic() < deadline, f"{host} cannot reach {address} after {timeout_s}s: twin not converged"
        time.sleep(1)


def test_rolling_upgrade_of_all_spines_keeps_a_continuous_ping(twin_2x4):
    prefix, state_dir = twin_2x4["prefix"], twin_2x4["state_dir"]
    user = User.objects.create_user("operator")
    rollout = services.rollout_create(
        name="spine upgrade", kind="rolling_upgrade", target="twin", user=user,
        twin=twin_row(prefix=prefix, state_dir=state_dir), policy={"target_version": NEW_VERSION,
                "max_spines_drained": 2, "wave_size": 2, "checks": ["bgp", "evpn", "ping"], "converge_timeout_s": 60})
    # The policy would allow both spines in one wave; the N-1 what-if does not (leaf pairs would have ECMP 0).
    assert rollout.plan["waves"] == [["spine1"], ["spine2"]]
    assert all(entry["min_leaf_pair_ecmp"] == 1 for entry in rollout.plan["whatif"])
    services.rollout_start(rollout=rollout, user=user, enqueue=False)
    pids_before = runtime.TwinState.load(prefix, state_dir).pids

    # Converged and warmed up (ARP + EVPN type-2) so the flow measures the upgrade, not the boot.
    _wait_for_reachability(prefix, "h1", "10.10.0.14")
    flow = collectors.start_ping(f"{prefix}-h1", "10.10.0.14", count=1_000_000, interval=0.01, wait_s=1)
    try:
        state = rollout_execute(rollout_id=rollout.pk, owner="test")
    finally:
        flow.send_signal(signal.SIGINT)  # ping prints its statistics on SIGINT
        result = collectors.finish_ping(flow, timeout=30)
    rollout.refresh_from_db()
    assert state == State.SUCCEEDED, rollout.error
    loss = 1 - result.received / max(result.transmitted, 1)
    # The flow was stopped with SIGINT, not by its count: the gap is measured between the replies themselves
    # (ping -D timestamps), from the first to the last one.
    replies = result.reply_times
    largest_gap_s = max((later - earlier for earlier, later in zip(replies, replies[1:], strict=False)), default=0.0)
    print(f"\nrolling upgrade of 2 spines: {result.transmitted} probes every 10 ms, {result.received} replies, "
          f"loss {loss:.3%}, largest reply gap {largest_gap_s * 1000:.0f} ms over {replies[-1] - replies[0]:.1f} s")
    for spine in ("spine1", "spine2"):
        driver = TwinDriver(prefix, spine, state_dir)
        assert driver.version() == NEW_VERSION and not driver.is_drained()
        phases = list(Step.objects.filter(rollout=rollout, device=spine).values_list("phase", flat=True))
        assert phases == [Phase.DRAIN, Phase.VERIFY, Phase.UPGRADE, Phase.VERIFY, Phase.UNDRAIN]
    assert runtime.status(prefix, state_dir)["healthy"]  # restarted daemons recorded in the twin state
    pids_after = runtime.TwinState.load(prefix, state_dir).pids
    for spine in ("spine1", "spine2"):  # really restarted: new zebra and bgpd processes (FRR 10's mgmtd keeps running)
        assert {pids_after[spine][daemon] for daemon in ("zebra", "bgpd")}.isdisjoint(pids_before[spine].values())
    assert pids_after["leaf1"] == pids_before["leaf1"]
    assert result.transmitted > 100
    assert loss <= MAX_LOSS_FRACTION and largest_gap_s <= MAX_GAP_S
