"""The validation report: checks with pass/fail/skip, findings filterable by check and severity, each finding
linked to the device or interface it is about."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse

from common.api_limits import upload_request_check
from common.roles import OPERATE
from common.runs import RunStatus
from compiler.errors import FabricTwinError
from compiler.parse.files import configs_from_archive, configs_from_uploads, upload_size_check
from intents import selectors as intents_selectors
from inventory import selectors as inventory_selectors
from ui import integrations
from validation import services as validation_services
from validators.findings import Severity, summary
from validators.subjects import LINK, Subject

from .common import fabric_or_404, requires, viewer


def subject_links(subject: str, switches: set[str], servers: set[str]) -> list[tuple[str, str | None]]:
    """Split a finding subject into (text, link) parts: 'leaf1:Ethernet1<->spine1:Ethernet3' gives two links."""
    parts = []
    if LINK not in subject and ":" not in subject and "+" in subject:  # "spine1+spine2": an N-2 scenario
        names = [name.strip() for name in subject.split("+")]
        if all(name in switches for name in names):
            for index, name in enumerate(names):
                if index:
                    parts.append(("+", None))
                parts.append((name, reverse("ui:switch_detail", args=[name])))
            return parts
    for index, end in enumerate(Subject.parse(subject).ends):
        part, device, interface = str(end), end.device, end.interface
        href = None
        try:
            if device in switches:
                href = reverse("ui:switch_detail", args=[device]) + (f"#if-{interface}" if interface else "")
            elif device in servers:
                href = reverse("ui:server_detail", args=[device])
        except NoReverseMatch:
            href = None
        if index:
            parts.append(("↔", None))
        parts.append((part, href))
    return parts


@viewer
def validation_pick(request):
    first = inventory_selectors.fabric_first()
    if first is None:
        return render(request, "ui/pick.html", {"section": "validation", "title": "Validation", "fabrics": []})
    return redirect("ui:validation_report", name=first.name)


@viewer
def validation_report(request, name: str):
    fabric = fabric_or_404(name)
    report = integrations.validation_report(fabric)
    check_filter = request.GET.get("check", "")
    severity_filter = request.GET.get("severity", "")
    switches = set(fabric.switches.values_list("hostname", flat=True))
    servers = set(fabric.servers.values_list("name", flat=True))
    findings = [
        {"finding": finding, "links": subject_links(finding.subject, switches, servers)}
        for finding in report.findings
        if (not check_filter or finding.check == check_filter or finding.check.startswith(f"{check_filter}."))
        and (not severity_filter or finding.severity == severity_filter)
    ]
    return render(request, "ui/validation.html", {
        "section": "validation", "title": f"Validation · {fabric.name}", "fabric": fabric, "report": report,
        "findings": findings[:2000], "finding_total": len(findings), "check_filter": check_filter,
        "severity_filter": severity_filter, "severities": ("error", "warning", "info"),
        "fabrics": inventory_selectors.fabric_names(),
        "families": sorted({check.name.split(".", 1)[0] if hasattr(check, "name") else check["name"].split(".", 1)[0]
                            for check in report.checks}),
    })


@requires(OPERATE)
def validation_run(request, name: str):
    fabric = fabric_or_404(name)
    if request.method == "POST":
        outcome = integrations.validation_start(fabric, user=request.user)
        if isinstance(outcome, Exception):
            messages.error(request, f"Validation refused: {outcome}")
        elif outcome.status == RunStatus.SUCCEEDED:
            verdict = "passed" if outcome.ok else "failed"
            messages.success(request, f"Validation run #{outcome.pk} {verdict}: {outcome.checks_passed} checks "
                                      f"passed, {outcome.checks_failed} failed, {outcome.checks_skipped} skipped "
                                      f"({outcome.duration_s:.2f} s).")
        elif outcome.status == RunStatus.FAILED:
            messages.error(request, f"Validation run #{outcome.pk} could not complete: {outcome.error}")
        else:
            messages.info(request, f"Validation run #{outcome.pk} {outcome.status}.")
    return redirect("ui:validation_report", name=fabric.name)


@requires(OPERATE, methods=("POST",))
def validation_configs(request):
    """Validate device configs as text: upload an archive (<device>/<files>) or one file per device; the report
    cites each finding's file:line and lists every unmodelled line (validators.configs). Nothing is stored."""
    context = {"section": "validation", "title": "Validate configs", "result": None,
               "intents": intents_selectors.fabric_intent_choices(),
               "external_peer_choices": Severity.ALL, "external_peers": request.POST.get("external_peers", "info")}
    status = 200
    if request.method == "POST":
        try:
            upload_request_check(request)  # before Django spools the files to disk
            archive, uploads = request.FILES.get("archive"), request.FILES.getlist("files")
            intent_id = request.POST.get("fabric_intent") or ""
            if bool(archive) == bool(uploads):
                raise FabricTwinError("archive / files: upload one archive or several files (not both, not none)")
            set_aside: list[str] = []  # compile's archive: the twin's renderings next to each device's own
            if archive:  # the upload's size before it is read into memory
                upload_size_check("archive", archive.name, archive.size)
            else:
                upload_size_check("files", "files", sum(upload.size for upload in uploads))
            device_files = (configs_from_archive(archive.read(), archive.name, set_aside=set_aside) if archive else
                            configs_from_uploads([(upload.name, upload.read()) for upload in uploads]))
            fabric_intent = None
            if intent_id:
                fabric_intent = intents_selectors.fabric_intent_by_pk(
                    pk=int(intent_id) if intent_id.isascii() and intent_id.isdigit() else -1)
                if fabric_intent is None:
                    raise FabricTwinError(f"fabric_intent={intent_id!r}: no such fabric intent")
            context["result"] = validation_services.validation_configs_run(
                device_files=device_files, fabric_intent=fabric_intent, external_peers=context["external_peers"])
            for note in set_aside:
                messages.info(request, f"Set aside: {note}")
        except FabricTwinError as error:
            messages.error(request, f"Configs refused: {error}")
            status = 400
    if context["result"] is not None:
        result = context["result"]
        context["findings"] = [{"finding": finding, "where": result.where(finding)}
                               for finding in result.report.findings][:2000]
        context["unmodelled"] = result.unmodelled()[:2000]
        context["summary"] = summary(result.report.counts())
    return render(request, "ui/validation_configs.html", context, status=status)
