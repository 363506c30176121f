"""The complexity gate (scripts/complexity.py): the tree matches the baseline, and the gate catches a new complex
function, a baseline function that grew, and a stale baseline entry (issue #28)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("complexity", ROOT / "scripts" / "complexity.py")
assert _spec and _spec.loader
complexity = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(complexity)


def _branchy(name: str, branches: int) -> str:
    """A function of McCabe complexity ``branches + 1``."""
    body = "".join(f"    if x == {n}:\n        return {n}\n" for n in range(branches))
    return f"def {name}(x):\n{body}    return -1\n"


def test_tree_matches_the_baseline():
    assert complexity.compare(complexity.measure(), complexity.baseline()) == []


def test_baseline_is_over_the_limit_only():
    assert all(value > 15 for value in complexity.baseline().values())


def test_new_complex_function_fails(tmp_path):
    (tmp_path / "planted.py").write_text(_branchy("simple", 14) + "\n\n" + _branchy("tangled", 16))
    found = complexity.measure([str(tmp_path)], root=tmp_path)
    assert found == {"planted.py::tangled": 17}  # 15 is allowed, 17 is not
    problems = complexity.compare(found, {})
    assert problems == ["planted.py::tangled: complexity 17 over the limit and not in the baseline; split it"]


def test_grown_shrunk_and_stale_entries_fail():
    problems = complexity.compare({"a.py::grew": 20, "a.py::fell": 16},
                                  {"a.py::grew": 18, "a.py::fell": 17, "a.py::gone": 30})
    assert problems == ["a.py::fell: complexity fell from 17 to 16; lower the baseline",
                        "a.py::grew: complexity grew from 18 to 20; split it",
                        "a.py::gone: no longer over the limit (or gone); delete it from the baseline"]
