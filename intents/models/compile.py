"""Compile runs and their per-device results, plus what is deployed on each device (the diff baseline).

A CompileRun is the durable record of one compile (a ``common.models.RunRecord``: status, timing, who asked, the
error when it failed) with its counts and the digest of the snapshot it compiled, so a later validation of
its stored configs can tell that the intent or inventory changed since. DeviceConfig holds one device x platform result: the rendered files, the structured
config they came from and the sha256 the compiler computed. DeployedConfig points at the DeviceConfig that is
live on a production device or on a switch of a running twin (its ``target``): the one record of deployed configs
(issue #28 point 4). Production rollouts set the device rows; the twins app sets a twin's rows at boot and after
every push or rollback on it, and removes them when the twin stops running; diffs compare a new compile with them.
"""

from django.db import models

from common.models import RunRecord

from ..choices import DeployedSourceChoices, DeployedTargetChoices, PlatformChoices

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
    target = models.CharField(max_length=8, choices=DeployedTargetChoices.choices, default=DeployedTargetChoices.DEVICE)
    # The twins app's Twin id (no foreign key: intents stay upstream of twins, as of the change pipelines).
    twin = models.PositiveBigIntegerField(null=True, blank=True, help_text="twin target: id of the twin")
    hostname = models.CharField(max_length=63)
    platform = models.CharField(max_length=8, choices=PlatformChoices.choices)
    device_config = models.ForeignKey(DeviceConfig, on_delete=models.RESTRICT, related_name="deployments",
                                      null=True, blank=True,
                                      help_text="the compiled config it runs; empty only on a twin switch pushed "
                                                "from a change set that came from no compile run")
    deployed = models.DateTimeField(auto_now=True)
    # The changes app's Rollout id (no foreign key: intents stay upstream of the change pipelines); empty when
    # the run was marked deployed by hand (API mark_deployed) or booted on a twin.
    deployed_by_rollout = models.PositiveBigIntegerField(null=True, blank=True,
                                                         help_text="id of the rollout that pushed it")
    # Twin rows: how the switch came to run it, the digest of the files it runs, and (after a rollout's push) what
    # it ran before, which a rollback restores: {compile_run, sha256, source, rollout, at}.
    source = models.CharField(max_length=8, choices=DeployedSourceChoices.choices, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    previous = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ("fabric_intent", "hostname", "platform")
        constraints = [
            models.UniqueConstraint(fields=("fabric_intent", "hostname", "platform"),
                                    condition=models.Q(target=DeployedTargetChoices.DEVICE),
                                    name="deployedconfig_unique_host_platform"),
            models.UniqueConstraint(fields=("twin", "hostname"), condition=models.Q(target=DeployedTargetChoices.TWIN),
                                    name="deployedconfig_unique_twin_host"),
            models.CheckConstraint(
                condition=(models.Q(target=DeployedTargetChoices.DEVICE, twin__isnull=True,
                                    device_config__isnull=False)
                           | models.Q(target=DeployedTargetChoices.TWIN, twin__isnull=False)),
                name="deployedconfig_target_fields"),
        ]

    def __str__(self) -> str:
        where = f"twin {self.twin} " if self.target == DeployedTargetChoices.TWIN else ""
        run = self.device_config.run_id if self.device_config_id else "?"
        return f"{where}{self.hostname}/{self.platform} deployed from run {run}"
