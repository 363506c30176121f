"""Complexity gate for `make lint`: ruff's C901 (McCabe) over the tree against a baseline that only shrinks.

    .venv/bin/python scripts/complexity.py      # exit status 1 and one line per finding

The limit is ruff's own ``[tool.ruff.lint.mccabe] max-complexity`` (15); the functions over it today are listed
once, with their complexity, in ``[tool.fabric-twin.complexity-baseline]`` of pyproject.toml. It fails on:
- a function over the limit that is not in the baseline (new code stays under 15);
- a baseline function whose complexity grew;
- a baseline entry whose function is gone, fell to the limit or below, or got simpler: lower the number or
  delete the line in the same commit, so the list only shrinks.
C901 is not in ruff's ``select``: this script is its one gate, and ``noqa: C901`` comments are ignored here
(and flagged by RUF100 as non-enabled), so the baseline cannot be bypassed line by line.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
# ruff's C901 message, e.g. "`parse` is too complex (30 > 15)"
MESSAGE = re.compile(r"`(?P<name>[^`]+)` is too complex \((?P<complexity>\d+) > \d+\)")


def baseline(pyproject: Path = PYPROJECT) -> dict[str, int]:
    """``{"path::function": complexity}`` from pyproject.toml."""
    with pyproject.open("rb") as handle:
        return dict(tomllib.load(handle)["tool"]["fabric-twin"]["complexity-baseline"])


def measure(paths: list[str] | None = None, root: Path = ROOT) -> dict[str, int]:
    """``{"path::function": complexity}`` of every function over the limit, paths relative to ``root``."""
    command = [sys.executable, "-m", "ruff", "check", "--config", str(PYPROJECT), "--select", "C901",
               "--ignore-noqa", "--output-format", "json", "--exit-zero", *(paths or [str(root)])]
    result = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True)
    found: dict[str, int] = {}
    for diagnostic in json.loads(result.stdout):
        match = MESSAGE.search(diagnostic["message"])
        if diagnostic["code"] != "C901" or match is None:
            raise ValueError(f"unexpected ruff diagnostic: {diagnostic['code']} {diagnostic['message']!r}")
        path = Path(diagnostic["filename"])
        key = f"{path.relative_to(root) if path.is_relative_to(root) else path}::{match['name']}"
        # two functions of one name in one file: the key holds the larger, so neither can grow unseen
        found[key] = max(found.get(key, 0), int(match["complexity"]))
    return found


def compare(found: dict[str, int], allowed: dict[str, int]) -> list[str]:
    """One line per breach of the baseline (see the module docstring); empty when the tree matches it."""
    problems: list[str] = []
    for key, complexity in sorted(found.items()):
        if key not in allowed:
            problems.append(f"{key}: complexity {complexity} over the limit and not in the baseline; split it")
        elif complexity > allowed[key]:
            problems.append(f"{key}: complexity grew from {allowed[key]} to {complexity}; split it")
        elif complexity < allowed[key]:
            problems.append(f"{key}: complexity fell from {allowed[key]} to {complexity}; lower the baseline")
    for key in sorted(set(allowed) - set(found)):
        problems.append(f"{key}: no longer over the limit (or gone); delete it from the baseline")
    return problems


def main() -> int:
    problems = compare(measure(sys.argv[1:] or None), baseline())
    for line in problems:
        print(line)
    print(f"complexity: {len(problems)} breach(es) of [tool.fabric-twin.complexity-baseline]", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
