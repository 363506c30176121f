"""Arista EOS startup-config / running-config -> structured config (docs/structured-config.md).

The text is read as EOS prints it (``show running-config``): top-level commands, blocks indented below them.
Every command this module understands is the inverse of a line of :mod:`compiler.render.eos` or its equivalent
as Arista AVD's ``eos_cli_config_gen`` prints it (PFC and ``qos trust`` directly on an interface, EVPN on
multi-hop loopback sessions, ``redistribute connected`` for the loopbacks); anything else is reported as
unmodelled with its line. Command syntax: Arista EOS User Manual ("Quality of Service", "Priority Flow Control",
"VXLAN", "BGP") and AVD's eos_cli_config_gen templates.
"""

from __future__ import annotations

import re
from typing import Any

from compiler.parse import eos_system, igp
from compiler.parse.aaa import EosAaa
from compiler.parse.bgp_options import FAMILY_ORDER, defined_policies, inherit, neighbor_option
from compiler.parse.carried import SINGLE_LANE_SPEEDS_GBPS
from compiler.parse.common import (
    Node,
    ParsedDevice,
    SubnetIndex,
    cli_tree,
    contains,
    empty_interface,
    empty_port_qos,
    empty_qos,
    empty_structured,
    finish_qos,
    ip_address_text,
    ipv6_interface_text,
    layer3_neighbor_interfaces,
    neighbor_peer_from_description,
    node_value,
    parse_asn,
    peer_from_description,
    remote_as_value,
    sort_structured,
    unused_lines,
)
from compiler.parse.policy import AsPathPolicies, apply_route_maps, policy_contents, route_map_out

FILE = "startup-config"
# compiler.render.eos.ECN_QUEUE_KEYWORD, read backwards: the queue keyword names the ASIC family.
QUEUE_KEYWORD_FAMILY = {"uc-tx-queue": "strata", "tx-queue": "sand"}
WATCHDOG_ACTIONS = {"drop": "drop", "notify-only": "forward"}  # compiler.render.eos.WATCHDOG_ACTIONS inverted
_SPEED = re.compile(r"^(?:forced\s+)?(\d+(?:\.\d+)?)([gt])(?:-(\d+)|full)?$")
# Commands that configure nothing the structured config models and that a fabric config commonly carries:
# consumed silently only when they are exactly the form our renderer prints (anything else stays unmodelled).
_KNOWN_NOOPS = {"service routing protocols model multi-agent", "end", "ip routing", "no bgp default ipv4-unicast",
                "redistribute learned", "spanning-tree portfast", "vxlan qos ecn propagation",
                "vxlan qos dscp propagation encapsulation", "vxlan qos map dscp to traffic-class decapsulation",
                # IPv6 forwarding, and IPv4 over IPv6 next hops (RFC 5549): what unnumbered sessions need to route.
                "ipv6 unicast-routing", "ip routing ipv6 interfaces"}

# IPv6 in a tenant VRF (Arista EOS User Manual, "IPv6"): `ipv6 unicast-routing vrf V` routes IPv6 there, `ip
# routing ipv6 interfaces vrf V` routes IPv4 over IPv6 next hops (RFC 5549) there: the VRF's key they set.
_VRF_ROUTING_LINES = {"ipv6 unicast-routing vrf": "ipv6_unicast_routing",
                      "ip routing ipv6 interfaces vrf": "ipv4_over_ipv6_routing"}

# `ntp server [vrf V] HOST [iburst] [prefer]` (Arista EOS User Manual, "NTP"): iburst sends a burst of eight
# packets when the server is unreachable at first (RFC 5905 section 13's burst modes), prefer marks the server
# chosen among equals. The compiler prints every server with iburst.
_NTP_OPTIONS = frozenset({"iburst", "prefer"})
_NTP_COMPILED_OPTIONS = {"iburst": True, "prefer": False}

# What a BGP VRF block may redistribute (Arista EOS User Manual, "BGP": `redistribute <source> [route-map M]`).
REDISTRIBUTED_SOURCES = frozenset({"connected", "static", "attached-host", "ospf", "isis"})


def _use(node: Node) -> Node:
    node.used = True
    return node


def _speed(text: str) -> tuple[int | None, int | None]:
    """``400g-8`` -> (400, 8); ``25g`` -> (25, None); ``1.6t-8`` -> (1600, 8); ``forced 100gfull`` -> (100, None)."""
    match = _SPEED.match(text)
    if not match:
        return None, None
    rate = float(match.group(1)) * (1000 if match.group(2) == "t" else 1)
    return int(rate), int(match.group(3)) if match.group(3) else None


_VLAN_LIST = re.compile(r"\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*")  # `10,20-22`; `none`, `add 30` ... stay unmodelled
# Layer-2 port lines (_EosParser._ethernet_line) stored as they are on a port or a port-channel.
_LAYER2_FIELDS = frozenset({"native_vlan_tag", "trunk_group", "channel_group"})
# `reload-delay mlag|non-mlag N` (Arista EOS User Manual, "MLAG": seconds the ports stay down after a reload).
_RELOAD_DELAY_KEYS = {"mlag": "reload_delay_mlag_s", "non-mlag": "reload_delay_non_mlag_s"}


# Port settings read from foreign configs onto an Ethernet port or a port-channel (docs/structured-config.md,
# "Foreign fabric settings"): storm control, PTP, BPDU filter, MACsec profile.
_PORT_SETTINGS = frozenset({"storm_control", "ptp", "stp_bpdufilter", "macsec_profile"})
# `storm-control <traffic> level [pps] N` (Arista EOS User Manual, "Storm Control"): a percentage of the port's
# bandwidth (up to 2 decimals) or packets per second.
_STORM_TRAFFIC = frozenset({"broadcast", "multicast", "unknown-unicast", "all"})
_STORM_PERCENT = re.compile(r"\d{1,3}(?:\.\d{1,2})?")


# EVPN multihoming on a bundle (RFC 7432 sections 5 and 7.6; Arista EOS User Manual, "EVPN All-Active
# Multihoming"): the 10-octet ESI as EOS prints it (five groups of four hex digits), the ES-Import route target
# (a MAC address), and the LACP system ID every peer of the segment presents (one bundle to the host).
_ESI = re.compile(r"[0-9A-Fa-f]{4}(?::[0-9A-Fa-f]{4}){4}")
_ES_IMPORT = re.compile(r"[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}")
_LACP_SYSTEM_ID = re.compile(r"[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}")


def _remote_domain_line(words: list[str], entry: dict) -> bool:
    """The EVPN gateway's remote domain of a MAC-VRF (Arista EOS User Manual, "EVPN Gateway", RFC 9014
    interconnect): ``rd evpn domain remote RD``, ``route-target import|export|import export evpn domain remote
    RT``; True when the line is one of these."""
    domain = entry.get("remote_domain") or {"rd": None, "route_targets": {"import": [], "export": []}}
    if words[:4] == ["rd", "evpn", "domain", "remote"] and len(words) == 5:
        domain["rd"] = words[4]
    elif words[0] == "route-target" and words[-4:-1] == ["evpn", "domain", "remote"] and words[1:-4] in (
            ["import"], ["export"], ["import", "export"]):
        for direction in words[1:-4]:
            domain["route_targets"][direction].append(words[-1])
    else:
        return False
    entry["remote_domain"] = domain
    return True


def _ethernet_segment(node: Node) -> dict:
    """``evpn ethernet-segment`` / ``identifier ESI`` / ``route-target import MAC``; other lines stay unmodelled."""
    segment: dict[str, Any] = {"identifier": None, "route_target_import": None}
    for child in node.children:
        words = child.words()
        if words[0] == "identifier" and len(words) == 2 and _ESI.fullmatch(words[1]):
            segment["identifier"] = words[1].lower()
        elif words[:2] == ["route-target", "import"] and len(words) == 3 and _ES_IMPORT.fullmatch(words[2]):
            segment["route_target_import"] = words[2].lower()
        else:
            continue
        _use(child)
    return segment


def _storm_control(words: list[str]) -> tuple[str, dict] | None:
    """``storm-control broadcast level pps 100`` -> ("broadcast", {"level": "100", "unit": "pps"})."""
    if len(words) not in (4, 5) or words[1] not in _STORM_TRAFFIC or words[2] != "level":
        return None
    if len(words) == 5:
        return (words[1], {"level": words[4], "unit": "pps"}) if words[3] == "pps" and words[4].isdigit() else None
    if not _STORM_PERCENT.fullmatch(words[3]) or float(words[3]) > 100:
        return None
    return words[1], {"level": words[3], "unit": "percent"}


def _port_setting(port: dict, field: str, value: Any) -> None:
    if field == "storm_control":
        traffic, level = value
        port.setdefault("storm_control", {})[traffic] = dict(level)
    else:
        port[field] = value


def _layer2_field(port: dict, field: str, value: Any) -> None:
    if field == "native_vlan_tag":
        port["native_vlan_tag"] = True
    elif field == "trunk_group":
        port.setdefault("trunk_groups", []).append(value)
    else:  # channel_group: (bundle name, LACP mode)
        port["port_channel"], port["lacp_mode"] = value


def _vlan_ids(text: str) -> list[int]:
    """``10,20-22`` -> [10, 20, 21, 22]."""
    out: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return out


class _EosParser:
    def __init__(self, text: str, file_name: str, hostname_hint: str) -> None:
        self.file = file_name
        self.roots = cli_tree(text)
        self.structured = empty_structured(hostname_hint, "eos")
        self.locations: dict[str, tuple[str, int]] = {}
        self.qos = empty_qos()
        self.qos_stated = False
        self.profiles: dict[str, dict] = {}  # qos profile name -> port QoS
        self.profile_scheduling: dict[str, dict] = {}
        self.queue_keyword: str | None = None
        self.mmu_headroom: int | None = None
        self.mmu_family: str | None = None
        self.virtual_mac: str | None = None
        self.vlan_names: dict[int, str] = {}
        self.vrf_names: list[str] = []
        self.management: dict = {}
        self.route_maps: dict[str, list[str]] = {}
        self.prefix_lists: dict[str, list[tuple[str, int | None]]] = {}
        self.redistribute_connected: str | None = None  # route-map name, "" for none
        self.line_cache: dict[str, tuple | None] = {}
        self.svis: dict[int, dict] = {}  # VLAN id -> SVI facts (interface VlanN)
        self.bgp_vlans: dict[int, dict] = {}  # VLAN id -> RD and route targets (router bgp / vlan N)
        self.vlan_trunk_groups: dict[int, list[str]] = {}
        self.vrf_routing_lines: list[tuple[Node, str, str]] = []  # (line, VRF, key) attached once VRFs are known
        self.igmp_snooping_lines: list[tuple[Node, int, bool]] = []  # (line, VLAN, on) attached to known VLANs
        self.port_channels: dict[str, dict] = {}  # interface Port-ChannelN, by name
        self.af_neighbor_options: list[tuple[str, list[str], Node, bool, str]] = []  # address-family neighbor policy lines
        self.igp_processes: list[dict] = []  # router ospf / router isis (compiler.parse.igp)

    def at(self, key: str, node: Node) -> None:
        self.locations.setdefault(key, (self.file, node.line))

    # ------------------------------------------------------------------------------------------------ driver
    def parse(self) -> ParsedDevice:
        deferred = []
        policies = AsPathPolicies()
        self.aaa = EosAaa()
        for node in self.roots:
            words = node.words()
            if node.text in _KNOWN_NOOPS:
                _use(node)
            elif words[0] == "hostname" and len(words) == 2:
                self.structured["hostname"] = _use(node).words()[1]
                self.at("device", node)
            elif words[:2] == ["qos", "map"] or node.text.startswith("priority-flow-control pause watchdog "):
                self._global_qos(node)
            elif words[:2] == ["qos", "profile"] and len(words) == 3:
                self._qos_profile(node)
            elif node.text.startswith("platform trident mmu queue profile "):
                self._mmu(node)
            elif words[0] == "vlan" and len(words) == 2 and words[1].isdigit():
                self._vlan(node)
            elif words[:2] == ["vrf", "instance"] and len(words) == 3:
                self.vrf_names.append(_use(node).words()[2])
                self.at(f"vrf {words[2]}", node)
            elif words[0] == "interface" and len(words) == 2:
                deferred.append(node)  # after the QoS profiles and VRFs they name
            elif words[:3] == ["ip", "virtual-router", "mac-address"] and len(words) == 4:
                self.virtual_mac = _use(node).words()[3].lower()
            elif words[:3] == ["ip", "routing", "vrf"] and len(words) == 4 or words[:4] == ["no", "ip", "routing",
                                                                                              "vrf"]:
                _use(node)
            elif (key := _VRF_ROUTING_LINES.get(" ".join(words[:-1]))) is not None:
                self.vrf_routing_lines.append((node, words[-1], key))
            elif words[-4:-1] == ["igmp", "snooping", "vlan"] and words[:-4] in (["ip"], ["no", "ip"]) \
                    and words[-1].isdigit():
                self.igmp_snooping_lines.append((node, int(words[-1]), words[0] == "ip"))
            elif words[:2] == ["router", "bgp"] and len(words) == 3:
                deferred.append(node)
            elif node.text == "mlag configuration":
                self._mlag(node)
            elif words[:4] == ["ip", "address", "virtual", "source-nat"] and len(words) == 8 and words[4] == "vrf":
                # The source of packets the switch itself sends in a VRF whose gateways are anycast (EOS "VXLAN":
                # `ip address virtual source-nat`): pings and traceroutes from the gateway; no forwarding path.
                self.at(f"vrf {words[5]} source-nat", _use(node))
            elif words[0] == "spanning-tree" or words[:2] == ["no", "spanning-tree"]:
                self._spanning_tree(node)
            elif (process := igp.router_block(node)) is not None:
                self.igp_processes.append(process)
                self.at(f"igp {process['protocol']}", node)
            elif words[:2] in (["ip", "name-server"], ["ip", "route"], ["ntp", "server"],
                               ["ntp", "local-interface"]) or (words[0] == "logging" and "host" in words):
                self._management_global(node)
            elif words[:2] == ["management", "api"]:
                self._eapi(node)
            elif words[:2] == ["ip", "prefix-list"] and len(words) == 3:
                self._prefix_list(node)
            elif self.aaa.line(node):
                self.at("management aaa", node)
            elif eos_system.system_line(node, self.structured):
                self.at("bfd" if node.text == "router bfd" else "system", node)
            elif policies.as_path_line(node, "eos") or policies.route_map(node):
                self.at(f"route-map {words[1] if words[0] == 'route-map' else words[3]}", node)
            elif words[0] == "route-map" and len(words) == 4:
                self._route_map(node)
        for node in deferred:
            if node.words()[0] == "interface":
                self._interface(node)
        for node in deferred:
            if node.words()[0] == "router":
                self._router_bgp(node)
                self.structured["bgp"]["policies_defined"] = defined_policies(self.roots)
                policy_contents(self.roots, self.structured["bgp"], self.at)
        self._export_policies(policies)
        self._finish()
        unmodelled = unused_lines(self.file, self.roots)
        return ParsedDevice(self.structured["hostname"], "eos", self.structured, unmodelled, self.locations)

    # ---------------------------------------------------------------------------------------------- QoS
    def _global_qos(self, node: Node) -> None:
        words = node.words()
        qos = self.qos
        self.qos_stated = True
        self.at("qos", node)
        if words[:3] == ["qos", "map", "dscp"] and words[-3:-1] == ["to", "traffic-class"]:
            for dscp in words[3:-3]:
                qos["dscp_to_tc"][str(int(dscp))] = int(words[-1])
        elif words[:3] == ["qos", "map", "traffic-class"] and words[-3:-1] == ["to", "tx-queue"] and len(words) == 7:
            qos["tc_to_queue"][str(int(words[3]))] = int(words[-1])
        elif node.text.startswith("priority-flow-control pause watchdog default timeout "):
            qos["pfc_watchdog"]["detect_ms"] = round(float(words[-1]) * 1000)
        elif node.text.startswith("priority-flow-control pause watchdog default recovery-time "):
            qos["pfc_watchdog"]["restore_ms"] = round(float(words[-1]) * 1000)
        elif node.text.startswith("priority-flow-control pause watchdog action ") and len(words) == 5:
            if words[-1] not in WATCHDOG_ACTIONS:
                return
            qos["pfc_watchdog"]["action"] = WATCHDOG_ACTIONS[words[-1]]
            qos["pfc_watchdog"]["enabled"] = True
        else:
            return
        _use(node)

    def _port_qos_line(self, node: Node, port_qos: dict, scheduling: dict | None) -> bool:
        """One QoS command of a ``qos profile`` or of an interface; True when understood."""
        words = node.words()
        if words[:2] == ["qos", "trust"] and len(words) == 3:
            port_qos["trust"] = words[2]
        elif node.text in ("priority-flow-control on", "priority-flow-control mode on"):
            pass  # PFC is on where a priority is no-drop; the priorities carry it
        elif words[:2] == ["priority-flow-control", "priority"] and words[3:] == ["no-drop"]:
            port_qos["pfc_priorities"] = sorted({*port_qos["pfc_priorities"], int(words[2])})
        elif node.text == "priority-flow-control pause watchdog":
            port_qos["pfc_watchdog"] = True
        elif words[0] in QUEUE_KEYWORD_FAMILY and len(words) == 2 and words[1].isdigit():
            self.queue_keyword = words[0]
            queue = str(int(words[1]))
            for child in node.children:
                child_words = child.words()
                if child.text == "priority strict":
                    if scheduling is not None:
                        scheduling[queue] = {"mode": "strict"}
                elif child.text == "no priority":
                    pass  # round-robin; the weight follows
                elif child_words[:2] == ["bandwidth", "percent"] and len(child_words) == 3:
                    if scheduling is not None:
                        scheduling[queue] = {"mode": "dwrr", "weight_percent": int(child_words[2])}
                elif (child_words[:3] == ["random-detect", "ecn", "minimum-threshold"] and len(child_words) == 10
                      and child_words[4] == "bytes" and child_words[7] == "bytes"):
                    port_qos["ecn"][queue] = {"min_bytes": int(child_words[3]), "max_bytes": int(child_words[6]),
                                              "probability": int(child_words[9])}
                else:
                    continue
                _use(child)
        else:
            return False
        _use(node)
        return True

    def _qos_profile(self, node: Node) -> None:
        name = node.words()[2]
        port_qos = empty_port_qos()
        scheduling: dict[str, Any] = {}
        for child in node.children:
            self._port_qos_line(child, port_qos, scheduling)
        self.profiles[name] = port_qos
        self.profile_scheduling[name] = scheduling
        self.at(f"qos profile {name}", _use(node))

    def _mmu(self, node: Node) -> None:
        words = node.words()
        if len(words) == 6 or (len(words) == 7 and words[6] == "apply"):
            for child in node.children:
                child_words = child.words()
                if child_words[:3] == ["ingress", "headroom", "bytes"] and len(child_words) == 4:
                    self.mmu_headroom = int(_use(child).words()[3])
            self.mmu_family = "strata"  # `platform trident` commands exist on Strata (Trident/Tomahawk) only
            self.at("qos headroom", _use(node))

    # ------------------------------------------------------------------------------------------ L2 / VRF
    def _vlan(self, node: Node) -> None:
        vlan_id = int(node.words()[1])
        self.vlan_names[vlan_id] = ""
        for child in node.children:
            if child.words()[0] == "name" and len(child.words()) == 2:
                self.vlan_names[vlan_id] = _use(child).words()[1]
            elif child.words()[:2] == ["trunk", "group"] and len(child.words()) == 3:
                self.vlan_trunk_groups.setdefault(vlan_id, []).append(_use(child).words()[2])
        self.at(f"vlan {vlan_id}", _use(node))

    # ------------------------------------------------------------------------------------------ interfaces
    def _interface(self, node: Node) -> None:
        name = node.words()[1]
        lowered = name.lower()
        if lowered.startswith("ethernet"):
            self._ethernet(node, name)
        elif lowered.startswith("loopback") or (lowered.startswith("dps") and name[3:].isdigit()):
            # A DPS interface (EOS WAN path selection, AVD cv-pathfinder) is a /32 the WAN routers' iBGP overlay
            # sources its sessions from, like a loopback; it is no VTEP loopback (see the VXLAN source below).
            self._loopback(node, name)
        elif lowered.startswith("management") or any(c.text == "description oob_management" for c in node.children):
            self._management_interface(node, name)
        elif lowered.startswith("vlan") and name[4:].isdigit():
            self._svi(node, int(name[4:]))
        elif lowered.startswith("vxlan"):
            self._vxlan(node)
        elif lowered.startswith("port-channel") and name[len("port-channel"):].isdigit():
            self._port_channel(node, name)

    def _ethernet_line(self, text: str) -> tuple | None:
        """What one line of an Ethernet interface sets: (field, value), or None when it is no such line. A
        1,024-port spine repeats the same few lines (``mtu 9214``, ``no switchport``), so results are cached."""
        if text in self.line_cache:
            return self.line_cache[text]
        words = text.split()
        result: tuple | None = None
        if text == "shutdown" or text == "no shutdown":
            result = ("enabled", text == "no shutdown")
        elif words[0] == "mtu" and len(words) == 2 and words[1].isdigit():
            result = ("mtu", int(words[1]))
        elif words[0] == "speed" and len(words) >= 2:
            speed, lanes = _speed(" ".join(words[1:]))
            result = ("speed", (speed, lanes)) if speed is not None else None
        elif text == "no switchport":
            result = ("switchport", False)
        elif text == "switchport" or (words[:2] == ["switchport", "mode"] and len(words) == 3
                                      and words[2] in ("access", "trunk")):
            result = ("switchport", True)
        elif words[:3] == ["switchport", "access", "vlan"] and len(words) == 4:
            result = ("access_vlan", int(words[3]))
        elif words[:4] == ["switchport", "trunk", "allowed", "vlan"] and len(words) == 5 and _VLAN_LIST.fullmatch(
                words[4]):
            result = ("trunk_vlans", _vlan_ids(words[4]))
        elif text == "switchport trunk allowed vlan all":
            result = ("trunk_vlans", [])  # EOS's default: a trunk with no allowed list carries every VLAN
        elif words[:4] == ["switchport", "trunk", "native", "vlan"] and len(words) == 5 and words[4].isdigit():
            result = ("native_vlan", int(words[4]))
        elif text == "switchport trunk native vlan tag":
            result = ("native_vlan_tag", True)
        elif words[:3] == ["switchport", "trunk", "group"] and len(words) == 4:
            result = ("trunk_group", words[3])
        elif (words[0] == "channel-group" and len(words) == 4 and words[1].isdigit() and words[2] == "mode"
              and words[3] in ("active", "passive", "on")):
            result = ("channel_group", (f"Port-Channel{int(words[1])}", words[3]))
        elif text in ("spanning-tree portfast", "spanning-tree bpduguard enable"):
            # Edge-port protection (Arista EOS User Manual, "Spanning Tree Protocol": PortFast skips the
            # listening/learning states, BPDU guard err-disables an edge port that receives a BPDU); neither
            # changes a forwarding path the checks compute on a loop-free fabric.
            result = ("noop", None)
        elif words[0] == "service-profile" and len(words) == 2 and words[1] in self.profiles:
            # A profile the config does not define stays unmodelled: the port's QoS is unknown, and the RoCE
            # checks must say incomplete rather than judge a port without QoS.
            result = ("profile", words[1])
        elif words[0] == "storm-control" and (storm := _storm_control(words)) is not None:
            result = ("storm_control", storm)
        elif text == "ptp enable":
            result = ("ptp", True)
        elif text == "spanning-tree bpdufilter enable":
            result = ("stp_bpdufilter", True)
        elif words[:3] == ["mac", "security", "profile"] and len(words) == 4:
            result = ("macsec_profile", words[3])
        self.line_cache[text] = result
        return result

    def _ethernet(self, node: Node, name: str) -> None:
        interface = empty_interface(name)
        interface["enabled"] = True  # EOS's default: `shutdown` is printed when a port is down
        direct_qos, profile_name, qos_line = None, None, None
        switchport = None
        for child in node.children:
            text = child.text
            if text.startswith("description "):
                interface["description"] = text.split(None, 1)[1]
            elif text == "ip address dhcp":
                interface["dhcp"] = True  # the address is leased (EOS "DHCP client"): no static address to check
            elif text.startswith("ip address ") and text.count(" ") == 2:
                interface["ip"] = text[len("ip address "):]
            elif text.startswith("vrf ") and text.count(" ") == 1:
                # A routed port (or subinterface) of a tenant VRF: its address is that VRF's, and may repeat the
                # default VRF's on the parent port (AVD WAN: Ethernet1 and Ethernet1.101 both 10.0.1.9/31).
                interface["vrf"] = text.split()[1]
            else:
                decoded = self._ethernet_line(text)
                if decoded is None:
                    # Routing lines only where the cached common lines did not match (a 1,024-port spine).
                    if text[:2] in ("ip", "is") and (_ipv6_line(text, interface) or igp.interface_line(child, interface)):
                        child.used = True
                        continue
                    if direct_qos is None:
                        direct_qos = empty_port_qos()
                    if self._port_qos_line(child, direct_qos, self.qos["scheduling"]):
                        qos_line = qos_line or child
                    continue
                field, value = decoded
                if field == "speed":
                    interface["speed_gbps"], interface["lanes"] = value
                    if value[1] is None and value[0] not in SINGLE_LANE_SPEEDS_GBPS:
                        interface["speed_default_lanes"] = True  # `speed forced 100gfull`: the cage's default
                    else:
                        interface.pop("speed_default_lanes", None)
                elif field == "switchport":
                    switchport = value
                    if text.startswith("switchport mode "):
                        interface["switchport_mode"] = text.split()[2]
                elif field in _LAYER2_FIELDS:
                    _layer2_field(interface, field, value)
                    if field == "channel_group":
                        self.at(f"interface {name} channel-group", child)
                elif field == "mtu":
                    interface["mtu"] = value
                    self.at(f"interface {name} mtu", child)
                elif field == "access_vlan" or field == "native_vlan":
                    switchport = True if field == "access_vlan" else switchport
                    interface["access_vlan"] = value
                elif field == "trunk_vlans":
                    switchport, interface["trunk_vlans"] = True, value
                elif field == "profile":
                    profile_name, qos_line = value, child
                elif field in _PORT_SETTINGS:
                    _port_setting(interface, field, value)
                elif field != "noop":
                    interface[field] = value
            child.used = True
        mode = interface.get("switchport_mode")
        if (mode == "access" and interface["access_vlan"] is not None) or (mode == "trunk" and interface["trunk_vlans"]):
            del interface["switchport_mode"]  # implied by the VLANs (our renderer's form): the contract keeps one
        if interface.pop("_ipv6_enable", False) and not interface["ip"] and switchport is False:
            interface["unnumbered"] = True  # IPv6 link-local only: BGP over it is RFC 5549 (neighbor interface)
        if interface["access_vlan"] is not None and interface["trunk_vlans"]:
            # The renderer adds the native VLAN to the allowed list; the contract keeps them apart.
            interface["trunk_vlans"] = [vlan for vlan in interface["trunk_vlans"] if vlan != interface["access_vlan"]]
        if switchport:
            interface["kind"] = "server"
        elif switchport is False:
            interface["kind"] = "server" if interface["description"].startswith("SERVER ") else "fabric"
        else:
            interface["kind"] = "unused"
        if interface["kind"] != "unused":
            interface["peer_device"], interface["peer_interface"] = peer_from_description(interface["description"])
        interface["qos"] = self._port_qos(profile_name, direct_qos if qos_line is not None else None)
        self.structured["interfaces"].append(interface)
        self.at(f"interface {name}", _use(node))
        if qos_line is not None:
            self.at(f"interface {name} qos", qos_line)

    def _port_qos(self, profile_name: str | None, direct: dict | None) -> dict:
        """A port's QoS: its service-profile's (one dict shared by every port naming the profile, as the compiler
        shares them), merged with QoS commands on the interface itself (AVD prints PFC there)."""
        if profile_name is None:
            return direct or {}
        profile = self.profiles[profile_name]
        for queue, entry in self.profile_scheduling[profile_name].items():
            self.qos["scheduling"].setdefault(queue, entry)
        if direct is None:
            return profile
        return {"trust": direct["trust"] or profile["trust"],
                "pfc_priorities": sorted({*profile["pfc_priorities"], *direct["pfc_priorities"]}),
                "pfc_watchdog": direct["pfc_watchdog"] or profile["pfc_watchdog"],
                "ecn": {**profile["ecn"], **direct["ecn"]}, "headroom": {}}

    def _loopback(self, node: Node, name: str) -> None:
        loopback = {"name": name, "ip": None, "purpose": None}
        for child in node.children:
            words = child.words()
            if words[0] == "description" and len(words) == 2:
                loopback["purpose"] = words[1]
            elif words[:2] == ["ip", "address"] and len(words) == 3:
                loopback["ip"] = words[2]
            elif child.text == "no shutdown" or igp.interface_line(child, loopback):
                pass
            else:
                continue
            _use(child)
        self.structured["loopbacks"].append(loopback)
        self.at(f"interface {name}", _use(node))

    def _management_interface(self, node: Node, name: str) -> None:
        management = self.management
        management["interface"] = name
        for child in node.children:
            words = child.words()
            if words[0] == "description" or child.text == "no shutdown":
                pass
            elif words[0] == "vrf" and len(words) == 2:
                management["vrf"] = words[1]
            elif child.text == "ip address dhcp":
                management["address"] = None  # the contract's null: the switch keeps its DHCP/ZTP address
            elif words[:2] == ["ip", "address"] and len(words) == 3:
                management["address"] = words[2]
            else:
                continue
            _use(child)
        self.at("management", _use(node))

    def _management_global(self, node: Node) -> None:
        words = node.words()
        management = self.management
        vrf = None
        if "vrf" in words:
            vrf = words[words.index("vrf") + 1]
            words = words[:words.index("vrf")] + words[words.index("vrf") + 2:]
        if words[:2] == ["ip", "name-server"] and len(words) == 3:
            management.setdefault("dns_servers", []).append(words[2])
        elif words[:2] == ["ip", "route"] and len(words) == 4 and words[2] == "0.0.0.0/0":
            management["gateway"] = words[3]
        elif words[:2] == ["ntp", "server"] and len(words) >= 3 and set(words[3:]) <= _NTP_OPTIONS \
                and len(set(words[3:])) == len(words[3:]):
            management.setdefault("ntp_servers", []).append(words[2])
            options = {"iburst": "iburst" in words[3:], "prefer": "prefer" in words[3:]}
            if options != _NTP_COMPILED_OPTIONS:  # the compiler's form (iburst) needs no record
                management.setdefault("ntp_options", {})[words[2]] = options
        elif words[:2] == ["ntp", "local-interface"] and len(words) == 3:
            pass
        elif words[0] == "logging" and words[1:2] == ["host"] and len(words) == 3:
            management.setdefault("syslog_servers", []).append(words[2])
        else:
            return
        if vrf and vrf != "default":
            management.setdefault("global_vrf", vrf)
        _use(node)

    def _eapi(self, node: Node) -> None:
        if node.text != "management api http-commands":
            return
        for child in node.children:
            if child.text in ("protocol https", "no shutdown"):
                _use(child)
            elif child.words()[0] == "vrf" and len(child.words()) == 2:
                _use(child)
                for grandchild in child.children:
                    if grandchild.text == "no shutdown":
                        _use(grandchild)
        _use(node)

    def _svi(self, node: Node, vlan_id: int) -> None:
        svi: dict[str, Any] = {"ip": None, "mac": None, "mtu": None, "vrf": None, "address": None,
                               "virtual_router_addresses": []}
        for child in node.children:
            words = child.words()
            if words[0] == "description" or child.text == "no shutdown":
                pass
            elif child.text == "no autostate":
                # Keeps the SVI up while no other port carries its VLAN (Arista EOS User Manual, "Autostate"):
                # what an MLAG peer SVI needs before the peer-link is up; no address or path changes.
                pass
            elif words[0] == "mtu" and len(words) == 2:
                svi["mtu"] = int(words[1])
                self.at(f"interface Vlan{vlan_id} mtu", child)
            elif words[0] == "vrf" and len(words) == 2:
                svi["vrf"] = words[1]
            elif words[:3] == ["ip", "address", "virtual"] and len(words) == 4:
                svi["ip"] = words[3]
            elif words[:2] == ["ip", "address"] and len(words) == 3:
                svi["address"] = words[2]
                self.at(f"interface Vlan{vlan_id} ip address", child)
            elif words[:3] == ["ip", "virtual-router", "address"] and len(words) == 4:
                svi["virtual_router_addresses"].append(words[3])
            elif child.text == "ipv6 enable":
                svi["ipv6_enable"] = True  # IPv6 link-local only: an unnumbered (RFC 5549) session runs over it
            elif words[:2] == ["ip", "helper-address"] and (relay := _dhcp_relay(words[2:])) is not None:
                svi.setdefault("dhcp_relay", []).append(relay)
            else:
                continue
            _use(child)
        self.svis[vlan_id] = svi
        self.at(f"interface Vlan{vlan_id}", _use(node))

    def _vxlan(self, node: Node) -> None:
        vxlan: dict[str, Any] = {"source_interface": None, "vtep_ip": None, "udp_port": 4789, "mtu": None,
                                 "vlan_vnis": {}, "vrf_vnis": {}, "flood_lists": {}}
        for child in node.children:
            words = child.words()
            if child.text in _KNOWN_NOOPS or words[0] == "description":
                pass
            elif child.text == "vxlan virtual-router encapsulation mac-address mlag-system-id":
                # Routed VXLAN traffic of an MLAG pair carries the pair's shared system MAC (EOS "VXLAN", "MLAG"):
                # both peers answer as one VTEP; the pair (mlag.peers) and its shared VTEP address are checked.
                pass
            elif words[:2] == ["vxlan", "source-interface"] and len(words) == 3:
                vxlan["source_interface"] = words[2]
            elif words[:2] == ["vxlan", "udp-port"] and len(words) == 3:
                vxlan["udp_port"] = int(words[2])
            elif words[:2] == ["vxlan", "vlan"] and len(words) == 5 and words[3] == "vni":
                for vlan_id, vni in _vni_range(child, words[2], words[4]):
                    vxlan["vlan_vnis"][str(vlan_id)] = vni
                    self.at(f"vxlan vlan {vlan_id}", child)  # the line a VNI finding cites
            elif words[:2] == ["vxlan", "vrf"] and len(words) == 5 and words[3] == "vni":
                vxlan["vrf_vnis"][words[2]] = int(words[4])
                self.at(f"vxlan vrf {words[2]}", child)
            else:
                continue
            _use(child)
        self.structured["vxlan"] = vxlan
        self.at("vxlan", _use(node))

    def _port_channel(self, node: Node, name: str) -> None:
        """``interface Port-ChannelN``: the bundle's own settings; members name it with ``channel-group N``."""
        bundle: dict[str, Any] = {
            "name": name, "members": [], "min_links": None, "mtu": None, "enabled": True, "description": "",
            "ip": None, "switchport_mode": None, "access_vlan": None, "trunk_vlans": [], "trunk_groups": [],
            "native_vlan_tag": False, "mlag": None, "qos": {}}
        direct_qos = empty_port_qos()
        profile_name, direct_stated = None, False
        for child in node.children:
            text, words = child.text, child.words()
            if text.startswith("description "):
                bundle["description"] = text.split(None, 1)[1]
            elif words[:2] == ["ip", "address"] and len(words) == 3:
                bundle["ip"] = words[2]
            elif words[0] == "mlag" and len(words) == 2 and words[1].isdigit():
                bundle["mlag"] = int(words[1])
                self.at(f"interface {name} mlag", child)
            elif words[:2] == ["port-channel", "min-links"] and len(words) == 3 and words[2].isdigit():
                bundle["min_links"] = int(words[2])
            elif text == "evpn ethernet-segment":
                bundle["evpn_ethernet_segment"] = _ethernet_segment(child)
                self.at(f"interface {name} evpn ethernet-segment", child)
                for line in child.children:  # the lines an overlay.esi finding cites
                    if line.used:
                        self.at(f"interface {name} evpn ethernet-segment {line.words()[0]}", line)
            elif words[:2] == ["lacp", "system-id"] and len(words) == 3 and _LACP_SYSTEM_ID.fullmatch(words[2]):
                bundle["lacp_system_id"] = words[2].lower()
                self.at(f"interface {name} lacp system-id", child)  # the line an overlay.esi finding cites
            elif self._port_qos_line(child, direct_qos, self.qos["scheduling"]):
                direct_stated = True
                self.at(f"interface {name} qos", child)
                continue
            else:
                decoded = self._ethernet_line(text)
                if decoded is None or decoded[0] in ("speed", "channel_group"):
                    continue
                field, value = decoded
                if field == "profile":
                    profile_name = value
                    self.at(f"interface {name} qos", child)
                if field == "enabled" or field == "mtu":
                    bundle[field] = value
                    if field == "mtu":
                        self.at(f"interface {name} mtu", child)
                elif field == "switchport":
                    if text.startswith("switchport mode "):
                        bundle["switchport_mode"] = words[2]
                elif field == "access_vlan" or field == "native_vlan":
                    bundle["access_vlan"] = value
                elif field == "trunk_vlans":
                    bundle["trunk_vlans"] = value
                elif field in _LAYER2_FIELDS:
                    _layer2_field(bundle, field, value)
                elif field in _PORT_SETTINGS:
                    _port_setting(bundle, field, value)
            _use(child)
        if bundle["access_vlan"] is not None:
            bundle["trunk_vlans"] = [vlan for vlan in bundle["trunk_vlans"] if vlan != bundle["access_vlan"]]
        if profile_name is not None or direct_stated:
            bundle["qos"] = self._port_qos(profile_name, direct_qos if direct_stated else None)
        self.port_channels[name] = bundle
        self.at(f"interface {name}", _use(node))

    def _mlag(self, node: Node) -> None:
        """``mlag configuration`` (Arista EOS User Manual, "Multi-Chassis Link Aggregation")."""
        mlag: dict[str, Any] = {"domain_id": None, "local_interface": None, "peer_address": None,
                                "peer_link": None, "reload_delay_mlag_s": None, "reload_delay_non_mlag_s": None}
        keys = {"domain-id": "domain_id", "local-interface": "local_interface", "peer-address": "peer_address",
                "peer-link": "peer_link"}
        for child in node.children:
            words = child.words()
            if words[0] in keys and len(words) == 2:
                mlag[keys[words[0]]] = words[1]
                self.at(f"mlag {words[0]}", child)
            elif words[0] == "reload-delay" and len(words) == 3 and words[1] in _RELOAD_DELAY_KEYS:
                mlag[_RELOAD_DELAY_KEYS[words[1]]] = int(words[2])
            elif words[0] == "reload-delay" and len(words) == 2 and words[1].isdigit():
                mlag["reload_delay_mlag_s"] = int(words[1])  # the older single form: MLAG ports only
            else:
                continue
            _use(child)
        self.structured["mlag"] = mlag
        self.at("mlag", _use(node))

    def _spanning_tree(self, node: Node) -> None:
        """Global spanning-tree lines (Arista EOS User Manual, "Spanning Tree Protocol"): the mode, bridge
        priorities per MST instance or VLAN, and VLANs with STP off (the MLAG peer VLANs)."""
        words = node.words()
        stp = self.structured.setdefault("spanning_tree", {"mode": None, "priorities": {},
                                                            "disabled_vlans": []})
        if words[:2] == ["spanning-tree", "mode"] and len(words) == 3:
            stp["mode"] = words[2]
        elif (words[:2] == ["spanning-tree", "mst"] or words[:2] == ["spanning-tree", "vlan-id"]) and len(
                words) == 5 and words[3] == "priority" and words[4].isdigit() and _VLAN_LIST.fullmatch(words[2]):
            for key in (_vlan_ids(words[2]) if words[1] == "vlan-id" else [int(words[2])]):
                stp["priorities"][str(key)] = int(words[4])
        elif words[:2] == ["spanning-tree", "priority"] and len(words) == 3 and words[2].isdigit():
            stp["priorities"]["0"] = int(words[2])  # RSTP/MST instance 0
        elif words[:3] == ["no", "spanning-tree", "vlan-id"] and len(words) == 4 and _VLAN_LIST.fullmatch(words[3]):
            stp["disabled_vlans"] = sorted({*stp["disabled_vlans"], *_vlan_ids(words[3])})
        else:
            return
        self.at("spanning-tree", _use(node))

    # ------------------------------------------------------------------------------------- prefix lists
    def _prefix_list(self, node: Node) -> None:
        entries = []
        for child in node.children:
            words = child.words()
            if words[0] == "seq" and len(words) >= 4 and words[2] == "permit":
                exact = int(words[5]) if words[4:5] == ["eq"] and len(words) == 6 else None
                entries.append((words[3], exact))
                _use(child)
        self.prefix_lists[node.words()[2]] = entries
        _use(node)

    def _route_map(self, node: Node) -> None:
        words = node.words()
        if words[2] != "permit":
            return
        lists = []
        for child in node.children:
            child_words = child.words()
            if child_words[:4] == ["match", "ip", "address", "prefix-list"] and len(child_words) == 5:
                lists.append(_use(child).words()[4])
        self.route_maps.setdefault(words[1], []).extend(lists)
        _use(node)

    # ----------------------------------------------------------------------------------------------- BGP
    def _router_bgp(self, node: Node) -> None:
        bgp = self.structured["bgp"]
        bgp["asn"] = node_value(node, parse_asn, node.words()[2])
        self.at("bgp", _use(node))
        groups: dict[str, dict] = {}
        neighbors: dict[str, dict] = {}
        options: dict[str, dict] = {}  # neighbor or group -> update-source / ebgp-multihop (overlay sessions)
        activated: dict[str, set] = {}
        timers = None

        def group(name):
            return groups.setdefault(name, {"name": name, "remote_as": "external", "bfd": False,
                                            "address_families": []})

        # Groups whose text states a remote-as: a neighbor stating none inherits only a stated one (EOS starts no
        # session without a remote AS; the contract's "external" default of a group is not something EOS says).
        stated_remote_as: set[str] = set()

        def neighbor(address):
            return neighbors.setdefault(address, {"address": address, "interface": None, "remote_as": None,
                                                  "peer_device": None, "peer_interface": None, "peer_group": None,
                                                  "address_families": [], "description": ""})

        for child in node.children:
            words = child.words()
            # asplain notation changes no route the model describes.
            if child.text in _KNOWN_NOOPS or child.text == "bgp asn notation asplain":
                pass
            elif child.text == "update wait-install":
                bgp["update_wait_install"] = True
            elif words[:2] == ["distance", "bgp"] and len(words) == 5 and all(word.isdigit() for word in words[2:]):
                bgp["distance"] = {"external": int(words[2]), "internal": int(words[3]), "local": int(words[4])}
            elif words[0] == "vlan-aware-bundle" and len(words) == 2:
                self._bgp_bundle(child)
                continue
            elif words[0] == "router-id" and len(words) == 2:
                bgp["router_id"] = words[1]
            elif words[0] == "maximum-paths" and len(words) in (2, 4):
                bgp["maximum_paths"] = int(words[1])
            elif words[0] == "redistribute" and words[1:2] == ["connected"] and len(words) in (2, 4):
                self.redistribute_connected = words[3] if len(words) == 4 else ""
            elif words[:3] == ["bgp", "listen", "range"] and len(words) == 8 and words[4] == "peer-group" \
                    and words[6] == "remote-as":
                # Dynamic neighbors (EOS "BGP listen range"): any address of the prefix may open a session.
                bgp.setdefault("listen_ranges", []).append(
                    {"name": words[5], "prefixes": [words[3]], "remote_as": node_value(child, remote_as_value, words[7])})
            elif words[:2] == ["neighbor", "interface"] and len(words) in (5, 7) and words[3] == "peer-group" and (
                    len(words) == 5 or words[5] == "remote-as"):
                # RFC 5549 / unnumbered: BGP over the port's IPv6 link-local address (EOS 4.24+).
                for port in _interface_range(words[2]):
                    entry = neighbor(f"interface {port}")
                    entry.update(address=None, interface=port, peer_group=words[4])
                    if len(words) == 7:
                        entry["remote_as"] = node_value(child, remote_as_value, words[6])
            elif words[0] == "neighbor" and len(words) >= 3:
                target, rest = words[1], words[2:]
                address = ip_address_text(target)
                is_group = address is None
                target = address or target
                if rest == ["peer", "group"] and is_group:
                    group(target)
                elif rest[:2] == ["peer", "group"] and len(rest) == 3:
                    neighbor(target)["peer_group"] = rest[2]
                    self.at(f"bgp neighbor {target} peer group", child)
                elif rest[0] == "remote-as" and len(rest) == 2:
                    value = node_value(child, remote_as_value, rest[1])
                    self.at(f"bgp neighbor {target} remote-as", child)  # the line a session finding cites
                    (group(target) if is_group else neighbor(target))["remote_as"] = value
                    if is_group:
                        stated_remote_as.add(target)
                elif rest[0] in ("local-as", "route-map", "prefix-list") or rest in (
                        ["bfd"], ["shutdown"], ["route-reflector-client"], ["next-hop-self"]):
                    if rest == ["bfd"]:
                        self.at(f"bgp neighbor {target} bfd", child)  # the line a BFD finding cites
                    if not neighbor_option(rest, group(target) if is_group else neighbor(target), child):
                        continue
                elif rest[0] == "timers" and len(rest) == 3:
                    timers = (int(rest[1]), int(rest[2]))
                    self.at(f"bgp neighbor {target} timers", child)
                elif rest[0] == "description" and len(rest) >= 2:
                    (group(target) if is_group else neighbor(target))["description"] = child.text.split(None, 3)[3]
                elif rest[0] == "allowas-in" and len(rest) == 2:
                    bgp["allowas_in"] = int(rest[1])
                elif rest[:2] == ["send-community", "extended"] or rest == ["send-community"] or (
                        rest[0] == "maximum-routes" and len(rest) == 2 and rest[1].isdigit()) or rest == [
                        "next-hop-unchanged"]:
                    pass  # route limits and communities: not in the model (EVPN needs extended ones, AVD sends all)
                elif rest[0] in ("update-source", "ebgp-multihop") and len(rest) == 2:
                    options.setdefault(target, {})[rest[0]] = rest[1]
                else:
                    continue
            elif words[0] == "vlan" and len(words) == 2 and words[1].isdigit():
                self._bgp_vlan(child)
                continue
            elif words[:2] == ["address-family", "evpn"] and len(words) == 2:
                bgp["evpn"]["enabled"] = True
                self._address_family(child, "l2vpn_evpn", activated)
            elif words[:2] == ["address-family", "ipv4"] and len(words) == 2:
                self._address_family(child, "ipv4_unicast", activated)
            elif words[:2] == ["address-family", "ipv6"] and len(words) == 2:
                self._address_family(child, "ipv6_unicast", activated)
            elif words[0] == "vrf" and len(words) == 2:
                self._bgp_vrf(child)
                continue
            else:
                continue
            _use(child)
        if timers:
            bgp["keepalive_s"], bgp["hold_s"] = timers
        for target, rest, line, export, family in self.af_neighbor_options:
            if target in groups or target in neighbors:
                neighbor_option(rest, groups.get(target) or neighbors[target], line, family)
                line.used = line.used or not export  # an export policy line: used when its route map is read
        for name, entry in groups.items():
            entry["address_families"] = [family for family in FAMILY_ORDER if family in activated.get(name, ())]
        bgp["peer_groups"] = list(groups.values())
        bgp["bfd"] = any(entry["bfd"] for entry in groups.values())
        overlay = []
        for address, entry in neighbors.items():
            parent = groups.get(entry["peer_group"] or "", {})
            families = set(activated.get(address, ())) | set(parent.get("address_families", ()))
            entry["address_families"] = [family for family in FAMILY_ORDER if family in families]
            if entry["remote_as"] is None and entry["peer_group"] in stated_remote_as:
                entry["remote_as"] = parent.get("remote_as")
            entry["peer_device"], entry["peer_interface"] = neighbor_peer_from_description(entry["description"])
            inherit(entry, parent)
            settings = {**options.get(entry["peer_group"] or "", {}), **options.get(address, {})}
            if "ebgp-multihop" in settings or "update-source" in settings:
                # EVPN between loopbacks (AVD's overlay): the structured config has EVPN on the underlay sessions
                # instead; compiler.parse.fabric moves the address family onto the sessions toward that device.
                if "update-source" in settings:
                    entry["update_source"] = settings["update-source"]  # kept when no underlay session carries it
                overlay.append(entry)
            else:
                bgp["neighbors"].append(entry)
        self.structured["_overlay_neighbors"] = overlay
        # The overlay's peer group stays a peer group (its BFD, families, timers as stated), with no member on the
        # underlay: the writers print it back, so render(parse(text)) keeps its `bfd` (bgp.bfd is any group's).
        bgp["peer_groups"] = list(groups.values())

    def _export_policies(self, policies: AsPathPolicies) -> None:
        """``neighbor X route-map NAME out`` lines (kept aside by _address_family) onto their neighbors."""
        bgp = self.structured["bgp"]
        exports: list[tuple[Node, str, str]] = bgp.pop("_exports", [])
        apply_route_maps(policies, exports, {entry["address"]: entry for entry in bgp["neighbors"]}, bgp)

    def _address_family(self, node: Node, family: str, activated: dict[str, set]) -> None:
        bgp = self.structured["bgp"]
        for child in node.children:
            words = child.words()
            if words[0] == "neighbor" and words[2:] == ["activate"] and len(words) == 3:
                activated.setdefault(words[1], set()).add(family)
            elif words[0] == "no" and words[1:2] == ["neighbor"] and words[3:] == ["activate"]:
                pass
            elif family == "ipv4_unicast" and words[0] == "neighbor" and words[2:] == [
                    "next-hop", "address-family", "ipv6", "originate"]:
                pass  # RFC 5549: IPv4 routes over the IPv6 next hop of an unnumbered session
            elif family == "l2vpn_evpn" and child.text == "bgp next-hop-unchanged":
                bgp["evpn"]["_next_hop_unchanged"] = True
            elif family == "ipv4_unicast" and words[0] == "network" and len(words) == 2:
                bgp["networks"].append(words[1])
            elif family == "ipv4_unicast" and (export := route_map_out(words)):
                bgp.setdefault("_exports", []).append((child, *export))
                # Also a reference whose existence is checked (validators.sessions), with its line.
                self.af_neighbor_options.append((ip_address_text(words[1]) or words[1], words[2:], child, True,
                                                 family))
                continue
            elif words[0] == "neighbor" and len(words) == 5 and words[2] in ("route-map", "prefix-list"):
                self.af_neighbor_options.append((ip_address_text(words[1]) or words[1], words[2:], child, False,
                                                 family))
                continue  # onto the neighbor or group once both are known (_router_bgp)
            else:
                continue
            _use(child)

    def _route_targets(self, child: Node, targets: dict, block: str) -> bool:
        words = child.words()
        if words[0] != "route-target" or len(words) < 3:
            return False
        direction, values = words[1], [word for word in words[2:] if word != "evpn"]
        if direction not in ("both", "import", "export") or len(values) != 1:
            return False
        for key in (("import", "export") if direction == "both" else (direction,)):
            targets[key].append(values[0])
            self.at(f"{block} route-target {key}", child)  # the line a route-target finding cites
        return True

    def _bgp_vlan(self, node: Node) -> None:
        vlan_id = int(node.words()[1])
        entry: dict[str, Any] = {"rd": None, "route_targets": {"import": [], "export": []}}
        for child in node.children:
            words = child.words()
            if words[0] == "rd" and len(words) == 2:
                entry["rd"] = words[1]
            elif child.text == "redistribute learned" or self._route_targets(child, entry["route_targets"],
                                                                             f"bgp vlan {vlan_id}"):
                pass
            elif not _remote_domain_line(words, entry):
                continue
            _use(child)
        self.bgp_vlans[vlan_id] = entry
        self.at(f"bgp vlan {vlan_id}", _use(node))

    def _bgp_bundle(self, node: Node) -> None:
        """``vlan-aware-bundle NAME``: one EVPN MAC-VRF for several VLANs (RFC 7432 section 6.3, the VLAN-aware
        bundle service; Arista EOS User Manual, "EVPN VLAN-aware bundle"): its RD, route targets, whether it
        advertises learned MACs, and the VLANs it carries."""
        name = node.words()[1]
        entry: dict[str, Any] = {"name": name, "rd": None, "route_targets": {"import": [], "export": []},
                                 "redistribute_learned": False, "vlans": []}
        for child in node.children:
            words = child.words()
            if words[0] == "rd" and len(words) == 2:
                entry["rd"] = words[1]
            elif child.text == "redistribute learned":
                entry["redistribute_learned"] = True
            elif words[0] == "vlan" and len(words) == 2 and _VLAN_LIST.fullmatch(words[1]):
                entry["vlans"] = sorted({*entry["vlans"], *_vlan_ids(words[1])})
            elif not self._route_targets(child, entry["route_targets"], f"bgp vlan-aware-bundle {name}"):
                continue
            _use(child)
        self.structured["bgp"].setdefault("vlan_aware_bundles", []).append(entry)
        self.at(f"bgp vlan-aware-bundle {name}", _use(node))

    def _bgp_vrf(self, node: Node) -> None:
        entry: dict[str, Any] = {"name": node.words()[1], "rd": None, "l3vni": None,
                                 "route_targets": {"import": [], "export": []}}
        redistribute: list[dict] = []
        neighbors: dict[str, dict] = {}
        for child in node.children:
            words = child.words()
            if words[0] == "rd" and len(words) == 2:
                entry["rd"] = words[1]
            elif words[0] == "router-id" and len(words) == 2:
                pass
            elif child.text == "update wait-install":
                entry["update_wait_install"] = True
            elif (words[0] == "redistribute" and words[1:2] and words[1] in REDISTRIBUTED_SOURCES
                  and (len(words) == 2 or (len(words) == 4 and words[2] == "route-map"))):
                redistribute.append({"protocol": words[1], "route_map": words[3] if len(words) == 4 else None})
            elif self._route_targets(child, entry["route_targets"], f"bgp vrf {entry['name']}"):
                pass
            elif _vrf_neighbor_line(child, neighbors):
                # The lines a bgp.sessions finding on this VRF session cites (validators.configs._own_lines).
                target = f"interface {words[2]}" if words[1] == "interface" else ip_address_text(words[1])
                self.at(f"bgp vrf {entry['name']} neighbor {target}", child)
                if "remote-as" in words:
                    self.at(f"bgp vrf {entry['name']} neighbor {target} remote-as", child)
            else:
                continue
            _use(child)
        if redistribute != [{"protocol": "connected", "route_map": None}]:
            entry["redistribute"] = redistribute  # absent: the plain `redistribute connected` every tenant VRF has
        if neighbors:
            entry["neighbors"] = list(neighbors.values())
        self.structured["bgp"]["vrfs"].append(entry)
        self.at(f"bgp vrf {entry['name']}", _use(node))

    # ------------------------------------------------------------------------------------------- finish
    def _finish(self) -> None:
        structured = self.structured
        bgp = structured["bgp"]
        structured["asn"], structured["router_id"] = bgp["asn"], bgp["router_id"]
        evpn = bgp["evpn"]
        # Only a VTEP originates VNIs; a spine relaying EVPN keeps the next hop (bgp next-hop-unchanged).
        evpn["advertise_all_vni"] = (evpn["enabled"] and bool(structured["vxlan"])
                                     and not evpn.pop("_next_hop_unchanged", False))
        if not evpn["enabled"]:
            evpn.pop("_next_hop_unchanged", None)
        # Loopback purposes: our renderer names them; otherwise the router ID and the VTEP source say it.
        vxlan = structured["vxlan"]
        for loopback in structured["loopbacks"]:
            if loopback["purpose"] not in ("router_id", "vtep"):
                if vxlan and loopback["name"] == vxlan["source_interface"] and loopback["name"].lower().startswith(
                        "loopback"):
                    loopback["purpose"] = "vtep"
                elif loopback["ip"] and loopback["ip"].split("/")[0] == bgp["router_id"]:
                    loopback["purpose"] = "router_id"
        if vxlan:
            source = next((lb for lb in structured["loopbacks"] if lb["name"] == vxlan["source_interface"]
                           and lb["name"].lower().startswith("loopback")), None)
            vxlan["vtep_ip"] = source["ip"].split("/")[0] if source and source["ip"] else None
        if self.redistribute_connected is not None and not bgp["networks"]:
            bgp["networks"] = self._redistributed_loopbacks()
        # Always a system block: a parsed EOS config states its own internal VLAN range, or none (EOS's default);
        # the renderer pins one only for a compiled config (compiler.render.eos.INTERNAL_VLAN_ORDER).
        structured.setdefault("system", eos_system.empty_system())
        self._finish_port_channels()
        self._finish_interfaces()
        igp.finish(structured, self.igp_processes, self.at)
        self._finish_vlans()
        layer3_neighbor_interfaces(structured)
        self._finish_qos()
        self._finish_management()
        servers = any(interface["kind"] == "server" for interface in structured["interfaces"])
        structured["role"] = "leaf" if vxlan or servers else "spine"
        sort_structured(structured)

    def _redistributed_loopbacks(self) -> list[str]:
        """``redistribute connected [route-map RM]`` advertises the connected loopbacks the route map's prefix
        lists permit (AVD: RM-CONN-2-BGP -> PL-LOOPBACKS-EVPN-OVERLAY)."""
        lists = self.route_maps.get(self.redistribute_connected or "", [])
        entries = [entry for name in lists for entry in self.prefix_lists.get(name, [])]
        out = []
        for loopback in self.structured["loopbacks"]:
            if not loopback["ip"]:
                continue
            if not self.redistribute_connected or any(_covers(prefix, exact, loopback["ip"])
                                                      for prefix, exact in entries):
                out.append(loopback["ip"])
        return out

    def _finish_interfaces(self) -> None:
        structured = self.structured
        subnets = SubnetIndex(structured)
        for neighbor in structured["bgp"]["neighbors"]:
            if neighbor["address"]:  # an unnumbered neighbor (RFC 5549) names its interface already
                neighbor["interface"] = subnets.interface_for(neighbor["address"])
        fabric_mtus = [i["mtu"] for i in structured["interfaces"] if i["kind"] == "fabric" and i["mtu"]]
        host_mtus = [i["mtu"] for i in structured["interfaces"] if i["kind"] == "server" and i["mtu"]]
        structured["mtu"] = {"underlay": max(fabric_mtus, default=None), "host": max(host_mtus, default=None)}

    def _finish_port_channels(self) -> None:
        """Members onto their bundles: a member takes the bundle's kind (MLAG peer-link, switched, routed) and,
        without its own ``mtu``, the bundle's MTU (Arista EOS User Manual, "Port Channels": members inherit the
        port-channel's configuration)."""
        if not self.port_channels:
            return
        peer_link = (self.structured.get("mlag") or {}).get("peer_link")
        for interface in self.structured["interfaces"]:
            bundle = self.port_channels.get(interface.get("port_channel") or "")
            if bundle is None:
                continue
            bundle["members"].append(interface["name"])
            if bundle["name"] == peer_link:
                interface["kind"] = "peer_link"
            elif bundle["ip"]:
                interface["kind"] = "fabric"
            elif interface["kind"] == "unused":
                interface["kind"] = "server"  # a switched bundle: hosts or the L2 tier above/below
            if interface["mtu"] is None:
                interface["mtu"] = bundle["mtu"]
            if not interface["qos"] and bundle["qos"]:
                # QoS on the port-channel (service-profile, qos trust) applies to its members (EOS "Quality of
                # Service": port-channel settings are the members'): a RoCE class carried through the bundle.
                interface["qos"] = bundle["qos"]
            if interface["peer_device"] is None:
                interface["peer_device"], interface["peer_interface"] = peer_from_description(
                    interface["description"])
        self.structured["port_channels"] = [self.port_channels[name] for name in sorted(
            self.port_channels, key=lambda name: int(name[len("Port-Channel"):]))]

    def _finish_vlans(self) -> None:
        structured = self.structured
        vxlan = structured["vxlan"]
        vlan_vnis = {int(vlan): vni for vlan, vni in (vxlan.get("vlan_vnis") or {}).items()}
        svis, bgp_vlans = self.svis, self.bgp_vlans
        # A VLAN in a VLAN-aware bundle is advertised in the bundle's MAC-VRF (RFC 7432 section 6.3): its RD and
        # route targets are the bundle's (the renderer prints the bundle, not a per-VLAN block, for it).
        bundled = {vlan_id: {"rd": bundle["rd"], "route_targets": bundle["route_targets"]}
                   for bundle in structured["bgp"].get("vlan_aware_bundles") or [] for vlan_id in bundle["vlans"]}
        for vlan_id, name in self.vlan_names.items():
            svi = svis.get(vlan_id)
            bgp_vlan = bgp_vlans.get(vlan_id) or bundled.get(vlan_id) or {
                "rd": None, "route_targets": {"import": [], "export": []}}
            structured["vlans"].append({
                "id": vlan_id, "name": name, "network": name, "vni": vlan_vnis.get(vlan_id), "tenant": None,
                "vrf": svi["vrf"] if svi else None, "rd": bgp_vlan["rd"], "route_targets": bgp_vlan["route_targets"],
                "svi": _svi_entry(svi, self.virtual_mac),
            })
            if vlan_id in self.vlan_trunk_groups:
                structured["vlans"][-1]["trunk_groups"] = self.vlan_trunk_groups[vlan_id]
            if "remote_domain" in bgp_vlan:
                structured["vlans"][-1]["remote_domain"] = bgp_vlan["remote_domain"]
        vlans = {vlan["id"]: vlan for vlan in structured["vlans"]}
        for node, vlan_id, snooping in self.igmp_snooping_lines:
            if vlan_id in vlans:  # a VLAN the config does not define: the line stays unmodelled
                vlans[vlan_id]["igmp_snooping"] = snooping
                _use(node)
        vrf_vnis = vxlan.get("vrf_vnis") or {}
        management_vrf = self.management.get("vrf") or self.management.get("global_vrf")
        for name in self.vrf_names:
            if name == management_vrf:
                continue
            structured["vrfs"].append({"name": name, "tenant": None, "l3vni": vrf_vnis.get(name),
                                       "transit_vlan": None})
        vrfs = {vrf["name"]: vrf for vrf in structured["vrfs"]}
        for node, name, key in self.vrf_routing_lines:
            if name in vrfs:  # a VRF the config does not define (or the management VRF): stays unmodelled
                vrfs[name][key] = True
                _use(node)
        for entry in structured["bgp"]["vrfs"]:
            entry["l3vni"] = vrf_vnis.get(entry["name"])
        fabric_mtus = [i["mtu"] for i in structured["interfaces"] if i["kind"] == "fabric" and i["mtu"]]
        if vxlan and fabric_mtus:
            # EOS states no VXLAN MTU: a tunnel fits the smallest underlay port it may leave by, less the outer
            # headers over IPv4 (RFC 7348); the largest would claim room a 1500-byte uplink does not have.
            vxlan["mtu"] = min(fabric_mtus) - 50

    def _finish_qos(self) -> None:
        structured = self.structured
        ports = [i for i in structured["interfaces"] if i["qos"]]
        if not (self.qos_stated or ports):
            return
        qos = self.qos
        family = QUEUE_KEYWORD_FAMILY.get(self.queue_keyword or "") or self.mmu_family
        structured["hardware"]["asic_family"] = family
        trusts = {port["qos"]["trust"] for port in ports if port["qos"]["trust"]}
        qos["trust"] = trusts.pop() if len(trusts) == 1 else None
        # EOS pauses per traffic class (compiler.render.eos: a lossless class's priority is its traffic class).
        lossless = sorted({priority for port in ports for priority in port["qos"]["pfc_priorities"]})
        qos["lossless_priorities"] = lossless
        classes = sorted({int(tc) for tc in qos["tc_to_queue"]} | {int(tc) for tc in qos["dscp_to_tc"].values()})
        qos["tc_to_priority"] = {str(tc): tc for tc in classes}
        qos["tc_to_priority_group"] = {str(tc): (tc if tc in lossless else 0) for tc in classes}
        for port in ports:
            for queue, ecn in port["qos"]["ecn"].items():
                qos["_ecn_by_queue"].setdefault(queue, ecn)
        if self.mmu_headroom and lossless:
            # One switch-wide XOFF reservation (compiler.render.eos._mmu_profile): each lossless port gets it,
            # split over its lossless priorities; EOS sizes XON itself, so size_bytes is not stated (None).
            for port in {id(port["qos"]): port for port in ports}.values():  # ports share profile dicts
                priorities = port["qos"]["pfc_priorities"]
                if not priorities:
                    continue
                share = self.mmu_headroom // len(priorities)
                port["qos"]["headroom"] = {
                    str(priority): {"xoff_bytes": share + (self.mmu_headroom - share * len(priorities)
                                                           if index == 0 else 0),
                                    "xon_bytes": None, "size_bytes": None, "policy": "static"}
                    for index, priority in enumerate(priorities)}
        structured["qos"] = finish_qos(qos)

    def _finish_management(self) -> None:
        management = self.management
        if not management.get("interface"):
            return
        self.structured["management"] = {
            "interface": management["interface"], "vrf": management.get("vrf") or "default",
            "address": management.get("address"), "gateway": management.get("gateway"),
            "ntp_servers": management.get("ntp_servers", []), "syslog_servers": management.get("syslog_servers", []),
            "dns_servers": management.get("dns_servers", []), "aaa": self.aaa.finish(),
        }
        if management.get("ntp_options"):
            self.structured["management"]["ntp_options"] = management["ntp_options"]


def _vrf_neighbor_line(node: Node, neighbors: dict[str, dict]) -> bool:
    """A BGP session inside a ``router bgp`` / ``vrf`` block (the MLAG peers' per-VRF iBGP session over their
    peer SVI, a border's tenant peering): peer group, remote AS, description; unnumbered over an interface (RFC
    5549) alike. True when the line is one of these."""
    words = node.words()
    if words[:2] == ["neighbor", "interface"] and len(words) in (5, 7) and words[3] == "peer-group" and (
            len(words) == 5 or words[5] == "remote-as"):
        entry = neighbors.setdefault(f"interface {words[2]}", _vrf_neighbor(None, words[2]))
        entry["peer_group"] = words[4]
        if len(words) == 7:
            entry["remote_as"] = node_value(node, remote_as_value, words[6])
        return True
    address = ip_address_text(words[1]) if words[0] == "neighbor" and len(words) >= 3 else None
    if address is None:
        return False
    rest = words[2:]
    if rest[:2] == ["peer", "group"] and len(rest) == 3:
        neighbors.setdefault(address, _vrf_neighbor(address, None))["peer_group"] = rest[2]
    elif rest[0] == "remote-as" and len(rest) == 2:
        neighbors.setdefault(address, _vrf_neighbor(address, None))["remote_as"] = node_value(
            node, remote_as_value, rest[1])
    elif rest[0] == "description" and len(rest) >= 2:
        neighbors.setdefault(address, _vrf_neighbor(address, None))["description"] = node.text.split(None, 3)[3]
    else:
        return False
    return True


def _vrf_neighbor(address: str | None, interface: str | None) -> dict:
    return {"address": address, "interface": interface, "peer_group": None, "remote_as": None, "description": ""}


def _svi_entry(svi: dict | None, virtual_mac: str | None) -> dict | None:
    """The contract's ``vlans[].svi``: the anycast gateway as before, plus the SVI's own address and VARP
    gateways when stated (keys absent otherwise, so configs without them read as before)."""
    if not svi or not (svi["ip"] or svi["address"] or svi["virtual_router_addresses"] or svi.get("ipv6_enable")
                       or svi.get("dhcp_relay")):
        return None
    entry = {"ip": svi["ip"], "mac": virtual_mac, "mtu": svi["mtu"]}
    if svi["address"]:
        entry["address"] = svi["address"]
    if svi["virtual_router_addresses"]:
        entry["virtual_router_addresses"] = svi["virtual_router_addresses"]
    for key in ("ipv6_enable", "dhcp_relay"):
        if svi.get(key):
            entry[key] = svi[key]
    return entry


def _dhcp_relay(words: list[str]) -> dict | None:
    """``ip helper-address A [vrf V] [source-interface I]`` after its first two words (Arista EOS User Manual, "DHCP
    Relay": hosts' DHCP broadcasts forwarded to server A, reached in VRF V, from interface I's address)."""
    if not words or ip_address_text(words[0]) is None:
        return None
    relay: dict[str, Any] = {"address": words[0], "vrf": None, "source_interface": None}
    rest = words[1:]
    for keyword, key in (("vrf", "vrf"), ("source-interface", "source_interface")):
        if rest[:1] == [keyword] and len(rest) >= 2:
            relay[key], rest = rest[1], rest[2:]
    return relay if not rest else None


def _covers(prefix: str, exact_length: int | None, address_prefix: str) -> bool:
    address, _, length = address_prefix.partition("/")
    if exact_length is not None and int(length or 32) != exact_length:
        return False
    return contains(prefix, address)


def _ipv6_line(text: str, interface: dict) -> bool:
    """``ipv6 address A/L`` and ``ipv6 enable`` (link-local only) on a routed port; True when it is one."""
    words = text.split()
    if words[:2] == ["ipv6", "address"] and len(words) == 3 and "/" in words[2]:
        interface["ipv6"] = ipv6_interface_text(words[2])
    elif text == "ipv6 enable":
        interface["_ipv6_enable"] = True
    else:
        return False
    return True


def _vni_range(node: Node, vlans: str, vnis: str) -> list[tuple[int, int]]:
    """``vxlan vlan 10-12 vni 10010-10012`` -> [(10, 10010), (11, 10011), (12, 10012)]: EOS maps the ranges in
    order (EOS User Manual, "VXLAN"); ranges of different lengths are a ValueError naming the line."""
    vlan_ids = _vlan_ids(vlans)
    vni_ids = _vlan_ids(vnis)
    if len(vlan_ids) != len(vni_ids):
        raise ValueError(f"line {node.line}: {node.text!r}: {len(vlan_ids)} VLANs but {len(vni_ids)} VNIs")
    return list(zip(vlan_ids, vni_ids, strict=True))


MAX_RANGE_PORTS = 1024  # a wider "range" is taken as written, never expanded into millions of names


def _interface_range(text: str) -> list[str]:
    """``Ethernet1`` -> [Ethernet1]; ``Ethernet1-4`` / ``Ethernet1/1-3`` (the last number ranged) -> each port."""
    # Split by hand, not with a regex: ``^(.*?)(\d+)-(\d+)$`` backtracks quadratically on a long digit run
    # (tests/test_regex_budget.py). A range wider than any switch's ports is no port range: left as written.
    head, dash, high = text.rpartition("-")
    digits = len(head) - len(head.rstrip("0123456789"))
    if not dash or not high.isdigit() or not high.isascii() or digits == 0:
        return [text]
    prefix, low = head[:-digits], int(head[-digits:])
    if not 0 <= int(high) - low <= MAX_RANGE_PORTS:
        return [text]
    return [f"{prefix}{number}" for number in range(low, int(high) + 1)]


def parse(files: dict[str, str], hostname_hint: str = "") -> ParsedDevice:
    """``{"startup-config": text}`` (or ``running-config``) -> ParsedDevice."""
    file_name, text = next(iter(files.items()))
    return _EosParser(text, file_name, hostname_hint).parse()
