"""The UI's one door to the apps built alongside it (intents, validation, labs, changes).

Each function calls the owning app's services/selectors. An app that is not installed (yet) is reported as
``Unavailable(reason)`` so pages render a clear "not available" panel instead of failing; nothing is faked.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from django.apps import apps


@dataclass(frozen=True)
class Unavailable:
    """A panel whose app has not landed or is not installed."""

    what: str
    reason: str

    def __bool__(self) -> bool:  # so templates can write {% if panel %}
        return False


def module(app_label: str, name: str) -> ModuleType | None:
    """``<app_label>.<name>`` when the app is installed and the module imports, else None."""
    if not apps.is_installed(app_label):
        return None
    try:
        return importlib.import_module(f"{app_label}.{name}")
    except ImportError:
        return None


def unavailable(app_label: str, what: str) -> Unavailable:
    if not apps.is_installed(app_label):
        return Unavailable(what, f"the {app_label} app is not installed in this build")
    return Unavailable(what, f"{app_label} does not provide this yet")


# --------------------------------------------------------------------------------------------- snapshots


def inventory_snapshot(fabric):
    from inventory.adapters import inventory_snapshot as snapshot

    return snapshot(fabric)


# --------------------------------------------------------------------------------------------- findings


def physical_findings(inventory) -> list:
    """The physical checks run live on the inventory (pure validators); used until a validation run exists."""
    from validators.physical import check_physical

    return check_physical(inventory)


def latest_findings(fabric, inventory=None) -> tuple[list, str]:
    """(findings, source label) of the newest validation run; live physical checks when there is none."""
    run = latest_validation_run(fabric)
    if run is not None and not isinstance(run, Unavailable):
        return run_findings(run), f"validation run #{run.pk}"
    inventory = inventory if inventory is not None else inventory_snapshot(fabric)
    return physical_findings(inventory), "live physical checks (no validation run yet)"


def findings_for_device(fabric, hostname: str, interface: str | None = None) -> list:
    findings, _ = latest_findings(fabric)
    prefix = f"{hostname}:{interface}" if interface else hostname
    return [finding for finding in findings if _mentions(finding.subject, prefix, exact_port=interface is not None)]


def _mentions(subject: str, prefix: str, exact_port: bool) -> bool:
    for part in subject.split("<->"):
        part = part.strip()
        if part == prefix or (not exact_port and part.startswith(prefix + ":")):
            return True
    return False


def latest_validation_run(fabric):
    selectors = module("validation", "selectors")
    if selectors is None or not hasattr(selectors, "validation_run_latest"):
        return unavailable("validation", "Validation runs")
    return selectors.validation_run_latest(fabric=fabric)


def run_findings(run) -> list:
    selectors = module("validation", "selectors")
    return list(selectors.validation_run_findings(run=run))


# --------------------------------------------------------------------------------------------- status


def fabric_status(fabric) -> dict:
    """Every dashboard panel of one fabric: latest validation, twin, rollouts, drift (or why not available)."""
    return {
        "validation": latest_validation_run(fabric),
        "twin": twin_status(fabric),
        "rollouts": running_rollouts(fabric),
        "drift": drift(fabric),
    }


def twin_status(fabric):
    services = module("labs", "services")
    if services is None or not hasattr(services, "twin_status"):
        return unavailable("labs", "Twin status")
    return services.twin_status(fabric=fabric)


def running_rollouts(fabric):
    selectors = module("changes", "selectors")
    if selectors is None or not hasattr(selectors, "rollout_list"):
        return unavailable("changes", "Rollouts")
    return list(selectors.rollout_list(fabric=fabric, running=True))


def drift(fabric):
    services = module("intents", "selectors")
    if services is None or not hasattr(services, "fabric_drift"):
        return unavailable("intents", "Drift")
    return services.fabric_drift(fabric=fabric)


# --------------------------------------------------------------------------------------------- intents


def intent_summaries() -> list:
    """Every fabric intent with its newest compile run (two queries)."""
    selectors = module("intents", "selectors")
    if selectors is None:
        return []
    intents = list(selectors.fabric_intent_list().order_by("name"))
    latest: dict[int, object] = {}
    for run in selectors.compile_run_list().filter(fabric_intent__in=intents).order_by("fabric_intent_id", "-created",
                                                                                       "-id"):
        latest.setdefault(run.fabric_intent_id, run)
    return [{"intent": intent, "latest": latest.get(intent.pk)} for intent in intents]


def blast_radius(fabric_intent, change):
    """``compiler.blast.BlastRadius`` of ``change()`` before anyone saves it.

    The change runs through the same intents service as a save, inside a transaction that is always rolled
    back; the snapshots before and after are compared by the compiler. Validation errors of the change
    propagate exactly as a save would raise them.
    """
    from django.db import transaction

    from compiler.blast import blast_radius as compare
    from intents.adapters import fabric_snapshot

    before = fabric_snapshot(fabric_intent)
    with transaction.atomic():
        change()
        after = fabric_snapshot(type(fabric_intent).objects.get(pk=fabric_intent.pk))
        transaction.set_rollback(True)
    return compare(before, after)


# --------------------------------------------------------------------------------------------- rollouts


def recent_rollouts(limit: int = 8):
    selectors = module("changes", "selectors")
    if selectors is None or not hasattr(selectors, "rollout_list"):
        return unavailable("changes", "Rollouts")
    return list(selectors.rollout_list()[:limit])


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
    """The newest validation run of ``fabric``; live physical checks when the validation app has none."""
    run = latest_validation_run(fabric)
    if run is not None and not isinstance(run, Unavailable):
        report = run_report(run)
        return ReportView(f"validation run #{run.pk}", list(report.checks.values()), report.findings, run, report.ok)
    from validators.physical import physical_report

    report = physical_report(inventory_snapshot(fabric))
    notice = (run.reason if isinstance(run, Unavailable) else "no validation run yet") + \
        "; showing the physical checks run live on the inventory"
    return ReportView("live physical checks", list(report.checks.values()), report.findings, None, report.ok, notice)


def run_report(run):
    selectors = module("validation", "selectors")
    return selectors.validation_run_report(run=run)


def validation_start(fabric, *, user=None):
    services = module("validation", "services")
    if services is None or not hasattr(services, "validation_run_create"):
        return unavailable("validation", "Validation runs")
    return services.validation_run_create(fabric=fabric, user=user)


# --------------------------------------------------------------------------------------------- twin


def _twin_services():
    return module("labs", "services")


def twin_ping_matrix(fabric):
    services = _twin_services()
    if services is None or not hasattr(services, "twin_ping_matrix"):
        return unavailable("labs", "Ping matrix")
    return services.twin_ping_matrix(fabric=fabric)


def twin_fidelity(fabric):
    services = _twin_services()
    if services is None or not hasattr(services, "twin_fidelity"):
        return unavailable("labs", "Fidelity result")
    return services.twin_fidelity(fabric=fabric)


def twin_failure_choices(fabric) -> list:
    """Fabric links an operator may fail on the twin: (value, label) of every switch-to-switch cable."""
    inventory = inventory_snapshot(fabric)
    from compiler.topology import fabric_cables

    return [(cable.label, f"{cable.a} ↔ {cable.b}") for cable in fabric_cables(inventory)[:500]]


def twin_action(fabric, action: str, data, *, user=None):
    services = _twin_services()
    name = f"twin_{action}"
    if services is None or not hasattr(services, name):
        return unavailable("labs", f"Twin {action}")
    try:
        return getattr(services, name)(fabric=fabric, **({"link": data.get("link")} if data.get("link") else {}))
    except Exception as error:  # shown to the operator; the labs service logs the details
        from compiler.errors import FabricTwinError

        if isinstance(error, FabricTwinError):
            return error
        raise


# --------------------------------------------------------------------------------------------- rollouts


def rollout_create_options():
    services = module("changes", "services")
    if services is None or not hasattr(services, "rollout_create"):
        return unavailable("changes", "Creating rollouts")
    from intents.selectors import fabric_intent_list

    return {"intents": list(fabric_intent_list().values_list("name", flat=True))}


def rollout_create(data, *, user=None):
    services = module("changes", "services")
    if services is None or not hasattr(services, "rollout_create"):
        return unavailable("changes", "Creating rollouts")
    return services.rollout_create(data=data, user=user)


def rollout_get(pk: int):
    if not apps.is_installed("changes"):
        return None
    from changes.models import Rollout

    return Rollout.objects.filter(pk=pk).first()


def rollout_progress(rollout) -> dict:
    """Waves with their steps (one query), counts and whether the view should keep polling."""
    steps = list(rollout.steps.order_by("wave", "id"))
    waves: dict[int, list] = {}
    for step in steps:
        waves.setdefault(step.wave, []).append(step)
    final = rollout.state in FINAL_ROLLOUT_STATES
    done = sum(1 for step in steps if step.result not in ("running", "pending"))
    return {"waves": sorted(waves.items()), "steps_done": done, "steps_total": len(steps), "final": final,
            "percent": round(100 * done / len(steps)) if steps else 0}


FINAL_ROLLOUT_STATES = ("succeeded", "failed", "cancelled", "rolled_back", "aborted")


def rollout_needs_admin(rollout, action: str) -> bool:
    return getattr(rollout, "target", "twin") != "twin" and action in ("approve", "start", "resume")


def rollout_action(rollout, action: str, *, user=None):
    services = module("changes", "services")
    name = f"rollout_{action}"
    if services is None or not hasattr(services, name):
        return unavailable("changes", f"Rollout {action}")
    from compiler.errors import FabricTwinError

    try:
        return getattr(services, name)(rollout=rollout, user=user)
    except FabricTwinError as error:
        return error
