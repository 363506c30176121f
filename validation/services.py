"""Writes of the validation app: ``validation_run_create`` (prepare + execute now) for the API and the command,
``validation_run_prepare`` + ``validation_run_execute`` for the Celery path.

A validation run checks the STORED configs of one compile run (``intents.selectors.compile_run_result``: the
structured configs and renderings exactly as that run stored them), never a fresh compile of the intent. A
request without a compile run compiles first (``intents.services.compile_run_create``) and records that compile
run on the validation run. ``validators.run.validate_fabric`` runs on it; the report's per-check summary and
every finding are stored in one transaction. ``common.runs.run_execute`` owns the run's lifecycle: a run that
cannot complete (invalid intent, failed compile, a compile run whose fabric changed since) is stored as failed
with the field errors; nothing is half-saved.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from common.redaction import config_secrets_shown
from common.runs import RunStatus, run_execute
from compiler.errors import FabricTwinError, FieldError, InputError
from intents import services as intent_services
from intents.adapters import fabric_snapshot, snapshot_sha256
from intents.models import CompileRun, FabricIntent
from intents.selectors import compile_run_result
from inventory.adapters import inventory_snapshot
from validators.collective import FabricGraph, HashConfig, HashPolicy, Job, Scenario
from validators.collective.check import check_collective
from validators.collective.whatif import check_budget, compare, link_loads
from validators.configs import ConfigValidation, validate_configs
from validators.run import select_checks, validate_fabric

from .models import ValidationFinding, ValidationRun

FINDING_MESSAGE_MAX = 4000


class CompileRunFailed(FabricTwinError):
    """The compile a validation ran first failed: the validation fails with that run's error and its field
    errors exactly as stored (``as_dict`` is what ``common.runs.run_execute`` records as ``error_fields``)."""

    def __init__(self, compile_run: CompileRun) -> None:
        super().__init__(f"compile run #{compile_run.pk} failed: {compile_run.error}")
        self.error_fields = dict(compile_run.error_fields)

    def as_dict(self) -> dict[str, list[str]]:
        return self.error_fields


OUTCOME_FIELDS = ("compile_run", "ok", "device_count", "checks_passed", "checks_failed", "checks_skipped",
                  "error_count", "warning_count", "info_count")


def validation_run_prepare(*, fabric_intent: FabricIntent, checks: Iterable[str] | None = None,
                           compile_run: CompileRun | None = None, requested_by=None) -> ValidationRun:
    """A pending run; unknown check names (``checks``) and a compile run of another intent (``compile_run``) are
    rejected now, before any row exists."""
    checks = list(dict.fromkeys(checks or ()))
    if checks:
        select_checks(checks)
    if compile_run is not None and compile_run.fabric_intent_id != fabric_intent.pk:
        raise InputError(FieldError("compile_run", compile_run.pk,
                                               f"belongs to another fabric intent than {fabric_intent.name}"))
    requested_by = requested_by if requested_by is not None and requested_by.is_authenticated else None
    return ValidationRun.objects.create(fabric_intent=fabric_intent, checks=checks, compile_run=compile_run,
                                        requested_by=requested_by)


def validation_run_create(*, fabric_intent: FabricIntent, checks: Iterable[str] | None = None,
                          compile_run: CompileRun | None = None, requested_by=None) -> ValidationRun:
    """Validate now, in this process; returns the finished run (status succeeded or failed)."""
    run = validation_run_prepare(fabric_intent=fabric_intent, checks=checks, compile_run=compile_run,
                                 requested_by=requested_by)
    return validation_run_execute(run=run)


def validation_run_execute(*, run: ValidationRun) -> ValidationRun:
    with run_execute(run, update_fields=OUTCOME_FIELDS):
        requested = run.compile_run is not None
        compiled = _compile_run_of(run)
        result = compile_run_result(run=compiled)
        # A compile made just now for this run compiled this snapshot; a requested one may be older.
        if requested and compiled.snapshot_sha256 != snapshot_sha256(result.snapshot):
            raise InputError(FieldError("compile_run", compiled.pk, "the inventory, intent or allocations "
                                                   "changed since it was compiled: validate a new compile"))
        report = validate_fabric(result, checks=run.checks or None, title=f"validation of {run.fabric_intent.name}")
        with transaction.atomic():
            _store(run, report, len(result.structured))
    return run


def _compile_run_of(run: ValidationRun) -> CompileRun:
    """The requested compile run, or a new compile of the intent, recorded on the validation run first."""
    if run.compile_run is not None:
        return run.compile_run
    compiled = intent_services.compile_run_create(fabric_intent=run.fabric_intent)
    ValidationRun.objects.filter(pk=run.pk).update(compile_run=compiled)
    run.compile_run = compiled
    if compiled.status != RunStatus.SUCCEEDED:
        raise CompileRunFailed(compiled)
    return compiled


def _store(run: ValidationRun, report, device_count: int) -> None:
    data = report.as_dict()
    summary = {"title": data["title"], "checks": {}}
    for check in data["checks"]:
        summary["checks"][check["name"]] = {"status": check["status"], "reason": check["reason"],
                                            "counts": check["counts"], "examined": check["examined"],
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


def validation_configs_run(*, device_files: dict[str, dict[str, str]], fabric_intent: FabricIntent | None = None,
                           checks: Iterable[str] | None = None, external_peers: str = "info") -> ConfigValidation:
    """Validate uploaded or pulled device configs as text (validators.configs); with a fabric intent its inventory
    serves the checks that need one when the hostnames match; ``external_peers`` is the severity of BGP neighbors
    outside the configs. Nothing is stored: the report is the answer."""
    snapshot = fabric_snapshot(fabric_intent) if fabric_intent is not None else None
    # Secrets become keyed markers before any check reads the text: unmodelled lines and findings quote it.
    device_files = {device: config_secrets_shown(files) for device, files in device_files.items()}
    return validate_configs(device_files, snapshot=snapshot, checks=list(checks) if checks else None,
                            external_peers=external_peers)


COLLECTIVE_FIELD_NAMES = {"hashing.default.function": "hash_function", "hashing.default.fields": "hash_fields",
                          "hashing.default.seed": "hash_seed", "hashing.default.offset": "hash_offset"}


def collective_predict(*, fabric, options: dict) -> dict:
    """One job's collective on ``fabric``'s stored inventory: the prediction, ``collective.bottleneck``, the
    per-tier link loads (heat map) and the side-by-side what-ifs (validators.collective.whatif). Nothing is
    stored. ``options`` are the API request's fields (validation.api.serializers.CollectiveRequestSerializer, the
    UI form the same); the work is bounded by whatif.check_budget before any simulation (a field-named 400)."""
    inventory = inventory_snapshot(fabric)
    config = HashConfig(function=options["hash_function"], fields=options["hash_fields"],
                        seed=options["hash_seed"], offset=options.get("hash_offset", 0), dlb=options["dlb"])
    scenario = Scenario(job=Job(gpus=options.get("gpus") or 0, servers=tuple(options.get("servers") or ())),
                        collective=options["collective"], qps=options["qps"], channels=options["channels"],
                        sport=options["sport"], pinned_sports=tuple(options.get("pinned_sports") or ()),
                        encapsulation=options["encapsulation"], trials=options["trials"],
                        hashing=HashPolicy(default=config, distinct_seeds=options["distinct_seeds"]))
    graph = FabricGraph(inventory)
    what_if_qps = options["what_if_qps"]
    try:
        check_budget(inventory, graph, scenario, what_if_qps)
    except InputError as error:  # name the request's fields: hashing.default.offset is the request's hash_offset
        raise InputError([FieldError(COLLECTIVE_FIELD_NAMES.get(problem.field, problem.field), problem.value,
                                     problem.message) for problem in error.errors]) from None
    # the QP search re-simulates up to 7 times: the what-ifs say what QPs do here
    result = check_collective(inventory, scenario, limit=options["limit"], graph=graph, search_qps=False)
    return {**result.as_dict(), "link_loads": link_loads(result.prediction, graph),
            "what_if": [row.as_dict() for row in compare(inventory, scenario, what_if_qps, graph=graph,
                                                         base=result.prediction)]}
