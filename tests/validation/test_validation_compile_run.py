"""Validation runs validate the STORED configs of the compile run they point at (issue #14): an edit of a stored
row is found, a fresh compile is not made behind the run's back, a compile run whose fabric changed since is
refused by name, and a validation without a compile run compiles first and records that compile run."""

import pytest

from compiler.errors import InputError
from intents import services as intent_services
from intents.models import CompileRun
from validation import services
from validation.models import ValidationFinding


def _break_stored_mtu(run: CompileRun, host: str) -> str:
    """Set the MTU of ``host``'s first fabric port to 1500 in every stored row of ``run``; returns the port."""
    for row in run.device_configs.filter(hostname=host):
        interface = next(item for item in row.structured["interfaces"] if item["kind"] == "fabric")
        interface["mtu"] = 1500
        row.save(update_fields=["structured"])
    return interface["name"]


def test_a_validation_without_a_compile_run_compiles_first_and_records_it(validation_intent):
    run = services.validation_run_create(fabric_intent=validation_intent, checks=["mtu"])
    assert run.status == "succeeded" and run.ok is True, run.error
    assert run.compile_run is not None and run.compile_run.status == "succeeded"
    assert run.compile_run.fabric_intent == validation_intent and run.device_count == 6


def test_the_stored_configs_are_validated_not_a_fresh_compile(validation_intent):
    compiled = intent_services.compile_run_create(fabric_intent=validation_intent)
    port = _break_stored_mtu(compiled, "leaf1")
    run = services.validation_run_create(fabric_intent=validation_intent, checks=["mtu.links"], compile_run=compiled)
    assert run.status == "succeeded" and run.ok is False and run.compile_run == compiled
    finding = ValidationFinding.objects.get(run=run, check_name="mtu.links", severity="error")
    assert f"leaf1:{port}" in finding.subject and 1500 in (finding.expected, finding.actual)
    assert CompileRun.objects.count() == 1  # nothing was compiled behind its back
    fresh = services.validation_run_create(fabric_intent=validation_intent, checks=["mtu.links"])
    assert fresh.ok is True and fresh.compile_run != compiled  # a new compile does not carry the edit


def test_a_compile_run_whose_fabric_changed_since_is_refused(validation_intent):
    compiled = intent_services.compile_run_create(fabric_intent=validation_intent)
    tenant = validation_intent.tenants.get(name="A")
    intent_services.network_create(tenant=tenant, name="net20", vlan_id=20, subnet="10.20.0.0/24",
                                   gateway="10.20.0.1")
    run = services.validation_run_create(fabric_intent=validation_intent, compile_run=compiled)
    assert run.status == "failed" and run.ok is None and "changed since it was compiled" in run.error
    assert list(run.error_fields) == ["compile_run"] and not run.findings.exists()


def test_an_inventory_change_since_the_compile_is_refused_too(validation_intent):
    from inventory.models import Cable

    compiled = intent_services.compile_run_create(fabric_intent=validation_intent)
    cable = Cable.objects.filter(interfaces__switch__fabric=validation_intent.fabric).order_by("label").first()
    Cable.objects.filter(pk=cable.pk).update(length_m=cable.length_m + 40)  # headroom depends on it
    run = services.validation_run_create(fabric_intent=validation_intent, compile_run=compiled)
    assert run.status == "failed" and "changed since it was compiled" in run.error


def test_a_compile_run_that_failed_or_covers_part_of_the_fabric_is_refused(validation_intent):
    failed = CompileRun.objects.create(fabric_intent=validation_intent, status="failed", error="pool exhausted")
    run = services.validation_run_create(fabric_intent=validation_intent, compile_run=failed)
    assert run.status == "failed" and "is failed, not succeeded: pool exhausted" in run.error
    partial = intent_services.compile_run_create(fabric_intent=validation_intent, devices=["leaf1"])
    run = services.validation_run_create(fabric_intent=validation_intent, compile_run=partial)
    assert run.status == "failed" and "compiled only some devices" in run.error


def test_a_compile_run_of_another_intent_is_refused_before_any_row(validation_intent):
    other = intent_services.fabric_intent_create(fabric=validation_intent.fabric, name="other-intent")
    compiled = CompileRun.objects.create(fabric_intent=other, status="succeeded")
    with pytest.raises(InputError, match="compile_run"):
        services.validation_run_prepare(fabric_intent=validation_intent, compile_run=compiled)
    assert not validation_intent.validation_runs.exists()


def test_the_api_takes_a_compile_run_and_reports_it(validation_api, validation_intent):
    compiled = intent_services.compile_run_create(fabric_intent=validation_intent)
    response = validation_api.post("/api/validation-runs/", {"fabric_intent": validation_intent.pk,
                                                             "compile_run": compiled.pk, "checks": ["mtu"]},
                                   format="json")
    assert response.status_code == 201, response.data
    assert response.data["compile_run"]["id"] == compiled.pk and response.data["ok"] is True
