"""Concurrent deletes never end in a server error (issue 29 item 6): the audit saw PostgreSQL deadlocks, as 500s,
on ``DELETE /api/fabric-intents/{id}/`` and ``DELETE /api/networks/{id}/`` sent at the same time. Real threads,
real PostgreSQL transactions (skipped on SQLite, which serialises writers); run with a DATABASE_URL of its own."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, connections
from rest_framework.test import APIClient

from common.api import AtomicModelViewSet
from common.tokens import token_issue
from compiler.clos import ClosParams, plan_clos
from intents import services as intent_services
from intents.api.views import IntentModelViewSet
from intents.models import FabricIntent, Network
from inventory.models import Fabric, Switch
from inventory.services import inventory_persist

RACES = 10

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql",
                                reason="row locks and concurrent transactions need PostgreSQL (SQLite serialises)")


@pytest.fixture
def token(transactional_db, django_user_model):
    user = django_user_model.objects.create_superuser(username="deleter", password="x")
    return token_issue(user=user)[0]


def _race(token: str, requests: list[Callable[[APIClient], object]]) -> list:
    """Each request in its own thread (own connection), released together; the responses, or the exception."""
    barrier = threading.Barrier(len(requests))
    responses: list = [None] * len(requests)

    def run(index: int) -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        client.raise_request_exception = False  # a server error is a 500 response, as a deployment answers
        try:
            barrier.wait(timeout=30)
            responses[index] = requests[index](client)
        except Exception as error:  # reported by the caller
            responses[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return responses


def _intent(name: str) -> FabricIntent:
    if not Fabric.objects.filter(name="dels").exists():
        inventory_persist(inventory=plan_clos(ClosParams(name="dels", spines=1, leaves=2, servers_per_leaf=0)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="dels"), name=name)
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    leaves = list(Switch.objects.filter(fabric__name="dels", role="leaf"))
    for number in range(3):
        intent_services.network_create(tenant=tenant, name=f"net{number}", vlan_id=100 + number,
                                       subnet=f"172.16.{number}.0/24", leaves=leaves)
    return intent


def _codes(responses) -> list:
    return [getattr(response, "status_code", repr(response)) for response in responses]


def _tally(races: list[list]) -> dict:
    flat = [code for race in races for code in race]
    return {"races": len(races), "server_errors": sum(1 for code in flat if not isinstance(code, int) or code >= 500),
            "codes": sorted({str(code) for code in flat})}


def _delete(url: str):
    return lambda client: client.delete(url)


def test_the_same_intent_deleted_twice_at_once(token):
    races = []
    for race in range(RACES):
        intent = _intent(f"twice{race}")
        races.append(_codes(_race(token, [_delete(f"/api/fabric-intents/{intent.pk}/")] * 2)))
        assert not FabricIntent.objects.filter(pk=intent.pk).exists()
    tally = _tally(races)
    print(f"\nthe same intent deleted twice: {tally}")
    assert tally["server_errors"] == 0, races
    assert all(sorted(codes) == [204, 404] for codes in races), races


def test_an_intent_and_its_network_deleted_at_once(token):
    races = []
    for race in range(RACES):
        intent = _intent(f"both{race}")
        network = Network.objects.filter(fabric_intent=intent).first()
        races.append(_codes(_race(token, [_delete(f"/api/fabric-intents/{intent.pk}/"),
                                          _delete(f"/api/networks/{network.pk}/")])))
        assert not FabricIntent.objects.filter(pk=intent.pk).exists()
    tally = _tally(races)
    print(f"\nan intent and its network: {tally}")
    assert tally["server_errors"] == 0, races


def test_networks_of_one_intent_deleted_at_once(token):
    races = []
    for race in range(RACES):
        intent = _intent(f"nets{race}")
        urls = [f"/api/networks/{pk}/" for pk in Network.objects.filter(fabric_intent=intent).values_list("pk", flat=True)]
        races.append(_codes(_race(token, [_delete(url) for url in urls] + [_delete(urls[0])])))
        assert not Network.objects.filter(fabric_intent=intent).exists()
    tally = _tally(races)
    print(f"\nthree networks of one intent (one of them twice): {tally}")
    assert tally["server_errors"] == 0, races


def test_without_the_intent_lock_first_the_same_race_deadlocks(token, monkeypatch):
    """Deliberately broken: the object locked before its intent (the order before the fix) deadlocks again."""
    monkeypatch.setattr(IntentModelViewSet, "lock_current", AtomicModelViewSet.lock_current)
    races = []
    for race in range(RACES):
        intent = _intent(f"broken{race}")
        network = Network.objects.filter(fabric_intent=intent).first()
        races.append(_codes(_race(token, [_delete(f"/api/fabric-intents/{intent.pk}/"),
                                          _delete(f"/api/networks/{network.pk}/")])))
    tally = _tally(races)
    print(f"\nbroken lock order: {tally}")
    assert tally["server_errors"] > 0, races
