"""Twin rollouts and change sets name the fabric intent (or the Twin), not the internal twin prefix (issue #16
item 3, issue #28 point 3)."""

import pytest
from django.urls import reverse

from changes.api.serializers import ChangeSetCreateSerializer, RolloutCreateSerializer
from compiler.clos import ClosParams
from intents.services import compile_run_create, fabric_intent_create
from inventory.builder import fabric_build
from inventory.models import Fabric
from twins.models import Twin

pytestmark = pytest.mark.django_db


@pytest.fixture
def intent_with_twin():
    fabric_build(params=ClosParams(name="tb", spines=2, leaves=2, servers_per_leaf=1))
    intent = fabric_intent_create(fabric=Fabric.objects.get(name="tb"), name="tb")
    run = compile_run_create(fabric_intent=intent)
    Twin.objects.create(fabric_intent=intent, prefix="twtb0001", status="down", engine="containerlab")  # stopped
    twin = Twin.objects.create(fabric_intent=intent, prefix="twtb0002", status="up", state_dir="")
    return intent, twin, run


def test_a_twin_rollout_names_the_intent_and_gets_its_running_twin(intent_with_twin):
    intent, twin, run = intent_with_twin
    serializer = RolloutCreateSerializer(data={"name": "r", "kind": "canary_push", "target": "twin",
                                               "fabric_intent": intent.name, "policy": {"soak_s": 0}})
    assert serializer.is_valid(), serializer.errors
    assert serializer.validated_data["policy"] == {"soak_s": 0}
    assert serializer.validated_data["twin"] == twin  # the running one, not the stopped containerlab twin
    assert "fabric_intent" not in serializer.validated_data
    change_set = ChangeSetCreateSerializer(data={"target": "twin", "fabric_intent": intent.name})
    assert change_set.is_valid(), change_set.errors
    assert (change_set.validated_data["compile_run"], change_set.validated_data["twin"]) == (run.pk, twin)


def test_an_intent_without_a_running_twin_is_a_400_naming_fabric_intent(intent_with_twin, api_client):
    intent, twin, _ = intent_with_twin
    twin.status = "down"
    twin.save()
    response = api_client.post(reverse("rollout-list"), {"name": "r", "kind": "canary_push", "target": "twin",
                                                          "fabric_intent": intent.name}, format="json")
    assert response.status_code == 400
    assert "no running twin of this intent" in str(response.json()["fabric_intent"])
    response = api_client.post(reverse("changeset-list"), {"target": "twin", "fabric_intent": "nope"}, format="json")
    assert response.status_code == 400 and "no fabric intent of this name" in str(response.json()["fabric_intent"])
    response = api_client.post(reverse("changeset-list"), {"target": "twin"}, format="json")
    assert response.status_code == 400 and "compile_run" in response.json()
