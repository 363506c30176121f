"""Celery entry points (thin: load by id, call a service). acks_late + reject_on_worker_lost come from settings."""

from __future__ import annotations

import logging
import os

from celery import shared_task
from celery.signals import worker_ready
from django.db import transaction
from django.utils import timezone

from common.runs import run_in_background

from .choices import RolloutStateChoices
from .drift import drift_detect_all
from .lifecycle import in_process_runner_id, new_runner_id
from .models import Rollout
from .pipelines.runner import rollout_execute

logger = logging.getLogger(__name__)


@shared_task(name="changes.rollout_run", acks_late=True, reject_on_worker_lost=True)
def rollout_run(rollout_id: int) -> str:
    """Run or resume one rollout. Safe to deliver twice: the lease admits one runner, finished steps are skipped."""
    return rollout_execute(rollout_id=rollout_id, owner=new_runner_id())


@shared_task(name="changes.rollouts_resume_stalled")
def rollouts_resume_stalled() -> list[int]:
    return rollouts_resume_stalled_enqueue()


@shared_task(name="changes.drift_detect")
def drift_detect() -> dict:
    records = drift_detect_all()
    return {"checked": len(records), "drifted": sum(record.drifted for record in records),
            "errors": sum(bool(record.error) for record in records)}


@worker_ready.connect
def _resume_on_worker_start(sender=None, **kwargs) -> None:
    """A worker that starts (e.g. after the previous one was killed) picks up rollouts left running."""
    try:
        rollouts_resume_stalled.apply_async(**task_options())
    except Exception:  # a broker hiccup must not stop the worker from starting
        logger.exception("could not enqueue the resume of stalled rollouts")


# --------------------------------------------------------------------------------------------- enqueue


def task_options() -> dict:
    """FT_CHANGES_QUEUE routes rollout tasks to a dedicated queue (a worker started with ``-Q <queue>``)."""
    queue = os.environ.get("FT_CHANGES_QUEUE", "")
    return {"queue": queue} if queue else {}



def rollout_enqueue(*, rollout: Rollout, countdown: float = 0) -> None:
    """Run the rollout off the request: on the broker's worker, or with no broker in a background thread of this
    process (common.runs.run_in_background; its lease names this process, so reap_runs pauses it if we die)."""
    rollout_id = rollout.pk
    if run_in_background(lambda: rollout_execute(rollout_id=rollout_id, owner=in_process_runner_id()),
                         what=f"rollout {rollout_id}"):
        return
    # After commit: the worker must see the running state (and never a rollback of it).
    transaction.on_commit(lambda: rollout_run.apply_async(args=[rollout_id], countdown=countdown, **task_options()))



def rollouts_resume_stalled_enqueue() -> list[int]:
    """Re-enqueue running rollouts whose runner died (lease expired or about to): called when a worker starts and
    by beat. A duplicate enqueue is harmless: the lease lets only one runner work on a rollout."""
    resumed = []
    now = timezone.now()
    for rollout in Rollout.objects.filter(state=RolloutStateChoices.RUNNING):
        remaining = (rollout.lease_expires_at - now).total_seconds() if rollout.lease_expires_at else 0
        rollout_enqueue_now(rollout_id=rollout.pk, countdown=max(0.0, remaining) + 0.5)
        resumed.append(rollout.pk)
    return resumed



def rollout_enqueue_now(*, rollout_id: int, countdown: float = 0) -> None:
    rollout_run.apply_async(args=[rollout_id], countdown=countdown, **task_options())

