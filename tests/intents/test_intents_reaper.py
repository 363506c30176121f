"""Hygiene (issue #12 point 8): runs whose process is gone are reaped as "interrupted" at start-up, and failed
requests leave no running/pending garbage rows (common/runs.py)."""

import signal
import subprocess

import pytest
from django.core.management import call_command

from common import runs
from intents import services
from intents.models import CompileRun
from twin.celery import reap_interrupted_runs
from twins.models import Twin, TwinOperation
from validation.models import ValidationRun


@pytest.fixture
def dead_runner():
    """The runner id of a process that really ran and was SIGKILLed."""
    process = subprocess.Popen(["sleep", "60"])
    runner = runs.runner_id(process.pid)
    assert runs.runner_state(runner).alive is True
    process.send_signal(signal.SIGKILL)
    process.wait()
    return runner


def test_runner_identity_tells_live_dead_rebooted_and_foreign_processes_apart(dead_runner):
    assert runs.runner_state(runs.runner_id()).alive is True
    assert runs.runner_state(dead_runner).alive is False
    assert "has ended" in runs.runner_state(dead_runner).reason
    host, boot, pid, start = runs.runner_id().split(":")
    assert runs.runner_state(f"{host}:00000000:{pid}:{start}").alive is False  # same PID, earlier boot
    assert runs.runner_state(f"{host}:{boot}:{pid}:{int(start) + 1}").alive is False  # PID reused by another
    assert runs.runner_state(f"other-host:{boot}:{pid}:{start}").alive is None  # cannot tell: never reaped
    assert runs.runner_state("").alive is False  # started before runners were recorded


def test_reap_runs_marks_only_runs_of_gone_processes_interrupted(fabric_intent, dead_runner, capsys):
    here = runs.runner_id()
    elsewhere = "other-host:" + here.split(":", 1)[1]
    dead_compile = CompileRun.objects.create(fabric_intent=fabric_intent, status="running", runner=dead_runner)
    live_compile = CompileRun.objects.create(fabric_intent=fabric_intent, status="running", runner=here)
    foreign_compile = CompileRun.objects.create(fabric_intent=fabric_intent, status="running", runner=elsewhere)
    pending_compile = CompileRun.objects.create(fabric_intent=fabric_intent)  # queued, not started: kept
    dead_validation = ValidationRun.objects.create(fabric_intent=fabric_intent, status="running", runner=dead_runner)
    dead_operation = TwinOperation.objects.create(fabric="f1", kind="up", status="running", runner=dead_runner)
    dead_boot = Twin.objects.create(fabric_intent=fabric_intent, prefix="twreaptest", status="booting",
                                    runner=dead_runner)
    finished = CompileRun.objects.create(fabric_intent=fabric_intent, status="succeeded", runner=dead_runner)

    call_command("reap_runs")

    assert ("reaped 4 interrupted run(s): 1 compile runs, 1 validation runs, 1 twin operations, 0 fabric builds, "
            "0 netbox syncs, 1 twin boots"
            in capsys.readouterr().out)
    for row in (dead_compile, dead_validation, dead_operation, dead_boot):
        row.refresh_from_db()
        assert row.status == "failed" and getattr(row, "finished", True) is not None
        assert row.error.startswith("interrupted: process ") and "run it again" in row.error
    for row, status in ((live_compile, "running"), (foreign_compile, "running"), (pending_compile, "pending"),
                        (finished, "succeeded")):
        row.refresh_from_db()
        assert row.status == status and not row.error
    assert runs.runs_reap_interrupted() == {"compile_runs": 0, "validation_runs": 0, "twin_operations": 0,
                                            "fabric_builds": 0, "netbox_syncs": 0, "twin_boots": 0}


def test_celery_worker_start_reaps_too(fabric_intent, dead_runner):
    run = CompileRun.objects.create(fabric_intent=fabric_intent, status="running", runner=dead_runner)
    reap_interrupted_runs(sender=None)
    run.refresh_from_db()
    assert run.status == "failed" and run.error.startswith("interrupted")


def test_a_run_records_the_process_executing_it(fabric_intent):
    run = services.compile_run_create(fabric_intent=fabric_intent, platforms=["eos"])
    assert run.status == "succeeded" and run.runner == runs.runner_id()


def test_an_interrupted_twin_operation_no_longer_blocks_the_fabric(fabric_intent, dead_runner):
    from compiler.errors import TwinError
    from twins.services import twin_operation_create

    fabric = fabric_intent.fabric
    stale = TwinOperation.objects.create(fabric=fabric.name, kind="up", status="running", runner=dead_runner)
    operation = twin_operation_create(fabric=fabric, kind="down")
    stale.refresh_from_db()
    assert stale.status == "failed" and stale.error.startswith("interrupted")
    assert operation.runner == runs.runner_id()
    with pytest.raises(TwinError, match="still running"):  # a live one still does
        twin_operation_create(fabric=fabric, kind="ping")


class BrokerDown(ConnectionError):
    pass


def _broker_down(*args, **kwargs):
    raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


def test_compile_that_cannot_be_queued_is_failed_not_pending(api, fabric_intent, monkeypatch,
                                                             django_capture_on_commit_callbacks):
    monkeypatch.setattr("intents.api.views.compile_run_execute_task.delay", _broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"background": True}, format="json")
    assert response.status_code in (202, 503)  # 503 when the callback ran inside the request
    (run,) = CompileRun.objects.filter(fabric_intent=fabric_intent)
    assert run.status == "failed" and run.error.startswith("could not queue the compile: BrokerDown")


def test_validation_that_cannot_be_queued_is_failed_not_pending(api, fabric_intent, monkeypatch,
                                                                django_capture_on_commit_callbacks):
    monkeypatch.setattr("validation.api.views.validation_run_execute_task.delay", _broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        api.post("/api/validation-runs/", {"fabric_intent": fabric_intent.pk, "background": True}, format="json")
    (run,) = ValidationRun.objects.filter(fabric_intent=fabric_intent)
    assert run.status == "failed" and run.error.startswith("could not queue the validation: BrokerDown")


def test_twin_operation_that_cannot_be_queued_does_not_block_the_fabric(fabric_intent, monkeypatch):
    from ui import integrations

    monkeypatch.setattr("twins.tasks.twin_operation_run.delay", _broker_down)
    operation = integrations.twin_action(fabric_intent.fabric, "up")
    assert operation.status == "failed" and operation.error.startswith("could not queue the twin operation")
    assert not TwinOperation.objects.filter(status="running").exists()


def test_a_task_that_ran_and_failed_keeps_its_own_error_visible(fabric_intent, monkeypatch):
    """Eager mode: the task ran, recorded its failure and raised; the enqueue guard must not hide the bug."""
    from ui import integrations

    def ran_and_failed(operation_id):
        TwinOperation.objects.filter(pk=operation_id).update(status="failed", error="internal error: boom")
        raise RuntimeError("boom")

    monkeypatch.setattr("twins.tasks.twin_operation_run.delay", ran_and_failed)
    with pytest.raises(RuntimeError, match="boom"):
        integrations.twin_action(fabric_intent.fabric, "up")
    assert TwinOperation.objects.get().error == "internal error: boom"
