"""Admin for the intents app. Saves run the same validation as the API: the form saves the proposed object in a
savepoint that is always rolled back, runs the fabric-level checks and shows their errors on the form; only a
valid object is then saved for real through the service."""

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction

from common.versioning import StaleVersionError, VersionedAdminForm, stale_message
from compiler.errors import FabricTwinError, InputError

from . import services
from .models import Allocation, CompileRun, DeployedConfig, DeviceConfig, FabricIntent, Network, RoceClass, Tenant


class IntentValidatedForm(VersionedAdminForm):
    many_fields: tuple[str, ...] = ()

    def many_values(self) -> dict:
        return {name: self.cleaned_data[name] for name in self.many_fields if name in self.cleaned_data}

    def _post_clean(self):
        super()._post_clean()
        if self.errors:
            return
        instance = self.instance
        pk, adding, version = instance.pk, instance._state.adding, instance.version
        try:
            with transaction.atomic():
                services.intent_object_save(instance=instance, many=self.many_values())
                transaction.set_rollback(True)
        except StaleVersionError as error:  # saved by someone else between clean() and this trial save
            self.add_error(None, stale_message(error, self, reload_hint=True))
        except InputError as error:
            for item in error.errors:
                self.add_error(None, f"{item.field}: {item.message} (got {item.value!r})")
        except ValidationError as error:
            for field, field_messages in getattr(error, "message_dict", {"__all__": error.messages}).items():
                self.add_error(field if field in self.fields else None, field_messages)
        finally:
            instance.pk, instance._state.adding, instance.version = pk, adding, version  # the trial was rolled back


class IntentAdmin(admin.ModelAdmin):
    def save_model(self, request, obj, form, change):
        services.intent_object_save(instance=obj, many=form.many_values())

    def save_related(self, request, form, formsets, change):
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)  # m2m were set by save_model

    def delete_model(self, request, obj):
        try:
            services.intent_object_delete(instance=obj)
        except FabricTwinError as error:
            self.message_user(request, f"not deleted: {error}", level=messages.ERROR)


class FabricIntentForm(IntentValidatedForm):
    class Meta:
        model = FabricIntent
        fields = ("name", "fabric", "description", "underlay", "asn_scheme", "route_target_scheme", "loopback_pool",
                  "vtep_pool", "p2p_pool", "asn_first", "asn_last", "spine_asn", "l2vni_base", "l3vni_first",
                  "l3vni_last", "underlay_mtu", "host_mtu", "bgp_maximum_paths", "bgp_keepalive_s", "bgp_hold_s",
                  "bgp_bfd", "bgp_bfd_interval_ms", "bgp_bfd_multiplier", "anycast_gateway_mac")


@admin.register(FabricIntent)
class FabricIntentAdmin(IntentAdmin):
    form = FabricIntentForm
    list_display = ("name", "fabric", "underlay", "asn_scheme", "route_target_scheme", "last_updated")
    list_select_related = ("fabric",)
    search_fields = ("name", "description")

    def delete_model(self, request, obj):
        obj.delete()


class TenantForm(IntentValidatedForm):
    class Meta:
        model = Tenant
        fields = ("fabric_intent", "name", "vrf", "l3vni")


@admin.register(Tenant)
class TenantAdmin(IntentAdmin):
    form = TenantForm
    list_display = ("name", "fabric_intent", "vrf", "l3vni")
    list_filter = ("fabric_intent",)
    search_fields = ("name", "vrf")


class NetworkForm(IntentValidatedForm):
    many_fields = ("leaves", "attachments")

    class Meta:
        model = Network
        fields = ("tenant", "name", "vlan_id", "l2vni", "subnet", "gateway", "leaves", "attachments")


@admin.register(Network)
class NetworkAdmin(IntentAdmin):
    form = NetworkForm
    list_display = ("name", "tenant", "vlan_id", "l2vni", "subnet", "gateway")
    list_select_related = ("tenant",)
    list_filter = ("fabric_intent",)
    search_fields = ("name", "subnet")
    raw_id_fields = ("leaves", "attachments")


class RoceClassForm(IntentValidatedForm):
    class Meta:
        model = RoceClass
        fields = ("fabric_intent", "name", "dscp", "priority", "traffic_class", "lossless", "ecn_min_kb", "ecn_max_kb",
                  "ecn_mark_probability", "cnp_dscp", "cnp_priority", "pfc_watchdog", "watchdog_detect_ms",
                  "watchdog_restore_ms", "headroom_policy", "headroom_bytes")


@admin.register(RoceClass)
class RoceClassAdmin(IntentAdmin):
    form = RoceClassForm
    list_display = ("name", "fabric_intent", "dscp", "priority", "traffic_class", "lossless", "ecn_min_kb",
                    "ecn_max_kb", "ecn_mark_probability")
    list_filter = ("fabric_intent", "lossless")


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records the services write; the admin only shows them."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Allocation)
class AllocationAdmin(ReadOnlyAdmin):
    list_display = ("fabric_intent", "kind", "key", "value", "value_group")
    list_filter = ("fabric_intent", "kind")
    search_fields = ("key", "value")


@admin.register(CompileRun)
class CompileRunAdmin(ReadOnlyAdmin):
    list_display = ("id", "fabric_intent", "status", "created", "duration_s", "device_count")
    list_filter = ("status", "fabric_intent")


@admin.register(DeviceConfig)
class DeviceConfigAdmin(ReadOnlyAdmin):
    list_display = ("hostname", "platform", "run", "sha256")
    list_filter = ("platform",)
    search_fields = ("hostname",)


@admin.register(DeployedConfig)
class DeployedConfigAdmin(ReadOnlyAdmin):
    list_display = ("hostname", "platform", "fabric_intent", "device_config", "deployed")
