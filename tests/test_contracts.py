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
