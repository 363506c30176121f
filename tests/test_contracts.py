"""Architecture contract: the pure core (compiler/, validators/) never imports Django.

Walks the AST of every .py file, so an import hidden inside a function or behind a condition is caught too.
"""

import ast
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
PURE_PACKAGES = ("compiler", "validators")
FORBIDDEN = ("django", "rest_framework", "celery", "inventory", "intents", "changes")


def forbidden_imports(source: str, forbidden: tuple[str, ...] = FORBIDDEN) -> list[tuple[int, str]]:
    """(line, module) for every import of a forbidden top-level package in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            modules = [str(node.args[0].value)]
        else:
            continue
        found.extend((node.lineno, module) for module in modules if module.split(".")[0] in forbidden)
    return found


def pure_files() -> list[Path]:
    return sorted(path for package in PURE_PACKAGES for path in (REPO_ROOT / package).rglob("*.py"))


def test_there_are_pure_files_to_check():
    assert len(pure_files()) >= 4


@pytest.mark.parametrize("path", pure_files(), ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_pure_core_does_not_import_django(path):
    offences = forbidden_imports(path.read_text())
    assert not offences, f"{path.relative_to(REPO_ROOT)} imports {offences} (the pure core never imports Django)"


@pytest.mark.parametrize("source", [
    "import django",
    "from django.db import models",
    "import os, django.conf",
    "def f():\n    from rest_framework import serializers\n",
    "if True:\n    import celery\n",
    "import importlib\nimportlib.import_module('django.conf')",
    "from inventory.models import Switch",
])
def test_detector_flags_a_django_import(source):
    assert forbidden_imports(source), source


@pytest.mark.parametrize("source", ["import dataclasses", "from compiler.model import Inventory",
                                    "from . import model", "djangoish = 1", "import jinja2"])
def test_detector_allows_pure_imports(source):
    assert forbidden_imports(source) == []


# Module-top imports in the pure core: an import inside a function hides a dependency (or an import circle).
# Only optional heavy dependencies may be imported lazily, each listed here with its reason.
LAZY_IMPORTS_ALLOWED = {
    ("validators/batfish.py", "pandas"): "optional, heavy; only to read pybatfish answer frames",
    ("validators/batfish.py", "pybatfish.client.session"): "optional, heavy; only with a Batfish service",
}


def function_local_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) for every import statement inside a function body of ``source``."""
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import):
                found.extend((node.lineno, alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                found.append((node.lineno, "." * node.level + (node.module or "")))
    return found


@pytest.mark.parametrize("path", pure_files(), ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_pure_core_imports_at_module_top(path):
    relative = str(path.relative_to(REPO_ROOT))
    lazy = [(line, module) for line, module in function_local_imports(path.read_text())
            if (relative, module) not in LAZY_IMPORTS_ALLOWED]
    assert not lazy, f"{relative} imports inside a function: {lazy} (import at module top, or list an optional " \
                     "heavy dependency in LAZY_IMPORTS_ALLOWED with its reason)"


@pytest.mark.parametrize("source, expected", [
    ("def f():\n    from compiler.api import compile_fabric\n", [(2, "compiler.api")]),
    ("class C:\n    def m(self):\n        import json\n", [(3, "json")]),
    ("import json\nfrom compiler import api\n\ndef f():\n    return json\n", []),
])
def test_lazy_import_detector(source, expected):
    assert function_local_imports(source) == expected
