"""Byte-identical output across processes with different hash seeds (set/dict order must never leak out)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = """
import json, sys
sys.path.insert(0, {tests!r})
from compiler_scenarios import scenario
from compiler.api import compile_fabric
from compiler.scenario import snapshot_from_scenario
data = scenario(clos={{"platform": "eos", "leaf_platforms": ["eos", "sonic", "frr"], "leaves": 6}})
data["intent"]["asn_scheme"] = "per_rack"
result = compile_fabric(snapshot_from_scenario(data))
print(json.dumps(result.hashes, sort_keys=True))
"""


def _hashes(seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
    program = PROGRAM.format(tests=str(ROOT / "tests" / "compiler"))
    completed = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env,
                               cwd=ROOT, timeout=300, check=True)
    return json.loads(completed.stdout)


def test_output_independent_of_hash_seed():
    first, second = _hashes("1"), _hashes("4242")
    assert first == second
    assert set(first["leaf2"]) == {"sonic", "frr"}  # the mixed fabric really rendered every platform
