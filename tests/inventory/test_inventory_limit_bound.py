"""``?limit=`` beyond PostgreSQL's bigint is capped, not a 500 (twin.api.BoundedLimitOffsetPagination)."""

import pytest
from django.db import DataError, connection

from inventory.models import Site
from twin.api import BoundedLimitOffsetPagination

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="the bigint limit is PostgreSQL's")

HUGE = "652550139671809884160"  # what schemathesis sent


def test_a_huge_limit_is_capped(api_client):
    Site.objects.create(name="dc1")
    response = api_client.get("/api/sites/", {"limit": HUGE})
    assert response.status_code == 200 and response.data["count"] == 1


def test_broken_an_unbounded_limit_reaches_postgresql(api_client, monkeypatch):
    monkeypatch.setattr(BoundedLimitOffsetPagination, "max_limit", None)
    Site.objects.create(name="dc1")
    with pytest.raises(DataError):
        api_client.get("/api/sites/", {"limit": HUGE})
