"""The anonymous OpenAPI document is built once per process and format (common.api_schema.SchemaView, issue 29):
generating and rendering it cost ~0.45 s of CPU per request (~1 s cold), for any caller, without a login."""

from __future__ import annotations

import json

import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.views import SpectacularAPIView
from rest_framework.test import APIClient, APIRequestFactory

from common import api_schema

pytestmark = pytest.mark.django_db


@pytest.fixture
def generations(monkeypatch):
    """How many times the schema was generated; each test starts with an empty cache."""
    monkeypatch.setattr(api_schema, "_RENDERED", {})
    count = []
    original = SchemaGenerator.get_schema

    def counted(self, *args, **kwargs):
        count.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counted)
    return count


def test_the_schema_is_generated_once_per_format_whatever_the_query(generations):
    anonymous = APIClient()
    first = anonymous.get("/api/schema/")
    assert first.status_code == 200 and first["Content-Type"].startswith("application/vnd.oai.openapi")
    assert b"openapi: 3" in first.content and len(generations) == 1
    for query in ("", "?version=9", "?lang=xx", "?lang=de&version=a"):  # variants a caller could vary without end
        again = anonymous.get(f"/api/schema/{query}")
        assert again.status_code == 200 and again.content == first.content
    as_json = anonymous.get("/api/schema/?format=json")
    assert as_json.status_code == 200 and json.loads(as_json.content)["openapi"].startswith("3.")
    assert anonymous.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json; x=1").content == \
        as_json.content
    assert len(generations) == 2  # one YAML, one JSON
    assert 'filename="Fabric Twin API.json"' in as_json["Content-Disposition"]


def test_the_cached_document_is_the_one_drf_spectacular_generates(generations):
    cached = json.loads(APIClient().get("/api/schema/?format=json").content)
    request = APIRequestFactory().get("/api/schema/?format=json")
    fresh = SpectacularAPIView.as_view()(request).render()
    assert cached == json.loads(fresh.content) and "/api/schema/" not in cached["paths"]


def test_without_the_cache_every_request_generates_again(generations, monkeypatch):
    """Deliberately broken: drf-spectacular's own view builds the document on each request."""
    request_factory = APIRequestFactory()
    for _ in range(3):
        SpectacularAPIView.as_view()(request_factory.get("/api/schema/")).render()
    assert len(generations) == 3
