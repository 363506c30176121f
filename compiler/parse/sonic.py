"""SONiC ``config_db.json`` + ``frr.conf`` -> structured config (docs/structured-config.md).

CONFIG_DB tables are read as SONiC's YANG models define them (sonic-port, sonic-interface, sonic-vlan, sonic-vrf,
sonic-vxlan, sonic-qos-maps (DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP, ...), sonic-port-qos-map
(PORT_QOS_MAP.pfc_enable), sonic-pfcwd, sonic-queue, sonic-scheduler, sonic-wred-profile, sonic-buffer-pg,
sonic-buffer-profile, sonic-cable-length, sonic-device-neighbor); the routing half comes from frr.conf
(:mod:`compiler.parse.frr`, same text as FRR's). A table or key not read here is reported as unmodelled
(``config_db.json: TABLE|key``); the tables that only size buffers or name the platform are read for what they
state and otherwise known (:data:`KNOWN_TABLES`).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from functools import cache
from typing import Any

from compiler.catalog import SWITCH_MODELS
from compiler.hardware import asic_family
from compiler.parse.aaa import AAA_TABLES, sonic_aaa
from compiler.parse.common import (
    ParsedDevice,
    SubnetIndex,
    Unmodelled,
    empty_interface,
    empty_port_qos,
    empty_qos,
    empty_structured,
    finish_qos,
    ip_address_text,
    ipv6_interface_text,
    layer3_neighbor_interfaces,
    parse_asn,
    sort_structured,
)
from compiler.parse.frr import apply_vni_blocks, parse_frr_conf, peers_from_descriptions, strip_vrf_prefix
from compiler.platforms import PlatformDataError, known_models, model_platforms

CONFIG_DB = "config_db.json"
FRR_CONF = "frr.conf"
ROLE_BY_DEVICE_TYPE = {"ToRRouter": "leaf", "LeafRouter": "spine", "SpineRouter": "super-spine"}
# Tables whose content is fully derived from what the parser reads (buffer pools sized from the model, the
# platform's management and lossless-pattern defaults): known, nothing further to model.
KNOWN_TABLES = {"BUFFER_POOL", "BUFFER_QUEUE", "VXLAN_EVPN_NVO", "MGMT_PORT", "MGMT_VRF_CONFIG", "NTP",
                "LOSSLESS_TRAFFIC_PATTERN", "DEFAULT_LOSSLESS_BUFFER_PARAMETER", "PFC_WD", "SCHEDULER",
                "WRED_PROFILE", "BUFFER_PROFILE", "MAP_PFC_PRIORITY_TO_QUEUE", "FEATURE", "DEVICE_METADATA",
                "MGMT_INTERFACE", "NTP_SERVER", "SYSLOG_SERVER", "DNS_NAMESERVER"}
READ_TABLES = {"PORT", "INTERFACE", "LOOPBACK_INTERFACE", "VLAN", "VLAN_MEMBER", "VLAN_INTERFACE", "VRF",
               "VXLAN_TUNNEL", "VXLAN_TUNNEL_MAP", "DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP",
               "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "CABLE_LENGTH",
               "DEVICE_NEIGHBOR", "BREAKOUT_CFG", "PORTCHANNEL", "PORTCHANNEL_MEMBER", "PORTCHANNEL_INTERFACE",
               "BGP_NEIGHBOR", "BGP_PEER_RANGE", "BGP_INTERNAL_NEIGHBOR", "VOQ_INBAND_INTERFACE", "SYSTEM_PORT"}
READ_TABLES = READ_TABLES | AAA_TABLES  # management AAA, read by compiler.parse.aaa.sonic_aaa


def _ints(text: str) -> list[int]:
    return sorted(int(part) for part in str(text).split(",") if part.strip().isdigit())


_JSON_OBJECT_KEY = re.compile(r'^([ \t]*)"([^"\n]*)"[ \t]*:[ \t]*\{', re.MULTILINE)
_JSON_KEY = re.compile(r'^([ \t]*)"([^"\n]*)"[ \t]*:', re.MULTILINE)


def _json_line_index(text: str) -> dict[str, int]:
    """``TABLE`` / ``TABLE|key`` / ``TABLE|key|field`` -> the line where that object opens or that field is, for
    findings that cite file:line (the changed field, not only its row). config_db.json is printed one key per line
    (SONiC's ``sonic-cfggen --print-data``, our renderer): the shallowest indented object keys are tables, the next
    level their rows, keys below a row its fields."""
    matches = [(match.start(), len(match.group(1)), match.group(2)) for match in _JSON_OBJECT_KEY.finditer(text)]
    indents = sorted({indent for _, indent, _ in matches})
    if not indents:
        return {}
    table_indent, row_indent = indents[0], indents[1] if len(indents) > 1 else None
    objects = {start for start, _, _ in matches}
    index: dict[str, int] = {}
    table, row, line, position = "", "", 1, 0
    for match in _JSON_KEY.finditer(text):
        start, indent, key = match.start(), len(match.group(1)), match.group(2)
        line += text.count("\n", position, start)
        position = start
        if indent == table_indent and start in objects:
            table, row = key, ""
            index.setdefault(table, line)
        elif indent == row_indent and table:
            row = key
            index.setdefault(f"{table}|{key}", line)
        elif row_indent is not None and indent > row_indent and row:
            index.setdefault(f"{table}|{row}|{key}", line)
    return index


def parse(files: dict[str, str], hostname_hint: str = "") -> ParsedDevice:
    structured = empty_structured(hostname_hint, "sonic")
    locations: dict[str, tuple[str, int]] = {}
    unmodelled: list[Unmodelled] = []
    if CONFIG_DB in files:
        text = files[CONFIG_DB]
        _read_config_db(json.loads(text), structured, locations, unmodelled, _json_line_index(text))
    if FRR_CONF in files:
        unmodelled += parse_frr_conf(files[FRR_CONF], FRR_CONF, structured, locations, vrf_name=strip_vrf_prefix)
    if CONFIG_DB in files:
        # After frr.conf: a neighbor both state keeps frr.conf's (what bgpd runs); the rest come from CONFIG_DB.
        _bgp_tables(json.loads(files[CONFIG_DB]), structured, locations, unmodelled, _json_line_index(files[CONFIG_DB]))
    vrf_vnis = structured.pop("_frr_vrf_vnis", {})
    for vrf in structured["vrfs"]:
        vrf["l3vni"] = vrf["l3vni"] or vrf_vnis.get(vrf["name"])
    apply_vni_blocks(structured)
    peers_from_descriptions(structured)
    subnets = SubnetIndex(structured)
    for neighbor in structured["bgp"]["neighbors"]:
        if neighbor["interface"] is None and neighbor["address"]:
            neighbor["interface"] = subnets.interface_for(neighbor["address"])
    layer3_neighbor_interfaces(structured)
    sort_structured(structured)
    return ParsedDevice(structured["hostname"], "sonic", structured, unmodelled, locations)


@cache
def _model_by_hwsku() -> dict[str, str]:
    """SONiC HWSKU -> inventory model, from the platform data the renderer uses (compiler.platforms)."""
    out: dict[str, str] = {}
    for model in known_models():
        try:
            sonic = model_platforms(model).sonic
        except PlatformDataError:
            continue
        if sonic is not None and sonic.hwsku is not None:  # a lookup is by a str HWSKU: a None key is never hit
            out.setdefault(sonic.hwsku, model)
    return out


def _hardware(hwsku: str | None) -> tuple[str | None, dict]:
    model = _model_by_hwsku().get(hwsku or "")
    spec = SWITCH_MODELS.get(model) if model else None
    return model, {"model": model, "asic": spec.asic if spec else None,
                   "asic_family": asic_family(spec) if spec else None}


def _read_config_db(db: dict, structured: dict, locations: dict, unmodelled: list, lines: dict[str, int]) -> None:
    def at(key, table, row=None):
        line = lines.get(f"{table}|{row}") if row is not None else None
        locations.setdefault(key, (CONFIG_DB, line or lines.get(table, 0)))

    for table in db:
        if table not in KNOWN_TABLES | READ_TABLES:
            unmodelled.append(Unmodelled(CONFIG_DB, lines.get(table, 0), table))
    metadata: dict[str, Any] = (db.get("DEVICE_METADATA") or {}).get("localhost") or {}
    structured["hostname"] = metadata.get("hostname") or structured["hostname"]
    structured["role"] = ROLE_BY_DEVICE_TYPE.get(metadata.get("type", ""))
    structured["system_mac"] = metadata.get("mac")
    structured["model"], structured["hardware"] = _hardware(metadata.get("hwsku"))
    at("device", "DEVICE_METADATA", "localhost")
    interfaces: dict[str, dict] = {}
    for name, port in (db.get("PORT") or {}).items():
        interface = empty_interface(name)
        interface["enabled"] = port.get("admin_status") == "up"
        interface["description"] = port.get("description", "")
        interface["mtu"] = int(port["mtu"]) if port.get("mtu") else None
        interface["speed_gbps"] = int(port["speed"]) // 1000 if port.get("speed") else None
        interface["lanes"] = len(str(port["lanes"]).split(",")) if port.get("lanes") else None
        if "fec" in port:
            interface["fec"] = port["fec"]
        interfaces[name] = interface
        at(f"interface {name}", "PORT", name)
        if f"PORT|{name}|mtu" in lines:
            locations[f"interface {name} mtu"] = (CONFIG_DB, lines[f"PORT|{name}|mtu"])
    _breakouts(db, interfaces)
    _read_system_ports(db, structured, unmodelled, lines)
    for interface in interfaces.values():
        # A port that is neither routed, bundled nor in a VLAN (classified below) faces a server in no network only
        # where our renderer says so in its description; otherwise it forwards nothing this file configures (a
        # spare front-panel port, a VOQ chassis' inband port whose address is in VOQ_INBAND_INTERFACE): unused.
        if interface["description"].startswith("SERVER "):
            interface["kind"] = "server"
    for key, row in (db.get("INTERFACE") or {}).items():
        name, _, address = _key_parts(key)
        if name not in interfaces:
            continue
        interfaces[name]["kind"] = "fabric"  # a routed port (sonic-interface.yang), numbered or not
        if address and not _address_row(interfaces[name], address):
            unmodelled.append(Unmodelled(CONFIG_DB, lines.get(f"INTERFACE|{key}", 0), f"INTERFACE|{key}"))
        elif row.get("ipv6_use_link_local_only") == "enable":
            interfaces[name]["unnumbered"] = True  # RFC 5549 BGP over the IPv6 link-local address
    for key, neighbor in (db.get("DEVICE_NEIGHBOR") or {}).items():
        if key in interfaces:
            interfaces[key]["peer_device"], interfaces[key]["peer_interface"] = neighbor.get("name"), neighbor.get(
                "port")
    # VOQ chassis (sonic-voq-inband-interface.yang): the inband port carries the linecards' internal iBGP through
    # the chassis fabric. It is addressed, but no front-panel cable (DEVICE_NEIGHBOR names the other linecard's
    # ASIC namespace) and no data port: it stays unused, with its addresses, so the internal sessions pair.
    for key in db.get("VOQ_INBAND_INTERFACE") or {}:
        name, _, address = _key_parts(key)
        if name not in interfaces:
            continue
        interfaces[name]["kind"] = "unused"
        interfaces[name]["peer_device"] = interfaces[name]["peer_interface"] = None
        if address and not _address_row(interfaces[name], address):
            unmodelled.append(Unmodelled(CONFIG_DB, lines.get(f"VOQ_INBAND_INTERFACE|{key}", 0),
                                         f"VOQ_INBAND_INTERFACE|{key}"))
    for key, value in ((db.get("CABLE_LENGTH") or {}).get("AZURE") or {}).items():
        if key in interfaces and str(value).endswith("m"):
            length = float(str(value)[:-1])
            interfaces[key]["cable_length_m"] = length
    loopbacks: dict[str, dict] = {}
    for key in db.get("LOOPBACK_INTERFACE") or {}:
        name, _, address = _key_parts(key)
        if address and ":" not in address and name not in loopbacks:
            loopbacks[name] = {"name": name, "ip": address, "purpose": None}
        elif address:  # an IPv6 or second IPv4 loopback address: the contract has one IPv4 address per loopback
            unmodelled.append(Unmodelled(CONFIG_DB, lines.get(f"LOOPBACK_INTERFACE|{key}", 0),
                                         f"LOOPBACK_INTERFACE|{key}"))
    structured["loopbacks"] = [loopbacks[name] for name in sorted(loopbacks)]
    # VLANs, members, SVIs, VRFs, VXLAN
    vlan_by_name = {}
    for name, row in (db.get("VLAN") or {}).items():
        vlan_by_name[name] = {"id": int(row.get("vlanid", name[4:])), "name": row.get("description", ""),
                              "mtu": int(row["mtu"]) if row.get("mtu") else None}
    members: dict[str, list] = {}
    for key, row in (db.get("VLAN_MEMBER") or {}).items():
        vlan_name, _, port = _key_parts(key)
        if port in interfaces and vlan_name in vlan_by_name:
            vlan_id = vlan_by_name[vlan_name]["id"]
            interfaces[port]["kind"] = "server"
            if row.get("tagging_mode") == "tagged":
                interfaces[port]["trunk_vlans"].append(vlan_id)
            else:
                interfaces[port]["access_vlan"] = vlan_id
            members.setdefault(vlan_name, []).append(port)
    svis: dict[str, dict] = {}
    for key, row in (db.get("VLAN_INTERFACE") or {}).items():
        vlan_name, _, address = _key_parts(key)
        svi = svis.setdefault(vlan_name, {"ip": None, "mac": None, "vrf": None})
        if address and (":" in address or svi["ip"]):  # the SVI contract has one IPv4 address
            unmodelled.append(Unmodelled(CONFIG_DB, lines.get(f"VLAN_INTERFACE|{key}", 0), f"VLAN_INTERFACE|{key}"))
        elif address:
            svi["ip"] = address
        else:
            svi["mac"] = row.get("mac_addr")
            svi["vrf"] = strip_vrf_prefix(row["vrf_name"]) if row.get("vrf_name") else None
    tunnel = next(iter((db.get("VXLAN_TUNNEL") or {}).items()), None)
    vni_by_vlan = {}
    for row in (db.get("VXLAN_TUNNEL_MAP") or {}).values():
        vni_by_vlan[row.get("vlan")] = int(row["vni"])
    vrf_by_vni = {}
    for name, row in (db.get("VRF") or {}).items():
        vrf = {"name": strip_vrf_prefix(name), "tenant": None, "l3vni": int(row["vni"]) if row.get("vni") else None,
               "transit_vlan": None}
        structured["vrfs"].append(vrf)
        if vrf["l3vni"] is not None:
            vrf_by_vni[vrf["l3vni"]] = vrf
        at(f"vrf {vrf['name']}", "VRF", name)
    vlan_vnis = {}
    for vlan_name, vlan in sorted(vlan_by_name.items(), key=lambda item: item[1]["id"]):
        vni = vni_by_vlan.get(vlan_name)
        if vni in vrf_by_vni:
            vrf_by_vni[vni]["transit_vlan"] = vlan["id"]  # the L3VNI's transit VLAN, not a tenant network
            continue
        svi = svis.get(vlan_name) or {}
        if vni is not None:
            vlan_vnis[str(vlan["id"])] = vni
        structured["vlans"].append({
            "id": vlan["id"], "name": vlan["name"], "network": vlan["name"], "vni": vni, "tenant": None,
            "vrf": svi.get("vrf"), "rd": None, "route_targets": {"import": [], "export": []},
            "svi": {"ip": svi["ip"], "mac": svi["mac"], "mtu": vlan["mtu"]} if svi.get("ip") else None})
        at(f"vlan {vlan['id']}", "VLAN", vlan_name)
    if tunnel:
        name, row = tunnel
        vtep_ip = row.get("src_ip")
        source = next((lb for lb in loopbacks.values() if lb["ip"].split("/")[0] == vtep_ip), None)
        if source:
            source["purpose"] = "vtep"
        structured["vxlan"] = {"source_interface": source["name"] if source else None, "vtep_ip": vtep_ip,
                               "udp_port": 4789, "mtu": None, "vlan_vnis": vlan_vnis,
                               "vrf_vnis": {vrf["name"]: vrf["l3vni"] for vrf in structured["vrfs"] if vrf["l3vni"]},
                               "flood_lists": {}}
        at("vxlan", "VXLAN_TUNNEL", name)
    router_id = metadata.get("bgp_router_id")
    for loopback in loopbacks.values():
        if loopback["purpose"] is None:  # the contract's loopbacks: the router ID's, else the VTEP source
            loopback["purpose"] = "router_id" if loopback["ip"].split("/")[0] == router_id else "vtep"
    _read_port_channels(db, structured, interfaces, vlan_by_name, at, unmodelled, lines)
    fabric_mtus = [i["mtu"] for i in interfaces.values() if i["kind"] == "fabric" and i["mtu"]]
    # The host MTU: the server ports', else the tenant VLANs' (an L2 VLAN carries the host MTU, compiler.render).
    host_mtus = [i["mtu"] for i in interfaces.values() if i["kind"] == "server" and i["mtu"]] or [
        vlan["mtu"] for name, vlan in vlan_by_name.items() if vni_by_vlan.get(name) not in vrf_by_vni and vlan["mtu"]]
    structured["mtu"] = {"underlay": max(fabric_mtus, default=None), "host": max(host_mtus, default=None)}
    if structured["vxlan"] and structured["mtu"]["underlay"]:
        # VXLAN device MTU: underlay - 50 (RFC 7348 outer headers over IPv4); the L3VNI transit VLAN carries it.
        transit = [v["mtu"] for name, v in vlan_by_name.items() if vni_by_vlan.get(name) in vrf_by_vni and v["mtu"]]
        structured["vxlan"]["mtu"] = transit[0] if transit else structured["mtu"]["underlay"] - 50
    structured["interfaces"] = list(interfaces.values())
    _read_qos(db, structured, interfaces, locations, lines)
    _read_management(db, structured)
    aaa = sonic_aaa(db, unmodelled, CONFIG_DB, lines)
    if aaa is not None and structured.get("management"):
        structured["management"]["aaa"] = aaa
    elif aaa is not None:
        unmodelled.extend(Unmodelled(CONFIG_DB, lines.get(table, 0), table) for table in sorted(AAA_TABLES & set(db)))


def _read_port_channels(db: dict, structured: dict, interfaces: dict[str, dict], vlan_by_name: dict,
                        at, unmodelled: list, lines: dict[str, int]) -> None:
    """PORTCHANNEL, PORTCHANNEL_MEMBER, PORTCHANNEL_INTERFACE (sonic-portchannel.yang) and the bundles' VLAN_MEMBER
    rows. SONiC's teamd runs LACP on every bundle (active, sonic-portchannel.yang has no per-member mode) unless the
    bundle is ``static``; members take the bundle's MTU (``config portchannel`` sets it on every member)."""
    rows = db.get("PORTCHANNEL") or {}
    if not rows:
        return
    bundles: dict[str, dict] = {}
    for name, row in rows.items():
        bundles[name] = {
            "name": name, "members": [], "min_links": int(row["min_links"]) if row.get("min_links") else None,
            "mtu": int(row["mtu"]) if row.get("mtu") else None, "enabled": row.get("admin_status") == "up",
            "description": row.get("description", ""), "ip": None, "switchport_mode": None, "access_vlan": None,
            "trunk_vlans": [], "trunk_groups": [], "native_vlan_tag": False, "mlag": None, "qos": {}}
        at(f"interface {name}", "PORTCHANNEL", name)
        if str(row.get("static", "")).lower() == "true":
            bundles[name]["_static"] = True
    for key in db.get("PORTCHANNEL_INTERFACE") or {}:
        name, _, address = _key_parts(key)
        if name in bundles and address and ":" not in address:
            bundles[name]["ip"] = address
        elif address:  # an IPv6 prefix, or a bundle PORTCHANNEL does not define: not in the model
            unmodelled.append(Unmodelled(CONFIG_DB, lines.get(f"PORTCHANNEL_INTERFACE|{key}", 0),
                                         f"PORTCHANNEL_INTERFACE|{key}"))
    for key, row in (db.get("VLAN_MEMBER") or {}).items():
        vlan_name, _, port = _key_parts(key)
        if port in bundles and vlan_name in vlan_by_name:
            vlan_id = vlan_by_name[vlan_name]["id"]
            if row.get("tagging_mode") == "tagged":
                bundles[port]["trunk_vlans"].append(vlan_id)
            else:
                bundles[port]["access_vlan"] = vlan_id
    for key in db.get("PORTCHANNEL_MEMBER") or {}:
        name, _, port = _key_parts(key)
        bundle, member = bundles.get(name), interfaces.get(port)
        if bundle is None or member is None:
            continue
        bundle["members"].append(port)
        member["port_channel"], member["lacp_mode"] = name, "on" if bundle.get("_static") else "active"
        member["kind"] = "fabric" if bundle["ip"] else "server"
        if member["mtu"] is None:
            member["mtu"] = bundle["mtu"]
        else:
            at(f"interface {port} mtu", "PORT", port)  # the member's own MTU (mtu.port_channels cites it)
        at(f"interface {port} channel-group", "PORTCHANNEL_MEMBER", key)
    for bundle in bundles.values():
        bundle.pop("_static", None)
        bundle["members"].sort(key=_port_number)
        if bundle["trunk_vlans"]:
            bundle["switchport_mode"] = "trunk"
        elif bundle["access_vlan"] is not None:
            bundle["switchport_mode"] = "access"
    structured["port_channels"] = [bundles[name] for name in sorted(bundles, key=_port_number)]


# SYSTEM_PORT fields (SONiC "Distributed VOQ Architecture" HLD, sonic-system-port YANG): integers all.
SYSTEM_PORT_FIELDS = ("system_port_id", "switch_id", "core_index", "core_port_index", "speed")


def _read_system_ports(db: dict, structured: dict, unmodelled: list, lines: dict[str, int]) -> None:
    """SYSTEM_PORT ``Linecard|Asic|Port`` rows of a VOQ chassis: every port of every line card, numbered
    chassis-wide so any ASIC can queue toward it (the VOQ). A row of another shape stays unmodelled."""
    ports = []
    for key, row in (db.get("SYSTEM_PORT") or {}).items():
        parts = key.split("|")
        if (len(parts) == 3 and isinstance(row, dict) and set(row) == set(SYSTEM_PORT_FIELDS)
                and all(str(row[name]).isdigit() for name in SYSTEM_PORT_FIELDS)):
            ports.append({"linecard": parts[0], "asic": parts[1], "port": parts[2],
                          "system_port_id": int(row["system_port_id"]), "switch_id": int(row["switch_id"]),
                          "core_index": int(row["core_index"]), "core_port_index": int(row["core_port_index"]),
                          "speed_mbps": int(row["speed"])})
        else:
            unmodelled.append(Unmodelled(CONFIG_DB, lines.get(f"SYSTEM_PORT|{key}", 0), f"SYSTEM_PORT|{key}"))
    if ports:
        structured["system_ports"] = sorted(ports, key=lambda port: port["system_port_id"])


def _port_number(name: str) -> int:
    digits = "".join(character for character in name if character.isdigit())
    return int(digits) if digits else -1


def _breakouts(db: dict, interfaces: dict[str, dict]) -> None:
    """BREAKOUT_CFG (sonic-breakout_cfg.yang): a cage's mode ``NxSPEED[...]``; with N > 1 the ports numbered from
    the cage's first port up to the next cage are its sub-ports (``breakout_parent`` = the cage's port name)."""
    cages = sorted(((_port_number(name), name, row.get("brkout_mode", ""))
                    for name, row in (db.get("BREAKOUT_CFG") or {}).items()), key=lambda item: item[0])
    if not cages:
        return
    numbers = [number for number, _, _ in cages]
    for name, interface in interfaces.items():
        number = _port_number(name)
        index = bisect_right(numbers, number) - 1
        if index < 0:
            continue
        _, cage, mode = cages[index]
        count = mode.split("x", 1)[0]
        if count.isdigit() and int(count) > 1:
            interface["breakout_parent"] = cage


def _read_qos(db: dict, structured: dict, interfaces: dict, locations: dict, lines: dict) -> None:
    port_maps = db.get("PORT_QOS_MAP") or {}
    if not port_maps and not db.get("DSCP_TO_TC_MAP"):
        return
    qos = empty_qos()

    def first(table):
        return next(iter((db.get(table) or {}).values()), {})

    qos["dscp_to_tc"] = {str(int(dscp)): int(tc) for dscp, tc in first("DSCP_TO_TC_MAP").items()}
    qos["tc_to_queue"] = {str(int(tc)): int(queue) for tc, queue in sorted(first("TC_TO_QUEUE_MAP").items(),
                                                                           key=lambda item: int(item[0]))}
    qos["tc_to_priority_group"] = {str(int(tc)): int(pg) for tc, pg in
                                   sorted(first("TC_TO_PRIORITY_GROUP_MAP").items(), key=lambda item: int(item[0]))}
    priority_to_pg = {int(p): int(pg) for p, pg in first("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP").items()}
    # SONiC pauses per priority; our maps keep priority == traffic class (compiler.structured.qos_policy).
    qos["tc_to_priority"] = {tc: int(tc) for tc in qos["tc_to_queue"]}
    qos["trust"] = "dscp" if qos["dscp_to_tc"] else None
    watchdog_rows = db.get("PFC_WD") or {}
    watchdog = next((row for key, row in watchdog_rows.items() if key != "GLOBAL"), None)
    if watchdog:
        qos["pfc_watchdog"] = {"enabled": True, "detect_ms": int(watchdog["detection_time"]),
                               "restore_ms": int(watchdog["restoration_time"]), "action": watchdog["action"]}
    schedulers = db.get("SCHEDULER") or {}
    wred = db.get("WRED_PROFILE") or {}
    profiles = db.get("BUFFER_PROFILE") or {}
    queues: dict[str, dict[str, dict]] = {}
    for key, row in (db.get("QUEUE") or {}).items():
        port, _, queue = _key_parts(key)
        queues.setdefault(port, {})[queue] = row
    buffer_model = ((db.get("DEVICE_METADATA") or {}).get("localhost") or {}).get("buffer_model")
    pgs: dict[str, dict[int, str]] = {}
    for key, row in (db.get("BUFFER_PG") or {}).items():
        ports, _, groups = _key_parts(key)
        # A key names one priority group or a range (``Ethernet0|3-4``, sonic-buffer-pg.yang), for one port or a
        # comma list of ports (minigraph-era config_db).
        for port in ports.split(","):
            for priority_group in _queue_range(groups):
                pgs.setdefault(port, {})[int(priority_group)] = _reference(row.get("profile", ""))
    for name, binding in port_maps.items():
        interface = interfaces.get(name)
        if interface is None:
            continue
        port_qos = empty_port_qos()
        port_qos["trust"] = "dscp" if binding.get("dscp_to_tc_map") else None
        port_qos["pfc_priorities"] = _ints(binding.get("pfc_enable", ""))
        port_qos["pfc_watchdog"] = bool(_ints(binding.get("pfcwd_sw_enable", ""))) and name in watchdog_rows
        for queue, row in queues.get(name, {}).items():
            for single in _queue_range(queue):
                scheduler = schedulers.get(_reference(row.get("scheduler", ""))) or {}
                if scheduler:
                    mode = "strict" if scheduler.get("type") == "STRICT" else "dwrr"
                    entry = {"mode": mode} if mode == "strict" else {"mode": mode,
                                                                      "weight_percent": int(scheduler["weight"])}
                    qos["scheduling"].setdefault(single, entry)
                profile = wred.get(_reference(row.get("wred_profile", "")))
                if profile and profile.get("ecn", "ecn_none") != "ecn_none":
                    port_qos["ecn"][single] = {"min_bytes": int(profile["green_min_threshold"]),
                                               "max_bytes": int(profile["green_max_threshold"]),
                                               "probability": int(profile["green_drop_probability"])}
        for priority in port_qos["pfc_priorities"]:
            group = priority_to_pg.get(priority)
            if group is None:  # no PFC priority map: SONiC pauses priority == TC, whose group TC_TO_PRIORITY_GROUP_MAP names
                group = qos["tc_to_priority_group"].get(str(priority))
            if group is not None and group not in pgs.get(name, {}) and buffer_model in ("traditional", "dynamic"):
                # No row for this lossless group: SONiC's buffer manager creates it when the port comes up, from the
                # port speed and CABLE_LENGTH (sonic-swss cfgmgr/buffermgr: traditional lookup table, or the dynamic
                # headroom calculation); the size is not in this file, so nothing can be judged against it.
                port_qos.setdefault("headroom_at_runtime", []).append(priority)
                continue
            profile = profiles.get(pgs.get(name, {}).get(group, "")) if group is not None else None
            if profile and "xoff" in profile:
                port_qos["headroom"][str(priority)] = {
                    "xoff_bytes": int(profile["xoff"]), "xon_bytes": int(profile.get("xon", 0)),
                    "size_bytes": int(profile.get("size", 0)),
                    "policy": "dynamic" if "dynamic_th" in profile else "static"}
        interface["qos"] = port_qos
        locations[f"interface {name} qos"] = (CONFIG_DB, lines.get(f"PORT_QOS_MAP|{name}", 0))
        if f"PORT_QOS_MAP|{name}|pfc_enable" in lines:
            locations[f"interface {name} pfc"] = (CONFIG_DB, lines[f"PORT_QOS_MAP|{name}|pfc_enable"])
        for _queue, row in sorted(queues.get(name, {}).items()):
            profile_name = _reference(row.get("wred_profile", ""))
            if profile_name and f"WRED_PROFILE|{profile_name}|green_min_threshold" in lines:
                # The thresholds of the port's (first) marking queue: what an ECN finding about the port cites.
                locations.setdefault(f"interface {name} ecn",
                                     (CONFIG_DB, lines[f"WRED_PROFILE|{profile_name}|green_min_threshold"]))
    qos["lossless_priorities"] = sorted({p for i in interfaces.values() if i["qos"] for p in i["qos"]["pfc_priorities"]})
    for interface in interfaces.values():
        for queue, ecn in (interface["qos"] or {}).get("ecn", {}).items():
            qos["_ecn_by_queue"].setdefault(queue, ecn)
    locations.setdefault("qos", (CONFIG_DB, lines.get("DSCP_TO_TC_MAP", 0)))
    dscp_map = next(iter(db.get("DSCP_TO_TC_MAP") or {}), None)
    for dscp in qos["dscp_to_tc"]:
        line = lines.get(f"DSCP_TO_TC_MAP|{dscp_map}|{dscp}")
        if line:
            locations[f"qos dscp {dscp}"] = (CONFIG_DB, line)
    structured["qos"] = finish_qos(qos)


def _reference(value: str) -> str:
    """A row's reference to another table's row: ``AZURE_LOSSLESS``, or the older ``[WRED_PROFILE|AZURE_LOSSLESS]``
    form minigraph-generated configs still carry (SONiC config_db reference syntax before the YANG models; the
    sonic-mgmt VOQ testbed writes every scheduler, WRED and buffer profile reference so)."""
    value = str(value).strip()
    if value.startswith("[") and value.endswith("]") and "|" in value:
        return value[1:-1].split("|", 1)[1]
    return value


def _queue_range(queue: str) -> list[str]:
    low, _, high = queue.partition("-")
    return [str(q) for q in range(int(low), int(high or low) + 1)] if low.isdigit() else []


def _key_parts(key: str) -> tuple[str, str, str]:
    """A CONFIG_DB key ``NAME|rest`` split at its first ``|``; blanks around the key dropped (sonic-mgmt's testbed
    configs carry ``"Ethernet112|fc00::71/126 "``: read as the prefix without the blank)."""
    return key.strip().partition("|")


def _read_management(db: dict, structured: dict) -> None:
    rows = db.get("MGMT_INTERFACE") or {}
    if not rows:
        return
    key, row = next(iter(rows.items()))
    name, _, address = _key_parts(key)
    enabled = ((db.get("MGMT_VRF_CONFIG") or {}).get("vrf_global") or {}).get("mgmtVrfEnabled") == "true"
    structured["management"] = {
        "interface": name, "vrf": "mgmt" if enabled else "default", "address": address or None,
        "gateway": row.get("gwaddr"),
        "ntp_servers": sorted(db.get("NTP_SERVER") or {}), "syslog_servers": sorted(db.get("SYSLOG_SERVER") or {}),
        "dns_servers": sorted(db.get("DNS_NAMESERVER") or {}), "aaa": None,
    }


def _address_row(interface: dict, address: str) -> bool:
    """An INTERFACE ``name|address`` row onto the port: its IPv4 address, or its IPv6 one (``ipv6``); False when
    the port already has one of that family (a second address is not modelled)."""
    if ":" in address:
        if interface.get("ipv6"):
            return False
        interface["ipv6"] = ipv6_interface_text(address)
    elif interface["ip"]:
        return False
    else:
        interface["ip"] = address
    return True


def _bgp_tables(db: dict, structured: dict, locations: dict, unmodelled: list, lines: dict[str, int]) -> None:
    """BGP_NEIGHBOR (sonic-bgp-neighbor.yang: key ``[vrf|]address``; ``asn``, ``name``, ``admin_status``,
    ``rrclient``, ``local_addr``, ``holdtime``, ``keepalive``, ``nhopself``) and BGP_PEER_RANGE (dynamic neighbors:
    ``ip_range`` list, optional ``peer_asn``), as bgpcfgd turns them into bgpd configuration: a neighbor in the
    address family of its address, shut when ``admin_status`` is down. DEVICE_METADATA's ``bgp_asn`` is the ASN
    when frr.conf does not state one; the router ID is ``bgp_router_id``, else Loopback0's address (bgpcfgd)."""
    bgp = structured["bgp"]
    metadata: dict[str, Any] = (db.get("DEVICE_METADATA") or {}).get("localhost") or {}
    # BGP_INTERNAL_NEIGHBOR: a VOQ chassis' iBGP between its linecards' ASICs (sonic-bgp-internal-neighbor.yang),
    # the same row shape as BGP_NEIGHBOR.
    neighbors_table = {**(db.get("BGP_NEIGHBOR") or {}), **(db.get("BGP_INTERNAL_NEIGHBOR") or {})}
    ranges = db.get("BGP_PEER_RANGE") or {}
    if not (neighbors_table or ranges):
        return
    if bgp["asn"] is None and metadata.get("bgp_asn"):
        bgp["asn"] = structured["asn"] = parse_asn(str(metadata["bgp_asn"]))
    if bgp["router_id"] is None:
        loopback0 = next((lb["ip"] for lb in structured["loopbacks"] if lb["name"] == "Loopback0"), None)
        bgp["router_id"] = structured["router_id"] = metadata.get("bgp_router_id") or (
            loopback0.split("/")[0] if loopback0 else None)
    stated = {entry["address"] for entry in bgp["neighbors"] if entry["address"]}
    internal = db.get("BGP_INTERNAL_NEIGHBOR") or {}
    for key, row in neighbors_table.items():
        table = "BGP_INTERNAL_NEIGHBOR" if key in internal else "BGP_NEIGHBOR"
        vrf, _, address_text = key.rpartition("|")
        address = ip_address_text(address_text)
        if address is None or vrf not in ("", "default") or not row.get("asn"):
            unmodelled.append(Unmodelled(CONFIG_DB, lines.get(f"{table}|{key}", 0), f"{table}|{key}"))
            continue
        locations.setdefault(f"bgp neighbor {address}", (CONFIG_DB, lines.get(f"{table}|{key}", 0)))
        locations.setdefault(f"bgp neighbor {address} remote-as",
                             (CONFIG_DB, lines.get(f"{table}|{key}|asn") or lines.get(f"{table}|{key}", 0)))
        locations.setdefault("bgp", (CONFIG_DB, lines.get("BGP_NEIGHBOR", 0)))
        if address in stated:
            continue
        entry: dict[str, Any] = {
            "address": address, "interface": None, "remote_as": parse_asn(str(row["asn"])), "peer_device": None,
            "peer_interface": None, "peer_group": None,
            "address_families": ["ipv6_unicast" if ":" in address else "ipv4_unicast"],
            "description": row.get("name", "")}
        if row.get("admin_status") == "down":
            entry["shutdown"] = True
        if str(row.get("rrclient", "0")) == "1":
            entry["route_reflector_client"] = True
        bgp["neighbors"].append(entry)
    listen = []
    for name, row in ranges.items():
        prefixes = row.get("ip_range") or []
        prefixes = [prefixes] if isinstance(prefixes, str) else list(prefixes)
        entry = {"name": row.get("name", name), "prefixes": prefixes,
                 "remote_as": parse_asn(str(row["peer_asn"])) if row.get("peer_asn") else "external"}
        listen.append(entry)
        locations.setdefault(f"bgp listen {entry['name']}", (CONFIG_DB, lines.get(f"BGP_PEER_RANGE|{name}", 0)))
    if listen:
        bgp["listen_ranges"] = listen
