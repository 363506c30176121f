"""Celery tasks of the inventory app: thin wrappers that call the builder (eager unless a broker is set)."""

from celery import shared_task
from django.conf import settings

from compiler.errors import FabricTwinError

from .api.serializers import clos_params_from
from .builder import fabric_build
from .choices import NetboxSyncTriggerChoices
from .netbox_sync import netbox_client_configured, netbox_sync_live


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


class NetboxSyncFailed(Exception):
    """A re-sync NetBox or the inventory refused, as one plain message across the broker (see FabricBuildFailed)."""


@shared_task(name="inventory.netbox_sync")
def netbox_sync_task(fabric: str = "", trigger: str = NetboxSyncTriggerChoices.SCHEDULE, dry_run: bool = False,
                     allow_missing_links: bool = False) -> dict:
    """Re-sync the fabric from the configured NetBox (settings FT_NETBOX_*): the beat schedule and the webhook.
    Every run that reached NetBox is a NetboxSync row (failed ones too); returns its id, status and summary."""
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
    return {"id": result.record.id, "status": result.record.status, "summary": result.record.summary}
