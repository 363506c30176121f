#!/usr/bin/env python3
"""Document an AI backend fabric in a real NetBox (4.x) through its REST API, the way engineers do, then record
what the API returns as the fixture set the importer reads (tests/inventory/fixtures/netbox-recorded/).

    NETBOX_TOKEN=... python scripts/netbox_populate.py --url http://127.0.0.1:8001 \\
        --device-type path/to/devicetype-library/device-types/Arista/DCS-7060DX5-64S-F.yaml \\
        --device-type path/to/devicetype-library/device-types/Arista/DCS-7050CX3-32S.yaml \\
        --record tests/inventory/fixtures/netbox-recorded

Device types come from netbox-community/devicetype-library YAML files (their interface and module-bay templates
are created as the library's importer does); the GPU server and the patch panel are defined here. The fabric is the
one tests/inventory/netbox_fabric.py builds by hand: 2 spines and 2 rail leaves (DCS-7060DX5-64S-F), a leaf-spine
run through two patch panels, a 50 ft cable, a breakout DAC, optics as inventory items and as modules (NVIDIA and
Arista part numbers), storage NICs on a storage switch, management NICs. Needs an empty NetBox (it creates, never
updates) and a token with write permission. Uses only ``requests`` and ``PyYAML``; nothing of NetBox is imported.

On NetBox 4.5+ (asked at /api/status/) front-port templates take ``rear_ports`` mappings, and with
``--device-type .../DCS-7060X6-64PE-F.yaml`` the profiled breakout cables are added (profiled_breakouts);
``/api/dcim/cable-terminations/`` is recorded too. NetBox 4.5/4.6 run here with scripts/netbox-run.sh.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import requests
import yaml

ENDPOINTS = ("racks", "devices", "interfaces", "cables", "inventory-items", "modules", "front-ports", "rear-ports")
# Recorded beside them for the tests only (the importer does not fetch it): on NetBox 4.5+ it carries the connector
# and positions NetBox gave each termination of a profiled cable, which the importer derives from the order of
# a_terminations / b_terminations (dcim/models/cables.py, Cable.update_terminations).
RECORDED_ONLY = ("cable-terminations",)


class Api:
    def __init__(self, url: str, token: str):
        self.base = url.rstrip("/") + "/api/"
        self.session = requests.Session()
        self.session.headers.update({"Authorization": f"Token {token}", "Accept": "application/json"})

    def post(self, path: str, body: dict) -> dict:
        response = self.session.post(self.base + path.strip("/") + "/", json=body, timeout=60)
        if response.status_code >= 400:
            sys.exit(f"POST {path} {json.dumps(body)[:300]}: HTTP {response.status_code}: {response.text[:500]}")
        return response.json()

    def patch(self, path: str, object_id: int, body: dict) -> dict:
        response = self.session.patch(f"{self.base}{path.strip('/')}/{object_id}/", json=body, timeout=60)
        if response.status_code >= 400:
            sys.exit(f"PATCH {path}/{object_id}: HTTP {response.status_code}: {response.text[:500]}")
        return response.json()

    def pages(self, path: str, limit: int) -> list[dict]:
        url, params, pages = self.base + path.strip("/") + "/", {"limit": limit}, []
        while url:
            response = self.session.get(url, params=params, timeout=60)
            response.raise_for_status()
            page = response.json()
            pages.append(page)
            url, params = page["next"], None
        return pages

    def version(self) -> tuple[int, int]:
        response = self.session.get(self.base + "status/", timeout=60)
        response.raise_for_status()
        major, minor = response.json()["netbox-version"].split(".")[:2]
        return int(major), int(minor)

    def one(self, path: str, **filters) -> dict:
        response = self.session.get(self.base + path.strip("/") + "/", params=filters, timeout=60)
        response.raise_for_status()
        (record,) = response.json()["results"]
        return record


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def device_type_from_library(api: Api, path: Path, manufacturers: dict) -> dict:
    """Create a device type and its interface / module-bay templates from a devicetype-library YAML file."""
    spec = yaml.safe_load(path.read_text())
    maker = spec["manufacturer"]
    if maker not in manufacturers:
        manufacturers[maker] = api.post("dcim/manufacturers", {"name": maker, "slug": slug(maker)})
    device_type = api.post("dcim/device-types", {
        "manufacturer": manufacturers[maker]["id"], "model": spec["model"], "slug": spec["slug"],
        "part_number": spec.get("part_number", ""), "u_height": spec.get("u_height", 1),
        "is_full_depth": spec.get("is_full_depth", True)})
    for interface in spec.get("interfaces", []):
        api.post("dcim/interface-templates", {"device_type": device_type["id"], "name": interface["name"],
                                              "type": interface["type"],
                                              "mgmt_only": interface.get("mgmt_only", False)})
    for bay in spec.get("module-bays", []):
        api.post("dcim/module-bay-templates", {"device_type": device_type["id"], "name": bay["name"],
                                               "position": bay.get("position", "")})
    return device_type


def populate(api: Api, library_files: list[Path]) -> None:
    version = api.version()
    makers: dict[str, dict] = {}
    types = {}
    for path in library_files:
        created = device_type_from_library(api, path, makers)
        types[created["model"]] = created
    for maker in ("Generic", "NVIDIA"):
        if maker not in makers:
            makers[maker] = api.post("dcim/manufacturers", {"name": maker, "slug": slug(maker)})
    server = api.post("dcim/device-types", {"manufacturer": makers["Generic"]["id"], "model": "8-GPU server",
                                            "slug": "8-gpu-server", "u_height": 6})
    for name, kind, mgmt in (("eth0", "400gbase-x-osfp", False), ("eth1", "200gbase-x-qsfp56", False),
                             ("stor0", "100gbase-x-qsfp28", False), ("mgmt0", "1000base-t", True)):
        api.post("dcim/interface-templates", {"device_type": server["id"], "name": name, "type": kind,
                                              "mgmt_only": mgmt})
    panel = api.post("dcim/device-types", {"manufacturer": makers["Generic"]["id"], "model": "MPO patch panel",
                                           "slug": "mpo-patch-panel", "u_height": 1})
    rear = api.post("dcim/rear-port-templates", {"device_type": panel["id"], "name": "rear1", "type": "mpo",
                                                  "positions": 1})
    # NetBox 4.5 replaced rear_port/rear_port_position by a list of mappings (rear_ports)
    mapping = ({"rear_ports": [{"position": 1, "rear_port": rear["id"], "rear_port_position": 1}]}
               if version >= (4, 5) else {"rear_port": rear["id"], "rear_port_position": 1})
    api.post("dcim/front-port-templates", {"device_type": panel["id"], "name": "front1", "type": "mpo", **mapping})

    for name, kind, objects in (("rail", "integer", ["dcim.device", "dcim.interface"]),
                                ("network", "text", ["dcim.interface"]), ("os_version", "text", ["dcim.device"]),
                                ("gpu_count", "integer", ["dcim.device"]), ("power_w", "integer", ["dcim.device"]),
                                ("power_budget_kw", "integer", ["dcim.rack"]),
                                ("media", "text", ["dcim.inventoryitem", "dcim.module"]),
                                ("asn", "integer", ["dcim.device"]), ("loopback", "text", ["dcim.device"]),
                                ("vtep", "text", ["dcim.device"]), ("vni", "integer", ["ipam.vlan", "ipam.vrf"])):
        api.post("extras/custom-fields", {"name": name, "type": kind, "object_types": objects})
    api.post("extras/tags", {"name": "storage", "slug": "storage"})
    site = api.post("dcim/sites", {"name": "DC1", "slug": "dc1", "status": "active"})
    rack = api.post("dcim/racks", {"name": "R-001", "site": site["id"], "status": "active", "u_height": 48,
                                   "custom_fields": {"power_budget_kw": 60}})
    roles = {role: api.post("dcim/device-roles", {"name": role, "slug": role, "color": "2196f3"})
             for role in ("spine", "leaf", "gpu-server", "storage-switch", "patch-panel")}
    eos = api.post("dcim/platforms", {"name": "Arista EOS", "slug": "arista-eos"})
    leaf_type = types["DCS-7060DX5-64S-F"]["id"]

    devices = {}
    position = 1

    def device(name, role, type_id, platform=None, custom=None, height=2):
        nonlocal position
        body = {"name": name, "device_type": type_id, "role": roles[role]["id"], "site": site["id"],
                "rack": rack["id"], "position": position, "face": "front", "status": "active",
                "serial": f"SN-{name}", "custom_fields": custom or {}}
        if platform:
            body["platform"] = platform["id"]
        devices[name] = api.post("dcim/devices", body)
        position += height

    for name in ("spine1", "spine2"):
        device(name, "spine", leaf_type, eos, {"os_version": "4.32.2F"})
    for rail, name in enumerate(("leaf1", "leaf2")):
        device(name, "leaf", leaf_type, eos, {"os_version": "4.32.2F", "rail": rail})
    device("storage1", "storage-switch", types["DCS-7050CX3-32S"]["id"], eos, height=1)
    for name in ("gpu1", "gpu2"):
        device(name, "gpu-server", server["id"], custom={"gpu_count": 8, "power_w": 10200}, height=6)
    for name in ("pp1", "pp2"):
        device(name, "patch-panel", panel["id"], height=1)
    for number, name in enumerate(("spine1", "spine2", "leaf1", "leaf2", "storage1"), start=1):
        mgmt = api.one("dcim/interfaces", device_id=devices[name]["id"], name="Management1")
        address = api.post("ipam/ip-addresses", {"address": f"172.16.0.{number}/24", "status": "active",
                                                 "assigned_object_type": "dcim.interface",
                                                 "assigned_object_id": mgmt["id"]})
        api.patch("dcim/devices", devices[name]["id"], {"primary_ip4": address["id"]})

    def port(dev, name):
        return api.one("dcim/interfaces", device_id=devices[dev]["id"], name=name)

    # leaf2 Ethernet3 broken out 2x200G for the breakout DAC (EOS names the lanes Ethernet3/1 and Ethernet3/5)
    api.patch("dcim/interfaces", port("leaf2", "Ethernet3/1")["id"], {"speed": 200_000_000})
    api.post("dcim/interfaces", {"device": devices["leaf2"]["id"], "name": "Ethernet3/5", "type": "400gbase-x-qsfpdd",
                                 "speed": 200_000_000})
    api.patch("dcim/interfaces", port("gpu1", "eth0")["id"], {"custom_fields": {"rail": 0}})
    api.patch("dcim/interfaces", port("gpu2", "eth0")["id"], {"custom_fields": {"rail": None}})
    storage_tag = api.one("extras/tags", slug="storage")
    api.patch("dcim/interfaces", port("gpu1", "stor0")["id"], {"tags": [{"id": storage_tag["id"]}]})

    def term(kind, record):
        return {"object_type": kind, "object_id": record["id"]}

    def cable(label, a_ends, b_ends, type_value, length, unit="m", profile=None):
        body = {"label": label, "a_terminations": a_ends, "b_terminations": b_ends,
                "type": type_value, "length": length, "length_unit": unit, "status": "connected"}
        if profile:
            body["profile"] = profile
        api.post("dcim/cables", body)

    front = {name: api.one("dcim/front-ports", device_id=devices[name]["id"], name="front1") for name in ("pp1", "pp2")}
    rear = {name: api.one("dcim/rear-ports", device_id=devices[name]["id"], name="rear1") for name in ("pp1", "pp2")}
    interface = "dcim.interface"
    cable("PP-L1", [term(interface, port("leaf1", "Ethernet63/1"))], [term("dcim.frontport", front["pp1"])],
          "smf-os2", 10)
    cable("TR-1", [term("dcim.rearport", rear["pp1"])], [term("dcim.rearport", rear["pp2"])], "smf-os2", 30)
    cable("PP-S1", [term("dcim.frontport", front["pp2"])], [term(interface, port("spine1", "Ethernet1/1"))],
          "smf-os2", 5)
    cable("L1-S2", [term(interface, port("leaf1", "Ethernet64/1"))], [term(interface, port("spine2", "Ethernet1/1"))],
          "smf-os2", 50, "ft")
    cable("L2-S1", [term(interface, port("leaf2", "Ethernet63/1"))], [term(interface, port("spine1", "Ethernet2/1"))],
          "smf-os2", 30)
    cable("L2-S2", [term(interface, port("leaf2", "Ethernet64/1"))], [term(interface, port("spine2", "Ethernet2/1"))],
          "smf", 30)
    cable("G1-L1", [term(interface, port("gpu1", "eth0"))], [term(interface, port("leaf1", "Ethernet1/1"))], "smf", 3)
    cable("G2-L1", [term(interface, port("gpu2", "eth0"))], [term(interface, port("leaf1", "Ethernet2/1"))], "smf", 3)
    cable("BO-1", [term(interface, port("leaf2", "Ethernet3/1")), term(interface, port("leaf2", "Ethernet3/5"))],
          [term(interface, port("gpu1", "eth1")), term(interface, port("gpu2", "eth1"))], "dac-passive", 2)
    cable("ST-1", [term(interface, port("gpu1", "stor0"))], [term(interface, port("storage1", "Ethernet1/1"))],
          "dac-passive", 2)
    cable("ST-2", [term(interface, port("gpu2", "stor0"))], [term(interface, port("storage1", "Ethernet2/1"))],
          "dac-passive", 2)

    if version >= (4, 5) and "DCS-7060X6-64PE-F" in types:
        profiled_breakouts(api, types["DCS-7060X6-64PE-F"]["id"], server["id"], devices, port, term)

    # optics: inventory items on most ports, NetBox modules (a bay named like the port) on two
    def item(dev, port_name, part, maker):
        api.post("dcim/inventory-items", {"device": devices[dev]["id"], "name": f"optic {port_name}",
                                          "manufacturer": makers[maker]["id"], "part_id": part,
                                          "serial": f"X-{dev}-{port_name}", "component_type": interface,
                                          "component_id": port(dev, port_name)["id"]})

    for dev, port_name in (("spine1", "Ethernet1/1"), ("spine1", "Ethernet2/1"), ("spine2", "Ethernet1/1"),
                           ("spine2", "Ethernet2/1"), ("leaf1", "Ethernet63/1"), ("leaf1", "Ethernet64/1"),
                           ("leaf2", "Ethernet64/1"), ("leaf1", "Ethernet1/1"), ("leaf1", "Ethernet2/1")):
        item(dev, port_name, "QDD-400G-DR4", "Arista")
    item("gpu1", "eth0", "MMS4X00-NS400", "NVIDIA")
    module_types = {}
    for dev, port_name, part, maker in (("leaf2", "Ethernet63/1", "QDD-400G-DR4", "Arista"),
                                        ("gpu2", "eth0", "MMS4X00-NS400", "NVIDIA")):
        if part not in module_types:
            module_types[part] = api.post("dcim/module-types", {"manufacturer": makers[maker]["id"], "model": part,
                                                                "part_number": part})
        bay = api.post("dcim/module-bays", {"device": devices[dev]["id"], "name": port_name})
        api.post("dcim/modules", {"device": devices[dev]["id"], "module_bay": bay["id"],
                                  "module_type": module_types[part]["id"], "serial": f"M-{dev}-{port_name}",
                                  "status": "active"})


def profiled_breakouts(api: Api, x6_type: int, server_type: int, devices: dict, port, term) -> None:
    """NetBox 4.5+ cable profiles (dcim/cable_profiles.py): one 800G OSFP port of a DCS-7060X6-64PE-F leaf split
    by the cable itself, the leaf keeping its single interface. leaf3 (rail 4) Ethernet1/1 -> breakout-1c2p-2c1p
    -> gpu3:eth0 + gpu4:eth0 (2x400G); leaf4 (rail 5) Ethernet1/1 -> breakout-1c4p-4c1p -> gpu3..gpu6:eth1
    (4x200G)."""
    eos, site = api.one("dcim/platforms", slug="arista-eos"), api.one("dcim/sites", slug="dc1")
    rack = api.post("dcim/racks", {"name": "R-002", "site": site["id"], "status": "active", "u_height": 48,
                                   "custom_fields": {"power_budget_kw": 60}})  # R-001 is full
    position = 1
    for name, role, type_id, custom, height in (
            ("leaf3", "leaf", x6_type, {"os_version": "4.32.2F", "rail": 4}, 2),
            ("leaf4", "leaf", x6_type, {"os_version": "4.32.2F", "rail": 5}, 2),
            *((name, "gpu-server", server_type, {"gpu_count": 8, "power_w": 10200}, 6)
              for name in ("gpu3", "gpu4", "gpu5", "gpu6"))):
        body = {"name": name, "device_type": type_id, "role": api.one("dcim/device-roles", slug=role)["id"],
                "site": site["id"], "rack": rack["id"], "position": position, "face": "front", "status": "active",
                "serial": f"SN-{name}", "custom_fields": custom}
        if role == "leaf":
            body["platform"] = eos["id"]
        devices[name] = api.post("dcim/devices", body)
        position += height
    for number, name in ((6, "leaf3"), (7, "leaf4")):  # the compiler needs each switch's management address
        mgmt = api.one("dcim/interfaces", device_id=devices[name]["id"], name="Management1")
        address = api.post("ipam/ip-addresses", {"address": f"172.16.0.{number}/24", "status": "active",
                                                 "assigned_object_type": "dcim.interface",
                                                 "assigned_object_id": mgmt["id"]})
        api.patch("dcim/devices", devices[name]["id"], {"primary_ip4": address["id"]})
    interface = "dcim.interface"
    api.post("dcim/cables", {"label": "BO-800G-2", "profile": "breakout-1c2p-2c1p", "type": "aoc", "length": 3,
                             "length_unit": "m", "status": "connected",
                             "a_terminations": [term(interface, port("leaf3", "Ethernet1/1"))],
                             "b_terminations": [term(interface, port("gpu3", "eth0")),
                                                term(interface, port("gpu4", "eth0"))]})
    api.post("dcim/cables", {"label": "BO-800G-4", "profile": "breakout-1c4p-4c1p", "type": "dac-passive",
                             "length": 2, "length_unit": "m", "status": "connected",
                             "a_terminations": [term(interface, port("leaf4", "Ethernet1/1"))],
                             "b_terminations": [term(interface, port(name, "eth1"))
                                                for name in ("gpu3", "gpu4", "gpu5", "gpu6")]})


def record(api: Api, directory: Path, limit: int) -> None:
    """Save every page of each endpoint as the importer reads it (<endpoint>.json, <endpoint>.2.json, ...)."""
    directory.mkdir(parents=True, exist_ok=True)
    for endpoint in ENDPOINTS + (RECORDED_ONLY if api.version() >= (4, 5) else ()):
        for number, page in enumerate(api.pages(f"dcim/{endpoint}", limit), start=1):
            name = f"{endpoint}.json" if number == 1 else f"{endpoint}.{number}.json"
            (directory / name).write_text(json.dumps(page, sort_keys=True, separators=(",", ":")) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--device-type", action="append", type=Path, default=[],
                        help="devicetype-library YAML (DCS-7060DX5-64S-F.yaml and DCS-7050CX3-32S.yaml)")
    parser.add_argument("--record", type=Path, help="write the dcim endpoints' pages here")
    parser.add_argument("--page-size", type=int, default=1000)
    parser.add_argument("--record-only", action="store_true", help="do not populate, only record")
    args = parser.parse_args()
    token = os.environ.get("NETBOX_TOKEN", "")
    if not token:
        sys.exit("set NETBOX_TOKEN")
    api = Api(args.url, token)
    if not args.record_only:
        populate(api, args.device_type)
    if args.record:
        record(api, args.record, args.page_size)


if __name__ == "__main__":
    main()
