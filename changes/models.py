"""Records of the change pipelines: change sets, rollouts, per-device steps, drift, device endpoints, audit.

Modelled on Nautobot's JobResult: one durable row per run (Rollout) and one row per action on one device (Step),
written before and after the action, so a crash leaves an exact record of what was done and what is unknown.
Devices are referred to by hostname (the inventory's unique key) so change records outlive inventory edits.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models

from common import names
from compiler.secret_refs import SECRET_REFERENCE

from .choices import (
    AuditActionChoices,
    DriverChoices,
    RolloutKindChoices,
    RolloutStateChoices,
    RolloutTargetChoices,
    StepPhaseChoices,
    StepResultChoices,
)
from .credentials import options_encrypt, secret_source_problems

__all__ = ("ChangeSet", "ChangeSetDevice", "Rollout", "Step", "DeviceEndpoint", "ConfigSecret", "DriftRecord",
           "AuditLog")


class ChangeSet(models.Model):
    """Per device, the intended config (from a compile run) against the running / last-deployed one."""

    name = models.CharField(max_length=200)
    fabric_name = models.CharField(max_length=100, blank=True)
    compile_run_id = models.BigIntegerField(null=True, blank=True, help_text="intents compile run it came from")
    # The twin handle (issue #28): a twin change set was read from this twin and is rolled out onto it only.
    twin = models.ForeignKey("twins.Twin", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="change_sets",
                             help_text="twin target: the twin whose running configs it was read from")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-id",)

    def __str__(self) -> str:
        return self.name


class ChangeSetDevice(models.Model):
    change_set = models.ForeignKey(ChangeSet, on_delete=models.CASCADE, related_name="devices")
    hostname = models.CharField(max_length=63)
    role = models.CharField(max_length=20, blank=True)
    rack = models.CharField(max_length=100, blank=True)
    platform = models.CharField(max_length=20, help_text="platform of the config files (eos | sonic | frr)")
    driver = models.CharField(max_length=20, choices=DriverChoices.choices)
    intended_files = models.JSONField(default=dict, help_text="file name -> text (normalised by the driver)")
    intended_hash = models.CharField(max_length=64)
    running_files = models.JSONField(default=dict, help_text="file name -> text before the change (rollback target)")
    running_hash = models.CharField(max_length=64, blank=True)
    diff = models.TextField(blank=True)
    has_diff = models.BooleanField(default=True)
    structured = models.JSONField(default=dict, blank=True, help_text="structured config (static pre-checks)")

    class Meta:
        ordering = ("change_set", "hostname")
        constraints = [models.UniqueConstraint(fields=("change_set", "hostname"), name="changeset_device_unique")]

    def __str__(self) -> str:
        return f"{self.change_set_id}:{self.hostname}"


class Rollout(models.Model):
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=RolloutKindChoices.choices)
    target = models.CharField(max_length=20, choices=RolloutTargetChoices.choices)
    state = models.CharField(max_length=20, choices=RolloutStateChoices.choices, default=RolloutStateChoices.PENDING,
                             db_index=True)
    change_set = models.ForeignKey(ChangeSet, null=True, blank=True, on_delete=models.PROTECT, related_name="rollouts")
    # The twin handle (issue #28): the drivers, checks and records of a twin rollout are built from this row.
    # SET_NULL: the rollout's record outlives its twin (deleted with its fabric intent); it cannot run then.
    twin = models.ForeignKey("twins.Twin", null=True, blank=True, on_delete=models.SET_NULL, related_name="rollouts",
                             help_text="twin target: the twin it pushes to")
    policy = models.JSONField(default=dict, help_text="canary set, wave size, max spines drained, soak, checks")
    plan = models.JSONField(default=dict, help_text="waves and devices fixed at creation (what gets approved)")
    report = models.JSONField(default=dict, blank=True, help_text="final per-device outcome")
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    approved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    # Run lease: exactly one runner works on a rollout; a crashed runner's lease expires and a resume takes over.
    lease_owner = models.CharField(max_length=64, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-id",)

    def __str__(self) -> str:
        return f"{self.name} ({self.state})"


class Step(models.Model):
    """One action on one device. Created with result=running BEFORE the action and finished AFTER it."""

    rollout = models.ForeignKey(Rollout, on_delete=models.CASCADE, related_name="steps")
    device = models.CharField(max_length=63, blank=True, help_text="hostname; blank for rollout-wide checks")
    wave = models.PositiveIntegerField(default=0)
    phase = models.CharField(max_length=20, choices=StepPhaseChoices.choices)
    result = models.CharField(max_length=20, choices=StepResultChoices.choices, default=StepResultChoices.RUNNING)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    output = models.TextField(blank=True)
    config_hash = models.CharField(max_length=64, blank=True, help_text="sha256 of the config pushed")
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ("rollout", "id")
        indexes = [models.Index(fields=("rollout", "device", "phase"), name="step_rollout_device_phase")]

    def __str__(self) -> str:
        return f"{self.rollout_id}:{self.device or '*'}:{self.phase}:{self.result}"


class DeviceEndpoint(models.Model):
    """How to reach a production device. The password and every secret-looking key of ``optional_args`` are
    Fernet-encrypted at rest (see changes.credentials); ``secret_file`` / ``password_env`` let operators keep the
    password out of the database entirely, from the sources the deployment set aside only (FT_SECRET_DIR,
    FT_DEVICE_SECRET_*: ``changes.credentials.secret_source_problems``)."""

    hostname = models.CharField(max_length=63, unique=True, validators=[names.hostname])
    driver = models.CharField(max_length=20, choices=DriverChoices.choices)
    address = models.CharField(max_length=255, help_text="management IP or DNS name")
    port = models.PositiveIntegerField(default=22)
    username = models.CharField(max_length=100, blank=True)
    password_encrypted = models.TextField(blank=True, editable=False)
    password_env = models.CharField(max_length=100, blank=True, help_text="read the password from this env var")
    secret_file = models.CharField(max_length=500, blank=True, help_text="or from this file (first line)")
    key_file = models.CharField(max_length=500, blank=True, help_text="SSH private key file")
    optional_args = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ("hostname",)

    def __str__(self) -> str:
        return f"{self.hostname} ({self.driver})"

    def save(self, *args, **kwargs):
        # Whoever writes the row (service, admin, shell, importer): secret-looking optional_args are encrypted.
        self.optional_args = options_encrypt(self.optional_args or {})
        super().save(*args, **kwargs)

    def clean(self) -> None:
        problems = secret_source_problems(password_env=self.password_env, secret_file=self.secret_file,
                                          key_file=self.key_file)
        if problems:
            raise ValidationError({problem.field: f"{problem.message} (got {problem.value!r})" for problem in problems})


class ConfigSecret(models.Model):
    """A secret a rendered config names by reference (``FT-SECRET[<reference>]``, compiler.secret_refs), e.g. the
    TACACS+ key of ``FabricIntent.aaa_secret_ref``. Fernet-encrypted at rest like endpoint passwords; written only
    through ``changes.credentials.config_secret_set`` (``manage.py config_secret set``), read only by the push
    drivers' resolver (``changes.credentials.secret_refs_resolve``)."""

    reference = models.CharField(max_length=200, unique=True,
                                 validators=[RegexValidator(SECRET_REFERENCE.pattern,
                                                            "a reference like vault:secret/path")])
    value_encrypted = models.TextField(editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("reference",)

    def __str__(self) -> str:
        return self.reference


class DriftRecord(models.Model):
    """One drift check of one device: running config (read through its driver) against the intended one."""

    hostname = models.CharField(max_length=63, db_index=True)
    checked_at = models.DateTimeField(auto_now_add=True)
    intended_hash = models.CharField(max_length=64, blank=True)
    running_hash = models.CharField(max_length=64, blank=True)
    drifted = models.BooleanField(default=False)
    diff = models.TextField(blank=True)
    # Semantic drift (compiler.parse.drift): field-level differences in the model's words, and the error findings
    # the static checks raise on the running state that the intended state does not have.
    differences = models.JSONField(default=list, blank=True)
    running_errors = models.JSONField(default=list, blank=True)
    # What brings the device back (changes.drift.remediation_build): {"platform", "cli": [EOS CLI / vtysh lines],
    # "config_db_patch": [RFC 6902 ops], "notes": [...]}; empty without semantic drift.
    remediation = models.JSONField(default=dict, blank=True, help_text=(
        "What brings the device back to the intended config: platform, cli (EOS CLI or vtysh lines, in context), "
        "config_db_patch (SONiC: the RFC 6902 JSON Patch for `config apply-patch`), notes; {} without semantic "
        "drift."))
    error = models.TextField(blank=True)
    change_set = models.ForeignKey(ChangeSet, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ("-id",)
        get_latest_by = "checked_at"

    def __str__(self) -> str:
        return f"{self.hostname}: {'drifted' if self.drifted else 'in sync'}{' (error)' if self.error else ''}"


class AuditLog(models.Model):
    """Who changed what, when: every save/delete of intents, inventory and rollouts, and every rollout action."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    username = models.CharField(max_length=150, blank=True, help_text="kept when the user is deleted")
    action = models.CharField(max_length=20, choices=AuditActionChoices.choices)
    object_type = models.CharField(max_length=100, help_text="app_label.model")
    object_id = models.CharField(max_length=64, blank=True)
    object_repr = models.CharField(max_length=200, blank=True)
    changes = models.JSONField(default=dict, blank=True)
    message = models.TextField(blank=True)

    class Meta:
        ordering = ("-id",)
        indexes = [models.Index(fields=("object_type", "object_id"), name="audit_object")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.username or '-'} {self.action} {self.object_type}#{self.object_id}"
