"""The static prediction of what a live twin will measure, from the validators' model of a compile.

For every item the fidelity comparison (``labs.fidelity``) measures on a twin booted from the same compile,
this says what the validators expect: BGP sessions per device and address family (validators.sessions),
EVPN flood lists per leaf and L2VNI (RFC 8365 section 5.1.3), ECMP width per ordered VTEP pair
(validators.ecmp), the host reachability matrix (validators.overlay), link MTU, host-to-host path MTU with
the VXLAN overhead (RFC 7348 section 5), and minimum ECMP / unreachable VTEP pairs per what-if scenario
(validators.whatif). It also keeps what the intent wants, so a predicted *failure* is visible as one.

Every item is keyed in the twin's names (switch hostnames, Linux interface names). Pure Python; never
imports Django.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from compiler.qos_math import VXLAN_OVERHEAD_BYTES
from compiler.render.frr import twin_ifname
from validators.context import VTEP_ROLES, as_context
from validators.overlay import host_reachability
from validators.subjects import Subject
from validators.whatif import run_whatif

# FRR's defaults where a config sets none (FRR docs, "BFD" and "BGP" chapters; ``frr defaults datacenter``):
# BFD 300 ms receive/transmit interval x detect multiplier 3; BGP keepalive 3 s / hold 9 s.
FRR_BFD_INTERVAL_MS = 300
FRR_BFD_MULTIPLIER = 3
FRR_DATACENTER_HOLD_S = 9
# After the failure is detected: the withdraw crosses a spine (advertisement-interval 0) and both leaves' zebra
# install the smaller ECMP set. Measured 74-293 ms at 2x2..4x32 (docs/twin.md); 1 s leaves room for a busy host.
PROPAGATION_MARGIN_S = 1.0


@dataclass(frozen=True, slots=True)
class FailureDetection:
    """How fast a switch notices a dead neighbour by its protocol timers (a silent failure; a cut veth is also
    seen at once through carrier loss, which these timers bound from above)."""

    seconds: float
    basis: str  # "BFD 300 ms x 3" or "BGP hold 9 s"

    @property
    def outage_limit_s(self) -> float:
        """The largest flow outage the configured timers allow: detection plus propagation."""
        return round(self.seconds + PROPAGATION_MARGIN_S, 3)


def detection_by_timers(*, bfd: bool, hold_s: int = FRR_DATACENTER_HOLD_S, bfd_interval_ms: int = FRR_BFD_INTERVAL_MS,
                        bfd_multiplier: int = FRR_BFD_MULTIPLIER) -> FailureDetection:
    """BFD: receive interval x detect multiplier (RFC 5880 section 6.8.4); without BFD: the BGP hold time
    (RFC 4271 section 4.4)."""
    if bfd:
        return FailureDetection(bfd_interval_ms * bfd_multiplier / 1000, f"BFD {bfd_interval_ms} ms x {bfd_multiplier}")
    return FailureDetection(float(hold_s), f"BGP hold {hold_s} s")


# Address family names: the structured config's -> FRR's ``show bgp summary json`` keys.
AFI_NAMES = {"ipv4_unicast": "ipv4Unicast", "l2vpn_evpn": "l2VpnEvpn"}


def link_key(a: str, a_ifname: str, b: str, b_ifname: str) -> str:
    """One name per cable whatever end it is seen from: 'leaf1:eth3<->spine1:eth1' with the ends sorted."""
    return str(Subject.cable(a, a_ifname, b, b_ifname))


def port_key(host: str, ifname: str) -> str:
    return f"{host}:{ifname}"


@dataclass
class Prediction:
    """What the static side expects, per item, plus what the intent wants (to mark predicted failures)."""

    sessions: dict[str, dict[str, int]] = field(default_factory=dict)  # device -> FRR afi -> established
    sessions_intended: dict[str, int] = field(default_factory=dict)  # device -> cabled fabric links
    flood: dict[str, list[str]] = field(default_factory=dict)  # "leaf:vni" -> remote VTEPs mapping the VNI
    flood_configured: dict[str, list[str]] = field(default_factory=dict)  # "leaf:vni" -> the config's flood list
    ecmp: dict[str, int] = field(default_factory=dict)  # "src->dst" -> kernel width at src toward dst's VTEP
    ecmp_designed: dict[str, int] = field(default_factory=dict)
    vteps: dict[str, str] = field(default_factory=dict)  # leaf -> VTEP address
    port_networks: dict[str, str | None] = field(default_factory=dict)  # "server:nic" -> network
    network_tenants: dict[str, str] = field(default_factory=dict)
    reachability: dict[str, bool] = field(default_factory=dict)  # "netA->netB" -> can talk
    reachability_reasons: dict[str, str] = field(default_factory=dict)
    link_mtu: dict[str, int] = field(default_factory=dict)  # link key -> largest IP packet both ways
    link_mtu_intended: dict[str, int] = field(default_factory=dict)
    host_mtu: dict[str, int] = field(default_factory=dict)  # "srv:nic->srv:nic" -> largest inner IP packet
    host_mtu_intended: dict[str, int] = field(default_factory=dict)
    baseline: dict = field(default_factory=dict)  # {"min_ecmp", "unreachable_pairs"} with nothing failed
    scenarios: list[dict] = field(default_factory=list)  # kind, subject, targets, min_ecmp, unreachable_pairs
    # Slowest failure detection of the switches' BGP/BFD timers, as the twin runs them (``twin_protocol``):
    # {"seconds", "basis", "outage_limit_s"}; the twin's failover checks use the same limit.
    failure_detection: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def predict(compile_result, *, host_nic_mtu: dict[str, int] | None = None,
            devices: set[str] | frozenset[str] | None = None, twin_protocol: dict | None = None) -> Prediction:
    """The static prediction for every fidelity item, from the same model the validators use.

    ``host_nic_mtu`` (port key -> MTU) overrides the NIC MTUs of the host configs (the intent's host MTU, which
    the twin's host interfaces boot with; without an intent, min(inventory NIC MTU, the leaf's host MTU)). ``devices``: only these switches are twinned
    (a subset boot, labs.subset: every spine plus some leaves): items of other switches are left out, and a
    session, cable or flood-list entry counts only when both of its ends are twinned. ECMP widths and the N-1
    scenarios' numbers stay the full fabric's (every spine is twinned, so a width between twinned leaves is the
    same; scenarios are kept when everything they cut is twinned). ``twin_protocol`` ({"bfd": bool,
    "min_hold_s": int}, the twin's size policy, labs.runtime.sizing) says what the twin runs instead of the
    configs' BFD and hold time, so the prediction compares like with like."""
    ctx = as_context(compile_result)
    prediction = Prediction()
    structured = ctx.structured
    if devices is not None:
        structured = {host: config for host, config in structured.items() if host in devices}

    # BGP sessions per device and address family (validators.sessions pairing).
    for host, config in structured.items():
        prediction.sessions[host] = {}
        prediction.sessions_intended[host] = sum(1 for i in config["interfaces"]
                                                 if i["kind"] == "fabric" and i.get("peer_device") in structured)
    families_at = _neighbor_families(structured)
    for session in ctx.sessions.established:
        if session.a not in structured or session.b not in structured:
            continue
        families = families_at.get((session.a, session.a_interface), set()) & families_at.get(
            (session.b, session.b_interface), set())
        for afi in families:
            name = AFI_NAMES.get(afi, afi)
            for device in (session.a, session.b):
                prediction.sessions[device][name] = prediction.sessions[device].get(name, 0) + 1
    for host, config in structured.items():  # an address family with zero sessions is still an item
        for neighbor in config["bgp"]["neighbors"]:
            for afi in neighbor.get("address_families") or ():
                prediction.sessions[host].setdefault(AFI_NAMES.get(afi, afi), 0)

    # EVPN flood lists: every other VTEP whose VXLAN interface maps the VNI sends a type-3 route for it.
    mapping: dict[int, dict[str, str]] = defaultdict(dict)  # vni -> leaf -> VTEP
    for host, config in structured.items():
        vxlan = config.get("vxlan") or {}
        for vni in (vxlan.get("vlan_vnis") or {}).values():
            if vxlan.get("vtep_ip"):
                mapping[int(vni)][host] = vxlan["vtep_ip"]
    for vni, leaves in mapping.items():
        for leaf in leaves:
            key = f"{leaf}:{vni}"
            prediction.flood[key] = sorted(vtep for other, vtep in leaves.items() if other != leaf)
            configured = ((structured[leaf].get("vxlan") or {}).get("flood_lists") or {}).get(str(vni))
            prediction.flood_configured[key] = sorted(configured or [])

    # ECMP per ordered VTEP pair (validators.ecmp leaf-pair matrix; width at the receiver of the route).
    matrix = ctx.leaf_pairs
    for origin, receiver in itertools.permutations(matrix.leaves, 2):
        if origin not in structured or receiver not in structured:
            continue
        prediction.ecmp[f"{receiver}->{origin}"] = matrix.width(origin, receiver)
        designed = matrix.designed_width(origin, receiver)
        if designed is not None:
            prediction.ecmp_designed[f"{receiver}->{origin}"] = designed
    for host, config in structured.items():
        vtep = (config.get("vxlan") or {}).get("vtep_ip")
        if vtep and config.get("role") in VTEP_ROLES:
            prediction.vteps[host] = vtep

    # Host reachability matrix (validators.overlay), network x network.
    host_matrix, _findings = host_reachability(ctx)
    prediction.port_networks = dict(host_matrix.ports)
    if devices is not None:
        twinned_ports = {f"{i['peer_device']}:{i['peer_interface']}" for config in structured.values()
                         for i in config["interfaces"] if i["kind"] == "server"}  # port_key's format
        prediction.port_networks = {key: network for key, network in prediction.port_networks.items()
                                    if key in twinned_ports}
    prediction.network_tenants = {name: info["tenant"] for name, info in host_matrix.networks.items()}
    for (a, b), ok in host_matrix.reachable.items():
        prediction.reachability[f"{a}->{b}"] = ok
        prediction.reachability_reasons[f"{a}->{b}"] = host_matrix.reasons.get((a, b), "")

    # Link MTU: both directions of a cable pass min(MTU of the two ends).
    index = ctx.interface_index
    for host, config in structured.items():
        intended = (config.get("mtu") or {}).get("underlay")
        for interface in config["interfaces"]:
            if interface["kind"] != "fabric":
                continue
            peer_device, peer_interface = interface["peer_device"], interface["peer_interface"]
            peer = index.get((peer_device, peer_interface)) if peer_device and peer_interface else None
            if peer is None or peer_device is None or peer_interface is None or peer_device not in structured:
                continue
            key = link_key(host, twin_ifname(interface["name"], config["platform"]), peer_device,
                           twin_ifname(peer_interface, _platform(structured, peer_device)))
            prediction.link_mtu[key] = min(interface["mtu"], peer["mtu"])
            if intended:
                prediction.link_mtu_intended[key] = intended

    _predict_failure_detection(structured, prediction, twin_protocol or {})
    _predict_host_mtu(ctx, prediction, host_nic_mtu or {}, structured)
    _predict_n_minus_1(ctx, prediction, devices)
    return prediction


def _predict_failure_detection(structured: Mapping[str, Any], prediction: Prediction, twin_protocol: dict) -> None:
    """The slowest switch's detection: BFD where its peer groups enable it (FRR's default 300 ms x 3, as the
    FRR rendering sets no BFD timers), else its BGP hold time; ``twin_protocol`` overrides both."""
    slowest: FailureDetection | None = None
    for config in structured.values():
        bgp = config.get("bgp") or {}
        if not bgp.get("neighbors"):
            continue
        bfd = any(group.get("bfd") for group in bgp.get("peer_groups") or ())
        if twin_protocol.get("bfd") is False:
            bfd = False
        hold = int(bgp.get("hold_s") or FRR_DATACENTER_HOLD_S)
        if not bfd and twin_protocol.get("min_hold_s"):
            hold = max(hold, int(twin_protocol["min_hold_s"]))
        detection = detection_by_timers(bfd=bfd, hold_s=hold)
        if slowest is None or detection.seconds > slowest.seconds:
            slowest = detection
    if slowest is not None:
        prediction.failure_detection = {"seconds": slowest.seconds, "basis": slowest.basis,
                                        "outage_limit_s": slowest.outage_limit_s}


def _neighbor_families(structured) -> dict[tuple[str, str], set[str]]:
    """(device, local interface) -> address families of the BGP neighbor there (its own, else its peer group's)."""
    out = {}
    for host, config in structured.items():
        groups = {group.get("name"): group for group in config["bgp"].get("peer_groups") or ()}
        for neighbor in config["bgp"]["neighbors"]:
            families = neighbor.get("address_families") or groups.get(neighbor.get("peer_group"), {}).get(
                "address_families") or ()
            out[(host, neighbor.get("interface"))] = set(families)
    return out


def _predict_host_mtu(ctx, prediction: Prediction, nic_override: dict[str, int], structured: Mapping[str, Any]
                      ) -> None:
    """Largest inner IP packet between two hosts of one network on different leaves, on every ECMP path
    (between the ``structured`` switches: all, or a subset boot's)."""
    index = ctx.interface_index
    inventory = ctx.inventory
    ports: list[tuple[str, str, str, dict]] = []  # (port key, network, leaf, leaf's server port)
    for host, config in structured.items():
        vlans = {vlan["id"]: vlan for vlan in config["vlans"]}
        for interface in config["interfaces"]:
            if interface["kind"] == "server" and interface["enabled"] and interface["access_vlan"] in vlans:
                ports.append((port_key(interface["peer_device"], interface["peer_interface"]),
                              vlans[interface["access_vlan"]]["network"], host, interface))
    uplinks: dict[str, dict[str, int]] = defaultdict(dict)  # leaf -> spine -> smallest link MTU to it
    for host, config in structured.items():
        if config.get("role") not in VTEP_ROLES:
            continue
        for interface in config["interfaces"]:
            peer = index.get((interface.get("peer_device"), interface.get("peer_interface")))
            if interface["kind"] != "fabric" or not interface["enabled"] or peer is None or not peer["enabled"]:
                continue
            mtu = min(interface["mtu"], peer["mtu"])
            spine = interface["peer_device"]
            uplinks[host][spine] = min(uplinks[host].get(spine, mtu), mtu)

    intent = ctx.intent

    def nic_mtu(key: str, leaf: str) -> int:
        if key in nic_override:
            return nic_override[key]
        if intent is not None:
            # The NIC MTU of the server's host config (compiler.host_config: the intent's host MTU), which the
            # twin's hosts boot with (labs.from_compile, from their rendered netplan).
            return intent.host_mtu
        server_name, nic_name = key.split(":", 1)
        host_mtu = (structured[leaf].get("mtu") or {}).get("host") or 9000
        server = inventory.servers_by_name.get(server_name) if inventory is not None else None
        nic = server.nics_by_name.get(nic_name) if server is not None else None
        return min(nic.mtu, host_mtu) if nic is not None else host_mtu

    for (key_a, net_a, leaf_a, port_a), (key_b, net_b, leaf_b, port_b) in itertools.combinations(ports, 2):
        if net_a != net_b or leaf_a == leaf_b:
            continue
        intended = min(nic_mtu(key_a, leaf_a), nic_mtu(key_b, leaf_b))
        pair = f"{key_a}->{key_b}"
        prediction.host_mtu_intended[pair] = intended
        vlan_a = port_a["access_vlan"]
        mapped = [str(vlan_a) in ((structured[leaf].get("vxlan") or {}).get("vlan_vnis") or {}) for leaf in (leaf_a, leaf_b)]
        common = set(uplinks[leaf_a]) & set(uplinks[leaf_b])
        if not all(mapped) or not common:
            prediction.host_mtu[pair] = 0  # no VXLAN tunnel for the network, or no path: nothing gets through
            continue
        limits = [intended, port_a["mtu"], port_b["mtu"]]
        for leaf in (leaf_a, leaf_b):
            vxlan_mtu = (structured[leaf].get("vxlan") or {}).get("mtu")
            if vxlan_mtu:
                limits.append(vxlan_mtu)
        # Every spine both leaves reach is an ECMP path; the smallest hop on any of them decides.
        path_mtu = min(min(uplinks[leaf_a][spine], uplinks[leaf_b][spine]) for spine in common)
        limits.append(path_mtu - VXLAN_OVERHEAD_BYTES)
        prediction.host_mtu[pair] = min(limits)


def _platform(structured, host: str) -> str:
    """The platform whose twin port names apply (labs.node_configs): the device's own."""
    config = structured.get(host)
    return config.get("platform", "") if config else ""


def _predict_n_minus_1(ctx, prediction: Prediction, devices: set[str] | frozenset[str] | None = None) -> None:
    """The static what-if scenarios, with the twin's targets (node, Linux interface) to cut for each (with
    ``devices``, the scenarios whose every target is on a twinned switch)."""
    result = getattr(ctx, "whatif_result", None) or run_whatif(ctx)
    prediction.baseline = {"min_ecmp": result.baseline_min_ecmp, "unreachable_pairs": result.baseline_unreachable}
    twinned = (lambda device: devices is None or device in devices)  # noqa: E731 - one-line predicate
    fabric_ports: dict[str, list[str]] = {
        host: [twin_ifname(i["name"], config["platform"]) for i in config["interfaces"]
               if i["kind"] == "fabric" and i["enabled"] and twinned(i.get("peer_device"))]
        for host, config in ctx.structured.items()}
    for scenario in result.scenarios:
        if scenario.kind != "link":  # "spine" or a set of spines ("spine1+spine2", N-2): every fabric port of each
            cut = scenario.subject.split("+")
            targets = [[device, ifname] for device in cut for ifname in fabric_ports.get(device, [])]
            subject = scenario.subject
        else:
            end_a, end_b = Subject.parse(scenario.subject).ends
            a, a_if, b, b_if = end_a.device, end_a.interface, end_b.device, end_b.interface
            a_twin = twin_ifname(a_if, _platform(ctx.structured, a))
            targets = [[a, a_twin]]
            subject = link_key(a, a_twin, b, twin_ifname(b_if, _platform(ctx.structured, b)))
            cut = [a, b]
        if not all(twinned(device) for device in cut):
            continue
        prediction.scenarios.append({"kind": scenario.kind, "subject": subject, "targets": targets,
                                     "min_ecmp": scenario.min_ecmp, "unreachable_pairs": scenario.unreachable_pairs})
