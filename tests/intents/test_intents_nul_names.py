"""A NUL in a related object's name is a 400 naming the field, not a PostgreSQL error (found by schemathesis)."""

import pytest
from django.db import DataError, connection
from rest_framework import serializers

from intents.api.serializers import NamedRelatedField

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="only PostgreSQL rejects NUL in text")


def _network(tenant_pk: int, leaves: list[str]) -> dict:
    return {"tenant": tenant_pk, "name": "net30", "vlan_id": 30, "subnet": "10.30.0.0/24", "leaves": leaves}


def test_nul_in_a_leaf_name_is_400_naming_the_field(api, fabric_intent):
    tenant = fabric_intent.tenants.first()
    response = api.post("/api/networks/", _network(tenant.pk, ["leaf1\x00"]), format="json")
    # the bounded JSON parser (common.api_limits) names the field by its path: leaves.0
    assert response.status_code == 400 and {key.split(".")[0] for key in response.data} == {"leaves"}, response.data
    response = api.patch(f"/api/fabric-intents/{fabric_intent.pk}/", {"fabric": "ref\x00"}, format="json")
    assert response.status_code == 400 and "fabric" in response.data, response.data


def test_broken_a_plain_slug_field_sends_the_nul_to_postgresql(api, fabric_intent, monkeypatch):
    from rest_framework.parsers import JSONParser

    from intents.api.views import NetworkViewSet

    # two layers refuse it: the bounded JSON parser and NamedRelatedField; take both away
    monkeypatch.setattr(NetworkViewSet, "parser_classes", [JSONParser])
    monkeypatch.setattr(NamedRelatedField, "to_internal_value", serializers.SlugRelatedField.to_internal_value)
    with pytest.raises(DataError):
        api.post("/api/networks/", _network(fabric_intent.tenants.first().pk, ["leaf1\x00"]), format="json")
