"""The one Celery task of the twins app: execute a recorded twin operation (``TwinOperation``), loaded by id
(eager unless a broker is set). Every twin action is a recorded operation (issue #28): the four unrecorded
tasks (``twins.up|check|inject|fidelity``) are gone; a worker's direct use records an operation first
(``twins.services.twin_operation_create``) and sends its id here.
"""

from celery import shared_task

from common.runs import ACTIVE, run_start

from . import services, shards
from .models import TwinOperation, TwinShard


@shared_task(name="twins.twin_operation_execute", acks_late=True)
def twin_operation_run(operation_id: int) -> str:
    """Execute a recorded twin operation (a redelivered message of a finished one does nothing)."""
    operation = TwinOperation.objects.get(pk=operation_id)
    if operation.status not in ACTIVE:
        return operation.status
    return services.twin_operation_execute(operation=operation).status


@shared_task(name="twins.shard", bind=True, acks_late=True)
def twin_shard_task(self, shard_id: int, action: str, converge_timeout_s: float | None = None) -> dict:
    """One shard's ``up`` / ``verify`` / ``down`` on the host whose worker consumes ``twin-shard.<host>``
    (``twins.shards.shard_queue``); the outcome is recorded on the shard's row, which the coordinator reads."""
    shard = TwinShard.objects.select_related("twin").get(pk=shard_id)
    return shards.twin_shard_run(shard=shard, action=action, worker=None if self.request.is_eager else self.request.hostname,
                                 converge_timeout_s=converge_timeout_s)


def twin_operation_start(*, operation_id: int) -> None:
    """Run a recorded operation off the request, the one path of the UI's buttons and the API's actions
    (``common.runs.run_start``; broker down, it is recorded failed instead of blocking the fabric's twin)."""
    run_start(model=TwinOperation, run_id=operation_id, task=twin_operation_run, what="twin operation")
