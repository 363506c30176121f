"""MTU checks: link ends agree, the overlay fits in the underlay, SVIs agree.

* ``mtu.links`` -- both ends of every switch-to-switch link have the same MTU (a mismatch drops or fragments
  the larger frames one way only, and OSPF/IS-IS would not even adjacent; BGP just loses big UPDATEs), and a
  server-facing port is at least the NIC's MTU (inventory).
* ``mtu.overlay_budget`` -- per network: host MTU + 50 bytes of VXLAN encapsulation (outer Ethernet 14 + IPv4 20
  + UDP 8 + VXLAN 8, RFC 7348 section 5; :data:`compiler.qos_math.VXLAN_OVERHEAD_BYTES`) must fit the smallest
  underlay MTU on every path between the leaves carrying it: the fabric ports of those leaves, their peers,
  and the core-to-core links. The VXLAN interface MTU must hold the host MTU and fit the underlay as well.
* ``mtu.port_channels`` -- every member of a port-channel has the bundle's MTU (Arista EOS User Manual, "Port
  Channels": members take the port-channel's MTU; SONiC PORTCHANNEL.mtu likewise). A member stating another MTU
  is a config fault: which MTU the bundle really forwards depends on the platform, and the peer sees a mix. And
  both ends of a member's link bundle it (IEEE 802.1AX): a member cabled to a plain port never joins the bundle.
* ``mtu.svi`` -- the anycast gateway (SVI) MTU of a network is the same on every leaf and equals the host MTU
  (a gateway with a smaller MTU drops or fragments routed jumbo frames; a larger one sends what hosts reject).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping

from compiler.qos_math import VXLAN_OVERHEAD_BYTES
from compiler.structured.contract import PortChannel
from validators.common import CORE_ROLES, VTEP_ROLES, CheckSkipped
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.mlag import mlag_pairs

LINKS = "mtu.links"
OVERLAY_BUDGET = "mtu.overlay_budget"
SVI = "mtu.svi"
PORT_CHANNELS = "mtu.port_channels"
SWITCH_KINDS = frozenset({"fabric", "peer_link"})


def check_links(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    index = ctx.interface_index
    servers = ctx.inventory.servers_by_name if ctx.inventory is not None else {}
    findings: list[Finding] = []
    links = server_ports = 0
    for host, config in ctx.structured.items():
        for interface in config["interfaces"]:
            kind = interface["kind"]
            if kind in SWITCH_KINDS:
                peer_key = (interface["peer_device"] or "", interface["peer_interface"] or "")  # set on cabled ports
                if not interface["peer_device"]:  # no cabling stated: the other address of its point-to-point subnet
                    peer_key = ctx.subnet_links.get((host, interface["name"]), peer_key)
                peer = index.get(peer_key)
                # A port whose config states no MTU runs the platform default, which the parser does not guess:
                # the link is not judged (not examined) rather than compared against None.
                if peer is None or peer_key < (host, interface["name"]) or None in (peer["mtu"], interface["mtu"]):
                    continue  # judged from the link's lower end, or not judgeable
                links += 1
                if peer["mtu"] == interface["mtu"]:
                    continue
                findings.append(Finding(
                    check=LINKS, severity=Severity.ERROR,
                    subject=f"{host}:{interface['name']}<->{peer_key[0]}:{peer_key[1]}", expected=interface["mtu"],
                    actual=peer["mtu"],
                    message=f"MTU {interface['mtu']} on {host}:{interface['name']} but {peer['mtu']} on "
                    f"{peer_key[0]}:{peer_key[1]}: the larger frames are dropped in one direction"))
            elif kind == "server" and servers:
                server = servers.get(interface["peer_device"])
                nic = server.nics_by_name.get(interface["peer_interface"]) if server else None
                if server is None or nic is None or interface["mtu"] is None:
                    continue
                server_ports += 1
                if interface["mtu"] < nic.mtu:
                    findings.append(Finding(
                        check=LINKS, severity=Severity.ERROR, subject=f"{host}:{interface['name']}", expected=nic.mtu,
                        actual=interface["mtu"],
                        message=f"{host}:{interface['name']} MTU {interface['mtu']} is below the MTU {nic.mtu} of "
                        f"{server.name}:{nic.name}: the switch drops the host's largest frames"))
    ctx.record_examined(LINKS, {"switch-to-switch links": links, "server ports": server_ports})
    return findings


def _bottlenecks(ctx) -> tuple[dict[str, tuple[int, str]], tuple[int, str] | None]:
    """Per VTEP: (smallest MTU on its fabric links incl. the peer end, where); and the core-to-core minimum."""
    index = ctx.interface_index
    structured = ctx.structured
    per_leaf: dict[str, tuple] = {}
    core = None
    # Ports that carry the underlay: cabled to a device of the set, running a session or the IGP. A routed edge port
    # toward nothing here (AVD's `Ethernet4000 description My test`) carries no tunnel of this fabric.
    session_ports = {(s.a, s.a_interface) for s in ctx.sessions.established} | {
        (s.b, s.b_interface) for s in ctx.sessions.established}
    for host, config in structured.items():
        role = config.get("role")
        is_vtep = role in VTEP_ROLES
        if not is_vtep and role not in CORE_ROLES:
            continue
        smallest = None
        for interface in config["interfaces"]:
            if interface["kind"] != "fabric" or not interface["enabled"] or interface["mtu"] is None:
                continue  # no `mtu` line (foreign configs): the platform default is not modelled, nothing to judge
            peer_key = (interface["peer_device"], interface["peer_interface"])
            if peer_key[0] not in structured and (host, interface["name"]) not in session_ports \
                    and not interface.get("igp"):
                continue
            if not is_vtep and (structured.get(peer_key[0]) or {}).get("role") not in CORE_ROLES:
                continue
            peer = index.get(peer_key)
            mtu = interface["mtu"]
            if peer is not None and peer["mtu"] is not None and peer["mtu"] < mtu:
                candidate = (peer["mtu"], peer_key)
            else:
                candidate = (mtu, (host, interface["name"]))
            if smallest is None or candidate < smallest:
                smallest = candidate
        if smallest is None:
            continue
        located = (smallest[0], f"{smallest[1][0]}:{smallest[1][1]}")
        if is_vtep:
            per_leaf[host] = located
        elif core is None or located < core:
            core = located
    return per_leaf, core


def host_mtu_by_vlan(config) -> dict[int, int]:
    """VLAN ID -> the largest MTU a host port carrying that VLAN states (a bundle member takes its port-channel's
    VLANs and MTU; a trunk without an allowed list carries every VLAN). The host MTU of a network is that of the
    ports carrying it, not of the device: a 1601-byte port in VLAN 1 says nothing about a VXLAN-mapped VLAN 110.
    A VLAN no host port carries takes the device-wide host MTU (``mtu.host``: the intent's, for compiled configs)
    only when every host port runs that one MTU, a design value; where host ports differ, it is unknown."""
    bundles = {bundle["name"]: bundle for bundle in config.get("port_channels") or []}
    every_vlan = [vlan["id"] for vlan in config["vlans"]]
    out: dict[int, int] = {}
    carried: set[int] = set()
    effective: set[int | None] = set()
    for interface in config["interfaces"]:
        if interface["kind"] != "server" or not interface["enabled"]:
            continue
        bundle = bundles.get(interface.get("port_channel") or "")
        carrier = bundle if bundle is not None else interface
        mtu = (bundle["mtu"] if bundle is not None and bundle["mtu"] else None) or interface["mtu"] or None
        effective.add(mtu)
        trunk_vlans = carrier["trunk_vlans"]
        if carrier.get("switchport_mode") == "trunk" and not trunk_vlans:
            trunk_vlans = every_vlan
        for vlan_id in (carrier["access_vlan"], *trunk_vlans):
            if vlan_id is None:
                continue
            carried.add(vlan_id)
            if mtu:
                out[vlan_id] = max(out.get(vlan_id, 0), mtu)
    device_wide = (config.get("mtu") or {}).get("host") or 0
    if device_wide and effective <= {device_wide}:
        for vlan_id in every_vlan:
            if vlan_id not in carried:
                out[vlan_id] = device_wide
    return out


def check_overlay_budget(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    per_leaf, core = _bottlenecks(ctx)
    carriers: dict[str, list[str]] = defaultdict(list)
    host_mtu: dict[str, int] = defaultdict(int)
    findings: list[Finding] = []
    for host, config in ctx.structured.items():
        if not config["vlans"] and not config.get("vxlan"):
            continue
        by_vlan = host_mtu_by_vlan(config)
        for vlan in config["vlans"]:
            carriers[vlan["network"]].append(host)
            # A port without an `mtu` line (foreign configs, bundle members) states no host MTU.
            host_mtu[vlan["network"]] = max(host_mtu[vlan["network"]], by_vlan.get(vlan["id"], 0))
        vxlan = config.get("vxlan") or {}
        if vxlan.get("mtu") and host in per_leaf:
            # Only what enters the tunnel: hosts of VLANs mapped to a VNI.
            largest_host = max([by_vlan.get(vlan["id"], 0) for vlan in config["vlans"] if vlan.get("vni")] or [0])
            underlay, where = per_leaf[host]
            if vxlan["mtu"] + VXLAN_OVERHEAD_BYTES > underlay:
                findings.append(Finding(
                    check=OVERLAY_BUDGET, severity=Severity.ERROR, subject=f"{host}:vxlan",
                    expected=underlay - VXLAN_OVERHEAD_BYTES, actual=vxlan["mtu"],
                    message=f"VXLAN MTU {vxlan['mtu']} + {VXLAN_OVERHEAD_BYTES} exceeds the "
                    f"underlay MTU {underlay} at {where}"))
            if vxlan["mtu"] < largest_host:
                findings.append(Finding(
                    check=OVERLAY_BUDGET, severity=Severity.ERROR, subject=f"{host}:vxlan", expected=largest_host,
                    actual=vxlan["mtu"],
                    message=f"VXLAN MTU {vxlan['mtu']} is below the host MTU {largest_host}: the tunnel "
                    "drops the hosts' largest frames"))
    judged_networks = 0
    for network, hosts in sorted(carriers.items()):
        bottleneck = [per_leaf[host] for host in hosts if host in per_leaf]
        if core is not None and len(hosts) > 1:
            bottleneck.append(core)
        if not bottleneck or not host_mtu[network]:
            continue  # no underlay MTU stated on its leaves, or no host MTU known: nothing to compare
        judged_networks += 1
        underlay, where = min(bottleneck)
        needed = host_mtu[network] + VXLAN_OVERHEAD_BYTES
        if needed > underlay:
            findings.append(Finding(
                check=OVERLAY_BUDGET, severity=Severity.ERROR, subject=f"network {network}", expected=needed,
                actual=underlay,
                message=f"host MTU {host_mtu[network]} + {VXLAN_OVERHEAD_BYTES} (VXLAN over IPv4, RFC 7348) = {needed} "
                f"exceeds the underlay MTU {underlay} at {where}"))
    ctx.record_examined(OVERLAY_BUDGET, {"networks": judged_networks,
                                         "VTEPs with an underlay MTU": len(per_leaf)})
    return findings


def check_svi(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    per_network: dict[str, list[tuple[str, int]]] = defaultdict(list)
    findings: list[Finding] = []
    for host, config in ctx.structured.items():
        by_vlan = host_mtu_by_vlan(config)
        for vlan in config["vlans"]:
            svi = vlan.get("svi")
            if not svi or not (svi["ip"] or svi.get("virtual_router_addresses")) or svi["mtu"] is None:
                continue  # no gateway (an MLAG peer SVI), or no `mtu` line: the platform default is not modelled
            expected_host = by_vlan.get(vlan["id"])  # the hosts of this VLAN, not the device's largest port
            per_network[vlan["network"]].append((host, svi.get("mtu")))
            if expected_host and svi.get("mtu") != expected_host:
                findings.append(Finding(
                    check=SVI, severity=Severity.ERROR, subject=f"{host}:Vlan{vlan['id']}", expected=expected_host,
                    actual=svi.get("mtu"),
                    message=f"SVI of {vlan['network']} has MTU {svi.get('mtu')}, the host MTU is "
                    f"{expected_host}"))
    peer_svis = 0
    for host, peer in sorted(mlag_pairs(ctx.structured).items()):
        if host > peer:
            continue  # each pair once
        # The MLAG peers' SVIs of one VLAN are two ends of one L2 segment over the peer-link: the peer SVI carrying
        # their iBGP/IGP session, each VLAN's gateway. Unequal MTUs drop the larger frames one way (like a link).
        mine = {vlan["id"]: svi["mtu"] for vlan in ctx.structured[host]["vlans"] if (svi := vlan.get("svi"))}
        theirs = {vlan["id"]: svi["mtu"] for vlan in ctx.structured[peer]["vlans"] if (svi := vlan.get("svi"))}
        for vlan_id in sorted(set(mine) & set(theirs)):
            if mine[vlan_id] is None or theirs[vlan_id] is None:
                continue  # the platform default is not modelled
            peer_svis += 1
            if mine[vlan_id] != theirs[vlan_id]:
                findings.append(Finding(
                    check=SVI, severity=Severity.ERROR, subject=f"{host}:Vlan{vlan_id}<->{peer}:Vlan{vlan_id}",
                    expected=mine[vlan_id], actual=theirs[vlan_id],
                    message=f"SVI Vlan{vlan_id} MTU {mine[vlan_id]} on {host} but {theirs[vlan_id]} on its MLAG "
                    f"peer {peer}: the larger frames are dropped in one direction over the peer-link"))
    ctx.record_examined(SVI, {"SVIs": sum(len(entries) for entries in per_network.values()),
                              "MLAG peer SVI pairs": peer_svis})
    for network, entries in sorted(per_network.items()):
        counts = Counter(mtu for _host, mtu in entries)
        if len(counts) < 2:
            continue
        usual = counts.most_common(1)[0][0]
        for host, mtu in entries:
            if mtu != usual:
                findings.append(Finding(
                    check=SVI, severity=Severity.ERROR, subject=f"{host}:{network}", expected=usual, actual=mtu,
                    message=f"SVI MTU of {network} is {mtu} on {host} but {usual} on "
                    f"{counts[usual]} other leaves"))
    return findings


def _unequal_members(host: str, bundle: PortChannel, ports: dict) -> list[Finding]:
    mtus = {name: ports[name]["mtu"] if name in ports else None for name in bundle["members"]}
    if len(set(mtus.values())) < 2:
        return []
    shown = {name: str(mtu or "default") for name, mtu in mtus.items()}
    return [Finding(
        check=PORT_CHANNELS, severity=Severity.ERROR, subject=f"{host}:{name} mtu", expected="one MTU for all members",
        actual=mtus, message=f"{host}:{name} MTU {mtu} differs from other members of {bundle['name']} ("
        + ", ".join(f"{other} {value}" for other, value in shown.items() if other != name)
        + "): members of one bundle must carry one MTU (EOS: members take the port-channel's settings)")
        for name, mtu in mtus.items() if mtu is not None]


def check_port_channels(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    bundles = members = 0
    for host, config in ctx.structured.items():
        ports = {interface["name"]: interface for interface in config["interfaces"]}
        for bundle in config.get("port_channels") or []:
            bundles += 1
            if bundle["mtu"] is None:
                # The platform default on the bundle: members are judged among themselves, one stating an MTU the
                # others do not (a member left at the default counts as its own value) splits the bundle.
                findings += _unequal_members(host, bundle, ports)
                continue
            members += len(bundle["members"])
            for name in bundle["members"]:
                member_mtu = ports[name]["mtu"] if name in ports else None
                if member_mtu is not None and member_mtu != bundle["mtu"]:
                    findings.append(Finding(
                        check=PORT_CHANNELS, severity=Severity.ERROR, subject=f"{host}:{name} mtu",
                        expected=bundle["mtu"], actual=member_mtu,
                        message=f"{host}:{name} MTU {member_mtu} differs from its bundle {bundle['name']} "
                        f"(MTU {bundle['mtu']}): members must carry the bundle's MTU"))
    if not bundles:
        raise CheckSkipped("no port-channels")
    links, one_sided = _bundling_of_links(ctx)
    findings += one_sided
    ctx.record_examined(PORT_CHANNELS, {"members of port-channels with an MTU": members,
                                        "bundle member links": links})
    return findings


def described_peer(description: str, ports_of: Mapping[str, set[str]]) -> tuple[str, str] | None:
    """The (device, port) a description names as ``<anything>_<device>_<port>`` (AVD: ``MLAG_dc1-leaf1b_Ethernet3``,
    ``L2_SPINE1_Ethernet1``, ``P2P_LINK_TO_DC1-SPINE1_Ethernet6``), when that device is in the set and has that
    port: the cabling the text states where no parser field carries it."""
    parts = description.split("_")
    for start in range(len(parts)):
        for end in range(start + 1, len(parts)):
            device, port = "_".join(parts[start:end]), "_".join(parts[end:])
            if port in ports_of.get(device, ()):
                return device, port
    return None


def _bundling_of_links(ctx) -> tuple[int, list[Finding]]:
    """Both ends of a link bundle it (IEEE 802.1AX: LACP aggregates a link only when both ends run it on that
    port): a member whose cabled peer port is a plain port never joins the bundle (LACP) or blackholes what the
    bundle hashes onto it (static). Peers come from the parsed cabling, else from the member's description."""
    structured = ctx.structured
    ports_of = {host: {port["name"] for port in config["interfaces"]} for host, config in structured.items()}
    index = ctx.interface_index
    findings: list[Finding] = []
    links = 0
    for host, config in structured.items():
        for port in config["interfaces"]:
            bundle = port.get("port_channel")
            if not bundle or not port["enabled"]:
                continue
            peer = (port["peer_device"], port["peer_interface"]) if port["peer_device"] else described_peer(
                port["description"], ports_of)
            far = index.get(peer) if peer is not None else None
            if far is None or peer is None:
                continue
            links += 1
            if far.get("port_channel") or not far["enabled"]:
                continue
            link = f"{host}:{port['name']}<->{peer[0]}:{peer[1]}"
            findings.append(Finding(
                check=PORT_CHANNELS, severity=Severity.ERROR, subject=link, expected="both ends in a bundle",
                actual=f"{port['name']} in {bundle}, {peer[1]} in none",
                message=f"{host}:{port['name']} is a member of {bundle} but {peer[0]}:{peer[1]} bundles nothing: "
                "the link never joins the bundle (IEEE 802.1AX: both ends aggregate it)"))
    return links, findings


CHECKS = {LINKS: check_links, OVERLAY_BUDGET: check_overlay_budget, SVI: check_svi,
          PORT_CHANNELS: check_port_channels}
