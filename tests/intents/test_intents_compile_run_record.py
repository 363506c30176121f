"""Compile runs through the one run record: an invalid intent fails the run with its field errors (a domain
error, nothing raised); a bug in the compiler fails it as "internal error" and is raised."""

import pytest

from compiler import api as compiler_api
from compiler.errors import FieldError, IntentValidationError
from intents import services


def test_compile_run_succeeds_and_records_what_it_compiled(fabric_intent):
    run = services.compile_run_create(fabric_intent=fabric_intent, platforms=["eos"])
    assert run.status == "succeeded" and run.kind == "compile" and run.device_count > 0
    assert len(run.snapshot_sha256) == 64 and run.started and run.finished and run.duration_s is not None


def test_compile_run_domain_error_is_recorded_not_raised(fabric_intent, monkeypatch):
    def refuse(snapshot, platforms=None):
        raise IntentValidationError(FieldError("networks[net10].subnet", "10.10.0.0/30", "too small"))

    monkeypatch.setattr(compiler_api, "compile_fabric", refuse)
    run = services.compile_run_create(fabric_intent=fabric_intent)
    run.refresh_from_db()
    assert run.status == "failed" and run.error == "networks[net10].subnet='10.10.0.0/30': too small"
    assert run.error_fields == {"networks[net10].subnet": ["too small (got '10.10.0.0/30')"]}
    assert not run.device_configs.exists()


def test_compile_run_bug_is_recorded_as_internal_error_and_raised(fabric_intent, monkeypatch):
    def bug(snapshot, platforms=None):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(compiler_api, "compile_fabric", bug)
    with pytest.raises(ZeroDivisionError):
        services.compile_run_create(fabric_intent=fabric_intent)
    (run,) = fabric_intent.compile_runs.all()
    assert run.status == "failed" and run.error == "internal error: ZeroDivisionError: division by zero"
