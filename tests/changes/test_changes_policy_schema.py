"""The rollout policy object is described in the OpenAPI schema field by field, from RolloutPolicy itself."""

import json
from dataclasses import fields

import pytest

from changes.api import serializers as change_serializers
from changes.policy import RolloutPolicy

pytestmark = pytest.mark.django_db


def _component(schema: dict, name: str) -> dict:
    return schema["components"]["schemas"][name]


def test_rollout_policy_is_in_the_schema_with_types_and_defaults(api_client):
    schema = json.loads(api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    for component in ("RolloutCreateRequest", "Rollout"):
        policy = _component(schema, component)["properties"]["policy"]
        assert set(policy["properties"]) == {spec.name for spec in fields(RolloutPolicy)}, component
        assert policy["additionalProperties"] is False
    policy = _component(schema, "RolloutCreateRequest")["properties"]["policy"]["properties"]
    assert policy["wave_size"] == {"type": "integer", "default": 4}
    assert policy["checks"]["items"]["enum"] == ["bgp", "evpn", "health", "mtu", "ping", "rehearsal", "static"]
    assert policy["redundant_pairs"]["items"]["minItems"] == 2
    assert policy["max_spine_fraction"]["nullable"] is True


def test_a_policy_field_of_an_undescribed_type_fails_loudly(monkeypatch):
    monkeypatch.delitem(change_serializers._POLICY_TYPES, "int")
    with pytest.raises(KeyError, match="int"):
        change_serializers._policy_schema()
