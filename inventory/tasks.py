"""Celery tasks of the inventory app: thin, load the record by id and call the builder (eager unless a broker is
set)."""

from celery import shared_task
from django.conf import settings

from common.runs import ACTIVE
from compiler.errors import FabricTwinError

from .builder import fabric_build_execute
from .choices import NetboxSyncTriggerChoices
from .models import FabricBuild, NetboxSync
from .netbox_sync import netbox_client_configured, netbox_sync_execute, netbox_sync_live


@shared_task(name="inventory.fabric_build_execute")
def fabric_build_task(build_id: int) -> dict:
    """Execute a recorded fabric build; the FabricBuild row records status, timing, counts and errors."""
    build = FabricBuild.objects.get(pk=build_id)
    if build.status in ACTIVE:
        build = fabric_build_execute(build=build)
    return {"build": build.pk, "status": build.status, "error": build.error, **build.result}


@shared_task(name="inventory.netbox_sync_execute")
def netbox_sync_run(sync_id: int) -> dict:
    """Execute a prepared NetBox sync (the API and the webhook); the NetboxSync row records its outcome."""
    record = NetboxSync.objects.get(pk=sync_id)
    if record.status in ACTIVE:
        record = netbox_sync_execute(record=record)
    return {"id": record.id, "status": record.status, "dry_run": record.dry_run, "summary": record.summary_text}


class NetboxSyncFailed(Exception):
    """A re-sync NetBox or the inventory refused, as one plain message across the broker: Celery rebuilds a task's
    exception on the caller's side from its class and message, which our structured errors do not survive."""


@shared_task(name="inventory.netbox_sync")
def netbox_sync_task(fabric: str = "", trigger: str = NetboxSyncTriggerChoices.SCHEDULE, dry_run: bool = False,
                     allow_missing_links: bool = False) -> dict:
    """Re-sync the fabric from the configured NetBox (settings FT_NETBOX_*): the beat schedule and the webhook.
    Every run that reached NetBox is a NetboxSync row (failed ones too); returns its id, status, dry_run and summary line."""
    fabric = fabric or settings.FT_NETBOX_FABRIC
    try:
        if not fabric:
            raise FabricTwinError("no fabric to sync: set FT_NETBOX_FABRIC")
        result = netbox_sync_live(client=netbox_client_configured(), fabric=fabric, trigger=trigger, dry_run=dry_run,
                                  allow_missing_links=allow_missing_links)
    except FabricTwinError as error:
        if netbox_sync_task.request.is_eager:
            raise
        raise NetboxSyncFailed(str(error)) from None
    record = result.record
    return {"id": record.id, "status": record.status, "dry_run": record.dry_run, "summary": record.summary_text}
