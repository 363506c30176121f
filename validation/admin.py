from django.contrib import admin

from .models import ValidationFinding, ValidationRun


@admin.register(ValidationRun)
class ValidationRunAdmin(admin.ModelAdmin):
    list_display = ("id", "fabric_intent", "created", "status", "ok", "error_count", "warning_count", "duration_s")
    list_filter = ("status", "ok")


@admin.register(ValidationFinding)
class ValidationFindingAdmin(admin.ModelAdmin):
    list_display = ("id", "run", "check_name", "severity", "subject")
    list_filter = ("severity", "check_name")
    list_select_related = ("run",)
