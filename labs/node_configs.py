"""A switch's own config -> the twin node that runs it, and what of that config the twin exercises live.

- **EOS**: the ``startup-config`` is parsed (:mod:`compiler.parse.eos`) into the structured config, and the
  node's ``frr.conf`` + Linux plan are rendered from *that* by the one FRR renderer (:mod:`compiler.render.frr`).
  A fault that exists only in the EOS text (a missing ``neighbor``, a wrong ``vxlan vlan … vni``, a wrong port
  ``mtu``) is therefore what the twin runs.
- **SONiC**: the switch's own ``frr.conf`` runs as is (SONiC port names ``Ethernet0`` and VRF names
  ``Vrf_<name>``, as on the switch); the Linux side comes from parsing ``config_db.json`` alone
  (:mod:`compiler.parse.sonic`) and rendering the same Linux plan with SONiC's port and VRF names, so a fault in
  ``PORT|…mtu``, ``VLAN_MEMBER`` or ``VXLAN_TUNNEL_MAP`` is what the twin builds.
- **FRR**: its ``frr.conf`` and ``linux-plan.json`` as rendered.

Two numbers the vendor texts do not state are the twin's own: the Linux routing table of a tenant VRF and, for
EOS (which binds an L3VNI without a VLAN), the transit VLAN of the VRF's L3VNI bridge. Both come from the
device's intended structured config for the VRF of that name (:func:`compiler.allocate.linux_vrf_table`,
:func:`compiler.allocate.transit_vlan`), else the next free number.

:func:`exercised` says per device what the parse carried and what of it runs live in the twin versus what stays
static-only (checked by the static validators only), plus every line/key not modelled; it is computed from the
parsed structured config and the files' own tables, never a fixed sentence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import cast

from compiler.allocate import VRF_TABLE_BASE
from compiler.errors import TwinError
from compiler.model import Platform
from compiler.parse import ParsedDevice, ParseError, parse_device
from compiler.parse import eos as eos_parse
from compiler.parse import sonic as sonic_parse
from compiler.parse.frr import strip_vrf_prefix
from compiler.render.frr import linux_ifname, linux_plan, plan_json, render_frr_conf, twin_ifname
from compiler.render.sonic import sonic_structured
from compiler.structured.contract import StructuredConfig

from .runtime.frr_files import FPM_LINE
from .topology import TwinNode

# CONFIG_DB tables the twin's Linux plan is built from (sonic-port, sonic-interface, sonic-loopback-interface,
# sonic-vlan, sonic-vrf, sonic-vxlan YANG models): their rows become veth MTUs, addresses, bridges, VXLAN
# devices and VRFs. From PORT only the mtu reaches a veth (a port in no VLAN and not routed is not created; its
# speed, lanes, fec and admin status have no veth equivalent and are static-only).
LIVE_SONIC_TABLES = ("PORT", "INTERFACE", "LOOPBACK_INTERFACE", "VLAN", "VLAN_MEMBER", "VLAN_INTERFACE", "VRF",
                     "VXLAN_TUNNEL", "VXLAN_TUNNEL_MAP")
PORT_STATIC_FIELDS = ("admin_status", "speed", "lanes", "fec", "autoneg")
MAX_VLAN_ID = 4094  # IEEE 802.1Q: VLAN IDs 1..4094
RESERVED_LINUX_TABLES = (253, 254, 255)  # default, main, local (iproute2 rt_tables)
# The Linux plan's RoCE QoS is the FRR/Linux translation (dcb/tc) of a QoS policy, static-only on the twin (veths
# have no DCB, labs/ never applies it); an EOS or SONiC switch's QoS is its own text (checked by the static
# validators; EOS does not even state headroom sizes), so their nodes' plans carry no such translation, and the
# twin's change driver compares plans without it (changes.drivers.twin.normalize_plan).
STATIC_PLAN_KEYS = ("roce_qos", "roce_qos_ports")
UNMODELLED_SHOWN = 20  # the report lists this many unmodelled lines per device, then a count


@dataclass(frozen=True, slots=True)
class NodeConfig:
    """A switch node for the twin and the account of its config: ``summary`` goes into the twin report."""

    node: TwinNode
    summary: dict = field(default_factory=dict)
    limitations: tuple[str, ...] = ()


def node_from_own_config(*, hostname: str, role: str, platform: str, files: dict[str, str],
                         intended: dict | None) -> NodeConfig:
    """The twin node that runs ``files`` (the device's own rendering for ``platform``)."""
    try:
        if platform == Platform.EOS:
            return _eos_node(hostname=hostname, role=role, files=files, intended=intended)
        if platform == Platform.SONIC:
            return _sonic_node(hostname=hostname, role=role, files=files, intended=intended)
    except ParseError as error:
        raise TwinError(f"{hostname}: its {platform} config cannot be parsed for the twin: {error}") from error
    except (KeyError, TypeError, ValueError) as error:
        # A parsed config missing something the FRR renderer needs (a foreign config without a router ID...).
        raise TwinError(f"{hostname}: its {platform} config lacks what the twin needs to run it "
                        f"({type(error).__name__}: {error})") from error
    if platform == Platform.FRR:
        plan = json.loads(files["linux-plan.json"])
        summary = {"platform": "frr", "boots_from": "frr.conf + linux-plan.json as rendered",
                   "live": ["frr.conf: run as is", "linux-plan.json: links, loopbacks, bridges, VXLAN, VRFs"],
                   "static_only": ["linux-plan.json: " + key for key in ("roce_qos", "management") if key in plan],
                   "unmodelled": [], "unmodelled_count": 0}
        return NodeConfig(TwinNode(name=hostname, frr_conf=files["frr.conf"], linux_plan=plan, role=role),
                          summary)
    raise TwinError(f"{hostname}: platform={platform!r}: the twin runs eos, sonic or frr configs")


def _eos_node(*, hostname: str, role: str, files: dict[str, str], intended: dict | None) -> NodeConfig:
    parsed = parse_device(files, platform="eos", hostname_hint=hostname)
    structured = parsed.structured
    notes = _twin_vrf_numbers(structured, intended, hostname, transit_from_intent=True)
    plan = linux_plan(cast(StructuredConfig, structured))  # a parsed config has the structured config's shape
    for key in STATIC_PLAN_KEYS:
        plan.pop(key, None)
    node = TwinNode(name=hostname, frr_conf=render_frr_conf(cast(StructuredConfig, structured), linux_ifname), linux_plan=plan, role=role)
    summary = {"platform": "eos", "boots_from": f"{eos_parse.FILE} parsed, frr.conf + Linux plan rendered from it",
               "live": _live_parts(structured), "static_only": _static_parts(structured),
               "unmodelled": _unmodelled(parsed), "unmodelled_count": len(parsed.unmodelled)}
    return NodeConfig(node, summary, tuple(notes))


def _sonic_node(*, hostname: str, role: str, files: dict[str, str], intended: dict | None) -> NodeConfig:
    config_db_name = next((name for name, text in files.items() if text.lstrip().startswith("{")), None)
    frr_name = next((name for name, text in files.items() if not text.lstrip().startswith("{")), None)
    if config_db_name is None or frr_name is None:
        raise TwinError(f"{hostname}: a SONiC switch needs {sonic_parse.CONFIG_DB} and {sonic_parse.FRR_CONF} "
                        f"(got {', '.join(sorted(files)) or 'none'})")
    # The Linux side from CONFIG_DB alone: frr.conf is what FRR runs, not an input of the kernel plan.
    linux_side = parse_device({config_db_name: files[config_db_name]}, platform="sonic", hostname_hint=hostname)
    structured = linux_side.structured
    notes = _twin_vrf_numbers(structured, intended, hostname, transit_from_intent=False)
    plan = linux_plan(sonic_structured(cast(StructuredConfig, structured)), _sonic_port_name)
    for key in STATIC_PLAN_KEYS:
        plan.pop(key, None)
    full = parse_device(files, platform="sonic", hostname_hint=hostname)  # for the report: every file's lines
    frr_conf = files[frr_name]
    tables = json.loads(files[config_db_name])
    lines = sum(1 for line in frr_conf.splitlines() if line.strip() and not line.lstrip().startswith("!"))
    live = [f"{sonic_parse.FRR_CONF}: run as is ({lines} lines)"]
    # SONiC's FPM lines: the twin runs frr.conf without them (labs.runtime.frr_files.FPM_LINE: no fpmsyncd)
    fpm = [line for line in frr_conf.splitlines() if FPM_LINE.match(line)]
    static_only = [f"{sonic_parse.FRR_CONF}: {'; '.join(fpm)} (no fpmsyncd in the twin)"] if fpm else []
    for table in sorted(tables):
        rows = len(tables[table]) if isinstance(tables[table], dict) else 0
        if table in LIVE_SONIC_TABLES:
            live.append(f"{table} ({rows})" + (": mtu" if table == "PORT" else ""))
        else:
            static_only.append(f"{table} ({rows})")
    port_static = sorted({key for row in (tables.get("PORT") or {}).values() if isinstance(row, dict)
                          for key in row if key in PORT_STATIC_FIELDS})
    if port_static:
        static_only.insert(0, f"PORT: {', '.join(port_static)}")
    summary = {"platform": "sonic", "boots_from": f"{frr_name} as is + Linux plan from {config_db_name}",
               "live": live, "static_only": static_only, "unmodelled": _unmodelled(full),
               "unmodelled_count": len(full.unmodelled)}
    return NodeConfig(TwinNode(name=hostname, frr_conf=frr_conf, linux_plan=plan, role=role), summary, tuple(notes))


def twin_node_files(*, hostname: str, role: str, platform: str, files: dict[str, str], intended: dict | None
                    ) -> dict[str, str]:
    """What the twin runs for a device's own files, as the twin's two files (``frr.conf`` + ``linux-plan.json``):
    what a twin change set pushes, so the twin keeps running each switch's own config after a rollout."""
    if platform == Platform.FRR:
        return dict(files)
    node = node_from_own_config(hostname=hostname, role=role, platform=platform, files=files,
                                intended=intended).node
    return {"frr.conf": node.frr_conf, "linux-plan.json": plan_json(node.linux_plan)}


def _sonic_port_name(name: str) -> str:
    return twin_ifname(name, Platform.SONIC)


def _twin_vrf_numbers(structured: dict, intended: dict | None, hostname: str, *, transit_from_intent: bool
                      ) -> list[str]:
    """Fill ``linux_table`` (and, for EOS or when the text has none, ``transit_vlan``) of every VRF: the intended
    structured config's numbers for the VRF of that name (compiler.allocate derives them from the L3VNI); a VRF
    the intent does not have, or a number already taken, gets the next free one and says so."""
    notes: list[str] = []
    planned = {strip_vrf_prefix(vrf["name"]): vrf for vrf in (intended or {}).get("vrfs") or []}
    used_vlans = {vlan["id"] for vlan in structured["vlans"]}
    used_tables: set[int] = set(RESERVED_LINUX_TABLES)
    for vrf in structured["vrfs"]:
        if vrf.get("l3vni") is None:
            raise TwinError(f"{hostname}: vrfs[{vrf['name']}].l3vni=None: the config gives the VRF no L3VNI, and the "
                            "twin builds a tenant VRF around its L3VNI")
        plan = planned.get(strip_vrf_prefix(vrf["name"])) or {}
        if transit_from_intent or vrf.get("transit_vlan") is None:
            vlan = plan.get("transit_vlan")
            if vlan is None or vlan in used_vlans:
                vlan = next(v for v in range(MAX_VLAN_ID, 0, -1) if v not in used_vlans)
                notes.append(f"{hostname}: VRF {vrf['name']}: transit VLAN {vlan} of its L3VNI bridge chosen by the "
                             "twin (the intent has no free one for this VRF)")
            vrf["transit_vlan"] = vlan
        used_vlans.add(vrf["transit_vlan"])
        table = plan.get("linux_table")
        if table is None or table in used_tables:
            table = max(used_tables | {VRF_TABLE_BASE + MAX_VLAN_ID}) + 1
        used_tables.add(table)
        vrf["linux_table"] = table
    return notes


def _count(items, what: str) -> str:
    return f"{len(items)} {what}"


def _live_parts(structured: dict) -> list[str]:
    """What of a parsed EOS config reaches the twin's frr.conf or Linux plan."""
    bgp = structured["bgp"]
    ports = [item for item in structured["interfaces"] if item["kind"] != "unused"]
    parts = []
    if bgp["asn"] is not None:
        detail = [_count(bgp["neighbors"], "neighbors"), _count(bgp["peer_groups"], "peer groups")]
        if bgp["evpn"]["enabled"]:
            detail.append("EVPN")
        if bgp["vrfs"]:
            detail.append(_count(bgp["vrfs"], "VRFs"))
        if bgp.get("route_maps"):
            detail.append(_count(bgp["route_maps"], "route maps"))
        parts.append(f"router bgp {bgp['asn']} ({', '.join(detail)})")
    if ports:
        parts.append(f"interfaces: {len(ports)} ports (addresses, MTU)")
    if structured["loopbacks"]:
        parts.append(_count(structured["loopbacks"], "loopbacks"))
    if structured["vlans"]:
        svis = sum(1 for vlan in structured["vlans"] if vlan["svi"])
        with_vni = sum(1 for vlan in structured["vlans"] if vlan["vni"] is not None)
        parts.append(f"vlan/vni: {len(structured['vlans'])} VLANs ({with_vni} with a VNI, {svis} SVIs)")
    if structured["vrfs"]:
        vrfs = ", ".join(f"{vrf['name']} {vrf['l3vni']}" for vrf in structured["vrfs"])
        parts.append(f"vrf/l3vni: {vrfs}")
    if structured["vxlan"]:
        parts.append(f"vxlan: VTEP {structured['vxlan']['vtep_ip']}, UDP {structured['vxlan']['udp_port']}")
    return parts


def _static_parts(structured: dict) -> list[str]:
    """What a parsed EOS config states that the twin cannot run (veths have no speed, PFC, ECN, management)."""
    interfaces = structured["interfaces"]
    parts = []
    speeds = [item for item in interfaces if item.get("speed_gbps")]
    if speeds:
        parts.append(f"interface speed/lanes ({len(speeds)} ports)")
    unused = [item for item in interfaces if item["kind"] == "unused"]
    if unused:
        parts.append(f"unused ports ({len(unused)}: not created in the twin)")
    qos = structured.get("qos") or {}
    if qos.get("dscp_to_tc"):
        parts.append(f"qos maps ({len(qos['dscp_to_tc'])} DSCP values, {len(qos.get('classes') or [])} classes)")
    port_qos = [item.get("qos") or {} for item in interfaces]
    for key, label in (("pfc_priorities", "priority-flow-control"), ("ecn", "ECN (random-detect)"),
                       ("trust", "qos trust")):
        count = sum(1 for entry in port_qos if entry.get(key))
        if count:
            parts.append(f"{label} ({count} ports)")
    if (qos.get("pfc_watchdog") or {}).get("enabled"):
        parts.append("priority-flow-control watchdog")
    if qos.get("scheduling"):
        parts.append(f"queue scheduling ({len(qos['scheduling'])} queues)")
    management = structured.get("management") or {}
    if management:
        services = [name for name, key in (("ntp", "ntp_servers"), ("syslog", "syslog_servers"),
                                           ("dns", "dns_servers")) if management.get(key)]
        parts.append("management " + "/".join(["interface", *services]))
        if management.get("aaa"):
            parts.append("aaa (TACACS+)")
    return parts


def _unmodelled(parsed: ParsedDevice) -> list[str]:
    """The lines/keys no parser modelled (neither live nor checked), first ones by file:line."""
    return [str(item) for item in parsed.unmodelled[:UNMODELLED_SHOWN]]


def summary_text(hostname: str, summary: dict) -> str:
    """One line per device for reports: what it boots from, what is live, what is static-only."""
    text = (f"{hostname} ({summary['platform']}): {summary['boots_from']}; live: "
            f"{'; '.join(summary['live']) or 'nothing'}; static-only: {'; '.join(summary['static_only']) or 'nothing'}")
    if summary.get("unmodelled_count"):
        first = "; ".join(summary["unmodelled"][:3])
        text += f"; not modelled: {summary['unmodelled_count']} lines/keys ({first})"
    return text
