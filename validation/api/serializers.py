from rest_framework import serializers

from common.api import BriefModelSerializer, BriefRelatedField
from intents.models import CompileRun, FabricIntent
from validators.collective import COLLECTIVES, HashFields, HashFunction
from validators.collective.check import DEFAULT_LIMIT
from validators.collective.kernel import ROCE_SPORT_MIN
from validators.collective.simulate import ENCAPSULATIONS, SPORT_MODES
from validators.findings import CheckStatus

from ..models import SeverityChoices, ValidationFinding, ValidationRun


class ValidationRunSerializer(BriefModelSerializer):
    fabric_intent_name = serializers.CharField(source="fabric_intent.name", read_only=True)

    class Meta:
        model = ValidationRun
        fields = ["id", "fabric_intent", "fabric_intent_name", "created", "started", "finished", "status", "checks",
                  "task_id", "ok", "device_count", "checks_passed", "checks_failed", "checks_skipped", "error_count",
                  "warning_count", "info_count", "duration_s", "error", "error_fields", "summary", "compile_run"]
        read_only_fields = fields


class ValidationRunAcceptedSerializer(ValidationRunSerializer):
    """A validation answered 202: the run as it stands and where to poll it (also the Location header)."""

    status_url = serializers.URLField(help_text="poll until status is succeeded or failed")

    class Meta(ValidationRunSerializer.Meta):
        fields = [*ValidationRunSerializer.Meta.fields, "status_url"]
        read_only_fields = fields


class ValidationRequestSerializer(serializers.Serializer):
    fabric_intent = BriefRelatedField(queryset=FabricIntent.objects.all())
    checks = serializers.ListField(child=serializers.CharField(max_length=64), required=False, default=list,
                                   help_text="Check names or prefixes (bgp, mtu.links, roce ...); empty: all")
    background = serializers.BooleanField(required=False, allow_null=True, default=None,
                                          help_text="Run in a Celery task (default: only for large fabrics)")
    compile_run = BriefRelatedField(
        queryset=CompileRun.objects.all(), required=False, allow_null=True, default=None,
        help_text="Validate the stored configs of this compile run; empty: compile the intent first")


class ValidationFindingSerializer(BriefModelSerializer):
    check = serializers.CharField(source="check_name")

    class Meta:
        model = ValidationFinding
        fields = ["id", "check", "severity", "subject", "expected", "actual", "message"]


class ReportFilterSerializer(serializers.Serializer):
    check = serializers.CharField(required=False, max_length=64)
    severity = serializers.ChoiceField(choices=SeverityChoices.choices, required=False)


class ConfigsUploadSerializer(serializers.Serializer):
    """Device configs to validate as text: one archive (.tar, .tar.gz, .zip of <device>/<files> or one file per
    device) or several files (one per device: an EOS config, a SONiC config_db.json)."""

    archive = serializers.FileField(required=False)
    files = serializers.ListField(child=serializers.FileField(), required=False, default=list)
    fabric_intent = BriefRelatedField(queryset=FabricIntent.objects.all(), required=False,
                                                       allow_null=True, default=None,
                                                       help_text="Use this fabric's inventory when hostnames match")
    checks = serializers.ListField(child=serializers.CharField(max_length=64), required=False, default=list)
    external_peers = serializers.ChoiceField(
        choices=SeverityChoices.choices, required=False, default=SeverityChoices.INFO,
        help_text="Severity of BGP neighbors outside these configs (external peers): reported, never judged as "
                  "sessions; error makes them fail the report")

    def validate(self, attrs):
        if bool(attrs.get("archive")) == bool(attrs.get("files")):
            raise serializers.ValidationError({"archive": ["send one archive or several files (not both, not none)"]})
        return attrs


# ------------------------------------------------------------------------------------------- report shapes
# What the report endpoints answer (validators.findings.Report.as_dict and validators.configs.ConfigValidation
# .as_dict): documented here so the OpenAPI schema states every field, the statuses and what each check examined.


class ReportFindingSerializer(serializers.Serializer):
    check = serializers.CharField()
    severity = serializers.ChoiceField(choices=SeverityChoices.choices)
    subject = serializers.CharField()
    expected = serializers.JSONField(allow_null=True)
    actual = serializers.JSONField(allow_null=True)
    message = serializers.CharField()
    internal_failure = serializers.BooleanField(
        required=False, help_text="present (true) on the finding of a check that failed internally (a bug or an "
                                  "input shape it did not expect; its traceback is in the server log)")


class ConfigFindingSerializer(ReportFindingSerializer):
    locations = serializers.ListField(child=serializers.CharField(), help_text='["leaf1/startup-config:63"]')


class SeverityCountsSerializer(serializers.Serializer):
    error = serializers.IntegerField()
    warning = serializers.IntegerField()
    info = serializers.IntegerField()


class CheckResultSerializer(serializers.Serializer):
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=CheckStatus.ALL, help_text=(
        "passed: examined something, no error; failed: an error finding (an internal failure of the check is one); "
        "skipped: could not run, or examined nothing (reason says which); incomplete: depends on config lines "
        "the parser did not model (reason names device, feature and file:line)"))
    reason = serializers.CharField(allow_blank=True)
    examined = serializers.DictField(child=serializers.IntegerField(), help_text='{"BGP neighbors": 48}')
    counts = SeverityCountsSerializer()


class RunCheckResultSerializer(CheckResultSerializer):
    seconds = serializers.FloatField(allow_null=True)
    findings = ReportFindingSerializer(many=True)


class ConfigCheckResultSerializer(CheckResultSerializer):
    findings = ConfigFindingSerializer(many=True)


class StatusCountsSerializer(serializers.Serializer):
    passed = serializers.IntegerField()
    failed = serializers.IntegerField()
    skipped = serializers.IntegerField()
    incomplete = serializers.IntegerField()


class RunCountsSerializer(StatusCountsSerializer, SeverityCountsSerializer):
    pass


class ValidationReportSerializer(serializers.Serializer):
    """GET /api/validation-runs/{id}/report/ (validation.selectors.validation_report)."""

    run = serializers.IntegerField()
    fabric_intent = serializers.CharField()
    status = serializers.CharField()
    ok = serializers.BooleanField(allow_null=True)
    title = serializers.CharField(allow_blank=True)
    error = serializers.CharField(allow_blank=True)
    error_fields = serializers.JSONField(help_text="field -> messages when the input was invalid")
    counts = RunCountsSerializer()
    whatif = serializers.JSONField(allow_null=True)
    leaf_pairs = serializers.JSONField(allow_null=True)
    checks = RunCheckResultSerializer(many=True)


class ParsedDeviceSerializer(serializers.Serializer):
    platform = serializers.CharField()
    files = serializers.ListField(child=serializers.CharField())


class UnmodelledLineSerializer(serializers.Serializer):
    device = serializers.CharField()
    file = serializers.CharField()
    line = serializers.IntegerField(help_text="1-based; 0 for a JSON key")
    text = serializers.CharField(allow_blank=True)


class CoverageGapSerializer(serializers.Serializer):
    device = serializers.CharField()
    feature = serializers.CharField(help_text="BGP, interfaces, QoS/RoCE, VLAN/VXLAN/EVPN/MLAG, ...")
    lines = serializers.ListField(child=serializers.CharField(), help_text="device/file:line: text")


class ConfigValidationSerializer(serializers.Serializer):
    """POST /api/validation-runs/configs/ (validators.configs.ConfigValidation.as_dict)."""

    title = serializers.CharField()
    ok = serializers.BooleanField(help_text="no check failed (skipped and incomplete checks do not fail it)")
    counts = StatusCountsSerializer()
    checks = ConfigCheckResultSerializer(many=True)
    devices = serializers.DictField(child=ParsedDeviceSerializer())
    inventory = serializers.CharField(help_text="'used', or why the inventory was not used")
    unmodelled = UnmodelledLineSerializer(many=True)
    coverage_gaps = CoverageGapSerializer(many=True, help_text="unmodelled lines per device and feature: what "
                                                               "makes the checks depending on them incomplete")
    set_aside = serializers.ListField(child=serializers.CharField(), required=False,
                                      help_text="archive members not validated, and why (compile --out's twin files)")


class CollectiveRequestSerializer(serializers.Serializer):
    """A job and its collective (POST /api/fabrics/{id}/collective/); docs/collective.md says what each means."""

    gpus = serializers.IntegerField(required=False, min_value=1, max_value=1_000_000,
                                    help_text="GPUs of the job: the first fully cabled servers holding them")
    servers = serializers.ListField(child=serializers.CharField(max_length=255), required=False, max_length=100_000,
                                    help_text="servers in rank order (instead of gpus)")
    collective = serializers.ChoiceField(choices=COLLECTIVES, default="ring-allreduce")
    qps = serializers.IntegerField(default=1, min_value=1, max_value=64, help_text="NCCL_IB_QPS_PER_CONNECTION")
    channels = serializers.IntegerField(default=0, min_value=0, max_value=256,
                                        help_text="rings/trees; 0: one per NIC rail")
    sport = serializers.ChoiceField(choices=SPORT_MODES, default="kernel", help_text="RoCE UDP source-port model")
    pinned_sports = serializers.ListField(child=serializers.IntegerField(min_value=ROCE_SPORT_MIN, max_value=65535),
                                          required=False, max_length=1024, help_text="with sport=pinned")
    hash_function = serializers.ChoiceField(choices=HashFunction.ALL, default=HashFunction.CRC16_CCITT)
    hash_fields = serializers.ChoiceField(choices=HashFields.ALL, default=HashFields.FIVE_TUPLE)
    hash_seed = serializers.IntegerField(default=0, min_value=0, max_value=0xFFFFFFFF)
    hash_offset = serializers.IntegerField(default=0, min_value=0, max_value=31)
    distinct_seeds = serializers.BooleanField(default=False, help_text="seed XOR CRC-32(hostname) per switch")
    dlb = serializers.BooleanField(default=False, help_text="dynamic load balancing on every switch")
    encapsulation = serializers.ChoiceField(choices=ENCAPSULATIONS, default="none")
    trials = serializers.IntegerField(default=8, min_value=1, max_value=64, help_text="QP-number draws simulated")
    limit = serializers.FloatField(default=DEFAULT_LIMIT, min_value=1.0, max_value=100.0,
                                   help_text="max p95 bottleneck factor of collective.bottleneck")
    what_if_qps = serializers.IntegerField(default=16, min_value=1, max_value=64, help_text="the 'QPs = k' what-if")

    def validate(self, attrs):
        if bool(attrs.get("gpus")) == bool(attrs.get("servers")):
            raise serializers.ValidationError({"gpus": ["give gpus or servers (one of them)"]})
        if attrs["sport"] == "pinned" and not attrs.get("pinned_sports"):
            raise serializers.ValidationError({"pinned_sports": ["sport=pinned needs at least one port"]})
        return attrs
