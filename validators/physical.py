"""Physical consistency of an inventory: cables, optics, topology roles, rack power and identities.

``check_physical(inventory)`` runs every rule and returns findings; ``physical_report(inventory)`` wraps them in
a Report with one entry per rule. Each rule is also a public function taking the Inventory, so a caller can run
one. Reference reaches and media types come from :mod:`compiler.catalog` (IEEE 802.3 / MSA sources cited there).
Pure Python; never imports Django.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from compiler import platforms
from compiler.catalog import MEDIA
from compiler.model import Cable, CableType, Endpoint, Inventory, Optic, Role, Server, Switch

from .findings import Finding, Report, Severity

CABLE_ENDPOINTS = "physical.cable_endpoints"
CABLE_SPEED = "physical.cable_speed"
OPTIC_PORT = "physical.optic_port"
CABLE_MEDIA = "physical.cable_media"
CABLE_REACH = "physical.cable_reach"
TOPOLOGY = "physical.topology"
RACK_POWER = "physical.rack_power"
UNIQUE_IDENTITY = "physical.unique_identity"
PORT_EXISTS = "physical.port_exists"
MISSING_LINK = "physical.missing_link"
CROSS_FABRIC_IDENTITY = "physical.cross_fabric_identity"

SERVER = "server"

# Which roles may be cabled together (unordered). Leaf<->leaf and border<->border only as peer links.
# A border leaf is a leaf that also meets external routers; servers attach to leaves only (rail-optimised
# designs put every GPU NIC on a leaf; nothing but a leaf does host-facing EVPN).
ALLOWED_ROLE_PAIRS = frozenset({
    frozenset({Role.LEAF, Role.SPINE}),
    frozenset({Role.BORDER, Role.SPINE}),
    frozenset({Role.SPINE, Role.SUPER_SPINE}),
    frozenset({SERVER, Role.LEAF}),
})
PEER_LINK_ROLES = frozenset({Role.LEAF, Role.BORDER})

# How many independent fibre pairs a parallel optic has, i.e. into how many ports it can break out.
# Parallel-fibre PMDs break out per pair: 400GBASE-DR4 -> 4 x 100GBASE-DR (IEEE 802.3bs/802.3cd),
# 400GBASE-SR8 -> 8 x 50GBASE-SR or 2 x 200GBASE-SR4 (IEEE 802.3cm), 2xDR4 -> 2 x 400G or 8 x 100G (800G
# Pluggable MSA). WDM optics on one duplex pair (FR4, LR4) cannot break out; 2xFR4 carries two duplex pairs.
# DAC/AOC breakouts are separate splitter assemblies, so any split the port supports is allowed.
BREAKOUT_FIBRE_PAIRS = {
    "100G-SR4": 4, "100G-DR": 1,
    "400G-SR8": 8, "400G-DR4": 4, "400G-FR4": 1,
    "800G-2xSR4": 8, "800G-2xDR4": 8, "800G-2xFR4": 2,
}


@dataclass(frozen=True, slots=True)
class _Port:
    """A cable end resolved against the inventory."""

    endpoint: Endpoint
    role: str
    speed_gbps: int
    optic: Optic | None  # the transceiver serving this port (a breakout child shares its parent's)


def media_cable_type(media: str) -> str | None:
    """dac/aoc/smf/mmf for an optic media name: the catalogue first, then the name's PMD letters."""
    known = MEDIA.get(media)
    if known is not None:
        return known.cable_type
    upper = media.upper()
    for token, cable_type in (("DAC", CableType.DAC), ("CR", CableType.DAC), ("AOC", CableType.AOC),
                              ("SR", CableType.MMF), ("DR", CableType.SMF), ("FR", CableType.SMF),
                              ("LR", CableType.SMF)):
        if token in upper:
            return cable_type
    return None


def default_reach_m(cable_type: str, speed_gbps: int) -> float | None:
    """Reach of a cable assembly without a separate transceiver record (DAC/AOC), from the catalogue."""
    reaches = [m.reach_m for m in MEDIA.values() if m.cable_type == cable_type and m.speed_gbps == speed_gbps]
    return max(reaches) if reaches else None


def _cable_subject(cable: Cable) -> str:
    return f"{cable.a}<->{cable.b}"


def _resolve(inventory: Inventory, endpoint: Endpoint) -> _Port | None:
    switch = inventory.switches_by_name.get(endpoint.device)
    if switch is not None:
        interface = switch.interfaces_by_name.get(endpoint.interface)
        if interface is None:
            return None
        optic = interface.optic
        if optic is None and interface.breakout_parent:
            parent = switch.interfaces_by_name.get(interface.breakout_parent)
            optic = parent.optic if parent else None
        return _Port(endpoint, switch.role, interface.speed_gbps, optic)
    server = inventory.servers_by_name.get(endpoint.device)
    if server is not None:
        nic = server.nics_by_name.get(endpoint.interface)
        if nic is None:
            return None
        return _Port(endpoint, SERVER, nic.speed_gbps, nic.optic)
    return None


def _resolved_cables(inventory: Inventory) -> Iterable[tuple[Cable, _Port, _Port]]:
    """Cables whose both ends exist (the endpoint check reports the others)."""
    for cable in inventory.cables:
        a_port, b_port = _resolve(inventory, cable.a), _resolve(inventory, cable.b)
        if a_port is not None and b_port is not None:
            yield cable, a_port, b_port


# --------------------------------------------------------------------------------------------- rules


def check_cable_endpoints(inventory: Inventory) -> list[Finding]:
    """Both ends exist, sit on different devices, and no port is in two cables."""
    findings = []
    cables_at: dict[Endpoint, list[str]] = defaultdict(list)
    for cable in inventory.cables:
        subject = _cable_subject(cable)
        for side, endpoint in (("A", cable.a), ("B", cable.b)):
            cables_at[endpoint].append(cable.label)
            if _resolve(inventory, endpoint) is None:
                findings.append(Finding(
                    check=CABLE_ENDPOINTS, severity=Severity.ERROR, subject=subject, expected="a known device and port",
                    actual=str(endpoint),
                    message=f"cable {cable.label} ({cable.a} <-> {cable.b}): {side} end {endpoint} is not in the inventory"))
        if cable.a.device == cable.b.device:
            findings.append(Finding(
                check=CABLE_ENDPOINTS, severity=Severity.ERROR, subject=subject, expected="ends on different devices",
                actual=cable.a.device,
                message=f"cable {cable.label} loops back: both ends {cable.a} and {cable.b} are on {cable.a.device}"))
    for endpoint, labels in sorted(cables_at.items()):
        if len(labels) > 1:
            findings.append(Finding(
                check=CABLE_ENDPOINTS, severity=Severity.ERROR, subject=str(endpoint), expected="at most one cable",
                actual=sorted(labels),
                message=f"{endpoint} is plugged into {len(labels)} cables: {', '.join(sorted(labels))}"))
    return findings


def check_cable_speed(inventory: Inventory) -> list[Finding]:
    findings = []
    for cable, a_port, b_port in _resolved_cables(inventory):
        if a_port.speed_gbps != b_port.speed_gbps:
            findings.append(Finding(
                check=CABLE_SPEED, severity=Severity.ERROR, subject=_cable_subject(cable), expected=a_port.speed_gbps,
                actual=b_port.speed_gbps,
                message=f"cable {cable.label}: {cable.a} runs at {a_port.speed_gbps}G but {cable.b} runs at "
                f"{b_port.speed_gbps}G; both ends must run at the same speed"))
    return findings


def check_optic_port(inventory: Inventory) -> list[Finding]:
    """Each optic fits its cage (form factor), carries the port's speed, and supports the port's breakout."""
    findings = []
    for switch in inventory.switches:
        model = inventory.models_by_name.get(switch.model)
        children: dict[str, list] = defaultdict(list)
        for interface in switch.interfaces:
            if interface.breakout_parent:
                children[interface.breakout_parent].append(interface)
        for parent, lanes in children.items():
            subject = f"{switch.hostname}:{parent}"
            speeds = {child.speed_gbps for child in lanes}
            mode = f"{len(lanes)}x{max(speeds)}G"
            if len(speeds) > 1:
                findings.append(Finding(
                    check=OPTIC_PORT, severity=Severity.ERROR, subject=subject, expected="equal breakout speeds",
                    actual=sorted(speeds),
                    message=f"{subject} is broken out into ports of different speeds {sorted(speeds)}"))
            elif model is not None and model.breakout_modes and mode not in model.breakout_modes:
                findings.append(Finding(
                    check=OPTIC_PORT, severity=Severity.ERROR, subject=subject, expected=list(model.breakout_modes),
                    actual=mode, message=f"{subject}: breakout {mode} is not supported by {model.name} "
                    f"(supports {', '.join(model.breakout_modes)})"))
        for interface in switch.interfaces:
            subject = f"{switch.hostname}:{interface.name}"
            # Non-empty when the optic sits in a broken-out cage. A breakout child is never a cage itself, even
            # when it shares the cage's name (SONiC names the first lane of Ethernet0 "Ethernet0" too).
            lanes = children.get(interface.name, []) if interface.breakout_parent is None else []
            optic = interface.optic
            if optic is None:
                continue
            if model is not None and optic.form_factor != model.form_factor:
                findings.append(Finding(
                    check=OPTIC_PORT, severity=Severity.ERROR, subject=subject, expected=model.form_factor,
                    actual=optic.form_factor,
                    message=f"{subject}: a {optic.form_factor} {optic.media} optic does not fit the {model.form_factor} "
                    f"cage of {model.name}"))
            port_speed = sum(child.speed_gbps for child in lanes) if lanes else interface.speed_gbps
            if optic.speed_gbps != port_speed:
                findings.append(Finding(
                    check=OPTIC_PORT, severity=Severity.ERROR, subject=subject, expected=port_speed,
                    actual=optic.speed_gbps,
                    message=f"{subject}: {optic.media} optic carries {optic.speed_gbps}G but the port needs {port_speed}G"))
            if model is not None and optic.speed_gbps > model.max_speed_gbps:
                findings.append(Finding(
                    check=OPTIC_PORT, severity=Severity.ERROR, subject=subject, expected=model.max_speed_gbps,
                    actual=optic.speed_gbps,
                    message=f"{subject}: {optic.speed_gbps}G optic exceeds {model.name}'s {model.max_speed_gbps}G ports"))
            pairs = BREAKOUT_FIBRE_PAIRS.get(optic.media)
            if lanes and pairs is not None and pairs % len(lanes) != 0:
                findings.append(Finding(
                    check=OPTIC_PORT, severity=Severity.ERROR, subject=subject,
                    expected=f"a divisor of {pairs} fibre pairs", actual=len(lanes),
                    message=f"{subject}: {optic.media} has {pairs} fibre pair(s) and cannot break out into {len(lanes)} ports"))
            findings.extend(_media_record_mismatch(subject, optic))
    for server in inventory.servers:
        for nic in server.nics:
            if nic.optic is None:
                continue
            subject = f"{server.name}:{nic.name}"
            if nic.optic.speed_gbps != nic.speed_gbps:
                findings.append(Finding(
                    check=OPTIC_PORT, severity=Severity.ERROR, subject=subject, expected=nic.speed_gbps,
                    actual=nic.optic.speed_gbps,
                    message=f"{subject}: {nic.optic.media} optic carries {nic.optic.speed_gbps}G but the NIC port runs at "
                    f"{nic.speed_gbps}G"))
            findings.extend(_media_record_mismatch(subject, nic.optic))
    return findings


def _media_record_mismatch(subject: str, optic: Optic) -> list[Finding]:
    known = MEDIA.get(optic.media)
    if known is None or known.speed_gbps == optic.speed_gbps:
        return []
    return [Finding(
        check=OPTIC_PORT, severity=Severity.ERROR, subject=subject, expected=known.speed_gbps, actual=optic.speed_gbps,
        message=f"{subject}: optic record says {optic.speed_gbps}G but {optic.media} is a {known.speed_gbps}G media")]


def check_cable_media(inventory: Inventory) -> list[Finding]:
    """DAC/AOC ends carry the matching assembly head (or none); fibre ends carry an optic of the same mode."""
    findings = []
    for cable, a_port, b_port in _resolved_cables(inventory):
        for port in (a_port, b_port):
            optic = port.optic
            where = f"cable {cable.label} ({cable.a} <-> {cable.b}) at {port.endpoint}"
            if optic is None:
                if cable.cable_type in (CableType.SMF, CableType.MMF):
                    findings.append(Finding(
                        check=CABLE_MEDIA, severity=Severity.ERROR, subject=_cable_subject(cable),
                        expected=f"a {cable.cable_type} transceiver", actual=None,
                        message=f"{where}: a {cable.cable_type.upper()} fibre needs a transceiver, none is installed"))
                continue
            optic_type = media_cable_type(optic.media)
            if optic_type is None:
                findings.append(Finding(
                    check=CABLE_MEDIA, severity=Severity.WARNING, subject=_cable_subject(cable),
                    expected=cable.cable_type, actual=optic.media,
                    message=f"{where}: unknown optic media {optic.media!r}; cannot tell whether it suits {cable.cable_type}"))
            elif optic_type != cable.cable_type:
                findings.append(Finding(
                    check=CABLE_MEDIA, severity=Severity.ERROR, subject=_cable_subject(cable),
                    expected=cable.cable_type, actual=optic_type,
                    message=f"{where}: {optic.media} needs {optic_type.upper()} but the cable is {cable.cable_type.upper()}"))
    return findings


def check_cable_reach(inventory: Inventory) -> list[Finding]:
    """The cable is no longer than what either end can drive."""
    findings = []
    for cable, a_port, b_port in _resolved_cables(inventory):
        for port in (a_port, b_port):
            reach: float | None
            if port.optic is not None:
                reach, what = port.optic.reach_m, port.optic.media
            else:
                reach, what = default_reach_m(cable.cable_type, port.speed_gbps), f"{port.speed_gbps}G {cable.cable_type}"
            if reach is None or cable.length_m <= reach:
                continue
            findings.append(Finding(
                check=CABLE_REACH, severity=Severity.ERROR, subject=_cable_subject(cable), expected=f"<= {reach:g} m",
                actual=f"{cable.length_m:g} m",
                message=f"cable {cable.label} ({cable.a} <-> {cable.b}) is {cable.length_m:g} m but {what} at "
                f"{port.endpoint} reaches {reach:g} m"))
    return findings


def check_topology(inventory: Inventory) -> list[Finding]:
    """Role rules: leaf-spine, border-spine, spine-super-spine, server-leaf; leaf-leaf only as a peer link."""
    findings = []
    for cable, a_port, b_port in _resolved_cables(inventory):
        roles = frozenset({a_port.role, b_port.role})
        subject = _cable_subject(cable)
        pair = f"{a_port.role}<->{b_port.role}"
        peer_pair = len(roles) == 1 and a_port.role in PEER_LINK_ROLES
        if cable.peer_link and not peer_pair:
            findings.append(Finding(
                check=TOPOLOGY, severity=Severity.ERROR, subject=subject, expected="peer link between two leaves",
                actual=pair,
                message=f"cable {cable.label} ({cable.a} <-> {cable.b}) is marked as a peer link but joins {pair}"))
        elif peer_pair and not cable.peer_link:
            findings.append(Finding(
                check=TOPOLOGY, severity=Severity.ERROR, subject=subject, expected="leaf<->spine, or a peer link",
                actual=pair,
                message=f"cable {cable.label} joins {pair} ({cable.a} <-> {cable.b}) without being marked as a peer link"))
        elif not peer_pair and roles not in ALLOWED_ROLE_PAIRS:
            findings.append(Finding(
                check=TOPOLOGY, severity=Severity.ERROR, subject=subject,
                expected="leaf<->spine, spine<->super-spine or server<->leaf", actual=pair,
                message=f"cable {cable.label} joins {pair} ({cable.a} <-> {cable.b}), which the Clos design does not allow"))
    return findings


def check_rack_power(inventory: Inventory) -> list[Finding]:
    """Sum of switch typical power and server power in a rack stays within the rack's budget."""
    findings = []
    load_w: dict[str, float] = defaultdict(float)
    unknown_models: dict[str, list[str]] = defaultdict(list)
    for switch in inventory.switches:
        if switch.rack is None:
            continue
        model = inventory.models_by_name.get(switch.model)
        if model is None:
            unknown_models[switch.rack].append(switch.hostname)
        else:
            load_w[switch.rack] += model.typical_power_w
    for server in inventory.servers:
        if server.rack is not None:
            load_w[server.rack] += server.power_w
    for rack in inventory.racks:
        subject = f"rack {rack.name}"
        if unknown_models.get(rack.name):
            findings.append(Finding(
                check=RACK_POWER, severity=Severity.WARNING, subject=subject, expected="known switch models",
                actual=unknown_models[rack.name],
                message=f"{subject}: power of {', '.join(unknown_models[rack.name])} is unknown (model not in inventory)"))
        if rack.power_budget_kw <= 0:
            findings.append(Finding(
                check=RACK_POWER, severity=Severity.INFO, subject=subject, expected="a power budget",
                actual=rack.power_budget_kw, message=f"{subject} has no power budget recorded; not checked"))
            continue
        budget_w = rack.power_budget_kw * 1000.0
        if load_w[rack.name] > budget_w:
            findings.append(Finding(
                check=RACK_POWER, severity=Severity.ERROR, subject=subject, expected=f"<= {budget_w:g} W",
                actual=f"{load_w[rack.name]:g} W",
                message=f"{subject} draws {load_w[rack.name] / 1000:.2f} kW, over its {rack.power_budget_kw:g} kW budget"))
    known_racks = inventory.racks_by_name
    for rack_name in sorted(set(load_w) - set(known_racks)):
        findings.append(Finding(
            check=RACK_POWER, severity=Severity.ERROR, subject=f"rack {rack_name}", expected="a rack in the inventory",
            actual=rack_name, message=f"devices are placed in rack {rack_name}, which is not in the inventory"))
    return findings


def check_unique_identity(inventory: Inventory) -> list[Finding]:
    """Hostnames, management IPs and serials are unique across switches, servers (and optics for serials)."""
    findings = []
    names = Counter([s.hostname for s in inventory.switches] + [s.name for s in inventory.servers])
    ips: dict[str, list[str]] = defaultdict(list)
    serials: dict[str, list[str]] = defaultdict(list)
    devices: tuple[Switch | Server, ...] = (*inventory.switches, *inventory.servers)
    for device in devices:
        name = device.hostname if isinstance(device, Switch) else device.name
        if device.mgmt_ip:
            ips[device.mgmt_ip].append(name)
        if device.serial:
            serials[device.serial].append(name)
    for switch in inventory.switches:
        for interface in switch.interfaces:
            if interface.optic is not None and interface.optic.serial:
                serials[interface.optic.serial].append(f"optic at {switch.hostname}:{interface.name}")
    for server in inventory.servers:
        for nic in server.nics:
            if nic.optic is not None and nic.optic.serial:
                serials[nic.optic.serial].append(f"optic at {server.name}:{nic.name}")
    for name, count in sorted(names.items()):
        if count > 1:
            findings.append(Finding(
                check=UNIQUE_IDENTITY, severity=Severity.ERROR, subject=name, expected=1, actual=count,
                message=f"hostname {name} is used by {count} devices"))
    for label, index in (("management IP", ips), ("serial", serials)):
        for value, holders in sorted(index.items()):
            if len(holders) > 1:
                findings.append(Finding(
                    check=UNIQUE_IDENTITY, severity=Severity.ERROR, subject=f"{label} {value}", expected=1,
                    actual=sorted(holders), message=f"{label} {value} is shared by {', '.join(sorted(holders))}"))
    return findings


def check_cross_fabric_identity(identities: Mapping[str, Mapping[str, str]]) -> list[Finding]:
    """An address held in two fabrics of one inventory: ``identities`` maps fabric -> {address: what holds it}
    (management IPs, router-id and VTEP loopbacks, link addresses). Fabrics that never meet on a wire still meet
    in the management network, in IPAM/NetBox and at any border; one address for two devices is ambiguous there.
    Not a per-inventory rule (it needs every fabric), so it is not in PHYSICAL_CHECKS; see cross_fabric_report."""
    holders: dict[str, list[str]] = defaultdict(list)
    for fabric, addresses in sorted(identities.items()):
        for address, holder in addresses.items():
            holders[address].append(f"{holder} ({fabric})")
    return [
        Finding(check=CROSS_FABRIC_IDENTITY, severity=Severity.ERROR, subject=f"address {address}", expected=1,
                actual=sorted(held), message=f"address {address} is used in {len(held)} fabrics: {', '.join(sorted(held))}")
        for address, held in sorted(holders.items()) if len(held) > 1
    ]


def cross_fabric_report(identities: Mapping[str, Mapping[str, str]]) -> Report:
    """The cross-fabric identity check as a one-rule Report (passed when no address repeats across fabrics)."""
    report = Report(f"cross-fabric identity of {len(identities)} fabrics")
    report.add(CROSS_FABRIC_IDENTITY, check_cross_fabric_identity(identities))
    return report


def check_port_exists(inventory: Inventory) -> list[Finding]:
    """Every switch port exists on its model under its OS (platform data: SONiC HWSKU, Arista naming, swpN)."""
    port_counts = {model.name: model.port_count for model in inventory.switch_models}
    return [
        Finding(
            check=PORT_EXISTS, severity=Severity.ERROR,
            subject=problem.hostname if problem.interface is None else f"{problem.hostname}:{problem.interface}",
            expected=f"a port of {problem.model}", actual=problem.interface or problem.model, message=problem.message)
        for problem in platforms.inventory_port_problems(inventory.switches, port_counts)
    ]


def check_missing_link(inventory: Inventory) -> list[Finding]:
    """A port the source of truth (NetBox) has a cable on, with no link in the inventory, is an error: the
    compiled config would shut a live port (issue #18: lost breakout and patch-panel links rendered ``shutdown``).
    Ports later cabled in the inventory pass."""
    return [
        Finding(check=MISSING_LINK, severity=Severity.ERROR, subject=str(missing.endpoint), expected=f"a link ({missing.source})", actual="no link",
                message=f"{missing.endpoint} is cabled in {missing.source} but the link was not imported: {missing.reason}; "
                "its config would shut the port")
        for missing in inventory.missing_links if missing.endpoint not in inventory.cable_at
    ]


PHYSICAL_CHECKS: dict[str, Callable[[Inventory], list[Finding]]] = {
    CABLE_ENDPOINTS: check_cable_endpoints,
    CABLE_SPEED: check_cable_speed,
    OPTIC_PORT: check_optic_port,
    CABLE_MEDIA: check_cable_media,
    CABLE_REACH: check_cable_reach,
    TOPOLOGY: check_topology,
    RACK_POWER: check_rack_power,
    UNIQUE_IDENTITY: check_unique_identity,
    PORT_EXISTS: check_port_exists,
    MISSING_LINK: check_missing_link,
}

# What each rule examines: the inventory collections it walks (the rules are pure functions of the inventory,
# so their scope is stated here once rather than threaded through every rule).
PHYSICAL_EXAMINED: dict[str, Callable[[Inventory], dict[str, int]]] = {
    CABLE_ENDPOINTS: lambda inventory: {"cables": len(inventory.cables)},
    CABLE_SPEED: lambda inventory: {"cables": len(inventory.cables)},
    OPTIC_PORT: lambda inventory: {"switch ports": sum(len(s.interfaces) for s in inventory.switches),
                                   "server NICs": sum(len(s.nics) for s in inventory.servers)},
    CABLE_MEDIA: lambda inventory: {"cables": len(inventory.cables)},
    CABLE_REACH: lambda inventory: {"cables": len(inventory.cables)},
    TOPOLOGY: lambda inventory: {"cables": len(inventory.cables)},
    RACK_POWER: lambda inventory: {"racks": len(inventory.racks)},
    UNIQUE_IDENTITY: lambda inventory: {"switches": len(inventory.switches), "servers": len(inventory.servers)},
    PORT_EXISTS: lambda inventory: {"switches": len(inventory.switches)},
    MISSING_LINK: lambda inventory: {"cables": len(inventory.cables),
                                     "links not imported": len(inventory.missing_links)},
}


def check_physical(inventory: Inventory) -> list[Finding]:
    """Every physical rule's findings, in rule order."""
    return [finding for check in PHYSICAL_CHECKS.values() for finding in check(inventory)]


def physical_report(inventory: Inventory, report: Report | None = None) -> Report:
    """Run every rule into ``report`` (a new one when None): one entry per rule, passed unless it found an error."""
    report = report if report is not None else Report(f"physical checks of {inventory.fabric}")
    for name, check in PHYSICAL_CHECKS.items():
        report.add(name, check(inventory), PHYSICAL_EXAMINED[name](inventory))
    return report
