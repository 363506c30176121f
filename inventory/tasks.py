"""Celery tasks of the inventory app: thin wrappers that call the builder (eager unless a broker is set)."""

from celery import shared_task

from compiler.errors import FabricTwinError

from .api.serializers import clos_params_from
from .builder import fabric_build


class FabricBuildFailed(Exception):
    """A build refused by the planner or the inventory, carried across the broker as one plain message.

    Celery rebuilds a task's exception on the caller's side from its class and message, which our structured
    errors do not survive; this one carries the full text (every field error).
    """


@shared_task(name="inventory.fabric_build")
def fabric_build_task(params: dict) -> dict:
    """Plan and persist a Clos fabric; returns what was created/updated and the per-leaf oversubscription."""
    try:
        return fabric_build(params=clos_params_from(params)).as_dict()
    except FabricTwinError as error:
        if fabric_build_task.request.is_eager:
            raise  # in-process: the API's exception handler turns it into a 400 with field errors
        raise FabricBuildFailed(str(error)) from None
