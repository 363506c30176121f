"""Celery task of the validation app: thin, loads the run by id and calls the service."""

from celery import shared_task

from common.runs import run_start

from . import services
from .models import ValidationRun


@shared_task(name="validation.validation_run_execute")
def validation_run_execute_task(run_id: int) -> dict:
    run = ValidationRun.objects.select_related("fabric_intent__fabric").get(pk=run_id)
    run = services.validation_run_execute(run=run)
    return {"run": run.pk, "status": run.status, "ok": run.ok, "errors": run.error_count}


def validation_run_start(*, run_id: int) -> None:
    """Run a prepared validation off the request (the UI's Validate buttons; ``common.runs.run_start``)."""
    run_start(model=ValidationRun, run_id=run_id, task=validation_run_execute_task, what="validation")
