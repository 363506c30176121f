"""Long actions answer 202 Accepted with ``Location``/``status_url`` in both modes: a rollout started over the API
with no broker runs in a background thread of the web process (common.runs.run_in_background); polling the URL
reaches the final state; ``manage.py reap_runs`` pauses a rollout whose in-process runner died."""

from __future__ import annotations

import io
import signal
import subprocess
import threading
import time

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command

from changes import services
from changes.lifecycle import in_process_runner_id
from changes.models import Rollout
from changes.pipelines.runner import rollout_execute
from common import runs


def _approved_rollout(memory_fabric):
    intended = {host: {"files": {"config": config["config"] + "vlan 30\n"}, "driver": "twin",
                       "role": "spine" if host.startswith("spine") else "leaf"}
                for host, config in memory_fabric.configs.items() if host in ("leaf1", "leaf2")}
    change_set = services.changeset_create(name="bg", intended=intended, driver_for=memory_fabric.driver)
    submitter = User.objects.create_user("submitter")
    rollout = services.rollout_create(name="bg", kind="canary_push", target="production", change_set=change_set,
                                      policy={"checks": ["health"], "soak_s": 0, "wave_size": 2,
                                              "converge_timeout_s": 1}, user=submitter)
    approver = User.objects.create_user("approver")
    approver.groups.add(Group.objects.get(name="admin"))
    return services.rollout_approve(rollout=rollout, user=approver)


@pytest.mark.django_db(transaction=True)
def test_start_answers_202_at_once_and_the_status_url_reaches_the_final_state(api_client, memory_fabric,
                                                                               in_background, monkeypatch):
    rollout = _approved_rollout(memory_fabric)
    gate = threading.Event()
    owners = []

    def held(*, rollout_id, owner):  # the real runner on the in-memory devices, once the test saw the answer
        owners.append(owner)
        assert gate.wait(30), "the test never released the rollout"
        return rollout_execute(rollout_id=rollout_id, owner=owner, driver_factory=memory_fabric.driver)

    monkeypatch.setattr("changes.tasks.rollout_execute", held)
    clock = time.perf_counter()
    response = api_client.post(f"/api/rollouts/{rollout.pk}/start/")
    assert time.perf_counter() - clock < 10 and response.status_code == 202, response.data
    status_url = response.data["status_url"]
    assert response["Location"] == status_url and status_url.endswith(f"/api/rollouts/{rollout.pk}/")
    assert response.data["state"] == "running" and api_client.get(status_url).data["state"] == "running"
    gate.set()
    deadline = time.monotonic() + 60
    while (current := api_client.get(status_url).data)["state"] == "running":
        assert time.monotonic() < deadline, current
        time.sleep(0.1)
    assert current["state"] == "succeeded", current
    assert memory_fabric.commits == {"leaf1": 1, "leaf2": 1}
    assert owners and owners[0].startswith(runs.runner_id())  # the lease names this process (the reaper's key)


def test_start_without_background_threads_also_answers_202(api_client, memory_fabric):
    # FT_RUN_IN_BACKGROUND off (the tests' default): the same contract; here the test transaction never commits,
    # so nothing runs and the rollout stays running for the worker
    rollout = _approved_rollout(memory_fabric)
    response = api_client.post(f"/api/rollouts/{rollout.pk}/start/")
    assert response.status_code == 202 and response["Location"] == response.data["status_url"]


@pytest.mark.django_db
def test_reap_runs_pauses_rollouts_whose_in_process_runner_died(memory_fabric):
    process = subprocess.Popen(["sleep", "60"])
    dead = f"{runs.runner_id(process.pid)}:0badc0de"
    process.send_signal(signal.SIGKILL)
    process.wait()
    orphan, alive, worker = (Rollout.objects.create(name=f"r{index}", kind="canary_push", target="twin")
                             for index in range(3))
    for rollout, owner in ((orphan, dead), (alive, in_process_runner_id()), (worker, "0123456789abcdef")):
        Rollout.objects.filter(pk=rollout.pk).update(state="running", lease_owner=owner)
    out = io.StringIO()
    call_command("reap_runs", stdout=out)
    assert "paused 1 interrupted in-process rollout(s)" in out.getvalue()
    states = dict(Rollout.objects.values_list("pk", "state"))
    assert (states[orphan.pk], states[alive.pk], states[worker.pk]) == ("paused", "running", "running")
    assert Rollout.objects.get(pk=orphan.pk).lease_owner == ""
