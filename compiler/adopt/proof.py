"""The adoption proof: compile the adopted fabric, parse it back, compare with the configs it was adopted from.

``adoption_proof(plan)`` compiles ``plan.snapshot`` with the public compiler API (each device on its own platform),
takes the carried lines of each device (:mod:`compiler.adopt.carry`), puts them back into the rendering and parses
the whole set back with the same parsers (fabric completed). Three results per device:

* **semantic diff on modelled fields**: :func:`modelled` projects a parsed device onto the fields the intent,
  inventory and allocations express (ASN, router ID, loopbacks, fabric and server ports: address, unnumbered, MTU,
  peer, access VLAN, PFC/ECN; BGP: ASN, router ID, policy, sessions with remote AS and families, EVPN, VRFs with RD,
  RTs and L3VNI; VLANs with VNI, VRF and SVI; VXLAN; QoS; management) and the original is compared with the
  compiler's rendering ALONE (carried lines cannot make a modelled field right), then the rendering with carried
  lines against the rendering alone (a carried line that would change a modelled field is a residual too);
* **carried lines back byte for byte**: every carried block's text is in the final files verbatim;
* the report: recognised (modelled lines the rendering states as the config did), inferred (cables), carried (by
  kind), refused (file:line and why).

Pure Python; never imports Django.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from compiler.adopt.carry import CONFIG_DB_FILE, CarriedBlock, carried_lines, with_carried
from compiler.adopt.plan import AdoptionPlan, bgp_timers, parse_set
from compiler.api import compile_fabric
from compiler.parse import ParsedDevice, ParseError, parse_device
from compiler.parse.carried import carried, differences

PORT_KINDS = ("fabric", "server")
INTERFACE_FIELDS = ("name", "kind", "ip", "unnumbered", "mtu", "peer_device", "peer_interface", "access_vlan")
NEIGHBOR_FIELDS = ("address", "interface", "remote_as", "peer_device", "peer_interface", "address_families")


def modelled(device: ParsedDevice, stated_speeds: frozenset[str] = frozenset()) -> dict:
    """The fields of a parsed device that the adopted intent/inventory/allocations express (see the module doc).
    ``stated_speeds``: the ports whose original config states a speed (only those are compared on speed)."""
    full = carried(device.structured, device.platform)
    ports = []
    for interface in full["interfaces"]:
        if interface.get("kind") not in PORT_KINDS:
            continue
        entry = {key: interface.get(key) for key in INTERFACE_FIELDS}
        entry["qos"] = {key: interface["qos"].get(key) for key in ("pfc_priorities", "ecn") if key in interface["qos"]}
        if interface["name"] in stated_speeds:
            entry["speed_gbps"] = interface.get("speed_gbps")
        ports.append(entry)
    bgp = full["bgp"]
    keepalive, hold = bgp_timers(bgp, device.platform)  # unstated: the platform's default, what the device runs
    return {
        "asn": full["asn"], "router_id": full["router_id"],
        # A loopback without an address routes nothing and no intent field states one: its lines are carried.
        "loopbacks": sorted((item for item in full["loopbacks"] if item["ip"]),
                            key=lambda item: (item["purpose"] or "", item["ip"] or "")),
        "interfaces": ports,
        "bgp": {"asn": bgp["asn"], "router_id": bgp["router_id"], "maximum_paths": bgp["maximum_paths"],
                "keepalive_s": keepalive, "hold_s": hold, "bfd": bgp["bfd"],
                "neighbors": [{key: neighbor.get(key) for key in NEIGHBOR_FIELDS} for neighbor in bgp["neighbors"]],
                "evpn": bgp["evpn"], "vrfs": bgp["vrfs"]},
        "vlans": [{key: vlan.get(key) for key in ("id", "vni", "vrf", "svi", "route_targets")} for vlan in full["vlans"]
                  if vlan.get("vni") is not None],
        "vrfs": full["vrfs"], "vxlan": full["vxlan"], "qos": full["qos"], "management": full["management"],
    }


@dataclass
class DeviceProof:
    hostname: str
    platform: str
    diff: list[tuple[str, object, object]]  # modelled fields: original vs rendering (and carried shadowing)
    carried: list[CarriedBlock]
    carried_missing: list[CarriedBlock]  # blocks not found byte for byte in the final files (must be empty)
    recognised_lines: int  # original lines the rendering states verbatim
    original_lines: int
    files: dict[str, str] = field(default_factory=dict)  # the final files: rendering + carried lines
    # Original lines the rendering lacks that would change a modelled field if carried: not carried (a carried
    # line never overrides the intent), so the semantic diff shows the field they state.
    residual: list[CarriedBlock] = field(default_factory=list)

    @property
    def carried_count(self) -> int:
        return sum(block.lines for block in self.carried)

    @property
    def recognised_percent(self) -> float:
        return 100.0 * self.recognised_lines / self.original_lines if self.original_lines else 100.0

    def carried_by_kind(self) -> dict[str, int]:
        kinds: Counter[str] = Counter()
        for block in self.carried:
            kinds[block.kind] += block.lines
        return dict(sorted(kinds.items()))

    def as_dict(self) -> dict:
        return {"hostname": self.hostname, "platform": self.platform,
                "semantic_diff": [{"path": path, "adopted": repr(a), "compiled": repr(b)} for path, a, b in self.diff],
                "recognised_lines": self.recognised_lines, "original_lines": self.original_lines,
                "recognised_percent": round(self.recognised_percent, 1), "carried_lines": self.carried_count,
                "carried_by_kind": self.carried_by_kind(), "carried": [block.as_dict() for block in self.carried],
                "carried_missing": [block.as_dict() for block in self.carried_missing],
                "residual_lines": [block.as_dict() for block in self.residual]}


@dataclass
class AdoptionProof:
    plan: AdoptionPlan
    devices: dict[str, DeviceProof]

    @property
    def semantic_diff(self) -> int:
        return sum(len(device.diff) for device in self.devices.values())

    @property
    def carried_lines(self) -> int:
        return sum(device.carried_count for device in self.devices.values())

    @property
    def carried_intact(self) -> bool:
        return not any(device.carried_missing for device in self.devices.values())

    @property
    def recognised_percent(self) -> float:
        total = sum(device.original_lines for device in self.devices.values())
        return 100.0 * sum(device.recognised_lines for device in self.devices.values()) / total if total else 100.0

    def as_dict(self) -> dict:
        return {"summary": {**self.plan.summary(), "semantic_diff": self.semantic_diff,
                            "carried_lines": self.carried_lines, "carried_intact": self.carried_intact,
                            "recognised_percent": round(self.recognised_percent, 1)},
                "cables": [cable.as_dict() for cable in self.plan.cables],
                "refused": [item.as_dict() for item in self.plan.refused],
                "assumed": list(self.plan.assumed), "model_source": dict(self.plan.model_source),
                "devices": {host: device.as_dict() for host, device in sorted(self.devices.items())}}


def _lines(text: str) -> int:
    return sum(1 for line in text.split("\n") if line.strip() and not line.strip().startswith("!"))


def _stated_speeds(device: ParsedDevice) -> frozenset[str]:
    return frozenset(interface["name"] for interface in device.structured["interfaces"]
                     if interface.get("speed_gbps"))


def adoption_proof(plan: AdoptionPlan, *, carried: dict[str, list[CarriedBlock]] | None = None) -> AdoptionProof:
    """Compile, carry, parse back, compare (module docstring). ``carried``: the stored carried blocks per device
    (the Django side passes what it saved); None: taken from this compile."""
    result = compile_fabric(plan.snapshot, platforms=None)
    rendered_alone: dict[str, dict[str, dict[str, str]]] = {}
    final: dict[str, dict[str, dict[str, str]]] = {}
    blocks: dict[str, list[CarriedBlock]] = {}
    residual: dict[str, list[CarriedBlock]] = {}
    for host, device in plan.devices.items():
        files = dict(result.rendered[host][device.platform])
        rendered_alone[host] = {"files": files}
        if carried is not None:
            blocks[host], residual[host] = carried[host], []
        else:
            blocks[host], residual[host] = _split_shadowing(
                host, device.platform, files, carried_lines(plan.device_files[host], files, device.platform))
        final[host] = {"files": with_carried(files, blocks[host])}
    parsed_alone = parse_set({host: item["files"] for host, item in rendered_alone.items()})
    parsed_final = parse_set({host: item["files"] for host, item in final.items()})
    proofs = {}
    for host, original in plan.devices.items():
        speeds = _stated_speeds(original)
        want = modelled(original, speeds)
        alone = modelled(parsed_alone[host], speeds)
        after = modelled(parsed_final[host], speeds)
        diff = differences(want, alone) + [(f"carried line changes {path}", a, b)
                                           for path, a, b in differences(alone, after)]
        files = final[host]["files"]
        missing = [block for block in blocks[host] if not _present(block, files)]
        original_lines = sum(_lines(text) for text in plan.device_files[host].values()
                             if not text.lstrip().startswith("{"))
        original_lines += sum(_json_rows(text) for text in plan.device_files[host].values()
                              if text.lstrip().startswith("{"))
        carried_count = sum(block.lines for block in blocks[host])
        residual_count = sum(block.lines for block in residual[host])
        proofs[host] = DeviceProof(hostname=host, platform=original.platform, diff=diff, carried=blocks[host],
                                   carried_missing=missing, residual=residual[host], original_lines=original_lines,
                                   recognised_lines=max(original_lines - carried_count - residual_count, 0),
                                   files=files)
    return AdoptionProof(plan=plan, devices=proofs)


def _split_shadowing(host: str, platform: str, files: dict[str, str],
                     blocks: list[CarriedBlock]) -> tuple[list[CarriedBlock], list[CarriedBlock]]:
    """(carried, residual): a block that changes a modelled field of the device (parsed alone) when put back is
    residual, not carried. All blocks are tried at once first; only when they change something, one by one."""
    if not blocks:
        return [], []
    alone = modelled(parse_device(files, platform=platform, hostname_hint=host))
    if modelled(parse_device(with_carried(files, blocks), platform=platform, hostname_hint=host)) == alone:
        return blocks, []
    kept: list[CarriedBlock] = []
    shadowing: list[CarriedBlock] = []
    for block in blocks:
        try:
            changed = modelled(parse_device(with_carried(files, [block]), platform=platform,
                                            hostname_hint=host)) != alone
        except ParseError:
            changed = True  # a line the rendering's context makes unreadable: not put back
        (shadowing if changed else kept).append(block)
    return kept, shadowing


def _json_rows(text: str) -> int:
    """Fields of a config_db.json (the unit its carried blocks count in)."""
    try:
        data = json.loads(text)
    except ValueError:
        return 0
    return sum(len(fields) if isinstance(fields, dict) else 1 for rows in data.values() if isinstance(rows, dict)
               for fields in rows.values())


def _present(block: CarriedBlock, files: dict[str, str]) -> bool:
    if block.target == CONFIG_DB_FILE:
        data = json.loads(files.get(CONFIG_DB_FILE) or "{}")
        for table, rows in json.loads(block.text).items():
            for key, fields in rows.items():
                have = (data.get(table) or {}).get(key)
                if isinstance(fields, dict):
                    if not isinstance(have, dict) or any(have.get(name) != value for name, value in fields.items()):
                        return False
                elif have != fields:
                    return False
        return True
    return block.text in files.get(block.target, "")
