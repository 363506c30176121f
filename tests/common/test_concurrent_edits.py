"""Two operators editing the same object at the same time: real threads, real PostgreSQL transactions.

Each race sends two PATCHes of one object through the API from two threads released together by a barrier.
A *lost update* is a race where a writer was told its edit was saved (2xx) but the final row does not contain
it. Optimistic concurrency (common/versioning.py, common/api.py) must make that count 0:

- both writers start from the same version and send it (``version`` field or ``If-Match``): exactly one wins,
  the other gets 409 / 412 naming the current version, and the row holds the winner's edit;
- writers that send no version edit different fields: both are applied (the second re-reads the row under a
  lock), so neither edit is lost.

The deliberately broken cases switch the row lock off and show the race is observable, so these tests can fail.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, connections, models
from rest_framework.test import APIClient

from common import api as twin_api
from common import versioning
from common.tokens import token_issue
from compiler.clos import ClosParams, plan_clos
from intents import services as intent_services
from intents.models import Tenant
from inventory.models import Fabric, Rack, Site
from inventory.services import inventory_persist

RACES = 40

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql",
                                reason="row locks and concurrent transactions need PostgreSQL (SQLite serialises)")


@pytest.fixture
def token(transactional_db, django_user_model):
    user = django_user_model.objects.create_superuser(username="racer", password="x")
    return token_issue(user=user)[0]


def _client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _race(token: str, requests: list[Callable[[APIClient], object]]) -> list:
    """Run each request in its own thread (own DB connection), all released at once; return the responses."""
    barrier = threading.Barrier(len(requests))
    responses: list = [None] * len(requests)
    errors: list = []

    def run(index: int) -> None:
        client = _client(token)
        try:
            barrier.wait(timeout=30)
            responses[index] = requests[index](client)
        except Exception as error:  # reported by the main thread
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return responses


def _same_version_races(token: str, url: str, field: str, values: Callable[[int], tuple[str, str]],
                        read: Callable[[], str], *, use_if_match: bool) -> dict:
    """RACES races of two PATCHes of ``field`` starting from the same version; count wins, refusals, losses."""
    tally = {"races": 0, "lost": 0, "one_winner": 0, "refused_codes": set()}
    reader = _client(token)
    for race in range(RACES):
        current = reader.get(url)
        assert current.status_code == 200, current.data
        version = current.data.get("version")
        edits = values(race)

        def patch(edit: str, version=version):
            def send(client: APIClient):
                if use_if_match:
                    return client.patch(url, {field: edit}, format="json", HTTP_IF_MATCH=f'W/"{version}"')
                return client.patch(url, {field: edit, "version": version}, format="json")
            return send

        responses = _race(token, [patch(edits[0]), patch(edits[1])])
        final = read()
        tally["races"] += 1
        saved = [edit for edit, response in zip(edits, responses, strict=True) if 200 <= response.status_code < 300]
        if any(edit != final for edit in saved):
            tally["lost"] += 1  # a writer was told "saved" but its edit is not what is stored
        if len(saved) == 1 and final == saved[0]:
            tally["one_winner"] += 1
            loser = next(response for response in responses if response.status_code >= 300)
            tally["refused_codes"].add(loser.status_code)
            assert loser.data["current_version"] == version + 1, loser.data
            assert loser.data["your_version"] == version, loser.data
            assert loser.data["changed_by"] == "racer", loser.data
    return tally


def _site(name="dc1") -> Site:
    return Site.objects.create(name=name)


def test_forty_races_on_an_inventory_object_lose_nothing(token):
    site = _site()
    tally = _same_version_races(
        token, f"/api/sites/{site.pk}/", "description", lambda race: (f"edit A {race}", f"edit B {race}"),
        lambda: Site.objects.get(pk=site.pk).description, use_if_match=False)
    print(f"\ninventory Site, version field: {tally}")
    assert tally["races"] == RACES
    assert tally["lost"] == 0
    assert tally["one_winner"] == RACES
    assert tally["refused_codes"] == {409}
    assert Site.objects.get(pk=site.pk).version == RACES + 1


def test_forty_races_with_if_match_lose_nothing(token):
    site = _site()
    tally = _same_version_races(
        token, f"/api/sites/{site.pk}/", "description", lambda race: (f"edit A {race}", f"edit B {race}"),
        lambda: Site.objects.get(pk=site.pk).description, use_if_match=True)
    print(f"\ninventory Site, If-Match: {tally}")
    assert tally["lost"] == 0 and tally["one_winner"] == RACES
    assert tally["refused_codes"] == {412}


@pytest.fixture
def tenant(transactional_db):
    inventory_persist(inventory=plan_clos(ClosParams(name="race", spines=1, leaves=2, servers_per_leaf=0)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="race"), name="race-intent")
    return intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")


def test_forty_races_on_an_intent_object_lose_nothing(token, tenant):
    tally = _same_version_races(
        token, f"/api/tenants/{tenant.pk}/", "vrf", lambda race: (f"VRF_A{race}", f"VRF_B{race}"),
        lambda: Tenant.objects.get(pk=tenant.pk).vrf, use_if_match=False)
    print(f"\nintents Tenant, version field: {tally}")
    assert tally["lost"] == 0 and tally["one_winner"] == RACES
    assert tally["refused_codes"] == {409}


# ------------------------------------------------------------------------------- writers that send no version


def _disjoint_field_races(token: str, *, interleave_reads: bool) -> dict:
    """RACES races of two PATCHes without any version, of different fields of one rack; count lost edits.

    ``interleave_reads`` holds each request after it first reads the object until both have read it, which makes
    the read-modify-write interleaving certain instead of likely.
    """
    site = _site("race-site")
    rack = Rack.objects.create(site=site, name="r0")
    tally = {"races": 0, "lost": 0, "refused": 0}
    barrier, waited = threading.Barrier(2), set()
    original = twin_api.AtomicModelViewSet.get_object_unlocked

    def read_then_wait(view):
        instance = original(view)
        if threading.get_ident() not in waited:  # only the first read; a re-read under the lock must not wait
            waited.add(threading.get_ident())
            barrier.wait(timeout=10)
        return instance

    if interleave_reads:
        twin_api.AtomicModelViewSet.get_object_unlocked = read_then_wait
    try:
        for race in range(RACES):
            row, position = f"row-{race}", race + 1
            waited.clear()
            responses = _race(token, [
                lambda client, row=row: client.patch(f"/api/racks/{rack.pk}/", {"row": row}, format="json"),
                lambda client, position=position: client.patch(f"/api/racks/{rack.pk}/", {"position": position},
                                                               format="json"),
            ])
            final = Rack.objects.get(pk=rack.pk)
            tally["races"] += 1
            tally["refused"] += sum(response.status_code == 409 for response in responses)
            assert all(response.status_code in (200, 409) for response in responses), responses
            tally["lost"] += int((responses[0].status_code == 200 and final.row != row)
                                 or (responses[1].status_code == 200 and final.position != position))
    finally:
        twin_api.AtomicModelViewSet.get_object_unlocked = original
    return tally


def test_writers_without_a_version_edit_different_fields_and_both_edits_survive(token):
    tally = _disjoint_field_races(token, interleave_reads=True)
    print(f"\nno version, different fields, reads interleaved: {tally}")
    assert tally == {"races": RACES, "lost": 0, "refused": 0}


def test_broken_without_the_row_lock_the_version_check_refuses_the_stale_writer(token, monkeypatch):
    """Deliberately broken: skip the lock-and-re-read; the model's conditional UPDATE still refuses the stale
    write (409), so nothing is lost, but versionless writers now see conflicts they did not cause."""
    monkeypatch.setattr(twin_api.AtomicModelViewSet, "lock_current", lambda view, instance: instance)
    tally = _disjoint_field_races(token, interleave_reads=True)
    print(f"\nBROKEN (no row lock), different fields: {tally}")
    assert tally["lost"] == 0
    assert tally["refused"] == RACES


def test_broken_without_lock_and_version_check_edits_are_lost(token, monkeypatch):
    """Deliberately broken twice: no lock and a plain save (the code before versions). The race loses edits."""
    monkeypatch.setattr(twin_api.AtomicModelViewSet, "lock_current", lambda view, instance: instance)
    monkeypatch.setattr(versioning.VersionedModel, "save", models.Model.save)
    tally = _disjoint_field_races(token, interleave_reads=True)
    print(f"\nBROKEN (no lock, no version check), different fields: {tally}")
    assert tally["lost"] == RACES
