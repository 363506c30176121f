"""Rendered configs per device and platform, highlighted, with the diff against the last deployed config.

Configs come from the newest successful compile run (``intents.selectors.compile_run_latest``); the baseline
is what the change pipelines recorded as deployed (``DeployedConfig``). The diff is ``compiler.diff.config_diff``
(the project's one diff) of the file on display.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404, redirect, render

from compiler.diff import config_diff
from compiler.natural import natural_key
from intents import selectors
from intents.models import DeployedConfig, FabricIntent
from inventory.models import Switch

from .common import viewer


def _intent_or_404(name: str) -> FabricIntent:
    return get_object_or_404(selectors.fabric_intent_list(), name=name)


def native_platforms(intent: FabricIntent) -> dict[str, str]:
    """hostname -> the platform the switch runs (inventory); the compile adds FRR for the twin (default own +
    frr), so a SONiC switch has sonic and frr configs and opens on sonic."""
    return dict(Switch.objects.filter(fabric=intent.fabric_id).values_list("hostname", "platform__slug"))


def native_first(platforms: list[str], native: str | None) -> list[str]:
    return sorted(platforms, key=lambda platform: (platform != native, platform))


@viewer
def config_pick(request):
    first = selectors.fabric_intent_list().order_by("name").first()
    if first is None:
        return render(request, "ui/pick.html", {"section": "configs", "title": "Configs", "fabrics": [],
                                                "empty": "No fabric intent yet: create one under Intents."})
    return redirect("ui:config_list", name=first.name)


@viewer
def config_list(request, name: str):
    intent = _intent_or_404(name)
    run = selectors.compile_run_latest(fabric_intent=intent)
    deployed = {(row.hostname, row.platform): row.device_config.sha256 for row in
                DeployedConfig.objects.filter(fabric_intent=intent).select_related("device_config")}
    rows = []
    if run is not None:
        query = request.GET.get("q", "").strip()
        configs = selectors.device_config_list().filter(run=run).only("hostname", "platform", "sha256", "run")
        if query:
            configs = configs.filter(hostname__icontains=query)
        native = native_platforms(intent)
        for config in sorted(configs, key=lambda c: (natural_key(c.hostname), c.platform != native.get(c.hostname),
                                                     c.platform)):
            baseline = deployed.get((config.hostname, config.platform))
            state = "not deployed" if baseline is None else "in sync" if baseline == config.sha256 else "changed"
            rows.append({"config": config, "state": state, "native": config.platform == native.get(config.hostname)})
    return render(request, "ui/configs/list.html", {
        "section": "configs", "title": f"Configs · {intent.name}", "intent": intent, "run": run, "rows": rows,
        "intents": selectors.fabric_intent_list().values_list("name", flat=True), "query": request.GET.get("q", ""),
        "changed": sum(1 for row in rows if row["state"] == "changed"),
    })


@viewer
def config_detail(request, name: str, hostname: str):
    intent = _intent_or_404(name)
    run = selectors.compile_run_latest(fabric_intent=intent)
    configs = list(selectors.device_config_list().filter(run=run, hostname=hostname)) if run else []
    if not configs:
        return render(request, "ui/configs/detail.html", {
            "section": "configs", "title": hostname, "intent": intent, "hostname": hostname, "missing": True})
    native = native_platforms(intent).get(hostname)
    platforms = native_first([config.platform for config in configs], native)
    platform = request.GET.get("platform") or platforms[0]
    config = next((c for c in configs if c.platform == platform), configs[0])
    files = sorted(config.files)
    file_name = request.GET.get("file") if request.GET.get("file") in config.files else files[0]
    text = config.files[file_name]
    deployed = DeployedConfig.objects.filter(fabric_intent=intent, hostname=hostname,
                                             platform=config.platform).select_related("device_config").first()
    diff = None
    if deployed is not None:
        old = deployed.device_config.files.get(file_name, "")
        diff = config_diff(old, text, f"deployed/{file_name}", f"intended/{file_name}")
    return render(request, "ui/configs/detail.html", {
        "section": "configs", "title": f"{hostname} · {config.platform}", "intent": intent, "hostname": hostname,
        "run": run, "platforms": platforms, "platform": config.platform, "native": native, "files": files, "file_name": file_name,
        "text": text, "language": "json" if file_name.endswith(".json") else "cli", "deployed": deployed,
        "diff": diff, "sha256": config.sha256,
    })
