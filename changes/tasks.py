"""Celery entry points (thin: load by id, call a service). acks_late + reject_on_worker_lost come from settings."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready

logger = logging.getLogger(__name__)


@shared_task(name="changes.rollout_run", acks_late=True, reject_on_worker_lost=True)
def rollout_run(rollout_id: int) -> str:
    """Run or resume one rollout. Safe to deliver twice: the lease admits one runner, finished steps are skipped."""
    from .pipelines.runner import rollout_execute
    from .services import new_runner_id

    return rollout_execute(rollout_id=rollout_id, owner=new_runner_id())


@shared_task(name="changes.rollouts_resume_stalled")
def rollouts_resume_stalled() -> list[int]:
    from .services import rollouts_resume_stalled as resume

    return resume()


@shared_task(name="changes.drift_detect")
def drift_detect() -> dict:
    from .services import drift_detect_all

    records = drift_detect_all()
    return {"checked": len(records), "drifted": sum(record.drifted for record in records),
            "errors": sum(bool(record.error) for record in records)}


@worker_ready.connect
def _resume_on_worker_start(sender=None, **kwargs) -> None:
    """A worker that starts (e.g. after the previous one was killed) picks up rollouts left running."""
    try:
        from .services import task_options

        rollouts_resume_stalled.apply_async(**task_options())
    except Exception:  # noqa: BLE001 - a broker hiccup must not stop the worker from starting
        logger.exception("could not enqueue the resume of stalled rollouts")
