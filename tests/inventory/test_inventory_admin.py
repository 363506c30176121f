"""Django admin: every inventory model has a working changelist, search, add form and change form."""

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import reverse

from compiler.clos import ClosParams
from inventory.builder import fabric_build
from inventory.models import (
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

MODELS = (Site, Fabric, Rack, SwitchModel, Platform, Switch, Interface, Optic, Cable, Server, NicPort)


@pytest.fixture
def admin_client_with_fabric(client, db):
    fabric_build(params=ClosParams(name="adm", spines=2, leaves=2, servers_per_leaf=1))
    user = get_user_model().objects.create_superuser(username="root", email="root@example.com")
    client.force_login(user)
    return client


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_admin_pages_render(admin_client_with_fabric, model):
    assert admin.site.is_registered(model)
    prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
    client = admin_client_with_fabric
    assert client.get(reverse(f"{prefix}_changelist")).status_code == 200
    assert client.get(reverse(f"{prefix}_changelist"), {"q": "leaf1"}).status_code == 200
    assert client.get(reverse(f"{prefix}_add")).status_code == 200
    obj = model.objects.first()
    assert client.get(reverse(f"{prefix}_change", args=[obj.pk])).status_code == 200


def test_admin_requires_login(client, db):
    response = client.get(reverse("admin:inventory_switch_changelist"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_netbox_sync_runs_are_read_only_in_the_admin(admin_client_with_fabric):
    run = NetboxSync.objects.create(fabric_name="adm", source="nb", trigger="command", status="succeeded",
                                    dry_run=False, summary={"text": "applied: 1 create"})
    prefix = "admin:inventory_netboxsync"
    client = admin_client_with_fabric
    assert "applied: 1 create" in client.get(reverse(f"{prefix}_changelist")).content.decode()
    assert client.get(reverse(f"{prefix}_change", args=[run.pk])).status_code == 200  # view only
    assert client.get(reverse(f"{prefix}_add")).status_code == 403
