"""The dashboard: every fabric with its latest validation, twin state, running rollouts and drift."""

from django.shortcuts import render

from inventory import selectors
from inventory.models import Server, Switch
from ui import integrations

from .common import viewer


@viewer
def dashboard(request):
    fabrics = list(selectors.fabric_list().annotate(
        switch_count=selectors.count_of(Switch, "fabric"), server_count=selectors.count_of(Server, "fabric")))
    rows = [{"fabric": fabric, **integrations.fabric_status(fabric)} for fabric in fabrics]
    return render(request, "ui/dashboard.html", {
        "section": "dashboard", "title": "Dashboard", "rows": rows,
        "intents": integrations.intent_summaries(),
        "recent_rollouts": integrations.recent_rollouts(),
    })
