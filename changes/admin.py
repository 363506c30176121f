"""Admin views of the change records (read-mostly: rollouts are driven through the API or `manage.py rollout`)."""

from django.contrib import admin

from common.policy import MANAGE_ENDPOINTS, CapabilityAdminMixin

from .models import AuditLog, ChangeSet, ChangeSetDevice, ConfigSecret, DeviceEndpoint, DriftRecord, Rollout, Step


class ChangeSetDeviceInline(admin.TabularInline):
    model = ChangeSetDevice
    fields = ("hostname", "role", "platform", "driver", "has_diff", "intended_hash", "running_hash")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(ChangeSet)
class ChangeSetAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "fabric_name", "compile_run_id", "created_by", "created_at")
    inlines = [ChangeSetDeviceInline]


class StepInline(admin.TabularInline):
    model = Step
    fields = ("device", "wave", "phase", "result", "started_at", "finished_at", "config_hash")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Rollout)
class RolloutAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "kind", "target", "state", "started_by", "approved_by", "created_at", "finished_at")
    list_filter = ("state", "kind", "target")
    readonly_fields = ("state", "plan", "report", "lease_owner", "lease_expires_at", "started_at", "finished_at",
                       "approved_by", "approved_at", "error")
    inlines = [StepInline]


@admin.register(DeviceEndpoint)
class DeviceEndpointAdmin(CapabilityAdminMixin, admin.ModelAdmin):
    capability = MANAGE_ENDPOINTS  # endpoints say how to log in to production devices: admins only
    list_display = ("hostname", "driver", "address", "port", "username")
    exclude = ("password_encrypted",)  # set through the service / command; never shown


@admin.register(ConfigSecret)
class ConfigSecretAdmin(CapabilityAdminMixin, admin.ModelAdmin):
    """References only: values are set with ``manage.py config_secret set`` and are never shown."""

    capability = MANAGE_ENDPOINTS  # the secrets pushed to production devices: admins only
    list_display = ("reference", "updated_at")
    readonly_fields = ("reference", "updated_at")
    exclude = ("value_encrypted",)

    def has_add_permission(self, request) -> bool:  # a value can only be given through the command (stdin/env)
        return False


@admin.register(DriftRecord)
class DriftRecordAdmin(admin.ModelAdmin):
    list_display = ("hostname", "checked_at", "drifted", "error")
    list_filter = ("drifted",)


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    list_display = ("at", "username", "action", "object_type", "object_id", "object_repr")
    list_filter = ("action", "object_type")
    search_fields = ("object_repr", "username", "message")
