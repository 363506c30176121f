"""The only bridge from the inventory ORM to the pure core: ``inventory_snapshot(fabric) -> Inventory``.

Reads with a constant number of queries (9) (values() rows, no per-object queries) so a fabric of thousands of
switches becomes a snapshot in seconds. Orders rows by creation (the builder creates in plan order, so a built
fabric's snapshot equals the plan it came from); racks by (row, position, name) and models by name as the
planner does.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Q

from common.runs import RunStatus
from compiler import model as core

from .models import Fabric, Interface, NetboxSync, NicPort, Rack, Server, Switch, SwitchModel

_OPTIC_FIELDS = ("optic__id", "optic__form_factor", "optic__media", "optic__speed_gbps", "optic__reach_m",
                 "optic__vendor", "optic__part_number", "optic__serial")
_CABLE_FIELDS = ("cable_id", "cable_end", "cable__label", "cable__cable_type", "cable__length_m", "cable__status",
                 "cable__peer_link")


def _optic(row: dict) -> core.Optic | None:
    if row["optic__id"] is None:
        return None
    return core.Optic(form_factor=row["optic__form_factor"], media=row["optic__media"],
                      speed_gbps=row["optic__speed_gbps"], reach_m=row["optic__reach_m"],
                      vendor=row["optic__vendor"], part_number=row["optic__part_number"],
                      serial=row["optic__serial"])


def inventory_snapshot(fabric: Fabric | str) -> core.Inventory:
    """The frozen Inventory of one fabric (accepts the Fabric or its name)."""
    if isinstance(fabric, str):
        fabric = Fabric.objects.get(name=fabric)
    racks = tuple(
        core.Rack(name=row["name"], site=row["site__name"], row=row["row"], position=row["position"],
                  height_u=row["height_u"], power_budget_kw=row["power_budget_kw"])
        for row in Rack.objects.filter(fabric=fabric).order_by("row", "position", "name").values(
            "name", "site__name", "row", "position", "height_u", "power_budget_kw")
    )
    models = tuple(
        core.SwitchModelSpec(name=m.name, vendor=m.vendor, asic=m.asic, port_count=m.port_count,
                             max_speed_gbps=m.max_speed_gbps, form_factor=m.form_factor,
                             breakout_modes=tuple(m.breakout_modes), buffer_mb=m.buffer_mb,
                             typical_power_w=m.typical_power_w)
        for m in SwitchModel.objects.filter(switches__fabric=fabric).distinct().order_by("name")
    )

    cable_rows: dict[int, dict] = {}
    ends: dict[int, dict[str, core.Endpoint]] = defaultdict(dict)

    def note_cable(row: dict, device: str, port: str) -> None:
        if row["cable_id"] is None:
            return
        cable_rows.setdefault(row["cable_id"], row)
        ends[row["cable_id"]][row["cable_end"]] = core.Endpoint(device, port)

    interfaces_by_switch: dict[int, list[core.Interface]] = defaultdict(list)
    switch_names = dict(Switch.objects.filter(fabric=fabric).values_list("id", "hostname"))
    for row in Interface.objects.filter(switch__fabric=fabric).order_by("id").values(
            "switch_id", "name", "speed_gbps", "mtu", "enabled", "description", "breakout_parent", "lane",
            *_OPTIC_FIELDS, *_CABLE_FIELDS):
        interfaces_by_switch[row["switch_id"]].append(core.Interface(
            name=row["name"], speed_gbps=row["speed_gbps"], mtu=row["mtu"], enabled=row["enabled"],
            description=row["description"], breakout_parent=row["breakout_parent"] or None, lane=row["lane"],
            optic=_optic(row)))
        note_cable(row, switch_names[row["switch_id"]], row["name"])

    switches = tuple(
        core.Switch(hostname=row["hostname"], role=row["role"], platform=row["platform__slug"],
                    model=row["model__name"], interfaces=tuple(interfaces_by_switch.get(row["id"], ())),
                    rack=row["rack__name"], u_position=row["u_position"], os_version=row["os_version"],
                    mgmt_ip=row["mgmt_ip"], serial=row["serial"], status=row["status"], plane=row["plane"],
                    pod=row["pod"], base_mac=row["base_mac"])
        for row in Switch.objects.filter(fabric=fabric).order_by("id").values(
            "id", "hostname", "role", "platform__slug", "model__name", "rack__name", "u_position", "os_version",
            "mgmt_ip", "serial", "status", "plane", "pod", "base_mac")
    )

    # A server sits on every fabric its NICs are cabled into (the backend GPU NICs on one, the frontend/storage NICs
    # on another: issue #30 point 9). Its home fabric sees it with the NICs cabled there or nowhere; another fabric
    # sees it as a guest with only the NICs cabled into that fabric, and without its rack (the home fabric's).
    nics_by_server: dict[int, list[core.NicPort]] = defaultdict(list)
    guests: set[int] = set()
    for row in NicPort.objects.filter(Q(server__fabric=fabric) | Q(cable__interfaces__switch__fabric=fabric)).order_by(
            "id").values("server_id", "server__name", "server__fabric_id", "cable__interfaces__switch__fabric_id",
                         "name", "rail", "speed_gbps", "mtu", *_OPTIC_FIELDS, *_CABLE_FIELDS):
        far_fabric = row["cable__interfaces__switch__fabric_id"]  # the switch this NIC is cabled to (one at most)
        if far_fabric is not None and far_fabric != fabric.pk:
            continue  # a home server's NIC in another fabric: that fabric's
        if row["server__fabric_id"] != fabric.pk:
            guests.add(row["server_id"])
        nics_by_server[row["server_id"]].append(core.NicPort(
            name=row["name"], rail=row["rail"], speed_gbps=row["speed_gbps"], mtu=row["mtu"], optic=_optic(row)))
        note_cable(row, row["server__name"], row["name"])

    servers = tuple(
        core.Server(name=row["name"], nics=tuple(nics_by_server.get(row["id"], ())),
                    rack=None if row["id"] in guests else row["rack__name"],
                    u_position=None if row["id"] in guests else row["u_position"], gpu_count=row["gpu_count"],
                    power_w=row["power_w"], mgmt_ip=row["mgmt_ip"], serial=row["serial"], model=row["model"])
        for row in Server.objects.filter(Q(fabric=fabric) | Q(id__in=guests)).order_by("id").values(
            "id", "name", "rack__name", "u_position", "gpu_count", "power_w", "mgmt_ip", "serial", "model")
    )

    _fill_far_ends(ends)
    cables = tuple(
        core.Cable(label=row["cable__label"], a=ends[cable_id]["A"], b=ends[cable_id]["B"],
                   cable_type=row["cable__cable_type"], length_m=row["cable__length_m"],
                   status=row["cable__status"], peer_link=row["cable__peer_link"])
        for cable_id, row in sorted(cable_rows.items())
        if "A" in ends[cable_id] and "B" in ends[cable_id]  # a cable with one end plugged is not a link yet
    )
    return core.Inventory(fabric=fabric.name, switches=switches, servers=servers, cables=cables, racks=racks,
                          switch_models=models, missing_links=_missing_links(fabric.name))


def _missing_links(fabric: str) -> tuple[core.MissingLink, ...]:
    """Links the source of truth (the last applied NetBox sync) has and the inventory could not import: one query."""
    record = NetboxSync.objects.filter(fabric_name=fabric, status=RunStatus.SUCCEEDED, dry_run=False).only(
        "missing_links").first()
    return tuple(core.MissingLink(endpoint=core.Endpoint(item["device"], item["interface"]), source=item["source"],
                                  reason=item["reason"]) for item in (record.missing_links if record else []))


def _fill_far_ends(ends: dict[int, dict[str, core.Endpoint]]) -> None:
    """Cables leaving the fabric: look up the far ends (two queries, only for the few half-seen cables)."""
    half_seen = [cable_id for cable_id, sides in ends.items() if len(sides) == 1]
    if not half_seen:
        return
    for cable_id, end, device, port in Interface.objects.filter(cable_id__in=half_seen).values_list(
            "cable_id", "cable_end", "switch__hostname", "name"):
        ends[cable_id][end] = core.Endpoint(device, port)
    for cable_id, end, device, port in NicPort.objects.filter(cable_id__in=half_seen).values_list(
            "cable_id", "cable_end", "server__name", "name"):
        ends[cable_id][end] = core.Endpoint(device, port)
