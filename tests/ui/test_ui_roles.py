import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from common.roles import ROLE_PERMISSIONS, roles_ensure, user_role

pytestmark = pytest.mark.django_db


def test_groups_exist_after_migrate_with_exactly_their_permissions():
    for role, codenames in ROLE_PERMISSIONS.items():
        group = Group.objects.get(name=role)
        assert sorted(group.permissions.values_list("codename", flat=True)) == sorted(codenames)


def test_roles_ensure_repairs_a_tampered_group():
    viewer = Group.objects.get(name="viewer")
    viewer.permissions.add(*Group.objects.get(name="admin").permissions.all())
    roles_ensure()
    assert list(viewer.permissions.values_list("codename", flat=True)) == ["view_fabric_data"]


def test_ui_roles_command(capsys):
    call_command("ui_roles")
    assert "admin: view_fabric_data, operate_fabric" in capsys.readouterr().out


def test_demo_user_prints_a_working_password(capsys, client):
    call_command("demo_user")
    password = capsys.readouterr().out.strip().rsplit(" ", 1)[-1]
    assert len(password) >= 10
    assert client.login(username="admin", password=password)
    assert client.get("/").status_code == 200


def test_demo_user_fixed_password_and_roles(django_user_model):
    call_command("demo_user", password="demo-pass-1")
    assert user_role(django_user_model.objects.get(username="admin")) == "admin"
    assert user_role(django_user_model.objects.get(username="operator")) == "operator"
    assert user_role(django_user_model.objects.get(username="viewer")) == "viewer"
    assert django_user_model.objects.get(username="viewer").check_password("demo-pass-1")


def test_log_in_and_out(client, django_user_model):
    call_command("demo_user", password="demo-pass-2")
    response = client.post("/login/", {"username": "viewer", "password": "wrong"})
    assert response.status_code == 200 and "Wrong username or password" in response.content.decode()
    response = client.post("/login/", {"username": "viewer", "password": "demo-pass-2"})
    assert response.status_code == 302 and response["Location"] == "/"
    response = client.post("/logout/")
    assert response.status_code == 302
    assert client.get("/").status_code == 302
