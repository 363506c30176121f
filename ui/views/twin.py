"""The live twin of a fabric: start/stop, status, the ping matrix as a heat map, failure injection and the
fidelity result (twin measurements vs. the static model). The work is done by the labs services; this page
only shows and asks."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render

from inventory.models import Fabric
from ui import integrations
from ui.roles import OPERATE

from .common import fabric_or_404, requires, viewer

ACTIONS = ("up", "down", "inject", "restore", "fidelity", "ping")


@viewer
def twin_pick(request):
    first = Fabric.objects.order_by("name").first()
    if first is None:
        return render(request, "ui/pick.html", {"section": "twin", "title": "Twin", "fabrics": []})
    return redirect("ui:twin_detail", name=first.name)


def _context(fabric) -> dict:
    status = integrations.twin_status(fabric)
    return {
        "fabric": fabric, "status": status, "ping": integrations.twin_ping_matrix(fabric),
        "fidelity": integrations.twin_fidelity(fabric), "failures": integrations.twin_failure_choices(fabric),
        "running": bool(status) and getattr(status, "get", lambda key, default=None: default)("running", False),
    }


@viewer
def twin_detail(request, name: str):
    fabric = fabric_or_404(name)
    return render(request, "ui/twin.html", {"section": "twin", "title": f"Twin · {fabric.name}",
                                            "fabrics": Fabric.objects.values_list("name", flat=True),
                                            **_context(fabric)})


@viewer
def twin_status_partial(request, name: str):
    fabric = fabric_or_404(name)
    return render(request, "ui/partials/twin_status.html", _context(fabric))


@requires(OPERATE)
def twin_action(request, name: str, action: str):
    fabric = fabric_or_404(name)
    if action not in ACTIONS:
        raise Http404(f"unknown twin action {action!r}")
    if request.method == "POST":
        outcome = integrations.twin_action(fabric, action, request.POST, user=request.user)
        if isinstance(outcome, integrations.Unavailable):
            messages.warning(request, f"{outcome.what} not available: {outcome.reason}.")
        elif isinstance(outcome, Exception):
            messages.error(request, f"Twin {action} failed: {outcome}")
        else:
            messages.success(request, f"Twin {action}: {outcome}")
    return redirect("ui:twin_detail", name=fabric.name)
