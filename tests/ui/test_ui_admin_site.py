"""/admin/ follows the roles for what is admin-only: device endpoints (how to log in to production devices) need
``common.manage_endpoints``, users and groups ``common.manage_users`` (common.policy.CapabilityAdminMixin)."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.test import Client

pytestmark = pytest.mark.django_db
PAGES = {"/admin/changes/deviceendpoint/": "manage_endpoints", "/admin/auth/user/": "manage_users",
         "/admin/auth/group/": "manage_users"}


def _staff(django_user_model, role: str) -> Client:
    user = django_user_model.objects.create_user(username=f"staff-{role}", is_staff=True)
    user.groups.set([Group.objects.get(name=role)])
    client = Client()
    client.force_login(user)
    return client


def test_admin_role_manages_endpoints_and_users(django_user_model):
    client = _staff(django_user_model, "admin")
    for page in PAGES:
        assert client.get(page).status_code == 200, page
        assert client.get(f"{page}add/").status_code == 200, page


def test_staff_operator_cannot_see_endpoints_or_users(django_user_model):
    client = _staff(django_user_model, "operator")
    for page in PAGES:
        assert client.get(page).status_code == 403, page
        assert client.get(f"{page}add/").status_code == 403, page
    assert "deviceendpoint" not in client.get("/admin/").content.decode()


def test_the_capability_decides_not_the_group_name(django_user_model):
    """Broken on purpose: take manage_endpoints away from the admin group and its members lose the endpoints."""
    client = _staff(django_user_model, "admin")
    Group.objects.get(name="admin").permissions.remove(Permission.objects.get(codename="manage_endpoints"))
    assert client.get("/admin/changes/deviceendpoint/").status_code == 403
    assert client.get("/admin/auth/user/").status_code == 200
