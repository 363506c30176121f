"""Rendered configs per device and platform, highlighted, with the diff against what the target runs.

Configs come from the newest successful compile run (``intents.selectors.compile_run_latest``); the baseline
is what the target runs (``intents.selectors.diff_baselines``, the same as ``manage.py config_diff`` and the
API's diff): the device (deployed by a production rollout), the running twin (the compile each twin switch runs)
or the last compile; ``?target=`` picks one, default ``auto`` (device, else twin, else last compile). Every diff
says what it compared against. The diff is ``compiler.diff.config_diff`` (the project's one diff).
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404, redirect, render

from changes.drivers.twin import twin_files_normalized
from compiler.diff import config_diff
from compiler.errors import DriverError, InputError
from compiler.natural import natural_key
from intents import selectors
from intents.choices import DiffTargetChoices
from intents.models import FabricIntent
from inventory import selectors as inventory_selectors

from .common import viewer


def _intent_or_404(name: str) -> FabricIntent:
    return get_object_or_404(selectors.fabric_intent_list(), name=name)


def native_platforms(intent: FabricIntent) -> dict[str, str]:
    """hostname -> the platform the switch runs (inventory); the compile adds FRR for the twin (default own +
    frr), so a SONiC switch has sonic and frr configs and opens on sonic."""
    return inventory_selectors.switch_platforms(fabric_id=intent.fabric_id)


def native_first(platforms: list[str], native: str | None) -> list[str]:
    return sorted(platforms, key=lambda platform: (platform != native, platform))


@viewer
def config_pick(request):
    first = selectors.fabric_intent_list().order_by("name").first()
    if first is None:
        return render(request, "ui/pick.html", {"section": "configs", "title": "Configs", "fabrics": [],
                                                "empty": "No fabric intent yet: create one under Intents."})
    return redirect("ui:config_list", name=first.name)


def _baselines(intent: FabricIntent, target: str, **narrow) -> tuple[dict, str]:
    """The baselines for ``target`` and an error message ("" when fine): a bad ?target= or no running twin is said
    on the page, never a 500."""
    try:
        return selectors.diff_baselines(fabric_intent=intent, target=target, **narrow), ""
    except InputError as error:
        return {}, str(error)


def _twin_unchanged(rows: list[dict], baselines: dict) -> set[str]:
    """Hostnames whose twin files (the frr platform: frr.conf + Linux plan) are the same as the baseline's in
    what the twin applies (changes.drivers.twin normalization: the plan's static-only QoS keys dropped). Files
    are read only for the frr rows that changed (one query)."""
    same = {row["config"].hostname for row in rows
            if row["config"].platform == "frr" and not row["native"] and row["state"] == "in sync"}
    changed = [row["config"] for row in rows if row["config"].platform == "frr" and not row["native"]
               and row["state"] == "changed"]
    pairs = {config.pk: baselines[(config.hostname, "frr")].config.pk for config in changed}
    files = selectors.device_config_files(pks=[*pairs, *pairs.values()])
    for config in changed:
        if _twin_files(files.get(config.pk)) == _twin_files(files.get(pairs[config.pk])):
            same.add(config.hostname)
    return same


def _twin_files(files: dict | None) -> dict | None:
    if not files:
        return None
    try:
        return twin_files_normalized(files)
    except DriverError:
        return files  # not a plan the twin reads: compared as it is


@viewer
def config_list(request, name: str):
    intent = _intent_or_404(name)
    run = selectors.compile_run_latest(fabric_intent=intent)
    target = request.GET.get("target") or DiffTargetChoices.AUTO
    baselines, target_error = _baselines(intent, target)
    rows = []
    if run is not None:
        query = request.GET.get("q", "").strip()
        configs = selectors.device_config_list().filter(run=run).only("hostname", "platform", "sha256", "run")
        if query:
            configs = configs.filter(hostname__icontains=query)
        native = native_platforms(intent)
        for config in sorted(configs, key=lambda c: (natural_key(c.hostname), c.platform != native.get(c.hostname),
                                                     c.platform)):
            baseline = baselines.get((config.hostname, config.platform))
            if baseline is None:
                state, label = "new", selectors.diff_missing_label(target=target, hostname=config.hostname)
            else:
                state = "in sync" if baseline.config.sha256 == config.sha256 else "changed"
                label = baseline.label
            rows.append({"config": config, "state": state, "label": label,
                         "native": config.platform == native.get(config.hostname)})
        # A native file changed while the twin's FRR file of the same switch is in sync: only what the twin runs
        # statically changed (QoS, PFC, ECN, buffers, speeds), so a twin rollout has nothing to push for it
        # (issue #30 point 7: this page said "12 changed" where the twin rollout said "no device has a diff").
        twin_in_sync = _twin_unchanged(rows, baselines)
        for row in rows:
            row["static_only"] = row["native"] and row["state"] == "changed" and row["config"].hostname in twin_in_sync
    return render(request, "ui/configs/list.html", {
        "section": "configs", "title": f"Configs · {intent.name}", "intent": intent, "run": run, "rows": rows,
        "intents": selectors.fabric_intent_list().values_list("name", flat=True), "query": request.GET.get("q", ""),
        "changed": sum(1 for row in rows if row["state"] == "changed"), "target": target,
        "static_only": sum(1 for row in rows if row.get("static_only")),
        "targets": DiffTargetChoices.choices, "target_error": target_error,
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
    target = request.GET.get("target") or DiffTargetChoices.AUTO
    baselines, target_error = _baselines(intent, target, hostnames=[hostname], platforms=[config.platform])
    baseline = baselines.get((hostname, config.platform))
    diff = None
    if baseline is not None:
        old = baseline.config.files.get(file_name, "")
        diff = config_diff(old, text, f"{baseline.kind}/{file_name}", f"intended/{file_name}")
    return render(request, "ui/configs/detail.html", {
        "section": "configs", "title": f"{hostname} · {config.platform}", "intent": intent, "hostname": hostname,
        "run": run, "platforms": platforms, "platform": config.platform, "native": native, "files": files,
        "file_name": file_name, "text": text, "language": "json" if file_name.endswith(".json") else "cli",
        "baseline": baseline, "diff": diff, "sha256": config.sha256, "target": target,
        "targets": DiffTargetChoices.choices, "target_error": target_error,
        "label": baseline.label if baseline else selectors.diff_missing_label(target=target, hostname=hostname),
    })
