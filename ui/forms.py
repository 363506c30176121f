"""Forms of the UI. Domain validation is not repeated here: forms only parse, then the owning service (the
fabric builder, the intents services) decides, and its ``InputError`` field errors are shown inline
next to the field they name (``field_errors_into``)."""

from __future__ import annotations

from django import forms

from compiler.catalog import SWITCH_MODELS
from compiler.clos import ClosParams
from compiler.errors import FabricTwinError, InputError
from compiler.model import Platform
from compiler.pods import PodsParams
from inventory.api.serializers import MAX_BUILD_SWITCHES

SPEEDS = [(speed, f"{speed}G") for speed in (100, 200, 400, 800)]
PLATFORMS = [(platform, platform) for platform in Platform.ALL]


def field_errors_into(form: forms.Form, error: FabricTwinError) -> None:
    """Attach a service error to the form: each FieldError on its field when the form has it, else on the form.

    Field paths like ``networks[net10].vlan_id`` are matched on their last component.
    """
    if not isinstance(error, InputError):
        form.add_error(None, str(error))
        return
    for field_error in error.errors:
        name = field_error.field.rsplit(".", 1)[-1]
        message = f"{field_error.message} (got {field_error.value!r})"
        if name in form.fields:
            form.add_error(name, message)
        else:
            form.add_error(None, f"{field_error.field}: {message}")


def run_errors_into(form: forms.Form, run) -> None:
    """Attach a failed run record's error to the form: its field errors (field -> messages, matched on the last
    path component like ``field_errors_into``) or, without them, its message."""
    if not run.error_fields:
        form.add_error(None, run.error)
        return
    for field, messages in run.error_fields.items():
        name = field.rsplit(".", 1)[-1]
        for message in messages:
            form.add_error(name if name in form.fields else None, message if name in form.fields
                           else f"{field}: {message}")


class FabricBuildForm(forms.Form):
    name = forms.SlugField(max_length=60, initial="demo", help_text="Fabric name (inventory)")
    site = forms.SlugField(max_length=60, initial="dc1")
    spines = forms.IntegerField(min_value=1, max_value=512, initial=2)
    leaves = forms.IntegerField(min_value=1, max_value=4096, initial=4)
    servers_per_leaf = forms.IntegerField(min_value=0, max_value=256, initial=2)
    rails_per_server = forms.IntegerField(min_value=1, max_value=16, initial=1,
                                          help_text="1 = top-of-rack; 8 = rail-optimised, one leaf per NIC rail")
    uplinks_per_spine = forms.IntegerField(min_value=1, max_value=16, initial=1)
    uplink_speed_gbps = forms.TypedChoiceField(choices=SPEEDS, coerce=int, initial=400, label="Uplink speed",
                                                help_text="leaf to spine links")
    downlink_speed_gbps = forms.TypedChoiceField(choices=SPEEDS, coerce=int, initial=400, label="Downlink speed",
                                                  help_text="leaf to server NIC links")
    platform = forms.ChoiceField(choices=PLATFORMS, initial=Platform.EOS, help_text="eos | sonic | frr (the twin runs every device as FRR)")
    rack_power_budget_kw = forms.FloatField(min_value=0, initial=40.0, label="Rack power budget (kW)",
                                            help_text="0 = no budget recorded")
    name_prefix = forms.RegexField(regex=r"^[A-Za-z0-9-]{0,20}\Z", required=False, initial="",
                                   help_text="prefix for switch, server and rack names: another fabric in the same "
                                             "inventory, e.g. 'b-'")
    mgmt_pool = forms.CharField(max_length=18, required=False, initial="172.16.0.0/16", label="Switch management /16")
    server_mgmt_pool = forms.CharField(max_length=18, required=False, initial="172.20.0.0/16",
                                       label="Server management /16",
                                       help_text="left at a default that another fabric uses: the first free /16 of "
                                                 "172.16.0.0/12 is picked (and named after the build)")
    # 5-stage Clos (compiler.pods, as the API's ``pods``): the fields above then describe ONE pod, and spine k of
    # every pod is cabled to the super-spines of plane k (planes = spines per pod).
    pods = forms.IntegerField(min_value=0, max_value=63, initial=0, required=False, label="Pods",
                              help_text="5-stage Clos: this many pods, each of the spines/leaves/servers above; "
                                        "0 = a two-tier Clos")
    super_spines_per_plane = forms.IntegerField(min_value=1, max_value=64, initial=1, required=False,
                                                help_text="with pods: super-spines in each plane (one plane per "
                                                          "spine of a pod)")
    super_spine_links = forms.IntegerField(min_value=1, max_value=64, initial=1, required=False,
                                           help_text="with pods: parallel links from a spine to each super-spine of "
                                                     "its plane")
    super_spine_platform = forms.ChoiceField(choices=[("", "same as the spines"), *PLATFORMS], required=False,
                                             help_text="with pods")
    super_spine_model = forms.ChoiceField(choices=[("", "picked by ports"), *((m, m) for m in sorted(SWITCH_MODELS))],
                                          required=False, help_text="with pods")

    def clean(self):
        data = super().clean()
        pods = data.get("pods") or 0
        spines, leaves = data.get("spines"), data.get("leaves")
        if spines and leaves and max(pods, 1) * (spines + leaves) > MAX_BUILD_SWITCHES:
            self.add_error("pods" if pods else "leaves",
                           f"{max(pods, 1)} x {spines + leaves} switches: at most {MAX_BUILD_SWITCHES} in one build")
        return data

    def build_params(self) -> ClosParams | PodsParams:
        """A two-tier Clos, or with ``pods`` a 5-stage Clos whose pod template is the Clos fields (as the API's
        ``fabric_params_from``)."""
        clos = self.clos_params()
        data = self.cleaned_data
        if not data.get("pods"):
            return clos
        return PodsParams(name=clos.name, pods=data["pods"], pod=clos,
                          super_spines_per_plane=data.get("super_spines_per_plane") or 1,
                          super_spine_links=data.get("super_spine_links") or 1,
                          super_spine_model=data.get("super_spine_model") or None,
                          super_spine_platform=data.get("super_spine_platform") or None)

    def clos_params(self) -> ClosParams:
        data = self.cleaned_data
        return ClosParams(
            name=data["name"], site=data["site"], spines=data["spines"], leaves=data["leaves"],
            servers_per_leaf=data["servers_per_leaf"], rails_per_server=data["rails_per_server"],
            uplinks_per_spine=data["uplinks_per_spine"], uplink_speed_gbps=data["uplink_speed_gbps"],
            downlink_speed_gbps=data["downlink_speed_gbps"], platform=data["platform"],
            rack_power_budget_kw=data["rack_power_budget_kw"], name_prefix=data.get("name_prefix") or "",
            mgmt_pool=data.get("mgmt_pool") or "172.16.0.0/16",
            server_mgmt_pool=data.get("server_mgmt_pool") or "172.20.0.0/16",
        )
