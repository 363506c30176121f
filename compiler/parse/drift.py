"""Semantic drift: what a device runs against what it should run, field by field, in the words of the model.

``field_drift(hostname, intended_files, running_files)`` parses both with the same platform's parser and compares
what that platform carries (:mod:`compiler.parse.carried`), so a reordered or reformatted config is no drift and a
removed PFC priority is one: ``leaf3 Ethernet12/1: PFC priorities [3] intended, [] running``. Lines the running
config has and the parser does not model are listed too (hand-added commands are never silently ignored).
Pure Python; never imports Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compiler.parse import ParsedDevice, parse_device
from compiler.parse.carried import carried, differences

# Readable names for the fields a difference path ends in (the last path element).
FIELD_LABELS = {
    "pfc_priorities": "PFC priorities", "pfc_watchdog": "PFC watchdog", "ecn": "ECN", "headroom": "PFC headroom",
    "trust": "QoS trust", "mtu": "MTU", "enabled": "enabled", "ip": "address", "access_vlan": "access VLAN",
    "trunk_vlans": "trunk VLANs", "speed_gbps": "speed (Gb/s)", "description": "description",
    "remote_as": "remote AS", "address_families": "address families", "dscp_to_tc": "DSCP to traffic class",
    "lossless_priorities": "lossless priorities", "vlan_vnis": "VLAN to VNI", "vrf_vnis": "VRF to L3VNI",
    "route_targets": "route targets", "rd": "RD", "networks": "advertised networks",
}
_RECORD = re.compile(r"^(interfaces|neighbors|vlans|vrfs|loopbacks|peer_groups|classes)\[([^\]]*)\]$")


@dataclass(frozen=True, slots=True)
class FieldDrift:
    hostname: str
    path: str  # carried-model path, e.g. interfaces[Ethernet12/1].qos.pfc_priorities
    intended: object
    running: object

    @property
    def message(self) -> str:
        if self.path.startswith("unmodelled "):
            return f"{self.hostname} {self.path[len('unmodelled '):]}: running has a line the parser does not " \
                   f"model and the intended config lacks: {self.running}"
        return f"{self.hostname} {describe_path(self.path)} {_show(self.intended)} intended, {_show(self.running)} running"

    def as_dict(self) -> dict:
        return {"path": self.path, "intended": self.intended, "running": self.running, "message": self.message}


def _show(value: object) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def describe_path(path: str) -> str:
    """``interfaces[Ethernet12/1].qos.pfc_priorities`` -> ``Ethernet12/1: PFC priorities``."""
    parts = path.split(".")
    if len(parts) >= 2 and parts[-1].isdigit() and parts[-2] in FIELD_LABELS:  # ecn.3: queue 3's ECN
        parts = parts[:-2] + [f"{parts[-2]} {parts[-1]}"]
    subject = []
    for part in parts[:-1]:
        match = _RECORD.match(part)
        if match:
            subject.append(match.group(2) if match.group(1) == "interfaces" else f"{match.group(1)[:-1]} {match.group(2)}")
        elif part not in ("qos", "bgp"):
            subject.append(part)
    last = parts[-1]
    match = _RECORD.match(last)
    field, _, index = last.partition(" ")
    if match:
        label = f"{match.group(1)[:-1]} {match.group(2)}"
    else:
        label = FIELD_LABELS.get(field, field.replace("_", " ")) + (f" {index}" if index else "")
    return (" ".join(subject) + ": " if subject else "") + label


def field_drift(hostname: str, intended_files: dict[str, str], running_files: dict[str, str],
                platform: str | None = None) -> tuple[list[FieldDrift], ParsedDevice]:
    """Field-level differences and the parsed running device (for running-state checks)."""
    intended = parse_device(intended_files, platform=platform, hostname_hint=hostname)
    running = parse_device(running_files, platform=platform or intended.platform, hostname_hint=hostname)
    drift = [FieldDrift(hostname, path, want, have) for path, want, have in
             differences(carried(intended.structured, intended.platform), carried(running.structured, intended.platform))]
    known = {item.text for item in intended.unmodelled}
    for item in running.unmodelled:
        if item.text not in known:
            drift.append(FieldDrift(hostname, f"unmodelled {item.file}:{item.line}", None, item.text))
    return drift, running
