"""Running configs -> an adoption plan: the inventory, the intent and the pinned allocations a fabric's configs say.

``adoption_plan(device_files, name=)`` parses a config set (EOS, SONiC, FRR in any mix: the set ``validate
--configs`` reads) with :mod:`compiler.parse`, completes what only the whole set says (:mod:`compiler.parse.fabric`)
and recognises:

* switches: hostname, platform, role (the parser's, refined by the topology: a device whose fabric peers are all
  leaves is a spine, one above spines a super-spine), model (from the config, else "asked for"), interfaces and
  breakouts (``EthernetN/M`` sub-ports of one cage), servers and NIC ports named by server-port descriptions;
* cables, each marked inferred with its evidence: a /31 (or /30) shared by two ports, a BGP neighbor address
  another device's port holds, descriptions naming each other (LLDP-style, AVD's ``P2P_<peer>_<port>``) or
  SONiC's DEVICE_NEIGHBOR;
* the intent: underlay style (numbered /31, unnumbered RFC 5549, an IGP underlay with an iBGP overlay), the ASN
  scheme (per leaf, per rack pair: two leaves sharing one ASN, 5-stage: a super-spine tier, asdot notation),
  tenants/VRFs with their L3VNIs, networks with VLAN/VNI/subnet/anycast gateway, RoCE classes from the QoS
  config, the BGP policy and MTUs most devices state;
* the allocations, pinned exactly as configured: ASNs, router-id loopbacks, VTEPs, /31s, L2VNIs, L3VNIs;
* what is refused and why, by file:line (a peer link the compiler does not model, a session toward an address no
  device of the set holds while its AS is one of the set's: a partial set is an :class:`AdoptionError`).

Pure Python; never imports Django.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from dataclasses import dataclass, field, replace

from compiler import platforms
from compiler.catalog import SWITCH_MODELS
from compiler.errors import FabricTwinError
from compiler.hardware import ASIC_FAMILIES, LANES_PER_CAGE
from compiler.model import (
    Allocations,
    AsnScheme,
    BgpPolicy,
    Cable,
    CableType,
    Endpoint,
    FabricIntent,
    Interface,
    Inventory,
    Management,
    Network,
    NicPort,
    Pools,
    Rack,
    RoceClass,
    Role,
    RouteTargetScheme,
    Server,
    Snapshot,
    Switch,
    SwitchModelSpec,
    Tenant,
    Underlay,
)
from compiler.names import server_address_problem
from compiler.natural import natural_key
from compiler.parse import ParsedDevice, ParseError
from compiler.parse.common import network_of
from compiler.parse.fabric import parse_fabric
from compiler.structured.management import management_interface

ASKED_FOR = "asked for"  # a model no config states: the plan names it as a question for the operator
# Interface kinds the parsers give switch ports (compiler.parse.eos/sonic/frr): these become inventory interfaces.
PORT_KINDS = frozenset({"fabric", "server", "unused", "peer_link"})
SUBPORT = re.compile(r"^(Ethernet\d+(?:/\d+)?)/(\d+)$")  # EOS Ethernet<port>/<lane> (chassis: <slot>/<port>/<lane>)
_ASDOT = re.compile(r"\brouter bgp (\d+)\.(\d+)\b")  # RFC 5396 asdot: <high>.<low>
UNSTATED_SPEED_GBPS = 0  # a port whose config states no speed (EOS's default "speed auto"): none is rendered either


_POOLS = Pools()
_INTENT = FabricIntent(name="", inventory_fabric="")
_MANAGEMENT = Management()
POOL_SPACE = ipaddress.IPv4Network("10.0.0.0/8")  # RFC 1918: where a pool that must move is placed
# Placeholder subnets of L2-only networks (no config states one): RFC 2544's benchmarking range, never routed.
L2_SUBNETS = ipaddress.IPv4Network("198.18.0.0/15")
VRF_NAME_MAX = 15  # a VRF is a Linux device on FRR/SONiC and the twin (IFNAMSIZ 16 with the NUL): intents allow 15
# BGP timers (keepalive, hold in s) a device runs when its config states none. EOS: keepalive 60, hold 180 (Arista
# EOS User Manual, "timers bgp (BGP)": "Default: keepalive 60, hold time 180"). FRR's depend on its `frr defaults`
# profile (traditional 60/180, datacenter 3/9: FRR docs "frr defaults"), which the parsers do not read: left unstated.
DEFAULT_BGP_TIMERS = {"eos": (60, 180)}


def bgp_timers(bgp: dict, platform: str) -> tuple[int | None, int | None]:
    """(keepalive, hold) a parsed device's BGP runs: as stated, else its platform's default (None when unknown).
    The adoption's intent and the proof's modelled fields read timers through this one function."""
    if bgp.get("keepalive_s") is None and bgp.get("hold_s") is None and bgp.get("asn"):
        return DEFAULT_BGP_TIMERS.get(platform, (None, None))
    return bgp.get("keepalive_s"), bgp.get("hold_s")


class AdoptionError(FabricTwinError):
    """A config set that cannot be adopted: names the file and line that decided, and why."""


@dataclass(frozen=True, slots=True)
class InferredCable:
    """A cable the configs imply: ``evidence`` says which lines made it (every adopted cable is inferred)."""

    label: str
    a: Endpoint
    b: Endpoint
    evidence: str
    inferred: bool = True

    def as_dict(self) -> dict:
        return {"label": self.label, "a": str(self.a), "b": str(self.b), "evidence": self.evidence,
                "inferred": self.inferred}


@dataclass(frozen=True, slots=True)
class Refusal:
    """Something the configs state that the adoption does not take over (its lines stay carried)."""

    device: str
    file: str
    line: int
    text: str
    reason: str

    def __str__(self) -> str:
        return f"{self.device} {self.file}:{self.line} `{self.text}`: {self.reason}"

    def as_dict(self) -> dict:
        return {"device": self.device, "file": self.file, "line": self.line, "text": self.text, "reason": self.reason}


@dataclass
class AdoptionPlan:
    """What a config set becomes: a Snapshot (inventory + intent + pinned allocations) and how it was read."""

    name: str
    snapshot: Snapshot
    devices: dict[str, ParsedDevice]
    device_files: dict[str, dict[str, str]]  # hostname -> {file name: original text}
    cables: list[InferredCable]
    refused: list[Refusal]
    recognised: dict[str, str]  # underlay, asn_scheme, asn_notation, route_target_scheme ... -> what was seen
    model_source: dict[str, str]  # hostname -> "config" | ASKED_FOR
    assumed: list[str] = field(default_factory=list)  # defaults the configs left open ("leaf1 Ethernet1: speed")

    def summary(self) -> dict:
        return {"devices": len(self.devices), "servers": len(self.snapshot.inventory.servers),
                "cables_inferred": sum(1 for cable in self.cables if cable.inferred),
                "cables_documented": sum(1 for cable in self.cables if not cable.inferred),  # NetBox's too
                "tenants": len(self.snapshot.intent.tenants),
                "networks": len(self.snapshot.intent.networks),
                "roce_classes": len(self.snapshot.intent.roce_classes), "refused": len(self.refused),
                **self.recognised}


def parse_set(device_files: dict[str, dict[str, str]]) -> dict[str, ParsedDevice]:
    """{device key: {file: text}} -> {hostname: ParsedDevice}, fabric completed: the reading `validate --configs`
    makes (compiler.parse.fabric.parse_fabric), its refusals as adoption errors."""
    try:
        return parse_fabric(device_files)
    except ParseError as error:
        raise AdoptionError(str(error)) from error


def find_line(files: dict[str, str], pattern: str) -> tuple[str, int, str]:
    """(file, line, text) of the first line matching ``pattern`` (a regex) in a device's files."""
    compiled = re.compile(pattern)
    for name in sorted(files):
        for number, raw in enumerate(files[name].split("\n"), start=1):
            if compiled.search(raw):
                return name, number, raw.strip()
    return (sorted(files)[0] if files else "", 0, "")


def adoption_plan(device_files: dict[str, dict[str, str]], *, name: str = "adopted") -> AdoptionPlan:
    devices = parse_set(device_files)
    if not devices:
        raise AdoptionError("configs: no device in the set")
    by_host = {host: device_files[device.source] for host, device in devices.items()}
    refused: list[Refusal] = []
    assumed: list[str] = []
    _check_complete(devices, by_host)
    for host in sorted(devices, key=natural_key):
        structured = devices[host].structured
        if not structured["asn"] and not (structured["vxlan"] and structured["vxlan"].get("vtep_ip")):
            file, line, text = find_line(by_host[host], r"^hostname ") if any(
                not text.lstrip().startswith("{") for text in by_host[host].values()) else (devices[host].files[0], 0, "")
            refused.append(Refusal(host, file, line, text, "a switch running neither BGP nor VXLAN (an L2 switch "
                                                           "below the fabric): the intent has no such role, so it "
                                                           "is not adopted (its config stays as it runs)"))
            del devices[host]
    for device in devices.values():  # ports toward a switch left out are no longer cabled to a fabric peer
        for interface in device.structured["interfaces"]:
            if interface["peer_device"] and interface["peer_device"] not in devices and interface["peer_device"] in by_host:
                interface["peer_device"] = interface["peer_interface"] = None
    by_host = {host: by_host[host] for host in devices}
    if not devices:
        raise AdoptionError("configs: no switch runs BGP or VXLAN, so nothing can be adopted: "
                            + "; ".join(str(item) for item in refused))
    roles = _roles(devices)
    cables, peer_links = _cables(devices, roles, by_host, refused)
    servers, server_cables = _servers(devices, roles)
    racks, rack_of = _racks(devices, roles)
    switches, models, model_source = _switches(devices, roles, rack_of, assumed)
    lengths = _cable_lengths(devices, cables, server_cables, assumed)
    _check_speeds(switches, devices, by_host)
    inventory = Inventory(fabric=name, switches=tuple(switches), servers=tuple(servers),
                          cables=tuple(_inventory_cable(cable, lengths.get(cable.label, 0.0)) for cable in cables)
                          + tuple(replace(cable, length_m=lengths.get(cable.label, 0.0)) for cable in server_cables),
                          racks=tuple(racks), switch_models=tuple(models))
    recognised: dict[str, str] = {}
    l2_only: list[tuple[str, int, int]] = []
    too_long: list[tuple[str, int, str]] = []
    intent = _intent(name, devices, roles, recognised, by_host, l2_only, too_long, assumed)
    for host, vlan_id, vrf in too_long:
        owner = host or next(h for h in sorted(devices, key=natural_key)
                             if any(v["name"] == vrf for v in devices[h].structured["vrfs"]))
        file, line, text = find_line(by_host[owner], rf"^vrf (instance |definition )?{re.escape(vrf)}\s*$" if not host
                                     else rf"^vlan {vlan_id}\b")
        refused.append(Refusal(owner, file, line, text, f"VRF {vrf!r} is {len(vrf)} characters: a tenant VRF is a "
                                                        f"Linux device (at most {VRF_NAME_MAX}), so "
                                                        + (f"VLAN {vlan_id} in it is" if host else "it is")
                                                        + " not adopted (lines carried)"))
    for host, vlan_id, vni in l2_only:
        file, line, text = find_line(by_host[host], rf"(vlan {vlan_id} vni {vni}|\bvni {vni}\b|\b{vni}\b)")
        refused.append(Refusal(host, file, line, text, f"VLAN {vlan_id} / VNI {vni} has no SVI on any leaf and the "
                                                       "configs name no tenant to hold it: not adopted (lines carried)"))
    allocations = _allocations(devices, roles, cables, intent, refused, by_host)
    for host, port, peer, peer_port in peer_links:
        file, line, text = find_line(by_host[host], rf"^interface {re.escape(port)}\s*$")
        refused.append(Refusal(host, file, line, text, f"a link to {peer}:{peer_port} between two switches of one "
                                                       "tier (an MLAG-style peer link): not modelled, its lines are "
                                                       "carried"))
    return AdoptionPlan(name=name, snapshot=Snapshot(inventory=inventory, intent=intent, allocations=allocations),
                        devices=devices, device_files=by_host, cables=cables, refused=refused, recognised=recognised,
                        model_source=model_source, assumed=assumed)


# ------------------------------------------------------------------------------------------------ topology


def _check_complete(devices: dict[str, ParsedDevice], files: dict[str, dict[str, str]]) -> None:
    """A session toward an address no device holds while its remote AS is a device's of the set: that device's
    config is missing or does not hold the address (a partial set). External peers (other ASes) are carried."""
    owned = {address.split("/")[0] for device in devices.values() for interface in device.structured["interfaces"]
             for address in (interface["ip"], interface.get("ipv6")) if address}
    owned |= {loopback["ip"].split("/")[0] for device in devices.values()
              for loopback in device.structured["loopbacks"] if loopback["ip"]}
    owned |= {address.split("/")[0] for device in devices.values() for vlan in device.structured["vlans"]
              if vlan["svi"] for address in (vlan["svi"].get("ip"), vlan["svi"].get("address"), vlan["svi"].get("virtual_ip")) if address}
    asn_owner = {device.structured["asn"]: host for host, device in devices.items() if device.structured["asn"]}
    for host, device in sorted(devices.items()):
        for neighbor in device.structured["bgp"]["neighbors"]:
            address, remote = neighbor["address"], neighbor["remote_as"]
            # IPv4 only: an IPv6 loopback (SONiC LOOPBACK_INTERFACE ipv6) is not modelled, so not known as held.
            if address and ":" not in address and address not in owned and remote in asn_owner \
                    and asn_owner[remote] != host:
                file, line, text = find_line(files[host], rf"neighbor {re.escape(address)}\b")
                raise AdoptionError(f"{host} {file}:{line} `{text}`: no device of the set holds {address}, but its "
                                    f"AS {remote} is {asn_owner[remote]}'s: a partial config set (is a device "
                                    "missing, or its address changed?)")


def _fabric_peers(structured: dict) -> dict[str, tuple[str, str]]:
    return {interface["name"]: (interface["peer_device"], interface["peer_interface"] or "")
            for interface in structured["interfaces"] if interface["peer_device"]}


def _roles(devices: dict[str, ParsedDevice]) -> dict[str, str]:
    """leaf (a VTEP or a switch with server ports), spine (its fabric peers are leaves), super-spine (its peers are
    spines), border (a leaf whose name says so)."""
    roles: dict[str, str] = {}
    for host, device in devices.items():
        structured = device.structured
        vtep = bool(structured["vxlan"] and structured["vxlan"].get("vtep_ip"))
        servers = any(interface["kind"] == "server" for interface in structured["interfaces"])
        roles[host] = Role.LEAF if vtep or servers else structured.get("role") or Role.SPINE
        if roles[host] == Role.LEAF and "border" in host.lower():
            roles[host] = Role.BORDER
    for host, device in devices.items():
        if roles[host] != Role.SPINE:
            continue
        peers = {peer for peer, _ in _fabric_peers(device.structured).values() if peer in devices}
        if peers and all(roles[peer] == Role.SPINE for peer in peers):
            continue
        peer_roles = {roles[peer] for peer in peers}
        if peer_roles == {Role.SPINE} or (peer_roles and Role.LEAF not in peer_roles and Role.BORDER not in peer_roles):
            roles[host] = Role.SUPER_SPINE
    # Two tiers of spines: a spine whose peers are spines only sits above them.
    for host, device in devices.items():
        if roles[host] == Role.SPINE:
            peers = {peer for peer, _ in _fabric_peers(device.structured).values() if peer in devices}
            if peers and all(roles[peer] in (Role.SPINE, Role.SUPER_SPINE) for peer in peers) and any(
                    roles[other] in (Role.LEAF, Role.BORDER) for peer in peers
                    for other, _ in _fabric_peers(devices[peer].structured).values() if other in devices):
                roles[host] = Role.SUPER_SPINE
    return roles


def _cables(devices: dict[str, ParsedDevice], roles: dict[str, str], files: dict[str, dict[str, str]],
            refused: list[Refusal]) -> tuple[list[InferredCable], list[tuple[str, str, str, str]]]:
    cables: list[InferredCable] = []
    peer_links: list[tuple[str, str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    ports = {host: {interface["name"]: interface for interface in device.structured["interfaces"]}
             for host, device in devices.items()}
    neighbor_addresses = {host: {neighbor["address"] for neighbor in device.structured["bgp"]["neighbors"]
                                 if neighbor["address"]} for host, device in devices.items()}
    for host in sorted(devices, key=natural_key):
        for name, interface in sorted(ports[host].items(), key=lambda item: natural_key(item[0])):
            peer, peer_port = interface["peer_device"], interface["peer_interface"]
            if peer not in devices or not peer_port or (host, name) in seen:
                continue
            far = ports[peer].get(peer_port)
            if far is None:
                continue
            seen |= {(host, name), (peer, peer_port)}
            if roles[host] == roles[peer] and roles[host] in ("leaf", "border") or interface["kind"] == "peer_link":
                peer_links.append((host, name, peer, peer_port))
                continue
            evidence = _evidence(interface, far, neighbor_addresses[host], neighbor_addresses[peer])
            a, b = sorted([Endpoint(host, name), Endpoint(peer, peer_port)], key=lambda e: natural_key(str(e)))
            cables.append(InferredCable(label=f"{a.device}:{a.interface}--{b.device}:{b.interface}", a=a, b=b,
                                        evidence=evidence))
    return cables, peer_links


def _evidence(port: dict, far: dict, near_neighbors: set[str], far_neighbors: set[str]) -> str:
    if port["ip"] and far["ip"] and network_of(port["ip"]) == network_of(far["ip"]):
        said = [f"/{port['ip'].split('/')[1]} pair {port['ip']} and {far['ip']}"]
        if far["ip"].split("/")[0] in near_neighbors or port["ip"].split("/")[0] in far_neighbors:
            said.append("BGP neighbor address")
        return " + ".join(said)
    if port["unnumbered"] or far["unnumbered"]:
        return "descriptions name each other (unnumbered, RFC 5549)"
    return "descriptions name each other (LLDP-style)" if port["description"] else "stated peer (DEVICE_NEIGHBOR)"


def _inventory_cable(cable: InferredCable, length_m: float) -> Cable:
    # Media is in no config: a DAC (0 m: length not recorded, the physical checks skip it).
    return Cable(label=cable.label, a=cable.a, b=cable.b, cable_type=CableType.DAC, length_m=length_m, status="connected")


def _check_speeds(switches: list[Switch], devices: dict[str, ParsedDevice], files: dict[str, dict[str, str]]) -> None:
    """A lossless port needs its speed (PFC headroom is sized from it, compiler.qos_math): refused, naming the
    port, when no config of the set states a speed for it or for any port of its kind."""
    for switch in switches:
        ports = {item["name"]: item for item in devices[switch.hostname].structured["interfaces"]}
        for interface in switch.interfaces:
            port = ports[interface.name]
            if not interface.speed_gbps and (port.get("qos") or {}).get("pfc_priorities"):
                file, line, text = find_line(files[switch.hostname], rf"\b{re.escape(interface.name)}\b")
                raise AdoptionError(f"{switch.hostname} {file}:{line} `{text}`: a lossless port (PFC priorities "
                                    f"{port['qos']['pfc_priorities']}) whose speed no config of the set states: PFC "
                                    "headroom is sized from it (give configs that state port speeds, e.g. the "
                                    "SONiC PORT table or EOS `speed`)")


def _cable_lengths(devices: dict[str, ParsedDevice], cables: list[InferredCable], server_cables: list[Cable],
                   assumed: list[str]) -> dict[str, float]:
    """Cable lengths as the configs state them (:func:`_port_length`). Ends that disagree: the longer. None
    stated: not recorded (0)."""
    ports = {(host, item["name"]): item for host, device in devices.items()
             for item in device.structured["interfaces"]}
    out: dict[str, float] = {}
    pairs = [(cable.label, cable.a, cable.b) for cable in cables] + [(cable.label, cable.a, cable.b)
                                                                     for cable in server_cables]
    for label, a, b in pairs:
        found = [length for end in (a, b) if (end.device, end.interface) in ports
                 for length in [_port_length(ports[(end.device, end.interface)])] if length is not None]
        if found:
            out[label] = max(found)
            if len(set(found)) > 1:
                assumed.append(f"cable {label}: ends state {sorted(set(found))} m, {max(found)} m kept")
    return out


def _port_length(port: dict) -> float | None:
    """SONiC's CABLE_LENGTH of a port. EOS states one switch-wide headroom (the MMU profile: the largest any port
    needs), so a port's cable cannot be worked back from it; FRR states none."""
    return float(port["cable_length_m"]) if port.get("cable_length_m") is not None else None


def _servers(devices: dict[str, ParsedDevice], roles: dict[str, str]) -> tuple[list[Server], list[Cable]]:
    """Servers and NIC ports named by server-port descriptions (``SERVER gpu0001 eth0``)."""
    nics: dict[str, dict[str, tuple[int, int]]] = {}
    cables = []
    for host in sorted(devices, key=natural_key):
        for interface in devices[host].structured["interfaces"]:
            server, port = interface["peer_device"], interface["peer_interface"]
            if interface["kind"] != "server" or not server or not port or server in devices:
                continue
            nics.setdefault(server, {})[port] = (interface.get("speed_gbps") or UNSTATED_SPEED_GBPS,
                                                  interface["mtu"] or 9000)
            cables.append(Cable(label=f"{host}:{interface['name']}--{server}:{port}", a=Endpoint(host, interface["name"]),
                                b=Endpoint(server, port), cable_type=CableType.DAC, length_m=0.0, status="connected"))
    servers = [Server(name=name, nics=tuple(NicPort(name=port, rail=index, speed_gbps=speed, mtu=mtu)
                                            for index, (port, (speed, mtu)) in enumerate(sorted(
                                                ports.items(), key=lambda item: natural_key(item[0]))))
                      ) for name, ports in sorted(nics.items(), key=lambda item: natural_key(item[0]))]
    return servers, cables


def _racks(devices: dict[str, ParsedDevice], roles: dict[str, str]) -> tuple[list[Rack], dict[str, str]]:
    """Leaves sharing one ASN share a rack (the per-rack-pair ASN scheme); others have none."""
    by_asn: dict[int, list[str]] = {}
    for host, device in devices.items():
        if roles[host] in ("leaf", "border") and device.structured["asn"]:
            by_asn.setdefault(device.structured["asn"], []).append(host)
    rack_of = {}
    racks = []
    for asn, hosts in sorted(by_asn.items()):
        if len(hosts) > 1:
            rack = f"rack-as{asn}"
            racks.append(Rack(name=rack))
            rack_of.update({host: rack for host in hosts})
    return racks, rack_of


def _switches(devices: dict[str, ParsedDevice], roles: dict[str, str], rack_of: dict[str, str],
              assumed: list[str]) -> tuple[list[Switch], list[SwitchModelSpec], dict[str, str]]:
    switches = []
    models: dict[str, SwitchModelSpec] = {}
    source = {}
    # A port whose config states no speed (FRR/Linux never does) takes the speed most ports of its kind state in
    # the set (headroom for lossless classes needs one); none stated anywhere: left unset.
    typical = {kind: _most_common([item.get("speed_gbps") for device in devices.values()
                                   for item in device.structured["interfaces"] if item["kind"] == kind],
                                  UNSTATED_SPEED_GBPS) for kind in PORT_KINDS}
    for host in sorted(devices, key=natural_key):
        structured = devices[host].structured
        stated = structured.get("model") or (structured.get("hardware") or {}).get("model")
        family = (structured.get("hardware") or {}).get("asic_family") or ""
        ports = [item for item in structured["interfaces"] if item["kind"] in PORT_KINDS]
        matched = None if stated else _catalogue_model(structured, devices[host].platform, ports, family)
        source[host] = "config" if stated else "port names match its platform data" if matched else ASKED_FOR
        model_name = stated or matched or "-".join(part for part in ("adopted", devices[host].platform, family) if part)
        interfaces = []
        cages: Counter[str] = Counter(SUBPORT.match(item["name"]).group(1) for item in ports  # type: ignore[union-attr]
                                      if SUBPORT.match(item["name"]))
        for item in ports:
            speed = item.get("speed_gbps")
            if not speed:
                speed = typical[item["kind"]]
                assumed.append(f"{host} {item['name']}: speed not stated, "
                               + (f"{speed}G as most {item['kind']} ports state" if speed
                                  else "left to the platform's default"))
            match = SUBPORT.match(item["name"])
            breakout = match is not None and cages[match.group(1)] > 1
            interfaces.append(Interface(name=item["name"], speed_gbps=int(speed), mtu=item["mtu"] or 9214,
                                        enabled=item["enabled"] is not False, description=item["description"] or "",
                                        breakout_parent=match.group(1) if breakout and match else None,
                                        lane=int(match.group(2)) if breakout and match else None))
        spec = models.get(model_name)
        speeds = [interface.speed_gbps for interface in interfaces] + [1]
        if model_name in SWITCH_MODELS:
            models[model_name] = SWITCH_MODELS[model_name]
        elif spec is None or spec.port_count < len(interfaces) or spec.max_speed_gbps < max(speeds):
            # A model no catalogue entry describes: sized to the ports the configs name, with an ASIC of the
            # family the config's QoS syntax shows (`platform trident` / `platform sand` on EOS), so the
            # renderers print the same family's commands. The operator is asked for the real model.
            models[model_name] = SwitchModelSpec(
                name=model_name, vendor="Arista" if devices[host].platform == "eos" else "",
                asic=next((asic for asic, of in ASIC_FAMILIES.items() if of == family), ""),
                port_count=max(len(interfaces), spec.port_count if spec else 0, 1),
                max_speed_gbps=max(max(speeds), spec.max_speed_gbps if spec else 0),
                form_factor=_cage(_cage_lanes(ports)))
        management = structured.get("management") or {}
        switches.append(Switch(hostname=host, role=roles[host], platform=devices[host].platform, model=model_name,
                               interfaces=tuple(interfaces), rack=rack_of.get(host), status="active",
                               mgmt_ip=(management.get("address") or "").split("/")[0] or None,
                               base_mac=structured.get("system_mac") or None))
    return switches, list(models.values()), source


def _cage_lanes(ports: list[dict]) -> int:
    """The widest cage the ports show: a port's lanes, or the sum of its sub-ports' (Ethernet3/1/1 + /5)."""
    per_cage: Counter[str] = Counter()
    for item in ports:
        match = SUBPORT.match(item["name"])
        per_cage[match.group(1) if match else item["name"]] += item.get("lanes") or 0
    return max(per_cage.values(), default=0)


def _catalogue_model(structured: dict, platform: str, ports: list[dict], family: str) -> str | None:
    """The one catalogue model whose platform data names every port and the management port as the config does
    (and whose ASIC is of the config's family), or None when none or several fit."""
    management = (structured.get("management") or {}).get("interface")
    fits = []
    for name, spec in SWITCH_MODELS.items():
        if name not in platforms.known_models() or not platforms.runs(name, platform):
            continue
        if family and ASIC_FAMILIES.get(spec.asic) != family:
            continue
        if management and management_interface(name, platform) != management:
            continue
        problems = (platforms.port_problem(name, platform, spec.port_count, item["name"],
                                           SUBPORT.match(item["name"]).group(1)  # type: ignore[union-attr]
                                           if SUBPORT.match(item["name"]) else None) for item in ports)
        if ports and not any(problems):
            fits.append(name)
    return fits[0] if len(fits) == 1 else None


def _cage(lanes: int) -> str:
    """A cage with as many electrical lanes as the widest port the config names (compiler.hardware.LANES_PER_CAGE):
    EOS names a port's rate by its lane count, so the renderer needs it; empty when no port states lanes."""
    return next((cage for cage, count in LANES_PER_CAGE.items() if count == lanes), "")


# ------------------------------------------------------------------------------------------------ intent


def _most_common(values: list, default):
    values = [value for value in values if value is not None]
    return Counter(values).most_common(1)[0][0] if values else default


def _cover(addresses: list[str], default: str, spare: int = 0) -> str:
    """The smallest prefix covering every address with each one a usable host (compiler.allocate.usable_hosts:
    not the network or broadcast address of a prefix above /31) and ``spare`` more usable hosts: a pool the
    pinned values sit in, with room for what the allocator still hands out."""
    if not addresses:
        return default
    values = [int(ipaddress.IPv4Address(address.split("/")[0])) for address in addresses]
    low, high = min(values), max(values)
    length = min(32 - (low ^ high).bit_length(), 31)
    while length > 8:
        network = ipaddress.IPv4Network((low, length), strict=False)
        first, last = int(network.network_address), int(network.broadcast_address)
        usable = network.num_addresses - (2 if length < 31 else 0)
        if (length >= 31 or (low > first and high < last)) and usable >= len(set(values)) + spare:
            return str(network)
        length -= 1
    return default


def _apart(pools: Pools, pinned: list[str], subnets: list[str]) -> Pools:
    """Pools that overlap one another (AVD numbers VTEPs inside the loopback /16) are moved to a free prefix of
    10.0.0.0/8 of the same size: pinned values may sit outside their pool (the allocator keeps stored entries),
    the pool is where new ones come from."""
    chosen: list[ipaddress.IPv4Network] = [ipaddress.IPv4Network(subnet) for subnet in subnets]
    taken = [ipaddress.IPv4Network(address.split("/")[0]) for address in pinned]
    out = {}
    for name in ("loopback", "vtep", "p2p"):
        network = ipaddress.IPv4Network(getattr(pools, name))
        if any(network.overlaps(other) for other in chosen):
            network = next((candidate for candidate in POOL_SPACE.subnets(new_prefix=max(network.prefixlen, 16))
                            if not any(candidate.overlaps(other) for other in chosen + taken)), network)
        chosen.append(network)
        out[name] = str(network)
    return Pools(loopback=out["loopback"], vtep=out["vtep"], p2p=out["p2p"], asn_first=pools.asn_first,
                 asn_last=pools.asn_last, spine_asn=pools.spine_asn, l2vni_base=pools.l2vni_base,
                 l3vni_first=pools.l3vni_first, l3vni_last=pools.l3vni_last)


def _intent(name: str, devices: dict[str, ParsedDevice], roles: dict[str, str], recognised: dict[str, str],
            files: dict[str, dict[str, str]], l2_only: list[tuple[str, int, int]],
            too_long: list[tuple[str, int, str]], assumed: list[str]) -> FabricIntent:
    configs = {host: device.structured for host, device in devices.items()}
    fabric_ports = [interface for config in configs.values() for interface in config["interfaces"]
                    if interface["kind"] == "fabric"]
    unnumbered = any(interface["unnumbered"] for interface in fabric_ports)
    igp = any(config.get("igp") for config in configs.values())
    underlay = Underlay.UNNUMBERED if unnumbered else Underlay.NUMBERED
    recognised["underlay"] = ("IGP underlay + iBGP overlay" if igp else
                              "unnumbered eBGP (RFC 5549)" if unnumbered else "numbered eBGP (/31)")
    leaves = sorted((host for host, role in roles.items() if role in (Role.LEAF, Role.BORDER)), key=natural_key)
    leaf_asns = [configs[host]["asn"] for host in leaves if configs[host]["asn"]]
    shared = len(leaf_asns) != len(set(leaf_asns))
    super_spines = [host for host, role in roles.items() if role == Role.SUPER_SPINE]
    scheme = AsnScheme.PER_RACK if shared else AsnScheme.PER_LEAF
    recognised["asn_scheme"] = ("5-stage, " if super_spines else "") + (
        "per rack pair" if shared else "per leaf")
    recognised["asn_notation"] = "asdot" if any(_ASDOT.search(text) for host in files
                                                 for text in files[host].values()) else "asplain"
    spine_asns = [configs[host]["asn"] for host, role in roles.items() if role == Role.SPINE and configs[host]["asn"]]
    all_asns = [config["asn"] for config in configs.values() if config["asn"]]
    bgps = [config["bgp"] for config in configs.values() if config["bgp"]["asn"]]
    timers = [bgp_timers(device.structured["bgp"], device.platform) for device in devices.values()
              if device.structured["bgp"]["asn"]]
    defaults = BgpPolicy()
    policy = BgpPolicy(maximum_paths=_most_common([bgp["maximum_paths"] for bgp in bgps], defaults.maximum_paths),
                       keepalive_s=_most_common([keepalive for keepalive, _ in timers], defaults.keepalive_s),
                       hold_s=_most_common([hold for _, hold in timers], defaults.hold_s),
                       bfd=_most_common([bool(bgp["bfd"]) for bgp in bgps], defaults.bfd))
    loopbacks = [lo["ip"] for config in configs.values() for lo in config["loopbacks"]
                 if lo["ip"] and lo["purpose"] == "router_id"]
    vteps = [config["vxlan"]["vtep_ip"] for config in configs.values()
             if config["vxlan"] and config["vxlan"].get("vtep_ip")]
    links = [interface["ip"] for interface in fabric_ports if interface["ip"]]
    tenants, networks, route_targets = _tenancy(configs, leaves, l2_only, too_long, assumed)
    recognised["route_target_scheme"] = route_targets
    pools = Pools(loopback=_cover(loopbacks, _POOLS.loopback, len(configs) - len(loopbacks)),
                  vtep=_cover(vteps, _POOLS.vtep, len(leaves) - len(vteps)), p2p=_cover(links, _POOLS.p2p),
                  asn_first=min(leaf_asns, default=_POOLS.asn_first), asn_last=max(leaf_asns, default=_POOLS.asn_last),
                  spine_asn=min(spine_asns, default=_POOLS.spine_asn) if not super_spines
                  else min(spine_asns, default=_POOLS.spine_asn),
                  l3vni_first=min((t.l3vni for t in tenants if t.l3vni), default=_POOLS.l3vni_first),
                  l3vni_last=max((t.l3vni for t in tenants if t.l3vni), default=_POOLS.l3vni_last))
    if pools.asn_first > pools.asn_last or not all_asns:
        pools = Pools(loopback=pools.loopback, vtep=pools.vtep, p2p=pools.p2p)
    pools = _apart(pools, loopbacks + vteps + links, [network.subnet for network in networks])
    underlay_mtu = _most_common([interface["mtu"] for interface in fabric_ports], 9214)
    server_mtus = [interface["mtu"] for config in configs.values() for interface in config["interfaces"]
                   if interface["kind"] == "server" and interface["mtu"]]
    svi_macs = [vlan["svi"].get("mac") for config in configs.values() for vlan in config["vlans"]
                if vlan["svi"] and vlan["svi"].get("mac")]
    # A VTEP whose VXLAN interface maps no VNI (a fabric run before its first VNI on that leaf): the overlay is
    # stated on its own. VNIs the adoption refuses (carried) do not make one: their VXLAN lines stay the configs'.
    bare_overlay = any(config["vxlan"] and config["vxlan"].get("vtep_ip") and not config["vxlan"].get("vlan_vnis")
                       and not config["vxlan"].get("vrf_vnis") for host, config in configs.items() if host in leaves)
    if bare_overlay:
        recognised["evpn_overlay"] = "stated on its own (a VTEP with a VXLAN interface and no VNI)"
    return FabricIntent(
        name=name, inventory_fabric=name, underlay=underlay, asn_scheme=scheme, pools=pools, evpn_overlay=bare_overlay,
        route_target_scheme=RouteTargetScheme.VNI if route_targets == "vni" else RouteTargetScheme.AUTO,
        underlay_mtu=underlay_mtu,
        # VXLAN adds 50 bytes (RFC 7348): a host MTU no server port states is the largest the underlay carries.
        host_mtu=_most_common(server_mtus, min(9000, underlay_mtu - 50)), bgp=policy,
        anycast_gateway_mac=_most_common(svi_macs, _INTENT.anycast_gateway_mac),
        tenants=tenants, networks=networks, roce_classes=_roce_classes(configs),
        management=_management(configs))


def _tenancy(configs: dict[str, dict], leaves: list[str], l2_only: list[tuple[str, int, int]],
             too_long: list[tuple[str, int, str]], assumed: list[str]) -> tuple[tuple[Tenant, ...], tuple[Network, ...], str]:
    vrf_vni: dict[str, int | None] = {}
    for config in configs.values():
        for vrf in config["vrfs"]:
            if vrf["name"] in ("default", "mgmt", "MGMT") or vrf["name"] == (config.get("management") or {}).get("vrf"):
                continue
            vrf_vni[vrf["name"]] = vrf_vni.get(vrf["name"]) or vrf["l3vni"]
    long_names = {vrf for vrf in vrf_vni if len(vrf) > VRF_NAME_MAX}
    tenants = tuple(Tenant(name=vrf, vrf=vrf, l3vni=vni) for vrf, vni in sorted(vrf_vni.items())
                    if vrf not in long_names)
    found: dict[int, dict] = {}
    carriers: dict[int, list[str]] = {}
    attached: dict[int, list[Endpoint]] = {}
    for host in leaves:
        for interface in configs[host]["interfaces"]:
            if interface["kind"] == "server" and interface["access_vlan"] and interface["peer_device"] \
                    and interface["peer_interface"] and interface["peer_device"] not in configs:
                attached.setdefault(interface["access_vlan"], []).append(
                    Endpoint(interface["peer_device"], interface["peer_interface"]))
    rts: list[str] = []
    for host in leaves:
        for vlan in configs[host]["vlans"]:
            if vlan["vni"] is None:
                continue
            entry = found.setdefault(vlan["id"], {"name": vlan.get("network") or f"vni{vlan['vni']}",
                                                   "vni": vlan["vni"], "vrf": None, "svi": None})
            entry["vrf"] = entry["vrf"] or vlan["vrf"]
            entry["svi"] = entry["svi"] or (vlan["svi"] or {}).get("ip") or (vlan["svi"] or {}).get("virtual_ip")
            carriers.setdefault(vlan["id"], []).append(host)
            rts += [rt for rt in (vlan["route_targets"] or {}).get("export", [])]
    networks: list[Network] = []
    bridged: list[tuple[int, dict, tuple[str, ...]]] = []
    default_tenant = tenants[0].name if tenants else ""
    for vlan_id, entry in sorted(found.items()):
        svi = entry["svi"]
        if entry["vrf"] in long_names:
            too_long.append((carriers[vlan_id][0], vlan_id, entry["vrf"]))
            continue
        hosts = carriers[vlan_id]
        leaves_of = () if sorted(hosts) == sorted(leaves) else tuple(sorted(hosts, key=natural_key))
        if svi:
            networks.append(Network(name=entry["name"], tenant=entry["vrf"] or default_tenant, vlan_id=vlan_id,
                                    subnet=str(ipaddress.IPv4Interface(svi).network), gateway=svi.split("/")[0],
                                    l2vni=entry["vni"], leaves=leaves_of,
                                    attachments=tuple(sorted(attached.get(vlan_id, ())))))
        else:
            bridged.append((vlan_id, entry, leaves_of))
    routed_tenants = {network.tenant for network in networks}
    l2_tenant = next((tenant.name for tenant in tenants if tenant.name not in routed_tenants), default_tenant)
    placeholders = L2_SUBNETS.subnets(new_prefix=24)
    for vlan_id, entry, leaves_of in bridged:
        if not l2_tenant:
            l2_only.append((carriers[vlan_id][0], vlan_id, entry["vni"]))
            continue
        # An L2-only VLAN states no subnet (a Network needs one: the twin numbers its hosts from it): a
        # placeholder, named as asked for; its tenant is one whose VRF routes no network, else the first.
        subnet = str(next(placeholders))
        assumed.append(f"network {entry['name']} (VLAN {vlan_id}, VNI {entry['vni']}): L2 only, subnet {subnet} "
                       f"asked for (placeholder), tenant {l2_tenant}")
        networks.append(Network(name=entry["name"], tenant=l2_tenant, vlan_id=vlan_id, subnet=subnet, gateway=None,
                                l2vni=entry["vni"], leaves=leaves_of,
                                attachments=tuple(sorted(attached.get(vlan_id, ())))))
    for vrf in sorted(long_names):
        too_long.append(("", 0, vrf))
    vni_style = bool(rts) and all(rt.split(":")[0] == rt.split(":")[1] for rt in rts)
    return tenants, tuple(networks), "vni" if vni_style or not rts else "auto"


def _roce_classes(configs: dict[str, dict]) -> tuple[RoceClass, ...]:
    """The QoS most devices state (DSCP -> traffic class, lossless priorities, ECN per class, PFC watchdog)."""
    stated = [config["qos"] for config in configs.values() if config.get("qos") and config["qos"].get("classes")]
    if not stated:
        return ()
    qos = _most_common([repr(item) for item in stated], "")
    chosen = next(item for item in stated if repr(item) == qos)
    watchdog = chosen.get("pfc_watchdog") or {}
    cnp = chosen.get("cnp") or {}
    classes = []
    for entry in chosen["classes"]:
        if int(entry["traffic_class"]) == 0:
            continue
        ecn = entry.get("ecn") or {}
        # ECN thresholds are stored in KB (RoceClass); the structured config holds bytes (1 KB = 1024 B, as the
        # renderers multiply).
        classes.append(RoceClass(
            name=entry.get("name") or f"tc{entry['traffic_class']}", dscp=tuple(int(d) for d in entry["dscp"]),
            priority=int(entry["priority"]), traffic_class=int(entry["traffic_class"]), lossless=bool(entry["lossless"]),
            ecn_min_kb=int(ecn.get("min_bytes") or 0) // 1024, ecn_max_kb=int(ecn.get("max_bytes") or 0) // 1024,
            ecn_mark_probability=int(ecn.get("probability") or 0),
            cnp_dscp=int(cnp["dscp"]) if cnp and entry["lossless"] else None,
            cnp_priority=int(cnp["priority"]) if cnp and entry["lossless"] else None,
            pfc_watchdog=bool(watchdog.get("enabled")) if entry["lossless"] else True,
            watchdog_detect_ms=int(watchdog.get("detect_ms") or 200),
            watchdog_restore_ms=int(watchdog.get("restore_ms") or 400)))
    return tuple(classes)


def _management(configs: dict[str, dict]) -> Management:
    entries = [config["management"] for config in configs.values() if config.get("management")]
    if not entries:
        return Management()
    first = entries[0]
    addresses = [entry["address"] for entry in entries if entry.get("address") and "." in entry["address"]]
    stated = Counter(str(ipaddress.IPv4Interface(address).network) for address in addresses)
    # The subnet most devices state when every device's address lies in it (one device's odd prefix length is
    # then that device's residual, not everyone's); else the smallest prefix covering them all (a management
    # network spread over sites), whose gateway is the first device's when it lies inside.
    hosts = [ipaddress.IPv4Interface(address).ip for address in addresses]
    network = next((candidate for candidate, _ in sorted(stated.items(), key=lambda item: (-item[1], item[0]))
                    if all(host in ipaddress.IPv4Network(candidate) for host in hosts)), None) \
        or _cover(addresses, _MANAGEMENT.network)
    gateway = first.get("gateway")
    if gateway and ipaddress.IPv4Address(gateway) not in ipaddress.IPv4Network(network):
        gateway = None
    aaa = first.get("aaa") or {}
    return Management(network=network, gateway=gateway, vrf=first.get("vrf") or "default",
                      # NTP servers may be host names (pool.ntp.org); the other lists take addresses only.
                      ntp_servers=tuple(server for server in first.get("ntp_servers") or ()
                                        if not server_address_problem(server, names=True)),
                      syslog_servers=tuple(first.get("syslog_servers") or ()),
                      dns_servers=tuple(first.get("dns_servers") or ()),
                      aaa_servers=tuple(aaa.get("tacacs_servers") or ()), aaa_secret_ref=aaa.get("secret_ref") or "")


# ------------------------------------------------------------------------------------------------ allocations


def _allocations(devices: dict[str, ParsedDevice], roles: dict[str, str], cables: list[InferredCable],
                 intent: FabricIntent, refused: list[Refusal], files: dict[str, dict[str, str]]) -> Allocations:
    """Every value the configs hold, pinned: the allocator keeps stored entries as they are. A VTEP two leaves
    share (an MLAG pair's anycast VTEP) is pinned for the first only: the intent gives each leaf its own."""
    asns: dict[str, int] = {}
    loopbacks: dict[str, str] = {}
    vteps: dict[str, str] = {}
    p2p: dict[str, tuple[str, str]] = {}
    vtep_owner: dict[str, str] = {}
    for host in sorted(devices, key=natural_key):
        device = devices[host]
        structured = device.structured
        if structured["asn"]:
            asns[host] = int(structured["asn"])
        router_id = next((lo["ip"] for lo in structured["loopbacks"] if lo["purpose"] == "router_id" and lo["ip"]),
                         None)
        if router_id:
            loopbacks[host] = router_id.split("/")[0]
        if structured["vxlan"] and structured["vxlan"].get("vtep_ip"):
            vtep = structured["vxlan"]["vtep_ip"].split("/")[0]
            if vtep in vtep_owner:
                file, line, text = find_line(files[host], rf"\b{re.escape(vtep)}\b")
                refused.append(Refusal(host, file, line, text, f"VTEP {vtep} is {vtep_owner[vtep]}'s too (an MLAG "
                                                               "anycast VTEP): the intent gives each leaf its own, so "
                                                               f"{host} gets a new one (a residual)"))
                continue
            vtep_owner[vtep] = host
            vteps[host] = vtep
    ports = {(host, interface["name"]): interface for host, device in devices.items()
             for interface in device.structured["interfaces"]}
    for cable in cables:
        a_ip, b_ip = ports[(cable.a.device, cable.a.interface)]["ip"], ports[(cable.b.device, cable.b.interface)]["ip"]
        if a_ip and b_ip:
            p2p[cable.label] = (a_ip, b_ip)
    l2vnis = {network.name: network.l2vni for network in intent.networks if network.l2vni is not None}
    l3vnis = {tenant.name: tenant.l3vni for tenant in intent.tenants if tenant.l3vni is not None}
    return Allocations(asns=asns, loopbacks=loopbacks, vteps=vteps, p2p=p2p, l2vnis=l2vnis, l3vnis=l3vnis)
