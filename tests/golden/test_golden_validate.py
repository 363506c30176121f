"""Every golden config set passes its own ``validate --configs`` with no error finding (issue #27): the project's
own renderings are the first texts its text checks must accept. Two sets per scenario: each device's own platform
(tests/golden/<scenario>/expected/rendered/<host>/<platform>/, the platform named in structured/<host>.json),
and every device as FRR (the ``frr`` rendering compile_fabric adds); each alone and with the scenario's inventory
and intent (``--fabric``: cable lengths, port speeds, the intent's networks and ASN scheme)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from test_golden import build_outputs

from validators.configs import validate_configs

GOLDEN = Path(__file__).parent
SCENARIOS = sorted(path.name for path in GOLDEN.iterdir() if (path / "scenario.yaml").exists())


def golden_config_set(scenario: str, which: str) -> dict[str, dict[str, str]]:
    """{host: {file: text}} of one scenario: ``own`` (each host's platform) or ``frr``."""
    expected = GOLDEN / scenario / "expected"
    out = {}
    for structured in sorted((expected / "structured").glob("*.json")):
        platform = json.loads(structured.read_text())["platform"] if which == "own" else "frr"
        directory = expected / "rendered" / structured.stem / platform
        out[structured.stem] = {path.name: path.read_text() for path in sorted(directory.iterdir())}
    return out


@pytest.mark.parametrize("with_fabric", [False, True], ids=["configs-only", "with-fabric"])
@pytest.mark.parametrize("which", ["own", "frr"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_golden_configs_validate_without_errors(scenario, which, with_fabric):
    configs = golden_config_set(scenario, which)
    snapshot = None
    if with_fabric:
        _outputs, snapshot, _skipped = build_outputs(yaml.safe_load((GOLDEN / scenario / "scenario.yaml").read_text()))
    result = validate_configs(configs, snapshot=snapshot)
    assert len(result.devices) == len(configs)
    assert result.inventory_reason == "" or not with_fabric  # with the fabric, the inventory checks ran
    errors = [f"{f.check} {f.subject}: {f.message}" for f in result.report.findings if f.severity == "error"]
    assert errors == [], f"{scenario} ({which}): " + "\n".join(errors[:20])


def test_a_broken_golden_config_set_has_errors():
    """The check above can fail: one lossless port's PFC dropped from a golden text is an error."""
    configs = golden_config_set("roce_lossless", "own")
    plan = configs["leaf1"]["linux-plan.json"]
    assert "prio-pfc all:off 3:on" in plan
    configs["leaf1"]["linux-plan.json"] = plan.replace("3:on", "3:off")
    result = validate_configs(configs)
    assert any(f.check == "roce.pfc" and f.severity == "error" for f in result.report.findings)
