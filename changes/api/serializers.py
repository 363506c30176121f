"""API shapes of the change pipelines. Writes go through services; serializers only validate input shape."""

from dataclasses import fields as dataclass_fields

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.api import BriefModelSerializer, BriefRelatedField
from common.redaction import redact
from twins.models import Twin

from ..choices import RolloutKindChoices, RolloutTargetChoices
from ..models import AuditLog, ChangeSet, ChangeSetDevice, DeviceEndpoint, DriftRecord, Rollout, Step
from ..policy import KNOWN_CHECKS, RETIRED_KEYS, RolloutPolicy
from ..rocegate.settings import KEYS as ROCE_GATE_KEYS
from ..selectors import twin_target_for_intent

_HOSTNAMES = {"type": "array", "items": {"type": "string"}}
# OpenAPI shape per RolloutPolicy annotation (changes/policy.py is the one home of the policy: a field with an
# annotation missing here fails at import, so the schema cannot fall behind the dataclass).
_POLICY_TYPES = {
    "Mapping[str, Any]": {"type": "object", "additionalProperties": False,
                          "properties": {"devices": _HOSTNAMES, "rack": {"type": "string"}}},
    "int": {"type": "integer"},
    "float | None": {"type": "number", "nullable": True},
    "tuple[str, ...]": _HOSTNAMES,
    "tuple[tuple[str, str], ...]": {"type": "array", "items": {**_HOSTNAMES, "minItems": 2, "maxItems": 2}},
    "str": {"type": "string"},
    "dict[str, Any]": {"type": "object", "additionalProperties": False,  # roce_gate (changes.rocegate.settings)
                       "properties": {key: ({"type": "boolean"} if key == "enabled" else
                                            {"type": "array", "items": {"type": "integer"}, "nullable": True}
                                            if key.endswith("_queues") else
                                            {"type": "integer"} if key == "polls" else {"type": "number"})
                                      for key in ROCE_GATE_KEYS}},
    "str | None": {"type": "string", "nullable": True},
}


def _policy_schema() -> dict:
    """The rollout policy object, field by field from the RolloutPolicy dataclass with its defaults and docs."""
    defaults = RolloutPolicy.defaults_json()
    properties = {}
    for spec in dataclass_fields(RolloutPolicy):
        shape = dict(_POLICY_TYPES[str(spec.type)])
        if spec.name == "checks":
            shape["items"] = {"type": "string", "enum": sorted(KNOWN_CHECKS)}
        properties[spec.name] = {**shape, "default": defaults[spec.name],
                                 **({"description": spec.metadata["doc"]} if spec.metadata.get("doc") else {})}
    return {"type": "object", "additionalProperties": False, "properties": properties,
            "description": "Rollout policy (changes/policy.py RolloutPolicy): every key optional, the caller's "
                           "object is merged over the defaults; errors name policy.<field> and the value."}


@extend_schema_field(_policy_schema())
class RolloutPolicyField(serializers.DictField):
    """The rollout ``policy`` object, described field by field in the OpenAPI schema."""


class StepSerializer(BriefModelSerializer):
    class Meta:
        model = Step
        fields = ("id", "device", "wave", "phase", "result", "started_at", "finished_at", "config_hash", "output",
                  "detail")


class ChangeSetDeviceSerializer(BriefModelSerializer):
    class Meta:
        model = ChangeSetDevice
        fields = ("hostname", "role", "rack", "platform", "driver", "intended_hash", "running_hash", "has_diff", "diff")


class ChangeSetSerializer(BriefModelSerializer):
    devices = ChangeSetDeviceSerializer(many=True, read_only=True)

    class Meta:
        model = ChangeSet
        fields = ("id", "name", "fabric_name", "compile_run_id", "twin", "created_by", "created_at", "devices")


def _retired_fields(data) -> None:
    """A twin is named by its Twin id (or fabric intent) only, never by prefix or path (issue #28 point 3): the
    old fields are refused by name instead of being silently ignored."""
    given = sorted(key for key in RETIRED_KEYS if isinstance(data, dict) and key in data)
    if given:
        raise serializers.ValidationError({key: [RETIRED_KEYS[key]] for key in given})


class ChangeSetCreateSerializer(serializers.Serializer):
    compile_run = serializers.IntegerField(required=False, help_text="omit with fabric_intent: its latest compile")
    fabric_intent = serializers.CharField(
        required=False, max_length=100,
        help_text="twin target by name: the intent's running twin and latest successful compile run (instead of "
                  "compile_run and twin)")
    twin = serializers.PrimaryKeyRelatedField(queryset=Twin.objects.all(), required=False, allow_null=True,
                                              default=None, help_text="twin target: the Twin (id) to read and push")
    target = serializers.ChoiceField(choices=RolloutTargetChoices.choices)
    # Bounded by the column it is stored in: a longer name was a database error (500), not a 400.
    name = serializers.CharField(required=False, allow_blank=True, default="",
                                 max_length=ChangeSet._meta.get_field("name").max_length)

    def validate(self, attrs):
        _retired_fields(self.initial_data)
        if attrs.get("fabric_intent") and attrs["target"] == RolloutTargetChoices.TWIN and attrs["twin"] is None:
            attrs["twin"], run = twin_target_for_intent(fabric_intent=attrs["fabric_intent"])
            attrs.setdefault("compile_run", run)
        if attrs.get("compile_run") is None:
            raise serializers.ValidationError({"compile_run": ["give compile_run, or fabric_intent for a twin"]})
        return attrs


class RolloutSerializer(BriefModelSerializer):
    # null: created from the shell without --user, not approved yet, or the user deleted (issue 29's audit).
    started_by = serializers.StringRelatedField(allow_null=True)
    policy = RolloutPolicyField(read_only=True)
    approved_by = serializers.StringRelatedField(allow_null=True)

    class Meta:
        model = Rollout
        fields = ("id", "name", "kind", "target", "state", "change_set", "twin", "policy", "plan", "report", "started_by",
                  "approved_by", "approved_at", "created_at", "started_at", "finished_at", "error")
        read_only_fields = fields


class RolloutAntaCatalogSerializer(serializers.Serializer):
    """``GET /api/rollouts/{id}/anta-catalog/``: the RoCE gate's checks as an ANTA catalogue (docs/changes.md)."""

    catalog = serializers.DictField(help_text='{"anta.tests.interfaces": [{TestName: inputs}, ...]}')
    yaml = serializers.CharField(help_text="the same catalogue as the YAML file `anta nrfu --catalog` reads")


class RolloutAcceptedSerializer(RolloutSerializer):
    """The answer to ``POST /api/rollouts/{id}/start/``: the rollout as it stands, where to poll it."""

    status_url = serializers.URLField(help_text="poll until state is terminal or paused (also the Location header)")

    class Meta(RolloutSerializer.Meta):
        fields = (*RolloutSerializer.Meta.fields, "status_url")
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
    change_set = BriefRelatedField(queryset=ChangeSet.objects.all(), required=False, allow_null=True)
    policy = RolloutPolicyField(required=False, default=dict)
    topology = serializers.DictField(required=False, allow_null=True, default=None)
    twin = serializers.PrimaryKeyRelatedField(queryset=Twin.objects.all(), required=False, allow_null=True,
                                              default=None,
                                              help_text="twin target: the Twin (id) it pushes to; default: the twin "
                                                        "its change set was read from")
    fabric_intent = serializers.CharField(required=False, max_length=100,
                                          help_text="twin target by name: the twin is the intent's running twin")

    def validate(self, attrs):
        _retired_fields(self.initial_data)
        name = attrs.pop("fabric_intent", None)
        if name and attrs["target"] == RolloutTargetChoices.TWIN and attrs["twin"] is None:
            attrs["twin"], _ = twin_target_for_intent(fabric_intent=name)
        return attrs


class DriftRecordSerializer(BriefModelSerializer):
    class Meta:
        model = DriftRecord
        fields = ("id", "hostname", "checked_at", "intended_hash", "running_hash", "drifted", "diff", "differences",
                  "running_errors", "remediation", "error", "change_set")


class AuditLogSerializer(BriefModelSerializer):
    class Meta:
        model = AuditLog
        fields = ("id", "at", "username", "action", "object_type", "object_id", "object_repr", "changes", "message")


class DeviceEndpointSerializer(BriefModelSerializer):
    """Credentials are write-only: ``password`` is never returned (``has_password`` says whether one is stored),
    and every secret-looking key of ``optional_args`` reads back as ``***`` (common.redaction)."""

    password = serializers.CharField(write_only=True, required=False, allow_blank=True, trim_whitespace=False,
                                     max_length=1000, style={"input_type": "password"},
                                     help_text="write-only; stored encrypted; omit to keep, empty to clear")
    has_password = serializers.SerializerMethodField()
    optional_args = serializers.JSONField(required=False, help_text=(
        "driver options; values under secret-looking keys (secret, password, community, *key*, token...) are stored "
        "encrypted and read back as ***; sending *** back keeps the stored value"))

    class Meta:
        model = DeviceEndpoint
        fields = ("id", "hostname", "driver", "address", "port", "username", "password", "has_password",
                  "password_env", "secret_file", "key_file", "optional_args")

    def get_has_password(self, endpoint) -> bool:
        return bool(endpoint.password_encrypted)

    def validate_optional_args(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError(f"must be a JSON object, not {type(value).__name__}")
        return value

    def to_representation(self, endpoint):
        data = super().to_representation(endpoint)
        data["optional_args"] = redact(endpoint.optional_args or {})
        return data
