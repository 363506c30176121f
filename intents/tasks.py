"""Celery tasks of the intents app: thin, load by id and call the service (eager unless a broker is set)."""

from celery import shared_task

from common.runs import run_start

from . import services
from .models import CompileRun


@shared_task(name="intents.compile_run_execute")
def compile_run_execute_task(run_id: int) -> dict:
    """Execute a prepared compile run; the run row records status, timing and errors."""
    run = CompileRun.objects.select_related("fabric_intent__fabric").get(pk=run_id)
    run = services.compile_run_execute(run=run)
    return {"run": run.pk, "status": run.status, "device_count": run.device_count, "duration_s": run.duration_s}


def compile_run_start(*, run_id: int) -> None:
    """Run a prepared compile off the request (the UI's Compile button; ``common.runs.run_start``)."""
    run_start(model=CompileRun, run_id=run_id, task=compile_run_execute_task, what="compile")
