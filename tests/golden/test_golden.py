"""Golden scenarios: intent YAML -> expected allocations, structured config and rendered files per platform.

``UPDATE_GOLDEN=1 pytest tests/golden`` rewrites tests/golden/<scenario>/expected/; without it any drift fails
with a unified diff. Every device is rendered for its own platform and "frr" (what compile_fabric does by
default), limited to the platforms whose renderer exists (supported_platforms()).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from compiler.allocate import allocate
from compiler.api import build_facts, platforms_for, render_device, structured_configs, validate_intent
from compiler.clos import plan_clos
from compiler.diff import config_diff
from compiler.errors import InputError
from compiler.model import Snapshot
from compiler.render import supported_platforms
from compiler.scenario import allocations_to_dict, clos_params, snapshot_from_scenario
from labs import frr_binaries

GOLDEN = Path(__file__).parent
SCENARIOS = sorted(path.name for path in GOLDEN.iterdir() if (path / "scenario.yaml").exists())
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
MAX_DIFF_LINES = 60


def _as_json(data) -> str:
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def build_outputs(data: dict) -> tuple[dict[str, str], Snapshot, list[str]]:
    """relative path -> text for everything the scenario pins; plus the snapshot and skipped platforms."""
    snapshot = snapshot_from_scenario(data)
    if "grow_from" in data:
        base_inventory = plan_clos(clos_params(data["grow_from"]))
        stored = allocate(base_inventory, snapshot.intent)
        snapshot = Snapshot(snapshot.inventory, snapshot.intent, stored)
    validate_intent(snapshot)
    facts = build_facts(snapshot)
    configs = structured_configs(snapshot, facts)
    supported = set(supported_platforms())
    outputs = {"allocations.json": _as_json(allocations_to_dict(facts.allocations))}
    skipped = []
    for host, config in configs.items():
        outputs[f"structured/{host}.json"] = _as_json(config)
        for platform in platforms_for(config["platform"], None):
            if platform not in supported:
                skipped.append(f"{host}:{platform}")
                continue
            for name, text in render_device(config, platform).items():
                outputs[f"rendered/{host}/{platform}/{name}"] = text
    return outputs, snapshot, skipped


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_golden(scenario):
    data = yaml.safe_load((GOLDEN / scenario / "scenario.yaml").read_text())
    outputs, snapshot, skipped = build_outputs(data)
    expected_dir = GOLDEN / scenario / "expected"
    if skipped:
        print(f"{scenario}: renderer missing, not compared: {', '.join(skipped)}")
    if UPDATE:
        shutil.rmtree(expected_dir, ignore_errors=True)
        for relative, text in outputs.items():
            path = expected_dir / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return
    if not expected_dir.exists():
        pytest.fail(f"{scenario}: no expected files; run UPDATE_GOLDEN=1 pytest tests/golden")
    skipped_prefixes = tuple(f"rendered/{item.replace(':', '/')}/" for item in skipped)
    expected = {str(path.relative_to(expected_dir)): path.read_text()
                for path in expected_dir.rglob("*") if path.is_file()}
    expected = {key: value for key, value in expected.items() if not key.startswith(skipped_prefixes)}
    problems = []
    for missing in sorted(set(expected) - set(outputs)):
        problems.append(f"no longer generated: {missing}")
    for extra in sorted(set(outputs) - set(expected)):
        problems.append(f"new file not in golden: {extra}")
    for relative in sorted(set(expected) & set(outputs)):
        if expected[relative] != outputs[relative]:
            diff = config_diff(expected[relative], outputs[relative], f"golden/{relative}", f"generated/{relative}")
            lines = diff.splitlines()
            more = f"\n... {len(lines) - MAX_DIFF_LINES} more diff lines" if len(lines) > MAX_DIFF_LINES else ""
            problems.append("\n".join(lines[:MAX_DIFF_LINES]) + more)
    assert not problems, (f"{scenario}: generated output drifted from the golden files "
                          f"(UPDATE_GOLDEN=1 pytest tests/golden to accept):\n" + "\n".join(problems))


def test_grown_fabric_moved_nothing():
    data = yaml.safe_load((GOLDEN / "grown_fabric" / "scenario.yaml").read_text())
    base = snapshot_from_scenario(dict(data, clos=data["grow_from"]))
    before = allocate(base.inventory, base.intent)
    _outputs, grown, _skipped = build_outputs(data)
    after = build_facts(grown).allocations
    for section in ("asns", "loopbacks", "vteps", "p2p", "l2vnis", "l3vnis"):
        old, new = getattr(before, section), getattr(after, section)
        moved = {key: (value, new.get(key)) for key, value in old.items() if new.get(key) != value}
        assert not moved, f"{section} moved when the fabric grew: {moved}"
    assert {"leaf5", "leaf6"} <= set(after.asns)


def test_golden_detects_drift(tmp_path):
    """The comparison is real: a changed value in one structured file shows up as a diff."""
    data = yaml.safe_load((GOLDEN / "single_tenant_2x4" / "scenario.yaml").read_text())
    outputs, _snapshot, _skipped = build_outputs(data)
    data["intent"]["networks"][0]["gateway"] = "10.10.0.254"
    drifted, _snapshot, _skipped = build_outputs(data)
    changed = [key for key in outputs if outputs[key] != drifted.get(key)]
    assert "structured/leaf1.json" in changed
    assert any(key.startswith("rendered/leaf1/eos/") for key in changed)


def _vtysh_of(release: str) -> str:
    """The vtysh of FRR ``release`` (labs.frr_binaries): the system's 8.4, or 10.3 as extracted by
    scripts/frr10.sh; skipped with the reason when that FRR is not on this machine."""
    if release == frr_binaries.EXTRACTED_RELEASE:
        try:
            return frr_binaries.extracted_frr().vtysh
        except InputError as error:
            pytest.skip(f"FRR 10.3 is not extracted (scripts/frr10.sh): {error}")
    vtysh = shutil.which("vtysh") or ("/usr/bin/vtysh" if Path("/usr/bin/vtysh").exists() else None)
    if vtysh is None:
        pytest.skip("vtysh (FRR) is not installed on this machine: cannot run FRR's parser")
    return vtysh


@pytest.mark.parametrize("release", [frr_binaries.SYSTEM_RELEASE, frr_binaries.EXTRACTED_RELEASE])
def test_golden_frr_confs_pass_vtysh(release, tmp_path):
    """Every pinned frr.conf (FRR platform and SONiC's) is accepted by FRR's own parser: Debian's 8.4 and the
    10.3 that SONiC's FRR generation runs."""
    import subprocess

    vtysh = _vtysh_of(release)
    paths = sorted(GOLDEN.glob("*/expected/rendered/*/*/frr.conf"))
    assert paths, "no golden frr.conf files found"
    for path in paths:
        result = subprocess.run([vtysh, "-C", "-f", str(path)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"FRR {release}: {path.relative_to(GOLDEN)}: {result.stdout}{result.stderr}"
    broken = tmp_path / "frr.conf"  # the parser really checks: a router-id that is no address is refused
    broken.write_text(paths[0].read_text().replace(" bgp router-id ", " bgp router-id not-an-address-", 1))
    assert "not-an-address-" in broken.read_text()
    assert subprocess.run([vtysh, "-C", "-f", str(broken)], capture_output=True, timeout=60).returncode != 0
