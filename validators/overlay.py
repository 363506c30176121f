"""EVPN/VXLAN overlay checks over the structured configs, and the host reachability matrix.

* ``overlay.vlan_vni`` -- a network has one VLAN and one L2VNI on every leaf carrying it, the VXLAN interface
  maps exactly the configured VLANs, and no VNI serves two networks (or a network and a tenant's L3VNI).
* ``overlay.route_targets`` -- per VNI, every leaf imports a route target that each other leaf carrying the VNI
  exports (RFC 7432 section 7.9; with the platform's auto-derived RTs the lists are empty everywhere).
* ``overlay.flood_lists`` -- per VNI, every VTEP carrying it is in the flood list of every other (what EVPN
  type-3 inclusive-multicast routes must produce, RFC 8365 section 5.1.3); a VTEP not carrying it is not. Two
  leaves with one VTEP address are an error (each one's BUM and EVPN routes name the other's tunnel end), except
  the two peers of a peer link (MLAG anycast VTEP).
* ``overlay.l3vni`` -- one L3VNI and VRF per tenant everywhere; the BGP VRF, the VRF list and the VXLAN VRF map
  agree; a VLAN's VRF belongs to its own tenant (anything else leaks routes between tenants).
* ``overlay.esi`` -- EVPN ethernet segments (all-active multihoming, RFC 7432): every PE of a segment imports the
  same ES-Import route target, presents the same LACP system ID and carries the same VLANs; no reserved ESI, no
  LACP system ID shared by two segments; a segment on one PE only is a warning (:func:`check_ethernet_segments`).
* ``overlay.host_reachability`` -- :func:`host_reachability` builds which attached server ports can reach
  which (same network: bridged over the L2VNI; another network of the same tenant: routed through the tenant
  VRF when both have gateways; another tenant: never) and reports where the configs deviate from the intent.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from compiler.errors import InputError
from compiler.hosts import host_addresses
from compiler.structured.contract import Vlan
from validators.common import CheckSkipped, short_list
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.mlag import mlag_pairs

VLAN_VNI = "overlay.vlan_vni"
ROUTE_TARGETS = "overlay.route_targets"
FLOOD_LISTS = "overlay.flood_lists"
L3VNI = "overlay.l3vni"
HOST_REACHABILITY = "overlay.host_reachability"
ESI = "overlay.esi"
# RFC 7432 section 5: ESI 0 denotes a single-homed CE and MAX-ESI (all ones) is reserved; neither names a segment.
RESERVED_ESIS = {"0000:0000:0000:0000:0000": "ESI 0 (reserved for single-homed sites)",
                 "ffff:ffff:ffff:ffff:ffff": "MAX-ESI (reserved)"}


def _carriers(structured) -> dict[str, list[tuple[str, dict]]]:
    """network -> [(leaf, vlan entry)]"""
    result: dict[str, list[tuple[str, dict]]] = defaultdict(list)
    for host, config in structured.items():
        for vlan in config["vlans"]:
            result[vlan["network"]].append((host, vlan))
    return result


def _majority(values):
    return Counter(values).most_common(1)[0][0]


def check_vlan_vni(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    vni_owner: dict[int, set[str]] = defaultdict(set)
    carriers = _carriers(ctx.structured)
    examined_vlans, examined_networks = 0, 0
    for network, entries in sorted(carriers.items()):
        # A switch without VXLAN (an L2 leaf below an MLAG VTEP pair) bridges the VLAN, it maps no VNI; a VLAN with
        # no VNI anywhere (L2LS fabrics, MLAG peer VLANs) is L2-only, not an overlay.
        entries = [(host, vlan) for host, vlan in entries if ctx.structured[host].get("vxlan")]
        if all(vlan["vni"] is None for _host, vlan in entries):
            continue
        examined_vlans += len(entries)
        examined_networks += 1
        usual = _majority((vlan["id"], vlan["vni"]) for _host, vlan in entries)
        for host, vlan in entries:
            if vlan["vni"] is not None:
                vni_owner[vlan["vni"]].add(f"network {network}")
            if (vlan["id"], vlan["vni"]) != usual:
                findings.append(Finding(
                    check=VLAN_VNI, severity=Severity.ERROR, subject=f"{host}:{network}",
                    expected=f"VLAN {usual[0]} <-> VNI {usual[1]}", actual=f"VLAN {vlan['id']} <-> VNI {vlan['vni']}",
                    message=f"{network} is VLAN {vlan['id']} / VNI {vlan['vni']} on {host} but VLAN "
                    f"{usual[0]} / VNI {usual[1]} elsewhere: hosts on {host} are cut off"))
    ctx.record_examined(VLAN_VNI, {"VXLAN VLANs": examined_vlans, "networks": examined_networks})
    for host, config in ctx.structured.items():
        vxlan = config.get("vxlan") or {}
        for vrf in config["vrfs"]:
            if vrf["l3vni"] is not None:
                vni_owner[vrf["l3vni"]].add(f"tenant {vrf['tenant']}")
        if not config["vlans"] and not vxlan:
            continue
        configured = {str(vlan["id"]): vlan["vni"] for vlan in config["vlans"] if vlan["vni"] is not None}
        mapped = dict(vxlan.get("vlan_vnis") or {})
        if configured != mapped:
            wrong = sorted(set(configured.items()) ^ set(mapped.items()))
            findings.append(Finding(
                check=VLAN_VNI, severity=Severity.ERROR, subject=f"{host}:vxlan", expected=configured, actual=mapped,
                message=f"VXLAN VLAN-to-VNI map differs from the VLANs configured on {host}: {wrong}"))
    for vni, owners in sorted(vni_owner.items()):
        if len(owners) > 1:
            findings.append(Finding(
                check=VLAN_VNI, severity=Severity.ERROR, subject=f"VNI {vni}", expected="one owner",
                actual=sorted(owners),
                message=f"VNI {vni} is used by {', '.join(sorted(owners))}: their traffic would merge"))
    return findings


def _vni_route_targets(structured) -> dict[int, list[tuple[str, frozenset, frozenset]]]:
    result: dict[int, list] = defaultdict(list)
    for host, config in structured.items():
        for vlan in config["vlans"]:
            if vlan["vni"] is None:
                continue  # L2-only: no EVPN routes
            targets = vlan.get("route_targets") or {}
            result[vlan["vni"]].append((host, frozenset(targets.get("import") or ()),
                                        frozenset(targets.get("export") or ())))
        for vrf in config["bgp"].get("vrfs") or ():
            if vrf["l3vni"] is None:
                continue  # a VRF without an L3VNI exchanges no EVPN routes
            targets = vrf.get("route_targets") or {}
            result[vrf["l3vni"]].append((host, frozenset(targets.get("import") or ()),
                                         frozenset(targets.get("export") or ())))
    return result


def check_route_targets(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    per_vni = _vni_route_targets(ctx.structured)
    ctx.record_examined(ROUTE_TARGETS, {"VNIs": len(per_vni), "VTEP-VNI pairs": sum(map(len, per_vni.values()))})
    for vni, entries in sorted(per_vni.items()):
        exports = Counter(export for _host, _import, export in entries)
        if set(exports) == {frozenset()} and all(not imported for _h, imported, _e in entries):
            continue  # auto-derived route targets everywhere
        for host, imported, exported in entries:
            if not exported:
                findings.append(Finding(
                    check=ROUTE_TARGETS, severity=Severity.ERROR, subject=f"{host}:VNI {vni}", expected="an export RT",
                    actual=[], message=f"{host} exports no route target for VNI {vni} while others do"))
            for export_set, count in exports.items():
                others = count - (1 if export_set == exported else 0)
                if others and not imported & export_set:
                    findings.append(Finding(
                        check=ROUTE_TARGETS, severity=Severity.ERROR, subject=f"{host}:VNI {vni}",
                        expected=sorted(export_set), actual=sorted(imported),
                        message=f"{host} imports {sorted(imported)} for VNI {vni} but {others} other VTEP(s) export "
                        f"{sorted(export_set)}: it never learns their MAC/IP routes"))
    return findings


def _vteps_by_vni(structured) -> dict[int, dict[str, str]]:
    """VNI -> {leaf: its VTEP IP} for every leaf whose VXLAN interface maps the VNI."""
    result: dict[int, dict[str, str]] = defaultdict(dict)
    for host, config in structured.items():
        vxlan = config.get("vxlan") or {}
        if not vxlan.get("vtep_ip"):
            continue
        for vni in (vxlan.get("vlan_vnis") or {}).values():
            result[vni][host] = vxlan["vtep_ip"]
    return result


def _duplicate_vteps(structured) -> list[Finding]:
    """One VTEP address on two leaves that are not the peers of one peer link (an MLAG pair's anycast VTEP)."""
    owners: dict[str, list[str]] = defaultdict(list)
    for host, config in structured.items():
        vtep = (config.get("vxlan") or {}).get("vtep_ip")
        if vtep:
            owners[vtep].append(host)
    findings: list[Finding] = []
    for vtep, hosts in owners.items():
        if len(hosts) < 2:
            continue
        peers = {host: {i["peer_device"] for i in structured[host]["interfaces"] if i["kind"] == "peer_link"}
                 for host in hosts}
        if len(hosts) == 2 and (hosts[1] in peers[hosts[0]] or mlag_pairs(structured).get(hosts[0]) == hosts[1]):
            continue  # an MLAG pair (each names the other's peer address) shares its anycast VTEP by design
        for host in sorted(hosts):
            others = sorted(set(hosts) - {host})
            findings.append(Finding(
                check=FLOOD_LISTS, severity=Severity.ERROR, subject=host, expected="a VTEP address of its own",
                actual=vtep, message=f"{host} uses VTEP {vtep}, also the VTEP of {short_list(others)} (no peer link "
                "joins them): VXLAN traffic and EVPN routes for either reach whichever the underlay picks"))
    return findings


def check_flood_lists(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    structured = ctx.structured
    findings: list[Finding] = _duplicate_vteps(structured)
    per_vni = _vteps_by_vni(structured)
    ctx.record_examined(FLOOD_LISTS, {"VNIs": len(per_vni), "VTEP-VNI pairs": sum(map(len, per_vni.values()))})
    for vni, vteps in sorted(per_vni.items()):
        everyone = set(vteps.values())
        owner = {ip: host for host, ip in vteps.items()}
        for host, own in vteps.items():
            flood = (structured[host]["vxlan"].get("flood_lists") or {}).get(str(vni)) or []
            expected_size = len(everyone) - 1
            flood_set = set(flood)
            if len(flood) == expected_size and own not in flood_set and flood_set <= everyone:
                continue
            missing = sorted(everyone - flood_set - {own})
            extra = sorted(flood_set - everyone)
            if missing:
                findings.append(Finding(
                    check=FLOOD_LISTS, severity=Severity.ERROR, subject=f"{host}:VNI {vni}", expected=expected_size,
                    actual=expected_size - len(missing),
                    message=f"{host} does not flood VNI {vni} to {short_list(missing)} "
                    f"({short_list(owner[ip] for ip in missing)}): BUM traffic never reaches them"))
            if extra:
                findings.append(Finding(
                    check=FLOOD_LISTS, severity=Severity.WARNING, subject=f"{host}:VNI {vni}", expected=[],
                    actual=extra, message=f"{host} floods VNI {vni} to {short_list(extra)} which do not carry it"))
            if own in flood_set:
                findings.append(Finding(
                    check=FLOOD_LISTS, severity=Severity.WARNING, subject=f"{host}:VNI {vni}", expected="not itself",
                    actual=own, message=f"{host} lists its own VTEP {own} in the flood list of VNI {vni}"))
    return findings


def check_l3vni(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    per_tenant: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    vrf_tenant: dict[str, str] = {}
    for host, config in ctx.structured.items():
        bgp_vrfs = {vrf["name"]: vrf.get("l3vni") for vrf in config["bgp"].get("vrfs") or ()}
        vxlan_vrfs = dict((config.get("vxlan") or {}).get("vrf_vnis") or {})
        for vrf in config["vrfs"]:
            if vrf["l3vni"] is None and bgp_vrfs.get(vrf["name"]) is None and vxlan_vrfs.get(vrf["name"]) is None:
                continue  # a VRF routed nowhere over EVPN (management, a local VRF): no L3VNI to agree on
            per_tenant[vrf["tenant"]].append((host, vrf["name"], vrf["l3vni"]))
            vrf_tenant.setdefault(vrf["name"], vrf["tenant"])
            for where, value in (("router bgp vrf", bgp_vrfs.get(vrf["name"])),
                                 ("VXLAN vrf map", vxlan_vrfs.get(vrf["name"]))):
                if value != vrf["l3vni"]:
                    findings.append(Finding(
                        check=L3VNI, severity=Severity.ERROR, subject=f"{host}:{vrf['name']}", expected=vrf["l3vni"],
                        actual=value, message=f"{where} of {vrf['name']} on {host} has L3VNI {value}, the VRF has "
                        f"{vrf['l3vni']}"))
    ctx.record_examined(L3VNI, {"tenant VRFs": sum(map(len, per_tenant.values())), "tenants": len(per_tenant)})
    for tenant, entries in sorted(per_tenant.items(), key=lambda item: str(item[0])):
        usual = _majority((name, vni) for _host, name, vni in entries)
        for host, name, vni in entries:
            if (name, vni) != usual:
                findings.append(Finding(
                    check=L3VNI, severity=Severity.ERROR, subject=f"{host}:{name}",
                    expected=f"VRF {usual[0]} L3VNI {usual[1]}", actual=f"VRF {name} L3VNI {vni}",
                    message=f"tenant {tenant} is VRF {name} / L3VNI {vni} on {host} but VRF {usual[0]} / "
                    f"L3VNI {usual[1]} elsewhere: routed traffic to {host} is lost"))
    for host, config in ctx.structured.items():
        for vlan in config["vlans"]:
            vlan_vrf = vlan["vrf"]
            owner = vrf_tenant.get(vlan_vrf) if vlan_vrf else None
            if vlan_vrf and owner is not None and owner != vlan["tenant"]:
                findings.append(Finding(
                    check=L3VNI, severity=Severity.ERROR, subject=f"{host}:{vlan['network']}",
                    expected=f"a VRF of tenant {vlan['tenant']}", actual=vlan["vrf"],
                    message=f"{vlan['network']} (tenant {vlan['tenant']}) is placed in VRF {vlan['vrf']} of "
                    f"tenant {owner} on {host}: routes leak between tenants"))
    return findings


# ---------------------------------------------------------------------------------------------- host matrix


@dataclass
class HostMatrix:
    ports: dict[str, str | None] = field(default_factory=dict)  # "gpu0001:eth0" -> network (None: in none)
    addresses: dict[str, str] = field(default_factory=dict)  # "gpu0001:eth0" -> "10.10.0.2/24" (compiler.hosts)
    networks: dict[str, dict] = field(default_factory=dict)  # name -> tenant, vni, vrf, gateway, leaves
    reachable: dict[tuple[str, str], bool] = field(default_factory=dict)  # (network a, network b) -> can talk
    reasons: dict[tuple[str, str], str] = field(default_factory=dict)

    def can_reach(self, port_a: str, port_b: str) -> bool:
        net_a, net_b = self.ports.get(port_a), self.ports.get(port_b)
        if net_a is None or net_b is None:
            return False
        return self.reachable.get((net_a, net_b), False)

    def as_dict(self) -> dict:
        names = sorted(self.networks)
        return {"ports": dict(sorted(self.ports.items())), "addresses": dict(sorted(self.addresses.items())),
                "networks": self.networks,
                "matrix": {a: {b: self.reachable.get((a, b), False) for b in names} for a in names},
                "reasons": {f"{a}->{b}": reason for (a, b), reason in sorted(self.reasons.items())}}


def host_reachability(fabric) -> tuple[HostMatrix, list[Finding]]:
    """Which attached server ports reach which, from the configs; findings where that contradicts the intent."""
    ctx = as_context(fabric)
    structured = ctx.structured
    matrix = HostMatrix()
    findings: list[Finding] = []
    vlan_at: dict[str, dict[int, Vlan]] = {host: {vlan["id"]: vlan for vlan in config["vlans"]}
                                           for host, config in structured.items()}
    leaves_with_ports: dict[str, set[str]] = defaultdict(set)
    for host, config in structured.items():
        for interface in config["interfaces"]:
            if interface["kind"] != "server":
                continue
            port = f"{interface['peer_device']}:{interface['peer_interface']}"
            vlan = vlan_at[host].get(interface["access_vlan"]) if interface["access_vlan"] is not None else None
            network = vlan["network"] if vlan is not None and interface["enabled"] else None
            matrix.ports[port] = network
            if network:
                leaves_with_ports[network].add(host)
    if ctx.snapshot is not None:
        try:  # the one answer to "which address does this NIC use", shared with the twin (compiler.hosts)
            matrix.addresses = {f"{host.endpoint.device}:{host.endpoint.interface}": host.address
                                for host in host_addresses(ctx.snapshot)}
        except InputError as error:
            findings += [Finding(
                check=HOST_REACHABILITY, severity=Severity.ERROR, subject=item.field,
                expected="an address per attached port", actual=item.value, message=item.message) for item in error.errors]
    if ctx.intent is not None:
        for network in ctx.intent.networks:
            for endpoint in network.attachments:
                port = f"{endpoint.device}:{endpoint.interface}"
                actual = matrix.ports.get(port)
                if actual != network.name:
                    findings.append(Finding(
                        check=HOST_REACHABILITY, severity=Severity.ERROR, subject=port, expected=network.name,
                        actual=actual, message=f"{port} should be in {network.name} but its leaf port puts it in "
                        f"{actual or 'no network'}"))
    carriers = _carriers(structured)
    for name, entries in carriers.items():
        first = entries[0][1]
        matrix.networks[name] = {
            "tenant": first["tenant"], "vni": first["vni"], "vrf": first.get("vrf"),
            "gateway_on": sorted(host for host, vlan in entries if vlan.get("svi")),
            "leaves": sorted(host for host, _vlan in entries)}
    # Leaves involved in an unreachable VTEP pair (from the routing simulation).
    pair_matrix = ctx.leaf_pairs
    cut_pairs: set[tuple[str, str]] = set()
    if pair_matrix.leaves:
        for origin_class, receiver_class, _count in pair_matrix.class_pairs():
            if pair_matrix.widths[(origin_class, receiver_class)][0] == 0:
                for o, r in pair_matrix.pairs_in(origin_class, receiver_class):
                    if not pair_matrix.overrides.get((o, r)):
                        cut_pairs.add((pair_matrix.leaves[r], pair_matrix.leaves[o]))
        # Two leaves owning one VTEP address without being MLAG peers: each holds the address itself, so no route
        # (an iBGP session between them carries one) takes a tunnel to the other (RFC 7348: one VTEP, one IP).
        prefixes = pair_matrix.model.vtep_prefix
        by_prefix: dict[str, list[str]] = defaultdict(list)
        for device in pair_matrix.leaf_devices:
            prefix = prefixes[device]
            if prefix:
                by_prefix[prefix].append(pair_matrix.model.names[device])
        for owners in by_prefix.values():
            cut_pairs.update((a, b) for a in owners for b in owners if a != b)
    vni_by_leaf = {name: {host: vlan["vni"] for host, vlan in entries} for name, entries in carriers.items()}
    flood = _vteps_by_vni(structured)
    pairs = mlag_pairs(structured)  # an MLAG pair shares one VTEP: its members bridge over the peer-link

    def bridged(name: str) -> tuple[bool, str]:
        hosts = sorted(leaves_with_ports.get(name, ()))
        vnis = {vni_by_leaf[name].get(host) for host in hosts}
        if len(vnis) > 1:
            return False, f"leaves disagree on the VNI of {name}: {sorted(map(str, vnis))}"
        vni = next(iter(vnis), None)
        for a in hosts if cut_pairs else ():
            for b in hosts:
                if a != b and (a, b) in cut_pairs and pairs.get(a) != b:
                    return False, f"{a} has no route to the VTEP of {b}"
        if vni is not None and len(hosts) > 1:
            members = flood.get(vni, {})
            for host in hosts:
                if host not in members:
                    return False, f"{host} does not map VNI {vni} on its VXLAN interface"
        return True, "bridged over the L2VNI"

    intra = {name: bridged(name) for name in matrix.networks}
    for a, info_a in matrix.networks.items():
        for b, info_b in matrix.networks.items():
            if a == b:
                ok, reason = intra[a]
            elif info_a["tenant"] != info_b["tenant"]:
                ok, reason = False, "different tenants"
                if info_a["vrf"] and info_a["vrf"] == info_b["vrf"]:
                    ok, reason = True, f"tenants {info_a['tenant']} and {info_b['tenant']} share VRF {info_a['vrf']}"
                    findings.append(Finding(
                        check=HOST_REACHABILITY, severity=Severity.ERROR, subject=f"network {a}<->network {b}",
                        expected=False, actual=True, message=f"{a} (tenant {info_a['tenant']}) and {b} (tenant "
                        f"{info_b['tenant']}) can reach each other: {reason}"))
            else:
                missing = [n for n, info in ((a, info_a), (b, info_b))
                           if set(leaves_with_ports.get(n, ())) - set(info["gateway_on"])]
                if missing:
                    ok, reason = False, f"no gateway for {', '.join(missing)} on the leaves of its ports"
                elif not (intra[a][0] and intra[b][0]):
                    ok, reason = False, "the networks themselves are split"
                else:
                    ok, reason = True, f"routed in VRF {info_a['vrf']}"
            matrix.reachable[(a, b)] = ok
            matrix.reasons[(a, b)] = reason
    for name, (ok, reason) in sorted(intra.items()):
        if not ok:
            findings.append(Finding(
                check=HOST_REACHABILITY, severity=Severity.ERROR, subject=f"network {name}", expected=True,
                actual=False, message=f"ports of {name} cannot all reach each other: {reason}"))
    if ctx.intent is not None:
        for network in ctx.intent.networks:
            info = matrix.networks.get(network.name)
            if network.gateway and info is not None:
                lacking = sorted(set(info["leaves"]) - set(info["gateway_on"]))
                if lacking:
                    findings.append(Finding(
                        check=HOST_REACHABILITY, severity=Severity.ERROR, subject=f"network {network.name}",
                        expected="an anycast gateway on every leaf", actual=short_list(lacking),
                        message=f"{network.name} has gateway {network.gateway} in the intent but no SVI "
                        f"on {short_list(lacking)}: its hosts there cannot route"))
    return matrix, findings


def check_host_reachability(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    matrix, findings = host_reachability(ctx)
    ctx.record_examined(HOST_REACHABILITY, {"server ports": len(matrix.ports), "networks": len(matrix.networks)})
    return findings


@dataclass(frozen=True)
class _SegmentPort:
    """One PE's bundle in an ethernet segment, as its config states it."""

    host: str
    bundle: str
    route_target_import: str | None
    lacp_system_id: str | None
    vlans: tuple | None  # (switchport mode, access VLAN, trunk VLANs); None: a routed or unstated bundle

    @property
    def subject(self) -> str:
        return f"{self.host}:{self.bundle}"


def _segments(structured) -> dict[str, list[_SegmentPort]]:
    """ESI -> the bundles naming it (EOS `evpn ethernet-segment` / `identifier` under a port-channel)."""
    segments: dict[str, list[_SegmentPort]] = defaultdict(list)
    for host, config in structured.items():
        for bundle in config.get("port_channels") or ():
            segment = bundle.get("evpn_ethernet_segment") or {}
            if not segment.get("identifier"):
                continue
            vlans = ((bundle["switchport_mode"], bundle["access_vlan"], tuple(sorted(bundle["trunk_vlans"])))
                     if bundle["switchport_mode"] else None)
            segments[segment["identifier"].lower()].append(_SegmentPort(
                host, bundle["name"], segment.get("route_target_import"), bundle.get("lacp_system_id"), vlans))
    return segments


def _differing(ports: list[_SegmentPort], value, what: str) -> str:
    """'Port-Channel10 on leaf1 and leaf2: 03:03:..., on leaf3: none' for a finding's message."""
    groups: dict[object, list[str]] = defaultdict(list)
    for port in ports:
        groups[value(port)].append(port.subject)
    return "; ".join(f"{short_list(subjects)}: {what} {shown if shown is not None else 'none'}"
                     for shown, subjects in sorted(groups.items(), key=lambda item: str(item[0])))


def check_ethernet_segments(fabric) -> list[Finding]:
    """EVPN all-active multihoming: the PEs sharing an ethernet segment (one ESI) must agree, or the segment
    misbehaves while every session is up.

    * ES-Import route target (RFC 7432 section 7.6): each PE imports the Ethernet Segment routes of the others
      with it; a PE importing another value never sees them, elects itself designated forwarder (section 8.5)
      and floods BUM traffic to the host alongside the real DF (duplicates), and mass withdraw misses it. Stated
      on some PEs only: a warning (a PE without the line imports the value its platform derives from the ESI).
    * LACP system ID (Arista EOS User Manual, "EVPN All-Active Multihoming": the same ``lacp system-id`` on every
      PE of the segment): the host's LACP bundles its links only toward one partner; a PE presenting another ID
      has its link left out of the host's LAG.
    * VLANs: a frame the host hashes onto the link of a PE not carrying its VLAN is dropped.
    * A reserved ESI (RFC 7432 section 5: 0 and MAX-ESI) names no segment; an ESI on two bundles of one PE merges
      two hosts into one segment. An ESI on one PE only is a warning: nothing to fail over to, or its other PE is
      outside the configs given.
    """
    ctx = as_context(fabric)
    segments = _segments(ctx.structured)
    if not segments:
        raise CheckSkipped("no EVPN ethernet segment (ESI) configured")
    ctx.record_examined(ESI, {"ethernet segments": len(segments),
                              "PE attachments": sum(len(ports) for ports in segments.values())})
    findings: list[Finding] = []

    def finding(severity: str, subject: str, expected, actual, message: str) -> None:
        findings.append(Finding(check=ESI, severity=severity, subject=subject, expected=expected, actual=actual,
                                message=message))

    for esi, ports in sorted(segments.items()):
        subjects = [port.subject for port in ports]
        if esi in RESERVED_ESIS:
            for port in ports:
                finding(Severity.ERROR, port.subject, "a non-reserved ESI", esi,
                        f"{port.subject}: ESI {esi} is {RESERVED_ESIS[esi]} (RFC 7432 section 5): it names no "
                        "ethernet segment, so the bundle is not multihomed")
            continue
        per_host = Counter(port.host for port in ports)
        for host, count in sorted(per_host.items()):
            if count > 1:
                doubled = [port.bundle for port in ports if port.host == host]
                finding(Severity.ERROR, f"{host}:{doubled[1]}", "one bundle per PE", doubled,
                        f"{host} names ESI {esi} on {', '.join(doubled)}: one segment per bundle (RFC 7432 "
                        "section 5), two hosts would share one DF election and one ES-Import route")
        if len(per_host) == 1:
            finding(Severity.WARNING, ports[0].subject, "two or more PEs", 1,
                    f"ESI {esi} is on {ports[0].subject} only: the segment has one PE in this set (nothing to fail "
                    "over to, or its other PE is outside the configs given)")
            continue
        imports = {port.route_target_import for port in ports}
        stated = sorted(value for value in imports if value is not None)
        if len(stated) > 1:
            for port in ports:
                finding(Severity.ERROR, port.subject, stated[0], port.route_target_import,
                        f"ESI {esi}: the PEs import different ES-Import route targets ("
                        f"{_differing(ports, lambda item: item.route_target_import, 'import')}): each misses the "
                        "others' Ethernet Segment routes (RFC 7432 section 7.6), elects itself DF and floods BUM "
                        "traffic to the host too")
        elif stated and None in imports:
            finding(Severity.WARNING, subjects[0], stated[0], None,
                    f"ESI {esi}: ES-Import route target stated on some PEs only ("
                    f"{_differing(ports, lambda item: item.route_target_import, 'import')}): the others import "
                    "whatever their platform derives from the ESI, which must be the same value (RFC 7432 7.6)")
        system_ids = {port.lacp_system_id for port in ports}
        if len(system_ids) > 1:
            for port in ports:
                finding(Severity.ERROR, port.subject, min((value for value in system_ids if value), default=None),
                        port.lacp_system_id,
                        f"ESI {esi}: the PEs present different LACP system IDs ("
                        f"{_differing(ports, lambda item: item.lacp_system_id, 'lacp system-id')}): the host bundles "
                        "its links toward one partner only, the others' links stay out of its LAG")
        carried = {port.vlans for port in ports if port.vlans is not None}
        if len(carried) > 1:
            for port in ports:
                finding(Severity.ERROR, port.subject, "the same VLANs on every PE", port.vlans,
                        f"ESI {esi}: the PEs carry different VLANs ("
                        f"{_differing(ports, lambda item: _vlan_text(item.vlans), 'VLANs')}): frames the host hashes "
                        "onto a PE without their VLAN are dropped")
    # One LACP system ID on segments of different ESIs: the host bundles those links into one LAG, but the PEs hold
    # them as separate single-PE segments: each is DF of its own, so BUM reaches the host twice, and no aliasing.
    esis_by_system_id: dict[str, set[str]] = defaultdict(set)
    for esi, ports in segments.items():
        for port in ports:
            if port.lacp_system_id and esi not in RESERVED_ESIS:
                esis_by_system_id[port.lacp_system_id].add(esi)
    for system_id, esis in sorted(esis_by_system_id.items()):
        hosts = {port.host for esi in esis for port in segments[esi] if port.lacp_system_id == system_id}
        if len(esis) < 2 or len(hosts) < 2:
            continue
        for esi in sorted(esis):
            for port in segments[esi]:
                if port.lacp_system_id == system_id:
                    finding(Severity.ERROR, port.subject, "one ESI per LACP system ID", esi,
                            f"{port.subject}: LACP system ID {system_id} is also presented with ESI "
                            f"{', '.join(sorted(esis - {esi}))}: the host bundles these links as one LAG while the "
                            "PEs hold separate segments, each its own DF (RFC 7432 section 8.5): BUM traffic reaches "
                            "the host twice")
    return findings


def _vlan_text(vlans: tuple | None) -> str | None:
    if vlans is None:
        return None
    mode, access, trunk = vlans
    return f"access {access}" if mode == "access" else f"trunk {','.join(map(str, trunk)) or 'all'}"


def _needs_overlay(check):
    def run(fabric):
        ctx = as_context(fabric)
        if not any(config["vlans"] or config["vrfs"] for config in ctx.structured.values()):
            raise CheckSkipped("no VLANs or VRFs configured (no overlay to check)")
        return check(ctx)
    run.__name__ = check.__name__
    return run


CHECKS = {VLAN_VNI: check_vlan_vni, ROUTE_TARGETS: check_route_targets, FLOOD_LISTS: check_flood_lists,
          L3VNI: check_l3vni, HOST_REACHABILITY: check_host_reachability}
CHECKS = {name: _needs_overlay(check) for name, check in CHECKS.items()}
CHECKS[ESI] = check_ethernet_segments  # skipped on its own terms: no segment configured
