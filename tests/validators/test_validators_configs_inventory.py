"""validate --configs with an inventory: when every parsed hostname is a switch of it, the checks that need it
(physical, cable reach, headroom from the cable lengths) run; otherwise they are skipped saying why."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from validator_fabrics import intent_for

from compiler.api import compile_fabric
from compiler.clos import ClosParams, plan_clos
from compiler.model import Snapshot
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


ROCE_LOSSLESS = Path(__file__).parents[1] / "golden" / "roce_lossless"


def _frr_roce():
    """The roce_lossless golden (FRR leaves and spines carrying RoCE) as text, and its inventory."""
    rendered = ROCE_LOSSLESS / "expected" / "rendered"
    configs = {host.name: {item.name: item.read_text() for item in sorted((host / "frr").iterdir())}
               for host in sorted(rendered.iterdir())}
    return configs, snapshot_from_scenario(yaml.safe_load((ROCE_LOSSLESS / "scenario.yaml").read_text()))


def test_frr_roce_configs_with_the_inventory_judge_headroom_by_the_inventory_port_speed():
    """FRR/Linux text states no port speed and only the `dcb buffer` size: the check takes the speed from the
    inventory's port (it raised a TypeError on None) and judges the size alone (issue #27)."""
    configs, snapshot = _frr_roce()
    result = validate_configs(configs, snapshot=snapshot)
    assert result.inventory_reason == ""
    assert result.report.checks["roce.headroom"].status == "passed"
    assert [f for f in result.report.findings if f.severity == "error"] == []  # VLANs named after the intent's


def test_frr_roce_configs_with_a_short_dcb_buffer_are_caught():
    configs, snapshot = _frr_roce()
    plan = json.loads(configs["leaf1"]["linux-plan.json"])
    text = json.dumps(plan)
    assert "3:96256" in text  # the rendered dcb buffer size of the lossless priority
    configs["leaf1"]["linux-plan.json"] = text.replace("3:96256", "3:20480")
    result = validate_configs(configs, snapshot=snapshot)
    headroom = [f for f in result.report.findings if f.check == "roce.headroom"]
    assert headroom and all(f.severity == "error" and f.subject.startswith("leaf1:") for f in headroom)
    assert all(f.actual["size_bytes"] == 20480 for f in headroom)


def _jericho_spines():
    inventory = plan_clos(ClosParams(name="j3", spines=2, leaves=2, servers_per_leaf=1, platform="eos",
                                     spine_model="DCS-7816R4"))
    snapshot = Snapshot(inventory, intent_for(inventory))
    result = compile_fabric(snapshot, platforms=("eos",))
    return {host: dict(files["eos"]) for host, files in result.rendered.items()}, snapshot


def test_jericho3_spines_take_no_per_port_headroom_in_the_text_check():
    """EOS on StrataDNX renders no headroom (the VOQ chip sizes it): expecting it gave one false error per spine
    port (4,096 on a 16x256 fabric). The Strata leaves are still judged."""
    configs, snapshot = _jericho_spines()
    assert "mmu queue profile" not in configs["spine1"]["startup-config"]
    result = validate_configs(configs, snapshot=snapshot)
    assert result.report.checks["roce.headroom"].status == "passed"
    leaf = configs["leaf1"]["startup-config"]
    headroom_line = next(line for line in leaf.splitlines() if "ingress headroom bytes" in line)
    configs["leaf1"]["startup-config"] = leaf.replace(headroom_line, "    ingress headroom bytes 1024")
    broken = validate_configs(configs, snapshot=snapshot)
    assert {f.subject.split(":")[0] for f in broken.report.findings if f.check == "roce.headroom"} == {"leaf1"}
