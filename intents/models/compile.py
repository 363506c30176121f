"""Compile runs and their per-device results, plus what is deployed on each device (the diff baseline).

A CompileRun is the durable record of one compile (a ``common.models.RunRecord``: status, timing, who asked, the
error when it failed) with its counts and the digest of the snapshot it compiled, so a later validation of
its stored configs can tell that the intent or inventory changed since. DeviceConfig holds one device x platform result: the rendered files, the structured
config they came from and the sha256 the compiler computed. DeployedConfig points at the DeviceConfig that is
live on a device; the change pipelines set it, and diffs compare a new compile against it.
"""

from django.db import models

from common.models import RunRecord

from ..choices import PlatformChoices

__all__ = ("CompileRun", "DeviceConfig", "DeployedConfig")


class CompileRun(RunRecord):
    kind = models.CharField(max_length=16, default="compile", editable=False)
    fabric_intent = models.ForeignKey("intents.FabricIntent", on_delete=models.CASCADE, related_name="compile_runs")
    device_count = models.PositiveIntegerField(default=0)
    platforms = models.JSONField(default=list, blank=True, help_text="Requested platforms; empty: each device's own + frr")
    devices = models.JSONField(default=list, blank=True, help_text="Requested hostnames; empty: every device")
    snapshot_sha256 = models.CharField(max_length=64, blank=True,
                                       help_text="Digest of the inventory + intent + allocations it compiled")

    class Meta(RunRecord.Meta):
        indexes = [models.Index(fields=("fabric_intent", "status", "-created"), name="compilerun_intent_status")]

    def __str__(self) -> str:
        return f"compile #{self.pk} of {self.fabric_intent_id} ({self.status})"


class DeviceConfig(models.Model):
    run = models.ForeignKey(CompileRun, on_delete=models.CASCADE, related_name="device_configs")
    hostname = models.CharField(max_length=63)
    platform = models.CharField(max_length=8, choices=PlatformChoices.choices)
    files = models.JSONField(help_text="file name -> rendered text")
    structured = models.JSONField(help_text="The vendor-neutral structured config (docs/structured-config.md)")
    sha256 = models.CharField(max_length=64)

    class Meta:
        ordering = ("run", "hostname", "platform")
        constraints = [
            models.UniqueConstraint(fields=("run", "hostname", "platform"), name="deviceconfig_unique_run_host_platform"),
        ]

    def __str__(self) -> str:
        return f"{self.hostname}/{self.platform} (run {self.run_id})"


class DeployedConfig(models.Model):
    fabric_intent = models.ForeignKey("intents.FabricIntent", on_delete=models.CASCADE, related_name="deployed")
    hostname = models.CharField(max_length=63)
    platform = models.CharField(max_length=8, choices=PlatformChoices.choices)
    device_config = models.ForeignKey(DeviceConfig, on_delete=models.RESTRICT, related_name="deployments")
    deployed = models.DateTimeField(auto_now=True)
    # The changes app's Rollout id (no foreign key: intents stay upstream of the change pipelines); empty when
    # the run was marked deployed by hand (API mark_deployed).
    deployed_by_rollout = models.PositiveBigIntegerField(null=True, blank=True,
                                                         help_text="id of the production rollout that pushed it")

    class Meta:
        ordering = ("fabric_intent", "hostname", "platform")
        constraints = [
            models.UniqueConstraint(fields=("fabric_intent", "hostname", "platform"),
                                    name="deployedconfig_unique_host_platform"),
        ]

    def __str__(self) -> str:
        return f"{self.hostname}/{self.platform} deployed from run {self.device_config.run_id}"
