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
from typing import cast

from compiler.host_config import HostConfig, NicConfig
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
    # GPU server NICs (host_drift)
    "rdma_device": "RDMA device", "family": "NIC family", "pcie_gen": "PCIe generation", "pcie_lanes": "PCIe lanes",
    "dscp_to_priority": "DSCP to priority", "priority_to_tc": "priority to traffic class",
    "tc_bandwidth": "ETS bandwidth (%)", "tc_strict": "strict traffic classes", "cable_length_m": "cable length (m)",
    "ecn_rp": "DCQCN reaction point priorities", "ecn_np": "DCQCN notification point priorities",
    "cnp_dscp": "CNP DSCP", "cnp_priority": "CNP priority", "roce_mode": "RoCE mode", "roce_tos": "RoCE ToS",
    "global_pause": "802.3x global pause", "addresses": "addresses", "nic": "NIC",
}
_RECORD = re.compile(r"^(interfaces|neighbors|vlans|vrfs|loopbacks|peer_groups|classes|nics)\[([^\]]*)\]$")


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
    if path.startswith("nccl."):  # a host's NCCL environment key, named as the file spells it
        return f"NCCL environment: {path[len('nccl.'):]}"
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


# ------------------------------------------------------------------------------------------ GPU server NICs

# NicConfig fields compared between the intent and a collected host state, in report order. Not compared: the
# server and NIC names (the keys), the rail and the switch port (the collected state takes them from the
# inventory, they are not read on the host), the NIC model name and the gateway (not collected).
HOST_DRIFT_FIELDS = ("rdma_device", "family", "speed_gbps", "mtu", "pcie_gen", "pcie_lanes", "trust",
                     "dscp_to_priority", "pfc_priorities", "priority_to_tc", "tc_bandwidth", "tc_strict",
                     "cable_length_m", "ecn_rp", "ecn_np", "cnp_dscp", "cnp_priority", "roce_mode", "roce_tos",
                     "global_pause", "addresses")
DSCP_VALUES = 64
_SORTED_SETS = {"pfc_priorities", "tc_strict", "ecn_rp", "ecn_np", "addresses"}  # order carries no meaning


@dataclass(frozen=True, slots=True)
class HostDrift:
    """One server's collected state against its intended NIC settings."""

    server: str
    differences: tuple[FieldDrift, ...]
    not_read: tuple[str, ...]  # "eth0: cable length (m)": intended, but the collected state does not hold it

    @property
    def state(self) -> str:
        return "drifted" if self.differences else "in sync"

    def as_dict(self) -> dict:
        return {"server": self.server, "state": self.state,
                "differences": [item.as_dict() for item in self.differences], "not_read": list(self.not_read)}


def _nic_value(nic: NicConfig, name: str) -> object:
    value = getattr(nic, name)
    if name == "dscp_to_priority":  # the effective table: explicit entries and the NIC default DSCP >> 3
        return {dscp: nic.priority_of(dscp) for dscp in range(DSCP_VALUES)}
    if name == "tc_bandwidth" and value is not None:  # a strict TC has no share (mlnx_qos prints none for it)
        strict = set(nic.tc_strict or ())
        return [0 if tc in strict else share for tc, share in enumerate(value)]
    if name in _SORTED_SETS and value is not None:
        return sorted(value)
    return list(value) if isinstance(value, tuple) else value


def _table_difference(want: dict[int, int], have: dict[int, int]) -> tuple[dict[int, int], dict[int, int | None]]:
    keys = [key for key in want if want[key] != have.get(key)]
    return {key: want[key] for key in keys}, {key: have.get(key) for key in keys}


def host_drift(intended: HostConfig, running: HostConfig) -> HostDrift:
    """Per NIC (matched by netdev name) and field: what the server runs against what it should run, and the
    NCCL environment key by key. A NIC on one side only is a difference; ``running`` None fields are not read."""
    server = intended.server
    differences: list[FieldDrift] = []
    not_read: list[str] = []
    wanted = {nic.name: nic for nic in intended.nics}
    have = {nic.name: nic for nic in running.nics}
    for name in sorted(set(wanted) | set(have), key=lambda n: (len(n), n)):
        path = f"nics[{name}]"
        if name not in have:
            differences.append(FieldDrift(server, f"{path}.nic", "present", "not collected (no such RDMA netdev)"))
            continue
        if name not in wanted:
            differences.append(FieldDrift(server, f"{path}.nic", "absent (not in the inventory)", "present"))
            continue
        for field_name in HOST_DRIFT_FIELDS:
            want, got = _nic_value(wanted[name], field_name), _nic_value(have[name], field_name)
            if want is None or want == [] and field_name == "addresses" and not got:
                continue  # the NIC family cannot set it, or nothing is intended
            if got is None:
                not_read.append(f"{name}: {FIELD_LABELS[field_name]}")
                continue
            if want == got:
                continue
            if field_name == "dscp_to_priority":
                want, got = _table_difference(cast("dict[int, int]", want), cast("dict[int, int]", got))
            differences.append(FieldDrift(server, f"{path}.{field_name}", want, got))
    env_want, env_have = intended.nccl, running.nccl
    if env_want and not running.nccl_env:
        not_read.append("NCCL environment file")
    elif env_want or env_have:
        for key in sorted(set(env_want) | set(env_have)):
            if env_want.get(key) != env_have.get(key):
                differences.append(FieldDrift(server, f"nccl.{key}", env_want.get(key, "unset"),
                                              env_have.get(key, "unset")))
    return HostDrift(server=server, differences=tuple(differences), not_read=tuple(not_read))
