"""The database path equals the pure path: every golden scenario applied with intent_apply, compiled through
compile_run_create (allocations stored and reloaded, snapshot rebuilt from the ORM) reproduces the golden
allocations, structured configs and rendered files byte for byte. The grown scenario is compiled at its
original size first, then grown through the inventory builder, so it also proves stored allocations never move.
"""

import json
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from compiler.clos import plan_clos
from compiler.scenario import allocations_to_dict, clos_params
from intents import services
from intents.adapters import stored_allocations
from intents.models import FabricIntent
from inventory.services import inventory_persist

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SCENARIOS = sorted(path.name for path in GOLDEN.iterdir() if (path / "scenario.yaml").exists()) \
    if GOLDEN.is_dir() else []

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_golden_scenario_through_the_database(scenario, tmp_path):
    folder = GOLDEN / scenario
    data = yaml.safe_load((folder / "scenario.yaml").read_text())
    expected = folder / "expected"
    if "grow_from" in data:
        inventory_persist(inventory=plan_clos(clos_params(data["grow_from"])))
        call_command("intent_apply", str(folder / "scenario.yaml"), stdout=StringIO())
        first = services.compile_run_create(fabric_intent=FabricIntent.objects.get(name=data["intent"]["name"]))
        assert first.status == "succeeded", first.error
    call_command("intent_apply", str(folder / "scenario.yaml"), "--build-inventory", stdout=StringIO())
    fabric_intent = FabricIntent.objects.get(name=data["intent"]["name"])
    run = services.compile_run_create(fabric_intent=fabric_intent)
    assert run.status == "succeeded", run.error

    assert allocations_to_dict(stored_allocations(fabric_intent)) == json.loads(
        (expected / "allocations.json").read_text())
    compared = 0
    for config in run.device_configs.all():
        assert config.structured == json.loads((expected / "structured" / f"{config.hostname}.json").read_text())
        for name, text in config.files.items():
            golden = expected / "rendered" / config.hostname / config.platform / name
            assert golden.exists(), f"{golden} missing: the golden set has no such file"
            assert text == golden.read_text(), f"{config.hostname}/{config.platform}/{name} differs from golden"
            compared += 1
    golden_files = [path for path in (expected / "rendered").rglob("*") if path.is_file()]
    assert compared == len(golden_files)
