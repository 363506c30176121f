"""The API's input limits (common.api_limits, docs/security.md "Input limits"): every hostile input is a 4xx naming
the field or parameter, nothing is saved, and each guard is shown to matter by the same input breaking the code
without it (DRF's and django-filter's stock classes)."""

from __future__ import annotations

import json

import django_filters
import pytest
from django.db import DataError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import JSONParser

from common.api_limits import MAX_JSON_DEPTH, MAX_LIMIT, MAX_OFFSET, MAX_STRING_LENGTH, json_document_problems
from common.api_schema import _error_codes
from compiler.clos import ClosParams
from inventory.api.views import SwitchViewSet
from inventory.builder import fabric_build
from inventory.models import Site, Switch


@pytest.fixture
def fabric(db):
    fabric_build(params=ClosParams(name="limits", spines=2, leaves=2, servers_per_leaf=1))


def post_json(client, url: str, body):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(url, data=data, content_type="application/json")


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# ------------------------------------------------------------------------------------------ limit / offset
@pytest.mark.parametrize("query, parameter", [
    ("limit=0", "limit"), ("limit=-1", "limit"), (f"limit={MAX_LIMIT + 1}", "limit"), ("limit=abc", "limit"),
    ("limit=99999999999999999999", "limit"), ("limit=", "limit"), ("limit=1.5", "limit"),
    ("offset=-1", "offset"), (f"offset={MAX_OFFSET + 1}", "offset"), ("offset=99999999999999999999", "offset"),
    ("offset=x", "offset"), ("offset=%C2%B2", "offset"),  # a superscript two: str.isdigit() says yes, int() no
])
def test_out_of_range_pagination_is_a_400_naming_the_parameter(api_client, fabric, query, parameter):
    response = api_client.get(f"/api/switches/?{query}")
    assert response.status_code == 400, response.content
    assert list(response.json()) == [parameter]


def test_pagination_bounds_are_usable(api_client, fabric):
    assert len(api_client.get(f"/api/switches/?limit={MAX_LIMIT}").json()["results"]) == Switch.objects.count()
    assert api_client.get(f"/api/switches/?limit=1&offset={MAX_OFFSET}").json()["results"] == []
    page = api_client.get("/api/switches/?limit=2&offset=1").json()
    assert len(page["results"]) == 2 and page["count"] == Switch.objects.count()


def test_without_the_bounded_pagination_a_huge_limit_is_a_database_error(api_client, fabric, monkeypatch):
    monkeypatch.setattr(SwitchViewSet, "pagination_class", LimitOffsetPagination)  # DRF's own: no max_limit
    with pytest.raises((DataError, OverflowError)):
        api_client.get("/api/switches/?limit=99999999999999999999")


# ------------------------------------------------------------------------------------------ JSON bodies
def test_nesting_at_the_limit_is_parsed_and_one_level_more_is_a_400(api_client, db):
    at_limit = post_json(api_client, "/api/sites/", {"name": "s1", "extra": json.loads(nested(MAX_JSON_DEPTH - 1))})
    assert at_limit.status_code == 201, at_limit.content  # unknown keys are ignored, so this one saves
    too_deep = post_json(api_client, "/api/sites/", {"name": "s2", "extra": json.loads(nested(MAX_JSON_DEPTH))})
    assert too_deep.status_code == 400
    (path, messages), = too_deep.json().items()
    assert path.startswith("extra.0.0") and f"deeper than {MAX_JSON_DEPTH} levels" in messages[0]
    assert not Site.objects.filter(name="s2").exists()


def test_nesting_beyond_the_recursion_limit_is_a_400(api_client, db):
    response = post_json(api_client, "/api/sites/", nested(100_000))
    assert response.status_code == 400 and "deeper than" in response.json()["detail"]


def test_without_the_bounded_parser_deep_nesting_is_an_unhandled_recursion_error():
    import io

    with pytest.raises(RecursionError):
        JSONParser().parse(io.BytesIO(nested(100_000).encode()), parser_context={})


def test_a_body_over_the_size_limit_is_a_413_and_nothing_is_saved(api_client, db, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    small = {"name": "fits", "description": "d" * 100}
    assert post_json(api_client, "/api/sites/", small).status_code == 201
    large = json.dumps({"name": "too-big", "description": "d" * 150, "pad": "p" * 900})
    assert len(large) > 1000
    response = post_json(api_client, "/api/sites/", large)
    assert response.status_code == 413
    assert "DATA_UPLOAD_MAX_MEMORY_SIZE" in response.json()["detail"]
    assert not Site.objects.filter(name="too-big").exists()


def test_the_parser_bounds_its_own_read(settings):
    import io

    from common.api_limits import BoundedJSONParser, RequestBodyTooLarge

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10
    with pytest.raises(RequestBodyTooLarge):
        BoundedJSONParser().parse(io.BytesIO(b'{"a": "' + b"x" * 100 + b'"}'), parser_context={})
    assert JSONParser().parse(io.BytesIO(b'{"a": "' + b"x" * 100 + b'"}'), parser_context={})  # DRF's: no bound


def test_without_the_project_handler_an_over_large_body_is_an_html_page(api_client, db, settings, monkeypatch):
    from rest_framework.views import exception_handler as drf_exception_handler

    from inventory.api.views import SiteViewSet

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    monkeypatch.setattr(SiteViewSet, "get_exception_handler", lambda self: drf_exception_handler)
    response = post_json(api_client, "/api/sites/", {"name": "x", "description": "d" * 200})
    # Django's SuspiciousOperation handling: its HTML "Bad Request" page, which the schema does not document
    assert response.status_code == 400 and response["Content-Type"].startswith("text/html")


def test_only_json_bodies_are_accepted(api_client, db):
    response = api_client.post("/api/sites/", data="name=x", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415


# ------------------------------------------------------------------------------------------ strings
@pytest.mark.parametrize("body, field", [
    ({"name": "a\x00b"}, "name"),
    ({"name": "ok", "description": "x\x00"}, "description"),
    ({"name": "ok", "description": "x" * (MAX_STRING_LENGTH + 1)}, "description"),
])
def test_nul_and_over_long_strings_are_a_400_naming_the_field(api_client, db, body, field):
    response = post_json(api_client, "/api/sites/", body)
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert not Site.objects.exists()


def test_nul_inside_a_json_field_names_its_path(api_client, db):
    response = post_json(api_client, "/api/rollouts/", {
        "name": "r", "kind": "canary_push", "target": "twin", "policy": {"canary": ["leaf1", "le\x00af2"]}})
    assert response.status_code == 400
    assert response.json() == {"policy.canary.1": [
        "'le\\x00af2' contains a NUL character (U+0000), which is never accepted"]}


def test_nul_in_a_key_is_refused():
    assert json_document_problems({"policy": {"a\x00": 1}}) == {
        "policy": ["a key contains a NUL character (U+0000), which is never accepted"]}
    assert json_document_problems({"policy": {"a": ["b", 1, None, {"c": "d"}]}}) == {}


@pytest.mark.parametrize("query, parameter", [
    ("search=a%00b", "search"), ("hostname=a%00", "hostname"), ("ordering=%00", "ordering"),
    ("hostname__icontains=" + "x" * 1025, "hostname__icontains"),
])
def test_nul_and_over_long_query_parameters_are_a_400_naming_them(api_client, fabric, query, parameter):
    response = api_client.get(f"/api/switches/?{query}")
    assert response.status_code == 400
    assert list(response.json()) == [parameter]


# ------------------------------------------------------------------------------------------ filters and ids
def test_a_bad_ip_filter_value_is_a_400_naming_the_filter(api_client, fabric):
    response = api_client.get("/api/switches/?mgmt_ip=not-an-address")
    assert response.status_code == 400 and list(response.json()) == ["mgmt_ip"]
    switch = Switch.objects.exclude(mgmt_ip=None).first()
    found = api_client.get(f"/api/switches/?mgmt_ip={switch.mgmt_ip}").json()["results"]
    assert [row["hostname"] for row in found] == [switch.hostname]


def test_without_the_base_filterset_a_bad_ip_filter_value_is_a_server_error(api_client, fabric, monkeypatch):
    class StockSwitchFilterSet(django_filters.FilterSet):
        class Meta:
            model = Switch
            fields = {"mgmt_ip": ["exact"]}

    monkeypatch.setattr(SwitchViewSet, "filterset_class", StockSwitchFilterSet)
    with pytest.raises((ValueError, DataError)):
        api_client.get("/api/switches/?mgmt_ip=not-an-address")


@pytest.mark.parametrize("path", [
    "/api/switches/99999999999999999999/", "/api/switches/-1/", "/api/switches/1.5/", "/api/switches/%00/",
    "/api/switches/1e400/physical/",
])
def test_ids_that_are_no_row_are_a_json_404(api_client, fabric, path):
    response = api_client.get(path)
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert "detail" in response.json()


def test_out_of_range_foreign_keys_and_numbers_are_a_400(api_client, db):
    response = post_json(api_client, "/api/racks/", {"name": "r", "site": 2**70, "position": 2**70})
    assert response.status_code == 400 and {"site", "position"} <= set(response.json())


def test_an_unknown_api_path_without_a_slash_still_redirects(api_client, db):
    assert api_client.get("/api/sites").status_code == 301


# ------------------------------------------------------------------------------------------ schema
def test_the_schema_documents_the_bounds_and_the_error_answers(api_client, db):
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    listing = schema["paths"]["/api/sites/"]["get"]
    limit = next(parameter for parameter in listing["parameters"] if parameter["name"] == "limit")
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}
    assert {"400", "401", "403"} <= set(listing["responses"])
    assert {"400", "401", "403", "404", "413", "415"} <= set(schema["paths"]["/api/sites/{id}/"]["put"]["responses"])
    assert "404" not in listing["responses"]  # no path parameter, no "no such object"


def test_error_codes_follow_the_operation_shape():
    assert _error_codes("get", {}) == ["401", "403"]
    assert _error_codes("get", {"parameters": [{"in": "path", "name": "id"}]}) == ["401", "403", "404"]
    assert _error_codes("post", {"requestBody": {}}) == ["401", "403", "400", "413", "415"]


@pytest.mark.parametrize("number", ["1e400", "-1e400", "NaN", "Infinity"])
def test_numbers_beyond_a_double_are_a_parse_error(api_client, db, number):
    response = post_json(api_client, "/api/sites/", f'{{"name": "x", "description": {number}}}')
    assert response.status_code == 400 and response.json()["detail"].startswith("JSON parse error")
    assert not Site.objects.exists()


def test_without_the_bounded_parser_1e400_is_stored_as_inf(api_client, db, monkeypatch):
    from inventory.api.views import SiteViewSet

    monkeypatch.setattr(SiteViewSet, "parser_classes", [JSONParser])
    assert post_json(api_client, "/api/sites/", '{"name": "x", "description": 1e400}').status_code == 201
    assert Site.objects.get(name="x").description == "inf"


def test_a_parse_error_is_still_a_400_with_a_detail(api_client, db):
    response = post_json(api_client, "/api/sites/", "{not json")
    assert response.status_code == 400 and response.json()["detail"].startswith("JSON parse error")


def test_a_write_to_an_unknown_api_path_with_a_session_is_a_json_404_not_the_csrf_page(db):
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.create_user(username="session-user"))
    response = client.delete("/api/switches/1.5/")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"


UPGRADE = {"name": "up", "kind": "rolling_upgrade", "target": "production",
           "topology": {"roles": {"spine1": "spine", "leaf1": "leaf"}, "links": [["leaf1", "spine1"]]}}


@pytest.mark.parametrize("version", ["4.33\x00", "4.33\udad8"])
def test_nul_or_a_lone_surrogate_in_a_stored_json_field_is_a_400_and_nothing_is_saved(api_client, db, version):
    from changes.models import Rollout

    response = post_json(api_client, "/api/rollouts/", {**UPGRADE, "policy": {"target_version": version}})
    assert response.status_code == 400 and list(response.json()) == ["policy.target_version"]
    assert not Rollout.objects.exists()
    assert post_json(api_client, "/api/rollouts/", {**UPGRADE, "policy": {"target_version": "4.33.2F"}}
                     ).status_code == 201


@pytest.mark.parametrize("version", ["4.33\x00", "4.33\udad8"])
def test_without_the_bounded_parser_nul_or_a_surrogate_in_a_json_field_reaches_postgresql(api_client, db, monkeypatch,
                                                                                         version):
    from django.db import connection

    from changes.api.views import RolloutViewSet

    if connection.vendor != "postgresql":
        pytest.skip("only PostgreSQL refuses NUL in jsonb; SQLite stores it")
    monkeypatch.setattr(RolloutViewSet, "parser_classes", [JSONParser])
    # the version grammar (compiler.names, changes.policy) refuses it too: take that layer away as well
    monkeypatch.setattr("changes.policy.name_problem", lambda *args, **kwargs: None)
    with pytest.raises(DataError):
        post_json(api_client, "/api/rollouts/", {**UPGRADE, "policy": {"target_version": version}})


def test_a_change_set_name_longer_than_its_column_is_refused_by_the_serializer():
    from changes.api.serializers import ChangeSetCreateSerializer

    body = {"compile_run": 1, "target": "production"}
    too_long = ChangeSetCreateSerializer(data={**body, "name": "n" * 201})
    assert not too_long.is_valid() and list(too_long.errors) == ["name"]
    assert ChangeSetCreateSerializer(data={**body, "name": "n" * 200}).is_valid()


def test_without_the_bound_a_long_change_set_name_is_a_database_error(db):
    from django.db import connection

    from changes.models import ChangeSet

    if connection.vendor != "postgresql":
        pytest.skip("SQLite does not enforce varchar lengths")
    with pytest.raises(DataError, match="too long"):
        ChangeSet.objects.create(name="n" * 201)


def test_the_schema_states_the_enforced_string_limits(db):
    from drf_spectacular.generators import SchemaGenerator

    from common.api_limits import MAX_QUERY_VALUE_LENGTH

    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    assert components["ChangeSetCreateRequest"]["properties"]["name"]["maxLength"] == 200  # the field's own
    assert components["CompileRequestRequest"]["properties"]["devices"]["items"]["maxLength"] == MAX_STRING_LENGTH
    search = next(parameter for parameter in schema["paths"]["/api/switches/"]["get"]["parameters"]
                  if parameter["name"] == "search")
    assert search["schema"]["maxLength"] == MAX_QUERY_VALUE_LENGTH


def test_boolean_filters_take_only_booleans(api_client, fabric):
    from inventory.models import Interface

    cabled = api_client.get("/api/interfaces/?cabled=true&limit=1000").json()
    assert cabled["count"] == Interface.objects.exclude(cable=None).count() < Interface.objects.count()
    assert api_client.get("/api/interfaces/?cabled=0&limit=1").json()["count"] == Interface.objects.filter(
        cable=None).count()
    assert api_client.get("/api/interfaces/?cabled=&limit=1").json()["count"] == Interface.objects.count()
    for path in ("/api/interfaces/?cabled=maybe", "/api/validation-runs/?ok=null", "/api/roce-classes/?lossless=15"):
        response = api_client.get(path)
        assert response.status_code == 400, path
        assert list(response.json()) == [path.split("?")[1].split("=")[0]]


def test_without_the_strict_filter_a_junk_boolean_silently_means_no_filter(api_client, fabric, monkeypatch):
    from inventory.api.views import InterfaceViewSet
    from inventory.models import Interface

    class StockInterfaceFilterSet(django_filters.FilterSet):
        cabled = django_filters.BooleanFilter(field_name="cable", lookup_expr="isnull", exclude=True)

        class Meta:
            model = Interface
            fields = ["cabled"]

    monkeypatch.setattr(InterfaceViewSet, "filterset_class", StockInterfaceFilterSet)
    response = api_client.get("/api/interfaces/?cabled=maybe&limit=1")
    assert response.status_code == 200 and response.json()["count"] == Interface.objects.count()


def test_nul_in_a_lookup_by_name_is_a_400(api_client, fabric):
    response = post_json(api_client, "/api/fabric-intents/", {"name": "fi", "fabric": "limits\x00"})
    assert response.status_code == 400 and list(response.json()) == ["fabric"]


def test_without_the_bounded_parser_nul_in_a_lookup_by_name_reaches_postgresql(api_client, fabric, monkeypatch):
    from django.db import connection

    from intents.api.views import FabricIntentViewSet

    if connection.vendor != "postgresql":
        pytest.skip("only PostgreSQL refuses NUL in text")
    monkeypatch.setattr(FabricIntentViewSet, "parser_classes", [JSONParser])
    # intents.api.serializers.NamedRelatedField refuses NUL too: take that layer away as well
    from rest_framework.serializers import SlugRelatedField

    from intents.api.serializers import NamedRelatedField

    monkeypatch.setattr(NamedRelatedField, "to_internal_value", SlugRelatedField.to_internal_value)
    with pytest.raises(DataError):  # SlugRelatedField looks the name up without checking it (found by schemathesis)
        post_json(api_client, "/api/fabric-intents/", {"name": "fi", "fabric": "limits\x00"})


@pytest.mark.parametrize("path", ["/api/switches/abc/", "/api/switches/a%0Ab/"])
def test_an_unknown_api_path_is_a_json_404_even_with_a_newline(api_client, path):
    # schemathesis found a newline in a path id answered by Django's HTML 404 (the catch-all did not match it)
    response = api_client.patch(path, {}, format="json")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
