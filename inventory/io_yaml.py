"""YAML export and import of one fabric's whole inventory (round-trips exactly: export -> import -> export).

The document is the pure Inventory snapshot plus the fabric's site and description:

    format: fabric-twin/inventory/v1
    fabric: {name, site, description}
    switch_models: [...]; racks: [...]; switches: [... interfaces: [... optic]]; servers: [... nics]; cables: [...]

Parsing is strict: every problem is a FieldError naming the path (``switches[leaf1].interfaces[3].speed_gbps``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import yaml

from compiler import model as core
from compiler.errors import FieldError, InputError
from compiler.hardware import base_mac_problem
from compiler.nics import SERVER_MODELS

from .adapters import inventory_snapshot
from .models import Fabric
from .services import PersistResult, inventory_persist

FORMAT = "fabric-twin/inventory/v1"
_MISSING = object()


# --------------------------------------------------------------------------------------------- export


def inventory_to_dict(inventory: core.Inventory, *, site: str = "", description: str = "") -> dict:
    def optic(value: core.Optic | None) -> dict | None:
        return asdict(value) if value is not None else None

    return {
        "format": FORMAT,
        "fabric": {"name": inventory.fabric, "site": site, "description": description},
        "switch_models": [{**asdict(m), "breakout_modes": list(m.breakout_modes)} for m in inventory.switch_models],
        "racks": [asdict(rack) for rack in inventory.racks],
        "switches": [
            {"hostname": s.hostname, "role": s.role, "platform": s.platform, "model": s.model, "plane": s.plane,
             "rack": s.rack, "u_position": s.u_position, "os_version": s.os_version, "mgmt_ip": s.mgmt_ip,
             "serial": s.serial, "status": s.status, **({"pod": s.pod} if s.pod else {}),
             **({"base_mac": s.base_mac} if s.base_mac else {}),
             "interfaces": [
                 {"name": i.name, "speed_gbps": i.speed_gbps, "mtu": i.mtu, "enabled": i.enabled,
                  "description": i.description, "breakout_parent": i.breakout_parent, "lane": i.lane,
                  "optic": optic(i.optic)}
                 for i in s.interfaces]}
            for s in inventory.switches
        ],
        "servers": [
            {"name": s.name, "rack": s.rack, "u_position": s.u_position, "gpu_count": s.gpu_count,
             "power_w": s.power_w, "mgmt_ip": s.mgmt_ip, "serial": s.serial, **({"model": s.model} if s.model else {}),
             "nics": [{"name": n.name, "rail": n.rail, "speed_gbps": n.speed_gbps, "mtu": n.mtu,
                       "optic": optic(n.optic)} for n in s.nics]}
            for s in inventory.servers
        ],
        "cables": [
            {"label": c.label, "a": {"device": c.a.device, "interface": c.a.interface},
             "b": {"device": c.b.device, "interface": c.b.interface}, "cable_type": c.cable_type,
             "length_m": c.length_m, "status": c.status, "peer_link": c.peer_link}
            for c in inventory.cables
        ],
    }


def fabric_export_yaml(fabric: Fabric | str) -> str:
    if isinstance(fabric, str):
        fabric = Fabric.objects.select_related("site").get(name=fabric)
    data = inventory_to_dict(inventory_snapshot(fabric), site=fabric.site.name, description=fabric.description)
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True, width=120)


# --------------------------------------------------------------------------------------------- import


class _Reader:
    """Collects every FieldError instead of stopping at the first."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def get(self, data: Any, key: str, kind, path: str, default=_MISSING):
        if not isinstance(data, dict):
            self.errors.append(FieldError(path, data, "expected a mapping"))
            return None if default is _MISSING else default
        if key not in data:
            if default is _MISSING:
                self.errors.append(FieldError(f"{path}.{key}", None, "is required"))
            return None if default is _MISSING else default
        value = data[key]
        if value is None and (default is None or kind is None):
            return None
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is not None and (not isinstance(value, kind) or (kind is int and isinstance(value, bool))):
            self.errors.append(FieldError(f"{path}.{key}", value, f"expected {getattr(kind, '__name__', kind)}"))
            return None if default is _MISSING else default
        return value

    def strings(self, data: Any, key: str, path: str) -> list[str]:
        values = self.get(data, key, list, path, default=[]) or []
        for index, value in enumerate(values):
            if not isinstance(value, str):
                self.errors.append(FieldError(f"{path}.{key}[{index}]", value, "expected str"))
        return [value for value in values if isinstance(value, str)]

    def items(self, data: Any, key: str, path: str) -> list:
        value = self.get(data, key, list, path, default=[])
        return value if isinstance(value, list) else []


def _optic(reader: _Reader, data: Any, path: str) -> core.Optic | None:
    if data is None:
        return None
    return core.Optic(
        form_factor=reader.get(data, "form_factor", str, path), media=reader.get(data, "media", str, path),
        speed_gbps=reader.get(data, "speed_gbps", int, path), reach_m=reader.get(data, "reach_m", float, path),
        vendor=reader.get(data, "vendor", str, path, ""), part_number=reader.get(data, "part_number", str, path, ""),
        serial=reader.get(data, "serial", str, path, ""))


def _base_mac(reader: _Reader, data: Any, path: str) -> str | None:
    """The switch's base MAC (optional), lower-case; a malformed one is a field error."""
    value = reader.get(data, "base_mac", str, path, None)
    if value is None:
        return None
    problem = base_mac_problem(value)
    if problem:
        reader.errors.append(FieldError(f"{path}.base_mac", value, problem))
        return None
    return value.lower()


def inventory_from_dict(data: Any) -> tuple[core.Inventory, dict]:
    """(Inventory, fabric meta {name, site, description}); raises InputError listing every problem."""
    reader = _Reader()
    if not isinstance(data, dict):
        raise InputError(FieldError("document", type(data).__name__, "expected a mapping"))
    if data.get("format") != FORMAT:
        reader.errors.append(FieldError("format", data.get("format"), f"expected {FORMAT!r}"))
    fabric = reader.get(data, "fabric", dict, "document") or {}
    meta = {"name": reader.get(fabric, "name", str, "fabric"), "site": reader.get(fabric, "site", str, "fabric", ""),
            "description": reader.get(fabric, "description", str, "fabric", "")}
    models = tuple(
        core.SwitchModelSpec(
            name=reader.get(m, "name", str, path), vendor=reader.get(m, "vendor", str, path),
            asic=reader.get(m, "asic", str, path, ""), port_count=reader.get(m, "port_count", int, path),
            max_speed_gbps=reader.get(m, "max_speed_gbps", int, path),
            form_factor=reader.get(m, "form_factor", str, path),
            breakout_modes=tuple(reader.strings(m, "breakout_modes", path)),
            buffer_mb=reader.get(m, "buffer_mb", float, path, 0.0),
            typical_power_w=reader.get(m, "typical_power_w", float, path, 0.0))
        for index, m in enumerate(reader.items(data, "switch_models", "document"))
        for path in [f"switch_models[{index}]"]
    )
    racks = tuple(
        core.Rack(name=reader.get(r, "name", str, path), site=reader.get(r, "site", str, path, ""),
                  row=reader.get(r, "row", str, path, ""), position=reader.get(r, "position", int, path, 0),
                  height_u=reader.get(r, "height_u", int, path, 42),
                  power_budget_kw=reader.get(r, "power_budget_kw", float, path, 0.0))
        for index, r in enumerate(reader.items(data, "racks", "document"))
        for path in [f"racks[{index}]"]
    )
    switches = []
    for index, s in enumerate(reader.items(data, "switches", "document")):
        path = f"switches[{s.get('hostname', index) if isinstance(s, dict) else index}]"
        interfaces = tuple(
            core.Interface(
                name=reader.get(i, "name", str, ipath), speed_gbps=reader.get(i, "speed_gbps", int, ipath),
                mtu=reader.get(i, "mtu", int, ipath, 9214), enabled=reader.get(i, "enabled", bool, ipath, True),
                description=reader.get(i, "description", str, ipath, ""),
                breakout_parent=reader.get(i, "breakout_parent", str, ipath, None),
                lane=reader.get(i, "lane", int, ipath, None),
                optic=_optic(reader, i.get("optic") if isinstance(i, dict) else None, f"{ipath}.optic"))
            for position, i in enumerate(reader.items(s, "interfaces", path))
            for ipath in [f"{path}.interfaces[{position}]"]
        )
        switches.append(core.Switch(
            hostname=reader.get(s, "hostname", str, path), role=_choice(reader, s, "role", core.Role.ALL, path),
            platform=_choice(reader, s, "platform", core.Platform.ALL, path), model=reader.get(s, "model", str, path),
            interfaces=interfaces, rack=reader.get(s, "rack", str, path, None),
            u_position=reader.get(s, "u_position", int, path, None),
            os_version=reader.get(s, "os_version", str, path, ""), mgmt_ip=reader.get(s, "mgmt_ip", str, path, None),
            serial=reader.get(s, "serial", str, path, ""), status=reader.get(s, "status", str, path, "planned"),
            plane=reader.get(s, "plane", int, path, 0), pod=reader.get(s, "pod", int, path, 0),
            base_mac=_base_mac(reader, s, path)))
    servers = []
    for index, s in enumerate(reader.items(data, "servers", "document")):
        path = f"servers[{s.get('name', index) if isinstance(s, dict) else index}]"
        nics = tuple(
            core.NicPort(name=reader.get(n, "name", str, npath), rail=reader.get(n, "rail", int, npath),
                         speed_gbps=reader.get(n, "speed_gbps", int, npath), mtu=reader.get(n, "mtu", int, npath, 9000),
                         optic=_optic(reader, n.get("optic") if isinstance(n, dict) else None, f"{npath}.optic"))
            for position, n in enumerate(reader.items(s, "nics", path))
            for npath in [f"{path}.nics[{position}]"]
        )
        servers.append(core.Server(
            name=reader.get(s, "name", str, path), nics=nics, rack=reader.get(s, "rack", str, path, None),
            u_position=reader.get(s, "u_position", int, path, None), gpu_count=reader.get(s, "gpu_count", int, path, 8),
            power_w=reader.get(s, "power_w", float, path, 0.0), mgmt_ip=reader.get(s, "mgmt_ip", str, path, None),
            serial=reader.get(s, "serial", str, path, ""), model=_server_model(reader, s, path)))
    cables = []
    for index, c in enumerate(reader.items(data, "cables", "document")):
        path = f"cables[{c.get('label', index) if isinstance(c, dict) else index}]"
        ends = []
        for side in ("a", "b"):
            end = reader.get(c, side, dict, path) or {}
            ends.append(core.Endpoint(reader.get(end, "device", str, f"{path}.{side}"),
                                      reader.get(end, "interface", str, f"{path}.{side}")))
        cables.append(core.Cable(
            label=reader.get(c, "label", str, path), a=ends[0], b=ends[1],
            cable_type=_choice(reader, c, "cable_type", core.CableType.ALL, path),
            length_m=reader.get(c, "length_m", float, path), status=reader.get(c, "status", str, path, "planned"),
            peer_link=reader.get(c, "peer_link", bool, path, False)))
    if reader.errors:
        raise InputError(reader.errors)
    inventory = core.Inventory(fabric=meta["name"], switches=tuple(switches), servers=tuple(servers),
                               cables=tuple(cables), racks=racks, switch_models=models)
    return inventory, meta


def _choice(reader: _Reader, data: Any, key: str, allowed: tuple[str, ...], path: str) -> str | None:
    value = reader.get(data, key, str, path)
    if value is not None and value not in allowed:
        reader.errors.append(FieldError(f"{path}.{key}", value, f"must be one of {', '.join(allowed)}"))
    return value


def parse_inventory_yaml(text: str) -> tuple[core.Inventory, dict]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InputError(FieldError("document", str(error).splitlines()[0], "is not valid YAML")) from None
    except RecursionError:
        raise InputError(FieldError("document", None, "is nested too deeply")) from None
    return inventory_from_dict(data)


def fabric_import_yaml(text: str, *, progress: bool = False) -> tuple[core.Inventory, PersistResult]:
    """Parse a YAML export and persist it (one transaction; idempotent like the builder)."""
    inventory, meta = parse_inventory_yaml(text)
    result = inventory_persist(inventory=inventory, site=meta["site"] or None, description=meta["description"],
                               progress=progress)
    return inventory, result


def _server_model(reader, data, path: str) -> str:
    """A server's ``model``: "" or a catalogue model (compiler.nics.SERVER_MODELS: it picks the NIC family)."""
    value = reader.get(data, "model", str, path, "") or ""
    if value and value not in SERVER_MODELS:
        reader.errors.append(FieldError(f"{path}.model", value, f"unknown server model; known: "
                                                               f"{', '.join(sorted(SERVER_MODELS))}"))
        return ""
    return value
