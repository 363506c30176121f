"""Dead-code check for `make lint`: unused functions, classes, methods, properties, imports and unreachable code.

    .venv/bin/python scripts/deadcode.py            # exit status 1 and one line per finding when something is dead

Uses vulture (requirements.txt) over the whole tree, tests included: code only the tests call is alive. What
Django, DRF, Celery and pytest call by convention (commands, admin classes, app configs, viewset actions,
template tags, signal handlers, middleware in settings) reads as unused to a static tool, so those names and
decorators are allowed below, each with the framework that calls it. Unused variables and attributes are left to
ruff (F841): Django's declarative class attributes (``list_display``, ``Meta.fields``, ``help``) are all
"unused" to vulture.
"""

from __future__ import annotations

import sys
from pathlib import Path

from vulture import Vulture

ROOT = Path(__file__).resolve().parent.parent
PATHS = ["bench", "changes", "compiler", "intents", "inventory", "labs", "scripts", "tests", "twin", "twins", "ui",
         "validation", "validators", "manage.py"]
# tests/gcu: SONiC's own code (vendored, unmodified) and the stand-ins only it calls
EXCLUDE = ["*/migrations/*", "tests/golden/*", "tests/data/*", "*/tests/gcu/vendor/*", "*/tests/gcu/standins/*",
           ".venv/*"]
REPORTED = {"function", "class", "method", "property", "import", "unreachable_code"}

ENTRY_POINT_DECORATORS = [
    "@action",  # DRF: viewset actions are routed by the router
    "@register.*",  # Django: template tags and filters
    "@shared_task", "@app.task",  # Celery tasks are called by name
    "@*.connect", "@receiver",  # Celery and Django signal handlers
    "@admin.register", "@admin.display",  # Django admin
    "@pytest.fixture",  # pytest injects fixtures by name
    "@extend_schema*",  # drf-spectacular
    "@*.setter",
]
ENTRY_POINT_NAMES = [
    "Meta", "Command", "handle", "add_arguments", "do_*",  # management commands (do_<sub> dispatched by name)
    "*Admin", "save_model", "save_related", "delete_model",  # Django admin
    "*Config", "ready",  # Django app configs
    "get_*", "has_permission", "has_*_permission", "validate_*", "clean_*", "to_representation",
    "to_internal_value", "perform_*", "parse", "to_python", "to_url",  # DRF / Django hooks and converters
    "use_pk_only_optimization",  # DRF: RelatedField asks it before reading the related object
    "*Extension", "map_serializer_field",  # drf-spectacular: extensions register by subclassing, called by it
    "*Middleware", "*Backend", "*Pagination", "*Filter", "*FilterBackend", "*JSONParser", "*_hook",  # settings
    "Capability",  # common.models: an unmanaged model that only carries the role permissions
    "log_message",  # http.server: BaseHTTPRequestHandler calls it (test fakes silence it)
    "test_*", "pytest_*", "setup_*", "teardown*",  # pytest
]


def dead_code(paths: list[str] | None = None) -> list[str]:
    vulture = Vulture(ignore_names=ENTRY_POINT_NAMES, ignore_decorators=ENTRY_POINT_DECORATORS)
    vulture.scavenge([str(ROOT / path) for path in (paths or PATHS)], exclude=EXCLUDE)
    return [item.get_report().replace(f"{ROOT}/", "") for item in vulture.get_unused_code()
            if item.typ in REPORTED]


def main() -> int:
    findings = dead_code(sys.argv[1:] or None)
    for line in findings:
        print(line)
    print(f"dead code: {len(findings)} unused function(s)/class(es)/method(s)/import(s)", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
