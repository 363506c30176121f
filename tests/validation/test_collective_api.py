"""POST /api/fabrics/{id}/collective/: a job's prediction, the heat map's link loads and the what-ifs side by side;
bad input and work above the bound are field-named 400s, an unknown fabric a 404."""

import pytest
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from common.tokens import token_issue
from compiler.clos import ClosParams, plan_clos
from compiler.pods import PodsParams, plan_pods
from inventory.models import Fabric
from inventory.services import inventory_persist

RING = [f"gpu{leaf * 4 + slot + 1:04d}" for slot in range(4) for leaf in range(8)]  # one server per leaf in turn


def client_of(django_user_model, role: str) -> APIClient:
    user = django_user_model.objects.create_user(username=f"user-{role}", password="x")
    user.groups.add(Group.objects.get(name=role))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user)[0]}")
    return client


@pytest.fixture
def operator_api(db, django_user_model):
    return client_of(django_user_model, "operator")  # a prediction spends CPU: operators run it (common/policy.py)


@pytest.fixture
def two_tier(db):
    inventory_persist(inventory=plan_clos(ClosParams(name="coll", spines=4, leaves=8, servers_per_leaf=4)))
    return Fabric.objects.get(name="coll")


def url(fabric_id: int) -> str:
    return f"/api/fabrics/{fabric_id}/collective/"


def test_a_spread_ring_gives_tiers_link_loads_and_what_ifs(operator_api, two_tier):
    response = operator_api.post(url(two_tier.pk), {"servers": RING, "channels": 1, "trials": 8, "limit": 1.5},
                               format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["report"]["checks"][0]["status"] == "failed"  # 32 single flows on 4 uplinks: collisions
    tiers = {tier["tier"]: tier for tier in body["prediction"]["tiers"]}
    assert tiers["leaf->spine"]["links"] == 32
    loads = body["link_loads"]["leaf->spine"]
    assert len(loads) == 32 and loads[0]["mean_load"] >= loads[-1]["mean_load"]
    assert max(row["max_load"] for row in loads) >= 2  # the busiest link carries >= 2 ring flows in some trial
    rows = {row["name"]: row for row in body["what_if"]}
    assert list(rows) == ["as-given", "qps", "distinct-seeds", "dlb", "dual-plane"]
    assert rows["qps"]["bottleneck_p95"] < rows["as-given"]["bottleneck_p95"]
    assert rows["dlb"]["bottleneck_p95"] < rows["as-given"]["bottleneck_p95"]
    assert rows["dual-plane"]["skipped"].startswith("not applicable")  # 2-tier: one way up after the first hop


def test_five_stage_what_ifs_remove_polarization(operator_api, db):
    inventory_persist(inventory=plan_pods(PodsParams(name="pods", pods=2, super_spines_per_plane=4,
                                                     pod=ClosParams(spines=4, leaves=8, servers_per_leaf=4))))
    fabric = Fabric.objects.get(name="pods")
    response = operator_api.post(url(fabric.pk), {"gpus": 512, "collective": "alltoall-pxn", "qps": 4, "trials": 4,
                                                "hash_function": "random", "hash_seed": 7}, format="json")
    assert response.status_code == 200, response.json()
    rows = {row["name"]: row for row in response.json()["what_if"]}
    assert rows["as-given"]["polarization"] >= 0.8 and rows["as-given"]["idle_links"] >= 16
    assert rows["distinct-seeds"]["polarization"] <= 0.1 and rows["distinct-seeds"]["idle_links"] == 0
    assert rows["dual-plane"]["polarization"] is None and rows["dual-plane"]["idle_links"] == 0
    assert rows["dual-plane"]["bottleneck_p50"] < rows["as-given"]["bottleneck_p50"] / 2


@pytest.mark.parametrize(("body", "field"), [
    ({"gpus": 64, "collective": "broadcast"}, "collective"),
    ({"gpus": 64, "qps": 0}, "qps"),
    ({"gpus": 64, "qps": "many"}, "qps"),
    ({}, "gpus"),
    ({"gpus": 100_000}, "job.gpus"),
    ({"gpus": 64, "sport": "pinned"}, "pinned_sports"),
    ({"gpus": 64, "sport": "pinned", "pinned_sports": [80]}, "pinned_sports"),
    ({"gpus": 64, "hash_function": "md5"}, "hash_function"),
    ({"gpus": 64, "hash_seed": -1}, "hash_seed"),
    ({"gpus": 64, "trials": 1000}, "trials"),
    ({"servers": ["nope"]}, "job.servers"),
    ({"servers": ["gpu0001", "gpu0002", "gpu0001"]}, "job.servers"),
    ({"gpus": 64, "hash_offset": 20}, "hash_offset"),  # CRC-16: offsets 0..15
    ({"gpus": 64, "hash_fields": "vxlan-outer"}, "hash_fields"),  # needs encapsulation=vxlan
    ({"gpus": 64, "limit": "NaN"}, "limit"),
    ({"gpus": 64, "servers": ["gpu0001"]}, "gpus"),  # one of them
    ({"gpus": 128, "collective": "alltoall", "qps": 64, "trials": 64}, "trials"),  # above the work bound
])
def test_bad_input_is_a_400_naming_the_field(operator_api, two_tier, body, field):
    response = operator_api.post(url(two_tier.pk), body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json(), response.json()


def test_unknown_fabric_is_a_404_and_viewers_and_anonymous_are_refused(operator_api, two_tier, django_user_model):
    assert operator_api.post(url(two_tier.pk + 1000), {"gpus": 8}, format="json").status_code == 404
    assert APIClient().post(url(two_tier.pk), {"gpus": 8}, format="json").status_code in (401, 403)
    viewer = client_of(django_user_model, "viewer")
    assert viewer.post(url(two_tier.pk), {"gpus": 8}, format="json").status_code == 403
