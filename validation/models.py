"""A validation run of one fabric intent and its findings (one row per Finding of validators.findings)."""

from django.db import models


class ValidationStatusChoices(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"  # the run completed; whether the fabric passed is ``ok``
    FAILED = "failed", "Failed"  # the run itself could not complete (invalid intent, internal error)


class SeverityChoices(models.TextChoices):
    ERROR = "error", "Error"
    WARNING = "warning", "Warning"
    INFO = "info", "Info"


class ValidationRun(models.Model):
    fabric_intent = models.ForeignKey("intents.FabricIntent", on_delete=models.CASCADE, related_name="validation_runs")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=ValidationStatusChoices.choices,
                              default=ValidationStatusChoices.PENDING)
    checks = models.JSONField(default=list, blank=True, help_text="Requested checks (names or prefixes); empty = all")
    task_id = models.CharField(max_length=64, blank=True)
    runner = models.CharField(max_length=200, blank=True,
                              help_text="host:boot:pid:start of the process executing it (twin.runs reaper)")
    ok = models.BooleanField(null=True, help_text="No check failed (null until the run completed)")
    summary = models.JSONField(default=dict, blank=True,
                               help_text="Per check: status, skip reason, finding counts, seconds; N-1 summary")
    device_count = models.PositiveIntegerField(default=0)
    checks_passed = models.PositiveIntegerField(default=0)
    checks_failed = models.PositiveIntegerField(default=0)
    checks_skipped = models.PositiveIntegerField(default=0)
    error_count = models.PositiveIntegerField(default=0)
    warning_count = models.PositiveIntegerField(default=0)
    info_count = models.PositiveIntegerField(default=0)
    duration_s = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True, help_text="Why the run failed (not the fabric's findings)")
    error_fields = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
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
