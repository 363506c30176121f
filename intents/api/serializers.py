"""<Model>Serializer for the intent models and the compile records.

Writes go through ``services.intent_object_save`` (model checks naming the field, then the whole fabric is
validated by the compiler, all in one transaction): a bad intent is a 400 naming the field, never a 500, and
nothing is half-saved.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.api import BriefModelSerializer, BriefRelatedField, VersionedModelSerializer
from compiler import model as core
from inventory.models import Fabric, NicPort, Switch

from .. import services
from ..models import Allocation, CompileRun, DeviceConfig, FabricIntent, Network, RoceClass, Tenant
from ..services import ARCHIVE_KINDS

__all__ = (
    "FabricIntentSerializer", "TenantSerializer", "NetworkSerializer", "RoceClassSerializer", "AllocationSerializer",
    "CompileRunSerializer", "DeviceConfigSerializer", "DeviceConfigSummarySerializer", "CompileRequestSerializer",
    "BlastRadiusRequestSerializer",
)


class NamedRelatedField(serializers.SlugRelatedField):
    """A related object by name. Refuses NUL with a 400 (DRF's CharField does; SlugRelatedField would send it to
    PostgreSQL, which rejects it with a 500)."""

    def to_internal_value(self, data):
        if isinstance(data, str) and "\x00" in data:
            raise serializers.ValidationError(f"null characters are not allowed in a name, got {data!r}")
        return super().to_internal_value(data)


class IntentModelSerializer(VersionedModelSerializer):
    """Creates/updates through the intents service; ``many_fields`` are the many-to-many fields it sets. Carries
    the object's ``version`` (common/api.py): a stale one makes the service refuse the save."""

    many_fields: tuple[str, ...] = ()
    display = serializers.SerializerMethodField()

    def get_display(self, obj) -> str:
        return str(obj)

    def validate_fabric_intent(self, value):
        if self.instance is not None and value != self.instance.fabric_intent:
            raise serializers.ValidationError("cannot move to another fabric intent: create it there instead")
        return value

    def validate_tenant(self, value):
        if self.instance is not None and value.fabric_intent_id != self.instance.fabric_intent_id:
            raise serializers.ValidationError("the new tenant belongs to another fabric intent")
        return value

    def _split(self, validated_data: dict) -> tuple[dict, dict]:
        many = {name: validated_data.pop(name) for name in self.many_fields if name in validated_data}
        return validated_data, many

    def create(self, validated_data):
        values, many = self._split(validated_data)
        return services.intent_object_save(instance=self.Meta.model(), values=values, many=many)

    def update(self, instance, validated_data):
        values, many = self._split(validated_data)
        return services.intent_object_save(instance=instance, values=values, many=many)


class FabricIntentSerializer(IntentModelSerializer):
    fabric = NamedRelatedField(slug_field="name", queryset=Fabric.objects.all(), help_text="Inventory fabric name")

    def validate_fabric(self, value):
        if self.instance is not None and value != self.instance.fabric and self.instance.allocations.exists():
            raise serializers.ValidationError(
                f"allocations were made for fabric {self.instance.fabric.name}: create a new fabric intent for "
                f"{value.name} instead of moving this one")
        return value

    def create(self, validated_data):
        # What the client leaves out is chosen for this inventory like the scenario file and the UI do: pools
        # free of other fabrics' intents, the management network the fabric's switches were built in.
        fabric = validated_data.get("fabric")
        if fabric is not None:
            pools = services.fabric_intent_free_pools(fabric=fabric, name=validated_data.get("name"), given={
                key: validated_data[f"{key}_pool"] for key in ("loopback", "vtep", "p2p")
                if f"{key}_pool" in validated_data})
            for key, prefix in pools.items():
                validated_data.setdefault(f"{key}_pool", prefix)
            if "management_network" not in validated_data:
                network = services.fabric_management_network(fabric=fabric)
                if network is not None:
                    validated_data["management_network"] = network
        return super().create(validated_data)

    class Meta:
        model = FabricIntent
        fields = ("id", "display", "name", "fabric", "description", "underlay", "asn_scheme", "route_target_scheme",
                  "loopback_pool", "vtep_pool", "p2p_pool", "asn_first", "asn_last", "spine_asn", "l2vni_base",
                  "l3vni_first", "l3vni_last", "underlay_mtu", "host_mtu", "bgp_maximum_paths", "bgp_keepalive_s",
                  "bgp_hold_s", "bgp_bfd", "bgp_bfd_interval_ms", "bgp_bfd_multiplier", "anycast_gateway_mac",
                  "evpn_overlay", "management_network", "management_gateway", "management_vrf", "ntp_servers", "syslog_servers",
                  "dns_servers", "aaa_servers", "aaa_secret_ref", "ecmp_tier_hashing", "ecmp_dest_qp_hashing",
                  "ecmp_dlb", "ecmp_roles", "nccl_qps_per_connection", "created", "last_updated")


class TenantSerializer(IntentModelSerializer):
    class Meta:
        model = Tenant
        fields = ("id", "display", "fabric_intent", "name", "vrf", "l3vni")
        validators = []  # per-intent uniqueness is checked by the model, naming the field


@extend_schema_field(OpenApiTypes.STR)
class NicPortEndpointField(serializers.RelatedField):
    """A server NIC port as "server:port" (the way engineers name it), read and written."""

    default_error_messages = {
        "format": "expected 'server:port', got {value!r}",
        "missing": "no NIC port {value!r}",
    }

    def to_representation(self, value: NicPort) -> str:
        return f"{value.server.name}:{value.name}"

    def to_internal_value(self, data):
        if not isinstance(data, str) or ":" not in data:
            self.fail("format", value=data)
        server, name = data.split(":", 1)
        port = self.get_queryset().filter(server__name=server, name=name).first()
        if port is None:
            self.fail("missing", value=data)
        return port


class NetworkSerializer(IntentModelSerializer):
    many_fields = ("leaves", "attachments")
    fabric_intent = BriefRelatedField(read_only=True)
    leaves = NamedRelatedField(slug_field="hostname", queryset=Switch.objects.all(), many=True, required=False,
                               help_text="Leaf hostnames; empty: every leaf")
    attachments = NicPortEndpointField(queryset=NicPort.objects.select_related("server"), many=True,
                                       required=False, help_text='Server NIC ports, "server:port"')

    class Meta:
        model = Network
        fields = ("id", "display", "fabric_intent", "tenant", "name", "vlan_id", "l2vni", "subnet", "gateway",
                  "leaves", "attachments")
        validators = []


class RoceClassSerializer(IntentModelSerializer):
    dscp = serializers.ListField(child=serializers.IntegerField(), allow_empty=False,
                                 help_text="DSCP values (0..63) mapped to this class")

    class Meta:
        model = RoceClass
        fields = ("id", "display", "fabric_intent", "name", "dscp", "priority", "traffic_class", "lossless",
                  "ecn_min_kb", "ecn_max_kb", "ecn_mark_probability", "cnp_dscp", "cnp_priority", "pfc_watchdog",
                  "watchdog_detect_ms", "watchdog_restore_ms", "headroom_policy", "headroom_bytes")
        validators = []


class AllocationSerializer(BriefModelSerializer):
    class Meta:
        model = Allocation
        fields = ("id", "fabric_intent", "kind", "key", "value", "created")
        read_only_fields = fields


class CompileRunSerializer(BriefModelSerializer):
    class Meta:
        model = CompileRun
        fields = ("id", "fabric_intent", "status", "created", "started", "finished", "duration_s", "device_count",
                  "platforms", "devices", "error", "error_fields", "task_id")
        read_only_fields = fields


class CompileRunAcceptedSerializer(CompileRunSerializer):
    """A compile answered 202: the run as it stands and where to poll it (also the Location header)."""

    status_url = serializers.URLField(help_text="poll until status is succeeded or failed")

    class Meta(CompileRunSerializer.Meta):
        fields = (*CompileRunSerializer.Meta.fields, "status_url")
        read_only_fields = fields


class DeviceConfigSummarySerializer(BriefModelSerializer):
    class Meta:
        model = DeviceConfig
        fields = ("id", "run", "hostname", "platform", "sha256")
        read_only_fields = fields


class DeviceConfigSerializer(BriefModelSerializer):
    class Meta:
        model = DeviceConfig
        fields = ("id", "run", "hostname", "platform", "sha256", "files", "structured")
        read_only_fields = fields


class CompileRequestSerializer(serializers.Serializer):
    platforms = serializers.ListField(child=serializers.ChoiceField(choices=core.Platform.ALL), required=False,
                                      help_text="Default: each device's own platform plus frr")
    devices = serializers.ListField(child=serializers.CharField(), required=False, help_text="Default: every switch")
    background = serializers.BooleanField(required=False, allow_null=True, default=None,
                                          help_text="Force a Celery task (true) or an in-request compile (false); "
                                                    "default: by fabric size")


class ArchiveQuerySerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=tuple(ARCHIVE_KINDS), default="tar.gz")
    run = serializers.IntegerField(required=False, help_text="Compile run id; default: the latest successful")


# The archive endpoints answer the files themselves, in the media type of the ``kind`` asked for.
ARCHIVE_RESPONSES = {(200, media_type): OpenApiTypes.BINARY for media_type in ARCHIVE_KINDS.values()}


class StructuredDiffSerializer(serializers.Serializer):
    path = serializers.CharField()
    old = serializers.JSONField(allow_null=True)
    new = serializers.JSONField(allow_null=True)


class DeviceDiffSerializer(serializers.Serializer):
    """One device and platform of ``GET /api/fabric-intents/{id}/diff/`` (intents.services.DeviceDiff)."""

    hostname = serializers.CharField()
    platform = serializers.CharField()
    baseline = serializers.CharField(help_text="deployed (device), twin, compiled (the latest stored compile) or none")
    baseline_run = serializers.IntegerField(allow_null=True)
    target = serializers.CharField(help_text="what it was compared with: device, twin or compile")
    label = serializers.CharField(help_text='e.g. "diff vs twin (running compile #12)"')
    changed = serializers.BooleanField()
    text = serializers.CharField(allow_blank=True, help_text="unified diff over every file, empty when identical")
    structured = StructuredDiffSerializer(many=True)


class ConfigDiffSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    results = DeviceDiffSerializer(many=True)


class MarkDeployedRequestSerializer(serializers.Serializer):
    devices = serializers.ListField(child=serializers.CharField(max_length=63), required=False, allow_null=True,
                                    help_text="hostnames; omitted or null: every device of the run")


class MarkDeployedSerializer(serializers.Serializer):
    deployed = serializers.IntegerField(help_text="device configs recorded as deployed")


class AllocateSerializer(serializers.Serializer):
    created = serializers.IntegerField(help_text="allocations made")
    updated = serializers.IntegerField(help_text="allocations changed")


class BlastChangeSerializer(serializers.Serializer):
    op = serializers.ChoiceField(choices=("create", "update", "delete"))
    object = serializers.ChoiceField(choices=("fabric_intent", "tenant", "network", "roce_class"))
    id = serializers.IntegerField(required=False)
    data = serializers.DictField(required=False, default=dict)


class BlastRadiusRequestSerializer(serializers.Serializer):
    changes = BlastChangeSerializer(many=True, allow_empty=False)
