"""RoCE-aware hashing through the YAML apply path (intents.services.fabric_intent_apply): the intent's
``ecmp_hashing`` block is stored field by field, and a request the fabric's platform cannot express is refused
naming the field, with nothing saved (compiler.hardware.HASHING_CAPABILITIES)."""

from pathlib import Path

import pytest
import yaml
from django.conf import settings

from compiler.errors import IntentValidationError
from compiler.scenario import clos_params
from intents.adapters import intent_snapshot
from intents.models import FabricIntent
from intents.services import fabric_intent_apply
from inventory.builder import fabric_build

pytestmark = pytest.mark.django_db

FRONTEND = Path(settings.BASE_DIR) / "examples" / "frontend-fabric.yaml"  # SONiC on the catalogue's default model


def _scenario(hashing: dict) -> dict:
    data = yaml.safe_load(FRONTEND.read_text())
    fabric_build(params=clos_params(data["clos"]))
    data["intent"]["ecmp_hashing"] = hashing
    return data


def test_hashing_block_is_stored_and_reaches_the_compiler():
    fabric_intent = fabric_intent_apply(data=_scenario({"qps_per_connection": 8, "roles": ["spine"]}))
    hashing = intent_snapshot(FabricIntent.objects.get(pk=fabric_intent.pk)).ecmp_hashing
    assert (hashing.qps_per_connection, hashing.roles, hashing.dlb) == (8, ("spine",), False)


def test_dlb_is_refused_naming_the_field_and_nothing_is_saved():
    with pytest.raises(IntentValidationError) as caught:
        fabric_intent_apply(data=_scenario({"dlb": True}))
    assert [(error.field, error.value) for error in caught.value.errors] == [("ecmp_hashing.dlb", True)]
    assert not FabricIntent.objects.filter(name="fe").exists()
