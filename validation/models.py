"""A validation run of one compile run and its findings (one row per Finding of validators.findings).

A ValidationRun is a ``common.models.RunRecord`` (status ``succeeded`` = the run completed; whether the fabric
passed is ``ok``). It points at the compile run whose STORED configs it validated.
"""

from django.db import models

from common.models import RunRecord


class SeverityChoices(models.TextChoices):
    ERROR = "error", "Error"
    WARNING = "warning", "Warning"
    INFO = "info", "Info"


class ValidationRun(RunRecord):
    kind = models.CharField(max_length=16, default="validation", editable=False)
    fabric_intent = models.ForeignKey("intents.FabricIntent", on_delete=models.CASCADE, related_name="validation_runs")
    compile_run = models.ForeignKey("intents.CompileRun", on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="validation_runs",
                                    help_text="The compile run whose stored configs were validated")
    checks = models.JSONField(default=list, blank=True, help_text="Requested checks (names or prefixes); empty = all")
    ok = models.BooleanField(null=True, help_text="No check failed (null until the run completed)")
    device_count = models.PositiveIntegerField(default=0)
    checks_passed = models.PositiveIntegerField(default=0)
    checks_failed = models.PositiveIntegerField(default=0)
    checks_skipped = models.PositiveIntegerField(default=0)
    error_count = models.PositiveIntegerField(default=0)
    warning_count = models.PositiveIntegerField(default=0)
    info_count = models.PositiveIntegerField(default=0)

    class Meta(RunRecord.Meta):
        indexes = [models.Index(fields=["fabric_intent", "-created"])]

    def __str__(self) -> str:
        return f"validation {self.pk} of {self.fabric_intent_id} ({self.status})"


class ValidationFinding(models.Model):
    run = models.ForeignKey(ValidationRun, on_delete=models.CASCADE, related_name="findings")
    check_name = models.CharField(max_length=64)  # not "check": that would shadow Model.check()
    severity = models.CharField(max_length=8, choices=SeverityChoices.choices)
    subject = models.CharField(max_length=300)
    expected = models.JSONField(null=True, blank=True)
    actual = models.JSONField(null=True, blank=True)
    message = models.TextField()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["run", "check_name"]), models.Index(fields=["run", "severity"])]

    def __str__(self) -> str:
        return f"{self.check_name} {self.severity} {self.subject}"

    def as_dict(self) -> dict:
        return {"check": self.check_name, "severity": self.severity, "subject": self.subject, "expected": self.expected,
                "actual": self.actual, "message": self.message}
