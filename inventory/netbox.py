"""Import an inventory from NetBox REST API JSON (dcim/racks, dcim/devices, dcim/interfaces, dcim/cables and
dcim/inventory-items for optics), as saved from ``GET /api/dcim/<endpoint>/`` (a paginated page with
``results`` or a bare list).

Mapping (NetBox 4.x shapes; ``device_role`` of NetBox 3.x is accepted too):
- device ``role.slug`` spine / leaf / super-spine / border(-leaf) -> a switch; server / gpu(-server) -> a server.
- ``platform.slug`` containing eos / sonic / frr|cumulus|linux -> our platform.
- interface ``speed`` (kbps) -> Gb/s; ``type.value`` names the cage (qsfpdd, osfp, qsfp112, qsfp28).
- cable ``type`` dac-* / aoc / smf* / mmf*; ``length`` converted to metres from ``length_unit``.
- inventory item with ``component_type`` dcim.interface -> the optic in that port; media from
  ``custom_fields.media`` or a catalogue media name found in ``part_id``; reach from the catalogue.
- rack power budget from ``custom_fields.power_budget_kw``; server GPUs/power from custom fields.
Everything that cannot be mapped is skipped and reported with the reason, never guessed.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler import model as core
from compiler import platforms
from compiler.catalog import MEDIA, SWITCH_MODELS
from compiler.errors import FieldError, InputError

from .services import PersistResult, inventory_persist

ENDPOINTS = ("racks", "devices", "interfaces", "cables", "inventory-items")

ROLE_MAP = {"spine": core.Role.SPINE, "leaf": core.Role.LEAF, "super-spine": core.Role.SUPER_SPINE,
            "superspine": core.Role.SUPER_SPINE, "border": core.Role.BORDER, "border-leaf": core.Role.BORDER}
SERVER_ROLES = {"server", "gpu", "gpu-server", "compute", "gpu-node"}
CABLE_TYPE_PREFIXES = (("dac", core.CableType.DAC), ("aoc", core.CableType.AOC), ("smf", core.CableType.SMF),
                       ("mmf", core.CableType.MMF))
LENGTH_TO_M = {"m": 1.0, "cm": 0.01, "km": 1000.0, "ft": 0.3048, "in": 0.0254, "mi": 1609.344}
# NetBox interface type value fragments -> our port form factors.
FORM_FACTORS = (("qsfpdd", "QSFP-DD"), ("osfp", "OSFP"), ("qsfp112", "QSFP112"), ("qsfp28", "QSFP28"))
SKIPPED_INTERFACE_TYPES = {"virtual", "lag", "bridge"}


@dataclass
class NetboxImport:
    inventory: core.Inventory
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (object, reason)
    persisted: PersistResult | None = None

    def skipped_text(self) -> str:
        return "\n".join(f"skipped {what}: {why}" for what, why in self.skipped) or "nothing skipped"


def load_dump(directory: Path | str) -> dict[str, list[dict]]:
    """Read <endpoint>.json files from a directory; a missing file is an empty list."""
    directory = Path(directory)
    data = {}
    for endpoint in ENDPOINTS:
        path = directory / f"{endpoint}.json"
        if not path.exists():
            data[endpoint] = []
            continue
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise InputError(FieldError(str(path), error.msg, "is not valid JSON")) from None
        except UnicodeDecodeError as error:
            raise InputError(FieldError(str(path), error.reason, "is not UTF-8 text")) from None
        except RecursionError:
            raise InputError(FieldError(str(path), None, "is nested too deeply")) from None
        except OSError as error:
            raise InputError(FieldError(str(path), error.strerror, "cannot be read")) from None
        data[endpoint] = document["results"] if isinstance(document, dict) and "results" in document else document
        if not isinstance(data[endpoint], list):
            raise InputError(FieldError(str(path), type(document).__name__, "expected a list or a page"))
    return data


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""  # a non-string where NetBox writes a string reads as absent


def _slug(obj: Any) -> str:
    return _text(obj.get("slug")) if isinstance(obj, dict) else ""


def _name(obj: Any) -> str:
    return _text(obj.get("name")) if isinstance(obj, dict) else ""


def _value(obj: Any) -> str:
    return _text(obj.get("value")) if isinstance(obj, dict) else _text(obj)


def _platform(slug: str) -> str | None:
    if "eos" in slug or "arista" in slug:
        return core.Platform.EOS
    if "sonic" in slug:
        return core.Platform.SONIC
    if any(token in slug for token in ("frr", "cumulus", "linux")):
        return core.Platform.FRR
    return None


def _form_factor(type_value: str) -> str | None:
    compact = type_value.replace("-", "").lower()
    for token, form in FORM_FACTORS:
        if token in compact:
            return form
    return None


def _speed_gbps(interface: dict) -> int | None:
    if interface.get("speed"):
        return _int(interface["speed"]) // 1_000_000  # NetBox stores kbps
    prefix = _value(interface.get("type")).split("base")[0].lower()  # "400gbase-x-qsfpdd" -> "400g"
    return int(prefix[:-1]) if prefix.endswith("g") and prefix[:-1].isdigit() else None


def _address(ip: Any) -> str | None:
    return ip["address"].split("/")[0] if isinstance(ip, dict) and ip.get("address") else None


# The shapes netbox_to_inventory reads: per endpoint, the keys that must be objects (or null), numbers (or null),
# and the keys every record needs. Checked before mapping, so a hostile dump is a list of FieldErrors
# (``devices.json[3].position``), never a traceback.
# ("type", "status" and "length_unit" are choice values: an object {value, label} or a bare string; _value reads
# either and anything else as absent.)
_OBJECT_KEYS = ("role", "device_role", "platform", "device", "site", "location", "rack", "device_type",
                "custom_fields", "primary_ip4", "manufacturer")
_NUMBER_KEYS = {"racks": ("u_height",), "devices": ("position",), "interfaces": ("mtu", "speed"),
                "cables": ("length",), "inventory-items": ()}
_CUSTOM_NUMBER_KEYS = ("power_budget_kw", "plane", "gpu_count", "power_w", "rail", "reach_m")
_REQUIRED = {"racks": (("id", int), ("name", str)), "devices": (("id", int),),
             "interfaces": (("id", int), ("name", str)), "cables": (("id", int),), "inventory-items": ()}
# NetBox's own limit for integer fields (PostgreSQL integer); anything larger is not a NetBox value.
_NETBOX_INT_MAX = 2**31 - 1


def _number_problem(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return "expected a number"
    try:
        number = float(value)
    except ValueError:
        return "expected a number"
    if not math.isfinite(number) or abs(number) > _NETBOX_INT_MAX:
        return f"must be a finite number within +-{_NETBOX_INT_MAX}"
    return None


def _int(value: Any) -> int:
    """NetBox numbers arrive as JSON numbers or, for decimals (device ``position``), as strings like "10.0"."""
    return int(float(value))


def check_dump(data: dict[str, list]) -> list[FieldError]:
    """Every record of ``data`` whose shape netbox_to_inventory cannot read, as ``<endpoint>.json[i].key``."""
    errors: list[FieldError] = []
    for endpoint in ENDPOINTS:
        for index, record in enumerate(data.get(endpoint, [])):
            path = f"{endpoint}.json[{index}]"
            if not isinstance(record, dict):
                errors.append(FieldError(path, type(record).__name__, "expected an object"))
                continue
            for key, kind in _REQUIRED[endpoint]:
                value = record.get(key)
                if not isinstance(value, kind) or isinstance(value, bool):
                    errors.append(FieldError(f"{path}.{key}", value, f"is required and must be {kind.__name__}"))
            for key in _OBJECT_KEYS:
                if record.get(key) is not None and not isinstance(record[key], dict):
                    errors.append(FieldError(f"{path}.{key}", record[key], "expected an object or null"))
            for key in _NUMBER_KEYS[endpoint]:
                problem = _number_problem(record.get(key))
                if problem:
                    errors.append(FieldError(f"{path}.{key}", record[key], problem))
            custom = record.get("custom_fields")
            for key in _CUSTOM_NUMBER_KEYS if isinstance(custom, dict) else ():
                problem = _number_problem(custom.get(key))
                if problem:
                    errors.append(FieldError(f"{path}.custom_fields.{key}", custom[key], problem))
            if isinstance(custom, dict) and custom.get("media") is not None and not isinstance(custom["media"], str):
                errors.append(FieldError(f"{path}.custom_fields.media", custom["media"], "expected a string"))
            for key in ("name", "label", "description", "serial", "part_id"):
                if record.get(key) is not None and not isinstance(record[key], str):
                    errors.append(FieldError(f"{path}.{key}", record[key], "expected a string or null"))
            for side in ("a_terminations", "b_terminations"):
                ends = record.get(side)
                if ends is not None and (not isinstance(ends, list) or not all(isinstance(e, dict) for e in ends)):
                    errors.append(FieldError(f"{path}.{side}", ends, "expected a list of objects"))
            if endpoint == "inventory-items" and not isinstance(record.get("component_id"), (int, type(None))):
                errors.append(FieldError(f"{path}.component_id", record["component_id"], "expected an integer"))
    return errors


def netbox_to_inventory(data: dict[str, list[dict]], *, fabric: str) -> NetboxImport:
    errors = check_dump(data)
    if errors:
        raise InputError(errors)
    try:
        return _to_inventory(data, fabric)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        # check_dump covers the shapes we know of; anything else is still the input's fault, reported as such.
        raise InputError(FieldError("dump", None, f"cannot be read: {type(error).__name__}: {error}")) from None


def _to_inventory(data: dict[str, list[dict]], fabric: str) -> NetboxImport:
    skipped: list[tuple[str, str]] = []
    racks = {}
    for rack in data.get("racks", []):
        racks[rack["id"]] = core.Rack(
            name=rack["name"], site=_name(rack.get("site")), row=_name(rack.get("location")),
            position=0, height_u=_int(rack.get("u_height") or 42),
            power_budget_kw=float((rack.get("custom_fields") or {}).get("power_budget_kw") or 0.0))

    switch_devices, server_devices = {}, {}
    for device in data.get("devices", []):
        label = f"device {device.get('name') or device.get('id')}"
        role_slug = _slug(device.get("role") or device.get("device_role"))
        if not device.get("name"):
            skipped.append((label, "has no name"))
        elif role_slug in ROLE_MAP:
            platform = _platform(_slug(device.get("platform")))
            if platform is None:
                skipped.append((label, f"platform {_slug(device.get('platform')) or 'none'!r} is not eos/sonic/frr"))
            else:
                switch_devices[device["id"]] = (device, ROLE_MAP[role_slug], platform)
        elif role_slug in SERVER_ROLES:
            server_devices[device["id"]] = device
        else:
            skipped.append((label, f"role {role_slug or 'none'!r} is not a fabric switch or a server"))

    interfaces_by_device: dict[int, list[dict]] = defaultdict(list)
    interface_index: dict[int, tuple[str, str]] = {}  # NetBox interface id -> (device name, interface name)
    for interface in data.get("interfaces", []):
        device_id = (interface.get("device") or {}).get("id")
        label = f"interface {_name(interface.get('device'))}:{interface.get('name')}"
        if device_id not in switch_devices and device_id not in server_devices:
            continue  # its device was skipped (and reported) already
        if _value(interface.get("type")) in SKIPPED_INTERFACE_TYPES or interface.get("mgmt_only"):
            skipped.append((label, "virtual or management-only interface"))
            continue
        if _speed_gbps(interface) is None:
            skipped.append((label, "no speed and no speed in its type"))
            continue
        interfaces_by_device[device_id].append(interface)
        interface_index[interface["id"]] = (_name(interface.get("device")), interface["name"])

    optics: dict[int, core.Optic] = {}
    interface_by_id = {i["id"]: i for items in interfaces_by_device.values() for i in items}
    for item in data.get("inventory-items", []):
        label = f"inventory item {_name(item.get('device'))}:{item.get('name')}"
        if item.get("component_type") != "dcim.interface" or item.get("component_id") not in interface_by_id:
            skipped.append((label, "not installed in an imported interface"))
            continue
        interface = interface_by_id[item["component_id"]]
        media = (item.get("custom_fields") or {}).get("media") or next(
            (name for name in sorted(MEDIA, key=len, reverse=True) if name in (item.get("part_id") or "")), None)
        if media is None:
            skipped.append((label, f"cannot tell the optic media from part_id {item.get('part_id')!r}"))
            continue
        catalog = MEDIA.get(media)
        reach = (item.get("custom_fields") or {}).get("reach_m") or (catalog.reach_m if catalog else None)
        if reach is None:
            skipped.append((label, f"media {media!r} is not in the catalogue and no reach_m custom field"))
            continue
        optics[item["component_id"]] = core.Optic(
            form_factor=_form_factor(_value(interface.get("type"))) or "", media=media,
            speed_gbps=catalog.speed_gbps if catalog else _speed_gbps(interface), reach_m=float(reach),
            vendor=_name(item.get("manufacturer")), part_number=item.get("part_id") or "",
            serial=item.get("serial") or "")

    models: dict[str, core.SwitchModelSpec] = {}
    switches = []
    for device_id, (device, role, platform) in switch_devices.items():
        interfaces = interfaces_by_device.get(device_id, [])
        model_name = (device.get("device_type") or {}).get("model") or "unknown"
        if model_name not in models:
            models[model_name] = SWITCH_MODELS.get(model_name) or _model_from_interfaces(device, interfaces)
        rack = racks.get((device.get("rack") or {}).get("id"))
        # Breakout parents come from the model's platform data (NetBox has no notion of them); names the data does
        # not know stay as they are and fail the inventory check (compiler.validate) with the model named.
        breakouts = (platforms.breakout_parents(model_name, platform, models[model_name].port_count,
                                                [i["name"] for i in interfaces])
                     if model_name in platforms.known_models() else {})
        switches.append(core.Switch(
            hostname=device["name"], role=role, platform=platform, model=model_name,
            interfaces=tuple(core.Interface(
                name=i["name"], speed_gbps=_speed_gbps(i), mtu=_int(i.get("mtu") or 9214),
                enabled=bool(i.get("enabled", True)), description=i.get("description") or "",
                breakout_parent=(breakouts.get(i["name"]) or (None, None))[0],
                lane=(breakouts.get(i["name"]) or (None, None))[1],
                optic=optics.get(i["id"])) for i in interfaces),
            rack=rack.name if rack else None,
            u_position=_int(device["position"]) if rack and device.get("position") else None,
            os_version=(device.get("custom_fields") or {}).get("os_version") or "",
            mgmt_ip=_address(device.get("primary_ip4")), serial=device.get("serial") or "",
            status=_status(device), plane=_int((device.get("custom_fields") or {}).get("plane") or 0)))

    servers = []
    for device_id, device in server_devices.items():
        rack = racks.get((device.get("rack") or {}).get("id"))
        custom = device.get("custom_fields") or {}
        nics = []
        for rail, interface in enumerate(interfaces_by_device.get(device_id, [])):
            nics.append(core.NicPort(name=interface["name"], rail=_int((interface.get("custom_fields") or {})
                                                                      .get("rail", rail)),
                                     speed_gbps=_speed_gbps(interface), mtu=_int(interface.get("mtu") or 9000),
                                     optic=optics.get(interface["id"])))
        servers.append(core.Server(
            name=device["name"], nics=tuple(nics), rack=rack.name if rack else None,
            u_position=_int(device["position"]) if rack and device.get("position") else None,
            gpu_count=_int(custom.get("gpu_count") or 8), power_w=float(custom.get("power_w") or 0.0),
            mgmt_ip=_address(device.get("primary_ip4")), serial=device.get("serial") or ""))

    cables = []
    for cable in data.get("cables", []):
        label = cable.get("label") or f"netbox-cable-{cable['id']}"
        ends = []
        for side in ("a_terminations", "b_terminations"):
            terminations = cable.get(side) or []
            if len(terminations) != 1 or terminations[0].get("object_type") != "dcim.interface":
                ends.append(None)
                continue
            ends.append(interface_index.get(terminations[0].get("object_id")))
        if None in ends:
            skipped.append((f"cable {label}", "an end is not one imported interface"))
            continue
        cable_type = next((ours for prefix, ours in CABLE_TYPE_PREFIXES if _value(cable.get("type")).startswith(prefix)),
                          None)
        if cable_type is None:
            skipped.append((f"cable {label}", f"cable type {_value(cable.get('type')) or 'none'!r} is not dac/aoc/smf/mmf"))
            continue
        unit = _value(cable.get("length_unit")) or "m"
        if cable.get("length") is None or unit not in LENGTH_TO_M:
            skipped.append((f"cable {label}", f"length {cable.get('length')!r} {unit} cannot be read in metres"))
            continue
        cables.append(core.Cable(
            label=label, a=core.Endpoint(*ends[0]), b=core.Endpoint(*ends[1]), cable_type=cable_type,
            length_m=round(float(cable["length"]) * LENGTH_TO_M[unit], 3),
            status="connected" if _value(cable.get("status")) == "connected" else "planned"))

    used_racks = {s.rack for s in switches} | {s.rack for s in servers}
    inventory = core.Inventory(
        fabric=fabric, switches=tuple(switches), servers=tuple(servers), cables=tuple(cables),
        racks=tuple(sorted((rack for rack in racks.values() if rack.name in used_racks),
                           key=lambda rack: (rack.row, rack.position, rack.name))),  # the adapter's order
        switch_models=tuple(sorted(models.values(), key=lambda m: m.name)))
    return NetboxImport(inventory=inventory, skipped=skipped)


def _status(device: dict) -> str:
    value = _value(device.get("status"))
    return {"active": "active", "planned": "planned", "staged": "staged", "offline": "maintenance",
            "failed": "maintenance", "decommissioning": "decommissioned"}.get(value, "planned")


def _model_from_interfaces(device: dict, interfaces: list[dict]) -> core.SwitchModelSpec:
    """A switch model not in our catalogue: what its interfaces tell (ports, top speed, cage)."""
    device_type = device.get("device_type") or {}
    speeds = [_speed_gbps(i) for i in interfaces] or [1]
    cages = Counter(_form_factor(_value(i.get("type"))) for i in interfaces)
    cages.pop(None, None)
    return core.SwitchModelSpec(
        name=device_type.get("model") or "unknown", vendor=_name(device_type.get("manufacturer")) or "unknown",
        asic="", port_count=max(len(interfaces), 1), max_speed_gbps=max(speeds),
        form_factor=cages.most_common(1)[0][0] if cages else "QSFP-DD")


def source_file(field: str, directory: Path | str) -> str:
    """The dump file an error's field path comes from (for ``file: field: value: reason`` reports)."""
    head = field.split("[", 1)[0].split(".", 1)[0]
    if field.startswith(tuple(f"{endpoint}.json" for endpoint in ENDPOINTS)):
        name = field.split("[", 1)[0]
    elif ".optic" in field:
        name = "inventory-items.json"
    elif ".interfaces[" in field or ".nics[" in field:
        name = "interfaces.json"
    elif head in ("switches", "servers", "switch_models", "hostname"):
        name = "devices.json"
    elif head in ("racks", "cables"):
        name = f"{head}.json"
    else:
        return str(directory)
    return str(Path(directory) / name)


def netbox_import(directory: Path | str, *, fabric: str, progress: bool = False) -> NetboxImport:
    result = netbox_to_inventory(load_dump(directory), fabric=fabric)
    result.persisted = inventory_persist(inventory=result.inventory, progress=progress)
    return result
