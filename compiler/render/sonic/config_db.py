"""SONiC ``config_db.json`` tables built from one device's structured config (docs/structured-config.md).

One builder per table group; each names the SONiC YANG model it follows (sonic-net/sonic-buildimage,
``src/sonic-yang-models/yang-models/``). Every value is a string, as CONFIG_DB stores them. Keys use SONiC's
``|`` separator exactly as the YANG list keys define them ("Ethernet0|10.1.0.1/31", "Vlan10|Ethernet16",
"Ethernet0|3"). Fabric policy is not decided here: values are copied or reformatted from the structured config
and the model's platform data (compiler/platforms: lanes, aliases, breakout modes, HWSKU). The SONiC-only choices
made here are named and documented where they are made (buffer model per ASIC, pool sizes of the traditional
model, scheduler weights with CNP strict), and anything SONiC cannot express raises
:class:`compiler.errors.RenderError` naming the field and value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from compiler import platforms
from compiler.catalog import SWITCH_MODELS
from compiler.errors import PlatformDataError, RenderError
from compiler.names import LINUX_IFNAME_MAX
from compiler.secret_refs import placeholder as secret_placeholder
from compiler.structured.contract import Aaa, EcnThresholds, Headroom, Interface, PortQos, Qos, StructuredConfig

# SONiC names front-panel ports EthernetN (N = first SerDes lane index, from the platform's port_config.ini).
PORT_NAME = re.compile(r"Ethernet[0-9]+")
SONIC_PORT_CHANNEL = re.compile(r"PortChannel[0-9]{1,4}")  # sonic-portchannel.yang PORTCHANNEL_LIST name
# sonic-vlan.yang VLAN_LIST name pattern: Vlan2..Vlan4095; vlanid range 2..4094.
VLAN_ID_RANGE = range(2, 4095)
# sonic-vrf.yang: VRF names must match "Vrf[a-zA-Z0-9_-]+"; they are Linux netdevs, so at most 15 characters.
VRF_NAME = re.compile(r"Vrf[a-zA-Z0-9_-]+")
# sonic-port.yang: mtu range 68..9216.
PORT_MTU_RANGE = range(68, 9217)
# sonic-pfcwd.yang ranges (milliseconds).
PFCWD_DETECTION_MS = range(100, 5001)
PFCWD_RESTORATION_MS = range(100, 60001)
PFCWD_ACTIONS = ("drop", "forward", "alert")
# SONiC's conventional name for the device-wide QoS maps (used by its own qos/buffer templates).
QOS_MAP_NAME = "AZURE"
# SONiC programs VXLAN on the IANA port; CONFIG_DB has no per-tunnel UDP port (RFC 7348 section 5: 4789).
VXLAN_UDP_PORT = 4789
VXLAN_TUNNEL_NAME = "vtep"
EVPN_NVO_NAME = "nvo"
# IEEE 802.3bs/cd: 200G and 400G (and faster) PAM4 Ethernet PHYs mandate RS(544,514) FEC. Below 200G the FEC
# depends on the optic (e.g. 100G-LR4 runs without FEC), so the platform default is kept.
RS_FEC_MIN_SPEED_GBPS = 200
# DEVICE_METADATA.type from our role. SONiC's buffer templates pick T0 (server-facing) or T1 profiles from this.
DEVICE_TYPE_BY_ROLE = {
    "leaf": "ToRRouter",
    "border": "ToRRouter",
    "spine": "LeafRouter",
    "super-spine": "SpineRouter",
}
INGRESS_LOSSLESS_POOL = "ingress_lossless_pool"
EGRESS_LOSSLESS_POOL = "egress_lossless_pool"
EGRESS_LOSSY_POOL = "egress_lossy_pool"
INGRESS_LOSSY_PROFILE = "ingress_lossy_profile"
EGRESS_LOSSLESS_PROFILE = "egress_lossless_profile"
EGRESS_LOSSY_PROFILE = "egress_lossy_profile"
# SONiC's management VRF is always the Linux VRF "mgmt" (sonic-mgmt_vrf.yang has only an on/off switch).
SONIC_MANAGEMENT_VRF = "mgmt"
# LOSSLESS_TRAFFIC_PATTERN (dynamic buffer model design, SONiC doc/qos/dynamically-headroom-calculation.md):
# the packet size and small-packet share the buffer manager assumes for PGs WITHOUT a headroom override. Every
# lossless PG we render carries an override from our cable-length math, so these are SONiC's defaults.
LOSSLESS_PATTERN_MTU, LOSSLESS_PATTERN_SMALL_PACKET_PERCENT = "1024", "100"
# DEFAULT_LOSSLESS_BUFFER_PARAMETER.default_dynamic_th: alpha 2^0 for lossless PGs (SONiC's default).
DEFAULT_LOSSLESS_DYNAMIC_TH = "0"
# Lossy traffic: alpha 2^3 (ingress PG 0, egress lossy queues), SONiC's buffers_defaults templates.
LOSSY_DYNAMIC_TH = "3"
# PFC watchdog poll interval (ms): SONiC's default; it must not exceed any port's detection time.
PFCWD_POLL_INTERVAL_MS = 200
TACPLUS_MAX_SERVERS = 8  # sonic-system-tacacs.yang TACPLUS_SERVER_LIST max-elements
TACACS_PORT = "49"  # RFC 8907 section 4 (TACACS+ over TCP port 49)
SCHEDULER_STRICT = "scheduler.strict"
# SONiC names its management port eth0 on every platform unless platform data says otherwise (sonic-buildimage
# src/sonic-yang-models/doc/Configuration.md, MGMT_PORT): the port of a model without platform data.
UNKNOWN_PLATFORM_MANAGEMENT_PORT = "eth0"
SCHEDULER_DWRR_PREFIX = "scheduler.dwrr_"  # + the weight: one scheduler per distinct weight in qos.scheduling


def _text(value: object) -> str | None:
    """A CONFIG_DB value as text; None stays None (a parsed config that did not state it): the field is left out."""
    return None if value is None else str(value)


def sonic_vrf_name(name: str) -> str:
    """SONiC VRF name for a structured-config VRF: ``TENANT_A`` -> ``Vrf_TENANT_A`` (YANG requires the prefix)."""
    sonic_name = name if name.startswith("Vrf") else f"Vrf_{name}"
    if not VRF_NAME.fullmatch(sonic_name) or len(sonic_name) > LINUX_IFNAME_MAX:
        raise RenderError(
            f"vrfs[{name}].name={name!r}: SONiC VRF {sonic_name!r} must match Vrf[a-zA-Z0-9_-]+ and be at most "
            f"{LINUX_IFNAME_MAX} characters (a Linux netdev)"
        )
    return sonic_name


def build_config_db(structured: StructuredConfig) -> dict[str, dict]:
    """All CONFIG_DB tables for one device, ready for ``json.dumps(sort_keys=True)``."""
    _check_port_names(structured)
    sonic = _sonic_platform(structured)
    tables: dict[str, dict] = {}
    tables.update(device_metadata_tables(structured, sonic))
    tables.update(management_tables(structured, sonic))
    tables.update(port_tables(structured, sonic))
    tables.update(routed_interface_tables(structured))
    tables.update(vlan_tables(structured))
    bundle_tables = port_channel_tables(structured)
    tables["VLAN_MEMBER"].update(bundle_tables.pop("VLAN_MEMBER"))  # a switched bundle is a VLAN member too
    tables.update(bundle_tables)
    tables.update(vxlan_tables(structured))
    tables.update(qos_tables(structured))
    tables.update(system_port_tables(structured))
    tables.update(hash_tables(structured))
    return {name: table for name, table in tables.items() if table}


def hash_tables(structured: StructuredConfig) -> dict:
    """SWITCH_HASH|GLOBAL (sonic-hash.yang, SONiC's Generic Hash): the ECMP hash function of this switch's tier and
    the fields it reads, where the intent asks for distinct functions per tier (compiler.structured.ecmp_hashing)."""
    load_balance = structured.get("load_balance")
    if load_balance is not None and load_balance["ecmp_hash_seed"] is not None:
        raise RenderError(f"{structured['hostname']}: load_balance.ecmp_hash_seed={load_balance['ecmp_hash_seed']!r}: "
                          "no CONFIG_DB table in SONiC's YANG holds an ECMP hash seed (compiler.hardware."
                          "HASHING_CAPABILITIES)")
    if not load_balance or load_balance["ecmp_hash_function"] is None:
        return {}
    return {"SWITCH_HASH": {"GLOBAL": {"ecmp_hash": list(load_balance["ecmp_hash_fields"] or []),
                                       "ecmp_hash_algorithm": load_balance["ecmp_hash_function"]}}}


def system_port_tables(structured: StructuredConfig) -> dict:
    """SYSTEM_PORT of a VOQ chassis (parsed foreign configs only: ``system_ports``), keyed ``Linecard|Asic|Port``."""
    ports = structured.get("system_ports") or []
    if not ports:
        return {}
    return {"SYSTEM_PORT": {f"{port['linecard']}|{port['asic']}|{port['port']}": {
        "system_port_id": str(port["system_port_id"]), "switch_id": str(port["switch_id"]),
        "core_index": str(port["core_index"]), "core_port_index": str(port["core_port_index"]),
        "speed": str(port["speed_mbps"])} for port in ports}}


def _check_port_names(structured: StructuredConfig) -> None:
    for interface in structured["interfaces"]:
        if not PORT_NAME.fullmatch(interface["name"]):
            raise RenderError(
                f"{structured['hostname']}: interfaces[].name={interface['name']!r}: SONiC front-panel ports are "
                "named EthernetN (N = first lane index, e.g. Ethernet0, Ethernet8)"
            )


def _sonic_platform(structured: StructuredConfig) -> platforms.SonicPlatform | None:
    """The model's SONiC platform data; None when the model is unknown (a parsed config whose HWSKU is not in
    compiler/platforms): rendered without the port map, the buffer pools and HWSKU (sonic/__init__ says so)."""
    model = structured.get("model")
    if model is None:
        return None
    try:
        return platforms.sonic_platform(model)
    except PlatformDataError as exc:
        raise RenderError(f"{structured['hostname']}: model={model!r}: {exc}") from exc


# DEVICE_METADATA.localhost.docker_routing_config_mode (sonic-device_metadata.yang: separated | unified | split |
# split-unified). Only split-unified runs FRR from one frr.conf that is not generated from CONFIG_DB: the bgp
# container's docker_init.sh (sonic-net/sonic-buildimage dockers/docker-fpm-frr/docker_init.sh at 086b03bd70f9)
# keeps /etc/frr/frr.conf and writes "service integrated-vtysh-config"; separated/unified generate FRR's config from
# CONFIG_DB (bgpcfgd / frrcfgd) and split keeps per-daemon files and deletes frr.conf. Not SONiC's default: the
# YANG model's default is "unified" and docker_init.sh treats an absent mode as "separated", so we always write it.
ROUTING_CONFIG_MODE = "split-unified"


def device_metadata_tables(structured: StructuredConfig, sonic: platforms.SonicPlatform | None) -> dict:
    """DEVICE_METADATA (sonic-device_metadata.yang) and DEVICE_NEIGHBOR (sonic-device_neighbor.yang).

    ``docker_routing_config_mode`` is ``split-unified``: FRR runs from our single frr.conf and nothing in CONFIG_DB
    is turned into FRR config, so BGP_NEIGHBOR/BGP_GLOBALS are deliberately absent (they would compete with it).
    """
    role = structured["role"]
    if role is not None and role not in DEVICE_TYPE_BY_ROLE:  # None: a parsed config without a device type
        raise RenderError(f"{structured['hostname']}: role={role!r}: expected one of {sorted(DEVICE_TYPE_BY_ROLE)}")
    localhost: dict[str, object] = {
        "hostname": structured["hostname"],
        "bgp_asn": _text(structured["bgp"]["asn"]),
        "bgp_router_id": structured["bgp"]["router_id"],
        "docker_routing_config_mode": ROUTING_CONFIG_MODE,
        "type": DEVICE_TYPE_BY_ROLE.get(role or ""),
        # The switch's own base MAC, only when the inventory knows it (None is left out below): SONiC takes it
        # from the EEPROM at first boot, and a MAC we made up would replace it (the pre-push guard refuses; #27).
        "mac": structured["system_mac"],
    }
    localhost = {key: value for key, value in localhost.items() if value is not None}  # unset: left out
    if sonic is not None and sonic.hwsku:
        # Without these SONiC cannot find its port map ("Could not get the HWSKU from config file").
        localhost["hwsku"] = sonic.hwsku
        localhost["platform"] = sonic.platform
    if _has_headroom(structured) and sonic is not None:
        # Lossless PGs carry the headroom the compiler computed in both models; see buffer_model().
        localhost["buffer_model"] = buffer_model(structured)
    neighbors = {
        interface["name"]: {"name": interface["peer_device"], "port": interface["peer_interface"]}
        for interface in structured["interfaces"]
        if interface.get("peer_device") and interface.get("peer_interface")
    }
    return {"DEVICE_METADATA": {"localhost": localhost}, "DEVICE_NEIGHBOR": neighbors}


def management_tables(structured: StructuredConfig, sonic: platforms.SonicPlatform | None) -> dict:
    """MGMT_PORT, MGMT_INTERFACE (sonic-mgmt_port/-interface.yang), MGMT_VRF_CONFIG (sonic-mgmt_vrf.yang),
    NTP, NTP_SERVER (sonic-ntp.yang), SYSLOG_SERVER (sonic-syslog.yang), DNS_NAMESERVER (sonic-dns.yang).

    From the structured ``management`` key. SONiC's management VRF is always named ``mgmt``; when the structured
    config names a VRF, management runs in it and NTP/syslog use it. Without an address the management interface
    is not rendered: the switch keeps the address it booted with (ZTP/DHCP), which the push must then preserve.
    AAA (TACACS+): :func:`aaa_tables`, the shared secret by reference only.
    """
    management = structured.get("management") or {}
    if not management:
        return {}
    port = management.get("interface") or (sonic.management_port if sonic else UNKNOWN_PLATFORM_MANAGEMENT_PORT)
    vrf_enabled = bool(management.get("vrf"))
    tables: dict[str, dict] = {"MGMT_PORT": {port: {"admin_status": "up", "alias": port}}}
    if management.get("address"):
        entry = {"gwaddr": management["gateway"]} if management.get("gateway") else {}
        tables["MGMT_INTERFACE"] = {f"{port}|{management['address']}": entry}
    if vrf_enabled:
        tables["MGMT_VRF_CONFIG"] = {"vrf_global": {"mgmtVrfEnabled": "true"}}
    if management.get("ntp_servers"):
        tables["NTP_SERVER"] = {server: {"association_type": "server", "iburst": "on"}
                                for server in management["ntp_servers"]}
        if vrf_enabled:
            tables["NTP"] = {"global": {"vrf": SONIC_MANAGEMENT_VRF}}
    if management.get("syslog_servers"):
        tables["SYSLOG_SERVER"] = {server: ({"vrf": SONIC_MANAGEMENT_VRF} if vrf_enabled else {})
                                   for server in management["syslog_servers"]}
    if management.get("dns_servers"):
        tables["DNS_NAMESERVER"] = {server: {} for server in management["dns_servers"]}
    if aaa := management.get("aaa"):
        tables.update(aaa_tables(structured["hostname"], aaa, port, vrf_enabled))
    return tables


def aaa_tables(hostname: str, aaa: Aaa, management_port: str, vrf_enabled: bool) -> dict:
    """TACPLUS, TACPLUS_SERVER (sonic-system-tacacs.yang), AAA (sonic-system-aaa.yang).

    TACACS+ servers in the management VRF (the model takes ``mgmt`` or ``default``), the first server tried first
    (``priority`` 1..64, higher first), sourced from the management port. The shared secret is the global
    ``passkey`` - the secret reference's marker (compiler.secret_refs), which the push driver replaces with the
    secret from the credential store; the marker satisfies the passkey pattern ``[^ #,]*`` so the stored config
    is YANG-valid, and ``key_encrypt`` stays false (SONiC would otherwise expect its own encrypted form).
    Login authentication tries TACACS+, then local users (``failthrough``: a server that rejects or is down
    does not lock the operator out; EOS gets the same ``group FT_TACACS local``). Authorization is left to the
    switch's default (local): SONiC's ``AAA|authorization`` is per-command TACACS+ authorization, which EOS's
    ``aaa authorization exec`` is not.
    """
    servers = aaa.get("tacacs_servers") or []
    if not servers or len(servers) > TACPLUS_MAX_SERVERS:
        raise RenderError(f"{hostname}: management.aaa.tacacs_servers={servers!r}: SONiC takes 1..{TACPLUS_MAX_SERVERS} "
                          "TACACS+ servers (sonic-system-tacacs.yang max-elements)")
    try:
        passkey = secret_placeholder(aaa.get("secret_ref") or "")
    except ValueError as exc:
        raise RenderError(f"{hostname}: management.aaa.secret_ref={aaa.get('secret_ref')!r}: {exc}") from None
    vrf = SONIC_MANAGEMENT_VRF if vrf_enabled else "default"
    return {
        "TACPLUS": {"global": {"passkey": passkey, "src_intf": management_port}},
        "TACPLUS_SERVER": {server: {"priority": str(len(servers) - index), "tcp_port": TACACS_PORT, "vrf": vrf}
                           for index, server in enumerate(servers)},
        "AAA": {"authentication": {"login": "tacacs+,local", "failthrough": "True"}},
    }


def port_tables(structured: StructuredConfig, sonic: platforms.SonicPlatform | None) -> dict:
    """PORT (sonic-port.yang) and BREAKOUT_CFG (sonic-breakout_cfg.yang), from the structured interfaces and the
    HWSKU's platform data (compiler/platforms): lanes, alias and index of every port as SONiC itself derives them
    for the port's breakout mode, speed in Mb/s, MTU, admin status, FEC where IEEE mandates it.

    Ports are grouped by their physical (parent) port; the number of sub-ports and their speed select the
    platform.json breakout mode, which goes to BREAKOUT_CFG so dynamic port breakout knows the current mode
    (only on platforms with a platform.json breakout table, like SONiC's own config generation).
    """
    hostname, model = structured["hostname"], structured["model"]
    groups: dict[str, list[Interface]] = {}
    for interface in structured["interfaces"]:
        groups.setdefault(interface.get("breakout_parent") or interface["name"], []).append(interface)
    layout_by_name: dict[str, platforms.SonicLogicalPort] = {}
    breakouts: dict[str, dict] = {}
    for parent, members in groups.items() if sonic is not None else ():  # no port map: no lanes, alias, index
        speed = members[0].get("speed_gbps") or 0
        try:
            mode, logical = platforms.sonic_port_layout(model, parent, len(members), speed)
        except PlatformDataError as exc:
            raise RenderError(f"{hostname}: interfaces[{members[0]['name']}]: {exc}") from exc
        for interface in members:
            found = logical.get(interface["name"])
            if found is None:
                raise RenderError(
                    f"{hostname}: interfaces[{interface['name']}]: not a port of {parent} in breakout mode {mode!r} "
                    f"on {model}; that mode has {', '.join(logical)}"
                )
            layout_by_name[interface["name"]] = found
        if sonic is not None and sonic.breakout_table:
            breakouts[parent] = _share_entry(("brkout_mode", mode))
    ports = {}
    for interface in structured["interfaces"]:
        mtu = interface.get("mtu")
        if mtu is not None and mtu not in PORT_MTU_RANGE:
            raise RenderError(
                f"{structured['hostname']}: interfaces[{interface['name']}].mtu={mtu!r}: SONiC accepts 68..9216"
            )
        port = {"admin_status": "up" if interface["enabled"] else "down"}
        layout = layout_by_name.get(interface["name"])
        if layout is not None:
            port.update({"lanes": _lanes_text(layout.lanes), "alias": layout.alias, "index": str(layout.index)})
        speed_gbps = interface["speed_gbps"]
        if speed_gbps:
            port["speed"] = str(int(speed_gbps * 1000))
            fec = interface.get("fec") or ("rs" if speed_gbps >= RS_FEC_MIN_SPEED_GBPS else None)
            if fec:
                port["fec"] = fec
        if mtu is not None:
            port["mtu"] = str(mtu)
        if interface.get("description"):
            port["description"] = interface["description"][:255]
        ports[interface["name"]] = port
    return {"PORT": ports, "BREAKOUT_CFG": breakouts}


_SHARED_ENTRIES: dict[tuple, dict] = {}
_LANES_TEXT: dict[tuple[int, ...], str] = {}


def _share_entry(*items: tuple[str, str]) -> dict:
    """One dict object per distinct small entry, so the JSON writer formats it once (never mutated)."""
    entry = _SHARED_ENTRIES.get(items)
    if entry is None:
        if len(_SHARED_ENTRIES) > 4096:
            _SHARED_ENTRIES.clear()
        entry = _SHARED_ENTRIES[items] = dict(items)
    return entry


def _lanes_text(lanes: tuple[int, ...]) -> str:
    text = _LANES_TEXT.get(lanes)
    if text is None:
        text = _LANES_TEXT[lanes] = ",".join(map(str, lanes))
    return text


def routed_interface_tables(structured: StructuredConfig) -> dict:
    """INTERFACE (sonic-interface.yang) for routed ports and LOOPBACK_INTERFACE (sonic-loopback-interface.yang).

    A port in a VLAN must not appear in INTERFACE (sonic-vlan.yang: "Port is a router interface").
    """
    interfaces: dict[str, dict] = {}
    for interface in structured["interfaces"]:
        if interface["kind"] == "unused" or interface.get("access_vlan") or interface.get("trunk_vlans"):
            continue
        if interface.get("unnumbered"):
            # BGP unnumbered (RFC 5549): the port routes with its IPv6 link-local address only.
            interfaces[interface["name"]] = {"ipv6_use_link_local_only": "enable"}
        elif interface.get("ip"):
            interfaces[interface["name"]] = {}
            interfaces[f"{interface['name']}|{interface['ip']}"] = {}
    loopbacks: dict[str, dict] = {}
    for loopback in structured["loopbacks"]:
        loopbacks[loopback["name"]] = {}
        loopbacks[f"{loopback['name']}|{loopback['ip']}"] = {}
    return {"INTERFACE": interfaces, "LOOPBACK_INTERFACE": loopbacks}


def vlan_tables(structured: StructuredConfig) -> dict:
    """VLAN, VLAN_MEMBER, VLAN_INTERFACE (sonic-vlan.yang) and VRF (sonic-vrf.yang).

    Each VRF also gets its transit VLAN (structured ``vrfs[].transit_vlan``), bound to the VRF without an address:
    SONiC maps the L3 VNI of symmetric IRB onto that VLAN in VXLAN_TUNNEL_MAP.
    """
    hostname = structured["hostname"]
    vlans: dict[str, dict] = {}
    vlan_interfaces: dict[str, dict] = {}
    for vlan in structured["vlans"]:
        name = _vlan_name(hostname, vlan["id"], f"vlans[{vlan['id']}].id")
        entry = {"vlanid": str(vlan["id"])}
        if vlan.get("name"):
            entry["description"] = vlan["name"]
        svi = vlan.get("svi")
        mtu = svi["mtu"] if svi else structured["mtu"]["host"]
        if mtu:  # a foreign config may state none: SONiC's default applies
            entry["mtu"] = str(mtu)
        vlans[name] = entry
        if svi:
            # A gateway has the anycast MAC; an SVI read from a foreign config may have only its own address
            # (an MLAG peer SVI): no MAC line, and its address is the one SONiC's VLAN_INTERFACE states.
            svi_interface = {"mac_addr": svi["mac"].lower()} if svi["mac"] else {}
            if vlan["vrf"]:
                svi_interface["vrf_name"] = sonic_vrf_name(vlan["vrf"])
            vlan_interfaces[name] = svi_interface
            address = svi["ip"] or svi.get("address")
            if address:
                vlan_interfaces[f"{name}|{address}"] = {}
    vrfs: dict[str, dict] = {}
    for vrf in structured["vrfs"]:
        vrf_name = sonic_vrf_name(vrf["name"])
        vrfs[vrf_name] = {"vni": str(vrf["l3vni"])} if vrf["l3vni"] is not None else {}
        if vrf.get("transit_vlan") is not None and structured["vxlan"]:
            name = _vlan_name(hostname, vrf["transit_vlan"], f"vrfs[{vrf['name']}].transit_vlan")
            vlans[name] = {
                "vlanid": str(vrf["transit_vlan"]),
                "description": f"L3VNI {vrf['l3vni']} {vrf['name']}",
                **({"mtu": str(structured["vxlan"]["mtu"])} if structured["vxlan"].get("mtu") is not None else {}),
            }
            vlan_interfaces[name] = {"vrf_name": vrf_name}
    members: dict[str, dict] = {}
    for interface in structured["interfaces"]:
        if interface["kind"] == "unused":
            continue
        untagged = interface.get("access_vlan")
        if untagged is None and not interface.get("trunk_vlans"):
            continue  # a routed port (most ports): no VLAN membership
        tagged = list(interface.get("trunk_vlans") or [])
        if tagged and untagged in tagged:
            tagged.remove(untagged)
        for vlan_id, mode in [(untagged, "untagged")] + [(vlan_id, "tagged") for vlan_id in tagged]:
            if vlan_id is None:
                continue
            name = f"Vlan{vlan_id}"
            if name not in vlans:
                raise RenderError(
                    f"{hostname}: interfaces[{interface['name']}] VLAN {vlan_id}: not in the device's vlans"
                )
            members[f"{name}|{interface['name']}"] = {"tagging_mode": mode}
    return {"VLAN": vlans, "VLAN_MEMBER": members, "VLAN_INTERFACE": vlan_interfaces, "VRF": vrfs}


def port_channel_tables(structured: StructuredConfig) -> dict:
    """PORTCHANNEL, PORTCHANNEL_MEMBER, PORTCHANNEL_INTERFACE (sonic-portchannel.yang) and a switched bundle's
    VLAN_MEMBER rows. SONiC's teamd runs LACP active on every member: a passive or static member is refused."""
    hostname = structured["hostname"]
    vlan_ids = {vlan["id"] for vlan in structured["vlans"]}
    bundles: dict[str, dict] = {}
    members: dict[str, dict] = {}
    addresses: dict[str, dict] = {}
    vlan_members: dict[str, dict] = {}
    for bundle in structured.get("port_channels") or []:
        name = bundle["name"]
        if not SONIC_PORT_CHANNEL.fullmatch(name):
            raise RenderError(f"{hostname}: port_channels[].name={name!r}: SONiC names a bundle PortChannelN "
                              "(sonic-portchannel.yang: PortChannel[0-9]{1,4})")
        entry = {"admin_status": "up" if bundle["enabled"] else "down", "lacp_key": "auto"}
        if bundle["mtu"]:
            entry["mtu"] = str(bundle["mtu"])
        if bundle["min_links"] is not None:
            entry["min_links"] = str(bundle["min_links"])
        if bundle["description"]:
            entry["description"] = bundle["description"]
        bundles[name] = entry
        if bundle["ip"]:
            addresses[name] = {}
            addresses[f"{name}|{bundle['ip']}"] = {}
        tagging = [(bundle["access_vlan"], "untagged")] if bundle["access_vlan"] is not None else []
        for vlan_id, mode in tagging + [(vlan_id, "tagged") for vlan_id in bundle["trunk_vlans"]]:
            if vlan_id not in vlan_ids:
                raise RenderError(f"{hostname}: port_channels[{name}] VLAN {vlan_id}: not in the device's vlans")
            vlan_members[f"Vlan{vlan_id}|{name}"] = {"tagging_mode": mode}
    for interface in structured["interfaces"]:
        bundle_name = interface.get("port_channel")
        if not bundle_name:
            continue
        if bundle_name not in bundles:
            raise RenderError(f"{hostname}: interfaces[{interface['name']}].port_channel={bundle_name!r}: not in "
                              "port_channels")
        if interface.get("lacp_mode", "active") != "active":
            raise RenderError(f"{hostname}: interfaces[{interface['name']}].lacp_mode={interface.get('lacp_mode')!r}:"
                              " SONiC's teamd runs LACP active on every member")
        members[f"{bundle_name}|{interface['name']}"] = {}
    return {"PORTCHANNEL": bundles, "PORTCHANNEL_MEMBER": members, "PORTCHANNEL_INTERFACE": addresses,
            "VLAN_MEMBER": vlan_members}


def _vlan_name(hostname: str, vlan_id: int, field: str) -> str:
    if vlan_id not in VLAN_ID_RANGE:
        raise RenderError(f"{hostname}: {field}={vlan_id!r}: SONiC VLAN ids are 2..4094")
    return f"Vlan{vlan_id}"


def vxlan_tables(structured: StructuredConfig) -> dict:
    """VXLAN_TUNNEL, VXLAN_TUNNEL_MAP, VXLAN_EVPN_NVO (sonic-vxlan.yang). Empty on spines (no VTEP)."""
    vxlan = structured["vxlan"]
    if not vxlan:
        return {}
    if int(vxlan["udp_port"]) != VXLAN_UDP_PORT:
        raise RenderError(
            f"{structured['hostname']}: vxlan.udp_port={vxlan['udp_port']!r}: SONiC VTEPs use UDP {VXLAN_UDP_PORT}"
        )
    maps: dict[str, dict] = {}
    for vlan_id, vni in vxlan["vlan_vnis"].items():
        maps[f"{VXLAN_TUNNEL_NAME}|map_{vni}_Vlan{vlan_id}"] = {"vlan": f"Vlan{vlan_id}", "vni": str(vni)}
    for vrf in structured["vrfs"]:
        if vrf.get("transit_vlan") is not None:
            vlan = f"Vlan{vrf['transit_vlan']}"
            maps[f"{VXLAN_TUNNEL_NAME}|map_{vrf['l3vni']}_{vlan}"] = {"vlan": vlan, "vni": str(vrf["l3vni"])}
    return {
        "VXLAN_TUNNEL": {VXLAN_TUNNEL_NAME: {"src_ip": vxlan["vtep_ip"]}},
        "VXLAN_EVPN_NVO": {EVPN_NVO_NAME: {"source_vtep": VXLAN_TUNNEL_NAME}},
        "VXLAN_TUNNEL_MAP": maps,
    }


def qos_tables(structured: StructuredConfig) -> dict:
    """RoCE QoS: classification maps, per-port bindings, ECN, lossless buffers, PFC watchdog, cable lengths.

    Models: sonic-dscp-tc-map, sonic-tc-queue-map, sonic-tc-priority-group-map, sonic-pfc-priority-queue-map,
    sonic-pfc-priority-priority-group-map, sonic-port-qos-map, sonic-wred-profile, sonic-queue,
    sonic-buffer-pool, sonic-buffer-profile, sonic-buffer-pg, sonic-pfcwd, sonic-cable-length.
    """
    qos = structured["qos"]
    if not qos:
        return {}
    hostname = structured["hostname"]
    tc_to_queue = {int(tc): int(queue) for tc, queue in qos["tc_to_queue"].items()}
    tc_to_pg = {int(tc): int(pg) for tc, pg in qos["tc_to_priority_group"].items()}
    tc_to_priority = {int(tc): int(priority) for tc, priority in qos["tc_to_priority"].items()}
    priority_to_tc = {priority: tc for tc, priority in sorted(tc_to_priority.items())}
    dscp_to_tc = {int(dscp): int(tc) for dscp, tc in qos["dscp_to_tc"].items()}

    tables: dict[str, dict] = {
        # The contract sends every DSCP it does not list to traffic class 0; SONiC maps need every value listed.
        "DSCP_TO_TC_MAP": {QOS_MAP_NAME: {str(dscp): str(dscp_to_tc.get(dscp, 0)) for dscp in range(64)}},
        "TC_TO_QUEUE_MAP": {QOS_MAP_NAME: {str(tc): str(queue) for tc, queue in tc_to_queue.items()}},
        "TC_TO_PRIORITY_GROUP_MAP": {QOS_MAP_NAME: {str(tc): str(pg) for tc, pg in tc_to_pg.items()}},
        # PFC frames name a priority; these maps say which queue stops and which PG sends XOFF for it.
        # Unlisted priorities keep SONiC's identity mapping.
        "MAP_PFC_PRIORITY_TO_QUEUE": {
            QOS_MAP_NAME: {
                str(priority): str(tc_to_queue.get(priority_to_tc.get(priority, -1), priority))
                for priority in range(8)
            }
        },
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {
            QOS_MAP_NAME: {str(priority): str(tc_to_pg[tc]) for priority, tc in priority_to_tc.items() if tc in tc_to_pg}
        },
        "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": QOS_MAP_NAME}},
        "WRED_PROFILE": {},
        "QUEUE": {},
        "BUFFER_POOL": {},
        "BUFFER_PROFILE": {},
        "BUFFER_PG": {},
        "BUFFER_QUEUE": {},
        "SCHEDULER": {},
        "DEFAULT_LOSSLESS_BUFFER_PARAMETER": {},
        "LOSSLESS_TRAFFIC_PATTERN": {},
        "PFC_WD": {},
        "CABLE_LENGTH": {},
    }
    schedulers = _scheduler_tables(qos, tc_to_queue, tables)
    # An unknown model has no buffer size to size the pools from (_buffer_tables): no buffer tables, said so.
    with_buffers = _has_headroom(structured) and structured.get("model") is not None
    if with_buffers:
        _buffer_tables(structured, tables)
    buffer_queue_rows = _buffer_queue_rows(qos, tc_to_queue) if with_buffers else []
    port_rows = _PortQosRows(hostname, qos.get("pfc_watchdog") or {}, priority_to_tc, tc_to_pg, tables, schedulers)
    port_qos_map, queues = tables["PORT_QOS_MAP"], tables["QUEUE"]
    buffer_pgs, pfc_wd = tables["BUFFER_PG"], tables["PFC_WD"]
    buffer_queues = tables["BUFFER_QUEUE"]
    lossy_pg = _share_entry(("profile", INGRESS_LOSSY_PROFILE))
    cable_lengths: dict[str, str] = {}
    metres_by_length: dict[object, str] = {}
    for interface in structured["interfaces"]:
        name = interface["name"]
        length = interface.get("cable_length_m")
        if length:
            metres = metres_by_length.get(length)
            if metres is None:
                # sonic-cable-length.yang wants whole metres ("[0-9]+m"). Round up: headroom grows with cable
                # length, so rounding down would under-size the lossless buffer.
                metres = metres_by_length[length] = f"{math.ceil(length)}m"
            cable_lengths[name] = metres
        port_qos = interface.get("qos") or {}
        if not port_qos:
            continue
        binding, watchdog_entry, queue_rows, pg_rows = port_rows.of(name, port_qos)
        if watchdog_entry is not None:
            pfc_wd[name] = watchdog_entry
        port_qos_map[name] = binding
        for queue, entry in queue_rows:
            queues[f"{name}|{queue}"] = entry
        if with_buffers:
            # Lossy traffic enters PG 0 (SONiC's buffer templates); every queue gets its egress profile.
            buffer_pgs[f"{name}|0"] = lossy_pg
            for queue_range, entry in buffer_queue_rows:
                buffer_queues[f"{name}|{queue_range}"] = entry
        for priority, priority_group, entry in pg_rows:
            pg_key = f"{name}|{priority_group}"
            existing = buffer_pgs.get(pg_key)
            if existing and existing["profile"] != entry["profile"]:
                raise RenderError(
                    f"{hostname}: interfaces[{name}].qos.headroom[{priority}]: priority group {priority_group} "
                    "already carries a different headroom for another priority"
                )
            buffer_pgs[pg_key] = entry
    if cable_lengths:
        tables["CABLE_LENGTH"] = {QOS_MAP_NAME: cable_lengths}
    if pfc_wd:
        # pfcwd polls every POLL_INTERVAL ms; SONiC's default, never longer than a port's detection time.
        detection = min(int(entry["detection_time"]) for entry in pfc_wd.values())
        pfc_wd["GLOBAL"] = {"POLL_INTERVAL": str(min(PFCWD_POLL_INTERVAL_MS, detection))}
    return tables


def _scheduler_tables(qos: Qos, tc_to_queue: dict[int, int], tables: dict) -> dict[int, str]:
    """SCHEDULER (sonic-scheduler.yang): queue -> scheduler name for every queue a traffic class uses.

    Formatting only: the scheduling is decided once, in the structured config's ``qos.scheduling``
    (compiler/structured/qos_policy.py, also printed by EOS and the FRR/Linux ETS plan): ``strict`` ->
    ``scheduler.strict`` (type STRICT; the CNP queue), ``dwrr`` with ``weight_percent`` W -> ``scheduler.dwrr_W``
    (type DWRR, weight W; the YANG range 1..100 takes a percentage as it is, only the ratio matters to DWRR). A
    queue without scheduling keeps the platform's default scheduler.
    """
    lossless_queues = {int(item["queue"]) for item in qos.get("classes", []) if item.get("lossless")}
    cnp = qos.get("cnp") or {}
    cnp_queue = tc_to_queue.get(int(cnp["traffic_class"])) if cnp.get("traffic_class") is not None else None
    if cnp_queue is not None and cnp_queue in lossless_queues:
        raise RenderError(f"qos.cnp.traffic_class={cnp['traffic_class']!r}: CNP shares queue {cnp_queue} with a "
                          "lossless class; CNP needs its own strict-priority queue")
    scheduling = qos["scheduling"]
    by_queue: dict[int, str] = {}
    for queue in sorted(set(tc_to_queue.values())):
        entry = scheduling.get(str(queue))
        if entry is None:
            # No scheduler stated for this queue (a foreign config_db whose QUEUE rows name none): it keeps the
            # ASIC's default scheduler, so no QUEUE row names one, as in the source (EOS prints nothing either).
            continue
        if entry.get("mode") == "strict":
            name, scheduler = SCHEDULER_STRICT, {"type": "STRICT"}
        elif entry.get("mode") == "dwrr":
            weight = entry.get("weight_percent")
            if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 100:
                raise RenderError(f"qos.scheduling[{queue}].weight_percent={weight!r}: SONiC DWRR weights are "
                                  "1..100 (sonic-scheduler.yang)")
            name, scheduler = f"{SCHEDULER_DWRR_PREFIX}{weight}", {"type": "DWRR", "weight": str(weight)}
        else:
            raise RenderError(f"qos.scheduling[{queue}].mode={entry.get('mode')!r}: expected 'strict' or 'dwrr'")
        by_queue[queue] = name
        tables["SCHEDULER"][name] = scheduler
    return by_queue


def buffer_model(structured: StructuredConfig) -> str:
    """``dynamic`` on NVIDIA Spectrum, ``traditional`` elsewhere (docs/renderers.md, "Buffer model").

    SONiC's dynamic buffer manager sizes shared pools (and headroom for PGs without an override) through a vendor
    plugin; sonic-swss ships one for NVIDIA (cfgmgr/buffer_pool_mellanox.lua, buffer_headroom_mellanox.lua) and
    none for Broadcom. On every other ASIC the traditional model is the one that programs anything, and it needs
    explicit pool sizes: we size them from the catalogue buffer minus the headroom our cable-length math reserves.
    """
    model = SWITCH_MODELS.get(structured.get("model") or "")
    return "dynamic" if model is not None and model.asic.startswith("NVIDIA") else "traditional"


def _buffer_tables(structured: StructuredConfig, tables: dict) -> None:
    """Pools and the lossy/egress profiles SONiC's buffer templates define, for the chosen buffer model.

    dynamic (SONiC buffer manager design, doc/qos/dynamically-headroom-calculation.md): the default lossless
    parameters and traffic pattern, and pools without a size (the buffer manager sizes them). traditional: pool
    sizes given here: the ingress lossless pool's shared part is the ASIC buffer minus all lossless headroom
    (``xoff`` = the headroom, SONiC's shared-headroom pool attribute); egress lossless is the whole buffer.
    Our lossless PG profiles (headroom overrides from the cable-length math) are the same in both models.
    """
    hostname = structured["hostname"]
    model = SWITCH_MODELS.get(structured.get("model") or "")
    if model is None or not model.buffer_mb:
        raise RenderError(f"{hostname}: model={structured.get('model')!r}: no buffer size in the catalogue "
                          "(compiler/catalog.py); the buffer pools cannot be sized")
    buffer_bytes = int(model.buffer_mb * 1024 * 1024)
    pools = tables["BUFFER_POOL"]
    if buffer_model(structured) == "dynamic":
        tables["DEFAULT_LOSSLESS_BUFFER_PARAMETER"][QOS_MAP_NAME] = {"default_dynamic_th": DEFAULT_LOSSLESS_DYNAMIC_TH}
        tables["LOSSLESS_TRAFFIC_PATTERN"][QOS_MAP_NAME] = {
            "mtu": LOSSLESS_PATTERN_MTU, "small_packet_percentage": LOSSLESS_PATTERN_SMALL_PACKET_PERCENT}
        pools.update({
            INGRESS_LOSSLESS_POOL: {"type": "ingress", "mode": "dynamic"},
            EGRESS_LOSSY_POOL: {"type": "egress", "mode": "dynamic"},
        })
    else:
        headroom = _total_headroom_bytes(structured)
        shared = buffer_bytes - headroom
        if shared <= 0:
            raise RenderError(f"{hostname}: lossless headroom {headroom} bytes over all ports exceeds the "
                              f"{model.name} buffer of {buffer_bytes} bytes (interfaces[].qos.headroom)")
        pools.update({
            INGRESS_LOSSLESS_POOL: {"type": "ingress", "mode": "dynamic", "size": str(shared), "xoff": str(headroom)},
            EGRESS_LOSSY_POOL: {"type": "egress", "mode": "dynamic", "size": str(shared)},
        })
    pools[EGRESS_LOSSLESS_POOL] = {"type": "egress", "mode": "static", "size": str(buffer_bytes)}
    tables["BUFFER_PROFILE"].update({
        INGRESS_LOSSY_PROFILE: {"pool": INGRESS_LOSSLESS_POOL, "size": "0", "dynamic_th": LOSSY_DYNAMIC_TH},
        EGRESS_LOSSLESS_PROFILE: {"pool": EGRESS_LOSSLESS_POOL, "size": "0", "static_th": str(buffer_bytes)},
        EGRESS_LOSSY_PROFILE: {"pool": EGRESS_LOSSY_POOL, "size": "1518", "dynamic_th": LOSSY_DYNAMIC_TH},
    })


def _total_headroom_bytes(structured: StructuredConfig) -> int:
    """Headroom all lossless PGs reserve: each distinct port qos dict summed once per port that uses it."""
    per_qos: dict[int, int] = {}
    total = 0
    for interface in structured["interfaces"]:
        port_qos = interface.get("qos")
        if not port_qos:
            continue
        size = per_qos.get(id(port_qos))
        if size is None:
            size = per_qos[id(port_qos)] = sum(int(item["size_bytes"])
                                               for item in (port_qos.get("headroom") or {}).values())
        total += size
    return total


def _buffer_queue_rows(qos: Qos, tc_to_queue: dict[int, int]) -> list[tuple[str, dict]]:
    """BUFFER_QUEUE rows for queues 0-7: lossless queues on the lossless egress profile, the rest lossy.

    Consecutive queues with the same profile share one "a-b" key, as SONiC's own buffer templates write them.
    """
    lossless_queues = {int(item["queue"]) for item in qos.get("classes", []) if item.get("lossless")}
    rows: list[tuple[str, dict]] = []
    start = 0
    for queue in range(1, 9):
        if queue == 8 or (queue in lossless_queues) != (start in lossless_queues):
            profile = EGRESS_LOSSLESS_PROFILE if start in lossless_queues else EGRESS_LOSSY_PROFILE
            key = str(start) if queue - 1 == start else f"{start}-{queue - 1}"
            rows.append((key, _share_entry(("profile", profile))))
            start = queue
    return rows


class _PortQosRows:
    """The CONFIG_DB rows of one port's QoS, worked out once per distinct port ``qos`` dict and shared.

    The compiler gives every port with the same speed, cable length and MTU the same ``qos`` dict object
    (compiler.structured.qos_policy), so a 1,024-port spine has ~150 distinct ones: each is checked and turned
    into rows once, and ports then only add their keys. Equal entries are also the same dict object (one
    PORT_QOS_MAP binding per PFC setting, one QUEUE entry per WRED profile...), which lets the JSON writer format
    each once. Treat the returned tables as read-only.
    """

    def __init__(self, hostname: str, watchdog: Mapping[str, Any], priority_to_tc: dict, tc_to_pg: dict, tables: dict,
                 schedulers: dict[int, str]):
        self.hostname, self.watchdog, self.tables = hostname, watchdog, tables
        self.schedulers = schedulers
        self.priority_to_tc, self.tc_to_pg = priority_to_tc, tc_to_pg
        self.rows_by_qos_id: dict[int, tuple] = {}
        self.queue_rows_by_ecn_id: dict[int, list] = {}
        self.shared: dict[tuple, dict] = {}  # equal entries -> one object
        self.watchdog_entry: dict | None = None

    def of(self, port: str, port_qos: PortQos) -> tuple:
        """(PORT_QOS_MAP binding, PFC_WD entry or None, [(queue, QUEUE entry)], [(priority, PG, BUFFER_PG entry)]).

        ``port`` names the first port with this QoS dict: it is the port any refusal names, as before caching.
        """
        # id() is safe: the structured config keeps every port qos dict alive for the whole render.
        rows = self.rows_by_qos_id.get(id(port_qos))
        if rows is None:
            rows = self.rows_by_qos_id[id(port_qos)] = self._rows(port, port_qos)
        return rows

    def _share(self, *key) -> dict:
        entry = self.shared.get(key)
        if entry is None:
            entry = self.shared[key] = dict(key[1:])
        return entry

    def _rows(self, port: str, port_qos: PortQos) -> tuple:
        hostname, tables = self.hostname, self.tables
        if port_qos.get("trust") not in (None, "dscp"):
            raise RenderError(
                f"{hostname}: interfaces[{port}].qos.trust={port_qos['trust']!r}: only DSCP trust is rendered"
            )
        binding = [
            ("dscp_to_tc_map", QOS_MAP_NAME),
            ("tc_to_queue_map", QOS_MAP_NAME),
            ("tc_to_pg_map", QOS_MAP_NAME),
            ("pfc_to_queue_map", QOS_MAP_NAME),
            ("pfc_to_pg_map", QOS_MAP_NAME),
        ]
        watchdog_entry = None
        pfc_priorities = sorted(int(priority) for priority in port_qos.get("pfc_priorities") or [])
        if pfc_priorities:
            pfc_enable = ",".join(str(priority) for priority in pfc_priorities)
            binding.append(("pfc_enable", pfc_enable))
            if port_qos.get("pfc_watchdog") and self.watchdog.get("enabled"):
                binding.append(("pfcwd_sw_enable", pfc_enable))
                if self.watchdog_entry is None:
                    self.watchdog_entry = _pfc_watchdog_entry(hostname, self.watchdog)
                watchdog_entry = self.watchdog_entry

        ecn_by_queue = port_qos.get("ecn")
        # Ports differ in headroom (cable length) far more often than in ECN: the compiler shares one ECN dict,
        # kept alive by the structured config (so its id() is not reused during the render).
        queue_rows = self.queue_rows_by_ecn_id.get(id(ecn_by_queue))
        if queue_rows is None:
            queue_rows = self.queue_rows_by_ecn_id[id(ecn_by_queue)] = []
            wred_by_queue: dict[int, str] = {}
            for queue_key, ecn in (ecn_by_queue or {}).items():
                profile_name, profile = _wred_profile(ecn)
                tables["WRED_PROFILE"][profile_name] = profile
                wred_by_queue[int(queue_key)] = profile_name
            # Every queue a class uses gets its scheduler (strict for CNP); ECN queues also their WRED profile.
            for queue in sorted(set(wred_by_queue) | set(self.schedulers)):
                fields = []
                if queue in self.schedulers:
                    fields.append(("scheduler", self.schedulers[queue]))
                if queue in wred_by_queue:
                    fields.append(("wred_profile", wred_by_queue[queue]))
                queue_rows.append((queue, self._share("QUEUE", *fields)))

        pg_rows = []
        profile_by_pg: dict[int, str] = {}
        for priority, headroom in sorted((port_qos.get("headroom") or {}).items(), key=lambda item: int(item[0])):
            tc = self.priority_to_tc.get(int(priority))
            if tc is None or tc not in self.tc_to_pg:
                raise RenderError(
                    f"{hostname}: interfaces[{port}].qos.headroom[{priority}]: priority {priority} has no traffic "
                    "class / priority group in qos.tc_to_priority and qos.tc_to_priority_group"
                )
            profile_name, profile = _lossless_profile(hostname, port, priority, headroom)
            tables["BUFFER_PROFILE"][profile_name] = profile
            priority_group = self.tc_to_pg[tc]
            if profile_by_pg.get(priority_group, profile_name) != profile_name:
                raise RenderError(
                    f"{hostname}: interfaces[{port}].qos.headroom[{priority}]: priority group {priority_group} "
                    "already carries a different headroom for another priority"
                )
            profile_by_pg[priority_group] = profile_name
            pg_rows.append((priority, priority_group, self._share("BUFFER_PG", ("profile", profile_name))))
        return self._share("PORT_QOS_MAP", *binding), watchdog_entry, queue_rows, pg_rows


def _pfc_watchdog_entry(hostname: str, watchdog: Mapping[str, Any]) -> dict:
    detect_ms, restore_ms, action = watchdog["detect_ms"], watchdog["restore_ms"], watchdog["action"]
    if detect_ms not in PFCWD_DETECTION_MS:
        raise RenderError(f"{hostname}: qos.pfc_watchdog.detect_ms={detect_ms!r}: SONiC accepts 100..5000 ms")
    if restore_ms not in PFCWD_RESTORATION_MS:
        raise RenderError(f"{hostname}: qos.pfc_watchdog.restore_ms={restore_ms!r}: SONiC accepts 100..60000 ms")
    if action not in PFCWD_ACTIONS:
        raise RenderError(f"{hostname}: qos.pfc_watchdog.action={action!r}: SONiC accepts {list(PFCWD_ACTIONS)}")
    return {"action": action, "detection_time": str(detect_ms), "restoration_time": str(restore_ms)}


def _wred_profile(ecn: EcnThresholds) -> tuple[str, dict]:
    """ECN-marking WRED profile, named by its values so identical settings share one profile (<= 32 chars)."""
    minimum, maximum, probability = int(ecn["min_bytes"]), int(ecn["max_bytes"]), int(ecn["probability"])
    profile = {"ecn": "ecn_all", "wred_green_enable": "true", "wred_yellow_enable": "true", "wred_red_enable": "true"}
    # Thresholds are bytes in SONiC (sonic-wred-profile.yang "units bytes"); all colours mark alike.
    for colour in ("green", "yellow", "red"):
        profile[f"{colour}_min_threshold"] = str(minimum)
        profile[f"{colour}_max_threshold"] = str(maximum)
        profile[f"{colour}_drop_probability"] = str(probability)
    return f"ECN_{minimum}_{maximum}_{probability}", profile


def _lossless_profile(hostname: str, port: str, priority: str, headroom: Headroom) -> tuple[str, dict]:
    """Headroom-override ingress profile carrying the compiler's XOFF/XON/size, named by its values."""
    xoff, xon, size = int(headroom["xoff_bytes"]), int(headroom["xon_bytes"]), int(headroom["size_bytes"])
    profile = {"pool": INGRESS_LOSSLESS_POOL, "xoff": str(xoff), "xon": str(xon), "size": str(size)}
    policy = headroom.get("policy", "dynamic")
    if policy == "dynamic":
        # Alpha 2^0 = 1: the PG may take as much shared buffer as is still free (SONiC's lossless default).
        profile["dynamic_th"] = "0"
    elif policy == "static":
        profile["static_th"] = str(size)
    else:
        raise RenderError(
            f"{hostname}: interfaces[{port}].qos.headroom[{priority}].policy={policy!r}: expected dynamic or static"
        )
    return f"pg_lossless_{xoff}_{xon}_{size}", profile


def _has_headroom(structured: StructuredConfig) -> bool:
    return any((interface.get("qos") or {}).get("headroom") for interface in structured["interfaces"])
