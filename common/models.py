"""The abstract run record every kind of run is built on (common/runs.py owns its lifecycle).

It lives in the kernel app (common/), which every app may import and which imports no app: compile runs (intents),
validation runs (validation), twin operations (twins) and fabric builds (inventory) all inherit it without an
import cycle, and an abstract model adds no table of its own.
"""

from django.conf import settings
from django.db import models

from .runs import RunStatus

__all__ = ("RunRecord",)


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
