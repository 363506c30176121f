"""API shapes of the change pipelines. Writes go through services; serializers only validate input shape."""

from rest_framework import serializers

from ..choices import RolloutKindChoices, RolloutTargetChoices
from ..models import AuditLog, ChangeSet, ChangeSetDevice, DriftRecord, Rollout, Step


class StepSerializer(serializers.ModelSerializer):
    class Meta:
        model = Step
        fields = ("id", "device", "wave", "phase", "result", "started_at", "finished_at", "config_hash", "output",
                  "detail")


class ChangeSetDeviceSerializer(serializers.ModelSerializer):
    class Meta:
        model = ChangeSetDevice
        fields = ("hostname", "role", "rack", "platform", "driver", "intended_hash", "running_hash", "has_diff", "diff")


class ChangeSetSerializer(serializers.ModelSerializer):
    devices = ChangeSetDeviceSerializer(many=True, read_only=True)

    class Meta:
        model = ChangeSet
        fields = ("id", "name", "fabric_name", "compile_run_id", "created_by", "created_at", "devices")


class ChangeSetCreateSerializer(serializers.Serializer):
    compile_run = serializers.IntegerField()
    target = serializers.ChoiceField(choices=RolloutTargetChoices.choices)
    # Bounded by the column it is stored in: a longer name was a database error (500), not a 400.
    name = serializers.CharField(required=False, allow_blank=True, default="",
                                 max_length=ChangeSet._meta.get_field("name").max_length)
    twin_prefix = serializers.CharField(required=False, allow_blank=True, default="")
    twin_state_dir = serializers.CharField(required=False, allow_blank=True, default="")


class RolloutSerializer(serializers.ModelSerializer):
    started_by = serializers.StringRelatedField()
    approved_by = serializers.StringRelatedField()

    class Meta:
        model = Rollout
        fields = ("id", "name", "kind", "target", "state", "change_set", "policy", "plan", "report", "started_by",
                  "approved_by", "approved_at", "created_at", "started_at", "finished_at", "error")
        read_only_fields = fields


class RolloutDetailSerializer(RolloutSerializer):
    steps = StepSerializer(many=True, read_only=True)

    class Meta(RolloutSerializer.Meta):
        fields = (*RolloutSerializer.Meta.fields, "steps")
        read_only_fields = fields


class RolloutCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=RolloutKindChoices.choices)
    target = serializers.ChoiceField(choices=RolloutTargetChoices.choices)
    change_set = serializers.PrimaryKeyRelatedField(queryset=ChangeSet.objects.all(), required=False, allow_null=True)
    policy = serializers.DictField(required=False, default=dict)
    topology = serializers.DictField(required=False, allow_null=True, default=None)


class DriftRecordSerializer(serializers.ModelSerializer):
    class Meta:
        model = DriftRecord
        fields = ("id", "hostname", "checked_at", "intended_hash", "running_hash", "drifted", "diff", "error",
                  "change_set")


class AuditLogSerializer(serializers.ModelSerializer):
    class Meta:
        model = AuditLog
        fields = ("id", "at", "username", "action", "object_type", "object_id", "object_repr", "changes", "message")
