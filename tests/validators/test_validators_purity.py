"""validators/ is pure Python: importing every module (in a fresh interpreter) never loads Django."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import validators

ROOT = Path(__file__).resolve().parents[2]


def test_no_validator_module_imports_django():
    modules = [f"validators.{info.name}" for info in pkgutil.iter_modules(validators.__path__)]
    assert "validators.routing" in modules and "validators.run" in modules
    code = "import sys\n" + "".join(f"import {name}\n" for name in modules) + \
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n" \
        "print(loaded)\nsys.exit(1 if loaded else 0)\n"
    completed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                               env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_no_django_import_statement_in_the_sources():
    offenders = [str(path) for path in (ROOT / "validators").glob("*.py")
                 if any(line.lstrip().startswith(("import django", "from django"))
                        for line in path.read_text().splitlines())]
    assert offenders == []
