"""Two people editing the same object in the UI: the second, stale submit is refused with who changed it, and
the form comes back with the current values (common/versioning.py VersionedModelForm)."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from inventory.models import Cable

INTENT = "uifab-intent"  # as built by tests/ui/conftest.py
pytestmark = pytest.mark.django_db


def _admin(django_user_model, username: str) -> Client:
    user = django_user_model.objects.create_user(username=username, password="pw-not-used")
    user.groups.set([Group.objects.get(name="admin")])
    client = Client()
    client.force_login(user)
    return client


def _form_data(response) -> dict:
    """What the browser would submit: every field's current value, the hidden version included."""
    form = response.context["form"]
    data = {}
    for name in form.fields:
        value = form[name].value()
        if isinstance(value, bool):
            if value:
                data[name] = "on"
        elif isinstance(value, list | tuple):
            data[name] = [str(item) for item in value]
        else:
            data[name] = "" if value is None else str(value)
    return data


def test_stale_tenant_form_is_refused_naming_who_changed_it(django_user_model, fabric_intent):
    alice, bob = _admin(django_user_model, "alice"), _admin(django_user_model, "bob")
    tenant = fabric_intent.tenants.get(name="A")
    url = f"/intents/{INTENT}/tenants/{tenant.pk}/"
    alice_form, bob_form = _form_data(alice.get(url)), _form_data(bob.get(url))
    assert alice_form["opened_version"] == bob_form["opened_version"] == str(tenant.version)

    assert alice.post(url, {**alice_form, "vrf": "TENANT_ALICE"}).status_code == 302
    response = bob.post(url, {**bob_form, "vrf": "TENANT_BOB"})

    assert response.status_code == 409
    page = response.content.decode()
    assert "changed by alice at " in page and "since you opened this form" in page
    assert "Your edit was: Vrf: TENANT_BOB" in page
    tenant.refresh_from_db()
    assert tenant.vrf == "TENANT_ALICE"  # alice's edit stands
    shown = _form_data(response)
    assert shown["vrf"] == "TENANT_ALICE" and shown["opened_version"] == str(tenant.version)  # the current values

    # bob re-applies his edit on top of the current version: accepted
    assert bob.post(url, {**shown, "vrf": "TENANT_BOB"}).status_code == 302
    tenant.refresh_from_db()
    assert (tenant.vrf, tenant.version) == ("TENANT_BOB", int(shown["opened_version"]) + 1)


def test_broken_a_form_without_the_version_silently_overwrites(django_user_model, fabric_intent):
    """Deliberately broken: bob's stale form does not carry the version it was opened on (a POST not from our
    pages); with nothing to compare, it reverts alice's edit. The hidden field is what protects the form."""
    alice, bob = _admin(django_user_model, "alice"), _admin(django_user_model, "bob")
    tenant = fabric_intent.tenants.get(name="A")
    url = f"/intents/{INTENT}/tenants/{tenant.pk}/"
    alice_form, bob_form = _form_data(alice.get(url)), _form_data(bob.get(url))
    del bob_form["opened_version"]
    assert alice.post(url, {**alice_form, "vrf": "TENANT_ALICE"}).status_code == 302
    assert bob.post(url, {**bob_form, "vrf": "TENANT_BOB"}).status_code == 302  # told "saved"
    tenant.refresh_from_db()
    assert tenant.vrf == "TENANT_BOB"  # alice's edit was silently reverted


def test_stale_fabric_intent_settings_are_refused(django_user_model, fabric_intent):
    alice, bob = _admin(django_user_model, "alice"), _admin(django_user_model, "bob")
    url = f"/intents/{INTENT}/settings/"
    alice_form, bob_form = _form_data(alice.get(url)), _form_data(bob.get(url))
    assert alice.post(url, {**alice_form, "host_mtu": "9100"}).status_code == 302
    response = bob.post(url, {**bob_form, "description": "bob was here"})
    assert response.status_code == 409 and "changed by alice" in response.content.decode()
    fabric_intent.refresh_from_db()
    assert (fabric_intent.host_mtu, fabric_intent.description) == (9100, "")
    assert _form_data(response)["host_mtu"] == "9100"


def test_stale_cable_form_is_refused_and_shows_the_current_values(django_user_model, fabric_intent):
    alice, bob = _admin(django_user_model, "alice"), _admin(django_user_model, "bob")
    cable = Cable.objects.first()
    url = f"/inventory/cables/{cable.pk}/edit/"
    alice_form, bob_form = _form_data(alice.get(url)), _form_data(bob.get(url))
    assert alice.post(url, {**alice_form, "length_m": "7.5"}).status_code == 302
    response = bob.post(url, {**bob_form, "status": "installed"})
    assert response.status_code == 409
    assert "changed by alice" in response.content.decode()
    cable.refresh_from_db()
    assert cable.length_m == 7.5 and cable.status != "installed"
    assert _form_data(response)["length_m"] == "7.5"


def test_a_bad_version_value_is_a_form_error_not_a_crash(django_user_model, fabric_intent):
    alice = _admin(django_user_model, "alice")
    tenant = fabric_intent.tenants.get(name="A")
    url = f"/intents/{INTENT}/tenants/{tenant.pk}/"
    response = alice.post(url, {**_form_data(alice.get(url)), "opened_version": "abc"})
    assert response.status_code == 200 and "opened_version" in response.context["form"].errors
    assert "Enter a whole number" in response.content.decode()
