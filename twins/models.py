"""A Twin: one live copy of a fabric intent's compiled configs, and what was last measured on it; and the
record of each operation run on a fabric's twin.

The runtime state (namespaces, PIDs) lives in labs.runtime's state file named by ``prefix``; this row is the
durable, queryable record: which compile run was booted, when it converged, how much memory it takes, the last
live-check report, the last fidelity comparison and what the twin cannot measure on this machine. The
``last_*`` fields are the latest outcome of each kind of measurement, whoever ran it (API, command, UI);
a ``TwinOperation`` records one requested operation (who, when, how long, its result or why it failed).
"""

from django.db import models, transaction

from common.models import RunRecord
from intents.deployed import deployed_twin_clear

from .choices import TWIN_RUNNING, TwinEngineChoices, TwinOperationKindChoices, TwinShardStateChoices, TwinStatusChoices

__all__ = ("Installation", "Twin", "TwinOperation", "TwinShard")


class Installation(models.Model):
    """This database's installation id (labs.ownership): every twin it boots is named, recorded and marked with
    it, so two checkouts sharing a host never touch each other's twins. One row, created by migration
    ``0002_installation`` (or on first use after a flush: ``twins.services.installation_id``), never changed."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    installation_id = models.CharField(max_length=6, unique=True,
                                       help_text="6 lowercase hex characters (labs.ownership.INSTALLATION_ID)")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="installation_singleton")]

    def __str__(self) -> str:
        return f"installation {self.installation_id}"


class Twin(models.Model):
    fabric_intent = models.ForeignKey("intents.FabricIntent", on_delete=models.CASCADE, related_name="twins")
    engine = models.CharField(max_length=16, choices=TwinEngineChoices.choices, default=TwinEngineChoices.NETNS)
    prefix = models.CharField(max_length=16, unique=True,
                              help_text="Namespace/FRR pathspace prefix of this twin (labs.runtime): "
                                        "tw<installation id><intent hash>")
    state_dir = models.CharField(max_length=255, blank=True,
                                 help_text="Where labs.runtime keeps the state file; empty: its default (out/twins)")
    status = models.CharField(max_length=16, choices=TwinStatusChoices.choices, default=TwinStatusChoices.DOWN)
    compile_run = models.ForeignKey("intents.CompileRun", on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="twins",
                                    help_text="The compile every switch runs now (booted, or rolled out to every "
                                              "switch); empty while switches run different compiles "
                                              "(its switches' intents.DeployedConfig rows say which)")
    started = models.DateTimeField(null=True, blank=True)
    converged = models.DateTimeField(null=True, blank=True)
    boot_s = models.FloatField(null=True, blank=True, help_text="Namespaces, cables, plans and daemons started")
    converge_s = models.FloatField(null=True, blank=True,
                                   help_text="Daemon start until every BGP session was Established")
    rss_mb = models.FloatField(null=True, blank=True, help_text="Sum of the RSS of the twin's FRR daemons (MiB)")
    switches = models.PositiveIntegerField(default=0)
    hosts = models.PositiveIntegerField(default=0)
    last_report = models.JSONField(default=dict, blank=True, help_text="Last live-check report (labs.checks)")
    last_measured = models.JSONField(default=dict, blank=True, help_text="Numbers the live checks measured")
    last_injection = models.JSONField(default=dict, blank=True, help_text="Last failure injection")
    last_fidelity = models.JSONField(default=dict, blank=True, help_text="Last twin vs validators comparison")
    limitations = models.JSONField(default=list, blank=True,
                                   help_text="What this twin cannot measure here (static only), with the reason")
    error = models.TextField(blank=True)
    runner = models.CharField(max_length=200, blank=True,
                              help_text="host:boot:pid:start of the process booting it (common.runs reaper)")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("fabric_intent", "engine")
        constraints = [
            models.UniqueConstraint(fields=("fabric_intent", "engine"), name="twin_unique_intent_engine"),
        ]

    def __str__(self) -> str:
        return f"twin {self.prefix} of {self.fabric_intent_id} ({self.engine}, {self.status})"

    def save(self, *args, **kwargs):
        # Whoever writes the row (service, admin, shell): a twin that does not run runs no config, so its switches'
        # intents.DeployedConfig rows go with its running status, in the same transaction (intents/deployed.py).
        with transaction.atomic():
            super().save(*args, **kwargs)
            if self.status not in TWIN_RUNNING:
                deployed_twin_clear(twin_id=self.pk)


class TwinOperation(RunRecord):
    """One operation on the twin of one fabric (boot, live checks, fidelity, failure injection), requested from
    the UI or the API (``/api/twins/{id}/<action>/``; its status URL is ``/api/twin-operations/{id}/``). Unlike
    other runs it is written ``running`` when requested (``twins.services.twin_operation_create``):
    it claims the fabric's twin, so a second operation is refused until it finished or its process is gone."""

    kind = models.CharField(max_length=16, choices=TwinOperationKindChoices.choices)
    fabric = models.CharField(max_length=100, db_index=True, help_text="inventory fabric name")
    prefix = models.CharField(max_length=16, blank=True, help_text="the twin's namespace prefix")
    twin = models.ForeignKey(Twin, on_delete=models.SET_NULL, null=True, blank=True, related_name="operations",
                             help_text="The twin it runs on (API: the twin named in the URL); empty: the fabric's "
                                       "netns twin, created by 'up'")
    params = models.JSONField(default=dict, blank=True,
                              help_text="The operation's options: failover (up, check), force (down), target "
                                        "(fail_link, fail_spine), n_minus_1 (fidelity)")

    class Meta(RunRecord.Meta):
        indexes = [models.Index(fields=("fabric", "kind", "-created"), name="twinoperation_fabric_kind")]

    def __str__(self) -> str:
        return f"{self.fabric} {self.kind} {self.status}"


class TwinShard(models.Model):
    """One shard of a sharded twin (engine ``sharded``): the switches one twin host runs, that host's underlay
    and the stitched cables with an end there (labs.shards, labs.stitch). Its tasks run on the worker consuming
    ``twin-shard.<host>`` (``twins.shards.shard_queue``); ``state``/``last_result`` are what that worker last
    answered. The coordinator's runs are ``TwinOperation`` rows (kinds ``shards_*``)."""

    twin = models.ForeignKey(Twin, on_delete=models.CASCADE, related_name="shards")
    index = models.PositiveSmallIntegerField(help_text="Position in the plan; the shard's prefix is <twin prefix>s<index>")
    host = models.CharField(max_length=32, help_text="Twin host name (labs.shards.HOST_SPEC); its queue is "
                                                     "twin-shard.<host>")
    weight = models.FloatField(default=1.0)
    prefix = models.CharField(max_length=16, unique=True, help_text="The shard's namespace prefix (labs.shard_run)")
    switches = models.JSONField(default=list, help_text="Switches this host runs")
    underlay = models.JSONField(default=dict, help_text="labs.stitch.UnderlayHost: address, ifname, mtu, netns "
                                                        "(netns set: an emulated host on the coordinator's machine)")
    stitch_endpoints = models.JSONField(default=list, blank=True,
                                        help_text="Stitched cables with an end here: vni, local end, remote end and host")
    state = models.CharField(max_length=16, choices=TwinShardStateChoices.choices, default=TwinShardStateChoices.DOWN)
    worker = models.CharField(max_length=200, blank=True, help_text="The Celery worker that answered last")
    last_result = models.JSONField(default=dict, blank=True, help_text="The last task's outcome on the host")
    error = models.TextField(blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("twin", "index")
        constraints = [
            models.UniqueConstraint(fields=("twin", "host"), name="twinshard_unique_twin_host"),
            models.UniqueConstraint(fields=("twin", "index"), name="twinshard_unique_twin_index"),
        ]

    def __str__(self) -> str:
        return f"shard {self.host} of {self.twin_id} ({self.state})"
