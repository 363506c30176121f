"""validate --configs with an inventory: when every parsed hostname is a switch of it, the checks that need it
(physical, cable reach, headroom from the cable lengths) run; otherwise they are skipped saying why."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from compiler.scenario import snapshot_from_scenario
from validators.configs import validate_configs

GOLDEN = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic"


def _configs() -> dict[str, dict[str, str]]:
    out = {}
    for path in sorted((GOLDEN / "expected" / "structured").glob("*.json")):
        platform = json.loads(path.read_text())["platform"]
        directory = GOLDEN / "expected" / "rendered" / path.stem / platform
        out[path.stem] = {item.name: item.read_text() for item in sorted(directory.iterdir())}
    return out


def _snapshot():
    return snapshot_from_scenario(yaml.safe_load((GOLDEN / "scenario.yaml").read_text()))


def test_matching_hostnames_use_the_inventory():
    result = validate_configs(_configs(), snapshot=_snapshot())
    assert result.inventory_reason == ""
    statuses = {name: check.status for name, check in result.report.checks.items()}
    assert statuses["physical.cable_reach"] == "passed" and statuses["roce.headroom"] == "passed"
    assert [f for f in result.report.findings if f.severity == "error"] == []


def test_headroom_from_the_inventory_cable_catches_a_short_profile():
    """The EOS switch-wide XOFF reservation (parsed from `ingress headroom bytes`) is judged against each cable."""
    configs = _configs()
    text = configs["leaf1"]["startup-config"]
    configs["leaf1"]["startup-config"] = text.replace("    ingress headroom bytes 83968", "    ingress headroom bytes 20480")
    result = validate_configs(configs, snapshot=_snapshot())
    assert any(f.check == "roce.headroom" and f.subject.startswith("leaf1:") and f.severity == "error"
               for f in result.report.findings)


def test_unknown_hostnames_skip_the_inventory_checks_with_the_reason():
    configs = _configs()
    configs["leafX"] = configs.pop("leaf1")
    configs["leafX"]["startup-config"] = configs["leafX"]["startup-config"].replace("hostname leaf1", "hostname leafX")
    result = validate_configs(configs, snapshot=_snapshot())
    assert result.inventory_reason == "hostnames not in the inventory: leafX"
    assert result.report.checks["physical.cable_reach"].status == "skipped"
    assert result.report.checks["physical.cable_reach"].reason == "hostnames not in the inventory: leafX"
