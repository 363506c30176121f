"""The version check itself (common/versioning.py) on every write path below the API: model saves, the intents
and inventory services, bulk imports, the blast-radius preview, and the OpenAPI schema that documents it."""

import pytest
from django.db import models
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from rest_framework.test import APIClient

from changes.audit import audit_actor
from common import api as twin_api
from common.tokens import token_issue
from common.versioning import StaleVersionError, VersionedModel
from compiler.clos import ClosParams, plan_clos
from intents import services as intent_services
from intents.models import FabricIntent, Tenant
from inventory.models import Cable, Fabric, Interface, Rack, Site, Switch
from inventory.services import cable_connect, inventory_persist

pytestmark = pytest.mark.django_db


def _two_copies(obj):
    return type(obj).objects.get(pk=obj.pk), type(obj).objects.get(pk=obj.pk)


def test_a_save_from_a_stale_read_is_refused_and_writes_nothing(django_user_model):
    site = Site.objects.create(name="dc1")
    assert site.version == 1
    alice_copy, bob_copy = _two_copies(site)
    alice = django_user_model.objects.create_user(username="alice")
    with audit_actor(alice):
        alice_copy.description = "alice"
        alice_copy.save()
    assert alice_copy.version == 2
    bob_copy.description = "bob"
    with pytest.raises(StaleVersionError) as caught:
        bob_copy.save()
    error = caught.value
    assert (error.claimed, error.current, error.last_change.username) == (1, 2, "alice")
    assert "was changed by alice at " in str(error) and "you sent version 1, the current version is 2" in str(error)
    assert bob_copy.version == 1  # unchanged: the caller can re-read and retry
    site.refresh_from_db()
    assert (site.description, site.version) == ("alice", 2)


def test_broken_a_plain_save_lets_the_stale_read_overwrite(monkeypatch):
    """Deliberately broken: without VersionedModel.save's check the stale copy silently wins."""
    monkeypatch.setattr(VersionedModel, "save", models.Model.save)
    site = Site.objects.create(name="dc1")
    alice_copy, bob_copy = _two_copies(site)
    alice_copy.description = "alice"
    alice_copy.save()
    bob_copy.description = "bob"
    bob_copy.save()
    site.refresh_from_db()
    assert site.description == "bob"  # alice's edit is lost


def test_saving_a_deleted_object_is_refused_instead_of_resurrecting_it():
    site = Site.objects.create(name="dc1")
    stale = Site.objects.get(pk=site.pk)
    site.delete()
    with pytest.raises(StaleVersionError, match="was deleted") as caught:
        stale.save()
    assert caught.value.current is None
    assert not Site.objects.exists()


def test_update_fields_saves_are_checked_too():
    site = Site.objects.create(name="dc1")
    first, second = _two_copies(site)
    first.save(update_fields=["description"])
    with pytest.raises(StaleVersionError):
        second.save(update_fields=["description"])


# ------------------------------------------------------------------------------------------------- services


@pytest.fixture
def tenant():
    inventory_persist(inventory=plan_clos(ClosParams(name="vfab", spines=1, leaves=2, servers_per_leaf=0)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="vfab"), name="v-intent")
    return intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")


def test_intent_service_refuses_a_stale_instance_and_rolls_back(tenant):
    stale = Tenant.objects.get(pk=tenant.pk)
    intent_services.intent_object_save(instance=tenant, values={"vrf": "TENANT_NEW"})
    with pytest.raises(StaleVersionError):
        intent_services.intent_object_save(instance=stale, values={"vrf": "TENANT_STALE"})
    assert Tenant.objects.get(pk=tenant.pk).vrf == "TENANT_NEW"


def test_intent_service_takes_the_version_the_caller_read(tenant):
    intent = tenant.fabric_intent
    read = FabricIntent.objects.get(pk=intent.pk).version
    intent_services.fabric_intent_update(fabric_intent=FabricIntent.objects.get(pk=intent.pk), description="first")
    with pytest.raises(StaleVersionError):
        intent_services.fabric_intent_update(fabric_intent=FabricIntent.objects.get(pk=intent.pk), version=read,
                                             description="second")
    assert FabricIntent.objects.get(pk=intent.pk).description == "first"
    intent_services.fabric_intent_update(fabric_intent=FabricIntent.objects.get(pk=intent.pk), version=read + 1,
                                         description="second")
    assert FabricIntent.objects.get(pk=intent.pk).description == "second"


def test_a_bulk_import_bumps_the_version_of_what_it_changed_only():
    inventory_persist(inventory=plan_clos(ClosParams(name="bulk", spines=1, leaves=2, servers_per_leaf=0,
                                                     rack_power_budget_kw=40.0)))
    stale_rack = Rack.objects.filter(fabric__name="bulk").first()
    inventory_persist(inventory=plan_clos(ClosParams(name="bulk", spines=1, leaves=2, servers_per_leaf=0,
                                                     rack_power_budget_kw=30.0)))
    assert set(Rack.objects.filter(fabric__name="bulk").values_list("version", flat=True)) == {2}
    assert set(Switch.objects.filter(fabric__name="bulk").values_list("version", flat=True)) == {1}
    stale_rack.row = "edited in a form opened before the import"
    with pytest.raises(StaleVersionError):
        stale_rack.save()


def test_plugging_a_cable_bumps_the_ports_and_keeps_the_callers_instances_saveable():
    inventory_persist(inventory=plan_clos(ClosParams(name="plug", spines=1, leaves=2, servers_per_leaf=0)))
    leaf1, leaf2 = (Interface.objects.filter(switch__hostname=host, cable__isnull=True).first()
                    for host in ("leaf1", "leaf2"))
    stale = Interface.objects.get(pk=leaf1.pk)
    cable = Cable.objects.create(label="peer-1", cable_type="dac", length_m=1.0, peer_link=True)
    cable_connect(cable=cable, a_end=leaf1, b_end=leaf2)
    leaf1.description = "peer link"
    leaf1.save()  # the service refreshed the caller's version
    stale.description = "would unplug the cable"
    with pytest.raises(StaleVersionError):
        stale.save()
    assert Interface.objects.get(pk=leaf1.pk).cable_id == cable.pk


# -------------------------------------------------------------------------------------------- API, schema


@pytest.fixture
def api(django_user_model):
    user = django_user_model.objects.create_superuser(username="engineer", password="x")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user)[0]}")
    return client


def test_intent_api_refuses_stale_writes(api, tenant):
    url = f"/api/tenants/{tenant.pk}/"
    read = api.get(url)
    assert read["ETag"] == f'W/"{read.data["version"]}"'
    assert api.patch(url, {"vrf": "TENANT_B"}, format="json").status_code == 200  # no claim: still works
    response = api.patch(url, {"vrf": "TENANT_C", "version": read.data["version"]}, format="json")
    assert response.status_code == 409 and response.data["changed_by"] == "engineer", response.data
    response = api.put(url, {**read.data, "vrf": "TENANT_C"}, format="json", HTTP_IF_MATCH=read["ETag"])
    assert response.status_code == 412, response.data
    assert Tenant.objects.get(pk=tenant.pk).vrf == "TENANT_B"


def test_blast_radius_preview_of_a_stale_edit_is_409(api, tenant):
    intent = tenant.fabric_intent
    stale_version = tenant.version
    intent_services.intent_object_save(instance=tenant, values={"vrf": "TENANT_NEW"})
    response = api.post(f"/api/fabric-intents/{intent.pk}/blast-radius/", {"changes": [{
        "op": "update", "object": "tenant", "id": tenant.pk, "data": {"vrf": "X", "version": stale_version}}]},
        format="json")
    assert response.status_code == 409, response.data


def _schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def test_openapi_schema_describes_the_version_protocol():
    schema = _schema()
    detail = schema["paths"]["/api/switches/{id}/"]
    for method in ("put", "patch", "delete"):
        assert any(p["name"] == "If-Match" and p["in"] == "header" for p in detail[method]["parameters"]), method
        assert {"409", "412"} <= set(detail[method]["responses"]), method
    assert "ETag" in detail["get"]["responses"]["200"]["headers"]
    assert "ETag" in detail["patch"]["responses"]["200"]["headers"]
    assert "version" in schema["components"]["schemas"]["PatchedSwitchRequest"]["properties"]
    assert "version" in schema["components"]["schemas"]["Switch"]["properties"]
    assert "current_version" in schema["components"]["schemas"]["StaleVersion"]["properties"]
    # every versioned detail write in the API documents it
    for path, operations in schema["paths"].items():
        if "patch" in operations and path.startswith(("/api/tenants/", "/api/networks/", "/api/racks/")):
            assert "412" in operations["patch"]["responses"], path


def test_broken_plain_autoschema_would_not_document_it(monkeypatch):
    monkeypatch.setattr(twin_api.AtomicModelViewSet, "schema", AutoSchema())
    detail = _schema()["paths"]["/api/switches/{id}/"]
    assert not any(p["name"] == "If-Match" for p in detail["patch"].get("parameters", []))
    assert "412" not in detail["patch"]["responses"]


# ---------------------------------------------------------------------------------------------- Django admin


@pytest.fixture
def admin_clients(client, django_user_model):
    from django.test import Client

    alice = django_user_model.objects.create_superuser(username="alice", password="x")
    bob = django_user_model.objects.create_superuser(username="bob", password="x")
    client.force_login(alice)
    other = Client()
    other.force_login(bob)
    return client, other


def _admin_form(response) -> dict:
    form = response.context["adminform"].form
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is not None and value is not False:
            data[name] = "on" if value is True else str(value)
    return data


def test_admin_change_form_refuses_a_stale_submit(admin_clients):
    alice, bob = admin_clients
    site = Site.objects.create(name="dc1")
    url = f"/admin/inventory/site/{site.pk}/change/"
    alice_form, bob_form = _admin_form(alice.get(url)), _admin_form(bob.get(url))
    assert bob_form["opened_version"] == "1"
    assert alice.post(url, {**alice_form, "description": "alice"}).status_code == 302
    response = bob.post(url, {**bob_form, "description": "bob"})
    assert response.status_code == 200
    assert "was changed by alice at " in response.content.decode()
    assert Site.objects.get(pk=site.pk).description == "alice"


def test_broken_admin_form_without_the_version_overwrites(admin_clients):
    alice, bob = admin_clients
    site = Site.objects.create(name="dc1")
    url = f"/admin/inventory/site/{site.pk}/change/"
    alice_form, bob_form = _admin_form(alice.get(url)), _admin_form(bob.get(url))
    del bob_form["opened_version"]
    assert alice.post(url, {**alice_form, "description": "alice"}).status_code == 302
    assert bob.post(url, {**bob_form, "description": "bob"}).status_code == 302
    assert Site.objects.get(pk=site.pk).description == "bob"  # alice's edit lost


def test_intent_admin_refuses_a_stale_submit_and_its_trial_save_keeps_the_form_saveable(admin_clients, tenant):
    alice, bob = admin_clients
    url = f"/admin/intents/tenant/{tenant.pk}/change/"
    alice_form, bob_form = _admin_form(alice.get(url)), _admin_form(bob.get(url))
    assert alice.post(url, {**alice_form, "vrf": "TENANT_ALICE"}).status_code == 302  # trial save + real save
    response = bob.post(url, {**bob_form, "vrf": "TENANT_BOB"})
    assert response.status_code == 200 and "was changed by alice" in response.content.decode()
    assert Tenant.objects.get(pk=tenant.pk).vrf == "TENANT_ALICE"
