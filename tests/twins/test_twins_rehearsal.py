"""A change rehearsal is a recorded twin operation (issue #28: every twin action has a record), reached through
the twins app: booted, checked and torn down with the engine faked here (the live rehearsal is
tests/changes/test_changes_rehearsal.py, root + FRR)."""

from __future__ import annotations

import pytest

from common.runs import RunStatus
from compiler.errors import TwinError
from intents import services as intent_services
from twins import checks
from twins.choices import TwinOperationKindChoices
from twins.models import TwinOperation
from twins.selectors import twin_operation_busy
from validators.findings import Finding, Report, Severity


@pytest.fixture
def engine(monkeypatch):
    """The engine's boot, checks and teardown recorded instead of run."""
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(checks, "twin_prerequisites", lambda: [])
    monkeypatch.setattr(checks, "topology_from_compile", lambda result, name_prefix, max_servers_per_leaf: name_prefix)

    def up(topology, state_dir, installation):
        calls.append(("up", topology))
        busy = TwinOperation.objects.get(prefix=topology)
        assert busy.status == RunStatus.RUNNING and busy.runner  # written before the work: the reaper sees it
        return topology

    monkeypatch.setattr(checks.runtime, "up", up)
    monkeypatch.setattr(checks.runtime, "down", lambda prefix, **kwargs: calls.append(("down", prefix)))
    report = Report("live")
    report.add("ping", [Finding(check="ping", severity=Severity.ERROR, subject="leaf1", expected="reply",
                                actual="none", message="leaf1 cannot reach leaf2")])
    monkeypatch.setattr(checks.live, "verify", lambda state, failover, converge_timeout_s: (report, {}))
    return calls


def test_a_rehearsal_is_recorded_and_its_scratch_twin_torn_down(twin_intent, engine):
    run = intent_services.compile_run_create(fabric_intent=twin_intent)
    rehearsal = checks.twin_rehearsal(compile_run_id=run.pk, timeout_s=5, change_set_id=7)
    assert isinstance(rehearsal, Report) and rehearsal.checks["ping"].status == "failed"
    operation = TwinOperation.objects.get()
    assert (operation.kind, operation.status, operation.fabric) == (
        TwinOperationKindChoices.REHEARSAL, RunStatus.SUCCEEDED, twin_intent.fabric.name)
    assert operation.params == {"compile_run": run.pk, "change_set": 7}
    assert operation.summary == {"checks": 1, "failed": 1}
    assert operation.prefix.startswith(checks.REHEARSAL_PREFIX) and engine == [
        ("up", operation.prefix), ("down", operation.prefix)]


def test_a_rehearsal_that_cannot_boot_fails_its_record_and_raises_as_before(twin_intent, engine, monkeypatch):
    run = intent_services.compile_run_create(fabric_intent=twin_intent)

    def refuse(topology, state_dir, installation):
        raise TwinError("no room for another twin")

    monkeypatch.setattr(checks.runtime, "up", refuse)
    with pytest.raises(TwinError, match="no room"):
        checks.twin_rehearsal(compile_run_id=run.pk, timeout_s=5)
    operation = TwinOperation.objects.get()
    assert (operation.status, operation.error) == (RunStatus.FAILED, "no room for another twin")
    assert engine == [("down", operation.prefix)]  # torn down all the same


def test_no_twin_host_skips_with_the_reason_and_records_nothing(twin_intent, monkeypatch):
    run = intent_services.compile_run_create(fabric_intent=twin_intent)
    monkeypatch.setattr(checks, "twin_prerequisites", lambda: ["needs root"])
    assert checks.twin_rehearsal(compile_run_id=run.pk, timeout_s=5) == \
        "skipped: the twin cannot run here (needs root)"
    assert not TwinOperation.objects.exists()


def test_a_running_rehearsal_does_not_hold_the_fabrics_twin(twin_intent):
    fabric = twin_intent.fabric
    TwinOperation.objects.create(kind=TwinOperationKindChoices.REHEARSAL, fabric=fabric.name, status=RunStatus.RUNNING)
    assert twin_operation_busy(fabric=fabric) is None
    ping = TwinOperation.objects.create(kind=TwinOperationKindChoices.PING, fabric=fabric.name,
                                        status=RunStatus.RUNNING)
    assert twin_operation_busy(fabric=fabric) == ping
