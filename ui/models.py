"""The UI's own rows: the role permissions (an unmanaged model) and the record of twin operations an operator
started from the twin page (boot, ping matrix, fidelity, failure injection) with their measured results."""

from django.conf import settings
from django.db import models


class Capability(models.Model):
    """What a role may do. Groups in ``ui.roles`` hold these permissions; views check them server-side."""

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
        return "UI capability"


class TwinOperation(models.Model):
    """One twin action on one fabric: written 'running' before the work starts, finished with its outcome."""

    class Kind(models.TextChoices):
        UP = "up", "Start twin"
        DOWN = "down", "Stop twin"
        PING = "ping", "Live checks + ping matrix"
        FIDELITY = "fidelity", "Fidelity"
        FAIL_LINK = "fail_link", "Fail a leaf uplink"
        FAIL_SPINE = "fail_spine", "Fail a spine"

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        OK = "ok", "OK"
        FAILED = "failed", "Failed"

    fabric = models.CharField(max_length=100, db_index=True, help_text="inventory fabric name")
    prefix = models.CharField(max_length=16, help_text="the twin's namespace prefix")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.RUNNING)
    result = models.JSONField(default=dict, blank=True, help_text="measurements / report as JSON")
    error = models.TextField(blank=True)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    runner = models.CharField(max_length=200, blank=True,
                              help_text="host:boot:pid:start of the process executing it (twin.runs reaper)")

    class Meta:
        ordering = ("-created", "-id")
        indexes = [models.Index(fields=("fabric", "kind", "-created"), name="twinop_fabric_kind")]

    def __str__(self) -> str:
        return f"{self.fabric} {self.kind} {self.status}"

    @property
    def duration_s(self) -> float | None:
        return round((self.finished - self.created).total_seconds(), 1) if self.finished else None
