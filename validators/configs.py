"""Validate device configs as text: parse them (compiler.parse), run every static check that can run on configs
alone, and cite each finding's file:line.

:func:`validation_input` is the ONE adapter from parsed configs to what the validators read (today: a
:class:`~validators.context.FabricContext` over ``{hostname: structured config}``, plus the snapshot when the
inventory describes these devices). Checks that need the inventory (physical checks, headroom from cable length,
server MTUs) use it when every parsed hostname is a switch of it; otherwise they are skipped with the reason.
Coverage (docs/validation.md, "How coverage is reported"): :func:`coverage_gaps` classifies every unmodelled line
to a feature and ``_mark_incomplete`` makes the checks depending on it ``incomplete``, naming device, feature and
file:line; BGP neighbors outside the set are external peers at the ``external_peers`` severity.
Pure Python; never imports Django.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import cast

from compiler.errors import FabricTwinError, FieldError, InputError
from compiler.host_config import HostConfig
from compiler.parse import ParsedDevice, ParseError, parse_device
from compiler.parse.carried import carried, differences
from compiler.parse.common import Unmodelled
from compiler.parse.drift import describe_path
from compiler.parse.fabric import complete_fabric
from compiler.parse.fabric import parse_fabric as parse_configs
from compiler.parse.hosts import ParsedHost, parse_host_files
from compiler.render.hosts import QOS_FILE
from compiler.structured.contract import StructuredConfig
from validators.context import FabricContext
from validators.findings import CheckStatus, Finding, Report, Severity, summary
from validators.roce import NO_ROCE
from validators.run import NOTHING_EXAMINED, validate_fabric
from validators.subjects import Subject

NO_INVENTORY = "no inventory (structured configs only)"  # validators.run's reason for inventory checks


@dataclass
class ConfigValidation:
    """A report on parsed configs: findings with the file:line they come from, and every unmodelled line."""

    report: Report
    devices: dict[str, ParsedDevice]
    inventory_reason: str  # "" when the inventory was used, else why not
    gaps: list[CoverageGap] = field(default_factory=list)  # unmodelled lines per device and feature
    locations: dict[int, list[str]] = field(default_factory=dict)  # id(finding) -> ["leaf1/startup-config:63"]
    # GPU servers' host-file lines compiler.parse.hosts does not read: (server, (file, line, text))
    host_unmodelled: list[tuple[str, tuple[str, int, str]]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.report.ok

    def where(self, finding: Finding) -> list[str]:
        return self.locations.get(id(finding), [])

    def unmodelled(self) -> list[tuple[str, Unmodelled]]:
        return [(host, item) for host, device in self.devices.items() for item in device.unmodelled]

    def as_dict(self) -> dict:
        data = self.report.as_dict()
        for check, result in zip(data["checks"], self.report.checks.values(), strict=True):
            for entry, finding in zip(check["findings"], result.findings, strict=True):
                entry["locations"] = self.where(finding)
        data["devices"] = {host: {"platform": device.platform, "files": device.files, "source": device.source,
                                  "detected_by": device.detected_by} for host, device in self.devices.items()}
        data["inventory"] = self.inventory_reason or "used"
        data["unmodelled"] = [{"device": host, **item.as_dict()} for host, item in self.unmodelled()]
        data["unmodelled"] += [{"device": server, "file": file, "line": line, "text": text}
                               for server, (file, line, text) in self.host_unmodelled]
        data["coverage_gaps"] = [{"device": gap.device, "feature": gap.feature, "lines": list(gap.lines)}
                                 for gap in self.gaps]
        return data

    def as_text(self) -> str:
        lines = [f"{self.report.title}: {summary(self.report.counts())}"]
        platforms: dict[str, int] = {}
        for device in self.devices.values():
            platforms[device.platform] = platforms.get(device.platform, 0) + 1
        lines.append("  devices: " + ", ".join(f"{count} {platform}" for platform, count in sorted(platforms.items())))
        for host, device in sorted(self.devices.items()):
            if len(device.files) > 1:  # per-daemon FRR files merged, config_db.json + frr.conf ...
                lines.append(f"  {host} ({device.platform}) from {len(device.files)} files: {', '.join(device.files)}")
        lines.append(f"  inventory: {self.inventory_reason or 'used (hostnames match)'}")
        for result in self.report.checks.values():
            lines.append(f"  {result.headline()}")
            for finding in result.findings:
                where = ", ".join(self.where(finding))
                lines.append(f"      {finding.severity:7} {finding.subject}: {finding.message}"
                             + (f"  [{where}]" if where else ""))
        unmodelled = self.unmodelled()
        lines.append(f"  unmodelled lines/keys: {len(unmodelled) + len(self.host_unmodelled)}")
        for host, item in unmodelled:
            lines.append(f"      {host}/{item}")
        for server, (file, line, text) in self.host_unmodelled:
            lines.append(f"      {server}/{file}:{line}: {text}")
        return "\n".join(lines)


def validation_input(devices: dict[str, ParsedDevice], snapshot=None,
                     external_peers: str = Severity.INFO) -> tuple[FabricContext, str]:
    """The one adapter: parsed configs (+ the inventory's snapshot when it describes them) -> validator input,
    and why the inventory was not used ("" when it was). ``external_peers``: the severity of BGP neighbors
    outside these configs (info, warning or error)."""
    if external_peers not in Severity.ALL:
        raise InputError(FieldError("external_peers", external_peers, f"one of {', '.join(Severity.ALL)}"))
    # The parsers build the contract's shape in plain dicts (every key present, compiler.parse.common.empty_structured).
    structured = {host: cast(StructuredConfig, device.structured) for host, device in devices.items()}
    if snapshot is None:
        return FabricContext(structured, external_peers=external_peers), NO_INVENTORY
    switches = {switch.hostname for switch in snapshot.inventory.switches}
    unknown = sorted(set(structured) - switches)
    if unknown:
        return FabricContext(structured, external_peers=external_peers), (
            f"hostnames not in the inventory: {', '.join(unknown[:5])}"
            + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""))
    _name_unnamed_networks(devices, snapshot.intent)
    return FabricContext(structured, snapshot, external_peers=external_peers), ""


def _name_unnamed_networks(devices: dict[str, ParsedDevice], intent) -> None:
    """A VLAN whose text states no name (FRR/Linux bridges: compiler.parse.fabric labels it ``vni<N>``) takes the
    name of the intent's network with its VLAN ID, so the checks that compare with the intent's networks judge
    what the text states (the VLAN), not a label it cannot state."""
    by_vlan = {network.vlan_id: network.name for network in intent.networks}
    for device in devices.values():
        for vlan in device.structured["vlans"]:
            if not vlan["name"] and vlan["id"] in by_vlan:
                vlan["network"] = by_vlan[vlan["id"]]


def split_host_files(device_files: dict[str, dict[str, str]]) -> tuple[dict[str, dict[str, str]],
                                                                         dict[str, dict[str, str]]]:
    """(switch configs, GPU server host files): a device whose files include the host renderer's ``nic-qos.sh``
    is a server (compiler.render.hosts), read by compiler.parse.hosts; everything else is a switch config."""
    hosts = {key: files for key, files in device_files.items() if QOS_FILE in files}
    return {key: files for key, files in device_files.items() if key not in hosts}, hosts


def parse_hosts(host_files: dict[str, dict[str, str]]) -> dict[str, ParsedHost]:
    """{server: files} -> {server: ParsedHost}; a ParseError names the server's directory."""
    parsed = {}
    for key, files in sorted(host_files.items()):
        try:
            parsed[key] = parse_host_files(key, files)
        except ParseError as error:
            raise ParseError(f"server {key!r}: {error}") from error
    return parsed


def validate_configs(device_files: dict[str, dict[str, str]], snapshot=None, checks=None,
                     title: str | None = None, external_peers: str = Severity.INFO) -> ConfigValidation:
    """Switch configs and, beside them, GPU servers' host files (``<server>/nic-qos.sh`` ...): the hosts.*
    checks then judge the servers' files against the parsed switch ports."""
    switch_files, host_files = split_host_files(device_files)
    devices = parse_configs(switch_files)
    hosts = parse_hosts(host_files)
    validation = validate_parsed(devices, snapshot=snapshot, checks=checks, title=title, external_peers=external_peers,
                                 hosts={key: host.config for key, host in hosts.items()} if hosts else None)
    validation.host_unmodelled = [(key, item) for key, host in hosts.items() for item in host.unmodelled]
    return validation


def validate_parsed(devices: dict[str, ParsedDevice], snapshot=None, checks=None,
                    title: str | None = None, external_peers: str = Severity.INFO,
                    hosts: dict[str, HostConfig] | None = None) -> ConfigValidation:
    ctx, inventory_reason = validation_input(devices, snapshot, external_peers)
    ctx.hosts = hosts
    report = validate_fabric(ctx, checks=checks, title=title or f"validation of {len(devices)} device configs")
    gaps = coverage_gaps(devices)
    _mark_incomplete(report, gaps)
    if inventory_reason and inventory_reason != NO_INVENTORY:
        for result in report.checks.values():
            if result.status == CheckStatus.SKIPPED and result.reason == NO_INVENTORY:
                result.reason = inventory_reason
    validation = ConfigValidation(report, devices, inventory_reason, gaps)
    for finding in report.findings:
        validation.locations[id(finding)] = _locate(finding, devices)
    return validation


def _locate(finding: Finding, devices: dict[str, ParsedDevice]) -> list[str]:
    """file:line of the config lines a finding is about: each end of a link, the port's QoS for RoCE checks."""
    out = _policy_lines(finding, devices)
    ends = Subject.parse(finding.subject).ends
    for index, end in enumerate(ends):
        device, part = devices.get(end.device), end.interface
        if device is None:
            continue
        keys = _own_lines(finding, device, part, str(ends[1 - index]) if len(ends) == 2 else "", devices)
        if part.startswith("VNI") or part.startswith("vni"):
            keys += ["vxlan", "bgp"]
        elif finding.check.startswith("mlag."):
            keys += [part, part.rsplit(" ", 1)[0]]  # the line itself ("mlag domain-id"), else its block
        elif part and finding.check == "routing.igp":
            # The line that made the port passive, else the one that put it in the IGP (`network ... area`, `ip
            # ospf area`), else the IGP process: an end left out of the IGP states no line of its own.
            protocols = [word for word in ("ospf", "isis") if word in finding.message.lower()] or ["ospf", "isis"]
            keys += ([f"interface {part} ip"] if "different subnets" in finding.message else []) + (
                [f"interface {part} igp passive"] if "passive" in finding.message else []) + (
                [f"interface {part} igp level"] if "level" in finding.message else []) + [
                f"interface {part} igp"] + [f"igp {protocol}" for protocol in protocols] + [f"interface {part}"]
        elif part:
            own = {"roce": "qos", "mtu": "mtu"}.get(finding.check.split(".")[0])  # the port's own line for it
            # The very field where the parser located it (SONiC: PORT_QOS_MAP's pfc_enable, the WRED profile).
            field = {"roce.pfc": "pfc", "roce.ecn": "ecn"}.get(finding.check)
            keys += ([f"interface {part} {field}"] if field else []) + (
                [f"interface {part} {own}"] if own else []) + [f"interface {part}"]
        elif finding.check == "bgp.router_ids":
            keys += ["bgp router-id"]  # the statement itself, where the parser located it (else the BGP block)
        elif finding.check == "roce.chain" and (dscp := re.match(r"DSCP (\d+) ", str(finding.actual))):
            keys += [f"qos dscp {dscp.group(1)}"]  # the DSCP's own entry of the classification map
        keys += {"bgp": ["bgp"], "overlay": ["vxlan", "bgp"], "roce": ["qos"], "mtu": ["vxlan"]}.get(
            finding.check.split(".")[0], []) + ["device"]
        where = device.locate(*keys)
        if where:
            stated = POLICY_REF_LINE.match(finding.message) if finding.check == "bgp.sessions" else None
            line = int(stated["line"]) if stated and stated["host"] == end.device.strip() else where[1]
            out.append(f"{device.source or end.device}/{where[0]}:{line}")
    return out


# An undefined policy a neighbor names (validators.sessions._undefined_policies: "HOST line N: neighbor ..."): the
# reference's own line, in the file of the device's BGP block. Bounded repeats (tests/test_regex_budget.py).
POLICY_REF_LINE = re.compile(r"(?P<host>[^ :]{1,200}) line (?P<line>\d{1,10}): neighbor ")


# A neighbor policy's line named in a routing finding (validators.policy.SessionPolicies.decide: "HOST route-map
# NAME deny SEQ (line N)", "HOST prefix-list NAME seq S ... (line N)"). It starts at a literal and every repeat is
# bounded (tests/test_regex_budget.py); the device is the word before it.
POLICY_CITE = re.compile(r"(?:route-map|prefix-list) (?P<name>[^ ;]{1,200}) (?:(?:permit|deny) (?P<seq>\d{1,10}))?"
                         r"[^;(]{0,200}\(line (?P<line>\d{1,10})\)")


def _policy_lines(finding: Finding, devices: dict[str, ParsedDevice]) -> list[str]:
    """file:line of each route-map entry or prefix-list line a finding says stopped a route."""
    out = []
    for match in POLICY_CITE.finditer(finding.message):
        before = finding.message[:match.start()].split()
        device = devices.get(before[-1]) if before else None
        if device is None:
            continue
        where = device.locate(f"route-map {match['name']} {match['seq']}", "bgp", "device")
        if where:
            out.append(f"{device.source or before[-1]}/{where[0]}:{match['line']}")
    return list(dict.fromkeys(out))


def _own_lines(finding: Finding, device: ParsedDevice, part: str, other_end: str,
               devices: dict[str, ParsedDevice]) -> list[str]:
    """The location keys of the very line a finding is about, where the parser located it: a VLAN's or VRF's
    VNI line, a VNI's route-target line (import or export, as the finding says), a session's remote-as line."""
    structured = device.structured
    vlans = [vlan for vlan in structured.get("vlans") or [] if isinstance(vlan, dict)]
    if finding.check == "bgp.sessions" and part.startswith("vrf ") and " neighbor " in part:
        # A tenant VRF session's end (validators.sessions._vrf_sessions): its own statement, else its VRF block.
        return [f"bgp {part} remote-as", f"bgp {part}", f"bgp {part.split(' neighbor ')[0]}"]
    if finding.check == "bgp.sessions" and part.startswith("neighbor "):
        return [f"bgp {part} remote-as", f"bgp {part} peer group"]  # one device's own neighbor statement
    if finding.check in ("bgp.sessions", "bgp.timers_bfd") and other_end:
        host, _, port = other_end.partition(":")
        peer = devices.get(host.strip())
        ports = (peer.structured.get("interfaces") or []) if peer is not None else []
        ports = [item for item in ports if isinstance(item, dict) and item.get("name") == port]
        ports += [item for item in (peer.structured.get("loopbacks") or []) if isinstance(item, dict)
                  and item.get("name") == port] if peer is not None else []
        neighbors = {entry.get("address") for entry in (structured.get("bgp") or {}).get("neighbors") or []
                     if isinstance(entry, dict)}
        # The peer's address this device names: its IPv4 one, else its IPv6 one (SONiC testbeds peer over both).
        addresses = [str(item[key]).split("/")[0] for item in ports for key in ("ip", "ipv6")
                     if isinstance(item.get(key), str)]
        named = [address for address in addresses if address in neighbors]
        if not named and not addresses:
            return []
        address = (named or addresses)[0]
        if finding.check == "bgp.sessions":
            return [f"bgp neighbor {address} remote-as"]
        groups = [entry.get("peer_group") for entry in (structured.get("bgp") or {}).get("neighbors") or []
                  if isinstance(entry, dict) and entry.get("address") == address and entry.get("peer_group")]
        # BFD or timers stated on the neighbor itself, else on its peer group
        return [f"bgp neighbor {name} {what}" for what in ("bfd", "timers") for name in [address, *groups]]
    if finding.check == "overlay.esi":  # the line of the segment the finding is about, else the segment's block
        segment = f"interface {part} evpn ethernet-segment"
        if "different LACP system IDs" in finding.message:
            return [f"interface {part} lacp system-id", segment]
        if "ES-Import" in finding.message:
            return [f"{segment} route-target", segment]
        return [f"{segment} identifier", segment] if "VLANs" not in finding.message else []
    if finding.check in ("overlay.vlan_vni", "overlay.l3vni"):
        ids = [vlan.get("id") for vlan in vlans if part in (vlan.get("network"), vlan.get("name"))]
        return [f"vxlan vlan {ids[0]}"] if ids else [f"vxlan vrf {part}"]
    if finding.check == "overlay.route_targets" and part.startswith("VNI "):
        vni = part.split()[1]
        direction = "export" if " exports no " in finding.message else "import"
        ids = [vlan.get("id") for vlan in vlans if str(vlan.get("vni")) == vni]
        vrf_vnis = ((structured.get("vxlan") or {}).get("vrf_vnis") or {}) if isinstance(structured.get("vxlan"), dict) else {}
        vrfs = [name for name, number in vrf_vnis.items() if str(number) == vni]
        block = f"bgp vlan {ids[0]}" if ids else f"bgp vrf {vrfs[0]}" if vrfs else ""
        return [f"{block} route-target {direction}", block] if block else []
    return []


# --------------------------------------------------------------------------------------------- coverage gaps
# Which checks depend on which part of a config, so an unmodelled line makes exactly those checks incomplete.
# A line is classified by its own first words (CLI) or its CONFIG_DB table; a line that says nothing by itself
# ("description x", "timers 3 9"), or a command that means something else in each block ("network ..." under
# router bgp or router ospf, "mtu" under an interface; BLOCK_RELATIVE), belongs to the block above it: the
# nearest block header the parser located (ParsedDevice.locations) or the nearest unmodelled line that classified
# as a header. A leading "no " is ignored.
# Management-plane commands depend on no check; a line that classifies nowhere ("other") is listed with the
# unmodelled lines but makes no check incomplete (every foreign config has some; marking every check for them
# would say nothing). Features, in the order they are tried (the first prefix that matches wins):
UNMODELLED_FEATURES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("management", ("hostname", "ntp", "logging", "snmp-server", "username", "aaa", "banner", "clock", "dns",
                    "enable password", "enable secret", "transceiver", "vlan internal", "errdisable",
                    "ip icmp", "load-interval", "queue-monitor", "event-handler", "monitor", "ptp",
                    "ip name-server", "ip domain", "management", "daemon", "spanning-tree", "lldp", "service ",
                    "tacacs", "radius", "ip ssh", "sflow", "alias", "terminal", "end", "line vty", "log ",
                    "agent", "ip http", "ip igmp", "DEVICE_METADATA", "NTP", "SYSLOG", "SNMP", "MGMT_", "TACPLUS",
                    "AAA", "FEATURE", "CRM", "KDUMP", "LOGGER", "FLEX_COUNTER", "TELEMETRY", "RESTAPI", "LLDP",
                    "CONSOLE", "SYSTEM_DEFAULTS", "VERSIONS", "management")),
    ("BFD", ("router bfd", "bfd", "BFD")),
    ("QoS/RoCE", ("qos", "priority-flow-control", "pfc", "dcbx", "random-detect", "ecn", "tx-queue", "uc-tx-queue",
                  "traffic-class", "platform trident", "platform sand", "service-profile", "BUFFER_", "PFC_WD",
                  "QUEUE", "WRED_PROFILE", "SCHEDULER", "DSCP_TO_TC_MAP", "TC_TO_", "PORT_QOS_MAP", "MAP_PFC",
                  "CABLE_LENGTH", "roce_qos_ports")),
    ("MLAG", ("mlag", "peer-link", "peer-address", "domain-id", "MCLAG", "local-interface", "heartbeat")),
    ("loopbacks", ("interface Loopback", "LOOPBACK_INTERFACE")),
    ("SVIs", ("interface Vlan", "VLAN_INTERFACE", "ip virtual-router", "ip address virtual", "SAG")),
    ("VLAN/VXLAN/EVPN", ("vlan", "vxlan", "vni", "VLAN", "VXLAN", "vrf", "VRF", "evpn", "advertise-all-vni",
                         "route-target", "rd ", "mac address-table", "EVPN_NVO")),
    ("routing policy", ("route-map", "ip prefix-list", "ipv6 prefix-list", "ip as-path", "ip community-list",
                        "ROUTE_MAP", "PREFIX")),
    ("BGP", ("router bgp", "neighbor", "bgp ", "address-family", "exit-address-family", "redistribute",
             "network ", "maximum-paths", "peer-group", "timers bgp", "BGP_")),
    ("IGP/static routing", ("router ospf", "router isis", "ip ospf", "isis ", "ip router isis", "ipv6 router",
                            "ip route", "ipv6 route", "ip routing", "ipv6 unicast-routing", "STATIC_ROUTE")),
    ("interfaces", ("interface", "mtu", "channel-group", "port-channel", "lacp", "switchport", "ip address",
                    "ipv6 address", "speed", "no switchport", "shutdown", "PORT", "INTERFACE",
                    "LOOPBACK_INTERFACE", "BREAKOUT_CFG", "DEVICE_NEIGHBOR", "links", "bonds", "addresses")),
)
BLOCK_RELATIVE = ("neighbor", "network ", "redistribute", "maximum-paths", "address-family", "exit-address-family",
                  "bgp ", "timers", "mtu", "shutdown", "speed", "switchport", "ip address", "ipv6 address",
                  "channel-group", "vni", "rd ", "route-target", "description", "bfd", "passive-interface",
                  "area ", "router-id", "vrf ")
# Feature -> the checks (names or prefixes) whose verdict depends on it.
FEATURE_CHECKS: dict[str, tuple[str, ...]] = {
    "management": (),
    "other": (),
    "BFD": ("bgp.timers_bfd",),
    # Read into the model (bgp.vrfs[].neighbors) and paired by bgp.sessions within their VRF; their timers and BFD
    # are not modelled (VrfNeighbor states neither), so bgp.timers_bfd does not examine them.
    "BGP in VRFs": ("bgp.timers_bfd",),
    "QoS/RoCE": ("roce.",),
    # fabric.py's note on an EVPN session to an address outside the set: an external peer, reported by bgp.sessions.
    "external peers": (),
    "MLAG": ("mlag.", "bgp.sessions", "bgp.asns", "roce.deadlock"),
    "SVIs": ("overlay.", "mtu.svi"),
    "loopbacks": ("bgp.", "routing.", "whatif.", "clos5.", "overlay."),  # router IDs, VTEPs, VRF loopbacks
    "VLAN/VXLAN/EVPN": ("overlay.", "mtu.overlay_budget", "mtu.svi"),
    # Route maps and prefix lists decide what is advertised, not whether sessions come up.
    # roce.deadlock follows the routes: whatever decides them decides its buffer-dependency graph.
    "routing policy": ("routing.", "whatif.", "clos5.", "overlay.host_reachability", "roce.deadlock"),
    "BGP": ("bgp.", "routing.", "whatif.", "clos5.", "overlay.host_reachability", "overlay.route_targets",
            "roce.deadlock"),
    "IGP/static routing": ("bgp.sessions", "routing.", "whatif.", "clos5.", "overlay.host_reachability",
                           "roce.deadlock"),
    "interfaces": ("bgp.sessions", "bgp.timers_bfd", "mtu.", "mlag.", "roce.pfc", "roce.ecn", "roce.watchdog",
                   "roce.trust", "roce.headroom", "roce.deadlock", "routing.", "whatif.", "clos5.",
                   "overlay.host_reachability"),
}
LOCATION_FEATURES = (("bgp", "BGP"), ("igp", "IGP/static routing"), ("interface Vlan", "SVIs"), ("interface Loopback", "loopbacks"),
                     ("interface", "interfaces"),
                     ("vlan", "VLAN/VXLAN/EVPN"), ("vxlan", "VLAN/VXLAN/EVPN"), ("qos", "QoS/RoCE"),
                     ("vrf", "VLAN/VXLAN/EVPN"), ("mlag", "MLAG"))


@dataclass(frozen=True)
class CoverageGap:
    """One device's unmodelled lines of one feature: what makes the checks depending on it incomplete."""

    device: str
    feature: str
    lines: tuple[str, ...]  # "leaf1/startup-config:34: network 10.255.0.1/32"

    def __str__(self) -> str:
        more = f" and {len(self.lines) - 1} more line(s)" if len(self.lines) > 1 else ""
        return f"{self.device}: {self.feature} not fully read ({self.lines[0]}{more})"


def _own_feature(text: str) -> str | None:
    if text.endswith("EVPN session to an address no parsed device owns"):
        return "external peers"
    text = text[3:] if text.startswith("no ") else text
    for feature, prefixes in UNMODELLED_FEATURES:
        if text.startswith(prefixes):
            return feature
    return None


def coverage_gaps(devices: dict[str, ParsedDevice]) -> list[CoverageGap]:
    """Every device's unmodelled lines grouped by the feature they belong to (management lines left out)."""
    gaps = []
    for host, device in devices.items():
        anchors: dict[str, list[tuple[int, str]]] = defaultdict(list)  # file -> [(line, feature)] of block headers
        for key, (file, line) in device.locations.items():
            # A port's IGP line ("interface X igp": the `network ... area` statement that put it in OSPF) sits
            # inside the IGP process block: the lines below it belong to the IGP, not to the interfaces.
            feature = "IGP/static routing" if " igp" in key else next(
                (feature for word, feature in LOCATION_FEATURES if key.startswith(word)), None)
            if feature is not None and line:
                anchors[file].append((line, feature))
        for entries in anchors.values():
            entries.sort()
        by_feature: dict[str, list[str]] = defaultdict(list)
        policy_clauses = _policy_clauses(device)
        # One pass in line order per file (linear: a foreign config may have thousands of unmodelled lines): the
        # block above a line is the later of the last located header before it and the last classified line.
        current_file: str | None = None
        position, last = 0, (0, "")  # last: (line, feature) of the block above; "" before any block
        for item in sorted(device.unmodelled, key=lambda item: (item.file, item.line)):
            if item.file != current_file:
                current_file, position, last = item.file, 0, (0, "")
            headers = anchors.get(item.file, [])
            while position < len(headers) and headers[position][0] < item.line:
                last = max(last, headers[position], key=lambda entry: entry[0])
                position += 1
            if (item.file, item.line) in policy_clauses:  # a clause of a route map a neighbor names
                by_feature["routing policy"].append(f"{device.source or host}/{item.file}:{item.line}: "
                                                    f"{policy_clauses[(item.file, item.line)]}: {item.text} "
                                                    "(not applied by the routing simulation)")
                continue
            feature = _own_feature(item.text)
            relative = item.text.removeprefix("no ").startswith(BLOCK_RELATIVE)
            # CLI text only: a CONFIG_DB table (upper case) is top level, it never belongs to the one above it.
            if item.line and last[1] and item.text[:1].islower() and (feature is None or relative):
                feature = last[1]
            elif feature is not None and item.line and not relative:
                last = (item.line, feature)
            feature = feature or "other"
            if FEATURE_CHECKS[feature]:
                by_feature[feature].append(f"{device.source or host}/{item}")
        for vrf in (device.structured.get("bgp") or {}).get("vrfs") or ():
            for neighbor in vrf.get("neighbors") or ():
                file, line = device.locations.get(f"bgp vrf {vrf['name']}", ("", 0))
                peer = neighbor.get("address") or f"interface {neighbor.get('interface')}"
                by_feature["BGP in VRFs"].append(f"{device.source or host}/{file}:{line}: vrf {vrf['name']} neighbor "
                                                 f"{peer} (paired by bgp.sessions; timers and BFD not modelled)")
        gaps += [CoverageGap(host, feature, tuple(lines)) for feature, lines in by_feature.items()]
    return gaps


def _policy_clauses(device: ParsedDevice) -> dict[tuple[str, int], str]:
    """(file, line) -> "route-map NAME SEQ" for each clause of a neighbor's route map the parser did not read."""
    contents = (device.structured.get("bgp") or {}).get("policy_contents") or {}
    out: dict[tuple[str, int], str] = {}
    for name, entries in (contents.get("route_maps") or {}).items():
        for entry in entries:
            file, _line = device.locations.get(f"route-map {name} {entry['seq']}", ("", 0))
            for clause in entry["unsupported"]:
                out[(file, clause["line"])] = f"route-map {name} {entry['action']} {entry['seq']}"
    return out


def _depends(check: str, feature: str) -> bool:
    return any(check == prefix or (prefix.endswith(".") and check.startswith(prefix))
               for prefix in FEATURE_CHECKS[feature])


def _mark_incomplete(report: Report, gaps: list[CoverageGap]) -> None:
    """Checks depending on a feature some device's config was not fully read for: passed, or skipped for want of
    input, becomes incomplete, naming device, feature and file:line. A failed check stays failed (its errors are
    about what was read: turning them into warnings hid real faults next to an unread line) and its reason names
    the gaps, so a reader knows an error may also come from a line the model did not see."""
    for name, result in report.checks.items():
        relevant = [gap for gap in gaps if _depends(name, gap.feature)]
        # Skipped for want of input is what an unread feature looks like (no sessions, no RoCE classes);
        # skipped for another reason (no inventory, a two-tier fabric) stays skipped.
        if not relevant or (result.status == CheckStatus.SKIPPED and not result.reason.startswith(
                (NOTHING_EXAMINED, NO_ROCE))):
            continue
        shown = "; ".join(str(gap) for gap in relevant[:3])
        shown += f"; and {len(relevant) - 3} more device/feature gap(s)" if len(relevant) > 3 else ""
        if result.status == CheckStatus.FAILED:
            result.reason = f"also depends on lines not read: {shown}"
            continue
        result.status = CheckStatus.INCOMPLETE
        result.reason = shown


def running_state_errors(intended: dict[str, ParsedDevice], running: dict[str, ParsedDevice]) -> dict[str, list[dict]]:
    """The checks on the fabric as it runs (each device's running config where it was read, its intended one
    elsewhere) against the fabric as intended: hostname -> the error findings that exist only in the running
    state, so drift that breaks losslessness raises the check's error (issue #15 item 5)."""
    fabric = {**intended, **running}
    complete_fabric(fabric)
    complete_fabric(intended)
    before = {(f.check, f.subject, f.message) for f in validate_parsed(intended).report.findings
              if f.severity == Severity.ERROR}
    out: dict[str, list[dict]] = {}
    for finding in validate_parsed(fabric).report.findings:
        if finding.severity != Severity.ERROR or (finding.check, finding.subject, finding.message) in before:
            continue
        # Subjects name devices in several shapes ("a:x<->b:y", "leaf1->leaf2,leaf3", a tier): every running
        # device the subject or the message names gets the error; one that names none of them was still caused
        # by the running state, so every running device gets it (issue #30 point 3: an ECMP break on one leaf
        # showed no error on the drift page).
        text = f"{finding.subject} {finding.message}"
        named = [host for host in running if re.search(rf"(?<![\w.-]){re.escape(host)}(?![\w.-])", text)]
        for host in named or running:
            out.setdefault(host, []).append(finding.as_dict())
    return out


TEXT_CHECK = "text.render"


def text_faithfulness(structured: dict[str, dict], files: dict[str, dict[str, str]],
                      platforms: dict[str, str], *, without_qos: frozenset[str] = frozenset()) -> list[Finding]:
    """The rollout gate on the text (issue #15 item 6): parse the exact files that will be pushed and compare
    them with the structured config they were rendered from, on what each platform carries. A renderer bug (a
    port's PFC dropped, a lane count wrong) or a hand edit of the files is an error naming the field and the line;
    files that do not parse are an error naming the file. ``without_qos``: hosts whose files carry no QoS by
    design (a twin node run from an EOS/SONiC switch's own config, labs.node_configs), compared without it and
    said so in an info finding."""
    findings: list[Finding] = []
    for host in sorted(files):
        platform = platforms[host]
        try:
            parsed = parse_device(files[host], platform=platform, hostname_hint=host)
        except FabricTwinError as error:
            findings.append(Finding(check=TEXT_CHECK, severity=Severity.ERROR, subject=host, expected="parseable config", actual=None,
                                    message=f"{host}: the files to push do not parse: {error}"))
            continue
        if host not in structured:
            continue
        want_model, have_model = carried(structured[host], platform), carried(parsed.structured, platform)
        for model in (want_model, have_model):  # EVPN builds flood lists; no file of one device states them
            (model.get("vxlan") or {}).pop("flood_lists", None)
            if host in without_qos:
                model.pop("qos", None)
                for interface in model.get("interfaces") or []:
                    interface.pop("qos", None)
        if host in without_qos:
            findings.append(Finding(check=TEXT_CHECK, severity=Severity.INFO, subject=host, expected=None, actual=None,
                                    message=f"{host}: QoS not compared: the twin runs no QoS (static-only; the "
                                    f"switch's own {structured[host].get('platform')} text carries it)"))
        for path, want, have in differences(want_model, have_model):
            subject, where = _subject_and_line(host, path, parsed)
            findings.append(Finding(check=TEXT_CHECK, severity=Severity.ERROR, subject=subject, expected=want, actual=have,
                                    message=f"{host} {describe_path(path)}: {want!r} in the structured config, {have!r} in "
                                    f"the {platform} text{f' ({where})' if where else ''}: the files do not say "
                                    "what was compiled"))
    return findings


def _subject_and_line(host: str, path: str, parsed: ParsedDevice) -> tuple[str, str]:
    if path.startswith("interfaces["):
        name = path[len("interfaces["):path.index("]")]
        where = parsed.locate(f"interface {name} qos", f"interface {name}")
        return f"{host}:{name}", f"{where[0]}:{where[1]}" if where else ""
    where = parsed.locate(path.split(".")[0].split("[")[0], "device")
    return host, f"{where[0]}:{where[1]}" if where else ""
