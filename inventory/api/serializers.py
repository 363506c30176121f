"""<Model>Serializer for every inventory model. Every write runs the model's full_clean() (unique and check
constraints, clean()) so bad input is a 400 naming the field, never an IntegrityError 500."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from common.api import BriefModelSerializer, BriefRelatedField, VersionedModelSerializer, brief_from
from compiler.clos import ClosParams, plan_clos
from compiler.errors import InputError
from compiler.pods import PodsParams, plan_pods

from .. import selectors
from ..choices import CableEndChoices, PlatformChoices
from ..models import (
    Cable,
    Fabric,
    FabricBuild,
    Interface,
    NetboxSync,
    NicPort,
    Optic,
    Platform,
    Rack,
    Server,
    Site,
    Switch,
    SwitchModel,
)
from ..services import cable_connect

__all__ = (
    "SiteSerializer", "FabricSerializer", "RackSerializer", "SwitchModelSerializer", "PlatformSerializer",
    "SwitchSerializer", "InterfaceSerializer", "OpticSerializer", "CableSerializer", "ServerSerializer",
    "NicPortSerializer", "FabricBuildSerializer", "FabricBuildRecordSerializer",
)


def _drf_error(error: DjangoValidationError) -> serializers.ValidationError:
    if hasattr(error, "error_dict"):
        return serializers.ValidationError(
            {("non_field_errors" if name == "__all__" else name): messages
             for name, messages in error.message_dict.items()})
    return serializers.ValidationError({"non_field_errors": error.messages})


def _cable_end_field() -> serializers.ChoiceField:
    # Read-only and blank ("") while the port is not cabled: the schema must say so (schemathesis found the gap).
    return serializers.ChoiceField(choices=CableEndChoices.choices, allow_blank=True, read_only=True,
                                   help_text="Which end of its cable the port is on; empty when not cabled")


class ValidatedModelSerializer(VersionedModelSerializer):
    """Runs Model.full_clean() on the would-be instance (NetBox's ValidatedModelSerializer idea); carries the
    object's ``version`` (common/api.py)."""

    display = serializers.SerializerMethodField()

    def get_display(self, obj) -> str:
        return str(obj)

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if self.instance is None:
            instance = self.Meta.model(**attrs)
        else:
            instance = self.Meta.model.objects.get(pk=self.instance.pk)
            for name, value in attrs.items():
                setattr(instance, name, value)
        try:
            instance.full_clean()
        except DjangoValidationError as error:
            raise _drf_error(error) from None
        return attrs


class SiteSerializer(ValidatedModelSerializer):
    class Meta:
        model = Site
        fields = ("id", "display", "name", "description")


class FabricSerializer(ValidatedModelSerializer):
    class Meta:
        model = Fabric
        fields = ("id", "display", "name", "site", "description")


class RackSerializer(ValidatedModelSerializer):
    class Meta:
        model = Rack
        fields = ("id", "display", "site", "fabric", "name", "row", "position", "height_u", "power_budget_kw")


class SwitchModelSerializer(ValidatedModelSerializer):
    breakout_modes = serializers.ListField(child=serializers.RegexField(r"^[1-8]x[0-9]{1,4}G\Z"), required=False)

    class Meta:
        model = SwitchModel
        fields = ("id", "display", "vendor", "name", "asic", "port_count", "max_speed_gbps", "form_factor",
                  "breakout_modes", "buffer_mb", "typical_power_w")


class PlatformSerializer(ValidatedModelSerializer):
    class Meta:
        model = Platform
        fields = ("id", "display", "slug", "name", "napalm_driver", "netmiko_device_type")


class SwitchSerializer(ValidatedModelSerializer):
    class Meta:
        model = Switch
        fields = ("id", "display", "fabric", "hostname", "role", "plane", "rack", "u_position", "model", "platform",
                  "os_version", "mgmt_ip", "serial", "status", "base_mac")

    def validate_base_mac(self, value):
        """One spelling (lower case), so uniqueness holds whatever case the client sent; blank means unknown."""
        return value.lower() if value else None


class InterfaceSerializer(ValidatedModelSerializer):
    cable_end = _cable_end_field()

    class Meta:
        model = Interface
        fields = ("id", "display", "switch", "name", "speed_gbps", "mtu", "enabled", "description",
                  "breakout_parent", "lane", "cable", "cable_end")
        read_only_fields = ("cable", "cable_end")


class ServerSerializer(ValidatedModelSerializer):
    class Meta:
        model = Server
        fields = ("id", "display", "fabric", "name", "rack", "u_position", "gpu_count", "power_w", "mgmt_ip",
                  "serial", "model")


class NicPortSerializer(ValidatedModelSerializer):
    cable_end = _cable_end_field()

    class Meta:
        model = NicPort
        fields = ("id", "display", "server", "name", "rail", "speed_gbps", "mtu", "cable", "cable_end")
        read_only_fields = ("cable", "cable_end")


class OpticSerializer(ValidatedModelSerializer):
    class Meta:
        model = Optic
        fields = ("id", "display", "interface", "nic_port", "form_factor", "media", "speed_gbps", "reach_m",
                  "vendor", "part_number", "serial")


class CableSerializer(ValidatedModelSerializer):
    """A cable and its two ends. Write exactly one of ``a_interface``/``a_nic_port`` and one of the B pair."""

    a_interface = BriefRelatedField(queryset=Interface.objects.all(), required=False, allow_null=True)
    a_nic_port = BriefRelatedField(queryset=NicPort.objects.all(), required=False, allow_null=True)
    b_interface = BriefRelatedField(queryset=Interface.objects.all(), required=False, allow_null=True)
    b_nic_port = BriefRelatedField(queryset=NicPort.objects.all(), required=False, allow_null=True)
    a_end = serializers.SerializerMethodField()
    b_end = serializers.SerializerMethodField()

    END_FIELDS = ("a_interface", "a_nic_port", "b_interface", "b_nic_port")

    class Meta:
        model = Cable
        fields = ("id", "display", "label", "cable_type", "length_m", "status", "peer_link", "a_interface",
                  "a_nic_port", "b_interface", "b_nic_port", "a_end", "b_end")

    @staticmethod
    def _ends(obj) -> dict[str, tuple]:
        """side -> (interface pk, NIC port pk, label). Lists carry them as SQL annotations (selectors.cable_list);
        a freshly created or updated cable reads its ports once. Kept on the instance for the fields below."""
        ends = getattr(obj, "_serialized_ends", None)
        if ends is not None:
            return ends
        if hasattr(obj, "a_interface_pk"):
            ends = {
                side: (getattr(obj, f"{side}_interface_pk"), getattr(obj, f"{side}_nic_port_pk"),
                       getattr(obj, f"{side}_interface_label") or getattr(obj, f"{side}_nic_port_label"))
                for side in ("a", "b")
            }
        else:
            ends = {"a": (None, None, None), "b": (None, None, None)}
            for port in (*obj.interfaces.all(), *obj.nic_ports.all()):
                is_interface = isinstance(port, Interface)
                ends[port.cable_end.lower()] = (port.pk if is_interface else None,
                                                None if is_interface else port.pk, str(port))
        obj._serialized_ends = ends
        return ends

    def get_a_end(self, obj) -> str | None:
        return self._ends(obj)["a"][2]

    def get_b_end(self, obj) -> str | None:
        return self._ends(obj)["b"][2]

    def to_representation(self, instance):
        data = super().to_representation(instance)
        request = self.context.get("request")
        for side, (interface_pk, nic_port_pk, label) in self._ends(instance).items():
            for field, model, pk in (("interface", Interface, interface_pk), ("nic_port", NicPort, nic_port_pk)):
                # label is "<device>:<port>" (device names have no ":"): the brief object's display and name
                data[f"{side}_{field}"] = None if pk is None else brief_from(
                    model, pk=pk, display=label, names={"name": label.split(":", 1)[1]}, request=request)
        return data

    def validate(self, attrs):
        ends = {name: attrs.pop(name, None) for name in self.END_FIELDS}
        attrs = super().validate(attrs)
        touched = self.instance is None or any(name in self.initial_data for name in self.END_FIELDS)
        if touched:
            errors = {}
            for side in ("a", "b"):
                chosen = [ends[f"{side}_interface"], ends[f"{side}_nic_port"]]
                if sum(port is not None for port in chosen) != 1:
                    errors[f"{side}_interface"] = [f"give exactly one of {side}_interface or {side}_nic_port"]
                    continue
                port = next(port for port in chosen if port is not None)
                if port.cable_id is not None and (self.instance is None or port.cable_id != self.instance.pk):
                    errors[f"{side}_{'interface' if isinstance(port, Interface) else 'nic_port'}"] = [
                        f"{port} is already in cable {port.cable.label}"]
            if not errors:
                a_port = ends["a_interface"] or ends["a_nic_port"]
                b_port = ends["b_interface"] or ends["b_nic_port"]
                if a_port == b_port or _device_key(a_port) == _device_key(b_port):
                    errors["b_interface" if isinstance(b_port, Interface) else "b_nic_port"] = [
                        f"both ends are on the same device ({a_port} and {b_port})"]
            if errors:
                raise serializers.ValidationError(errors)
            attrs["_ends"] = (ends["a_interface"] or ends["a_nic_port"], ends["b_interface"] or ends["b_nic_port"])
        return attrs

    def create(self, validated_data):
        a_end, b_end = validated_data.pop("_ends")
        cable = super().create(validated_data)
        cable_connect(cable=cable, a_end=a_end, b_end=b_end)
        return selectors.cable_list().get(pk=cable.pk)

    def update(self, instance, validated_data):
        ends = validated_data.pop("_ends", None)
        cable = super().update(instance, validated_data)
        if ends is not None:
            cable_connect(cable=cable, a_end=ends[0], b_end=ends[1])
        return selectors.cable_list().get(pk=cable.pk)


def _device_key(port) -> str:
    return f"switch:{port.switch_id}" if isinstance(port, Interface) else f"server:{port.server_id}"


# A 5-stage build of Arista AVD's largest reported shape (4,998 switches) fits twice; the 2-tier limits
# (512 spines + 4,096 leaves) stay below it.
MAX_BUILD_SWITCHES = 10_000


class FabricBuildSerializer(serializers.Serializer):
    """Parameters of ``compiler.clos.ClosParams``, or with ``pods`` of ``compiler.pods.PodsParams`` (a 5-stage Clos:
    the other fields describe ONE pod); validated by planning (so a bad value is a 400 at once)."""

    name = serializers.RegexField(r"^[A-Za-z0-9_.-]{1,100}\Z")
    site = serializers.RegexField(r"^[A-Za-z0-9_.-]{1,100}\Z", default="dc1")
    spines = serializers.IntegerField(min_value=1, max_value=512)
    leaves = serializers.IntegerField(min_value=1, max_value=4096)
    servers_per_leaf = serializers.IntegerField(min_value=0, max_value=512, default=2)
    rails = serializers.IntegerField(min_value=1, max_value=16, default=1)
    uplinks_per_spine = serializers.IntegerField(min_value=1, max_value=64, default=1,
                                                 help_text="parallel links from each leaf to each spine")
    planes = serializers.IntegerField(min_value=1, max_value=64, default=1, help_text="spine planes")
    leaf_platforms = serializers.ListField(child=serializers.ChoiceField(choices=PlatformChoices.choices),
                                           required=False, default=list, max_length=64,
                                           help_text="platforms cycled over the leaves (mixed fabric)")
    server_gpus = serializers.IntegerField(min_value=0, max_value=64, default=8)
    server_power_w = serializers.FloatField(min_value=0.0, max_value=100_000.0, default=10200.0)
    uplink_speed = serializers.ChoiceField(choices=[100, 200, 400, 800], default=400)
    downlink_speed = serializers.ChoiceField(choices=[100, 200, 400, 800], default=400)
    model = serializers.CharField(required=False, allow_null=True, default=None, max_length=100)
    spine_model = serializers.CharField(required=False, allow_null=True, default=None, max_length=100)
    platform = serializers.ChoiceField(choices=PlatformChoices.choices, default=PlatformChoices.EOS)
    spine_platform = serializers.ChoiceField(choices=PlatformChoices.choices, required=False, allow_null=True,
                                             default=None)
    rack_power_budget_kw = serializers.FloatField(min_value=0.0, max_value=1000.0, default=40.0)
    name_prefix = serializers.RegexField(r"^[A-Za-z0-9-]{0,20}\Z", required=False, default="", allow_blank=True)
    mgmt_pool = serializers.CharField(required=False, default="172.16.0.0/16", max_length=18)
    server_mgmt_pool = serializers.CharField(required=False, default="172.20.0.0/16", max_length=18)
    # 5-stage Clos (compiler.pods): pods under super-spine planes, spine k of every pod to the super-spines of plane k
    pods = serializers.IntegerField(min_value=0, max_value=63, default=0,
                                    help_text="5-stage Clos: this many pods (spines/leaves/servers/rails describe ONE "
                                              "pod; planes = spines per pod); 0: a two-tier Clos")
    super_spines_per_plane = serializers.IntegerField(min_value=1, max_value=64, default=1,
                                                      help_text="with pods: super-spines in each plane")
    super_spine_links = serializers.IntegerField(min_value=1, max_value=64, default=1,
                                                 help_text="with pods: parallel links between a spine and each "
                                                           "super-spine of its plane")
    super_spine_model = serializers.CharField(required=False, allow_null=True, default=None, max_length=100,
                                              help_text="with pods: super-spine model (default: picked by ports)")
    super_spine_platform = serializers.ChoiceField(choices=PlatformChoices.choices, required=False, allow_null=True,
                                                   default=None, help_text="with pods (default: the spines')")

    def validate(self, attrs):
        params = fabric_params_from(attrs)
        clos = params.pod if isinstance(params, PodsParams) else params
        pods = params.pods if isinstance(params, PodsParams) else 1
        if pods * clos.leaves * max(clos.servers_per_leaf, 1) > 200_000:
            raise serializers.ValidationError({"pods" if pods > 1 else "leaves": ["fabric too large for one request"]})
        if pods * (clos.spines + clos.leaves) > MAX_BUILD_SWITCHES:
            raise serializers.ValidationError({"pods": [f"{pods} pods x {clos.spines + clos.leaves} switches: at "
                                                        f"most {MAX_BUILD_SWITCHES} switches in one request"]})
        try:
            plan_pods(params) if isinstance(params, PodsParams) else plan_clos(params)
        except InputError as error:
            raise serializers.ValidationError(error.as_dict()) from None
        return attrs


class FabricBuildRecordSerializer(BriefModelSerializer):
    """A recorded fabric build (``inventory.FabricBuild``, a run record); read-only."""

    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = FabricBuild
        fields = ("id", "kind", "fabric_name", "status", "params", "created", "started", "finished", "duration_s",
                  "requested_by", "task_id", "summary", "result", "error", "error_fields")
        read_only_fields = fields


class FabricBuildAcceptedSerializer(FabricBuildRecordSerializer):
    """The answer to ``POST /api/fabrics/build/``: the build record as it stands, where to poll it."""

    build = serializers.IntegerField(help_text="the build record's id (GET /api/fabric-builds/{id}/)")
    status_url = serializers.URLField(help_text="poll until status is succeeded or failed (also the Location header)")

    class Meta(FabricBuildRecordSerializer.Meta):
        fields = ("build", "status_url", *FabricBuildRecordSerializer.Meta.fields)
        read_only_fields = fields


def fabric_params_from(data: dict) -> ClosParams | PodsParams:
    """API field names -> the planner's parameters: PodsParams when ``pods`` is set (the Clos fields are its pod)."""
    clos = clos_params_from(data)
    if not data.get("pods"):
        return clos
    return PodsParams(name=clos.name, pods=data["pods"], pod=clos,
                      super_spines_per_plane=data.get("super_spines_per_plane", 1),
                      super_spine_links=data.get("super_spine_links", 1),
                      super_spine_model=data.get("super_spine_model") or None,
                      super_spine_platform=data.get("super_spine_platform") or None)


def clos_params_from(data: dict) -> ClosParams:
    """API/command field names -> ClosParams (the planner's names)."""
    return ClosParams(
        name=data["name"], site=data.get("site") or "dc1", spines=data["spines"], leaves=data["leaves"],
        servers_per_leaf=data.get("servers_per_leaf", 2), rails_per_server=data.get("rails", 1),
        uplinks_per_spine=data.get("uplinks_per_spine", 1), planes=data.get("planes", 1),
        leaf_platforms=tuple(data.get("leaf_platforms") or ()), server_gpus=data.get("server_gpus", 8),
        server_power_w=float(data.get("server_power_w", 10200.0)),
        uplink_speed_gbps=int(data.get("uplink_speed", 400)), downlink_speed_gbps=int(data.get("downlink_speed", 400)),
        leaf_model=data.get("model") or None, spine_model=data.get("spine_model") or None,
        platform=data.get("platform") or "eos", spine_platform=data.get("spine_platform") or None,
        rack_power_budget_kw=float(data.get("rack_power_budget_kw", 40.0)),
        name_prefix=data.get("name_prefix") or "", mgmt_pool=data.get("mgmt_pool") or "172.16.0.0/16",
        server_mgmt_pool=data.get("server_mgmt_pool") or "172.20.0.0/16",
    )


class NetboxSyncSerializer(BriefModelSerializer):
    summary_text = serializers.CharField(read_only=True, help_text="summary's one line (diff counts, rows written)")

    class Meta:
        model = NetboxSync
        fields = ("id", "kind", "fabric_name", "source", "trigger", "status", "dry_run", "allow_missing_links",
                  "created", "started", "finished", "duration_s", "summary", "summary_text", "diff", "persisted",
                  "skipped", "missing_links", "error", "error_fields")
        read_only_fields = fields


class NetboxSyncAcceptedSerializer(NetboxSyncSerializer):
    """A sync answered 202: the run as it stands and where to poll it (also the Location header)."""

    status_url = serializers.URLField(help_text="poll until status is succeeded or failed")

    class Meta(NetboxSyncSerializer.Meta):
        fields = (*NetboxSyncSerializer.Meta.fields, "status_url")
        read_only_fields = fields


class NetboxSyncRequestSerializer(serializers.Serializer):
    """A re-sync from the configured NetBox (FT_NETBOX_URL / FT_NETBOX_TOKEN)."""

    fabric = serializers.RegexField(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\Z", required=False,
                                    help_text="default: FT_NETBOX_FABRIC")
    dry_run = serializers.BooleanField(default=True, help_text="show the diff, apply nothing (the default)")
    allow_missing_links = serializers.BooleanField(default=False)
