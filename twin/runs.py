"""Who is executing a run, and the reaper for runs whose executor is gone (issue #12 point 8).

Compile runs, validation runs and the UI's twin operations are written ``running`` (a twin ``booting``) before
their work starts.
A process killed mid-way (worker SIGKILL, web server restart, OOM) would leave them ``running`` forever, and a
running twin operation blocks every further operation on its fabric. Each such row therefore records its
*runner*, ``<hostname>:<boot id>:<pid>:<process start time>``, when it starts; ``runs_reap_interrupted`` marks
failed, with the reason "interrupted", every running row whose runner provably no longer exists: same host and
(another boot, or no process with that PID and start time). A run of another host is never guessed at.

Because the check is by liveness, not by age or by "we just started", the reaper is safe to call from any
process at any time. It runs at start-up of each component that executes runs: the Celery worker
(``worker_ready`` signal, twin/celery.py) and the web server (``manage.py reap_runs`` in ``make demo`` and the
docker-compose web command, before it serves). Rows started before runners were recorded (empty runner) are
reaped too: no process of the version that started them survives the upgrade that added the column.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

from django.utils import timezone

BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")
INTERRUPTED = "interrupted"


def _boot_id() -> str:
    try:
        return BOOT_ID_FILE.read_text().strip()[:8]
    except OSError:
        return "noboot"


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/<pid>/stat field 22): with the PID it names
    one process for the whole boot, since PIDs are reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] == "Z" else fields[19]


def runner_id(pid: int | None = None) -> str:
    """This process (or ``pid``) as a runner: ``host:boot:pid:start``."""
    pid = pid or os.getpid()
    return f"{socket.gethostname()}:{_boot_id()}:{pid}:{_start_time(pid) or 0}"


@dataclass(frozen=True)
class RunnerState:
    alive: bool | None  # None: another host, cannot tell
    reason: str


def runner_state(runner: str) -> RunnerState:
    if not runner:
        return RunnerState(False, "started before runners were recorded")
    host, boot, pid_text, start = (runner.split(":") + ["", "", "", ""])[:4]
    if host != socket.gethostname():
        return RunnerState(None, f"runs on host {host}")
    if boot != _boot_id():
        return RunnerState(False, f"host {host} rebooted since it started")
    if not pid_text.isdigit() or _start_time(int(pid_text)) != start:
        return RunnerState(False, f"process {pid_text} on {host} has ended")
    return RunnerState(True, f"process {pid_text} on {host} is still running")


def _run_kinds():
    """(label, model, running status, failed status) of every kind of run that records a runner."""
    from intents.choices import CompileStatusChoices
    from intents.models import CompileRun
    from twins.choices import TwinStatusChoices
    from twins.models import Twin
    from ui.models import TwinOperation
    from validation.models import ValidationRun, ValidationStatusChoices

    return [("compile_runs", CompileRun, CompileStatusChoices.RUNNING, CompileStatusChoices.FAILED),
            ("validation_runs", ValidationRun, ValidationStatusChoices.RUNNING, ValidationStatusChoices.FAILED),
            ("twin_operations", TwinOperation, TwinOperation.Status.RUNNING, TwinOperation.Status.FAILED),
            ("twin_boots", Twin, TwinStatusChoices.BOOTING, TwinStatusChoices.FAILED)]


def interrupted_error(reason: str) -> str:
    return f"{INTERRUPTED}: {reason} before it finished; run it again"


def runs_reap_interrupted() -> dict[str, int]:
    """Mark every running run whose runner is gone as failed ("interrupted: <why>"); returns counts per kind.
    Runs of live processes and of other hosts are left as they are."""
    reaped = {}
    now = timezone.now()
    for label, model, running, failed in _run_kinds():
        count = 0
        for row in model.objects.filter(status=running).only("pk", "runner"):
            state = runner_state(row.runner)
            if state.alive is not False:
                continue
            # Conditional update: a run that finished (or was picked up by another runner) meanwhile is kept.
            finished = {"finished": now} if any(f.name == "finished" for f in model._meta.fields) else {}
            count += model.objects.filter(pk=row.pk, status=running, runner=row.runner).update(
                status=failed, error=interrupted_error(state.reason), **finished)
        reaped[label] = count
    return reaped


def run_enqueue(*, model, run_id: int, task, what: str) -> None:
    """Queue ``task`` for the ``pending`` run row ``run_id`` of ``model`` and record its task id. Broker down: the
    run never started, so it is stored failed with the reason, never "pending" forever. A run that did start
    (eager mode) recorded its own failure: that error stays visible and is raised."""
    try:
        result = task.delay(run_id)
    except Exception as error:
        if not model.objects.filter(pk=run_id, status="pending").update(
                status="failed", error=f"could not queue the {what}: {type(error).__name__}: {error}"):
            raise
        return
    model.objects.filter(pk=run_id, task_id="").update(task_id=result.id or "")
