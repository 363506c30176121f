"""Django admin for every inventory model (big foreign keys as raw ids so pages stay fast on large fabrics); edit
forms carry the object's version, so a stale one is refused (common/versioning.py)."""

from django.contrib import admin

from common.versioning import VersionedModelAdmin

from .models import (
    Cable,
    Fabric,
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


@admin.register(Site)
class SiteAdmin(VersionedModelAdmin):
    list_display = ("name", "description")
    search_fields = ("name",)


@admin.register(Fabric)
class FabricAdmin(VersionedModelAdmin):
    list_display = ("name", "site", "description")
    list_filter = ("site",)
    search_fields = ("name",)


@admin.register(Rack)
class RackAdmin(VersionedModelAdmin):
    list_display = ("name", "site", "fabric", "row", "position", "height_u", "power_budget_kw")
    list_filter = ("site", "fabric")
    list_select_related = ("site", "fabric")
    search_fields = ("name",)


@admin.register(SwitchModel)
class SwitchModelAdmin(VersionedModelAdmin):
    list_display = ("name", "vendor", "asic", "port_count", "max_speed_gbps", "form_factor", "typical_power_w")
    list_filter = ("vendor", "form_factor")
    search_fields = ("name", "vendor", "asic")


@admin.register(Platform)
class PlatformAdmin(VersionedModelAdmin):
    list_display = ("slug", "name", "napalm_driver", "netmiko_device_type")


class InterfaceInline(admin.TabularInline):
    model = Interface
    fields = ("name", "speed_gbps", "mtu", "enabled", "breakout_parent", "lane", "cable", "cable_end")
    readonly_fields = ("cable", "cable_end")
    extra = 0
    show_change_link = True


@admin.register(Switch)
class SwitchAdmin(VersionedModelAdmin):
    list_display = ("hostname", "fabric", "role", "plane", "model", "platform", "rack", "u_position", "mgmt_ip",
                    "status")
    list_filter = ("fabric", "role", "platform", "status", "model")
    list_select_related = ("fabric", "model", "platform", "rack")
    search_fields = ("hostname", "serial", "mgmt_ip", "base_mac")
    raw_id_fields = ("rack",)
    inlines = (InterfaceInline,)


@admin.register(Interface)
class InterfaceAdmin(VersionedModelAdmin):
    list_display = ("__str__", "speed_gbps", "mtu", "enabled", "breakout_parent", "lane", "cable", "cable_end")
    list_filter = ("speed_gbps", "enabled", "switch__fabric")
    list_select_related = ("switch", "cable")
    search_fields = ("name", "switch__hostname")
    raw_id_fields = ("switch",)
    readonly_fields = ("cable", "cable_end")


@admin.register(Optic)
class OpticAdmin(VersionedModelAdmin):
    list_display = ("__str__", "form_factor", "media", "speed_gbps", "reach_m", "vendor", "serial")
    list_filter = ("form_factor", "media", "speed_gbps")
    list_select_related = ("interface__switch", "nic_port__server")
    search_fields = ("serial", "part_number", "media")
    raw_id_fields = ("interface", "nic_port")


@admin.register(Cable)
class CableAdmin(VersionedModelAdmin):
    list_display = ("label", "cable_type", "length_m", "status", "peer_link")
    list_filter = ("cable_type", "status", "peer_link")
    search_fields = ("label",)


class NicPortInline(admin.TabularInline):
    model = NicPort
    fields = ("name", "rail", "speed_gbps", "mtu", "cable", "cable_end")
    readonly_fields = ("cable", "cable_end")
    extra = 0


@admin.register(Server)
class ServerAdmin(VersionedModelAdmin):
    list_display = ("name", "fabric", "rack", "u_position", "gpu_count", "power_w", "mgmt_ip")
    list_filter = ("fabric",)
    list_select_related = ("fabric", "rack")
    search_fields = ("name", "serial", "mgmt_ip")
    raw_id_fields = ("rack",)
    inlines = (NicPortInline,)


@admin.register(NicPort)
class NicPortAdmin(VersionedModelAdmin):
    list_display = ("__str__", "rail", "speed_gbps", "mtu", "cable", "cable_end")
    list_select_related = ("server", "cable")
    search_fields = ("name", "server__name")
    raw_id_fields = ("server",)
    readonly_fields = ("cable", "cable_end")


@admin.register(NetboxSync)
class NetboxSyncAdmin(admin.ModelAdmin):
    """NetBox import / re-sync runs: read-only (a run is a record; start one with netbox_import or the API)."""

    list_display = ("id", "fabric_name", "trigger", "status", "dry_run", "created", "summary_text")
    list_filter = ("status", "dry_run", "trigger", "fabric_name")
    search_fields = ("fabric_name", "summary__text")
    readonly_fields = [field.name for field in NetboxSync._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
