"""Writes of the validation app: ``validation_run_create`` (prepare + execute now) for the API and the command,
``validation_run_prepare`` + ``validation_run_execute`` for the Celery path.

The fabric is compiled exactly as the intents app compiles it (allocations synced, the snapshot built by
``intents.adapters.fabric_snapshot``, ``compiler.api.compile_fabric``), then ``validators.run.validate_fabric``
runs; the report's per-check summary and every finding are stored in one transaction. A run that cannot
complete (invalid intent, unknown check name) is stored as failed with the field errors; nothing is half-saved.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from compiler import api as compiler_api
from compiler.errors import FabricTwinError, IntentValidationError
from intents import services as intent_services
from intents.adapters import fabric_snapshot
from intents.models import FabricIntent
from twin.runs import runner_id
from validators.configs import ConfigValidation, validate_configs
from validators.run import select_checks, validate_fabric

from .models import ValidationFinding, ValidationRun, ValidationStatusChoices

FINDING_MESSAGE_MAX = 4000


def validation_run_prepare(*, fabric_intent: FabricIntent, checks: Iterable[str] | None = None) -> ValidationRun:
    """A pending run; unknown check names are rejected now (IntentValidationError naming ``checks``)."""
    checks = list(dict.fromkeys(checks or ()))
    if checks:
        select_checks(checks)
    return ValidationRun.objects.create(fabric_intent=fabric_intent, checks=checks)


def validation_run_create(*, fabric_intent: FabricIntent, checks: Iterable[str] | None = None) -> ValidationRun:
    """Validate now, in this process; returns the finished run (status succeeded or failed)."""
    run = validation_run_prepare(fabric_intent=fabric_intent, checks=checks)
    return validation_run_execute(run=run)


def validation_run_execute(*, run: ValidationRun) -> ValidationRun:
    run.status, run.started, run.runner = ValidationStatusChoices.RUNNING, timezone.now(), runner_id()
    run.save(update_fields=["status", "started", "runner"])  # the reaper (twin.runs) knows who runs it
    started = time.perf_counter()
    try:
        intent_services.allocations_sync(fabric_intent=run.fabric_intent)
        snapshot = fabric_snapshot(run.fabric_intent)
        result = compiler_api.compile_fabric(snapshot)
        report = validate_fabric(result, checks=run.checks or None, title=f"validation of {run.fabric_intent.name}")
        with transaction.atomic():
            _store(run, report, len(result.structured))
            run.status = ValidationStatusChoices.SUCCEEDED
            _finish(run, started)
    except FabricTwinError as exc:
        run.status, run.error = ValidationStatusChoices.FAILED, str(exc)
        run.error_fields = exc.as_dict() if isinstance(exc, IntentValidationError) else {}
        _finish(run, started)
    except Exception as exc:
        run.status, run.error = ValidationStatusChoices.FAILED, f"internal error: {type(exc).__name__}: {exc}"
        _finish(run, started)
        raise
    return run


def _store(run: ValidationRun, report, device_count: int) -> None:
    data = report.as_dict()
    summary = {"title": data["title"], "checks": {}}
    for check in data["checks"]:
        summary["checks"][check["name"]] = {"status": check["status"], "reason": check["reason"],
                                            "counts": check["counts"],
                                            "seconds": round(report.timings.get(check["name"], 0.0), 4)}
    whatif = getattr(report.context, "whatif_result", None)
    if whatif is not None and whatif.scenarios:
        worst, worst_pair = whatif.worst(), whatif.worst(whatif.double())
        summary["whatif"] = {"engine": whatif.engine, "scenarios": len(whatif.single()),
                             "spine_pair_scenarios": len(whatif.double()),
                             "baseline_min_ecmp": whatif.baseline_min_ecmp,
                             "breaking": [s.as_dict() for s in whatif.breaking()[:50]],
                             "worst": worst.as_dict() if worst else None,
                             "worst_spine_pair": worst_pair.as_dict() if worst_pair else None}
    matrix = report.context.leaf_pairs if report.context.leaf_pairs.leaves else None
    if matrix is not None:
        summary["leaf_pairs"] = matrix.summary()
    counts = data["counts"]
    totals = {"error": 0, "warning": 0, "info": 0}
    rows = []
    for finding in report.findings:
        totals[finding.severity] += 1
        row = finding.as_dict()
        rows.append(ValidationFinding(run=run, check_name=row["check"], severity=row["severity"],
                                      subject=row["subject"][:300], expected=row["expected"], actual=row["actual"],
                                      message=row["message"][:FINDING_MESSAGE_MAX]))
    ValidationFinding.objects.bulk_create(rows, batch_size=1000)
    run.summary = summary
    run.ok = data["ok"]
    run.device_count = device_count
    run.checks_passed, run.checks_failed, run.checks_skipped = counts["passed"], counts["failed"], counts["skipped"]
    run.error_count, run.warning_count, run.info_count = totals["error"], totals["warning"], totals["info"]


def _finish(run: ValidationRun, started: float) -> None:
    run.finished = timezone.now()
    run.duration_s = round(time.perf_counter() - started, 4)
    run.save()


def validation_configs_run(*, device_files: dict[str, dict[str, str]], fabric_intent: FabricIntent | None = None,
                           checks: Iterable[str] | None = None) -> ConfigValidation:
    """Validate uploaded or pulled device configs as text (validators.configs); with a fabric intent its inventory
    serves the checks that need one when the hostnames match. Nothing is stored: the report is the answer."""
    snapshot = fabric_snapshot(fabric_intent) if fabric_intent is not None else None
    return validate_configs(device_files, snapshot=snapshot, checks=list(checks) if checks else None)
