"""Reads of the change pipelines: rollouts with their steps, progress, outcomes, drift."""

from __future__ import annotations

from django.db.models import Count, Max, QuerySet

from compiler.errors import FieldError, InputError
from compiler.names import OBJECT_NAME, name_problem
from compiler.natural import natural_key
from intents.models import CompileRun, FabricIntent
from twins.models import Twin
from twins.selectors import twin_of

from .choices import RolloutKindChoices, RolloutStateChoices, StepPhaseChoices, StepResultChoices
from .models import AuditLog, ChangeSetDevice, DriftRecord, Rollout, Step


def rollout_list() -> QuerySet[Rollout]:
    return rollout_rows().annotate(step_count=Count("steps"))


def rollout_rows() -> QuerySet[Rollout]:
    """Rollouts as the API list serializes them, their relations joined. No step count: the page's COUNT(*)
    would then group every step of every rollout (issue 29 item 6)."""
    return Rollout.objects.select_related("change_set", "twin__fabric_intent", "started_by", "approved_by")


# The columns the rollout tables of the UI show: not the plan, policy and report JSON (a 5,000-switch rollout's
# plan and report are large), nor the change set and twin rows.
ROLLOUT_TABLE_COLUMNS = ("id", "name", "kind", "target", "state", "created_at", "started_by__username",
                         "approved_by__username")


def rollout_table(*, limit: int) -> list[Rollout]:
    """The newest ``limit`` rollouts with their step counts, for the rollout tables (``ROLLOUT_TABLE_COLUMNS``)."""
    return list(Rollout.objects.select_related("started_by", "approved_by").only(*ROLLOUT_TABLE_COLUMNS)
                .annotate(step_count=Count("steps"))
                .order_by("-created_at", "-id")[:limit])


def rollout_get(*, rollout_id: int) -> Rollout:
    return Rollout.objects.select_related("change_set", "twin__fabric_intent", "started_by", "approved_by").get(pk=rollout_id)


def step_list(*, rollout: Rollout) -> QuerySet[Step]:
    return Step.objects.filter(rollout=rollout).order_by("id")


def pushed_devices(*, rollout: Rollout) -> list[str]:
    """Devices this rollout committed a config to (a push step ok, or interrupted: the outcome was unknown)."""
    rows = Step.objects.filter(rollout=rollout, phase=StepPhaseChoices.PUSH,
                               result__in=[StepResultChoices.OK, StepResultChoices.INTERRUPTED])
    return sorted(set(rows.values_list("device", flat=True)))


def rollout_config_changes(*, rollout: Rollout, limit: int = 200) -> tuple[list[ChangeSetDevice], int]:
    """The devices of the rollout's change set whose config changes, with their diffs (what an approver reads
    before approving: issue #30 point 2), natural order, at most ``limit``; and how many there are in all."""
    if rollout.change_set_id is None:
        return [], 0
    changed = ChangeSetDevice.objects.filter(change_set_id=rollout.change_set_id, has_diff=True)
    names = sorted(changed.values_list("pk", "hostname"), key=lambda row: natural_key(row[1]))
    shown = [pk for pk, _ in names[:limit]]  # diffs are read only for the devices shown
    by_pk = {device.pk: device for device in changed.filter(pk__in=shown).only("hostname", "platform", "role", "diff")}
    return [by_pk[pk] for pk in shown], len(names)


def rollout_progress(*, rollout: Rollout) -> dict:
    """Counts for a live display: devices planned, pushed/upgraded, steps by result, the step running now."""
    steps = Step.objects.filter(rollout=rollout)
    by_result = dict(steps.values_list("result").annotate(n=Count("id")).values_list("result", "n"))
    devices = [device for wave in rollout.plan.get("waves", []) for device in wave]
    done_phase = StepPhaseChoices.PUSH if rollout.kind == RolloutKindChoices.CANARY_PUSH else StepPhaseChoices.UNDRAIN
    done = set(steps.filter(phase=done_phase, result__in=[StepResultChoices.OK, StepResultChoices.SKIPPED])
               .values_list("device", flat=True))
    current = steps.filter(result=StepResultChoices.RUNNING).order_by("-id").first()
    return {
        "state": rollout.state,
        "devices_total": len(devices),
        "devices_done": len(done & set(devices)),
        "waves": len(rollout.plan.get("waves", [])),
        "steps": by_result,
        "current": None if current is None else {"device": current.device, "phase": current.phase,
                                                 "wave": current.wave},
        "finished": rollout.state not in (RolloutStateChoices.PENDING, RolloutStateChoices.AWAITING_APPROVAL,
                                          RolloutStateChoices.RUNNING, RolloutStateChoices.PAUSED),
    }


def audit_for_object(*, object_type: str, object_id: str, limit: int = 500) -> list[AuditLog]:
    """The audit trail of one object, newest first (its change-history page)."""
    return list(AuditLog.objects.filter(object_type=object_type, object_id=object_id).order_by("-id")[:limit])


def drift_latest() -> list[DriftRecord]:
    """The newest drift record per device."""
    latest_ids = (DriftRecord.objects.values("hostname").annotate(last=Max("id"))
                  .values_list("last", flat=True))
    return list(DriftRecord.objects.filter(id__in=list(latest_ids)).order_by("hostname"))


def intended_configs_latest() -> dict[str, tuple[int, dict]]:
    """hostname -> (change set id, intended files) from the newest change set that a rollout completed."""
    out: dict[str, tuple[int, dict]] = {}
    rows = (ChangeSetDevice.objects.filter(change_set__rollouts__state=RolloutStateChoices.SUCCEEDED)
            .order_by("hostname", "-change_set_id").values_list("hostname", "change_set_id", "intended_files"))
    for hostname, change_set_id, files in rows:
        out.setdefault(hostname, (change_set_id, files))
    return out


def twin_target_for_intent(*, fabric_intent: str, field: str = "fabric_intent") -> tuple[Twin, int]:
    """The running twin of the fabric intent named ``fabric_intent`` and the intent's latest successful compile
    run: what an automation client means by "roll out to the twin of intent X" (no internal twin prefix).
    InputError naming ``field`` when the intent is unknown, has no running twin or no compile."""
    problem = name_problem(OBJECT_NAME, fabric_intent)
    if problem:
        raise InputError(FieldError(field, fabric_intent, problem))
    intent = FabricIntent.objects.filter(name=fabric_intent).first()
    if intent is None:
        raise InputError(FieldError(field, fabric_intent, "no fabric intent of this name"))
    twin = twin_of(fabric_intent=intent, engine=None, running=True)
    if twin is None:
        raise InputError(FieldError(field, fabric_intent, "no running twin of this intent (twin up first)"))
    run = (CompileRun.objects.filter(fabric_intent=intent, status="succeeded").order_by("-id")
           .values_list("id", flat=True).first())
    if run is None:
        raise InputError(FieldError(field, fabric_intent, "no successful compile of this intent"))
    return twin, run
