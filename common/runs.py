"""One home for "a run": its status set, its lifecycle and its reaper (issue #14: one run record).

Compile runs, validation runs, twin operations, fabric builds and NetBox syncs are rows of models built on
``common.models.RunRecord`` (an abstract base, in the spirit of Nautobot's JobResult): one ``RunStatus`` set
(pending → running → succeeded | failed), when it was requested/started/finished, who asked, the summary, the
full result and, when it failed, why. ``run_execute(run)`` is the ONE place that moves a row through that
lifecycle and tells a domain error (a ``FabricTwinError``: failed with its message and field errors) from a bug
(anything else: failed "internal error", traceback logged, re-raised so it stays visible). Rollouts keep their
own record (``changes.Rollout`` + per-device ``Step`` rows): they pause, wait for approval and roll back, which a
run does not.

Who is executing a run, and the reaper for runs whose executor is gone (issue #12 point 8): every run (and a
twin's boot) is written ``running`` (a twin ``booting``) before its work starts. A process killed mid-way (worker SIGKILL, web server restart, OOM) would leave them ``running`` forever, and a
running twin operation blocks every further operation on its fabric. Each such row therefore records its
*runner*, ``<hostname>:<boot id>:<pid>:<process start time>``, when it starts; ``runs_reap_interrupted`` marks
failed, with the reason "interrupted", every running row whose runner provably no longer exists: same host and
(another boot, or no process with that PID and start time). A run of another host is never guessed at.

Because the check is by liveness, not by age or by "we just started", the reaper is safe to call from any
process at any time. It runs at start-up of each component that executes runs: the Celery worker
(``worker_ready`` signal, twin/celery.py) and the web server (``manage.py reap_runs`` in ``make demo`` and the
docker-compose web command, before it serves); and every FT_REAP_INTERVAL_S (60 s) while they run, so a run
whose process died while its siblings live on (a killed prefork child, a gunicorn worker past its timeout) is
not left running until the next restart: the Celery beat entry ``twin-reap-interrupted`` (a worker on that host
checks) and, with no broker, a thread of each web process that runs work in the background
(``runs_reaper_start``). Rows started before runners were recorded (empty runner) are reaped too: no process of
the version that started them survives the upgrade that added the column.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import connections, models, transaction
from django.utils import timezone

from compiler.errors import FabricTwinError

logger = logging.getLogger(__name__)

BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")
INTERRUPTED = "interrupted"
INTERNAL_ERROR = "internal error"


class RunStatus(models.TextChoices):
    """The status of every run record (compile, validation, twin operation, fabric build). ``succeeded`` says
    the run completed, not that the fabric passed (a validation run's verdict is its ``ok``)."""

    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


ACTIVE = (RunStatus.PENDING, RunStatus.RUNNING)

# Every kind of run the reaper looks at: (label, "app.Model"). Looked up by name at call time, so this module
# imports no app (the apps' models import ``common.models.RunRecord``, which imports this module).
RUN_MODELS = (("compile_runs", "intents.CompileRun"), ("validation_runs", "validation.ValidationRun"),
              ("twin_operations", "twins.TwinOperation"), ("fabric_builds", "inventory.FabricBuild"),
              ("netbox_syncs", "inventory.NetboxSync"))


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
    """(label, model, running status, failed status) of every kind of run that records a runner; a twin's boot
    is not a run record (the Twin row is the twin) but is reaped the same way."""
    kinds = [(label, apps.get_model(name), RunStatus.RUNNING, RunStatus.FAILED) for label, name in RUN_MODELS]
    return kinds + [("twin_boots", apps.get_model("twins.Twin"), "booting", "failed")]


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


# In-process long actions (no broker): at most this many at a time per web process; more wait their turn.
BACKGROUND_WORKERS = 2
_background: ThreadPoolExecutor | None = None


def run_in_background(work: Callable[[], object], *, what: str) -> bool:
    """Run ``work`` off the request when no broker is configured (Celery eager), so a long action answers 202 at
    once as it does with a worker: after the current transaction commits (the thread must see the rows the request
    wrote), in a background thread of this process, its database connection closed when done. The work records
    its own outcome and runner (``run_execute``; a rollout's lease), so ``manage.py reap_runs`` finds it if the
    process dies first. Returns False, having run nothing, when the caller should run the work itself: a broker is
    configured (queue the task) or FT_RUN_IN_BACKGROUND is off (run it in the request)."""
    if not settings.CELERY_TASK_ALWAYS_EAGER or not settings.FT_RUN_IN_BACKGROUND:
        return False
    transaction.on_commit(lambda: _executor().submit(_background_body, work, what))
    return True


def _executor() -> ThreadPoolExecutor:
    global _background
    if _background is None:
        _background = ThreadPoolExecutor(max_workers=BACKGROUND_WORKERS, thread_name_prefix="ft-run")
        if settings.FT_REAP_INTERVAL_S > 0:  # this process runs work: it also reaps, so a dead sibling's runs
            runs_reaper_start(settings.FT_REAP_INTERVAL_S)  # do not linger until the next restart
    return _background


def runs_reaper_start(interval_s: float) -> threading.Event:
    """Reap interrupted runs every ``interval_s`` in a daemon thread of this process; set the returned event to
    stop it. A failing pass (the database briefly away) is logged and the next one runs as planned."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(interval_s):
            try:
                runs_reap_interrupted()
            except Exception:  # logged with its traceback; the reaper must outlive one bad pass
                logger.exception("periodic reaping of interrupted runs failed")
            finally:
                connections.close_all()

    threading.Thread(target=loop, name="ft-run-reaper", daemon=True).start()
    return stop


def _background_body(work: Callable[[], object], what: str) -> None:
    try:
        work()
    except Exception:  # the run record holds the outcome; a bug is logged with its traceback, never lost
        logger.exception("background %s failed", what)
    finally:
        connections.close_all()


def run_start(*, model, run_id: int, task, what: str) -> None:
    """Run the prepared run row ``run_id`` of ``model`` off the request, the one dispatch of every kind of run:
    with no broker in a background thread of this process once the request commits (``run_in_background``),
    else queued for a worker (``run_enqueue``: broker down, it records the run failed). With FT_RUN_IN_BACKGROUND
    off it runs in the request. Either way the run records its runner, so the reaper finds it if its process
    dies first. ``what`` names the kind in errors and logs ("compile", "twin operation")."""
    if not run_in_background(lambda: task(run_id), what=f"{what} {run_id}"):
        run_enqueue(model=model, run_id=run_id, task=task, what=what)


def run_enqueue(*, model, run_id: int, task, what: str) -> None:
    """Queue ``task`` for the run row ``run_id`` of ``model`` and record its task id. Broker down: the run never
    started (``started`` is still empty), so it is stored failed with the reason, never "pending" (or, for a twin
    operation, "running") forever. A run that did start (eager mode) recorded its own failure: that error stays
    visible and is raised."""
    try:
        result = task.delay(run_id)
    except Exception as error:
        if not model.objects.filter(pk=run_id, status__in=ACTIVE, started__isnull=True).update(
                status=RunStatus.FAILED, finished=timezone.now(),
                error=f"could not queue the {what}: {type(error).__name__}: {error}"):
            raise
        return
    model.objects.filter(pk=run_id, task_id="").update(task_id=result.id or "")


@contextmanager
def run_execute(run, *, update_fields: tuple[str, ...] = ()) -> Iterator:
    """Own the lifecycle of one run record: ``running`` (with its runner and start time) before the body, then
    ``succeeded`` when the body returns, ``failed`` when it raises.

    A ``FabricTwinError`` is a domain error (invalid intent, a twin that cannot boot here, a refused build): the
    run fails with its message (and its field errors, when the error has ``as_dict``) and the error is not
    raised further: the record is the outcome. Anything else is a bug: the run fails with "internal error: …",
    the traceback goes to the log and the exception is raised again so it stays visible (a 500, a failed
    Celery task). The body sets the run's own outcome fields (counts, summary, result); ``update_fields`` names
    the subclass fields it sets, so the final save writes only those and the lifecycle fields."""
    run.status, run.started, run.runner = RunStatus.RUNNING, timezone.now(), runner_id()
    run.error, run.error_fields = "", {}
    run.save(update_fields=["status", "started", "runner", "error", "error_fields"])  # the reaper knows who runs it
    clock = time.perf_counter()
    try:
        yield run
    except FabricTwinError as error:
        run.status, run.error = RunStatus.FAILED, _text(str(error))
        # field -> messages of an invalid input (InputError and its subclasses)
        as_dict = getattr(error, "as_dict", None)
        run.error_fields = _text(as_dict()) if callable(as_dict) else {}
    except Exception as error:
        logger.exception("%s #%s failed with an internal error", type(run).__name__, run.pk)
        run.status, run.error = RunStatus.FAILED, _text(f"{INTERNAL_ERROR}: {type(error).__name__}: {error}")
        _run_finish(run, clock, update_fields)
        raise
    else:
        run.status = RunStatus.SUCCEEDED
    _run_finish(run, clock, update_fields)


def _text(value):
    """An error message (or field errors) PostgreSQL text and jsonb can hold: NUL (from hostile input) escaped."""
    if isinstance(value, str):
        return value.replace("\x00", "\\x00")
    if isinstance(value, dict):
        return {_text(key): _text(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_text(item) for item in value]
    return value


def _run_finish(run, clock: float, update_fields: tuple[str, ...]) -> None:
    run.finished = timezone.now()
    run.duration_s = round(time.perf_counter() - clock, 4)
    run.save(update_fields=["status", "error", "error_fields", "finished", "duration_s", "summary", "result",
                            *update_fields])
