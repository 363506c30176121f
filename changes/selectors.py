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
from .rocegate.anta import AntaDevice, anta_catalog, catalog_yaml
from .rocegate.gate import GateResult
from .rocegate.settings import CHARTED, GateSettings


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


def rollout_roce_gate(*, rollout: Rollout) -> dict | None:
    """The canary's RoCE-gate verdict (changes.pipelines.rocegate) as the rollout page shows it: per canary switch
    the rates before the push, after it and of a control peer; the failures naming counter, port and numbers; every
    relative comparison with its p-values. None when the rollout has no gate step."""
    step = (Step.objects.filter(rollout=rollout, phase=StepPhaseChoices.VERIFY, device="", detail__tag="roce_gate")
            .order_by("-id").first())
    if step is None:
        return None
    detail = step.detail or {}
    decision = detail.get("decision") or {}
    synthetic = set(detail.get("synthetic") or ())  # kinds a driver modelled (a twin: no DCB on veths)
    table = [{**row, "synthetic": row["counter"] in synthetic} for row in detail.get("table") or []]
    # Charts in the gate's order (the counters its failures named, then CHARTED): PostgreSQL's jsonb keeps no key
    # order, so the stored series is re-ordered here.
    named = [item["counter"] for item in decision.get("failures", []) if item.get("counter")]
    series = (detail.get("series") or {}).get("devices", {})

    def ordered(device: str) -> dict:
        charts = series.get(device, {})
        return {counter: charts[counter] for counter in dict.fromkeys([*named, *CHARTED, *sorted(charts)])
                if counter in charts}

    return {
        "result": step.result, "output": step.output, "peers": detail.get("peers", []),
        "interval_s": detail.get("interval_s"), "decided_at_poll": decision.get("decided_at_poll"),
        "synthetic": sorted(synthetic),
        "devices": [{"device": device, "rows": [row for row in table if row["device"] == device],
                     "series": ordered(device)}
                    for device in detail.get("canary", [])],
        "push_after": (detail.get("series") or {}).get("push_after", 0),
        "failures": _first([GateResult(**item).as_text() for item in decision.get("failures", [])]),
        "compared": [{"gate": item["gate"], "verdict": item["verdict"], **item["numbers"]}
                     for item in decision.get("compared", [])],
    }


def rollout_anta_catalog(*, rollout: Rollout) -> dict:
    """The RoCE gate's post-push checks of the rollout's EOS devices as an ANTA catalogue (changes.rocegate.anta),
    with the thresholds of the rollout's ``roce_gate`` policy: ``{"catalog": {...}, "yaml": "..."}`` (the YAML file
    ``anta nrfu --catalog`` reads). InputError when no EOS device of the change set has RoCE QoS (nothing to
    export)."""
    if rollout.change_set_id is None:
        raise InputError([FieldError("rollout", rollout.pk, "has no change set (a rolling upgrade): no intent to "
                                                            "export an ANTA catalogue from")])
    settings = GateSettings.from_json(rollout.policy.get("roce_gate"))
    devices = [AntaDevice(row.hostname, row.structured or {})
               for row in rollout.change_set.devices.filter(platform="eos").order_by("hostname")]
    origin = f"fabric-twin rollout {rollout.pk} roce_gate"
    catalog = anta_catalog(devices, settings, origin=origin)
    if not catalog:
        raise InputError([FieldError("rollout", rollout.pk, f"no EOS device of change set {rollout.change_set_id} "
                                                           f"has RoCE QoS in its structured config: no ANTA catalogue")])
    header = (f"ANTA catalogue of the RoCE gate of rollout {rollout.pk} ({rollout.name}), from its intent and its\n"
              f"roce_gate policy (enabled: {str(settings.enabled).lower()}). ANTA thresholds are absolute counts since "
              f"the last clear:\nrun it right after the push, on counters cleared at the push. The gate's relative rules "
              f"(pre-push window,\ncontrol peers, pause-time fraction, CNP rate) have no ANTA equivalent. These tests "
              f"are skipped on cEOSLab/vEOS-lab.\nRun: anta nrfu --catalog <this file> (inventory: the devices below, "
              f"by name).")
    return {"catalog": catalog, "yaml": catalog_yaml(catalog, header=header)}


def _first(lines: list[str], shown: int = 12) -> list[str]:
    """A long list cut for a page: the first ``shown`` lines and how many more there are (all are in the step)."""
    return lines if len(lines) <= shown else [*lines[:shown], f"... and {len(lines) - shown} more (in the step)"]


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
