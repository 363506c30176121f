"""The UI's one door to the other apps (inventory, intents, validation, twins, changes): each function calls the
owning app's services/selectors; the views only render what comes back."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db import transaction

from changes import drift as change_drift
from changes import services as change_services
from changes.choices import RolloutKindChoices, RolloutStateChoices, RolloutTargetChoices, wave_label
from changes.selectors import (
    drift_latest,
    rollout_config_changes,
    rollout_list,
    rollout_roce_gate,
    rollout_table,
    step_list,
)
from changes.selectors import rollout_progress as changes_rollout_progress
from common.runs import RunStatus
from compiler.blast import blast_radius as compiler_blast_radius
from compiler.errors import FabricTwinError, FieldError, InputError
from intents import selectors as intent_selectors
from intents.adapters import fabric_snapshot
from intents.selectors import compile_run_latest, fabric_intent_list
from intents.services import compile_run_prepare
from intents.tasks import compile_run_start
from inventory.adapters import inventory_snapshot as inventory_adapter_snapshot
from twins import services as twin_services
from twins.choices import TwinStatusChoices
from twins.selectors import twin_of
from twins.tasks import twin_operation_start
from validation import services as validation_services
from validation.models import ValidationRun
from validation.selectors import validation_findings
from validation.selectors import validation_report as stored_report
from validation.tasks import validation_run_start
from validators.findings import Finding
from validators.physical import check_physical, physical_report
from validators.subjects import Subject

# --------------------------------------------------------------------------------------------- snapshots


def inventory_snapshot(fabric):
    return inventory_adapter_snapshot(fabric)


# --------------------------------------------------------------------------------------------- findings


def physical_findings(inventory) -> list:
    """The physical checks run live on the inventory (pure validators); used until a validation run exists."""
    return check_physical(inventory)


def latest_findings(fabric, inventory=None) -> tuple[list, str]:
    """(findings, source label) of the newest validation run; live physical checks when there is none."""
    run = latest_validation_run(fabric)
    if run is not None:
        return run_findings(run), f"validation run #{run.pk}"
    inventory = inventory if inventory is not None else inventory_snapshot(fabric)
    return physical_findings(inventory), "live physical checks (no validation run yet)"


def findings_for_device(fabric, hostname: str, interface: str | None = None) -> list:
    findings, _ = latest_findings(fabric)
    prefix = f"{hostname}:{interface}" if interface else hostname
    return [finding for finding in findings if _mentions(finding.subject, prefix, exact_port=interface is not None)]


def _mentions(subject: str, prefix: str, exact_port: bool) -> bool:
    for end in Subject.parse(subject).ends:
        part = str(end)
        if part == prefix or (not exact_port and part.startswith(prefix + ":")):
            return True
    return False


def latest_validation_run(fabric):
    """The newest validation run of any intent of ``fabric`` (None when never validated)."""
    return ValidationRun.objects.select_related("fabric_intent").filter(
        fabric_intent__fabric=fabric).order_by("-created", "-id").first()


def _finding(row: dict):
    return Finding(
        check=row["check"], severity=row["severity"], subject=row["subject"], expected=row["expected"],
        actual=row["actual"], message=row["message"])


def run_findings(run) -> list:
    return [_finding(row.as_dict()) for row in validation_findings(run=run)]


# --------------------------------------------------------------------------------------------- status


def fabric_status(fabric) -> dict:
    """Every dashboard panel of one fabric: latest validation, twin, rollouts, drift (or why not available)."""
    return {
        "validation": latest_validation_run(fabric),
        "twin": twin_status(fabric),
        "rollouts": running_rollouts(fabric),
        "drift": drift(fabric),
    }


# --------------------------------------------------------------------------------------------- intents


def intent_summaries() -> list:
    """Every fabric intent with its newest compile run (two queries)."""
    intents = list(intent_selectors.fabric_intent_list().order_by("name"))
    latest: dict[int, object] = {}
    for run in intent_selectors.compile_run_list().filter(fabric_intent__in=intents).order_by("fabric_intent_id", "-created",
                                                                                       "-id"):
        latest.setdefault(run.fabric_intent_id, run)
    return [{"intent": intent, "latest": latest.get(intent.pk)} for intent in intents]


def blast_radius(fabric_intent, change):
    """``compiler.blast.BlastRadius`` of ``change()`` before anyone saves it.

    The change runs through the same intents service as a save, inside a transaction that is always rolled
    back; the snapshots before and after are compared by the compiler. Validation errors of the change
    propagate exactly as a save would raise them.
    """
    # fresh rows, not the caller's object: a bound ModelForm has already written the new values onto it
    model = type(fabric_intent)
    before = fabric_snapshot(model.objects.get(pk=fabric_intent.pk))
    with transaction.atomic():
        change()
        after = fabric_snapshot(model.objects.get(pk=fabric_intent.pk))
        transaction.set_rollback(True)
    return compiler_blast_radius(before, after)


# --------------------------------------------------------------------------------------------- validation


@dataclass
class ReportView:
    """What the validation page shows, whatever produced it."""

    source: str  # "validation run #12" or "live physical checks"
    checks: list  # [CheckResult-like: name, status, reason, counts(), findings]
    findings: list
    run: object = None
    ok: bool = True
    notice: str = ""


def validation_report(fabric) -> ReportView:
    """The newest validation run of ``fabric``; the physical checks run live when there is none."""
    run = latest_validation_run(fabric)
    if run is not None:
        report = stored_report(run=run)
        checks = [{**check, "findings": [_finding(row) for row in check["findings"]]} for check in report["checks"]]
        findings = [finding for check in checks for finding in check["findings"]]
        notice = f"the run itself failed: {run.error}" if run.status == RunStatus.FAILED else (
            f"run #{run.pk} is {run.status}; this page updates itself" if run.active else "")
        return ReportView(f"validation run #{run.pk} of {run.fabric_intent.name} ({run.created:%Y-%m-%d %H:%M})",
                          checks, findings, run, bool(run.ok), notice)
    report = physical_report(inventory_snapshot(fabric))
    notice = "no validation run yet" + \
        "; showing the physical checks run live on the inventory"
    return ReportView("live physical checks", list(report.checks.values()), report.findings, None, report.ok, notice)


def validation_start(fabric, *, user=None):
    """Validate the fabric's intent off the request (``validation.tasks.validation_run_start``: a Celery task, or a
    background thread without a broker). Returns the run as it stands, or the error that refused it."""
    intent = fabric.intents.order_by("name").first()
    if intent is None:
        return InputError(FieldError("fabric", fabric.name, "has no fabric intent to validate"))
    try:
        run = validation_services.validation_run_prepare(fabric_intent=intent, requested_by=user)
    except FabricTwinError as error:
        return error
    validation_run_start(run_id=run.pk)
    run.refresh_from_db()
    return run


def compile_start(fabric_intent, *, user=None):
    """Compile the intent off the request (``intents.tasks.compile_run_start``: a Celery task, or a background
    thread without a broker). Returns the run as it stands, or the error that refused it."""
    try:
        run = compile_run_prepare(fabric_intent=fabric_intent, requested_by=user)
    except FabricTwinError as error:
        return error
    compile_run_start(run_id=run.pk)
    run.refresh_from_db()
    return run


# --------------------------------------------------------------------------------------------- twin


def twin_status(fabric):
    return twin_services.twin_fabric_status(fabric=fabric)


def twin_action(fabric, action: str, *, user=None):
    """Record the operation and start it off the request (``twins.tasks.twin_operation_start``, as the API does);
    the twin page shows its status and polls itself while it runs."""
    try:
        operation = twin_services.twin_operation_create(fabric=fabric, kind=action, user=user)
    except FabricTwinError as error:
        return error
    twin_operation_start(operation_id=operation.pk)
    operation.refresh_from_db()
    return operation


# --------------------------------------------------------------------------------------------- rollouts


def recent_rollouts(limit: int = 8):
    return rollout_table(limit=limit)


def running_rollouts(fabric):
    """Unfinished rollouts of change sets compiled from this fabric's intents."""
    intents = list(fabric.intents.values_list("name", flat=True)) if hasattr(fabric, "intents") else []
    return list(rollout_list().filter(change_set__fabric_name__in=intents,
                                      state__in=(RolloutStateChoices.PENDING, RolloutStateChoices.AWAITING_APPROVAL,
                                                 RolloutStateChoices.RUNNING, RolloutStateChoices.PAUSED)))


def drift(fabric):
    """Newest drift record per device of this fabric: {"drifted": n, "checked": n} or None when never checked."""
    hostnames = set(fabric.switches.values_list("hostname", flat=True))
    records = [record for record in drift_latest() if record.hostname in hostnames]
    if not records:
        return None
    return {"drifted": sum(1 for record in records if record.drifted), "checked": len(records)}


def drift_rows(hostname: str = "") -> list[dict]:
    """The newest drift record per device (or of one device) with its remediation as text (the drift page)."""
    return [{"record": record, "remediation": change_drift.remediation_text(record.remediation)
             if record.remediation else ""}
            for record in drift_latest() if not hostname or record.hostname == hostname]


def rollout_create_options():
    return {"intents": list(fabric_intent_list().order_by("name").values_list("name", flat=True))}


def rollout_create(data, *, user=None):
    """A canary push of the intent's newest compile run, to its fabric's twin or to production devices.

    Returns the rollout, or the domain error (named field and value) to show."""
    intent = fabric_intent_list().filter(name=data.get("intent", "")).first()
    target = data.get("target", "twin")
    try:
        if intent is None:
            raise InputError(FieldError("intent", data.get("intent"), "no fabric intent of this name"))
        run = compile_run_latest(fabric_intent=intent)
        if run is None:
            raise InputError(FieldError("intent", intent.name, "never compiled: compile it first"))
        twin = None
        if target == RolloutTargetChoices.TWIN:
            twin = twin_of(fabric_intent=intent)
            if twin is None or twin.status not in (TwinStatusChoices.UP, TwinStatusChoices.DEGRADED):
                raise InputError(FieldError("target", target, f"the twin of {intent.name} is not "
                                                                         "running: start it on the Twin page"))
        change_set = change_services.changeset_create_from_compile_run(
            compile_run_id=run.pk, target=target, twin=twin, user=user)
        return change_services.rollout_create(
            name=f"{intent.name} canary → {target} (compile #{run.pk})", kind=RolloutKindChoices.CANARY_PUSH, target=target,
            change_set=change_set, twin=twin, user=user)
    except FabricTwinError as error:
        return error


def rollout_get(pk: int):
    return rollout_list().filter(pk=pk).first()


FINAL_ROLLOUT_STATES = (RolloutStateChoices.SUCCEEDED, RolloutStateChoices.FAILED, RolloutStateChoices.CANCELLED,
                        RolloutStateChoices.ROLLED_BACK)


def rollout_progress(rollout) -> dict:
    """Planned waves with each device's steps (one query) and the changes app's progress counts."""
    steps_by_device: dict[str, list] = {}
    rollout_wide = []
    for step in step_list(rollout=rollout):
        (steps_by_device.setdefault(step.device, []) if step.device else rollout_wide).append(step)
    waves = [(wave_label(number, rollout.kind), [{"device": device, "steps": steps_by_device.get(device, [])}
                                                  for device in devices])
             for number, devices in enumerate(rollout.plan.get("waves", []), start=1)]
    counts = changes_rollout_progress(rollout=rollout)
    if counts["current"]:
        counts["current"]["wave_label"] = wave_label(counts["current"]["wave"], rollout.kind)
    total = counts["devices_total"]
    return {"waves": waves, "rollout_steps": rollout_wide, "counts": counts, "final": counts["finished"],
            "percent": round(100 * counts["devices_done"] / total) if total else (100 if counts["finished"] else 0),
            "unchanged": rollout.plan.get("unchanged", []), "roce_gate": rollout_roce_gate(rollout=rollout)}


def rollout_changes(rollout) -> dict:
    """The config diff per changed device of the rollout (read by whoever approves it)."""
    devices, total = rollout_config_changes(rollout=rollout)
    return {"changes": devices, "changes_total": total}


def rollout_action(rollout, action: str, *, user=None):
    """approve | start | resume | pause | cancel through the changes services; returns the error to show."""
    calls = {"approve": change_services.rollout_approve, "start": change_services.rollout_start,
             "resume": change_services.rollout_start, "pause": change_services.rollout_pause,
             "cancel": change_services.rollout_cancel}
    try:
        return calls[action](rollout=rollout, user=user)
    except (FabricTwinError, PermissionDenied) as error:
        return error
