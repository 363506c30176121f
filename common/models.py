"""The abstract run record every kind of run is built on (common/runs.py owns its lifecycle).

It lives in the kernel app (common/), which every app may import and which imports no app: compile runs (intents),
validation runs (validation), twin operations (twins) and fabric builds (inventory) all inherit it without an
import cycle, and an abstract model adds no table of its own.
"""

from django.conf import settings
from django.db import models

from .runs import RunStatus

__all__ = ("Capability", "RunRecord")


class Capability(models.Model):
    """What a role may do: the ``common.<codename>`` permissions, one per capability. Groups in ``common.roles``
    hold them; ``common.policy`` says which one each API operation and UI action needs; views check them
    server-side. Unmanaged: no table, it only carries the permissions (moved here from ui, issue #28 point 1)."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = (
            ("view_fabric_data", "Read inventory, intents, configs, reports, the twin and rollouts"),
            ("operate_fabric", "Compile, validate, run the twin, run twin rollouts and canaries"),
            ("edit_inventory", "Create, edit and build inventory (fabrics, racks, switches, cables)"),
            ("edit_intents", "Create and edit intents (tenants, networks, RoCE classes)"),
            ("approve_production_rollout", "Create, approve and start rollouts and change sets on production devices"),
            ("manage_endpoints", "Create, edit and read device endpoints and their credentials"),
            ("manage_users", "Create and edit users and their roles"),
        )

    def __str__(self) -> str:
        return "capability"


class RunRecord(models.Model):
    """One requested piece of work and its outcome (Nautobot's JobResult, one table per kind). Written before
    the work starts; ``common.runs.run_execute`` moves it pending → running → succeeded | failed."""

    kind = models.CharField(max_length=16, editable=False, help_text="What kind of run this is")
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.PENDING)
    created = models.DateTimeField(auto_now_add=True, help_text="When it was requested")
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    duration_s = models.FloatField(null=True, blank=True, help_text="Seconds from start to finish")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    task_id = models.CharField(max_length=64, blank=True, help_text="Celery task id when it was queued")
    runner = models.CharField(max_length=200, blank=True,
                              help_text="host:boot:pid:start of the process executing it (common.runs reaper)")
    summary = models.JSONField(default=dict, blank=True, help_text="What the run found, in a few numbers")
    result = models.JSONField(default=dict, blank=True, help_text="The run's full outcome as JSON")
    error = models.TextField(blank=True, help_text="Why the run failed (empty unless failed)")
    error_fields = models.JSONField(default=dict, blank=True, help_text="field -> messages when the input was invalid")

    class Meta:
        abstract = True
        ordering = ("-created", "-id")

    @property
    def active(self) -> bool:
        return self.status in (RunStatus.PENDING, RunStatus.RUNNING)
