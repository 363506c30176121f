"""Fixtures for the intents tests: a persisted reference Clos and a fabric intent with a tenant and a network."""

import pytest
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from common.tokens import token_issue
from compiler.clos import ClosParams, plan_clos
from intents import services
from inventory.models import Fabric
from inventory.services import inventory_persist

FABRIC = "ref"


def build_fabric(leaves: int = 4, **params) -> Fabric:
    """Persist the planned Clos (idempotent and growable: a bigger ``leaves`` only adds objects)."""
    inventory_persist(inventory=plan_clos(ClosParams(name=FABRIC, leaves=leaves, **params)))
    return Fabric.objects.get(name=FABRIC)


@pytest.fixture
def fabric_builder(db):
    """build_fabric(leaves=N): persist (or grow) the reference Clos."""
    return build_fabric


@pytest.fixture
def fabric(db):
    return build_fabric()


@pytest.fixture
def fabric_intent(fabric):
    intent = services.fabric_intent_create(fabric=fabric, name="ref-intent")
    tenant = services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24", gateway="10.10.0.1")
    services.roce_defaults_apply(fabric_intent=intent)
    return intent


@pytest.fixture
def api(db, django_user_model):
    user = django_user_model.objects.create_user(username="engineer", password="x")
    user.groups.add(Group.objects.get(name="operator"))  # operators edit intents, compile and validate
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user)[0]}")
    return client
