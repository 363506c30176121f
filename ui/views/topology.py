"""The fabric topology picture and its link detail partial (HTMX)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse

from inventory import selectors as inventory_selectors
from ui import integrations, svg
from validators.subjects import Subject

from .common import fabric_or_404, viewer

# Which checks colour the links under each lens: a check belongs to a lens when its name contains one of the
# lens' words (check names are dotted, e.g. "physical.cable_reach", "mtu.vxlan", "twin.link_mtu", "roce.pfc").
LENSES = {
    "all": None,
    "mtu": ("mtu",),
    "roce": ("roce", "pfc", "ecn", "qos", "headroom", "buffer"),
    "physical": ("physical", "cable", "optic", "power"),
}


def _lens_checks(lens: str, findings: list) -> tuple[str, ...] | None:
    words = LENSES.get(lens)
    if words is None:
        return None
    return tuple({finding.check for finding in findings if any(word in finding.check for word in words)})


@viewer
def topology_pick(request):
    first = inventory_selectors.fabric_first()
    if first is None:
        return render(request, "ui/pick.html", {"section": "topology", "title": "Topology", "fabrics": []})
    return redirect("ui:topology", name=first.name)


def _link_url(fabric_name: str):
    """The link-detail URL of a bundle: one reverse() per page, not one per link (a 4x24 fabric draws ~120 links;
    reverse() per link was ~15% of the page's CPU, issue 29 item 6)."""
    base = reverse("ui:topology_link", args=[fabric_name]) + "?"
    return lambda a, b: base + urlencode({"a": a, "b": b})


@viewer
def topology(request, name: str):
    fabric = fabric_or_404(name)
    inventory = integrations.inventory_snapshot(fabric)
    findings, source = integrations.latest_findings(fabric, inventory)
    lens = request.GET.get("lens", "all")
    health = svg.link_health(inventory, findings, _lens_checks(lens, findings))
    pods = sorted({switch.pod for switch in inventory.switches if switch.pod})
    pod_text, status = request.GET.get("pod", ""), 200
    # ASCII digits only: str.isdigit() accepts '²', which int() refuses (a 500, issue 29); and a short number, as
    # int() refuses more than 4,300 digits.
    if pod_text and not (pod_text.isascii() and pod_text.isdigit() and len(pod_text) <= 6):
        messages.error(request, f"pod={pod_text[:40]!r}: not a pod number; showing every pod")
        pod_text, status = "", 400
    if pod_text and int(pod_text) not in pods:
        raise Http404(f"pod={pod_text!r}: fabric {fabric.name} has pods {', '.join(map(str, pods)) or 'none'}")
    pod = int(pod_text) if pod_text else None
    query = urlencode({"lens": lens})
    picture = svg.topology_svg(
        inventory, health,
        link_url=_link_url(fabric.name),
        device_url=lambda device: reverse("ui:switch_detail", args=[device]),
        pod_url=lambda number: f"?{query}&pod={number}", pod=pod,
    )
    counts = {state: sum(1 for value in health.links.values() if value == state) for state in svg.SEVERITY_RANK}
    return render(request, "ui/topology.html", {
        "section": "topology", "title": f"Topology · {fabric.name}", "fabric": fabric, "picture": picture,
        "source": source, "lens": lens, "lenses": list(LENSES), "counts": counts,
        "fabrics": inventory_selectors.fabric_names(), "colours": svg.SEVERITY_COLOUR,
        "switch_count": len(inventory.switches), "server_count": len(inventory.servers), "pods": pods, "pod": pod,
        "platforms": svg.platform_legend(inventory),
    }, status=status)


@viewer
def topology_link(request, name: str):
    """Both ends, optics and cable of every cable between two devices ("servers": a leaf's server links)."""
    fabric = fabric_or_404(name)
    device_a, device_b = request.GET.get("a", ""), request.GET.get("b", "")
    inventory = integrations.inventory_snapshot(fabric)
    if device_a not in inventory.switches_by_name:
        raise Http404(f"no switch {device_a!r} in fabric {fabric.name}")
    if device_b == "servers":
        servers = inventory.servers_by_name
        cables = [c for c in inventory.cables if (c.a.device == device_a and c.b.device in servers)
                  or (c.b.device == device_a and c.a.device in servers)]
    else:
        cables = [c for c in inventory.cables if {c.a.device, c.b.device} == {device_a, device_b}]
    findings, source = integrations.latest_findings(fabric, inventory)
    ends = {(end.device, end.interface) for cable in cables for end in (cable.a, cable.b)}
    devices = {device for device, _ in ends}
    optic_rows = inventory_selectors.optic_list_of_devices(devices=devices) if ends else []
    optics = {}
    for optic in optic_rows:
        key = ((optic.interface.switch.hostname, optic.interface.name) if optic.interface_id
               else (optic.nic_port.server.name, optic.nic_port.name))
        if key in ends:
            optics[key] = optic
    rows = []
    for cable in cables:
        subjects = {str(cable.a), str(cable.b)}
        related = [f for f in findings if subjects & {str(end) for end in Subject.parse(f.subject).ends}]
        rows.append({"cable": cable, "a_optic": optics.get((cable.a.device, cable.a.interface)),
                     "b_optic": optics.get((cable.b.device, cable.b.interface)), "findings": related})
    return render(request, "ui/partials/topology_link.html", {
        "fabric": fabric, "a": device_a, "b": device_b, "rows": rows[:200], "total": len(rows), "source": source})

