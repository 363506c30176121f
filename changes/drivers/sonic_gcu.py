"""How each CONFIG_DB table reaches a SONiC switch, and the Generic Config Updater's (GCU) rules, checked before the
switch is touched.

GCU (``config apply-patch``, sonic-utilities ``generic_config_updater``) validates every patch twice: against
SONiC's YANG models, and against per-table field-operation rules that YANG cannot express (transitions, not states).
Those rules are data in sonic-utilities ``generic_config_updater/gcu_field_operation_validators.conf.json``; our
copy is data/gcu_field_operation_validators.conf.json, unmodified, from sonic-net/sonic-utilities at commit
691b1bbc4fd2b71657d1b0b334c37136deb51526 (2026-07-23, Apache-2.0). What they mean (field_operation_validators.py,
gu_common.py ``validate_field_operation`` at that commit), re-implemented here over the same diff GCU computes
(``jsonpatch.JsonPatch.from_diff(old, target)``):

- the switch's ASIC generation comes from sonic_version.yml ``asic_type`` and the HwSKU: mellanox by exact HwSKU
  (spc1..spc6), broadcom by HwSKU substring (td2..th6, j2c+, ...), cisco-8000 and marvell-teralynx by type alone;
  any other switch is "unknown" and every rule-guarded change is refused;
- ``BUFFER_POOL``: no operation is allowed on any ASIC (pool sizes are the platform's);
- ``BUFFER_PROFILE``: a whole profile may be added, replaced or removed; a field only as its scenario allows
  (``dynamic_th`` / ``xoff`` replace, per ASIC and minimum release); creating the table is a field change
  (GCU reads its entries as fields) and is refused;
- ``PFC_WD``: the listed fields (action, detection_time, restoration_time, GLOBAL/POLL_INTERVAL, ...) on listed ASICs
  only; gu_common also refuses removing ``/PFC_WD/GLOBAL``, its POLL_INTERVAL and ``/LOOPBACK_INTERFACE/Loopback0``;
- a release whose build_version carries an 8-digit date (old YYYYMMDD branches) must be at least the ASIC's date;
- a target with an empty table is refused (CONFIG_DB cannot hold one).
GCU's PORT rule (speed/FEC within STATE_DB's supported lists) needs the switch's STATE_DB and is left to GCU.

So the tables SONiC configures as a set per HwSKU reach the switch as SONiC itself installs them: the buffer and
QoS tables (``QOS_LOAD_TABLES``: ``config qos clear``'s list plus PFC_WD) are written on a switch that runs none of
them yet by ``config load`` of a file holding exactly those tables (sonic-cfggen ``--write-to-db``: the same write
``config qos reload`` makes of its per-HwSKU templates, without flushing anything else), right after the
``config apply-patch`` of everything else (which creates the ports they name); after that first push,
every change, QoS included, goes through ``config apply-patch`` within GCU's rules, and a change GCU would refuse is
refused here before the switch is touched, naming what to do instead. A rollback that takes every QoS table away
(back to before the first push) runs ``config qos clear`` first, SONiC's way to remove them. Pure: no Django.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import jsonpatch
import jsonpointer
import yaml

RULES_FILE = Path(__file__).parent / "data" / "gcu_field_operation_validators.conf.json"
# sonic-utilities config/main.py _clear_qos QOS_TABLE_NAMES (``config qos clear``), at 691b1bbc4fd2.
QOS_CLEAR_TABLES = frozenset({
    "PORT_QOS_MAP", "QUEUE", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "TC_TO_QUEUE_MAP",
    "DSCP_TO_TC_MAP", "MPLS_TC_TO_TC_MAP", "SCHEDULER", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "WRED_PROFILE",
    "CABLE_LENGTH", "BUFFER_PG", "BUFFER_QUEUE", "BUFFER_PORT_INGRESS_PROFILE_LIST",
    "BUFFER_PORT_EGRESS_PROFILE_LIST", "BUFFER_PROFILE", "BUFFER_POOL", "DEFAULT_LOSSLESS_BUFFER_PARAMETER",
    "LOSSLESS_TRAFFIC_PATTERN",
})
# PFC_WD is installed with them (``pfcwd start_default`` writes it on boot when default_pfcwd_status is enable).
QOS_LOAD_TABLES = QOS_CLEAR_TABLES | {"PFC_WD"}
# gu_common.py validate_field_operation: removals refused on every ASIC.
ILLEGAL_REMOVALS = ("/PFC_WD/GLOBAL/POLL_INTERVAL", "/PFC_WD/GLOBAL", "/LOOPBACK_INTERFACE/Loopback0")
INSTEAD = {
    "BUFFER_POOL": "buffer pool sizes are the platform's: change them with `config qos reload` (the HwSKU's "
                   "buffers templates) or `config load` of the buffer tables in a maintenance window",
    "BUFFER_PROFILE": "GCU changes a profile's fields only as listed for the ASIC: push the profile under a new "
                      "name (a whole-profile add) and point BUFFER_PG/BUFFER_QUEUE at it, or `config load` it in a "
                      "maintenance window",
    "PFC_WD": "change the PFC watchdog with SONiC's `pfcwd` CLI (`sudo pfcwd start --action <action> "
              "--restoration-time <ms> <ports> <detection-time>`, `sudo pfcwd stop`), which GCU's rules do not "
              "cover; to remove PFC_WD entirely (its GLOBAL entry stays after `pfcwd stop`), `config reload` the "
              "saved config in a maintenance window",
    "LOOPBACK_INTERFACE": "Loopback0 is the router's identity: GCU never removes it; keep it in the intent",
}


@dataclass(frozen=True)
class SonicRelease:
    """What GCU's rules depend on: /etc/sonic/sonic_version.yml ``asic_type`` and ``build_version``, and the HwSKU
    (DEVICE_METADATA|localhost hwsku)."""

    asic_type: str
    build_version: str
    hwsku: str

    @classmethod
    def read(cls, sonic_version_yml: str, running_db: dict) -> SonicRelease:
        try:
            version = yaml.safe_load(sonic_version_yml)
        except yaml.YAMLError:
            version = None
        version = version if isinstance(version, dict) else {}
        localhost = (running_db.get("DEVICE_METADATA") or {}).get("localhost") or {}
        return cls(asic_type=str(version.get("asic_type") or ""), build_version=str(version.get("build_version") or ""),
                   hwsku=str(localhost.get("hwsku") or ""))

    @property
    def branch_date(self) -> str | None:
        """field_operation_validators.py: the last 8-digit part of build_version (old YYYYMMDD branch names)."""
        dates = [part for part in self.build_version.split(".") if re.fullmatch(r"\d{8}", part)]
        return dates[-1] if dates else None


@cache
def _rules() -> dict:
    return json.loads(RULES_FILE.read_text())


def gcu_asic(release: SonicRelease) -> str:
    """GCU's ``get_asic_name`` for this switch ("unknown" when its tables do not list it)."""
    mapping = _rules()["helper_data"]["rdma_config_update_validator"]
    if release.asic_type in ("cisco-8000", "marvell-teralynx"):
        return release.asic_type
    hwsku = release.hwsku.lower()
    if release.asic_type in ("mellanox", "vs"):
        for generation, hwskus in mapping["mellanox_asics"].items():
            if hwsku in (name.lower() for name in hwskus):
                return generation
    if release.asic_type in ("broadcom", "vs"):
        for generation, hwskus in mapping["broadcom_asics"].items():
            if any(name.lower() in hwsku for name in hwskus):
                return generation
    return "unknown"


def _fields_in(op: dict, *, remove_port: bool) -> list[str]:
    parts = jsonpointer.JsonPointer(op["path"]).parts[1:]
    if remove_port:
        parts = [part for part in parts if not any(char.isdigit() for char in part)]
    field = "/".join(parts).lower()
    if isinstance(op.get("value"), dict):
        return [f"{field}/{key}" if field else key for key in op["value"]]
    return [field]


def _scenario_allows(op: dict, release: SonicRelease, *, exact: bool, remove_port: bool) -> bool:
    """field_operation_validators.py ``rdma_config_update_validator_common``."""
    asic = gcu_asic(release)
    if asic == "unknown":
        return False
    table = jsonpointer.JsonPointer(op["path"]).parts[0]
    scenarios = _rules()["tables"][table]["validator_data"]["rdma_config_update_validator"]
    for field in _fields_in(op, remove_port=remove_port):
        scenario = next((data for data in scenarios.values()
                         if any((field == name) if exact else (field.split("/")[-1] == name)
                                for name in data["fields"])), None)
        if scenario is None or not scenario["platforms"].get(asic) or op["op"] not in scenario["operations"]:
            return False
        if release.branch_date is not None and release.branch_date < scenario["platforms"][asic]:
            return False
    return True


def _allowed(op: dict, release: SonicRelease) -> bool:
    table = jsonpointer.JsonPointer(op["path"]).parts[0]
    validators = _rules()["tables"].get(table, {}).get("field_operation_validators", [])
    for validator in validators:
        name = validator.rsplit(".", 1)[1]
        if name == "rdma_config_update_validator" and not _scenario_allows(op, release, exact=True, remove_port=True):
            return False
        if name == "buffer_profile_config_update_validator":
            whole_profile = len(jsonpointer.JsonPointer(op["path"]).parts) == 2
            if not (op["op"] in ("add", "remove", "replace") if whole_profile
                    else _scenario_allows(op, release, exact=False, remove_port=False)):
                return False
    return True


def gcu_refusals(running: dict, target: dict, release: SonicRelease) -> list[str]:
    """Why GCU would refuse to take ``running`` to ``target`` on this switch: one line per refused operation, each
    saying what to do instead; empty when GCU's field-operation rules and empty-table check accept it."""
    refusals = []
    for op in jsonpatch.JsonPatch.from_diff(running, target):
        table = jsonpointer.JsonPointer(op["path"]).parts[0] if op["path"] != "" else ""
        if op["op"] == "remove" and op["path"] in ILLEGAL_REMOVALS:
            why = "GCU never removes it"
        elif not _allowed(op, release):
            why = (f"GCU's {table} rules refuse it on {release.hwsku or 'this HwSKU'} (ASIC generation "
                   f"{gcu_asic(release)!r}, release {release.build_version or 'unknown'})")
        else:
            continue
        instead = INSTEAD.get(table, "apply it out of band in a maintenance window")
        refusals.append(f"{op['op']} {op['path']}: {why}; {instead}")
    empty = sorted(table for table, entries in target.items() if isinstance(entries, dict) and not entries)
    refusals += [f"table {table} would be left empty, which CONFIG_DB cannot hold (GCU refuses it); remove the "
                 "table instead of its last entry" for table in empty]
    return refusals


@dataclass(frozen=True)
class SonicPushPlan:
    """How a push reaches the switch, in order: ``qos_clear`` (``config qos clear``), then ``config apply-patch``
    from ``base`` to ``patch_target``, then ``load`` (``config load`` of these tables, merged into CONFIG_DB).
    The load comes after the patch: the QoS entries name ports (QUEUE|Ethernet4|3) that a breakout in the patch
    creates, and CONFIG_DB must hold the port before anything refers to it."""

    qos_clear: bool
    load: dict
    base: dict
    patch_target: dict


def is_qos_first_push(running: dict, candidate: dict) -> bool:
    """The switch runs none of the QoS/buffer tables yet and the candidate has some: SONiC's first install."""
    return not any(running.get(table) for table in QOS_LOAD_TABLES) and any(
        candidate.get(table) for table in QOS_LOAD_TABLES)


def merge_loaded(running: dict, load: dict) -> dict:
    """CONFIG_DB after ``config load`` (sonic-cfggen --write-to-db: ConfigDBConnector.mod_config, field by field)."""
    result = copy.deepcopy(running)
    for table, entries in load.items():
        for key, fields in entries.items():
            result.setdefault(table, {}).setdefault(key, {}).update(copy.deepcopy(fields))
    return result


def plan_push(running: dict, candidate: dict, *, rollback: bool = False) -> SonicPushPlan:
    """Which QoS tables go by ``config qos clear`` / ``config load`` around the patch (module docstring)."""
    qos_clear = rollback and any(running.get(table) for table in QOS_CLEAR_TABLES) and not any(
        candidate.get(table) for table in QOS_CLEAR_TABLES)
    base = {table: entries for table, entries in running.items() if not (qos_clear and table in QOS_CLEAR_TABLES)}
    load = {}
    if is_qos_first_push(base, candidate):
        load = {table: copy.deepcopy(candidate[table]) for table in sorted(QOS_LOAD_TABLES) if candidate.get(table)}
    patch_target = {table: entries for table, entries in candidate.items() if table not in load}
    return SonicPushPlan(qos_clear=qos_clear, load=load, base=base, patch_target=patch_target)
