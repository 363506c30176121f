"""The record of each NetBox import / re-sync (a ``common.models.RunRecord``, run through ``common.runs.run_execute``):
what NetBox held (keyed by NetBox object ids), the diff against the previous applied sync, and the links NetBox has
that could not be imported. One row per run, dry runs and failed runs included: ``status`` is the run's
(succeeded | failed ...), ``dry_run`` whether it applied anything ("applied" = succeeded and not a dry run)."""

from django.db import models

from common.models import RunRecord

from ..choices import NetboxSyncTriggerChoices

__all__ = ("NetboxSync",)


class NetboxSync(RunRecord):
    kind = models.CharField(max_length=16, default="netbox_sync", editable=False)
    fabric_name = models.CharField(max_length=100, db_index=True)  # a name: a dry run may precede the fabric
    source = models.CharField(max_length=300)  # the NetBox URL or the dump directory's name (never a token)
    trigger = models.CharField(max_length=10, choices=NetboxSyncTriggerChoices.choices)
    dry_run = models.BooleanField(default=False, help_text="Diff and measure only: nothing applied")
    allow_missing_links = models.BooleanField(default=False)
    # summary (RunRecord): {"text": one line, "create"/"update"/"delete"/"re-patch": diff counts,
    #                       "created"/"updated"/"deleted": rows written, "missing_links": n}
    diff = models.JSONField(default=list)  # [{"action": create|update|delete|re-patch, "object", "name", "detail"}]
    persisted = models.JSONField(default=dict)  # PersistResult.as_dict(): rows created / updated / deleted
    skipped = models.JSONField(default=list)  # [[object, reason], ...]
    missing_links = models.JSONField(default=list)  # [{"device", "interface", "source", "reason"}]
    state = models.JSONField(default=dict)  # NetBox object key -> what was imported (the next diff's baseline)

    class Meta(RunRecord.Meta):
        pass

    @property
    def summary_text(self) -> str:
        """The one-line summary (counts of the diff and of the rows written, or why it failed)."""
        return (self.summary or {}).get("text", "")

    def __str__(self) -> str:
        return f"netbox sync {self.id} of {self.fabric_name}: {self.status}{' (dry run)' if self.dry_run else ''}"
