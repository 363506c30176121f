"""Users and groups in /admin/ follow the roles: only a user holding ``common.manage_users`` (the admin role) may see or
change them (Django's own per-model permissions are not granted to our groups; common.policy decides)."""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group

from common.policy import MANAGE_USERS, CapabilityAdminMixin


class RoleUserAdmin(CapabilityAdminMixin, UserAdmin):
    capability = MANAGE_USERS


class RoleGroupAdmin(CapabilityAdminMixin, GroupAdmin):
    capability = MANAGE_USERS


for model, model_admin in ((get_user_model(), RoleUserAdmin), (Group, RoleGroupAdmin)):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, model_admin)
