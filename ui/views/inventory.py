"""Inventory pages: fabrics (and the fabric builder), racks with their elevation, switches, interfaces, optics,
cables and servers. Lists search and filter on the server (one generic table template); every list costs a
constant number of queries (select_related / prefetch_related / annotations)."""

from __future__ import annotations

import csv
import io
import itertools
from dataclasses import dataclass

import yaml
from django.contrib import messages
from django.db import transaction
from django.db.models import Count, Q, Sum
from django.http import Http404, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from common.roles import EDIT_INVENTORY
from common.runs import RunStatus
from common.versioning import StaleVersionError, VersionedModelForm, stale_message
from compiler.errors import FabricTwinError
from compiler.natural import natural_key
from intents import selectors as intent_selectors
from intents.hosts import server_host_view
from inventory import selectors
from inventory.builder import fabric_build_execute, fabric_build_prepare
from inventory.choices import (
    CableStatusChoices,
    CableTypeChoices,
    DeviceStatusChoices,
    PlatformChoices,
    SwitchRoleChoices,
)
from inventory.models import Cable, Interface, Optic, Rack, Server, Switch
from ui import integrations, svg
from ui.forms import FabricBuildForm, run_errors_into

from .common import fabric_or_404, paginate, requires, viewer

EXPORT_FORMATS = ("csv", "yaml")


@dataclass(frozen=True)
class Cell:
    text: object
    href: str | None = None
    css: str = ""
    pill: bool = False


@dataclass(frozen=True)
class Filter:
    name: str
    label: str
    choices: list[tuple[str, str]]


def _fabric_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in selectors.fabric_names()]


def _apply(request, queryset, search_fields: tuple[str, ...], filters: dict[str, str],
           device_port: tuple[str, str] | None = None):
    """Apply ``?q=`` over ``search_fields`` and each ``?<filter>=`` present (filter name -> ORM lookup).

    ``device_port`` (device lookup, port lookup): a query ``leaf1:Ethernet63/1`` — the form every finding and
    peer column prints — matches that device's port exactly, or its ports starting with the text after the colon."""
    query = request.GET.get("q", "").strip()
    device, colon, port = query.partition(":")
    if device_port and colon and device.strip() and port.strip():
        device_lookup, port_lookup = device_port
        return _filters(request, queryset.filter(**{f"{device_lookup}__iexact": device.strip()}).filter(
            Q(**{f"{port_lookup}__iexact": port.strip()}) | Q(**{f"{port_lookup}__istartswith": port.strip()})),
            filters)
    if query:
        condition = Q()
        for field in search_fields:
            condition |= Q(**{f"{field}__icontains": query})
        queryset = queryset.filter(condition)
    return _filters(request, queryset, filters)


def _filters(request, queryset, filters: dict[str, str]):
    for name, lookup in filters.items():
        value = request.GET.get(name, "").strip()
        if value:
            queryset = queryset.filter(**{lookup: value})
    return queryset


EXPORT_CHUNK = 2000  # rows read per query while an export streams


def _natural_order(queryset, fields: tuple[str, ...]) -> list[int]:
    """The queryset's primary keys in natural order of ``fields`` (leaf2 before leaf10, Ethernet1/2 before
    Ethernet1/10: compiler.natural). Databases sort text byte by byte, so the order is computed here from one
    narrow query of (pk, fields) — about 0.1 s for the 70,000 ports of a 1,088-switch fabric."""
    rows = list(queryset.order_by().values_list("pk", *fields))
    rows.sort(key=lambda values: tuple(natural_key(str(value or "")) for value in values[1:]))
    return [values[0] for values in rows]


def _rows_in_order(queryset, pks: list[int]) -> list:
    by_pk = queryset.in_bulk(pks)
    return [by_pk[pk] for pk in pks if pk in by_pk]


def _list_page(request, *, section: str, title: str, queryset, headers: list[str], row, filters: list[Filter],
               natural: tuple[str, ...], numeric: set[int] = frozenset(), actions: list[tuple[str, str]] = (),
               placeholder: str = "name, address, serial…"):
    """One list page in natural order of ``natural``; ``?format=csv`` or ``?format=yaml`` exports every row the
    filters select (issue #30 point 9), streamed, with the page's headers and cell texts."""
    pks = _natural_order(queryset, natural)
    export = request.GET.get("format", "")
    if export:
        return _export(section, export, headers, row, queryset, pks)
    page = paginate(request, pks)
    rows = [row(item) for item in _rows_in_order(queryset, list(page.object_list))]
    return render(request, "ui/inventory/list.html", {
        "section": section, "title": title, "page": page, "rows": rows, "headers": headers, "filters": filters,
        "numeric": numeric, "actions": actions, "query": request.GET.get("q", ""), "placeholder": placeholder,
    })


def _export(section: str, export: str, headers: list[str], row, queryset, pks: list[int]):
    if export not in EXPORT_FORMATS:
        return HttpResponseBadRequest(f"format={export!r}: one of {', '.join(EXPORT_FORMATS)}",
                                      content_type="text/plain")

    def records():
        for start in range(0, len(pks), EXPORT_CHUNK):
            for item in _rows_in_order(queryset, pks[start:start + EXPORT_CHUNK]):
                yield ["" if cell.text is None else str(cell.text) for cell in row(item)]

    if export == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer)

        def lines():
            for values in itertools.chain([headers], records()):
                writer.writerow(values)
                yield buffer.getvalue()
                buffer.seek(0)
                buffer.truncate()

        content_type = "text/csv; charset=utf-8"
    else:
        def lines():
            for values in records():
                yield yaml.safe_dump([dict(zip(headers, values, strict=True))], sort_keys=False, allow_unicode=True)

        content_type = "application/yaml; charset=utf-8"
    response = StreamingHttpResponse(lines(), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{section}.{export}"'
    return response


# --------------------------------------------------------------------------------------------- fabrics


@viewer
def fabric_list(request):
    fabrics = selectors.fabric_list().annotate(
        switch_count=selectors.count_of(Switch, "fabric"), server_count=selectors.count_of(Server, "fabric"),
        rack_count=selectors.count_of(Rack, "fabric"))
    return render(request, "ui/fabric_list.html", {"section": "fabrics", "title": "Fabrics", "fabrics": fabrics})


@requires(EDIT_INVENTORY)
def fabric_build(request):
    """Plan a Clos, or with ``pods`` a 5-stage Clos, from a few numbers and persist it (idempotent: building again
    only adds what is new); the management pools the builder picked are named after the build."""
    form = FabricBuildForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        # In this process (a build of the form's sizes takes seconds), recorded like every build.
        build = fabric_build_execute(build=fabric_build_prepare(params=form.build_params(), requested_by=request.user))
        if build.status == RunStatus.FAILED:
            run_errors_into(form, build)
        else:
            counts = build.summary
            messages.success(request, f"Built fabric {counts['fabric']}: {counts['switches']} switches, "
                                      f"{counts['servers']} servers, {counts['cables']} cables.")
            # what the builder decided (inventory.builder.management_pools: a free /16 instead of a taken default)
            for note in (build.result or {}).get("notes", ()):
                messages.info(request, f"Management pool picked: {note}.")
            return redirect("ui:fabric_detail", name=counts["fabric"])
    return render(request, "ui/fabric_build.html", {"section": "fabrics", "title": "Build a fabric", "form": form})


@viewer
def fabric_detail(request, name: str):
    fabric = fabric_or_404(name)
    switches = fabric.switches.values("role").annotate(count=Count("id")).order_by("role")
    context = {
        "section": "fabrics", "title": f"Fabric {fabric.name}", "fabric": fabric,
        "role_counts": {row["role"]: row["count"] for row in switches},
        "server_count": fabric.servers.count(), "rack_count": fabric.racks.count(),
        "cable_count": selectors.cable_count_of_fabric(fabric=fabric),
        "status": integrations.fabric_status(fabric),
    }
    return render(request, "ui/fabric_detail.html", context)


# --------------------------------------------------------------------------------------------- racks


@viewer
def rack_list(request):
    queryset = _apply(request, selectors.rack_list().annotate(
        switch_count=selectors.count_of(Switch, "rack"), server_count=Count("servers"),
        server_power=Sum("servers__power_w")), ("name", "row"), {"fabric": "fabric__name", "row": "row"})
    rows = lambda rack: [  # noqa: E731 - a row is a one-liner per list
        Cell(rack.name, reverse("ui:rack_detail", args=[rack.pk])), Cell(rack.site.name),
        Cell(rack.fabric.name if rack.fabric else "—"),
        Cell(rack.row or "—", reverse("ui:rack_row", args=[rack.site.name, rack.row]) if rack.row else None),
        Cell(rack.position), Cell(f"{rack.height_u}U"),
        Cell(rack.switch_count), Cell(rack.server_count),
        Cell(f"{(rack.server_power or 0) / 1000:.1f} / {rack.power_budget_kw:.1f} kW"),
    ]
    return _list_page(request, section="racks", title="Racks", queryset=queryset, natural=("site__name", "name"),
                      headers=["Rack", "Site", "Fabric", "Row", "Pos", "Height", "Switches", "Servers", "Server power"],
                      row=rows, filters=[Filter("fabric", "Fabric", _fabric_choices())], numeric={4, 6, 7})


def rack_devices_by_rack(racks: list[Rack]) -> dict[int, list[svg.RackDevice]]:
    """Placed switches and servers of each rack, drawn as the elevation does: two queries for any number of racks."""
    devices: dict[int, list[svg.RackDevice]] = {rack.pk: [] for rack in racks}
    for switch in selectors.switch_placed_list(racks=racks):
        devices[switch.rack_id].append(svg.RackDevice(
            switch.hostname, switch.role, switch.u_position, svg.SWITCH_HEIGHT_U, switch.model.typical_power_w,
            reverse("ui:switch_detail", args=[switch.hostname])))
    for server in selectors.server_placed_list(racks=racks):
        devices[server.rack_id].append(svg.RackDevice(
            server.name, "server", server.u_position, svg.SERVER_HEIGHT_U, server.power_w,
            reverse("ui:server_detail", args=[server.name])))
    return devices


def rack_devices(rack: Rack) -> list[svg.RackDevice]:
    return rack_devices_by_rack([rack])[rack.pk]


@viewer
def rack_detail(request, pk: int):
    rack = get_object_or_404(selectors.rack_list(), pk=pk)
    devices = rack_devices(rack)
    unplaced = list(rack.switches.filter(u_position=None).values_list("hostname", flat=True)) + list(
        rack.servers.filter(u_position=None).values_list("name", flat=True))
    return render(request, "ui/inventory/rack_detail.html", {
        "section": "racks", "title": f"Rack {rack.name}", "rack": rack,
        "elevation": svg.rack_elevation_svg(rack.name, rack.height_u, devices, rack.power_budget_kw),
        "power": svg.power_summary(devices, rack.power_budget_kw), "devices": sorted(
            devices, key=lambda device: -device.u_position), "unplaced": unplaced,
    })


@viewer
def rack_row(request, site: str, row: str):
    """Every rack of one row of a site side by side, in position order (``?fabric=`` narrows to one fabric)."""
    racks = selectors.rack_list_of_row(site=site, row=row)
    fabric = request.GET.get("fabric", "")
    if fabric:
        racks = racks.filter(fabric__name=fabric)
    racks = list(racks)
    if not racks:
        raise Http404(f"no rack in row {row!r} of site {site!r}" + (f" in fabric {fabric!r}" if fabric else ""))
    devices = rack_devices_by_rack(racks)
    cards = [{"rack": rack, "elevation": svg.rack_elevation_svg(rack.name, rack.height_u, devices[rack.pk],
                                                               rack.power_budget_kw),
              "power": svg.power_summary(devices[rack.pk], rack.power_budget_kw)} for rack in racks]
    used_kw = sum(card["power"]["used_kw"] for card in cards)
    budget_kw = sum(rack.power_budget_kw for rack in racks)
    fabrics = sorted({rack.fabric.name for rack in racks if rack.fabric})
    return render(request, "ui/inventory/rack_row.html", {
        "section": "racks", "title": f"Row {row} · {site}", "site": site, "row": row, "cards": cards,
        "used_kw": used_kw, "budget_kw": budget_kw, "fabrics": fabrics, "fabric": fabric,
        "devices": sum(len(items) for items in devices.values()),
    })


# --------------------------------------------------------------------------------------------- switches


@viewer
def switch_list(request):
    queryset = _apply(
        request, selectors.switch_list(),
        ("hostname", "mgmt_ip", "serial", "model__name"),
        {"fabric": "fabric__name", "role": "role", "platform": "platform__slug", "status": "status"})
    row = lambda switch: [  # noqa: E731
        Cell(switch.hostname, reverse("ui:switch_detail", args=[switch.hostname])), Cell(switch.role),
        Cell(switch.fabric.name, reverse("ui:fabric_detail", args=[switch.fabric.name])),
        Cell(switch.platform.slug), Cell(switch.model.name), Cell(switch.os_version),
        Cell(switch.rack.name if switch.rack else "—", reverse("ui:rack_detail", args=[switch.rack_id])
             if switch.rack_id else None),
        Cell(f"U{switch.u_position}" if switch.u_position else "—"), Cell(switch.mgmt_ip or "—", css="mono"),
        Cell(switch.status, pill=True),
    ]
    return _list_page(request, section="switches", title="Switches", queryset=queryset, natural=("hostname",),
                      headers=["Hostname", "Role", "Fabric", "Platform", "Model", "OS", "Rack", "U", "Mgmt IP", "Status"],
                      row=row, filters=[
                          Filter("fabric", "Fabric", _fabric_choices()),
                          Filter("role", "Role", list(SwitchRoleChoices.choices)),
                          Filter("platform", "Platform", list(PlatformChoices.choices)),
                          Filter("status", "Status", list(DeviceStatusChoices.choices))])


def _peer_of(port) -> tuple[str, str | None]:
    """'device:port' at the other end of the port's cable and a link to that device (prefetched ends)."""
    cable = port.cable
    if cable is None:
        return "—", None
    for other in (*cable.interfaces.all(), *cable.nic_ports.all()):
        if other.pk == port.pk and type(other) is type(port):
            continue
        if isinstance(other, Interface):
            return f"{other.switch.hostname}:{other.name}", reverse("ui:switch_detail", args=[other.switch.hostname])
        return f"{other.server.name}:{other.name}", reverse("ui:server_detail", args=[other.server.name])
    return "(open end)", None


def _intended_interfaces(switch: Switch) -> tuple[dict[str, dict], str]:
    """Interface name -> the compiled (intended) interface of the switch's native-platform config in the newest
    successful compile of its fabric's intents, and a label naming that compile ("" when never compiled).
    The compiler shuts ports nothing is cabled to (kind "unused") whatever the inventory's admin state says."""
    for intent in switch.fabric.intents.order_by("name"):
        run = intent_selectors.compile_run_latest(fabric_intent=intent)
        if run is None:
            continue
        config = intent_selectors.device_config_list().filter(
            run=run, hostname=switch.hostname).order_by("platform").only("structured", "platform", "run").first()
        if config is not None:
            interfaces = config.structured.get("interfaces", [])
            return {item["name"]: item for item in interfaces}, f"{intent.name} compile #{run.pk}"
    return {}, ""


@viewer
def switch_detail(request, hostname: str):
    switch = get_object_or_404(selectors.switch_list(), hostname=hostname)
    interfaces = list(selectors.interface_list_of_switch(switch=switch))
    intended, intended_source = _intended_interfaces(switch)
    ports = [(interface, *_peer_of(interface), intended.get(interface.name)) for interface in interfaces]
    return render(request, "ui/inventory/switch_detail.html", {
        "section": "switches", "title": switch.hostname, "switch": switch, "ports": ports,
        "intended_source": intended_source, "shut_by_config": sum(
            1 for interface in interfaces if interface.enabled and interface.name in intended
            and not intended[interface.name]["enabled"]),
        "cabled": sum(1 for interface in interfaces if interface.cable_id),
        "findings": integrations.findings_for_device(switch.fabric, switch.hostname),
        "intents": list(switch.fabric.intents.order_by("name").values_list("name", flat=True)),
    })


@viewer
def interface_list(request):
    queryset = _apply(request, selectors.interface_list(fabric_and_optic=True),
                      ("name", "switch__hostname", "description"),
                      {"fabric": "switch__fabric__name", "switch": "switch__hostname", "speed": "speed_gbps"},
                      device_port=("switch__hostname", "name"))
    cabled = request.GET.get("cabled", "")
    if cabled in ("yes", "no"):
        queryset = queryset.filter(cable__isnull=cabled == "no")
    row = lambda interface: [  # noqa: E731
        Cell(interface.switch.hostname, reverse("ui:switch_detail", args=[interface.switch.hostname])),
        Cell(interface.name, reverse("ui:interface_detail", args=[interface.pk])),
        Cell(f"{interface.speed_gbps}G"), Cell(interface.mtu), Cell("enabled" if interface.enabled else "shutdown", pill=True),
        Cell(interface.breakout_parent or "—"), Cell(interface.optic.media if hasattr(interface, "optic") else "—"),
        Cell(interface.cable.label if interface.cable else "—",
             reverse("ui:cable_detail", args=[interface.cable_id]) if interface.cable_id else None),
        Cell(interface.description or ""),
    ]
    speeds = sorted({str(s) for s in selectors.interface_speeds()}, key=int)
    return _list_page(request, section="interfaces", title="Interfaces", queryset=queryset,
                      natural=("switch__hostname", "name"),
                      headers=["Switch", "Interface", "Speed", "MTU", "Inventory state", "Breakout of", "Optic", "Cable",
                               "Description"],
                      row=row, filters=[Filter("fabric", "Fabric", _fabric_choices()),
                                        Filter("speed", "Speed (Gb/s)", [(s, f"{s}G") for s in speeds]),
                                        Filter("cabled", "Cabled", [("yes", "yes"), ("no", "no")])],
                      numeric={3}, placeholder="name, description, or switch:port (leaf1:Ethernet63/1)")


@viewer
def interface_detail(request, pk: int):
    interface = get_object_or_404(selectors.interface_detail_list(), pk=pk)
    optic = selectors.optic_of_interface(interface=interface)
    peer, peer_href = "—", None
    if interface.cable_id:
        interface = selectors.interface_detail_list(peers=True).get(pk=pk)
        peer, peer_href = _peer_of(interface)
    return render(request, "ui/inventory/interface_detail.html", {
        "section": "interfaces", "title": f"{interface.switch.hostname}:{interface.name}", "interface": interface,
        "optic": optic, "peer": peer, "peer_href": peer_href,
        "findings": integrations.findings_for_device(interface.switch.fabric, interface.switch.hostname,
                                                     interface=interface.name),
    })


# --------------------------------------------------------------------------------------------- optics, cables


def _optic_place(optic: Optic) -> tuple[str, str | None]:
    if optic.interface_id:
        return str(optic.interface), reverse("ui:interface_detail", args=[optic.interface_id])
    if optic.nic_port_id:
        return str(optic.nic_port), reverse("ui:server_detail", args=[optic.nic_port.server.name])
    return "spare", None


@viewer
def optic_list(request):
    queryset = _apply(request, selectors.optic_list(), ("media", "serial", "part_number", "vendor"),
                      {"media": "media", "form_factor": "form_factor"})
    where = request.GET.get("fabric", "")
    if where:
        queryset = queryset.filter(Q(interface__switch__fabric__name=where) | Q(nic_port__server__fabric__name=where))
    row = lambda optic: [  # noqa: E731
        Cell(optic.serial or f"#{optic.pk}", reverse("ui:optic_detail", args=[optic.pk])), Cell(optic.media),
        Cell(optic.form_factor), Cell(f"{optic.speed_gbps}G"), Cell(f"{optic.reach_m:g} m"),
        Cell(*_optic_place(optic)), Cell(optic.vendor), Cell(optic.part_number),
    ]
    media = [(m, m) for m in selectors.optic_media()]
    return _list_page(request, section="optics", title="Optics", queryset=queryset,
                      natural=("interface__switch__hostname", "nic_port__server__name", "interface__name", "nic_port__name"),
                      headers=["Serial", "Media", "Form factor", "Speed", "Reach", "Installed in", "Vendor", "Part"],
                      row=row, filters=[Filter("fabric", "Fabric", _fabric_choices()), Filter("media", "Media", media)])


@viewer
def optic_detail(request, pk: int):
    optic = get_object_or_404(selectors.optic_list(), pk=pk)
    place, place_href = _optic_place(optic)
    return render(request, "ui/inventory/optic_detail.html", {
        "section": "optics", "title": f"Optic {optic.serial or optic.pk}", "optic": optic, "place": place,
        "place_href": place_href})


def _cable_ends(cable: Cable) -> dict[str, tuple[str, str | None, object]]:
    """'A'/'B' -> (device:port, link, port) using the prefetched ends."""
    ends = {}
    for port in (*cable.interfaces.all(), *cable.nic_ports.all()):
        if isinstance(port, Interface):
            ends[port.cable_end] = (f"{port.switch.hostname}:{port.name}",
                                    reverse("ui:interface_detail", args=[port.pk]), port)
        else:
            ends[port.cable_end] = (f"{port.server.name}:{port.name}",
                                    reverse("ui:server_detail", args=[port.server.name]), port)
    return ends


@viewer
def cable_list(request):
    queryset = _apply(request, selectors.cable_list(ports=True), ("label",), {"type": "cable_type", "status": "status"})
    fabric = request.GET.get("fabric", "")
    if fabric:
        queryset = queryset.filter(Q(interfaces__switch__fabric__name=fabric) | Q(nic_ports__server__fabric__name=fabric)
                                   ).distinct()

    def row(cable):
        ends = _cable_ends(cable)
        a, b = ends.get("A", ("—", None, None)), ends.get("B", ("—", None, None))
        return [Cell(cable.label, reverse("ui:cable_detail", args=[cable.pk])), Cell(a[0], a[1]), Cell(b[0], b[1]),
                Cell(cable.cable_type), Cell(f"{cable.length_m:g} m"), Cell(cable.status, pill=True),
                Cell("peer link" if cable.peer_link else "")]

    return _list_page(request, section="cables", title="Cables", queryset=queryset, natural=("label",),
                      headers=["Label", "A end", "B end", "Type", "Length", "Status", ""], row=row,
                      filters=[Filter("fabric", "Fabric", _fabric_choices()),
                               Filter("type", "Type", list(CableTypeChoices.choices)),
                               Filter("status", "Status", list(CableStatusChoices.choices))])


class CableEditForm(VersionedModelForm):
    class Meta:
        model = Cable
        fields = ("cable_type", "length_m", "status")


@requires(EDIT_INVENTORY)
def cable_edit(request, pk: int):
    """Correct a cable's recorded type, length or status (the physical checks then judge the new values)."""
    cable = get_object_or_404(Cable, pk=pk)
    form = CableEditForm(request.POST or None, instance=cable)
    stale, status = None, 200
    if request.method == "POST" and form.is_valid():  # is_valid runs the model's own validation
        try:
            with transaction.atomic():
                form.save()
        except StaleVersionError as error:  # saved by someone else since the form was opened: show theirs
            stale, status = stale_message(error, form), 409
            cable = get_object_or_404(Cable, pk=pk)
            form = CableEditForm(instance=cable)
        else:
            messages.success(request, f"Saved cable {cable.label}. Run validation to check it against its optics.")
            return redirect("ui:cable_detail", pk=cable.pk)
    return render(request, "ui/fabric_build.html", {
        "section": "cables", "title": f"Edit cable {cable.label}", "form": form, "submit": "Save cable",
        "stale": stale,
        "intro": "The recorded cable; the physical checks compare its type and length with the optics at both ends."},
        status=status)


@viewer
def cable_detail(request, pk: int):
    cable = get_object_or_404(selectors.cable_list(ports=True), pk=pk)
    ends = _cable_ends(cable)
    optics = {o.interface_id or ("nic", o.nic_port_id): o for o in selectors.optic_list_of_cable(cable=cable)}
    sides = []
    for side in ("A", "B"):
        text, href, port = ends.get(side, ("(not plugged)", None, None))
        optic = None
        if port is not None:
            optic = optics.get(port.pk if isinstance(port, Interface) else ("nic", port.pk))
        sides.append({"side": side, "text": text, "href": href, "port": port, "optic": optic})
    return render(request, "ui/inventory/cable_detail.html", {
        "section": "cables", "title": f"Cable {cable.label}", "cable": cable, "sides": sides})


# --------------------------------------------------------------------------------------------- servers


@viewer
def server_list(request):
    queryset = _apply(request, selectors.server_list().annotate(
        nic_count=Count("nic_ports")).order_by("name"), ("name", "mgmt_ip", "serial"), {"fabric": "fabric__name", "rack": "rack__name"})
    row = lambda server: [  # noqa: E731
        Cell(server.name, reverse("ui:server_detail", args=[server.name])), Cell(server.fabric.name),
        Cell(server.rack.name if server.rack else "—",
             reverse("ui:rack_detail", args=[server.rack_id]) if server.rack_id else None),
        Cell(f"U{server.u_position}" if server.u_position else "—"), Cell(server.gpu_count), Cell(server.nic_count),
        Cell(f"{server.power_w / 1000:.1f} kW"), Cell(server.mgmt_ip or "—", css="mono"),
    ]
    return _list_page(request, section="servers", title="Servers", queryset=queryset, natural=("name",),
                      headers=["Server", "Fabric", "Rack", "U", "GPUs", "NICs", "Power", "Mgmt IP"], row=row,
                      filters=[Filter("fabric", "Fabric", _fabric_choices())], numeric={4, 5, 6})


@viewer
def server_detail(request, name: str):
    server = get_object_or_404(selectors.server_list(), name=name)
    nics = list(selectors.nic_port_list_of_server(server=server))
    optics = {optic.nic_port_id: optic for optic in selectors.optic_list_of_server(server=server)}
    ports = [(nic, *_peer_of(nic), optics.get(nic.pk)) for nic in nics]
    intents, chosen, host, host_error = _server_host(request, server)
    return render(request, "ui/inventory/server_detail.html", {
        "section": "servers", "title": server.name, "server": server, "ports": ports, "intents": intents,
        "intent": chosen, "host": host, "host_error": host_error})


def _server_host(request, server: Server):
    """The fabric intents of the server's fabric, the one shown (``?intent=``, else the first by name) and the
    server's host view under it (issue 31: its NICs beside their switch ports, the host files), or why not."""
    intents = list(intent_selectors.fabric_intent_list().filter(fabric_id=server.fabric_id).order_by("name"))
    wanted = request.GET.get("intent")
    chosen = next((intent for intent in intents if intent.name == wanted), intents[0] if intents else None)
    if chosen is None:
        return intents, None, None, "no fabric intent configures this server's fabric"
    try:
        return intents, chosen, server_host_view(fabric_intent=chosen, server=server.name), ""
    except FabricTwinError as error:
        return intents, chosen, None, str(error)


@viewer
def server_host_file(request, name: str, file: str):
    """One of a server's rendered host files (``nic-qos.sh``, ``mlxconfig.sh``, ``netplan.yaml``, ``nccl.env``) as a
    download, under the fabric intent ``?intent=`` (else the first of the server's fabric)."""
    server = get_object_or_404(Server, name=name)
    _intents, _chosen, host, error = _server_host(request, server)
    if host is None or file not in host.files:
        raise Http404(error or f"{server.name} has no host file {file}")
    response = HttpResponse(host.files[file], content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{server.name}-{file}"'
    return response
