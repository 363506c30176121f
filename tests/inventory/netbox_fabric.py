"""An AI backend fabric as NetBox 4.x's REST API returns it, built from NetBox's documented serializer shapes
(netbox/dcim/api/serializers_/: nested ``device``/``role``/``platform`` objects, ``speed`` in kbps, ``type`` as
{value, label}, cables with ``a_terminations``/``b_terminations`` of {object_type, object_id, object}, front ports
with ``rear_ports`` [{position, rear_port, rear_port_position}] (NetBox 4.5+), modules in module bays).

Hand-built, so each case can be broken one at a time (tests/inventory/fixtures/netbox-recorded/ holds the same fabric as
a real NetBox 4.4.9 returned it). What it holds, each
a case issue #18 found lost or wrong:
- spines spine1/spine2 (DCS-7280CR3-32P4, EOS), leaves leaf1 (rail 0) / leaf2 (rail 1) (DCS-7060DX5-64S, EOS);
- L1-S1 runs through two patch panels (pp1 front 1 -> rear 1 -> trunk TR-1 -> pp2 rear 1 -> front 1), 10+30+5 m;
- L1-S2 is 50 ft; L2-S1's optics are NetBox 4 modules (module bay named like the port, NVIDIA/Arista part numbers);
- BO-1 is a breakout cable (one DAC, leaf2:Ethernet3/1 + Ethernet3/5 to gpu1:eth1 + gpu2:eth1, 200G each);
- gpu1/gpu2 rail NICs eth0 -> leaf1 and eth1 -> leaf2 (gpu2:eth0 has an empty ``rail`` custom field), storage NICs
  stor0 cabled to storage1 (gpu1's tagged ``storage``, gpu2's not tagged), management NICs mgmt_only.
``pages(data, size)`` splits an endpoint into NetBox pages (``count``/``next``/``previous``/``results``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

BASE = "http://netbox.example"
_ids = {"device": 0, "interface": 0, "cable": 0, "front": 0, "rear": 0, "module": 0, "item": 0}


def _next(kind: str) -> int:
    _ids[kind] += 1
    return _ids[kind] + {"device": 0, "interface": 1000, "cable": 0, "front": 500, "rear": 600, "module": 700,
                         "item": 800}[kind]


def _choice(value: str | int, label: str | None = None) -> dict:
    return {"value": value, "label": label or value}


def _brief_device(device: dict) -> dict:
    return {"id": device["id"], "url": f"{BASE}/api/dcim/devices/{device['id']}/", "display": device["name"],
            "name": device["name"], "description": ""}


def build() -> dict[str, list[dict]]:
    """The fabric's dcim endpoints, as lists of NetBox 4.x records."""
    for key in _ids:
        _ids[key] = 0
    data: dict[str, list[dict]] = {e: [] for e in ("racks", "devices", "interfaces", "cables", "inventory-items",
                                                   "modules", "front-ports", "rear-ports")}
    site = {"id": 1, "url": f"{BASE}/api/dcim/sites/1/", "display": "DC1", "name": "DC1", "slug": "dc1"}
    data["racks"].append({"id": 1, "url": f"{BASE}/api/dcim/racks/1/", "display": "R-001", "name": "R-001",
                          "site": site, "location": None, "u_height": 48, "custom_fields": {"power_budget_kw": 60}})
    rack = {"id": 1, "display": "R-001", "name": "R-001"}
    devices, ports = {}, {}

    def device(name, role, model, manufacturer, platform=None, custom=None, position=None):
        record = {
            "id": _next("device"), "url": "", "display": name, "name": name,
            "device_type": {"id": 1, "model": model, "slug": model.lower(),
                            "manufacturer": {"id": 1, "name": manufacturer, "slug": manufacturer.lower()}},
            "role": {"id": 1, "name": role.title(), "slug": role},
            "platform": {"id": 1, "name": platform, "slug": platform} if platform else None,
            "serial": f"SN-{name}", "site": site, "location": None, "rack": rack, "position": position,
            "status": _choice("active", "Active"), "custom_fields": custom or {}, "tags": [],
            "primary_ip4": {"id": len(devices) + 1, "family": _choice(4, "IPv4"),
                            "address": f"172.16.0.{len(devices) + 1}/24"} if platform else None}
        record["url"] = f"{BASE}/api/dcim/devices/{record['id']}/"
        data["devices"].append(record)
        devices[name] = record
        return record

    def interface(dev, name, type_value, speed_gbps, custom=None, tags=(), mgmt_only=False):
        record = {"id": _next("interface"), "url": "", "display": name, "device": _brief_device(devices[dev]),
                  "module": None, "name": name, "label": "", "type": _choice(type_value), "enabled": True,
                  "mtu": 9214 if dev.startswith(("leaf", "spine")) else 9000, "speed": speed_gbps * 1_000_000,
                  "mgmt_only": mgmt_only, "description": "", "cable": None, "cable_end": "", "link_peers": [],
                  "tags": [{"id": 9, "name": tag.title(), "slug": tag} for tag in tags],
                  "custom_fields": custom or {}}
        record["url"] = f"{BASE}/api/dcim/interfaces/{record['id']}/"
        data["interfaces"].append(record)
        ports[(dev, name)] = record
        return record

    def term(kind, record):
        object_type = {"interface": "dcim.interface", "front": "dcim.frontport", "rear": "dcim.rearport"}[kind]
        return {"object_type": object_type, "object_id": record["id"],
                "object": {"id": record["id"], "name": record["name"], "device": record["device"], "cable": None}}

    def cable(label, a_ends, b_ends, type_value, length, unit="m"):
        record = {"id": _next("cable"), "url": "", "display": label, "type": type_value,
                  "a_terminations": a_ends, "b_terminations": b_ends, "status": _choice("connected", "Connected"),
                  "tenant": None, "label": label, "color": "", "length": length, "length_unit": _choice(unit),
                  "description": "", "tags": [], "custom_fields": {}}
        record["url"] = f"{BASE}/api/dcim/cables/{record['id']}/"
        data["cables"].append(record)
        return record

    def optic_item(dev, port, part, manufacturer="Arista"):
        record = {"id": _next("item"), "url": "", "display": f"optic {port}", "device": _brief_device(devices[dev]),
                  "parent": None, "name": f"optic {port}", "label": "", "status": _choice("active", "Active"),
                  "role": {"id": 1, "name": "Optic", "slug": "optic"},
                  "manufacturer": {"id": 2, "name": manufacturer, "slug": manufacturer.lower()}, "part_id": part,
                  "serial": f"X{port}{dev}", "asset_tag": None, "discovered": True, "description": "",
                  "component_type": "dcim.interface", "component_id": ports[(dev, port)]["id"],
                  "component": {"id": ports[(dev, port)]["id"], "name": port}, "tags": [], "custom_fields": {}}
        data["inventory-items"].append(record)

    def optic_module(dev, bay, part, manufacturer="Arista"):
        module_id = _next("module")
        data["modules"].append({
            "id": module_id, "url": f"{BASE}/api/dcim/modules/{module_id}/", "display": f"{bay}: {part}",
            "device": _brief_device(devices[dev]),
            "module_bay": {"id": module_id, "url": "", "display": bay, "name": bay},
            "module_type": {"id": 3, "url": "", "display": part, "model": part, "part_number": part,
                            "manufacturer": {"id": 2, "name": manufacturer, "slug": manufacturer.lower()}},
            "status": _choice("active", "Active"), "serial": f"M{bay}{dev}", "asset_tag": None, "description": "",
            "tags": [], "custom_fields": {}})

    def panel(name):
        device(name, "patch-panel", "24-port MPO panel", "Generic")
        rear_id, front_id = _next("rear"), _next("front")
        rear = {"id": rear_id, "url": "", "display": "rear1", "device": _brief_device(devices[name]), "name": "rear1",
                "type": _choice("mpo"), "positions": 1}
        front = {"id": front_id, "url": "", "display": "front1", "device": _brief_device(devices[name]),
                 "name": "front1", "type": _choice("mpo"),
                 "rear_ports": [{"position": 1, "rear_port": rear_id, "rear_port_position": 1}]}
        data["rear-ports"].append(rear)
        data["front-ports"].append(front)
        return front, rear

    for name in ("spine1", "spine2"):
        device(name, "spine", "DCS-7280CR3-32P4", "Arista", "arista-eos")
        for port in ("Ethernet1/1", "Ethernet2/1"):
            interface(name, port, "400gbase-x-qsfpdd", 400)
            optic_item(name, port, "QDD-400G-DR4")
    for rail, name in enumerate(("leaf1", "leaf2")):
        device(name, "leaf", "DCS-7060DX5-64S", "Arista", "arista-eos", custom={"os_version": "4.32.2F", "rail": rail})
        for port in ("Ethernet63/1", "Ethernet64/1"):
            interface(name, port, "400gbase-x-qsfpdd", 400)
        interface(name, "Management1", "1000base-t", 1, mgmt_only=True)
    interface("leaf1", "Ethernet1/1", "400gbase-x-qsfpdd", 400)
    interface("leaf1", "Ethernet2/1", "400gbase-x-qsfpdd", 400)
    interface("leaf2", "Ethernet1/1", "400gbase-x-qsfpdd", 400)
    interface("leaf2", "Ethernet3/1", "200gbase-x-qsfpdd", 200)
    interface("leaf2", "Ethernet3/5", "200gbase-x-qsfpdd", 200)
    device("storage1", "storage-switch", "DCS-7050CX3-32S", "Arista", "arista-eos")
    interface("storage1", "Ethernet1", "100gbase-x-qsfp28", 100)
    interface("storage1", "Ethernet2", "100gbase-x-qsfp28", 100)
    for name in ("gpu1", "gpu2"):
        device(name, "gpu-server", "8-GPU server", "Generic", custom={"gpu_count": 8, "power_w": 10200})
    interface("gpu1", "eth0", "400gbase-x-qsfp112", 400, custom={"rail": 0})
    interface("gpu2", "eth0", "400gbase-x-qsfp112", 400, custom={"rail": ""})  # empty custom field: not set
    for name in ("gpu1", "gpu2"):
        interface(name, "eth1", "200gbase-x-qsfp112", 200)
        interface(name, "stor0", "100gbase-x-qsfp28", 100, tags=("storage",) if name == "gpu1" else ())
        interface(name, "mgmt0", "1000base-t", 1, mgmt_only=True)

    # leaf -> spine: through two patch panels, in feet, with modules as optics
    pp1_front, pp1_rear = panel("pp1")
    pp2_front, pp2_rear = panel("pp2")
    cable("PP-L1", [term("interface", ports[("leaf1", "Ethernet63/1")])], [term("front", pp1_front)], "smf-os2", 10)
    cable("TR-1", [term("rear", pp1_rear)], [term("rear", pp2_rear)], "smf-os2", 30)
    cable("PP-S1", [term("front", pp2_front)], [term("interface", ports[("spine1", "Ethernet1/1")])], "smf-os2", 5)
    cable("L1-S2", [term("interface", ports[("leaf1", "Ethernet64/1")])],
          [term("interface", ports[("spine2", "Ethernet1/1")])], "smf-os2", 50, "ft")
    cable("L2-S1", [term("interface", ports[("leaf2", "Ethernet63/1")])],
          [term("interface", ports[("spine1", "Ethernet2/1")])], "smf-os2", 30)
    cable("L2-S2", [term("interface", ports[("leaf2", "Ethernet64/1")])],
          [term("interface", ports[("spine2", "Ethernet2/1")])], "smf", 30)
    for leaf in ("leaf1", "leaf2"):
        optic_item(leaf, "Ethernet64/1", "QDD-400G-DR4")
    optic_item("leaf1", "Ethernet63/1", "QDD-400G-DR4")
    optic_module("leaf2", "Ethernet63/1", "QDD-400G-DR4")
    # server links: rail 0 on leaf1 (single cables), rail 1 on leaf2 (one breakout DAC for both servers)
    cable("G1-L1", [term("interface", ports[("gpu1", "eth0")])], [term("interface", ports[("leaf1", "Ethernet1/1")])],
          "smf", 3)
    cable("G2-L1", [term("interface", ports[("gpu2", "eth0")])], [term("interface", ports[("leaf1", "Ethernet2/1")])],
          "smf", 3)
    cable("BO-1", [term("interface", ports[("leaf2", "Ethernet3/1")]), term("interface", ports[("leaf2", "Ethernet3/5")])],
          [term("interface", ports[("gpu1", "eth1")]), term("interface", ports[("gpu2", "eth1")])], "dac-passive", 2)
    for leaf, port in (("leaf1", "Ethernet1/1"), ("leaf1", "Ethernet2/1")):
        optic_item(leaf, port, "QDD-400G-DR4")
    optic_item("gpu1", "eth0", "MMS4X00-NS400", "NVIDIA")
    optic_module("gpu2", "eth0", "MMS4X00-NS400", "NVIDIA")
    # storage NICs on the storage switch (not the backend fabric)
    cable("ST-1", [term("interface", ports[("gpu1", "stor0")])], [term("interface", ports[("storage1", "Ethernet1")])],
          "dac-passive", 2)
    cable("ST-2", [term("interface", ports[("gpu2", "stor0")])], [term("interface", ports[("storage1", "Ethernet2")])],
          "dac-passive", 2)
    return data


def find(records: list[dict], **match) -> dict:
    """The one record whose fields (``device`` compares the device name) match."""
    for record in records:
        if all((_name(record.get(key)) if key == "device" else record.get(key)) == value for key, value in match.items()):
            return record
    raise KeyError(match)


def _name(value) -> str | None:
    return value.get("name") if isinstance(value, dict) else value


def pages(records: list[dict], size: int, endpoint: str, base: str = BASE) -> list[dict]:
    """NetBox list pages of ``size`` (limit/offset pagination, ``next``/``previous`` URLs)."""
    out = []
    for offset in range(0, max(len(records), 1), size):
        following = offset + size
        out.append({"count": len(records),
                    "next": f"{base}/api/dcim/{endpoint}/?limit={size}&offset={following}"
                    if following < len(records) else None,
                    "previous": f"{base}/api/dcim/{endpoint}/?limit={size}&offset={max(offset - size, 0)}"
                    if offset else None,
                    "results": copy.deepcopy(records[offset:following])})
    return out


def write(data: dict[str, list[dict]], directory: Path, page_size: int = 1000) -> Path:
    """Save as the importer reads it: ``<endpoint>.json`` and further pages ``<endpoint>.2.json`` ..."""
    directory.mkdir(parents=True, exist_ok=True)
    for endpoint, records in data.items():
        for number, page in enumerate(pages(records, page_size, endpoint), start=1):
            name = f"{endpoint}.json" if number == 1 else f"{endpoint}.{number}.json"
            (directory / name).write_text(json.dumps(page, indent=1))
    return directory
