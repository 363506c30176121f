"""Typed contracts of the validators: Finding by keyword only, one input shape (ValidationInput), a typed
ValidationResult instead of attributes set on a Report, and no import circle inside the package."""

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest
from validator_fabrics import compiled

from validators.context import FabricContext, ValidationInput, as_context
from validators.findings import Finding, Report, Severity
from validators.run import ValidationResult, validate_fabric

VALIDATORS = Path(__file__).resolve().parents[2] / "validators"


def test_finding_is_built_by_keyword():
    finding = Finding(check="mtu.links", severity=Severity.ERROR, subject="leaf1:Ethernet1", expected=9214,
                      actual=9000, message="MTU differs")
    assert finding.as_dict()["expected"] == 9214 and finding.as_dict()["actual"] == 9000


def test_positional_finding_is_refused():
    with pytest.raises(TypeError):
        Finding("mtu.links", Severity.ERROR, "leaf1:Ethernet1", 9214, 9000, "MTU differs")  # type: ignore[misc]


def test_validation_input_from_a_compile_carries_what_the_checks_read():
    result = compiled()
    source = ValidationInput.from_compile(result)
    assert source.structured is result.structured and source.snapshot is result.snapshot
    assert source.rendered is result.rendered
    ctx = as_context(source)
    assert isinstance(ctx, FabricContext) and ctx.inventory is result.snapshot.inventory


def test_validate_fabric_returns_a_typed_result():
    result = compiled()
    report = validate_fabric(ValidationInput.from_compile(result), checks=["mtu", "whatif"])
    assert isinstance(report, ValidationResult) and isinstance(report, Report)
    assert set(report.timings) == set(report.checks) == set(report.cpu_timings)
    assert report.context.structured is result.structured
    assert report.context.whatif_result is not None  # computed once, kept on the typed context field


def test_stored_configs_without_a_snapshot_skip_the_inventory_checks():
    report = validate_fabric(ValidationInput(structured=dict(compiled().structured)), checks=["physical"])
    assert report.checks and all(result.status == "skipped" for result in report.checks.values())


def test_an_untyped_stand_in_is_refused():
    stand_in = SimpleNamespace(structured=dict(compiled().structured), snapshot=None)
    with pytest.raises(TypeError, match="ValidationInput"):
        validate_fabric(stand_in)  # type: ignore[arg-type]


def _validators_imports(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("validators"):
            modules.add(node.module)
    return modules


@pytest.mark.parametrize("module", ["common", "sessions", "routing", "leaf_pairs"])
def test_what_the_context_builds_does_not_import_the_context(module):
    """context -> sessions/routing/leaf_pairs is one way: none of them imports validators.context (not even
    inside a function), so there is no circle to hide behind a lazy import."""
    assert "validators.context" not in _validators_imports(VALIDATORS / f"{module}.py")
