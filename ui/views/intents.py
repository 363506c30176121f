"""Intent pages: fabric intents with their tenants, networks and RoCE classes; compile.

Every save goes through ``intents.services.intent_object_save`` (the same path as the API): model checks name
the field, then the whole fabric intent is validated by the compiler in the same transaction. Errors come
back inline on the form. "Preview" shows the blast radius first: the change is applied inside a transaction
that is always rolled back, and the devices whose compiled configs would change are listed.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render

from common.roles import EDIT_INTENTS, OPERATE
from common.runs import RunStatus
from common.versioning import StaleVersionError, VersionedModelForm, stale_message
from compiler.errors import FabricTwinError, InputError
from compiler.natural import natural_key
from intents import selectors, services
from intents.choices import AllocationKindChoices
from intents.models import FabricIntent, Network, RoceClass, Tenant
from inventory import selectors as inventory_selectors
from ui import integrations
from ui.forms import field_errors_into

from .common import requires, viewer


class TenantForm(VersionedModelForm):
    class Meta:
        model = Tenant
        fields = ("name", "vrf", "l3vni")


class SearchableSelectMultiple(forms.SelectMultiple):
    """A multi-select with a filter box, "select shown" / "clear" and counts (ui.js data-filter): picking 500 of
    1,024 NIC ports is typing "rail3" and one click, not 500 ctrl-clicks. Chosen options are never hidden."""

    template_name = "ui/widgets/searchable_select.html"


class NetworkForm(VersionedModelForm):
    class Meta:
        model = Network
        fields = ("tenant", "name", "vlan_id", "subnet", "gateway", "l2vni", "leaves", "attachments")
        widgets = {"leaves": SearchableSelectMultiple(attrs={"size": 8}),
                   "attachments": SearchableSelectMultiple(attrs={"size": 14})}

    def __init__(self, *args, fabric_intent: FabricIntent, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tenant"].queryset = selectors.tenant_choices(fabric_intent=fabric_intent)
        self.fields["leaves"].queryset = inventory_selectors.switch_leaf_choices(fabric_id=fabric_intent.fabric_id)
        self.fields["leaves"].required = False
        self.fields["attachments"].queryset = inventory_selectors.nic_port_choices(
            fabric_id=fabric_intent.fabric_id)
        self.fields["attachments"].required = False
        self.fields["attachments"].label = "Server NIC ports"


class RoceClassForm(VersionedModelForm):
    dscp = forms.CharField(help_text="DSCP values, comma separated, e.g. 26")

    class Meta:
        model = RoceClass
        fields = ("name", "dscp", "priority", "traffic_class", "lossless", "ecn_min_kb", "ecn_max_kb",
                  "ecn_mark_probability", "cnp_dscp", "cnp_priority", "pfc_watchdog", "watchdog_detect_ms",
                  "watchdog_restore_ms", "headroom_policy", "headroom_bytes")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and isinstance(self.instance.dscp, list):
            self.initial["dscp"] = ", ".join(str(value) for value in self.instance.dscp)

    def clean_dscp(self):
        text = self.cleaned_data["dscp"]
        try:
            return [int(part) for part in text.replace(" ", "").split(",") if part]
        except ValueError as exc:
            raise ValidationError(f"expected DSCP numbers separated by commas, got {text!r}") from exc


class FabricIntentForm(VersionedModelForm):
    fabric = forms.ModelChoiceField(queryset=inventory_selectors.fabric_choices(), to_field_name="name")

    class Meta:
        model = FabricIntent
        fields = ("name", "fabric", "description", "underlay", "asn_scheme", "underlay_mtu", "host_mtu")

    def clean(self):
        """The pools the save will use (free of other fabrics' intents), so the model's checks see them too:
        with the model defaults a second fabric's intent clashed on fields this form does not show."""
        data = super().clean()
        if data.get("fabric") is not None and data.get("name"):
            for field, value in services.fabric_intent_defaults(fabric=data["fabric"], name=data["name"]).items():
                setattr(self.instance, field, value)
        return data


class FabricIntentSettingsForm(VersionedModelForm):
    """The design knobs of an existing fabric intent (its name and inventory fabric stay)."""

    class Meta:
        model = FabricIntent
        fields = ("description", "underlay", "asn_scheme", "route_target_scheme", "underlay_mtu", "host_mtu",
                  "loopback_pool", "vtep_pool", "p2p_pool", "asn_first", "asn_last", "spine_asn", "l2vni_base",
                  "l3vni_first", "l3vni_last", "bgp_maximum_paths", "bgp_keepalive_s", "bgp_hold_s", "bgp_bfd",
                  "bgp_bfd_interval_ms", "bgp_bfd_multiplier", "anycast_gateway_mac", "evpn_overlay",
                  "ecmp_tier_hashing", "ecmp_dest_qp_hashing", "ecmp_dlb", "nccl_qps_per_connection")


KINDS = {
    "tenants": (Tenant, TenantForm, "tenant"),
    "networks": (Network, NetworkForm, "network"),
    "roce": (RoceClass, RoceClassForm, "RoCE class"),
    "settings": (FabricIntent, FabricIntentSettingsForm, "fabric intent settings"),
}


def _intent_or_404(name: str) -> FabricIntent:
    return get_object_or_404(selectors.fabric_intent_list(), name=name)


def _kind_or_404(kind: str):
    if kind not in KINDS:
        raise Http404(f"unknown intent object kind {kind!r}")
    return KINDS[kind]


@viewer
def intent_list(request):
    intents = selectors.fabric_intent_list().order_by("name")
    rows = []
    for intent in intents:
        rows.append({"intent": intent, "latest": selectors.compile_run_list().filter(fabric_intent=intent)
                     .order_by("-created", "-id").first()})
    return render(request, "ui/intents/list.html", {"section": "intents", "title": "Intents", "rows": rows})


@requires(EDIT_INTENTS)
def intent_create(request):
    form = FabricIntentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        try:
            intent = services.fabric_intent_create(fabric=data.pop("fabric"), name=data.pop("name"), **data)
        except ValidationError as error:
            _model_errors_into(form, error)
        except FabricTwinError as error:
            field_errors_into(form, error)
        else:
            messages.success(request, f"Created fabric intent {intent.name}.")
            return redirect("ui:intent_detail", name=intent.name)
    return render(request, "ui/intents/form.html", {
        "section": "intents", "title": "New fabric intent", "form": form, "kind_label": "fabric intent"})


@viewer
def intent_detail(request, name: str):
    intent = _intent_or_404(name)
    runs = selectors.compile_run_list().filter(fabric_intent=intent).order_by("-created", "-id")[:5]
    preview = selectors.allocation_preview(fabric_intent=intent)
    allocated = preview.allocations
    kinds = AllocationKindChoices

    def number(kind: str, key: str, explicit: int | None, values: dict) -> dict:
        """The VNI a tenant or network runs with and where it comes from (never just "auto")."""
        if explicit is not None:
            return {"value": explicit, "source": "set in the intent"}
        if key not in values:
            return {"value": None, "source": preview.error or "not allocated"}
        return {"value": values[key], "source": "at the next compile" if (kind, key) in preview.pending
                else "allocated"}

    tenants = [(tenant, number(kinds.L3VNI, tenant.name, tenant.l3vni, allocated.l3vnis))
               for tenant in selectors.tenant_list().filter(fabric_intent=intent).order_by("name")]
    networks = [(network, number(kinds.L2VNI, network.name, network.l2vni, allocated.l2vnis))
                for network in selectors.network_list().filter(fabric_intent=intent).order_by("vlan_id")]
    switch_names = sorted(set(allocated.asns) | set(allocated.loopbacks) | set(allocated.vteps), key=natural_key)
    switch_rows = [{"name": name, "asn": allocated.asns.get(name), "loopback": allocated.loopbacks.get(name),
                    "vtep": allocated.vteps.get(name),
                    "pending": any((kind, name) in preview.pending for kind in (kinds.ASN, kinds.LOOPBACK,
                                                                               kinds.VTEP))}
                   for name in switch_names]
    return render(request, "ui/intents/detail.html", {
        "section": "intents", "title": f"Intent {intent.name}", "intent": intent, "tenants": tenants,
        "networks": networks, "switch_rows": switch_rows, "p2p_count": len(allocated.p2p),
        "allocation_error": preview.error, "pending_count": len(preview.pending),
        "roce_classes": selectors.roce_class_list().filter(fabric_intent=intent).order_by("priority"),
        "runs": runs, "runs_active": any(run.active for run in runs),
    })


@requires(OPERATE)
def intent_compile(request, name: str):
    if request.method != "POST":
        return redirect("ui:intent_detail", name=name)
    intent = _intent_or_404(name)
    # off the request (a worker, or a background thread): the intent page lists the run and polls while it runs
    run = integrations.compile_start(intent, user=request.user)
    if isinstance(run, Exception):
        messages.error(request, f"Compile refused: {run}")
    elif run.status == RunStatus.SUCCEEDED:
        messages.success(request, f"Compiled {run.device_count} devices in {run.duration_s:.2f} s (run #{run.pk}).")
        return redirect("ui:config_list", name=intent.name)
    elif run.status == RunStatus.FAILED:
        messages.error(request, f"Compile failed: {run.error}")
    else:
        messages.info(request, f"Compile run #{run.pk} started; this page updates itself.")
    return redirect("ui:intent_detail", name=name)


@requires(EDIT_INTENTS)
def roce_defaults(request, name: str):
    if request.method != "POST":
        return redirect("ui:intent_detail", name=name)
    intent = _intent_or_404(name)
    try:
        classes = services.roce_defaults_apply(fabric_intent=intent)
    except (FabricTwinError, ValidationError) as error:
        messages.error(request, f"Could not apply the RoCE defaults: {error}")
    else:
        messages.success(request, f"Applied RoCE default classes: {', '.join(c.name for c in classes)}.")
    return redirect("ui:intent_detail", name=name)


def _model_errors_into(form: forms.BaseForm, error: ValidationError) -> None:
    if hasattr(error, "error_dict"):
        for field, errors in error.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, error.messages)


def _bound_form(request, kind: str, intent: FabricIntent, instance, *, bound: bool = True):
    _, form_class, _ = _kind_or_404(kind)
    kwargs = {"instance": instance}
    if form_class is NetworkForm:
        kwargs["fabric_intent"] = intent
    return form_class((request.POST or None) if bound else None, **kwargs)


def _new_instance(kind: str, intent: FabricIntent):
    model, _, _ = _kind_or_404(kind)
    if model is Network:
        return Network(fabric_intent=intent)
    return model(fabric_intent=intent)


def _save(form: forms.ModelForm):
    """Save through the intents service; raises what the service raises (rolls back on error)."""
    many_fields = ("leaves", "attachments")
    values = {name: value for name, value in form.cleaned_data.items() if name not in many_fields}
    many = {name: form.cleaned_data[name] for name in many_fields if name in form.cleaned_data} or None
    return services.intent_object_save(instance=form.instance, values=values, many=many)


def _instance(kind: str, intent: FabricIntent, pk: int | None):
    model, _, _ = _kind_or_404(kind)
    if model is FabricIntent:
        return intent  # the settings of the intent itself
    if pk is None:
        return _new_instance(kind, intent)
    return get_object_or_404(model, pk=pk, fabric_intent=intent)


@requires(EDIT_INTENTS)
def object_edit(request, name: str, kind: str, pk: int | None = None):
    intent = _intent_or_404(name)
    _, _, label = _kind_or_404(kind)
    instance = _instance(kind, intent, pk)
    form = _bound_form(request, kind, intent, instance)
    stale, status = None, 200
    if request.method == "POST" and form.is_valid():
        try:
            saved = _save(form)
        except StaleVersionError as error:
            # someone saved it since this form was opened: show what is stored now, never overwrite it
            stale, status = stale_message(error, form), 409
            intent = _intent_or_404(name)
            instance = _instance(kind, intent, pk)
            form = _bound_form(request, kind, intent, instance, bound=False)
        except ValidationError as error:
            _model_errors_into(form, error)
        except FabricTwinError as error:
            field_errors_into(form, error)
        else:
            messages.success(request, f"Saved {label} {saved}.")
            return redirect("ui:intent_detail", name=intent.name)
    return render(request, "ui/intents/form.html", {
        "section": "intents", "title": f"{'Edit' if instance.pk else 'New'} {label}", "form": form, "intent": intent,
        "kind": kind, "kind_label": label, "instance": instance, "stale": stale,
        "preview_url": f"/intents/{intent.name}/{kind}/preview/" + (f"?pk={pk}" if pk else ""),
    }, status=status)


@requires(EDIT_INTENTS)
def object_delete(request, name: str, kind: str, pk: int):
    intent = _intent_or_404(name)
    instance = _instance(kind, intent, pk)
    if request.method == "POST":
        try:
            services.intent_object_delete(instance=instance)
        except (FabricTwinError, ValidationError) as error:
            messages.error(request, f"Cannot delete {instance}: {error}")
        else:
            messages.success(request, f"Deleted {instance}.")
    return redirect("ui:intent_detail", name=intent.name)


@requires(EDIT_INTENTS)
def object_preview(request, name: str, kind: str):
    """HTMX partial: validation errors and blast radius of the posted form, without saving anything."""
    intent = _intent_or_404(name)
    pk = request.GET.get("pk")
    instance = _instance(kind, intent, int(pk) if pk and pk.isdigit() else None)
    form = _bound_form(request, kind, intent, instance)
    errors, radius = [], None
    if form.is_valid():
        try:
            radius = integrations.blast_radius(intent, lambda: _save(form))
        except ValidationError as error:
            errors = [f"{field}: {'; '.join(messages_)}" for field, messages_ in error.message_dict.items()] \
                if hasattr(error, "error_dict") else list(error.messages)
        except InputError as error:
            errors = [str(field_error) for field_error in error.errors]
        except FabricTwinError as error:
            errors = [str(error)]
    else:
        errors = [f"{field}: {'; '.join(field_errors)}" for field, field_errors in form.errors.items()]
    changes = []
    if radius is not None:
        # what changes on each device, as structured-config paths (first few per device, first 30 devices)
        changes = [(host, [path for path, _old, _new in radius.changes.get(host, [])][:6],
                    len(radius.changes.get(host, []))) for host in radius.devices[:30]]
    return render(request, "ui/partials/blast_radius.html", {"errors": errors, "radius": radius, "changes": changes})

