"""Two habits of issue #28 as tests, read from the source with ``ast`` like tests/test_layers.py:

- every vocabulary once: a severity, check or run status, rollout state or switch role is compared through its
  constant (``Severity``, ``CheckStatus``, ``RunStatus``, ``RolloutStateChoices``, ``compiler.model.Role``), never
  a string literal such as ``finding.severity == "error"`` or ``role in ("spine", "leaf")``;
- finding subjects are read back with ``validators.subjects.Subject.parse``, never ``subject.split("<->")``;
- views read through selectors: no ``Model.objects`` in ``ui/views/`` (queries live in each app's
  ``selectors.py``, writes in its services).

``ALLOWED`` lists what still runs against them, each with its reason; it only shrinks (a stale entry fails).
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from pathlib import Path

from changes.choices import RolloutStateChoices
from common.runs import RunStatus
from compiler.model import Role
from validators.findings import CheckStatus, Severity
from validators.subjects import LINK

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("compiler", "validators", "labs", "common", "inventory", "intents", "validation", "twins", "changes",
            "ui", "twin", "bench", "scripts")
VOCABULARY = frozenset({*Severity.ALL, *CheckStatus.ALL, *RunStatus.values, *RolloutStateChoices.values, *Role.ALL})
# Names under which those values are held: finding.severity, run.status, rollout.state, switch["role"], role
FIELDS = frozenset({"severity", "status", "state", "role"})

# (file, line text stripped) -> why it is still a literal. Only ever shrinks.
ALLOWED: dict[tuple[str, str], str] = {
    ("bench/api_load.py", 'if run.status != "succeeded":'):
        "imported before django.setup(): common.runs cannot be imported at the top",
    ("bench/ui_bench.py", 'if run.status != "succeeded":'):
        "imported before django.setup(): common.runs cannot be imported at the top",
    ("scripts/netbox_populate.py", 'if role == "leaf":'): "a NetBox device-role slug (beside gpu-server, "
        "patch-panel), not compiler.model.Role",
}


@dataclass(frozen=True)
class Habit:
    path: str
    line: int
    text: str
    rule: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.text}"


def _names_a_field(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in FIELDS
    if isinstance(node, ast.Name):
        return node.id in FIELDS
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in FIELDS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value in FIELDS
    return False


def _vocabulary_literals(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in VOCABULARY
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(isinstance(item, ast.Constant) and item.value in VOCABULARY for item in node.elts)
    return False


def _splits_a_subject(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("split", "rsplit", "partition", "rpartition", "join") and bool(node.args)
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == LINK) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
        and isinstance(node.func.value, ast.Constant) and node.func.value.value == LINK)


def habits_broken(root: Path, packages: tuple[str, ...] = PACKAGES) -> list[Habit]:
    found: list[Habit] = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if "/migrations/" in relative or relative == "validators/subjects.py":
                continue
            source = path.read_text()
            lines = source.splitlines()
            for node in ast.walk(ast.parse(source, filename=relative)):
                rule = None
                if isinstance(node, ast.Compare):
                    operands = [node.left, *node.comparators]
                    if any(map(_names_a_field, operands)) and any(map(_vocabulary_literals, operands)):
                        rule = "a vocabulary literal; compare with its constant"
                elif _splits_a_subject(node):
                    rule = "a finding subject by hand; use validators.subjects.Subject"
                elif relative.startswith("ui/views/") and isinstance(node, ast.Attribute) and node.attr == "objects":
                    rule = "the ORM in a view; read through the app's selectors"
                if rule:
                    text = lines[node.lineno - 1].strip()
                    found.append(Habit(relative, node.lineno, text, rule))
    return sorted(found, key=lambda habit: (habit.path, habit.line))


def test_vocabularies_and_subjects_go_through_their_types():
    new = [str(habit) for habit in habits_broken(ROOT) if (habit.path, habit.text) not in ALLOWED]
    assert new == [], "\n".join(new)


def test_the_allow_list_only_names_lines_that_still_exist():
    present = {(habit.path, habit.text) for habit in habits_broken(ROOT)}
    assert sorted(key for key in ALLOWED if key not in present) == []


def test_planted_orm_in_a_view_fails(tmp_path):
    (tmp_path / "ui" / "views").mkdir(parents=True)
    source = textwrap.dedent('''
        from inventory import selectors
        from inventory.models import Fabric
        def view(request):
            a = selectors.fabric_list()  # through the selector: fine
            b = Fabric.objects.filter(name="f1")
            return a, b
    ''')
    (tmp_path / "ui" / "views" / "pages.py").write_text(source)
    (tmp_path / "ui" / "forms.py").write_text(source)  # outside ui/views/: not this habit
    assert [(habit.path, habit.line, habit.rule.split(";")[0]) for habit in habits_broken(tmp_path, ("ui",))] == [
        ("ui/views/pages.py", 6, "the ORM in a view")]


def test_planted_literals_and_splits_fail(tmp_path):
    (tmp_path / "ui").mkdir()
    (tmp_path / "ui" / "views.py").write_text(textwrap.dedent('''
        from validators.findings import Severity
        def view(finding, run, switch, rows, subject, role):
            a = finding.severity == Severity.ERROR  # through the constant: fine
            b = finding.severity == "error"
            c = run.status in ("succeeded", "failed")
            d = switch["role"] != "spine"
            e = [row for row in rows if row.get("status") == "skipped"]
            f = subject.split("<->")
            g = "<->".join(rows)
            h = role == "leaf"
            i = finding.kind == "error"  # not a vocabulary field: fine
            return a, b, c, d, e, f, g, h, i
    '''))
    assert [(habit.line, habit.rule.split(";")[0]) for habit in habits_broken(tmp_path, ("ui",))] == [
        (5, "a vocabulary literal"), (6, "a vocabulary literal"), (7, "a vocabulary literal"),
        (8, "a vocabulary literal"), (9, "a finding subject by hand"), (10, "a finding subject by hand"),
        (11, "a vocabulary literal")]
