"""The live twin of a fabric: start/stop, status, the ping matrix as a heat map, failure injection and the
fidelity result (the twin's measurements vs. the compiled model). The work is done by the twins app's services
(each button press a ``twins.TwinOperation`` run record); this page only shows and asks, and polls itself while an
operation runs."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render

from common.roles import OPERATE
from common.runs import RunStatus
from inventory import selectors as inventory_selectors
from twins.choices import TwinOperationKindChoices
from twins.selectors import fidelity_aspect_items, twin_operation_list, twin_ping_matrix
from ui import integrations

from .common import fabric_or_404, requires, viewer


@viewer
def twin_pick(request):
    first = inventory_selectors.fabric_first()
    if first is None:
        return render(request, "ui/pick.html", {"section": "twin", "title": "Twin", "fabrics": []})
    return redirect("ui:twin_detail", name=first.name)


def _context(fabric) -> dict:
    status = integrations.twin_status(fabric)
    twin = status.get("twin")
    return {
        "fabric": fabric, "status": status, "twin": twin,
        "ping": twin_ping_matrix(twin=twin) if twin is not None and status["running"] else None,
        "report": twin.last_report if twin is not None else {},
        "fidelity": twin.last_fidelity if twin is not None else {},
        "injection": twin.last_injection if twin is not None else {},
        # what each switch runs of its own config, live or static-only (labs.node_configs), from the last check
        "device_configs": sorted(((twin.last_measured or {}).get("device_configs") or {}).items())
        if twin is not None else [],
        "operations": twin_operation_list(fabric=fabric)[:8],
        "aspect_items": fidelity_aspect_items(),  # what one compared item of each fidelity aspect is
    }


@viewer
def twin_detail(request, name: str):
    fabric = fabric_or_404(name)
    return render(request, "ui/twin.html", {"section": "twin", "title": f"Twin · {fabric.name}",
                                            "fabrics": inventory_selectors.fabric_names(),
                                            **_context(fabric)})


@viewer
def twin_status_partial(request, name: str):
    fabric = fabric_or_404(name)
    return render(request, "ui/partials/twin_status.html", _context(fabric))


@requires(OPERATE)
def twin_action(request, name: str, action: str):
    fabric = fabric_or_404(name)
    if action not in TwinOperationKindChoices.values:
        raise Http404(f"unknown twin action {action!r}")
    if request.method == "POST":
        outcome = integrations.twin_action(fabric, action, user=request.user)
        if isinstance(outcome, Exception):
            messages.error(request, f"Twin: {outcome}")
        elif outcome.status == RunStatus.FAILED:
            messages.error(request, f"{outcome.get_kind_display()} failed: {outcome.error.splitlines()[0]}")
        elif outcome.status == RunStatus.SUCCEEDED:
            messages.success(request, f"{outcome.get_kind_display()}: done.")
        else:
            messages.info(request, f"{outcome.get_kind_display()} started; this page updates itself.")
    return redirect("ui:twin_detail", name=fabric.name)
