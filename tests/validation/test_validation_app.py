"""The validation app: service, API (sync and Celery), report filters and ``manage.py validate`` exit codes."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from compiler import api as compiler_api
from compiler.errors import InputError, IntentValidationError
from validation import selectors, services
from validation.models import ValidationFinding, ValidationRun


def test_service_validates_a_correct_fabric(validation_intent):
    run = services.validation_run_create(fabric_intent=validation_intent)
    assert run.status == "succeeded" and run.ok is True, run.error
    assert run.error_count == 0 and run.checks_failed == 0
    assert run.device_count == 6
    assert run.summary["checks"]["routing.ecmp"]["status"] == "passed"
    assert run.summary["checks"]["batfish"]["status"] == "skipped"
    assert run.summary["whatif"]["scenarios"] == 2 + 8 and run.summary["whatif"]["baseline_min_ecmp"] == 2
    assert run.summary["leaf_pairs"]["min_ecmp"] == 2


def test_service_records_findings_of_a_broken_fabric(broken_headroom):
    run = services.validation_run_create(fabric_intent=broken_headroom)
    assert run.status == "succeeded" and run.ok is False
    assert run.summary["checks"]["roce.headroom"]["status"] == "failed"
    rows = ValidationFinding.objects.filter(run=run, check_name="roce.headroom", severity="error")
    assert rows.count() == run.summary["checks"]["roce.headroom"]["counts"]["error"] > 0
    assert "needs" in rows.first().message


def test_subset_and_unknown_checks(validation_intent):
    run = services.validation_run_create(fabric_intent=validation_intent, checks=["bgp", "mtu.links"])
    assert list(run.summary["checks"]) == ["bgp.sessions", "bgp.timers_bfd", "bgp.router_ids", "bgp.asns",
                                           "mtu.links"]
    before = ValidationRun.objects.count()
    with pytest.raises(InputError):
        services.validation_run_create(fabric_intent=validation_intent, checks=["bogus"])
    assert ValidationRun.objects.count() == before  # nothing saved for a rejected request


def test_report_filters(broken_headroom):
    run = services.validation_run_create(fabric_intent=broken_headroom)
    report = selectors.validation_report(run=run, check="roce", severity="error")
    assert {check["name"] for check in report["checks"]} == {"roce.chain", "roce.pfc", "roce.ecn", "roce.cnp",
                                                             "roce.watchdog", "roce.trust", "roce.isolation", "roce.platform",
                                                             "roce.headroom", "roce.deadlock"}
    findings = [f for check in report["checks"] for f in check["findings"]]
    assert findings and all(f["check"] == "roce.headroom" and f["severity"] == "error" for f in findings)
    assert "FAILED" in selectors.validation_report_text(report)
    # What each check examined is stored with the run and shown (issue 25: no verdict without its coverage).
    headroom = next(check for check in report["checks"] if check["name"] == "roce.headroom")
    assert headroom["examined"]["lossless ports"] > 0 and report["counts"]["incomplete"] == 0
    assert f"[FAILED ] roce.headroom: examined {headroom['examined']['lossless ports']} lossless ports" in \
        selectors.validation_report_text(report)


def test_api_sync_run_report_and_findings(validation_api, broken_headroom):
    response = validation_api.post("/api/validation-runs/", {"fabric_intent": broken_headroom.pk}, format="json")
    assert response.status_code == 201, response.content
    run_id = response.json()["id"]
    assert response.json()["ok"] is False and response.json()["error_count"] > 0
    report = validation_api.get(f"/api/validation-runs/{run_id}/report/", {"check": "roce.headroom"}).json()
    assert [check["name"] for check in report["checks"]] == ["roce.headroom"]
    assert report["checks"][0]["examined"]["lossless ports"] > 0 and "incomplete" in report["counts"]
    findings = validation_api.get(f"/api/validation-runs/{run_id}/findings/", {"severity": "error"}).json()
    rows = findings["results"] if isinstance(findings, dict) else findings
    assert rows and all(row["severity"] == "error" for row in rows)
    assert validation_api.get(f"/api/validation-runs/{run_id}/report/", {"severity": "bad"}).status_code == 400
    listing = validation_api.get("/api/validation-runs/", {"fabric_intent": broken_headroom.pk}).json()
    assert (listing["count"] if isinstance(listing, dict) else len(listing)) == 1


def test_api_rejects_unknown_checks_and_intents(validation_api, validation_intent):
    response = validation_api.post("/api/validation-runs/", {"fabric_intent": validation_intent.pk,
                                                             "checks": ["nonsense"]}, format="json")
    assert response.status_code == 400 and "checks" in response.json()
    response = validation_api.post("/api/validation-runs/", {"fabric_intent": 999999}, format="json")
    assert response.status_code == 400 and "fabric_intent" in response.json()
    assert ValidationRun.objects.count() == 0


def test_api_background_run_goes_through_the_celery_task(validation_api, validation_intent,
                                                         django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = validation_api.post("/api/validation-runs/", {"fabric_intent": validation_intent.pk,
                                                                 "background": True, "checks": ["routing"]},
                                       format="json")
    assert response.status_code == 202 and response.json()["status"] == "pending"
    run = ValidationRun.objects.get(pk=response.json()["id"])  # eager Celery ran it on commit
    assert run.status == "succeeded" and run.ok is True
    assert set(run.summary["checks"]) == {"routing.vtep_reachability", "routing.igp", "routing.ecmp"}


def test_command_exit_codes(validation_intent, capsys):
    call_command("validate", "--fabric", validation_intent.name, "--checks", "bgp", "routing")
    assert "passed" in capsys.readouterr().out
    call_command("validate", "--fabric", validation_intent.name, "--format", "json", "--checks", "mtu")
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and [c["name"] for c in data["checks"]] == ["mtu.links", "mtu.overlay_budget", "mtu.svi",
                                                                 "mtu.port_channels"]
    with pytest.raises(CommandError, match="checks"):
        call_command("validate", "--fabric", validation_intent.name, "--checks", "nope")


def test_command_fails_on_error_findings(broken_headroom, capsys):
    with pytest.raises(SystemExit) as raised:
        call_command("validate", "--fabric", broken_headroom.name, "--checks", "roce.headroom")
    assert raised.value.code == 1
    assert "roce.headroom" in capsys.readouterr().out


def test_a_run_that_cannot_compile_is_stored_failed(validation_api, validation_intent, monkeypatch):
    from compiler.errors import FieldError

    def refuse(snapshot, platforms=None):
        raise IntentValidationError(FieldError("networks[net10].subnet", "10.10.0.0/30", "too small"))

    monkeypatch.setattr(compiler_api, "compile_fabric", refuse)  # the compile it runs first
    run = services.validation_run_create(fabric_intent=validation_intent)
    assert run.status == "failed" and run.ok is None
    assert run.compile_run.status == "failed" and run.error.startswith(f"compile run #{run.compile_run.pk} failed")
    assert run.error_fields == run.compile_run.error_fields
    assert "networks[net10].subnet" in run.error_fields and ValidationFinding.objects.filter(run=run).count() == 0
    response = validation_api.post("/api/validation-runs/", {"fabric_intent": validation_intent.pk}, format="json")
    assert response.status_code == 400 and response.json()["status"] == "failed"
    with pytest.raises(CommandError, match="could not complete"):
        call_command("validate", "--fabric", validation_intent.name)
