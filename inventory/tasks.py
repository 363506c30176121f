"""Celery tasks of the inventory app: thin, load the record by id and call the builder (eager unless a broker is
set)."""

from celery import shared_task

from twin.runs import ACTIVE

from .builder import fabric_build_execute
from .models import FabricBuild


@shared_task(name="inventory.fabric_build_execute")
def fabric_build_task(build_id: int) -> dict:
    """Execute a recorded fabric build; the FabricBuild row records status, timing, counts and errors."""
    build = FabricBuild.objects.get(pk=build_id)
    if build.status in ACTIVE:
        build = fabric_build_execute(build=build)
    return {"build": build.pk, "status": build.status, "error": build.error, **build.result}
