"""Fixtures for the UI tests: a small persisted Clos, a fabric intent, and one logged-in client per role."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from compiler.clos import ClosParams
from intents import services as intent_services
from inventory.builder import fabric_build

FABRIC = "uifab"
INTENT = "uifab-intent"


@pytest.fixture
def fabric(db):
    return fabric_build(params=ClosParams(name=FABRIC, spines=2, leaves=4, servers_per_leaf=2)).inventory


@pytest.fixture
def fabric_intent(fabric):
    from inventory.models import Fabric

    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name=FABRIC), name=INTENT)
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    intent_services.roce_defaults_apply(fabric_intent=intent)
    return intent


def _client_for(django_user_model, role: str | None) -> Client:
    user = django_user_model.objects.create_user(username=f"user-{role}", password="pw-not-used")
    if role:
        user.groups.set([Group.objects.get(name=role)])
    client = Client()
    client.force_login(user)
    client.user = user
    return client


@pytest.fixture
def viewer(db, django_user_model):
    return _client_for(django_user_model, "viewer")


@pytest.fixture
def operator(db, django_user_model):
    return _client_for(django_user_model, "operator")


@pytest.fixture
def admin(db, django_user_model):
    return _client_for(django_user_model, "admin")


@pytest.fixture
def nobody(db, django_user_model):
    return _client_for(django_user_model, None)
