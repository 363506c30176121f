"""Writes to the inventory. ``inventory_persist`` upserts a whole pure ``Inventory`` snapshot (the fabric
builder, YAML import and NetBox import all end here); the cable services connect and disconnect ends.

Everything runs in one transaction: a failure leaves the database as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from tqdm import tqdm

from compiler import model as core
from compiler.errors import FieldError, IntentValidationError, InventoryError

from .constants import PLATFORM_DEFAULTS
from .models import Cable, Fabric, Interface, NicPort, Optic, Platform, Rack, Server, Site, Switch, SwitchModel

BATCH_SIZE = 2000
DEFAULT_SITE = "default"


@dataclass
class PersistResult:
    """How many rows each model gained (created) or changed (updated). All zeros: the database already matched."""

    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)

    def count(self, kind: str, model: str, number: int) -> None:
        target = self.created if kind == "created" else self.updated
        target[model] = target.get(model, 0) + number

    @property
    def changed(self) -> bool:
        return any(self.created.values()) or any(self.updated.values())

    def as_dict(self) -> dict:
        return {"created": dict(self.created), "updated": dict(self.updated)}


def platform_get_or_create(*, slug: str) -> Platform:
    if slug not in PLATFORM_DEFAULTS:
        raise IntentValidationError(FieldError("platform", slug, f"must be one of {', '.join(PLATFORM_DEFAULTS)}"))
    platform, _ = Platform.objects.get_or_create(slug=slug, defaults=PLATFORM_DEFAULTS[slug])
    return platform


def _batches(items: list, progress: tqdm | None) -> Iterator[list]:
    for start in range(0, len(items), BATCH_SIZE):
        batch = items[start:start + BATCH_SIZE]
        yield batch
        if progress is not None:
            progress.update(len(batch))


def _bulk_create(model, rows: list, result: PersistResult, progress: tqdm | None) -> None:
    for batch in _batches(rows, progress):
        model.objects.bulk_create(batch)
    result.count("created", model.__name__, len(rows))


def _sync_fields(obj, values: dict) -> bool:
    """Set changed attributes; True when anything changed."""
    changed = False
    for name, value in values.items():
        if getattr(obj, name) != value:
            setattr(obj, name, value)
            changed = True
    return changed


def _upsert(model, existing: dict, wanted: dict[object, dict], make, result: PersistResult,
            progress: tqdm | None = None) -> None:
    """Create rows missing from ``existing`` (key -> row) and update the fields of rows that differ."""
    to_create, to_update, fields = [], [], set()
    for key, values in wanted.items():
        row = existing.get(key)
        if row is None:
            to_create.append(make(key, values))
        elif _sync_fields(row, values):
            to_update.append(row)
            fields.update(values)
    _bulk_create(model, to_create, result, progress)
    if to_update:
        model.objects.bulk_update(to_update, sorted(fields), batch_size=BATCH_SIZE)
        result.count("updated", model.__name__, len(to_update))


def _optic_values(optic: core.Optic) -> dict:
    return {"form_factor": optic.form_factor, "media": optic.media, "speed_gbps": optic.speed_gbps,
            "reach_m": optic.reach_m, "vendor": optic.vendor, "part_number": optic.part_number,
            "serial": optic.serial}


@transaction.atomic
def inventory_persist(*, inventory: core.Inventory, site: str | None = None, description: str | None = None,
                      progress: bool = False) -> PersistResult:
    """Upsert ``inventory`` by natural keys (idempotent and growable; never renames, never re-cables).

    Natural keys: site/fabric/switch-model names, rack (site, name), switch hostname, server name,
    interface (switch, name), NIC port (server, name), cable label, optic by the port it sits in.
    A cable label that already joins other ports raises InventoryError rather than silently moving it.
    """
    result = PersistResult()
    _check_references(inventory)
    site_name = site or next((rack.site for rack in inventory.racks if rack.site), DEFAULT_SITE)
    site_obj, created = Site.objects.get_or_create(name=site_name)
    result.count("created", "Site", int(created))
    fabric, created = Fabric.objects.get_or_create(name=inventory.fabric, defaults={"site": site_obj})
    result.count("created", "Fabric", int(created))
    if description is not None and fabric.description != description:
        fabric.description = description
        fabric.save(update_fields=["description"])
        result.count("updated", "Fabric", 1)

    total_rows = (len(inventory.switches) + len(inventory.servers) + len(inventory.cables)
                  + sum(len(s.interfaces) for s in inventory.switches) + sum(len(s.nics) for s in inventory.servers))
    bar = tqdm(total=total_rows, desc=f"persist {inventory.fabric}", unit="row", disable=not progress)
    try:
        _persist_models_and_racks(inventory, fabric, result)
        _persist_devices(inventory, fabric, result, bar)
        _persist_ports_and_cables(inventory, result, bar)
    finally:
        bar.close()
    return result


def _check_references(inventory: core.Inventory) -> None:
    errors = []
    racks, models = inventory.racks_by_name, inventory.models_by_name
    for switch in inventory.switches:
        if switch.rack is not None and switch.rack not in racks:
            errors.append(FieldError(f"switches[{switch.hostname}].rack", switch.rack, "unknown rack"))
        if switch.model not in models and not SwitchModel.objects.filter(name=switch.model).exists():
            errors.append(FieldError(f"switches[{switch.hostname}].model", switch.model, "unknown switch model"))
        if switch.platform not in PLATFORM_DEFAULTS:
            errors.append(FieldError(f"switches[{switch.hostname}].platform", switch.platform,
                                     f"must be one of {', '.join(PLATFORM_DEFAULTS)}"))
    for server in inventory.servers:
        if server.rack is not None and server.rack not in racks:
            errors.append(FieldError(f"servers[{server.name}].rack", server.rack, "unknown rack"))
    names = [s.hostname for s in inventory.switches] + [s.name for s in inventory.servers]
    for name in sorted(_dupes(names)):
        errors.append(FieldError("hostname", name, "used by more than one device"))
    if errors:
        raise IntentValidationError(errors)


def _dupes(names: Iterable[str]) -> set[str]:
    seen, dupes = set(), set()
    for name in names:
        (dupes if name in seen else seen).add(name)
    return dupes


def _persist_models_and_racks(inventory: core.Inventory, fabric: Fabric, result: PersistResult) -> None:
    existing_models = {m.name: m for m in SwitchModel.objects.filter(name__in=[m.name for m in inventory.switch_models])}
    wanted_models = {
        spec.name: {"vendor": spec.vendor, "asic": spec.asic, "port_count": spec.port_count,
                    "max_speed_gbps": spec.max_speed_gbps, "form_factor": spec.form_factor,
                    "breakout_modes": list(spec.breakout_modes), "buffer_mb": spec.buffer_mb,
                    "typical_power_w": spec.typical_power_w}
        for spec in inventory.switch_models
    }
    _upsert(SwitchModel, existing_models, wanted_models, lambda name, values: SwitchModel(name=name, **values), result)
    for spec in inventory.switch_models:
        try:
            SwitchModel(name=spec.name, **wanted_models[spec.name]).clean()
        except ValidationError as error:
            raise IntentValidationError([FieldError(f"switch_models[{spec.name}].{name}", None, "; ".join(msgs))
                                         for name, msgs in error.message_dict.items()]) from None
    for slug in sorted({switch.platform for switch in inventory.switches}):
        if not Platform.objects.filter(slug=slug).exists():
            platform_get_or_create(slug=slug)
            result.count("created", "Platform", 1)

    sites = {site.name: site for site in Site.objects.all()}
    for rack in inventory.racks:
        if rack.site and rack.site not in sites:
            sites[rack.site] = Site.objects.create(name=rack.site)
            result.count("created", "Site", 1)
    existing_racks = {(r.site.name, r.name): r for r in Rack.objects.select_related("site").filter(
        name__in=[rack.name for rack in inventory.racks])}
    wanted_racks = {
        (rack.site or fabric.site.name, rack.name): {
            "fabric_id": fabric.id, "row": rack.row, "position": rack.position, "height_u": rack.height_u,
            "power_budget_kw": rack.power_budget_kw}
        for rack in inventory.racks
    }
    _upsert(Rack, existing_racks, wanted_racks,
            lambda key, values: Rack(site=sites.get(key[0]) or fabric.site, name=key[1], **values), result)


def _persist_devices(inventory: core.Inventory, fabric: Fabric, result: PersistResult, bar) -> None:
    racks = {r.name: r.id for r in Rack.objects.filter(fabric=fabric)}
    models = {m.name: m.id for m in SwitchModel.objects.all()}
    platforms = {p.slug: p.id for p in Platform.objects.all()}
    hostnames = [s.hostname for s in inventory.switches]
    existing = {s.hostname: s for s in Switch.objects.filter(hostname__in=hostnames)} if hostnames else {}
    _foreign(existing.values(), fabric, "switch")
    wanted = {
        switch.hostname: {
            "fabric_id": fabric.id, "role": switch.role, "plane": switch.plane,
            "rack_id": racks.get(switch.rack) if switch.rack else None, "u_position": switch.u_position,
            "model_id": models[switch.model], "platform_id": platforms[switch.platform],
            "os_version": switch.os_version, "mgmt_ip": switch.mgmt_ip or None, "serial": switch.serial,
            "status": switch.status}
        for switch in inventory.switches
    }
    _upsert(Switch, existing, wanted, lambda name, values: Switch(hostname=name, **values), result, bar)

    names = [s.name for s in inventory.servers]
    existing_servers = {s.name: s for s in Server.objects.filter(name__in=names)} if names else {}
    _foreign(existing_servers.values(), fabric, "server")
    wanted_servers = {
        server.name: {
            "fabric_id": fabric.id, "rack_id": racks.get(server.rack) if server.rack else None,
            "u_position": server.u_position, "gpu_count": server.gpu_count, "power_w": server.power_w,
            "mgmt_ip": server.mgmt_ip or None, "serial": server.serial}
        for server in inventory.servers
    }
    _upsert(Server, existing_servers, wanted_servers, lambda name, values: Server(name=name, **values), result, bar)


def _foreign(rows: Iterable, fabric: Fabric, kind: str) -> None:
    for row in rows:
        if row.fabric_id != fabric.id:
            name = getattr(row, "hostname", None) or row.name
            raise IntentValidationError(FieldError(kind, name, "already belongs to another fabric"))


def _persist_ports_and_cables(inventory: core.Inventory, result: PersistResult, bar) -> None:
    switch_ids = dict(Switch.objects.filter(hostname__in=[s.hostname for s in inventory.switches])
                      .values_list("hostname", "id"))
    server_ids = dict(Server.objects.filter(name__in=[s.name for s in inventory.servers]).values_list("name", "id"))

    # Cables first (a cable row has no foreign keys), so new ports can be created already plugged in.
    labels = [cable.label for cable in inventory.cables]
    existing_cables = {c.label: c for c in Cable.objects.filter(label__in=labels)} if labels else {}
    wanted_cables = {cable.label: {"cable_type": cable.cable_type, "length_m": cable.length_m,
                                   "status": cable.status, "peer_link": cable.peer_link}
                     for cable in inventory.cables}
    _upsert(Cable, existing_cables, wanted_cables, lambda label, values: Cable(label=label, **values), result, bar)
    cable_ids = dict(Cable.objects.filter(label__in=labels).values_list("label", "id")) if labels else {}
    plugged: dict[tuple[str, str], tuple[int, str]] = {}  # (device, port) -> (cable id, end)
    for cable in inventory.cables:
        for side, end in (("A", cable.a), ("B", cable.b)):
            key = (end.device, end.interface)
            if key in plugged:
                raise InventoryError(f"cable {cable.label}: {end} is already the end of another cable")
            plugged[key] = (cable_ids[cable.label], side)

    existing_interfaces = {(i.switch_id, i.name): i
                           for i in Interface.objects.filter(switch_id__in=switch_ids.values())}
    wanted_interfaces = {}
    for switch in inventory.switches:
        for interface in switch.interfaces:
            cable_id, end = plugged.get((switch.hostname, interface.name), (None, ""))
            wanted_interfaces[(switch_ids[switch.hostname], interface.name)] = {
                "speed_gbps": interface.speed_gbps, "mtu": interface.mtu, "enabled": interface.enabled,
                "description": interface.description, "breakout_parent": interface.breakout_parent or "",
                "lane": interface.lane, "cable_id": cable_id, "cable_end": end}
    _check_cable_moves(existing_interfaces, wanted_interfaces, switch_ids)
    _upsert(Interface, existing_interfaces, wanted_interfaces,
            lambda key, values: Interface(switch_id=key[0], name=key[1], **values), result, bar)

    existing_nics = {(n.server_id, n.name): n for n in NicPort.objects.filter(server_id__in=server_ids.values())}
    wanted_nics = {}
    for server in inventory.servers:
        for nic in server.nics:
            cable_id, end = plugged.get((server.name, nic.name), (None, ""))
            wanted_nics[(server_ids[server.name], nic.name)] = {
                "rail": nic.rail, "speed_gbps": nic.speed_gbps, "mtu": nic.mtu, "cable_id": cable_id,
                "cable_end": end}
    _check_cable_moves(existing_nics, wanted_nics, server_ids)
    _upsert(NicPort, existing_nics, wanted_nics,
            lambda key, values: NicPort(server_id=key[0], name=key[1], **values), result, bar)
    _check_every_end_exists(inventory, plugged)
    _persist_optics(inventory, switch_ids, server_ids, result)


def _check_cable_moves(existing: dict, wanted: dict, ids: dict[str, int]) -> None:
    names = {device_id: name for name, device_id in ids.items()}
    for key, values in wanted.items():
        row = existing.get(key)
        if row is not None and row.cable_id is not None and row.cable_id != values["cable_id"]:
            raise InventoryError(f"{names[key[0]]}:{key[1]} is already cabled (cable id {row.cable_id}); "
                                 "disconnect it before re-cabling")


def _check_every_end_exists(inventory: core.Inventory, plugged: dict) -> None:
    ports = {(s.hostname, i.name) for s in inventory.switches for i in s.interfaces}
    ports |= {(s.name, n.name) for s in inventory.servers for n in s.nics}
    missing = [f"{device}:{port}" for device, port in plugged if (device, port) not in ports]
    if missing:
        raise IntentValidationError([FieldError("cables", end, "cable end is not a port in the inventory")
                                     for end in sorted(missing)[:20]])


def _persist_optics(inventory: core.Inventory, switch_ids: dict, server_ids: dict, result: PersistResult) -> None:
    interface_ids = {(switch_id, name): pk for pk, switch_id, name in
                     Interface.objects.filter(switch_id__in=switch_ids.values()).values_list("id", "switch_id", "name")}
    nic_ids = {(server_id, name): pk for pk, server_id, name in
               NicPort.objects.filter(server_id__in=server_ids.values()).values_list("id", "server_id", "name")}
    existing = {}
    for optic in Optic.objects.filter(interface_id__in=interface_ids.values()):
        existing[("interface", optic.interface_id)] = optic
    for optic in Optic.objects.filter(nic_port_id__in=nic_ids.values()):
        existing[("nic_port", optic.nic_port_id)] = optic
    wanted = {}
    for switch in inventory.switches:
        for interface in switch.interfaces:
            if interface.optic is not None:
                key = ("interface", interface_ids[(switch_ids[switch.hostname], interface.name)])
                wanted[key] = _optic_values(interface.optic)
    for server in inventory.servers:
        for nic in server.nics:
            if nic.optic is not None:
                wanted[("nic_port", nic_ids[(server_ids[server.name], nic.name)])] = _optic_values(nic.optic)
    _upsert(Optic, existing, wanted, lambda key, values: Optic(**{f"{key[0]}_id": key[1]}, **values), result)


# --------------------------------------------------------------------------------------------- cables


@transaction.atomic
def cable_connect(*, cable: Cable, a_end: Interface | NicPort, b_end: Interface | NicPort) -> Cable:
    """Plug ``cable`` between two ports (replacing its current ends). Each port may be in one cable only."""
    errors = []
    for side, port in (("a_end", a_end), ("b_end", b_end)):
        if port.cable_id is not None and port.cable_id != cable.id:
            errors.append(FieldError(side, str(port), f"already in cable {port.cable.label}"))
    if _device_of(a_end) == _device_of(b_end):
        errors.append(FieldError("b_end", str(b_end), f"both ends are on {_device_of(a_end)}"))
    if errors:
        raise IntentValidationError(errors)
    cable_disconnect(cable=cable)
    for side, port in (("A", a_end), ("B", b_end)):
        type(port).objects.filter(pk=port.pk).update(cable=cable, cable_end=side)
        port.cable, port.cable_end = cable, side
    return cable


def cable_disconnect(*, cable: Cable) -> None:
    Interface.objects.filter(cable=cable).update(cable=None, cable_end="")
    NicPort.objects.filter(cable=cable).update(cable=None, cable_end="")


def _device_of(port: Interface | NicPort) -> str:
    return f"switch:{port.switch_id}" if isinstance(port, Interface) else f"server:{port.server_id}"
