"""The layer order of the project's packages, read from every import statement (issue #28).

    compiler < validators < labs < common < inventory < intents < {validation, twins} < changes < ui < twin

A module may import its own package and the packages to its left, never one to its right nor a peer at its
level (validation and twins do not know each other). compiler/, validators/ and labs/ never import Django (nor
DRF or Celery). Of the Django apps only twins/ imports the twin engine labs/: it is the one door to it. The walk reads the source with ``ast``, so lazy imports inside functions count too; relative
imports stay inside their package and are not checked. tests/, bench/ and scripts/ are outside the order.

``ALLOWED`` lists the imports that still run against the order, each with its reason; it may only shrink: an
entry that no longer occurs fails the test too, so a fixed import is removed from the list in the same commit.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Left to right; a tuple is one level of peers.
LAYERS: tuple[str | tuple[str, ...], ...] = (
    "compiler", "validators", "labs", "common", "inventory", "intents", ("validation", "twins"), "changes", "ui",
    "twin")
RANK = {package: rank for rank, level in enumerate(LAYERS)
        for package in (level if isinstance(level, tuple) else (level,))}
PURE = ("compiler", "validators", "labs")  # the engine packages: no web framework, no task queue
FRAMEWORKS = ("django", "rest_framework", "celery", "drf_spectacular", "django_filters", "knox", "axes")
DOORS = {"labs": frozenset({"twins"})}  # a package -> the only packages above it that may import it

# (importing file, imported module) -> why it is still there. Only ever shrinks; empty since issue #28 (the twin
# driver reaches labs through twins.switch, intents reads twin switches' configs from its own DeployedConfig).
ALLOWED: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Violation:
    path: str  # relative to the root, e.g. "intents/selectors.py"
    line: int
    module: str  # the imported module, e.g. "twins.models"
    rule: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} imports {self.module}: {self.rule}"


def _imported(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def layer_violations(root: Path) -> list[Violation]:
    """Every import under ``root`` that runs against ``LAYERS`` or brings a framework into a pure package."""
    violations: list[Violation] = []
    for package in RANK:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            for line, module in _imported(ast.parse(path.read_text(), filename=relative)):
                top = module.split(".")[0]
                if package in PURE and top in FRAMEWORKS:
                    violations.append(Violation(relative, line, module, f"{package}/ never imports {top}"))
                elif top in RANK and top != package and RANK[top] >= RANK[package]:
                    where = "a peer of" if RANK[top] == RANK[package] else "above"
                    violations.append(Violation(relative, line, module, f"{top} is {where} {package}"))
                elif top in DOORS and top != package and package not in DOORS[top]:
                    doors = ", ".join(sorted(DOORS[top]))
                    violations.append(Violation(relative, line, module, f"only {doors} imports {top}"))
    return violations


def test_every_project_package_has_a_layer():
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench", "scripts"}
    assert packages - set(RANK) == set(), "a new top-level package needs its place in LAYERS"


def test_the_imports_follow_the_layer_order():
    violations = layer_violations(ROOT)
    new = [str(v) for v in violations if (v.path, v.module) not in ALLOWED]
    assert new == [], "imports against the layer order:\n" + "\n".join(new)


def test_the_allow_list_only_names_imports_that_still_exist():
    present = {(v.path, v.module) for v in layer_violations(ROOT)}
    stale = sorted(key for key in ALLOWED if key not in present)
    assert stale == [], f"fixed imports to remove from ALLOWED: {stale}"


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def test_a_planted_upward_import_fails(tmp_path):
    root = _tree(tmp_path, {
        "common/runs.py": "from compiler.errors import FabricTwinError\n",  # downward: fine
        "intents/selectors.py": "def twin():\n    from twins.models import Twin\n    return Twin\n",  # upward, lazy
        "inventory/models.py": "import ui.roles\n",  # upward
        "twins/services.py": "from validation import services\n",  # a peer
        "twin/urls.py": "from ui import urls\n",  # the project on top: fine
        "changes/pipelines/checks.py": "from labs import runtime\n",  # around the twins door
        "twins/checks.py": "from labs import checks\n",  # through the door: fine
    })
    assert [(v.path, v.line, v.module) for v in layer_violations(root)] == [
        ("inventory/models.py", 1, "ui.roles"), ("intents/selectors.py", 2, "twins.models"),
        ("twins/services.py", 1, "validation"), ("changes/pipelines/checks.py", 1, "labs")]


def test_a_planted_framework_import_in_the_engine_fails(tmp_path):
    root = _tree(tmp_path, {
        "labs/runtime.py": "from django.conf import settings\n",
        "validators/bgp.py": "import celery\n",
        "compiler/model.py": "from dataclasses import dataclass\n",
        "inventory/models.py": "from django.db import models\n",  # an app: Django is its business
    })
    assert [str(v) for v in layer_violations(root)] == [
        "validators/bgp.py:1 imports celery: validators/ never imports celery",
        "labs/runtime.py:1 imports django.conf: labs/ never imports django"]
