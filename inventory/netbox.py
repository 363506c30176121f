"""Import an inventory from NetBox (4.x shapes first; ``device_role`` and ``rear_port`` of 3.x are read too):
from saved REST JSON (``GET /api/dcim/<endpoint>/`` pages, a page set or bare lists) or live from the API
(:mod:`inventory.netbox_client`). Pure mapping: NetBox JSON in, ``compiler.model.Inventory`` out.

Mapping (docs/inventory.md "NetBox import" lists every field and custom field read):
- device ``role.slug`` spine / leaf / super-spine / border(-leaf) -> a switch; server / gpu(-server) -> a server.
- ``platform.slug`` containing eos / sonic / frr|cumulus|linux -> our platform.
- interface ``speed`` (kbps) -> Gb/s; ``type.value`` names the cage (qsfpdd, osfp, qsfp112, qsfp28).
- links: NetBox's cable trace is followed from every imported port through patch panels (front port -> rear port
  -> the next cable, rear-port positions kept like NetBox's own trace) and breakout cables: before NetBox 4.5 as
  several terminations per end paired in order; from 4.5 by the cable's ``profile`` (inventory.netbox_profiles:
  every profile NetBox defines, positions paired exactly as NetBox pairs them). A switch port that carries several
  positions of a profiled cable (an 800G port on a breakout-1c2p-2c1p cable) becomes the breakout child ports
  the platform's breakout table names (compiler.platforms), one per position. Cable ``type`` dac-* / aoc /
  smf* / mmf*; ``length`` converted to metres from ``length_unit`` (summed over the segments of a patched run).
- optics: inventory items installed in an interface, and NetBox 4 modules (in a module bay named like the port, or
  owning the port); media from ``custom_fields.media``, the vendor part number (compiler.catalog.OPTIC_PART_NUMBERS)
  or a catalogue media name in it.
- server NICs: a NIC is on the backend fabric when it is cabled to a fabric leaf and neither its tags nor its
  ``custom_fields.network`` say storage / management / frontend; its rail is the rail of that leaf
  (``custom_fields.rail`` of the leaf, else of the NIC, else the NIC's position among the server's fabric NICs).
A link that cannot be imported stops the import with the reason for each one; with ``allow_missing_links`` the
rest is imported and each lost link is kept as ``Inventory.missing_links`` (the physical checks report it).
Everything else that cannot be mapped is skipped and reported with the reason, never guessed.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler import model as core
from compiler import platforms
from compiler.catalog import MEDIA, SWITCH_MODELS, media_for_part
from compiler.errors import FieldError, InputError
from compiler.hardware import base_mac_problem
from compiler.natural import natural_key
from compiler.platforms import PlatformDataError

from .netbox_profiles import PROFILES, CableProfile

# dcim endpoints read; the last three are optional (NetBox 4 modules, patch panels).
ENDPOINTS = ("racks", "devices", "interfaces", "cables", "inventory-items", "modules", "front-ports", "rear-ports")

ROLE_MAP = {"spine": core.Role.SPINE, "leaf": core.Role.LEAF, "super-spine": core.Role.SUPER_SPINE,
            "superspine": core.Role.SUPER_SPINE, "border": core.Role.BORDER, "border-leaf": core.Role.BORDER}
SERVER_ROLES = {"server", "gpu", "gpu-server", "compute", "gpu-node"}
# Roles a server NIC is cabled to when it is on the backend (GPU) fabric.
FABRIC_LEAF_ROLES = {core.Role.LEAF, core.Role.BORDER}
# Tags / custom_fields.network values that keep a server NIC out of the backend fabric.
NON_FABRIC_NETWORKS = {"storage", "management", "mgmt", "frontend", "oob", "inband"}
CABLE_TYPE_PREFIXES = (("dac", core.CableType.DAC), ("aoc", core.CableType.AOC), ("smf", core.CableType.SMF),
                       ("mmf", core.CableType.MMF))
LENGTH_TO_M = {"m": 1.0, "cm": 0.01, "km": 1000.0, "ft": 0.3048, "in": 0.0254, "mi": 1609.344}
# NetBox interface type value fragments -> our port form factors.
FORM_FACTORS = (("qsfpdd", "QSFP-DD"), ("osfp", "OSFP"), ("qsfp112", "QSFP112"), ("qsfp28", "QSFP28"))
SKIPPED_INTERFACE_TYPES = {"virtual", "lag", "bridge"}
INTERFACE, FRONT_PORT, REAR_PORT = "dcim.interface", "dcim.frontport", "dcim.rearport"
MAX_TRACE_HOPS = 16  # patch panels in one run; NetBox's trace has no limit, a loop in the data must not hang us


@dataclass
class NetboxImport:
    inventory: core.Inventory
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (object, reason)
    # NetBox object key ("device:3", "cable:17", ...) -> what was imported from it; the re-sync diff compares two
    state: dict[str, dict] = field(default_factory=dict)
    persisted: Any = None  # PersistResult once saved

    def skipped_text(self) -> str:
        return "\n".join(f"skipped {what}: {why}" for what, why in self.skipped) or "nothing skipped"


class TruncatedExport(InputError):
    """A page set whose ``count`` says NetBox holds more than the pages supplied (its page cap cut the export)."""


def page_problem(where: str, count: Any, got: int, next_url: Any) -> FieldError | None:
    """Why a set of pages is incomplete: ``count`` above what was read, or a ``next`` page never supplied."""
    if isinstance(count, int) and not isinstance(count, bool) and count > got:
        return FieldError(where, f"{got} of {count}",
                          "is truncated: NetBox's page cap (MAX_PAGE_SIZE, 1000 by default) cut the export; save "
                          "every page (<endpoint>.json, <endpoint>.2.json, ...) or import live with --url")
    if next_url:
        return FieldError(where, next_url, "has a next page that was not supplied")
    return None


def _page_files(directory: Path, endpoint: str) -> list[Path]:
    first = directory / f"{endpoint}.json"
    more = []
    for path in directory.glob(f"{endpoint}.*.json"):
        number = path.name[len(endpoint) + 1:-len(".json")]
        if number.isdigit():
            more.append((int(number), path))
    return ([first] if first.exists() else []) + [path for _, path in sorted(more)]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise InputError(FieldError(str(path), error.msg, "is not valid JSON")) from None
    except UnicodeDecodeError as error:
        raise InputError(FieldError(str(path), error.reason, "is not UTF-8 text")) from None
    except RecursionError:
        raise InputError(FieldError(str(path), None, "is nested too deeply")) from None
    except OSError as error:
        raise InputError(FieldError(str(path), error.strerror, "cannot be read")) from None


def load_dump(directory: Path | str) -> dict[str, list[dict]]:
    """Read ``<endpoint>.json`` (and further pages ``<endpoint>.2.json``, ...) from a directory; a missing endpoint
    is an empty list. A page set with fewer results than its ``count`` (or a ``next`` page not supplied) is
    refused: NetBox caps a page at MAX_PAGE_SIZE (1000 by default), and a silently truncated import would drop
    devices and links."""
    directory = Path(directory)
    data: dict[str, list[dict]] = {}
    for endpoint in ENDPOINTS:
        records: list = []
        count, next_url = None, None
        for path in _page_files(directory, endpoint):
            document = _read_json(path)
            if isinstance(document, dict) and "results" in document:
                count = document.get("count") if count is None else count
                next_url = document.get("next")
                document = document["results"]
            if not isinstance(document, list):
                raise InputError(FieldError(str(path), type(document).__name__,
                                                       "expected a list or a page"))
            records.extend(document)
        unique = {repr(record.get("id")) for record in records if isinstance(record, dict)}  # pages may overlap
        problem = page_problem(str(directory / f"{endpoint}.json"), count, len(unique), next_url)
        if problem:
            raise TruncatedExport(problem)
        data[endpoint] = records
    return data


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""  # a non-string where NetBox writes a string reads as absent


def _slug(obj: Any) -> str:
    return _text(obj.get("slug")) if isinstance(obj, dict) else ""


def _name(obj: Any) -> str:
    return _text(obj.get("name")) if isinstance(obj, dict) else ""


def _id(obj: Any) -> Any:
    return obj.get("id") if isinstance(obj, dict) else obj


def _value(obj: Any) -> str:
    return _text(obj.get("value")) if isinstance(obj, dict) else _text(obj)


def _custom(record: dict) -> dict:
    custom = record.get("custom_fields")
    return custom if isinstance(custom, dict) else {}


def _custom_int(record: dict, key: str) -> int | None:
    """An integer custom field; empty (null or "") reads as not set."""
    value = _custom(record).get(key)
    return None if value is None or value == "" else _int(value)


def _tags(record: dict) -> set[str]:
    tags = record.get("tags") if isinstance(record.get("tags"), list) else []
    return {(_slug(tag) or _name(tag)).lower() for tag in tags if isinstance(tag, dict)}


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
                "custom_fields", "primary_ip4", "manufacturer", "module", "module_bay", "module_type")
_NUMBER_KEYS = {"racks": ("u_height",), "devices": ("position",), "interfaces": ("mtu", "speed"),
                "cables": ("length",), "inventory-items": (), "modules": (), "front-ports": (),
                "rear-ports": ("positions",)}
# An empty custom field ("" or null) means "not set"; anything else must be a number.
_CUSTOM_NUMBER_KEYS = ("power_budget_kw", "plane", "gpu_count", "power_w", "rail", "reach_m")
_REQUIRED = {"racks": (("id", int), ("name", str)), "devices": (("id", int),),
             "interfaces": (("id", int), ("name", str)), "cables": (("id", int),), "inventory-items": (),
             "modules": (("id", int),), "front-ports": (("id", int),), "rear-ports": (("id", int),)}
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
                problem = None if custom.get(key) == "" else _number_problem(custom.get(key))
                if problem:
                    errors.append(FieldError(f"{path}.custom_fields.{key}", custom[key], problem))
            for key in ("media", "network"):
                if isinstance(custom, dict) and custom.get(key) is not None and not isinstance(custom[key], str):
                    errors.append(FieldError(f"{path}.custom_fields.{key}", custom[key], "expected a string"))
            if endpoint == "devices" and isinstance(custom, dict) and custom.get("base_mac") not in (None, ""):
                problem = base_mac_problem(custom["base_mac"])
                if problem:
                    errors.append(FieldError(f"{path}.custom_fields.base_mac", custom["base_mac"], problem))
            for key in ("name", "label", "description", "serial", "part_id"):
                if record.get(key) is not None and not isinstance(record[key], str):
                    errors.append(FieldError(f"{path}.{key}", record[key], "expected a string or null"))
            for side in ("a_terminations", "b_terminations", "rear_ports", "tags"):
                ends = record.get(side)
                if ends is not None and (not isinstance(ends, list) or not all(isinstance(e, dict) for e in ends)):
                    errors.append(FieldError(f"{path}.{side}", ends, "expected a list of objects"))
            if endpoint == "inventory-items" and not isinstance(record.get("component_id"), (int, type(None))):
                errors.append(FieldError(f"{path}.component_id", record["component_id"], "expected an integer"))
    return errors


def netbox_to_inventory(data: dict[str, list[dict]], *, fabric: str,
                        allow_missing_links: bool = False) -> NetboxImport:
    """Map NetBox JSON to an inventory. A link that cannot be imported raises InputError with one
    ``cable <label>`` error per link, unless ``allow_missing_links`` (then it is in ``inventory.missing_links``)."""
    errors = check_dump(data)
    if errors:
        raise InputError(errors)
    try:
        return _Mapper(data, fabric).run(allow_missing_links=allow_missing_links)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        # check_dump covers the shapes we know of; anything else is still the input's fault, reported as such.
        raise InputError(FieldError("dump", None, f"cannot be read: {type(error).__name__}: {error}")) from None


@dataclass
class _Link:
    ends: tuple[int, int]  # NetBox interface ids, in trace order
    segments: list[dict]  # the cables of the run, from ends[0] to ends[1]
    lane: int | None  # position within a breakout cable (1-based) when it has several terminations per end


class _LaneError(Exception):
    """A switch port on a profiled cable that cannot be split into the cable's lanes (the reason is the text)."""


@dataclass(frozen=True)
class _Ends:
    """Where one termination sits on a profiled cable (NetBox 4.5+ CableTermination.connector / positions)."""
    connector: int
    positions: tuple[int, ...]


class _Mapper:
    """One mapping run (the indexes it needs are built once)."""

    def __init__(self, data: dict[str, list[dict]], fabric: str):
        self.data, self.fabric = data, fabric
        self.skipped: list[tuple[str, str]] = []
        self.lost: list[tuple[str, str, core.Endpoint | None, str]] = []  # (cable label, source, endpoint, reason)
        self.lost_cables: list[int] = []
        self.lost_ports: list[int] = []  # switch ports whose link was lost (kept: the missing-link check names them)
        self.interfaces = {i["id"]: i for i in data.get("interfaces", [])}
        self.devices = {d["id"]: d for d in data.get("devices", [])}
        self.cable_at: dict[tuple[str, Any], tuple[dict, str]] = {}  # (object type, id) -> (cable, side)
        for cable in data.get("cables", []):
            for side in ("a", "b"):
                for termination in self._terminations(cable, side):
                    self.cable_at[(termination.get("object_type"), termination.get("object_id"))] = (cable, side)
        self.front_to_rear: dict[Any, tuple[Any, int]] = {}
        self.rear_to_front: dict[tuple[Any, int], Any] = {}
        for front in data.get("front-ports", []):
            # NetBox <= 4.4: rear_port + rear_port_position; 4.5+: rear_ports [{position, rear_port, rear_port_position}]
            mappings = front.get("rear_ports") or ([{"rear_port": front["rear_port"],
                                                     "rear_port_position": front.get("rear_port_position")}]
                                                   if front.get("rear_port") else [])
            for mapping in mappings[:1]:
                rear_id, position = _id(mapping.get("rear_port")), _int(mapping.get("rear_port_position") or 1)
                self.front_to_rear[front["id"]] = (rear_id, position)
                self.rear_to_front[(rear_id, position)] = front["id"]
        self.rear_positions = {rear["id"]: _int(rear.get("positions") or 1) for rear in data.get("rear-ports", [])}
        # NetBox 4.5+ cable profiles: cable id -> profile, (cable id, side, object) -> connector/positions, and why
        # a cable's profile cannot be read (reported when a trace passes it).
        self.profiles: dict[Any, CableProfile] = {}
        self.ends: dict[tuple[Any, str, tuple[Any, Any]], _Ends] = {}
        self.profile_problem: dict[Any, str] = {}
        for cable in data.get("cables", []):
            self._read_profile(cable)
        self.switch_devices: dict[Any, tuple[dict, core.Role, str]] = {}
        self.lane_ports: dict[Any, list[str]] = {}  # split switch port id -> its lane ports' keys

    def _read_profile(self, cable: dict) -> None:
        slug = _value(cable.get("profile"))
        if not slug:
            return  # NetBox <= 4.4, or a cable without a profile: terminations paired in order
        label = f"cable {self._label(cable)}"
        profile = PROFILES.get(slug)
        if profile is None:
            self.profile_problem[cable["id"]] = (f"{label}.profile {slug!r} is not a NetBox cable profile "
                                                 f"(known: {', '.join(sorted(PROFILES))})")
            return
        self.profiles[cable["id"]] = profile
        for side in ("a", "b"):
            connectors = profile.connectors(side)
            terminations = self._terminations(cable, side)
            if len(terminations) > len(connectors):
                self.profile_problem[cable["id"]] = (
                    f"{label}.{side}_terminations has {len(terminations)} terminations but profile {slug} has "
                    f"{len(connectors)} connector(s) on side {side.upper()}")
                return
            for number, termination in enumerate(terminations, start=1):
                # Cable.update_terminations (NetBox dcim/models/cables.py): the i-th termination gets connector i
                # and all its positions; an export that states them (cable-terminations) must agree.
                connector = termination.get("connector", number)
                positions = termination.get("positions", list(range(1, connectors.get(number, 0) + 1)))
                valid = range(1, connectors.get(connector, 0) + 1) if isinstance(connector, int) else range(0)
                if (not isinstance(positions, list) or not positions
                        or not all(isinstance(p, int) and not isinstance(p, bool) and p in valid for p in positions)):
                    self.profile_problem[cable["id"]] = (
                        f"{label}.{side}_terminations[{number - 1}] connector {connector!r} positions {positions!r} "
                        f"do not pair under profile {slug} (side {side.upper()} connectors: "
                        f"{', '.join(f'{c}: positions 1..{n}' for c, n in connectors.items())})")
                    return
                key = (termination.get("object_type"), termination.get("object_id"))
                self.ends[(cable["id"], side, key)] = _Ends(connector, tuple(positions))

    @staticmethod
    def _terminations(cable: dict, side: str) -> list[dict]:
        ends = cable.get(f"{side}_terminations") or []
        # NetBox 4.5+ carries the position of each termination within a multi-position (breakout) cable
        return sorted(ends, key=lambda end: _int(end["position"]) if isinstance(end.get("position"), (int, float))
                      else 0)

    @staticmethod
    def _label(cable: dict) -> str:
        return cable.get("label") or f"netbox-cable-{cable['id']}"

    def _port_label(self, interface_id: Any) -> str:
        interface = self.interfaces.get(interface_id)
        return f"{_name(interface.get('device'))}:{interface.get('name')}" if interface else f"interface {interface_id}"

    # ---------------------------------------------------------------------------------------- trace
    def positions_at(self, interface_id: Any) -> tuple[int, ...]:
        """The positions an interface's termination holds on its profiled cable (empty: no profile)."""
        cable, side = self.cable_at[(INTERFACE, interface_id)]
        ends = self.ends.get((cable["id"], side, (INTERFACE, interface_id)))
        return ends.positions if ends else ()

    def trace(self, interface_id: Any, position: int | None = None) -> tuple[Any, list[dict], int | None, str]:
        """Follow the cable from an interface to the interface at the far end, like NetBox's cable trace:
        (far interface id or None, the cables passed, breakout lane, reason when it failed). ``position``: which
        position of a multi-position termination on a profiled cable; the far end is then a lane port when it
        holds several positions itself."""
        term: tuple[str, Any] = (INTERFACE, interface_id)
        cable, side = self.cable_at[term]
        segments, positions, lane = [cable], [], None
        for _hop in range(MAX_TRACE_HOPS):
            near = self._terminations(cable, side)
            far = self._terminations(cable, "b" if side == "a" else "a")
            index = next((k for k, t in enumerate(near) if (t.get("object_type"), t.get("object_id")) == term), 0)
            if not far:
                return None, segments, lane, f"cable {self._label(cable)} has no far end"
            if cable["id"] in self.profile_problem:
                return None, segments, lane, self.profile_problem[cable["id"]]
            if cable["id"] in self.profiles:
                if term[0] == REAR_PORT and positions:
                    position = positions.pop()
                peer, position, lane_here, reason = self._across_profile(cable, side, term, position)
                if reason:
                    return None, segments, lane, reason
                lane = lane_here if lane_here is not None else lane
                peer_type, peer_id = peer
                if peer_type == INTERFACE:
                    if len(self.ends[(cable["id"], "b" if side == "a" else "a", peer)].positions) > 1:
                        return self._lane_port(peer_id, position, cable), segments, lane, ""
                    return peer_id, segments, lane, ""
                if peer_type == REAR_PORT and self.rear_positions.get(peer_id, 1) > 1 and not positions:
                    positions.append(position)  # the rear port's position is the cable's (NetBox 4.5 trace)
                position = None
            else:
                if len(near) != len(far):
                    return None, segments, lane, (f"breakout cable {self._label(cable)} has {len(near)} "
                                                  f"terminations on one end and {len(far)} on the other: the "
                                                  "lanes cannot be paired (give both ends the same number, or a "
                                                  "NetBox 4.5+ cable profile)")
                if len(near) > 1:
                    lane = index + 1
                peer_record = far[index]
                peer_type, peer_id = peer_record.get("object_type"), peer_record.get("object_id")
                if peer_type == INTERFACE:
                    return peer_id, segments, lane, ""
            if peer_type == FRONT_PORT:
                if peer_id not in self.front_to_rear:
                    return None, segments, lane, f"patch panel front port {peer_id} maps to no rear port"
                rear_id, rear_position = self.front_to_rear[peer_id]
                positions.append(rear_position)
                term = (REAR_PORT, rear_id)
            elif peer_type == REAR_PORT:
                if not positions and self.rear_positions.get(peer_id, 1) > 1:
                    return None, segments, lane, (f"cable {self._label(cable)} reaches multi-position rear port "
                                                  f"{peer_id} without a front port to tell the position")
                rear_position = positions.pop() if positions else 1
                front_id = self.rear_to_front.get((peer_id, rear_position))
                if front_id is None:
                    return None, segments, lane, (f"patch panel rear port {peer_id} position {rear_position} has "
                                                  "no front port")
                term = (FRONT_PORT, front_id)
            else:
                return None, segments, lane, f"cable {self._label(cable)} ends on a {peer_type or 'unknown object'}"
            if term not in self.cable_at:
                return None, segments, lane, (f"patch panel port {term[0].split('.')[1]} {term[1]} is not cabled "
                                              f"onwards (run through {self._label(cable)} ends there)")
            cable, side = self.cable_at[term]
            segments.append(cable)
        return None, segments, lane, f"the trace passes more than {MAX_TRACE_HOPS} patch panels (a loop?)"

    def _across_profile(self, cable: dict, side: str, term: tuple[Any, Any],
                        position: int | None) -> tuple[tuple[Any, Any], int, int | None, str]:
        """One profiled cable crossed from ``term``: (far object, far position, lane, reason when it failed), with
        NetBox's own pairing (BaseCableProfile.get_mapped_position + the far termination holding that position)."""
        profile, label = self.profiles[cable["id"]], self._label(cable)
        here = self.ends[(cable["id"], side, term)]
        if position is None:
            if len(here.positions) != 1:
                return term, 0, None, (f"cable {label}: {term[0]} {term[1]} holds positions {list(here.positions)} "
                                       f"of profile {profile.slug} and no position was traced into it")
            position = here.positions[0]
        other = "b" if side == "a" else "a"
        mapped = profile.mapped(side, here.connector, position)
        peer = next((key for (cable_id, end, key), ends in self.ends.items() if cable_id == cable["id"]
                     and end == other and mapped and ends.connector == mapped[0] and mapped[1] in ends.positions),
                    None)
        if mapped is None or peer is None:
            where = (f"connector {mapped[0]} position {mapped[1]}, which no {other.upper()} termination holds"
                     if mapped else "nothing")
            return term, 0, None, (f"cable {label}.{side}_terminations connector {here.connector} position "
                                   f"{position} maps under profile {profile.slug} to {where}")
        a_connector, a_position = (here.connector, position) if side == "a" else mapped
        lanes = sum(profile.a_connectors.values())
        # lane: the A end's position counted across its connectors (one number per lane of the cable)
        lane = (sum(n for c, n in profile.a_connectors.items() if c < a_connector) + a_position) if lanes > 1 else None
        return peer, mapped[1], lane, ""

    def _lane_port(self, interface_id: Any, position: int, cable: dict) -> Any:
        """The breakout child port of switch port ``interface_id`` that carries ``position`` of a profiled cable
        (named and sized by the platform's breakout table); a string key into self.interfaces."""
        key = f"{interface_id}/{position}"
        if key in self.interfaces:
            return key
        parent = self.interfaces[interface_id]
        lanes = self.positions_at(interface_id)
        device = self.switch_devices.get(_id(parent.get("device")))
        label = f"cable {self._label(cable)}"
        if device is None:
            raise _LaneError(f"{label}: {self._port_label(interface_id)} holds {len(lanes)} positions of profile "
                             f"{self.profiles[cable['id']].slug} but is not a port of an imported switch (only a "
                             "switch port is split into breakout ports)")
        model, platform = _model_name(device[0].get("device_type") or {}), device[2]
        speed = _speed_gbps(parent)
        spec = SWITCH_MODELS.get(model)
        if speed is None or spec is None or model not in platforms.known_models():
            raise _LaneError(f"{label}: {self._port_label(interface_id)} ({model}) has no breakout table in our "
                             "platform data to name its lanes")
        count, lane_speed = len(lanes), speed // len(lanes)
        try:
            # NetBox names the unbroken port either like the cage (Ethernet3) or like its first lane, as EOS
            # shows it unbroken and the device-type library lists it (Ethernet3/1)
            number = next((n for n in range(1, spec.port_count + 1)
                           if parent["name"] in (platforms.parent_name(model, platform, n),
                                                 platforms.port_names(model, platform, n, 1, speed)[0][0])), None)
            if number is None:
                raise PlatformDataError(f"{parent['name']} is not a front-panel port of {model} under {platform}")
            if platform != "sonic" and f"{count}x{lane_speed}G" not in spec.breakout_modes:
                raise PlatformDataError(f"{model} has no {count}x{lane_speed}G breakout mode (its modes: "
                                        f"{', '.join(spec.breakout_modes)})")
            names = platforms.port_names(model, platform, number, count, lane_speed)
        except PlatformDataError as error:
            raise _LaneError(f"{label}: {self._port_label(interface_id)} cannot be split into {count} lanes: "
                             f"{error}") from None
        for lane_position, (name, _subport) in zip(sorted(lanes), names, strict=True):
            self.interfaces[f"{interface_id}/{lane_position}"] = {
                **parent, "id": f"{interface_id}/{lane_position}", "name": name, "speed": lane_speed * 1_000_000,
                "lane_of": interface_id}
            self.lane_ports.setdefault(interface_id, []).append(f"{interface_id}/{lane_position}")
        return key

    # ---------------------------------------------------------------------------------------- run
    def run(self, *, allow_missing_links: bool) -> NetboxImport:
        data = self.data
        racks = {}
        for rack in data.get("racks", []):
            racks[rack["id"]] = core.Rack(
                name=rack["name"], site=_name(rack.get("site")), row=_name(rack.get("location")),
                position=0, height_u=_int(rack.get("u_height") or 42),
                power_budget_kw=float(_custom(rack).get("power_budget_kw") or 0.0))

        switch_devices, server_devices = {}, {}
        device_skip: dict[Any, str] = {}
        for device in data.get("devices", []):
            label = f"device {device.get('name') or device.get('id')}"
            role_slug = _slug(device.get("role") or device.get("device_role"))
            reason = None
            if not device.get("name"):
                reason = "has no name"
            elif role_slug in ROLE_MAP:
                platform = _platform(_slug(device.get("platform")))
                if platform is None:
                    reason = f"platform {_slug(device.get('platform')) or 'none'!r} is not eos/sonic/frr"
                else:
                    switch_devices[device["id"]] = (device, ROLE_MAP[role_slug], platform)
            elif role_slug in SERVER_ROLES:
                server_devices[device["id"]] = device
            else:
                reason = f"role {role_slug or 'none'!r} is not a fabric switch or a server"
            if reason:
                self.skipped.append((label, reason))
                device_skip[device["id"]] = f"device {device.get('name') or device.get('id')} was skipped: {reason}"

        switch_ports: dict[int, dict] = {}  # imported switch interfaces by NetBox id
        server_ports: dict[int, dict] = {}  # candidate server NICs by NetBox id
        port_skip: dict[Any, str] = {}
        for interface in data.get("interfaces", []):
            device_id = _id(interface.get("device"))
            label = f"interface {_name(interface.get('device'))}:{interface.get('name')}"
            if device_id not in switch_devices and device_id not in server_devices:
                port_skip[interface["id"]] = device_skip.get(device_id, f"its device {device_id} is not in the export")
                continue  # its device was skipped (and reported) already
            reason = None
            if _value(interface.get("type")) in SKIPPED_INTERFACE_TYPES or interface.get("mgmt_only"):
                reason = "virtual or management-only interface"
            elif _speed_gbps(interface) is None:
                reason = "no speed and no speed in its type"
            if reason:
                self.skipped.append((label, reason))
                port_skip[interface["id"]] = f"{label} was skipped: {reason}"
                continue
            (switch_ports if device_id in switch_devices else server_ports)[interface["id"]] = interface

        self.switch_devices = switch_devices
        links, fabric_nics = self._links(switch_ports, server_ports, switch_devices, port_skip)
        linked = {end for link in links for end in link.ends} | set(self.lost_ports)
        optics = self._optics({**switch_ports, **{i: server_ports[i] for i in fabric_nics}})
        for parent, lanes in self.lane_ports.items():
            # the split port is its lane ports from here on; its optic (one module serves every lane) goes with them
            switch_ports.pop(parent, None)
            for lane_key in lanes:
                switch_ports[lane_key] = self.interfaces[lane_key]
                if parent in optics:
                    optics[lane_key] = optics[parent]
            linked |= set(lanes)

        models: dict[str, core.SwitchModelSpec] = {}
        switches = []
        ports_by_device: dict[Any, list[dict]] = defaultdict(list)
        for interface in switch_ports.values():
            ports_by_device[_id(interface["device"])].append(interface)
        for device_id, (device, role, platform) in switch_devices.items():
            interfaces = ports_by_device.get(device_id, [])
            model_name = _model_name(device.get("device_type") or {})
            if model_name not in models:
                models[model_name] = SWITCH_MODELS.get(model_name) or _model_from_interfaces(device, interfaces)
            rack = racks.get(_id(device.get("rack")))
            if model_name in platforms.known_models():
                interfaces = self._known_ports(device, model_name, platform, models[model_name].port_count,
                                               interfaces, linked)
            # Breakout parents come from the model's platform data (NetBox has no notion of them); names the data
            # does not know stay as they are and fail the inventory check (compiler.validate) with the model named.
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
                os_version=_custom(device).get("os_version") or "",
                mgmt_ip=_address(device.get("primary_ip4")), serial=device.get("serial") or "",
                status=_status(device), plane=_int(_custom(device).get("plane") or 0),
                # NetBox has no base-MAC field on a device: a `base_mac` custom field carries it when kept there.
                base_mac=(_custom(device).get("base_mac") or "").lower() or None))

        servers = self._servers(server_devices, server_ports, fabric_nics, racks, optics)
        cables = self._cables(links)
        used = {segment["id"] for link in links for segment in link.segments} | set(self.lost_cables)
        for cable in data.get("cables", []):
            if cable["id"] not in used:
                self.skipped.append((f"cable {self._label(cable)}", "not a fabric link: no end traces to an "
                                                                    "imported switch port"))

        missing = tuple(core.MissingLink(endpoint=endpoint, source=source, reason=reason)
                        for _label, source, endpoint, reason in self.lost if endpoint is not None)
        if self.lost and not allow_missing_links:
            raise InputError([FieldError(f"cable {label}", source, reason)
                                         for label, source, _endpoint, reason in self.lost])
        for label, _source, endpoint, reason in self.lost:
            self.skipped.append((f"cable {label}", f"MISSING LINK at {endpoint}: {reason}"))

        used_racks = {s.rack for s in switches} | {s.rack for s in servers}
        inventory = core.Inventory(
            fabric=self.fabric, switches=tuple(switches), servers=tuple(servers), cables=tuple(cables),
            racks=tuple(sorted((rack for rack in racks.values() if rack.name in used_racks),
                               key=lambda rack: (rack.row, rack.position, rack.name))),  # the adapter's order
            switch_models=tuple(sorted(models.values(), key=lambda m: m.name)), missing_links=missing)
        return NetboxImport(inventory=inventory, skipped=self.skipped,
                            state=self._state(inventory, switch_devices, server_devices, links, fabric_nics))

    # ---------------------------------------------------------------------------------------- links
    def _links(self, switch_ports, server_ports, switch_devices, port_skip) -> tuple[list[_Link], dict[int, int]]:
        """Every link from an imported switch port (traced), and the server NICs on the backend fabric
        (NIC id -> the leaf interface id it is cabled to)."""
        links: dict[frozenset, _Link] = {}
        fabric_nics: dict[int, int] = {}
        starts: list[tuple[Any, Any, int | None]] = []  # (NetBox interface id, our port key, position)
        for interface_id in sorted(switch_ports):
            if (INTERFACE, interface_id) not in self.cable_at:
                continue
            lanes = self.positions_at(interface_id)
            if len(lanes) > 1:
                # one port, several positions of a profiled cable (an 800G port broken out by the cable itself)
                cable = self.cable_at[(INTERFACE, interface_id)][0]
                try:
                    starts += [(interface_id, self._lane_port(interface_id, p, cable), p) for p in lanes]
                except _LaneError as error:
                    self._lose(cable, self._endpoint(interface_id), str(error), interface_id)
            else:
                starts.append((interface_id, interface_id, None))
        for netbox_id, interface_id, position in starts:
            cable = self.cable_at[(INTERFACE, netbox_id)][0]
            try:
                far, segments, lane, reason = self.trace(netbox_id, position)
            except _LaneError as error:
                far, segments, lane, reason = None, [cable], None, str(error)
            key = frozenset({interface_id, far}) if far is not None else frozenset({interface_id})
            if key in links:
                continue
            here = self._endpoint(interface_id)
            if far is None:
                self._lose(cable, here, reason, interface_id)
            elif far in switch_ports or self.interfaces.get(far, {}).get("lane_of") in switch_ports:
                links[key] = _Link((interface_id, far), segments, lane)
            elif far in server_ports:
                switch = switch_devices[_id(self.interfaces[interface_id]["device"])]
                nic = server_ports[far]
                network = _nic_network(nic)
                if switch[1] not in FABRIC_LEAF_ROLES:
                    self._lose(cable, here, f"{self._port_label(far)} is a server NIC cabled to a {switch[1]}",
                               interface_id)
                elif network:
                    self._lose(cable, here, f"{self._port_label(far)} is marked {network!r} (not the backend "
                                            f"fabric) but is cabled to fabric leaf port {here}", interface_id)
                else:
                    links[key] = _Link((interface_id, far), segments, lane)
                    fabric_nics[far] = interface_id
            else:
                why = port_skip.get(far, f"interface {far} is not in the export")
                self._lose(cable, here, f"its far end {self._port_label(far)} is not imported ({why})", interface_id)
        for nic_id, nic in server_ports.items():
            if nic_id in fabric_nics:
                continue
            label = f"interface {_name(nic.get('device'))}:{nic.get('name')}"
            network = _nic_network(nic)
            if network:
                self.skipped.append((label, f"marked {network!r}: kept out of the backend fabric"))
            elif (INTERFACE, nic_id) in self.cable_at:
                self.skipped.append((label, "not cabled to a fabric leaf: kept out of the backend fabric "
                                            "(storage or management NIC)"))
            elif _custom_int(nic, "rail") is not None:
                fabric_nics[nic_id] = 0  # planned: not cabled yet, its rail custom field says it is a fabric NIC
            else:
                self.skipped.append((label, "not cabled and no rail custom field: kept out of the backend fabric"))
        return list(links.values()), fabric_nics

    def _known_ports(self, device: dict, model: str, platform: str, port_count: int, interfaces: list[dict],
                     linked: set[int]) -> list[dict]:
        """The device's ports that the model's platform data has under its OS. An uncabled port it lacks (the
        community device-type library lists e.g. the DCS-7060DX5-64S's two SFP+ ports, Ethernet65/66, which our
        fabric never uses) is skipped with the reason; a cabled one is kept, so physical.port_exists names it."""
        known = platforms.valid_port_names(model, platform, port_count)
        if not known:
            return interfaces
        kept = []
        for interface in interfaces:
            if interface["name"] in known or interface["id"] in linked:
                kept.append(interface)
            else:
                self.skipped.append((f"interface {device['name']}:{interface['name']}",
                                     f"not a port of {model} under {platform} in our platform data, and not cabled"))
        return kept

    def _endpoint(self, interface_id: int) -> core.Endpoint:
        interface = self.interfaces[interface_id]
        return core.Endpoint(_name(interface.get("device")), interface["name"])

    def _lose(self, cable: dict, endpoint: core.Endpoint, reason: str, port: int | None = None) -> None:
        self.lost_cables.append(cable["id"])
        if port is not None:
            self.lost_ports.append(port)
        self.lost.append((self._label(cable), f"netbox cable {self._label(cable)} (id {cable['id']})", endpoint,
                          reason))

    def _cables(self, links: list[_Link]) -> list[core.Cable]:
        cables = []
        for link in sorted(links, key=lambda item: (item.segments[0]["id"], item.lane or 0)):
            first = link.segments[0]
            label = self._label(first) if len(link.segments) == 1 else "+".join(self._label(s) for s in link.segments)
            if link.lane is not None:
                label = f"{label}/{link.lane}"
            here = self._endpoint(link.ends[0])
            types = {next((ours for prefix, ours in CABLE_TYPE_PREFIXES if _value(s.get("type")).startswith(prefix)),
                          None) for s in link.segments}
            if None in types or len(types) != 1:
                kinds = ", ".join(sorted({_value(s.get("type")) or "none" for s in link.segments}))
                self._lose(first, here, f"cable type {kinds!r} is not one of dac/aoc/smf/mmf along the run")
                continue
            metres = 0.0
            for segment in link.segments:
                unit = _value(segment.get("length_unit")) or "m"
                if segment.get("length") is None or unit not in LENGTH_TO_M:
                    self._lose(first, here, f"length {segment.get('length')!r} {unit} of cable "
                                            f"{self._label(segment)} cannot be read in metres")
                    break
                metres += float(segment["length"]) * LENGTH_TO_M[unit]
            else:
                connected = all(_value(s.get("status")) == "connected" for s in link.segments)
                cables.append(core.Cable(
                    label=label, a=here, b=self._endpoint(link.ends[1]), cable_type=types.pop(),
                    length_m=round(metres, 3), status="connected" if connected else "planned"))
        return cables

    # ---------------------------------------------------------------------------------------- optics
    def _optics(self, ports: dict[int, dict]) -> dict[int, core.Optic]:
        optics: dict[int, core.Optic] = {}
        for item in self.data.get("inventory-items", []):
            label = f"inventory item {_name(item.get('device'))}:{item.get('name')}"
            if item.get("component_type") != INTERFACE or item.get("component_id") not in ports:
                self.skipped.append((label, "not installed in an imported interface"))
                continue
            self._optic(optics, label, ports[item["component_id"]], item, item.get("part_id") or "",
                        item.get("manufacturer"))
        by_device_name = {(_id(i.get("device")), i["name"]): i for i in ports.values()}
        owned = defaultdict(list)
        for interface in ports.values():
            if _id(interface.get("module")) is not None:
                owned[_id(interface["module"])].append(interface)
        for module in self.data.get("modules", []):
            module_type = module.get("module_type") or {}
            bay = module.get("module_bay") or {}
            label = f"module {_name(module.get('device'))}:{_name(bay) or module['id']}"
            targets = owned.get(module["id"]) or [by_device_name[key] for key in
                                                  ((_id(module.get("device")), _name(bay)),
                                                   (_id(module.get("device")), _text(bay.get("label"))))
                                                  if key in by_device_name][:1]
            if not targets:
                self.skipped.append((label, "not in the bay of an imported interface"))
                continue
            part = _text(module_type.get("part_number")) or _text(module_type.get("model"))
            for interface in targets:
                self._optic(optics, label, interface, module, part, module_type.get("manufacturer"))
        return optics

    def _optic(self, optics: dict, label: str, interface: dict, record: dict, part: str, manufacturer: Any) -> None:
        media, reach = _custom(record).get("media") or None, None
        if media is None:
            found = media_for_part(part)
            if found is None:
                self.skipped.append((label, f"cannot tell the optic media from part number {part!r}"))
                return
            media, reach = found
        catalog = MEDIA.get(media)
        reach = _custom(record).get("reach_m") or reach or (catalog.reach_m if catalog else None)
        if reach is None:
            self.skipped.append((label, f"media {media!r} is not in the catalogue and no reach_m custom field"))
            return
        optics[interface["id"]] = core.Optic(
            form_factor=_form_factor(_value(interface.get("type"))) or "", media=media,
            speed_gbps=catalog.speed_gbps if catalog else _speed_gbps(interface), reach_m=float(reach),
            vendor=_name(manufacturer), part_number=part, serial=record.get("serial") or "")

    # ---------------------------------------------------------------------------------------- servers
    def _servers(self, server_devices, server_ports, fabric_nics, racks, optics) -> list[core.Server]:
        nics_by_device: dict[Any, list[dict]] = defaultdict(list)
        for nic_id in fabric_nics:
            nics_by_device[_id(server_ports[nic_id]["device"])].append(server_ports[nic_id])
        servers = []
        errors = []
        for device_id, device in server_devices.items():
            rack = racks.get(_id(device.get("rack")))
            custom = _custom(device)
            nics = []
            ordered = sorted(nics_by_device.get(device_id, []), key=lambda i: natural_key(i["name"]))
            for position, interface in enumerate(ordered):
                leaf_port = fabric_nics[interface["id"]]
                leaf = self.devices.get(_id(self.interfaces[leaf_port]["device"])) if leaf_port else None
                leaf_rail = _custom_int(leaf, "rail") if leaf else None
                own_rail = _custom_int(interface, "rail")
                if leaf_rail is not None and own_rail is not None and leaf_rail != own_rail:
                    errors.append(FieldError(f"interface {device['name']}:{interface['name']}.custom_fields.rail",
                                             own_rail, f"disagrees with rail {leaf_rail} of leaf {_name(leaf)} "
                                                       "it is cabled to"))
                rail = leaf_rail if leaf_rail is not None else own_rail if own_rail is not None else position
                nics.append(core.NicPort(name=interface["name"], rail=rail, speed_gbps=_speed_gbps(interface),
                                         mtu=_int(interface.get("mtu") or 9000), optic=optics.get(interface["id"])))
            servers.append(core.Server(
                name=device["name"], nics=tuple(nics), rack=rack.name if rack else None,
                u_position=_int(device["position"]) if rack and device.get("position") else None,
                gpu_count=_int(custom.get("gpu_count") or 8), power_w=float(custom.get("power_w") or 0.0),
                mgmt_ip=_address(device.get("primary_ip4")), serial=device.get("serial") or ""))
        if errors:
            raise InputError(errors)
        return servers

    # ---------------------------------------------------------------------------------------- re-sync state
    def _state(self, inventory, switch_devices, server_devices, links, fabric_nics) -> dict[str, dict]:
        """What was imported, keyed by NetBox object: the re-sync diff (inventory.netbox_sync) compares two."""
        state: dict[str, dict] = {}
        switches, servers = inventory.switches_by_name, inventory.servers_by_name
        for device_id, (device, _role, _platform) in switch_devices.items():
            switch = switches[device["name"]]
            state[f"device:{device_id}"] = {
                "name": switch.hostname, "role": switch.role, "platform": switch.platform, "model": switch.model,
                "rack": switch.rack, "status": switch.status, "mgmt_ip": switch.mgmt_ip, "serial": switch.serial}
        for device_id, device in server_devices.items():
            server = servers[device["name"]]
            state[f"device:{device_id}"] = {"name": server.name, "role": "server", "rack": server.rack,
                                            "nics": {nic.name: nic.rail for nic in server.nics}}
        cables = {(c.a, c.b): c for c in inventory.cables}
        for link in links:
            here, there = self._endpoint(link.ends[0]), self._endpoint(link.ends[1])
            cable = cables.get((here, there))
            if cable is None:
                continue  # lost (reported as a missing link)
            key = f"cable:{link.segments[0]['id']}" + (f"/{link.lane}" if link.lane else "")
            state[key] = {"label": cable.label, "ends": sorted([str(here), str(there)]),
                          "type": cable.cable_type, "length_m": cable.length_m, "status": cable.status,
                          "via": [segment["id"] for segment in link.segments[1:]]}
        for missing in inventory.missing_links:
            state[f"missing:{missing.endpoint}"] = {"source": missing.source, "reason": missing.reason}
        return state


def _nic_network(nic: dict) -> str | None:
    """'storage' / 'management' / ... when the NIC's tags or ``custom_fields.network`` keep it off the backend."""
    network = _text(_custom(nic).get("network")).lower()
    if network in NON_FABRIC_NETWORKS:
        return network
    return next((tag for tag in sorted(_tags(nic)) if tag in NON_FABRIC_NETWORKS), None)


# Airflow variants the community device-type library names as their own models (Arista ordering codes: -F front-to-
# rear, -R rear-to-front airflow; 7060X5 data sheet): the same switch for us.
_AIRFLOW_SUFFIXES = ("-F", "-R")


def _model_name(device_type: dict) -> str:
    """Our catalogue / platform-data name of a NetBox device type: its model, else its part number, else the model
    without an airflow suffix (``DCS-7060DX5-64S-F`` from netbox-community/devicetype-library is our
    ``DCS-7060DX5-64S``); a model we do not know keeps its NetBox name."""
    model = _text(device_type.get("model")) or "unknown"
    known = set(SWITCH_MODELS) | set(platforms.known_models())
    candidates = [model, _text(device_type.get("part_number"))]
    candidates += [name[:-len(suffix)] for name in candidates for suffix in _AIRFLOW_SUFFIXES if name.endswith(suffix)]
    return next((name for name in candidates if name in known), model)


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


_PAGE_FILE = re.compile(r"^(?P<endpoint>[a-z-]+)(?:\.\d+)?\.json")


def source_file(field: str, directory: Path | str) -> str:
    """The dump file an error's field path comes from (for ``file: field: value: reason`` reports)."""
    head = field.split("[", 1)[0].split(".", 1)[0]
    match = _PAGE_FILE.match(field)
    if match and match.group("endpoint") in ENDPOINTS:
        name = field.split("[", 1)[0]
    elif field.startswith("cable "):
        name = "cables.json"
    elif ".optic" in field:
        name = "inventory-items.json"
    elif ".interfaces[" in field or ".nics[" in field or field.startswith("interface "):
        name = "interfaces.json"
    elif head in ("switches", "servers", "switch_models", "hostname"):
        name = "devices.json"
    elif head in ("racks", "cables"):
        name = f"{head}.json"
    elif field.startswith(str(directory)):
        return field  # already a path (load_dump's errors)
    else:
        return str(directory)
    return str(Path(directory) / name)
