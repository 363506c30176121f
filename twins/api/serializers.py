"""Serializers of the twins API: the Twin record and the inputs of its actions."""

from rest_framework import serializers

from common.api import BriefModelSerializer
from intents.deployed import deployed_on_twin, deployed_on_twins
from labs.frr_binaries import CHOICES as FRR_CHOICES

from ..choices import InjectionKindChoices, TwinStatusChoices, twin_healthy
from ..models import Twin, TwinOperation, TwinShard
from ..shards import shard_queue


class TwinListSerializer(serializers.ListSerializer):
    """A page of twins reads what their switches run in one query (not one per twin)."""

    def to_representation(self, data):
        twins = list(data.all() if hasattr(data, "all") else data)
        self.switch_configs = deployed_on_twins(twin_ids=[twin.pk for twin in twins])
        return super().to_representation(twins)


class TwinSerializer(BriefModelSerializer):
    fabric_intent_name = serializers.CharField(source="fabric_intent.name", read_only=True)
    healthy = serializers.SerializerMethodField(help_text="Derived from status: true exactly when it is 'up'")
    switch_configs = serializers.SerializerMethodField(
        help_text="Per switch, what it runs now: {hostname: {compile_run, sha256, source (boot | rollout | "
                  "rollback), rollout, at, previous (after a rollout's push)}}; the twin's intents.DeployedConfig "
                  "rows, written at boot and after every successful push or rollback; empty while not running")

    def get_healthy(self, twin: Twin) -> bool:
        return twin_healthy(twin.status)

    def get_switch_configs(self, twin: Twin) -> dict[str, dict]:
        page = getattr(self.parent, "switch_configs", None)
        return page.get(twin.pk, {}) if page is not None else deployed_on_twin(twin_id=twin.pk)

    class Meta:
        model = Twin
        fields = ("id", "fabric_intent", "fabric_intent_name", "engine", "prefix", "status", "healthy", "compile_run",
                  "switch_configs", "started",
                  "converged", "boot_s", "converge_s", "rss_mb", "switches", "hosts", "limitations", "error",
                  "last_report", "last_measured", "last_injection", "last_fidelity", "created", "updated")
        read_only_fields = tuple(name for name in fields if name not in ("fabric_intent", "engine"))
        validators = []  # creating the twin of an (intent, engine) that has one returns it (idempotent)
        list_serializer_class = TwinListSerializer


class TwinCheckSerializer(serializers.Serializer):
    failover = serializers.BooleanField(default=False, help_text="also inject a link and a spine failure")


class TwinUpSerializer(TwinCheckSerializer):
    subset = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=2000, trim_whitespace=True,
        help_text="boot every spine and super-spine plus these leaves (labs.subset): leaf names, leaves:N, "
                  "per-pod:N, pod:P, rail:R or ci (= per-pod:2), comma-separated; empty: the whole fabric")
    frr = serializers.ChoiceField(choices=FRR_CHOICES, required=False, allow_null=True, default=None,
                                  help_text="which FRR the switches run (auto: 10.3 where extracted, else 8.4)")


class TwinDownSerializer(serializers.Serializer):
    force = serializers.BooleanField(default=False, help_text="also remove leftovers named with the prefix")


class TwinInjectSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=InjectionKindChoices.choices, default=InjectionKindChoices.LINK)
    target = serializers.CharField(required=False, allow_null=True, default=None,
                                   help_text="leaf1:Ethernet63/1 (link) or spine2 (spine); empty: the busiest uplink")


class TwinFidelitySerializer(serializers.Serializer):
    n_minus_1 = serializers.ChoiceField(choices=("sample", "all", "none"), default="sample",
                                        help_text="which static what-if failures to repeat in the twin")


class TwinLiveStatusSerializer(serializers.Serializer):
    """``GET /api/twins/{id}/status/`` (``twins.services.twin_status``): the one status word, reconciled with the
    runtime; the runtime-only fields are present for netns twins whose state file exists."""

    twin = serializers.IntegerField(required=False)
    prefix = serializers.CharField()
    engine = serializers.CharField()
    status = serializers.ChoiceField(choices=TwinStatusChoices.choices,
                                     help_text="The twin's status (docs/twin-operations.md 'Status words')")
    healthy = serializers.BooleanField(help_text="Derived from status: true exactly when it is 'up'")
    reason = serializers.CharField(help_text="Why it is in this status, e.g. 'live checks failed: twin.l3vni_vrfs'")
    exists = serializers.BooleanField(allow_null=True, help_text="A state file exists (null: not a netns twin)")
    compile_run = serializers.IntegerField(required=False, allow_null=True,
                                           help_text="The compile every switch runs; null while they differ")
    switch_compile_runs = serializers.DictField(child=serializers.IntegerField(allow_null=True), required=False,
                                                help_text="hostname -> compile run it runs now")
    processes_alive = serializers.BooleanField(required=False, allow_null=True,
                                               help_text="Runtime liveness only: namespaces present, daemons alive")
    runtime_status = serializers.CharField(required=False, allow_null=True,
                                           help_text="The runtime state file's own status (booting | up | failed)")
    switches = serializers.IntegerField(required=False)
    hosts = serializers.IntegerField(required=False)
    uptime_s = serializers.FloatField(required=False)
    dead_daemons = serializers.DictField(required=False, help_text="switch -> daemons no longer running")
    missing_namespaces = serializers.ListField(child=serializers.CharField(), required=False)
    limitations = serializers.ListField(child=serializers.CharField(), required=False)


class TwinOperationSerializer(BriefModelSerializer):
    """``GET /api/twin-operations/{id}/``: one operation on a twin (the status URL of the twin actions): poll until
    ``status`` is succeeded or failed; ``result`` then holds what it measured, ``error`` why it failed."""

    class Meta:
        model = TwinOperation
        fields = ("id", "kind", "fabric", "twin", "prefix", "params", "status", "created", "started", "finished",
                  "duration_s", "requested_by", "task_id", "result", "error", "error_fields")
        read_only_fields = fields


class TwinOperationAcceptedSerializer(TwinOperationSerializer):
    """A twin action answered 202: the operation as it stands and where to poll it (also the Location header)."""

    status_url = serializers.URLField(help_text="poll until status is succeeded or failed")

    class Meta(TwinOperationSerializer.Meta):
        fields = (*TwinOperationSerializer.Meta.fields, "status_url")
        read_only_fields = fields


class TwinShardSerializer(serializers.ModelSerializer):
    """``GET /api/twins/{id}/shards/``: one shard of a sharded twin (twins.shards): its host, the Celery queue its
    host's worker consumes, its switches and underlay, and what that worker last answered."""

    queue = serializers.SerializerMethodField(help_text="twin-shard.<host>: the queue of the host's worker")

    def get_queue(self, shard: TwinShard) -> str:
        return shard_queue(shard.host)

    class Meta:
        model = TwinShard
        fields = ("id", "index", "host", "queue", "weight", "prefix", "state", "switches", "underlay",
                  "stitch_endpoints", "worker", "last_result", "error", "updated")
        read_only_fields = fields
