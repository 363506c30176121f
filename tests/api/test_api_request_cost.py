"""What one read request costs the server, in queries (issue 29, item 6: the read load the audit measured).

The endpoints are the audit's: the list pages of fabrics, switches, rollouts and findings, as a viewer with a token.
Each answers in a fixed number of queries whatever the page holds: 2 for the request itself (the token with its
user; the user's permissions in one query) plus the endpoint's own (count and page, and their relations selected
with the rows). Each saving has a deliberately broken case: knox's per-request sweep of the caller's tokens, and
Django's two permission queries, each put back, cost one query more.
"""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group
from django.utils import timezone
from knox import auth as knox_auth
from knox.models import AuthToken
from rest_framework.test import APIClient

from changes.models import ChangeSet, Rollout
from common.api import detail_path
from common.security import PermissionsModelBackend
from common.tokens import token_issue
from compiler.clos import ClosParams
from intents import services as intent_services
from inventory.builder import fabric_build
from inventory.models import Fabric
from twin.token_auth import TokenAuthentication
from validation.services import validation_run_create

# The audit's read endpoints -> queries per request: token + user, permissions, then the endpoint's own.
REQUEST_QUERIES = 2
ENDPOINT_QUERIES = {"/api/fabrics/": 2, "/api/switches/": 2, "/api/rollouts/": 2, "findings": 3}


@pytest.fixture
def viewer(db):
    user = get_user_model().objects.create_user(username="cost-viewer")
    user.groups.add(Group.objects.get(name="viewer"))
    return user


@pytest.fixture
def viewer_client(viewer) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=viewer)[0]}")
    return client


def _world(size: int) -> dict:
    """A built fabric with ``size`` leaves, a validation run, and ``size`` rollouts, half from the shell."""
    fabric_build(params=ClosParams(name=f"cost{size}", spines=2, leaves=size, servers_per_leaf=1,
                                   name_prefix=f"c{size}-", mgmt_pool=f"10.{size}.0.0/16",
                                   server_mgmt_pool=f"10.{100 + size}.0.0/16"))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name=f"cost{size}"), name=f"cost{size}")
    intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    run = validation_run_create(fabric_intent=intent)
    creator = get_user_model().objects.create_user(username=f"cost-operator-{size}")
    change_set = ChangeSet.objects.create(name=f"cost{size}")
    for number in range(size):
        Rollout.objects.create(name=f"r{size}-{number}", kind="canary_push", target="twin", state="succeeded",
                               change_set=change_set, plan={}, policy={},
                               started_by=creator if number % 2 else None, approved_by=creator if number % 2 else None)
    return {"findings": f"/api/validation-runs/{run.pk}/findings/"}


def _path(name: str, world: dict) -> str:
    return world.get(name, name)


@pytest.mark.parametrize("endpoint", sorted(ENDPOINT_QUERIES))
def test_read_endpoints_answer_in_a_fixed_number_of_queries(viewer_client, endpoint, django_assert_max_num_queries):
    small, large = _world(2), _world(6)
    for world in (small, large):
        viewer_client.get(_path(endpoint, world))  # first use fills Django's content-type cache
        with django_assert_max_num_queries(REQUEST_QUERIES + ENDPOINT_QUERIES[endpoint]) as captured:
            response = viewer_client.get(_path(endpoint, world), {"limit": 1000})
        assert response.status_code == 200, response.content
        assert response.json()["count"] > 0, captured


def test_knox_per_request_sweep_would_cost_a_query(viewer_client, monkeypatch, django_assert_num_queries):
    _world(2)
    viewer_client.get("/api/fabrics/")
    with django_assert_num_queries(REQUEST_QUERIES + 2):
        assert viewer_client.get("/api/fabrics/").status_code == 200
    # deliberately broken: knox's own check, which reads every token of the caller on each request
    monkeypatch.setattr(TokenAuthentication, "_cleanup_token", knox_auth.TokenAuthentication._cleanup_token)
    with django_assert_num_queries(REQUEST_QUERIES + 3):
        assert viewer_client.get("/api/fabrics/").status_code == 200


def test_django_permission_queries_would_cost_a_query(viewer_client, monkeypatch, django_assert_num_queries):
    _world(2)
    viewer_client.get("/api/fabrics/")
    monkeypatch.setattr(PermissionsModelBackend, "get_all_permissions", ModelBackend.get_all_permissions)
    with django_assert_num_queries(REQUEST_QUERIES + 3):  # deliberately broken: user, then group permissions
        assert viewer_client.get("/api/fabrics/").status_code == 200


def test_one_query_permissions_equal_djangos(viewer, db):
    """The same set as Django's two queries, for a role, a direct permission, a superuser and an inactive user."""
    from django.contrib.auth.models import Permission

    viewer.user_permissions.add(Permission.objects.get(codename="edit_inventory"))
    admin = get_user_model().objects.create_superuser(username="cost-admin", email="a@example.com", password=None)
    inactive = get_user_model().objects.create_user(username="cost-inactive", is_active=False)
    inactive.groups.add(Group.objects.get(name="operator"))
    for user in (viewer, admin, inactive):
        ours = PermissionsModelBackend().get_all_permissions(get_user_model().objects.get(pk=user.pk))
        django = ModelBackend().get_all_permissions(get_user_model().objects.get(pk=user.pk))
        assert ours == django
    assert "common.edit_inventory" in PermissionsModelBackend().get_all_permissions(viewer)
    assert "common.view_fabric_data" in PermissionsModelBackend().get_all_permissions(
        get_user_model().objects.get(pk=viewer.pk))


def test_expired_tokens_are_refused_and_swept_when_a_token_is_issued(viewer, viewer_client):
    expired_token, expired = token_issue(user=viewer)
    AuthToken.objects.filter(pk=expired.pk).update(expiry=timezone.now() - datetime.timedelta(seconds=1))
    refused = APIClient()
    refused.credentials(HTTP_AUTHORIZATION=f"Token {expired_token}")
    other_token, other = token_issue(user=viewer)
    AuthToken.objects.filter(pk=other.pk).update(expiry=timezone.now() - datetime.timedelta(seconds=1))
    assert viewer_client.get("/api/fabrics/").status_code == 200
    assert AuthToken.objects.filter(pk=other.pk).exists()  # no longer swept by every request
    assert refused.get("/api/fabrics/").status_code == 401  # presented: refused and deleted
    assert not AuthToken.objects.filter(pk=expired.pk).exists()
    token_issue(user=viewer)
    assert not AuthToken.objects.filter(pk=other.pk).exists()  # swept when the user gets a new token


def test_detail_paths_equal_reverse(db):
    from django.urls import reverse

    for view_name in ("switch-detail", "fabricintent-detail", "rollout-detail", "validationrun-detail"):
        for pk in (1, 42, 2**40):
            assert detail_path(view_name, pk) == reverse(view_name, kwargs={"pk": pk})


def test_fabric_list_counts_without_multiplying_joins(db):
    """The /fabrics/ page and the dashboard count switches, servers and racks per fabric with one subquery each;
    Count(distinct) over the three relations joined them all (switches x servers x racks rows per fabric: 219 ms of
    PostgreSQL CPU per page at 28 switches, 192 servers, 73 racks). The same counts, from a join-free query."""
    from django.db.models import Count

    from inventory.models import Rack, Server, Switch
    from inventory.selectors import count_of

    _world(2)
    _world(3)
    fabrics = Fabric.objects.annotate(switch_count=count_of(Switch, "fabric"), server_count=count_of(Server, "fabric"),
                                      rack_count=count_of(Rack, "fabric")).order_by("name")
    joined = Fabric.objects.annotate(switch_count=Count("switches", distinct=True),
                                     server_count=Count("servers", distinct=True),
                                     rack_count=Count("racks", distinct=True)).order_by("name")
    counts = [(fabric.switch_count, fabric.server_count, fabric.rack_count) for fabric in fabrics]
    assert counts == [(fabric.switch_count, fabric.server_count, fabric.rack_count) for fabric in joined]
    assert counts[0][0] == 4 and counts[1][0] == 5
    assert "JOIN" not in str(fabrics.query).upper()
    assert "JOIN" in str(joined.query).upper()  # deliberately broken: the old annotation multiplies rows



# ------------------------------------------------------------------ the heaviest pages of the bench's mix (item 6)


def _captured_sql(captured) -> str:
    return "\n".join(query["sql"] for query in captured.captured_queries)


def test_rollout_api_list_counts_its_page_without_aggregating_steps(viewer_client, django_assert_max_num_queries):
    """The list's rows and its COUNT(*) never read steps; with the step count annotation (which the list does not
    show) the count query grouped every step of every rollout."""
    from changes.models import Step

    _world(4)
    rollout = Rollout.objects.first()
    Step.objects.create(rollout=rollout, device="leaf1", phase="push", result="succeeded")
    viewer_client.get("/api/rollouts/")
    with django_assert_max_num_queries(REQUEST_QUERIES + ENDPOINT_QUERIES["/api/rollouts/"]) as captured:
        response = viewer_client.get("/api/rollouts/")
    assert response.status_code == 200 and response.json()["count"] == 4
    sql = _captured_sql(captured)
    assert "changes_rollout" in sql and "changes_step" not in sql


def test_rollout_api_list_with_step_counts_would_aggregate_steps(viewer_client, monkeypatch,
                                                                  django_assert_max_num_queries):
    from changes import selectors

    _world(2)
    from django.db.models import Count

    old_queryset = selectors.rollout_rows().annotate(step_count=Count("steps"))
    monkeypatch.setattr(selectors, "rollout_rows", lambda: old_queryset.all())  # deliberately broken: as before
    with django_assert_max_num_queries(REQUEST_QUERIES + ENDPOINT_QUERIES["/api/rollouts/"]) as captured:
        assert viewer_client.get("/api/rollouts/").status_code == 200
    assert "changes_step" in _captured_sql(captured)


def _viewer_session(viewer):
    from django.test import Client

    client = Client()
    client.force_login(viewer)
    return client


# The session, its user and the user's permissions, then the page's own queries.
SESSION_QUERIES = 3
ROLLOUT_PAGE_QUERIES = 2  # the rollouts with their step counts; the intents of the create form


@pytest.mark.parametrize("size", [2, 6])
def test_rollout_page_reads_only_the_columns_it_shows(viewer, size, django_assert_max_num_queries):
    """/rollouts/ (200 rows at most) reads the table's columns in one query, not each rollout's plan, policy and
    report JSON nor its change set and twin rows, and links each row with one reverse()."""
    _world(size)
    client = _viewer_session(viewer)
    client.get("/rollouts/")
    with django_assert_max_num_queries(SESSION_QUERIES + ROLLOUT_PAGE_QUERIES) as captured:
        response = client.get("/rollouts/")
    assert response.status_code == 200
    assert response.content.decode().count("<tr><td><a href=\"/rollouts/") == size
    rollout_sql = next(query["sql"] for query in captured.captured_queries if "changes_rollout" in query["sql"])
    for column in ("plan", "policy", "report", "error"):
        assert f'"changes_rollout"."{column}"' not in rollout_sql
    assert "changes_changeset" not in rollout_sql and "twins_twin" not in rollout_sql


def test_rollout_page_with_whole_rows_is_caught(viewer, monkeypatch):
    """Deliberately broken: the old whole-row queryset; the column check above finds the plan in its SQL."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from changes.selectors import rollout_list
    from ui import integrations

    _world(2)
    monkeypatch.setattr(integrations, "rollout_table",
                        lambda limit: list(rollout_list().order_by("-created_at", "-id")[:limit]))
    client = _viewer_session(viewer)
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/rollouts/").status_code == 200
    assert '"changes_rollout"."plan"' in _captured_sql(captured)


TOPOLOGY_PAGE_QUERIES = 12  # fabric, inventory snapshot (8), newest validation run, its findings, fabric names


def _topology_page(viewer, monkeypatch, django_assert_max_num_queries) -> tuple[int, int, int]:
    """(links drawn, reverse() calls for link URLs, queries) of one /fabrics/<name>/topology/ request."""
    from ui.views import topology

    _world(4)
    calls = []
    real_reverse = topology.reverse

    def counting_reverse(view_name, *args, **kwargs):
        calls.append(view_name)
        return real_reverse(view_name, *args, **kwargs)

    monkeypatch.setattr(topology, "reverse", counting_reverse)
    client = _viewer_session(viewer)
    client.get("/fabrics/cost4/topology/")
    calls.clear()
    with django_assert_max_num_queries(SESSION_QUERIES + TOPOLOGY_PAGE_QUERIES) as captured:
        response = client.get("/fabrics/cost4/topology/")
    assert response.status_code == 200
    page = response.content.decode()
    links = page.count('hx-get="/fabrics/cost4/topology/link/?')
    return links, calls.count("ui:topology_link"), len(captured.captured_queries)


def test_topology_page_reverses_the_link_url_once(viewer, monkeypatch, django_assert_max_num_queries):
    links, link_reverses, _ = _topology_page(viewer, monkeypatch, django_assert_max_num_queries)
    assert links >= 8 and link_reverses == 1


def test_topology_page_with_a_reverse_per_link_is_caught(viewer, monkeypatch, django_assert_max_num_queries):
    """Deliberately broken: the link URL reversed for every link, as before."""
    from ui.views import topology

    monkeypatch.setattr(topology, "_link_url", lambda fabric_name: lambda a, b: topology.reverse(
        "ui:topology_link", args=[fabric_name]) + "?" + topology.urlencode({"a": a, "b": b}))
    links, link_reverses, _ = _topology_page(viewer, monkeypatch, django_assert_max_num_queries)
    assert link_reverses == links > 1
