"""The record of each NetBox import / re-sync: what NetBox held (keyed by NetBox object ids), the diff against the
previous applied sync, and the links NetBox has that could not be imported. One row per run, dry runs included.
(A generic run record may later absorb this; the fields are the ones any run needs: status, summary, detail.)"""

from django.db import models

from ..choices import NetboxSyncStatusChoices, NetboxSyncTriggerChoices

__all__ = ("NetboxSync",)


class NetboxSync(models.Model):
    fabric_name = models.CharField(max_length=100, db_index=True)  # a name: a dry run may precede the fabric
    source = models.CharField(max_length=300)  # the NetBox URL or the dump directory's name (never a token)
    trigger = models.CharField(max_length=10, choices=NetboxSyncTriggerChoices.choices)
    status = models.CharField(max_length=10, choices=NetboxSyncStatusChoices.choices)
    allow_missing_links = models.BooleanField(default=False)
    started_at = models.DateTimeField(auto_now_add=True)
    summary = models.TextField(blank=True)  # one line: counts of the diff and of the rows written
    diff = models.JSONField(default=list)  # [{"action": create|update|delete|re-patch, "object", "name", "detail"}]
    persisted = models.JSONField(default=dict)  # PersistResult.as_dict(): rows created / updated / deleted
    skipped = models.JSONField(default=list)  # [[object, reason], ...]
    missing_links = models.JSONField(default=list)  # [{"device", "interface", "source", "reason"}]
    state = models.JSONField(default=dict)  # NetBox object key -> what was imported (the next diff's baseline)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ("-started_at", "-id")

    def __str__(self) -> str:
        return f"netbox sync {self.id} of {self.fabric_name}: {self.status}"
