"""The record of one fabric build (a ``common.models.RunRecord``): which Clos was asked for, by whom, and what it
created, whether it ran in the web process or in a Celery worker."""

from django.db import models

from common.models import RunRecord

__all__ = ("FabricBuild",)


class FabricBuild(RunRecord):
    kind = models.CharField(max_length=16, default="build", editable=False)
    fabric_name = models.CharField(max_length=100, db_index=True, help_text="The fabric built (or to be built)")
    params = models.JSONField(default=dict, blank=True,
                              help_text="compiler.clos.ClosParams of the build, by the planner's field names")

    class Meta(RunRecord.Meta):
        pass

    def __str__(self) -> str:
        return f"build #{self.pk} of {self.fabric_name} ({self.status})"
