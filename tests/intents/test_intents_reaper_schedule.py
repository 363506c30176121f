"""Interrupted runs are reaped on a schedule, not only when a component starts (issue 29 item 8, common/runs.py): a
Celery beat entry, and with no broker a thread of each web process that runs work in the background."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from common import runs
from intents.models import CompileRun
from twin.celery import app

ROOT = Path(__file__).resolve().parents[2]
PROBE = ("import django, json; from django.conf import settings; django.setup(); "
         "print(json.dumps(settings.CELERY_BEAT_SCHEDULE.get('twin-reap-interrupted')))")


@pytest.fixture
def dead_runner():
    """The runner id of a process that really ran and was SIGKILLed."""
    process = subprocess.Popen(["sleep", "60"])
    runner = runs.runner_id(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait()
    return runner


def _beat_entry(**env) -> dict | None:
    clean = {key: value for key, value in os.environ.items()
             if key not in ("FT_REAP_INTERVAL_S", "DJANGO_SETTINGS_MODULE", "DEBUG")}
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={**clean, "DJANGO_SETTINGS_MODULE": "twin.settings", "SECRET_KEY": "s" * 50, **env})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_beat_reaps_every_minute_by_default_and_can_be_turned_off():
    assert _beat_entry() == {"task": "twin.runs_reap_interrupted", "schedule": 60.0}
    assert _beat_entry(FT_REAP_INTERVAL_S="15") == {"task": "twin.runs_reap_interrupted", "schedule": 15.0}
    assert _beat_entry(FT_REAP_INTERVAL_S="0") is None


def test_the_beat_task_reaps_a_run_whose_process_died(fabric_intent, dead_runner):
    assert "twin.runs_reap_interrupted" in app.tasks  # the name beat sends is a registered task
    dead = CompileRun.objects.create(fabric_intent=fabric_intent, status="running", runner=dead_runner)
    live = CompileRun.objects.create(fabric_intent=fabric_intent, status="running", runner=runs.runner_id())
    result = app.tasks["twin.runs_reap_interrupted"].apply().get()
    assert result["compile_runs"] == 1
    dead.refresh_from_db()
    live.refresh_from_db()
    assert dead.status == "failed" and dead.error.startswith("interrupted: ") and live.status == "running"


def _wait_for_status(pk: int, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = CompileRun.objects.get(pk=pk).status
        if status != "running":
            return status
        time.sleep(0.05)
    return CompileRun.objects.get(pk=pk).status


@pytest.mark.django_db(transaction=True)
def test_the_periodic_reaper_thread_reaps_a_run_whose_process_died(fabric_intent, dead_runner):
    run = CompileRun.objects.create(fabric_intent=fabric_intent, status="running", runner=dead_runner)
    stop = runs.runs_reaper_start(0.1)
    try:
        assert _wait_for_status(run.pk, 10) == "failed"
    finally:
        stop.set()


@pytest.mark.django_db(transaction=True)
def test_the_executor_starts_the_reaper_only_when_the_interval_is_set(settings, monkeypatch):
    started = []
    monkeypatch.setattr(runs, "runs_reaper_start", lambda interval: started.append(interval))
    for interval, expected in ((0, []), (30.0, [30.0])):
        settings.FT_REAP_INTERVAL_S = interval
        monkeypatch.setattr(runs, "_background", None)
        runs._executor().shutdown()
        assert started == expected
        started.clear()


@pytest.mark.django_db(transaction=True)
def test_without_a_periodic_reaper_the_run_stays_running(fabric_intent, dead_runner):
    """Deliberately broken: only start-up reaping (before this change), so nothing reaps while processes live."""
    run = CompileRun.objects.create(fabric_intent=fabric_intent, status="running", runner=dead_runner)
    assert _wait_for_status(run.pk, 0.5) == "running"
