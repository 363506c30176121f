"""Celery tasks of the inventory app: thin wrappers that call the builder (eager unless a broker is set)."""

from celery import shared_task

from .api.serializers import clos_params_from
from .builder import fabric_build


@shared_task(name="inventory.fabric_build")
def fabric_build_task(params: dict) -> dict:
    """Plan and persist a Clos fabric; returns what was created/updated and the per-leaf oversubscription."""
    return fabric_build(params=clos_params_from(params)).as_dict()
