"""A REAL Celery worker on Redis is SIGKILLed in the middle of a twin rollout and a new worker finishes it.

Needs PostgreSQL (the worker process shares the test database), Redis (FT_TEST_REDIS_URL, e.g.
redis://127.0.0.1:6379/5) and root + FRR for the twin; skipped with the reason otherwise. The worker is killed
the moment the second leaf's push step is recorded as running (the worst point: the commit may or may not have
landed), and the second worker again while the third wave's checks run (after that leaf's push finished). The restarted worker resumes the rollout (worker_ready -> rollouts_resume_stalled, after the dead
runner's lease expires); the assertions are on Step rows and on the push journal each twin node keeps itself.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
from changes_fabric import BASE_NETWORKS, fabric
from twin_rows import twin_row

from changes import services
from changes.choices import RolloutStateChoices as State
from changes.choices import StepPhaseChoices as Phase
from changes.choices import StepResultChoices as Result
from changes.drivers.twin import TwinDriver
from changes.models import Rollout, Step
from labs import runtime

pytestmark = [pytest.mark.twin, pytest.mark.worker, pytest.mark.slow]
REPO_ROOT = Path(__file__).resolve().parents[2]
LEASE_S = 6


def _database_url(settings_dict: dict) -> str:
    user = quote(settings_dict.get("USER") or "")
    password = quote(settings_dict.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    return (f"postgres://{auth}{settings_dict.get('HOST') or '127.0.0.1'}:{settings_dict.get('PORT') or 5432}/"
            f"{settings_dict['NAME']}")


@pytest.fixture
def worker_env(transactional_db, twin_required, tmp_path):
    from django.db import connection

    broker = os.environ.get("FT_TEST_REDIS_URL")
    if not broker:
        pytest.skip("FT_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379/5): no broker for a real worker")
    try:
        import redis

        redis.Redis.from_url(broker, socket_connect_timeout=2).ping()
    except Exception as error:  # any failure means the broker is unusable here
        pytest.skip(f"Redis at {broker} is unreachable: {error}")
    if connection.vendor != "postgresql":
        pytest.skip("a real worker needs PostgreSQL: the SQLite test database lives in this process's memory")
    queue = f"ft-changes-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": broker,
           "DATABASE_URL": _database_url(connection.settings_dict), "PYTHONPATH": str(REPO_ROOT),
           "FT_CHANGES_QUEUE": queue, "FT_ROLLOUT_LEASE_S": str(LEASE_S)}
    return {"env": env, "queue": queue, "broker": broker, "logs": tmp_path}


def _start_worker(env: dict, queue: str, log: Path) -> subprocess.Popen:
    celery = Path(sys.executable).with_name("celery")
    # Own session: SIGKILL goes to the whole process group, like a machine losing the worker.
    return subprocess.Popen([str(celery), "-A", "twin", "worker", "-P", "solo", "-Q", queue, "--loglevel=INFO",
                             "--without-gossip", "--without-mingle", "-n", f"{queue}-{log.stem}@%h"],
                            cwd=REPO_ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


def test_sigkilled_worker_resumes_without_pushing_any_device_twice(worker_env, tmp_path, monkeypatch):
    from celery import Celery

    prefix = "ftk" + uuid.uuid4().hex[:6]
    state_dir = tmp_path / "twins"
    topology, files, roles = fabric(prefix, spines=2, leaves=3)
    runtime.up(topology, state_dir=state_dir)
    first = second = third = None
    client = Celery("ft-changes-test", broker=worker_env["broker"])
    try:
        _, new_files, _ = fabric(prefix, spines=2, leaves=3, networks={**BASE_NETWORKS, "net30": (30, 10030, "10.30.0")})
        change_set = services.changeset_create_for_twin(name="add net30", twin=twin_row(prefix=prefix,
                                                        state_dir=str(state_dir)), intended_files=new_files, roles=roles)
        rollout = services.rollout_create(
            name="kill test", kind="canary_push", target="twin", change_set=change_set,
            policy={"checks": ["bgp", "evpn"], "soak_s": 1, "wave_size": 1, "converge_timeout_s": 30})
        assert rollout.plan["waves"] == [["leaf1"], ["leaf2"], ["leaf3"]]
        services.rollout_start(rollout=rollout, enqueue=False)

        first = _start_worker(worker_env["env"], worker_env["queue"], worker_env["logs"] / "worker1.log")
        client.send_task("changes.rollout_run", args=[rollout.pk], queue=worker_env["queue"])
        deadline = time.monotonic() + 120
        while not Step.objects.filter(rollout=rollout, device="leaf2", phase=Phase.PUSH).exists():
            assert time.monotonic() < deadline, (worker_env["logs"] / "worker1.log").read_text()[-3000:]
            assert first.poll() is None, (worker_env["logs"] / "worker1.log").read_text()[-3000:]
            time.sleep(0.01)
        os.killpg(first.pid, signal.SIGKILL)  # mid-push of leaf2
        first.wait(timeout=10)
        killed_at = Step.objects.get(rollout=rollout, device="leaf2", phase=Phase.PUSH)
        assert killed_at.result == Result.RUNNING  # the exact record a crash leaves
        assert Rollout.objects.get(pk=rollout.pk).state == State.RUNNING

        second = _start_worker(worker_env["env"], worker_env["queue"], worker_env["logs"] / "worker2.log")
        # Second kill: after leaf3's push finished ok, while the checks of its wave run.
        deadline = time.monotonic() + 180
        while not Step.objects.filter(rollout=rollout, device="", wave=3, phase=Phase.VERIFY,
                                      result=Result.RUNNING).exists():
            assert time.monotonic() < deadline, (worker_env["logs"] / "worker2.log").read_text()[-3000:]
            assert second.poll() is None, (worker_env["logs"] / "worker2.log").read_text()[-3000:]
            time.sleep(0.01)
        os.killpg(second.pid, signal.SIGKILL)
        second.wait(timeout=10)
        assert Step.objects.get(rollout=rollout, device="leaf3", phase=Phase.PUSH).result == Result.OK

        third = _start_worker(worker_env["env"], worker_env["queue"], worker_env["logs"] / "worker3.log")
        deadline = time.monotonic() + 180
        while Rollout.objects.get(pk=rollout.pk).state == State.RUNNING:
            assert time.monotonic() < deadline, (worker_env["logs"] / "worker3.log").read_text()[-3000:]
            assert third.poll() is None, (worker_env["logs"] / "worker3.log").read_text()[-3000:]
            time.sleep(0.5)
        rollout.refresh_from_db()
        assert rollout.state == State.SUCCEEDED, rollout.error

        killed_at.refresh_from_db()
        assert killed_at.result == Result.INTERRUPTED
        pushes = Step.objects.filter(rollout=rollout, phase=Phase.PUSH)
        for leaf in ("leaf1", "leaf2", "leaf3"):
            completed = pushes.filter(device=leaf, result__in=[Result.OK, Result.SKIPPED]).count()
            assert completed == 1, f"{leaf}: {completed} completed push steps"
            driver = TwinDriver(prefix, leaf, str(state_dir))
            assert driver.is_at(new_files[leaf]), leaf
            # Driver side, on the node itself: never more than one commit (0 only when the kill landed after
            # frr-reload and before the journal line, in which case the device already ran the intent).
            assert driver.push_count() <= 1, f"{leaf} committed {driver.push_count()} times"
        assert TwinDriver(prefix, "leaf1", str(state_dir)).push_count() == 1
        assert TwinDriver(prefix, "leaf3", str(state_dir)).push_count() == 1
        for leaf in ("leaf1", "leaf3"):  # finished before a kill: never redone
            assert pushes.filter(device=leaf).count() == 1
        interrupted = Step.objects.filter(rollout=rollout, result=Result.INTERRUPTED)
        assert sorted(interrupted.values_list("phase", "wave")) == [(Phase.PUSH, 2), (Phase.VERIFY, 3)]
        for log in ("worker2.log", "worker3.log"):
            text = (worker_env["logs"] / log).read_text()
            assert "changes.rollouts_resume_stalled" in text and "changes.rollout_run" in text
        print(f"\nkilled during {killed_at.device} push and during wave 3's checks; resumed and finished: "
              f"{list(pushes.values_list('device', 'result'))}")
    finally:
        for process in (first, second, third):
            if process is not None:
                _stop(process)
        client.close()
        runtime.down(prefix, state_dir=state_dir, force=True)
