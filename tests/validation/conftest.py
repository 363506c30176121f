"""Fixtures for the validation app tests: a persisted 2x4 reference Clos with one intent (tenant, network, RoCE)."""

import pytest
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from common.tokens import token_issue
from compiler.clos import ClosParams, plan_clos
from intents import services as intent_services
from inventory.models import Fabric
from inventory.services import inventory_persist


@pytest.fixture
def validation_intent(db):
    inventory_persist(inventory=plan_clos(ClosParams(name="vref", spines=2, leaves=4)))
    fabric = Fabric.objects.get(name="vref")
    intent = intent_services.fabric_intent_create(fabric=fabric, name="vref-intent")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    intent_services.roce_defaults_apply(fabric_intent=intent)
    return intent


@pytest.fixture
def broken_headroom(validation_intent):
    """A static PFC headroom far too small for any 400G port: every lossless port fails roce.headroom."""
    roce = validation_intent.roce_classes.get(lossless=True)
    intent_services.intent_object_save(instance=roce, values={"headroom_policy": "static", "headroom_bytes": 20_000})
    return validation_intent


@pytest.fixture
def validation_api(db, django_user_model):
    user = django_user_model.objects.create_user(username="validator", password="x")
    user.groups.add(Group.objects.get(name="operator"))  # operators edit intents, compile and validate
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user)[0]}")
    return client
