"""Celery entry points of the UI: load the recorded operation by id and call the service (nothing else)."""

from celery import shared_task

from ui.models import TwinOperation
from ui.twin_ops import twin_operation_execute


@shared_task(acks_late=True)
def twin_operation_run(operation_id: int) -> str:
    operation = TwinOperation.objects.get(pk=operation_id)
    if operation.status != TwinOperation.Status.RUNNING:
        return operation.status  # already done (a redelivered message)
    return twin_operation_execute(operation=operation).status
