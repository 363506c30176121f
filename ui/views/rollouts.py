"""Rollouts: create (twin canary or production), approve, start, pause, cancel, and a live progress view of
waves and steps that refreshes itself with HTMX polling while the rollout runs. The state machine lives in
the changes services; each button here is one service call, permission-checked on the server."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render

from changes.choices import RolloutStateChoices
from common import policy
from common.roles import OPERATE, capability_refusal, perm
from ui import integrations, svg

from .common import requires, viewer

ACTIONS = ("approve", "start", "pause", "resume", "cancel")


@viewer
def rollout_list(request):
    return render(request, "ui/rollouts/list.html", {
        "section": "rollouts", "title": "Rollouts", "rollouts": integrations.recent_rollouts(limit=200),
        "create": integrations.rollout_create_options()})


@requires(OPERATE)
def rollout_create(request):
    if request.method != "POST":
        return redirect("ui:rollout_list")
    target = request.POST.get("target", "twin")
    capability = policy.rollout_capability("create", target=target)
    if not request.user.has_perm(perm(capability)):
        raise PermissionDenied(capability_refusal(capability, f"create a {target} rollout"))
    outcome = integrations.rollout_create(request.POST, user=request.user)
    if isinstance(outcome, Exception):
        messages.error(request, f"Rollout not created: {outcome}")
        return redirect("ui:rollout_list")
    messages.success(request, f"Created rollout #{outcome.pk}.")
    return redirect("ui:rollout_detail", pk=outcome.pk)


def _progress_context(pk: int) -> dict:
    rollout = integrations.rollout_get(pk)
    if rollout is None:
        raise Http404(f"no rollout #{pk}")
    context = {"rollout": rollout, **integrations.rollout_progress(rollout)}
    gate = context.get("roce_gate")
    for item in gate["devices"] if gate else ():  # the canary's RoCE gate: a chart per charted counter
        failed = {row["counter"] for row in item["rows"] if row["failed"]}
        item["charts"] = [svg.counter_chart_svg(counter, values["canary"], values["peers"], gate["push_after"],
                                                failed=counter in failed)
                          for counter, values in item["series"].items()]
    return context


@viewer
def drift_list(request):
    """The newest drift check per device: field-level differences, errors the checks raise on the running state,
    and the remediation (EOS CLI, SONiC JSON Patch + vtysh, FRR vtysh). ``?host=`` shows one device."""
    hostname = request.GET.get("host", "").strip()
    return render(request, "ui/rollouts/drift.html", {
        "section": "drift", "title": "Drift", "host": hostname, "rows": integrations.drift_rows(hostname)})


@viewer
def rollout_detail(request, pk: int):
    context = _progress_context(pk)
    return render(request, "ui/rollouts/detail.html", {"section": "rollouts", "title": f"Rollout #{pk}", **context,
                                                       **integrations.rollout_changes(context["rollout"])})


@viewer
def rollout_progress(request, pk: int):
    """The HTMX-polled fragment; it stops polling itself once the rollout reaches a final state."""
    return render(request, "ui/partials/rollout_progress.html", _progress_context(pk))


@requires(OPERATE)
def rollout_action(request, pk: int, action: str):
    if action not in ACTIONS:
        raise Http404(f"unknown rollout action {action!r}")
    rollout = integrations.rollout_get(pk)
    if rollout is None:
        raise Http404(f"no rollout #{pk}")
    if request.method != "POST":
        return redirect("ui:rollout_detail", pk=pk)
    capability = policy.rollout_capability(action, target=rollout.target)
    if not request.user.has_perm(perm(capability)):
        raise PermissionDenied(capability_refusal(capability, f"{action} this {rollout.target} rollout"))
    outcome = integrations.rollout_action(rollout, action, user=request.user)
    if isinstance(outcome, Exception):
        messages.error(request, f"Cannot {action} rollout #{pk}: {outcome}")
    else:
        _action_message(request, integrations.rollout_get(pk) or outcome, action)
    return redirect("ui:rollout_detail", pk=pk)


# The banner says where the rollout stands now, never only that the button worked: with in-process tasks a start
# has already run (and maybe rolled back) when the page comes back (issue #30 point 2).
_FAILED_STATES = {RolloutStateChoices.FAILED: "failed", RolloutStateChoices.ROLLED_BACK: "was rolled back",
                  RolloutStateChoices.CANCELLED: "was cancelled"}


def _action_message(request, rollout, action: str) -> None:
    verb = {"approve": "approved", "start": "started", "resume": "resumed", "pause": "paused",
            "cancel": "cancelled"}[action]
    state = rollout.state
    if state in _FAILED_STATES and action != "cancel":
        detail = f": {rollout.error}" if rollout.error else ""
        messages.error(request, f"Rollout #{rollout.pk} {verb}, then {_FAILED_STATES[state]}{detail}")
    elif state == RolloutStateChoices.SUCCEEDED:
        messages.success(request, f"Rollout #{rollout.pk} {verb} and succeeded.")
    elif state in (RolloutStateChoices.RUNNING, RolloutStateChoices.PENDING, RolloutStateChoices.AWAITING_APPROVAL,
                   RolloutStateChoices.PAUSED):
        messages.info(request, f"Rollout #{rollout.pk} {verb}; now {rollout.get_state_display().lower()}.")
    else:
        messages.success(request, f"Rollout #{rollout.pk} {verb}.")
