"""Celery tasks of the twins app: thin, load by id and call the service (eager unless a broker is set)."""

from celery import shared_task

from common.runs import ACTIVE, run_start
from intents.models import FabricIntent

from . import services, shards
from .models import TwinOperation, TwinShard
from .selectors import twin_get


def _summary(twin) -> dict:
    return {"twin": twin.pk, "prefix": twin.prefix, "status": twin.status, "converge_s": twin.converge_s,
            "rss_mb": twin.rss_mb}


@shared_task(name="twins.up")
def twin_up_task(fabric_intent_id: int, engine: str = "netns", failover: bool = False) -> dict:
    fabric_intent = FabricIntent.objects.get(pk=fabric_intent_id)
    return _summary(services.twin_up(fabric_intent=fabric_intent, engine=engine, failover=failover))


@shared_task(name="twins.check")
def twin_check_task(twin_id: int, failover: bool = False) -> dict:
    return _summary(services.twin_check(twin=twin_get(twin_id=twin_id), failover=failover))


@shared_task(name="twins.inject")
def twin_inject_task(twin_id: int, kind: str = "link", target: str | None = None) -> dict:
    return services.twin_inject(twin=twin_get(twin_id=twin_id), kind=kind, target=target)


@shared_task(name="twins.fidelity")
def twin_fidelity_task(twin_id: int, n_minus_1: str = "sample") -> dict:
    result = services.twin_fidelity(twin=twin_get(twin_id=twin_id), n_minus_1=n_minus_1)
    return {"twin": twin_id, "disagreements": result["disagreements"], "agreed_failures": result["agreed_failures"]}


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
