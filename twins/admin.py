from django.contrib import admin

from .models import Twin


@admin.register(Twin)
class TwinAdmin(admin.ModelAdmin):
    list_display = ("prefix", "fabric_intent", "engine", "status", "converge_s", "rss_mb", "switches", "hosts",
                    "updated")
    list_filter = ("engine", "status")
    search_fields = ("prefix", "fabric_intent__name")
    list_select_related = ("fabric_intent",)
    readonly_fields = ("prefix", "compile_run", "started", "converged", "boot_s", "converge_s", "rss_mb", "switches",
                       "hosts", "last_report", "last_measured", "last_injection", "last_fidelity", "limitations",
                       "error", "created", "updated")
