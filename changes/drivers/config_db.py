"""SONiC CONFIG_DB differences as RFC 6902 JSON Patches, the input of SONiC's Generic Config Updater.

The one home of "which CONFIG_DB tables Fabric Twin owns". A push never replaces config_db.json: it applies the
difference between the device's running CONFIG_DB (``show runningconfiguration all``) and the candidate with
``config apply-patch`` (sonic-utilities ``config/main.py: apply_patch``; design: sonic-net/SONiC
``doc/config-generic-update-rollback/Json_Patch_Application_Design.md``):

- an **owned** table is made equal to the candidate's: entries we no longer render are removed;
- every other table (DEVICE_METADATA, PORT, MGMT_*, AAA, anything unknown to us) is **merged**: the fields the
  candidate sets are added or replaced, nothing the device has is ever removed. So platform data (hwsku, platform,
  mac, PORT lanes), the management interface and whatever the operator configured outside the intent survive.

PORT is merged, not owned: a switch has ports the intent does not use, and removing a PORT entry deletes the
port. Pure functions (no database, no device access): also used by the tests' recorded SONiC device and the
twin's apply-patch stand-in.
"""

from __future__ import annotations

import copy
import json

from compiler.errors import DriverError

# Tables the SONiC renderer writes and that nothing else on the switch should own (compiler/render/sonic).
OWNED_TABLES = frozenset({
    "BGP_NEIGHBOR", "BREAKOUT_CFG", "BUFFER_PG", "BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_QUEUE",
    "CABLE_LENGTH", "DEFAULT_LOSSLESS_BUFFER_PARAMETER", "DEVICE_NEIGHBOR", "DSCP_TO_TC_MAP", "INTERFACE",
    "LOOPBACK_INTERFACE", "LOSSLESS_TRAFFIC_PATTERN", "MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    "PFC_WD", "PORTCHANNEL", "PORTCHANNEL_INTERFACE", "PORTCHANNEL_MEMBER", "PORT_QOS_MAP", "QUEUE", "SCHEDULER",
    "TC_TO_PRIORITY_GROUP_MAP", "TC_TO_QUEUE_MAP", "VLAN", "VLAN_INTERFACE", "VLAN_MEMBER", "VRF", "VXLAN_EVPN_NVO",
    "VXLAN_TUNNEL", "VXLAN_TUNNEL_MAP", "WRED_PROFILE",
})

# Tables the renderer writes but does NOT own: merged field by field, never removed. DEVICE_METADATA and PORT carry
# platform data (hwsku, platform, mac, lanes) and ports the intent does not use; the management and service tables
# are the device's lifeline and may hold what the operator set outside the intent.
RENDERED_MERGED_TABLES = frozenset({
    "AAA", "DEVICE_METADATA", "DNS_NAMESERVER", "MGMT_INTERFACE", "MGMT_PORT", "MGMT_VRF_CONFIG", "NTP",
    "NTP_SERVER", "PORT", "RADIUS_SERVER", "STATIC_ROUTE", "SYSLOG_CONFIG", "SYSLOG_SERVER", "TACPLUS",
    "TACPLUS_SERVER",
})

Patch = list[dict]


def pointer(*tokens: str) -> str:
    """RFC 6901 JSON Pointer: '~' -> '~0', '/' -> '~1' (CONFIG_DB keys hold prefixes like 'Ethernet0|10.0.0.0/31')."""
    return "".join("/" + token.replace("~", "~0").replace("/", "~1") for token in tokens)


def parse_config_db(text: str, *, what: str) -> dict:
    try:
        document = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise DriverError(f"{what} is not valid JSON: {exc}") from exc
    if not isinstance(document, dict) or not all(isinstance(table, dict) for table in document.values()):
        raise DriverError(f"{what} is not a CONFIG_DB document ({{table: {{key: {{field: value}}}}}})")
    return document


def _entry_ops(table: str, key: str, before: dict | None, after: dict, *, merge: bool) -> Patch:
    if before is None:
        return [{"op": "add", "path": pointer(table, key), "value": after}]
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [] if before == after else [{"op": "replace", "path": pointer(table, key), "value": after}]
    ops: Patch = []
    for field in sorted(after):
        if field not in before:
            ops.append({"op": "add", "path": pointer(table, key, field), "value": after[field]})
        elif before[field] != after[field]:
            ops.append({"op": "replace", "path": pointer(table, key, field), "value": after[field]})
    if not merge:
        ops += [{"op": "remove", "path": pointer(table, key, field)} for field in sorted(set(before) - set(after))]
    return ops


def config_db_patch(running: dict, candidate: dict, *, owned_only: bool = True) -> Patch:
    """The JSON Patch that takes ``running`` to the candidate.

    ``owned_only`` (a push): owned tables are replaced, others merged. ``owned_only=False`` (a rollback to a saved
    running config): every table is made exactly equal to ``candidate``, so the result is the saved config."""
    ops: Patch = []
    for table in sorted(set(running) | set(candidate)):
        merge = owned_only and table not in OWNED_TABLES
        before, after = running.get(table), candidate.get(table)
        if after is None:
            if not merge:
                ops.append({"op": "remove", "path": pointer(table)})
            continue
        if before is None:
            ops.append({"op": "add", "path": pointer(table), "value": after})
            continue
        for key in sorted(after):
            ops += _entry_ops(table, key, before.get(key), after[key], merge=merge)
        if not merge:
            ops += [{"op": "remove", "path": pointer(table, key)} for key in sorted(set(before) - set(after))]
    return ops


def unpointer(path: str) -> list[str]:
    if not path.startswith("/"):
        raise DriverError(f"JSON Patch path {path!r} does not start with '/'")
    return [token.replace("~1", "/").replace("~0", "~") for token in path[1:].split("/")]


def apply_config_db_patch(document: dict, patch: Patch) -> dict:
    """Apply add/replace/remove operations (the only ones config_db_patch emits) to a copy of ``document``."""
    result = copy.deepcopy(document)
    for op in patch:
        tokens = unpointer(op["path"])
        parent = result
        for token in tokens[:-1]:
            if token not in parent:
                raise DriverError(f"JSON Patch {op['op']} {op['path']!r}: {token!r} does not exist")
            parent = parent[token]
        last = tokens[-1]
        if op["op"] == "add":
            parent[last] = copy.deepcopy(op["value"])
        elif op["op"] == "replace":
            if last not in parent:
                raise DriverError(f"JSON Patch replace {op['path']!r}: {last!r} does not exist")
            parent[last] = copy.deepcopy(op["value"])
        elif op["op"] == "remove":
            if last not in parent:
                raise DriverError(f"JSON Patch remove {op['path']!r}: {last!r} does not exist")
            del parent[last]
        else:
            raise DriverError(f"JSON Patch op {op['op']!r} at {op['path']!r} is not supported")
    return result
