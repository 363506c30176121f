from rest_framework import serializers

from intents.models import CompileRun, FabricIntent
from twin.api import BriefModelSerializer, BriefRelatedField

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

    def validate(self, attrs):
        if bool(attrs.get("archive")) == bool(attrs.get("files")):
            raise serializers.ValidationError({"archive": ["send one archive or several files (not both, not none)"]})
        return attrs
