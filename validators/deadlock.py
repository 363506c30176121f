"""PFC deadlock: the buffer-dependency graph of every lossless priority, a certificate or the shortest cycle.

A lossless (PFC) fabric can deadlock exactly when its buffer-dependency graph has a cycle (Dally & Seitz 1987,
"Deadlock-free message routing in multiprocessor interconnection networks"; for RoCE fabrics: Hu et al., "Deadlocks
in datacenter networks: why do they form, and how to avoid them", HotNets 2016; Guo et al., "RDMA over commodity
Ethernet at scale", SIGCOMM 2016). A cycle is necessary, not sufficient: the buffers on it must also fill at once.

The graph (:class:`BufferGraph`), for one lossless 802.1p priority ``p``:

* a node is a directed link ``a -> b`` (``a``'s egress port, ``b``'s ingress priority group) on which both ends
  run PFC on ``p`` -- a link that drops ``p`` instead of pausing it holds no buffer that can wait;
* an edge ``(u -> v) -> (v -> w)`` exists when traffic of ``p`` that reaches ``v`` from ``u`` may leave ``v``
  towards ``w``: ``u`` forwards some destination to ``v`` and ``v`` forwards it to ``w``. The destinations are
  the prefixes of every switch but spines and super-spines (RoCE runs between servers; a core switch originates
  only its own loopback) and the prefixes of static routes.

Forwarding comes from the same eBGP path-vector semantics :mod:`validators.routing` simulates (shortest AS path,
AS-path loop prevention with ``allowas-in``, multipath), with each neighbor's export route map applied
(``bgp.route_maps``, the valley-free policy of a 5-stage Clos), plus static routes (``static_routes``: longest
prefix wins; a static route beats eBGP at an equal length, administrative distance 1 against 20). Under a failure
set the graph is built from the **union** of the forwarding before and after the failure on every switch: while
BGP converges some switches forward by the old state and some by the new (the transient "bounce" of HotNets 2016),
and a cycle in any such mix is a cycle the fabric can hit.

Two ways to a verdict:

* **The AS-path rule** (:func:`valley_free_proof`): on a layered fabric (every session joins two tiers: leaf,
  spine, super-spine) with no static routes, no lossless traffic can ever take a valley (down, then up) -- in any
  failure set, steady or transient -- when (1) every switch's upper neighbors reject what it could re-export
  upwards (one ASN per upper tier group and no ``allowas-in`` there, RFC 7938 section 5.2.1, or an export policy
  that denies it) and (2) a switch with a lower tier never accepts from above a route to its own subtree (the
  switches of its tier that share its subtree share its ASN). Valley-free paths order the links (up-links by tier,
  then down-links), so the graph is acyclic: a certificate for **every** failure set, not a sample.
* **Enumeration** (:func:`enumerate_scenarios`): otherwise the baseline, every N-1 (link, spine, super-spine),
  every N-2 spine or super-spine pair and a seeded sample of N-3/N-4 link sets, each graph searched for strongly
  connected components (Tarjan) and the shortest cycle (breadth-first search).

MLAG peer-links are inter-switch L2 links like any other, with MLAG's forwarding rule: a frame that arrives over
the peer-link is not sent out a dual-attached port-channel (one with the same ``mlag`` id on both peers) while the
peer's members of that port-channel are up -- the peer-link carries data only in failure scenarios (NVIDIA Onyx
User Manual, "MLAG": the inter-peer link carries "control messages in a steady state or data packets in failure
scenarios", and "PFC must be configured on this IPL"; Cumulus Linux NVUE reference, ``bond mlag id``: the id tells
the switches "which links dual-connect to the same host or switch"). So the edge (peer-link -> dual-attached port)
exists in a failure set that takes down every member of the peer's side of that port-channel: traffic for the
dual-attached device then crosses the peer-link, which is the case a lossless peer-link is configured for. A
port-channel dual-attached without the MLAG id on both peers is two independent bundles, and the peer-link closes
an L2 loop through it.

VXLAN head-end replication (RFC 7348 section 4.2: BUM frames of a VNI go to every VTEP of it; RFC 8365 section 9:
without multicast in the underlay, ingress replication to the flood list the EVPN type 3 routes build, the config's
``vxlan.flood_lists``) turns the underlay into flooding paths: a BUM frame of a VLAN mapped to a VNI that reaches a
VTEP over an inter-switch L2 link is sent, encapsulated, to each remote VTEP of the VNI along the underlay's routes
to that VTEP's address (an edge from the L2 link to each of those next hops; the transit hops are the routes'
edges), and a frame a VTEP decapsulates is flooded out of its L2 links of the VLAN (an edge from each underlay link
arriving at it with traffic for its VTEP address to each of them). The encapsulated copy keeps its priority (the
outer DSCP copied from the inner). Split horizon: what a VTEP decapsulates it never replicates back into the
overlay (a full mesh of tunnels forwards nothing from one tunnel to another: RFC 4762 section 4.4, which EVPN's
ingress replication keeps), and an MLAG peer replicates only what arrives on its own ports, not over the
peer-link (the peer that received it replicated it). So a lossless VNI flooded
between VTEPs is no cycle by itself; an L2 link between two VTEPs of the VNI closes one.

Each cycle found is reported with its hops (switch, ingress -> egress, priority), the destinations whose traffic
makes each edge, the failure set, and the remediations that break it, among them a Tagger tag plan (Hu et al.,
"Tagger: practical PFC deadlock prevention in data center networks", CoNEXT 2017: the tag is raised on every
bounce, one lossless priority per tag; a fabric whose lossless paths bounce at most once needs 2).
Pure Python; never imports Django.
"""

from __future__ import annotations

import ipaddress
import random
from collections import defaultdict, deque
from dataclasses import dataclass, field
from itertools import combinations

from compiler.model import Role
from compiler.natural import natural_key
from validators.common import CORE_ROLES, CheckSkipped, short_list
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.mlag import mlag_pairs
from validators.policy import as_path_regex
from validators.routing import RoutingModel
from validators.subjects import Subject, SubjectEnd

CHECK = "roce.deadlock"
TIER = {"leaf": 1, "border": 1, "spine": 2, "super-spine": 3}
SAMPLE_SIZE = 10_000  # random N-3/N-4 link sets (same seed, same findings)
SEED = 20161109  # HotNets 2016
WORK_LIMIT = 1_500_000  # scenarios x destinations x sessions the enumeration takes on (~100k per CPU second)
MAX_CYCLES = 10  # findings per check (the rest counted)
PAIR_LIMIT = 20_000  # every N-2 link pair is enumerated up to this many (small fabrics); above, the sample covers it


# --------------------------------------------------------------------------------------------- the network


@dataclass(frozen=True, slots=True)
class Link:
    """One direction of an established session: ``device`` sends out of ``interface`` to ``peer``."""

    device: int
    interface: str
    peer: int
    peer_interface: str


@dataclass(frozen=True, slots=True)
class VniFlood:
    """One VTEP's head-end replication of one VLAN's VNI (module docstring): BUM frames arriving on ``local_in``
    (inter-switch L2 links of the VLAN) go encapsulated towards each remote VTEP's address (``remote``: the index in
    ``Network.destinations`` of that address, and the remote switch); frames decapsulated from the underlay (routed
    to ``own``, the destination index of this VTEP's address) leave on ``local_out``."""

    device: int
    vlan: int
    vni: int
    local_in: tuple[int, ...]
    local_out: tuple[int, ...]
    remote: tuple[tuple[int, int], ...]
    own: int | None


@dataclass
class Network:
    """What the deadlock analysis reads from the structured configs, integer-indexed."""

    names: list[str]
    role: list[str]
    asn: list[int]
    allowas_in: list[int]
    maximum_paths: list[int]
    multipath_relax: list[bool]
    rank: list[dict[tuple[int, str], int]]  # receiver -> (sender, receiver's interface) -> tie-break rank
    links: list[Link]  # both directions of every established session, then of every inter-switch L2 link
    out_links: list[list[int]]  # device -> indices into links it sends on (sessions: what BGP advertises over)
    link_index: dict[tuple[int, str], int]  # (device, interface) -> its outgoing link
    export: dict[tuple[int, str], list[dict]]  # (sender, sender interface) -> route-map entries (export policy)
    destinations: list[tuple[str, int | None]]  # (prefix, originating device or None for static-only)
    statics: list[list[tuple[ipaddress.IPv4Network, str, int]]]  # device -> (prefix, next hop text, link index)
    lossless: dict[int, set[int]]  # priority -> links whose both ends run PFC on it
    unresolved_statics: list[str] = field(default_factory=list)
    undefined_policies: list[str] = field(default_factory=list)
    session_links: int = 0  # links[:session_links] are sessions; the rest are L2 links
    flood: list[tuple[int, int, str]] = field(default_factory=list)  # (in link, out link, "flooding of VLAN v")
    # MLAG: (peer-link in, dual-attached port out, reason, the peer's member links of that port-channel): an edge
    # only while every one of those links is down (the peer-link carries data only in failure scenarios)
    flood_if_down: list[tuple[int, int, str, frozenset[int]]] = field(default_factory=list)
    peer_links: set[int] = field(default_factory=set)  # links that are MLAG peer-link members
    stp: set[int] = field(default_factory=set)  # switches running spanning tree (it may block a port of a loop)
    vni_floods: list[VniFlood] = field(default_factory=list)  # VXLAN head-end replication at VTEPs with L2 links
    vtep_destinations: frozenset[int] = frozenset()  # destinations that are a VTEP address of a VniFlood
    unresolved_vteps: list[str] = field(default_factory=list)  # VTEP addresses no switch advertises
    routing: RoutingModel | None = None  # its neighbor policies (route maps, prefix lists) filter per prefix

    @property
    def sessions(self) -> int:
        return self.session_links // 2


def _pfc(interface: dict | None) -> set[int]:
    return set(((interface or {}).get("qos") or {}).get("pfc_priorities") or ())


def build_network(ctx) -> Network:
    structured = ctx.structured
    model = ctx.routing
    names = model.names
    index = model.index
    rank: list[dict[tuple[int, str], int]] = [
        {(peer, interface): position for position, (peer, interface) in enumerate(neighbors)}
        for neighbors in model.adjacency]
    links: list[Link] = []
    for a, a_interface, b, b_interface in model.sessions:
        links.append(Link(a, a_interface, b, b_interface))
        links.append(Link(b, b_interface, a, a_interface))
    out_links: list[list[int]] = [[] for _ in names]
    link_index: dict[tuple[int, str], int] = {}
    for position, link in enumerate(links):
        out_links[link.device].append(position)
        link_index.setdefault((link.device, link.interface), position)
    export: dict[tuple[int, str], list[dict]] = {}
    undefined: list[str] = []
    for device, name in enumerate(names):
        bgp = structured[name].get("bgp") or {}
        maps = {route_map["name"]: route_map["entries"] for route_map in bgp.get("route_maps") or ()}
        for neighbor in bgp.get("neighbors") or ():
            policy = neighbor.get("route_map_out")
            if not policy:
                continue
            if policy not in maps:
                undefined.append(f"{name}: route-map {policy} (neighbor {neighbor.get('address') or neighbor['interface']})")
                continue
            export[(device, neighbor["interface"])] = sorted(maps[policy], key=lambda entry: entry["seq"])
    destinations: list[tuple[str, int | None]] = []
    seen: set[str] = set()
    for device, networks in enumerate(model.networks):
        if model.role[device] in CORE_ROLES:
            continue  # RoCE runs between servers: spines and super-spines originate only their own loopbacks
        for prefix in networks:
            destinations.append((prefix, device))
            seen.add(prefix)
    statics, unresolved = _statics(ctx, index, link_index)
    for routes in statics:
        for prefix, _hop, _link in routes:
            if str(prefix) not in seen:
                seen.add(str(prefix))
                destinations.append((str(prefix), None))
    session_links = len(links)
    flood, flood_if_down, peer_links, arriving, leaving = _l2_links(ctx, index, links, link_index)
    vni_floods, unresolved_vteps = _vni_floods(ctx, index, destinations, arriving, leaving)
    lossless: dict[int, set[int]] = defaultdict(set)
    interfaces = ctx.interface_index
    for position, link in enumerate(links):
        both = (_pfc(interfaces.get((names[link.device], link.interface)))
                & _pfc(interfaces.get((names[link.peer], link.peer_interface))))
        for priority in both:
            lossless[priority].add(position)
    stp = {index[host] for host, config in structured.items() if _runs_stp(config)}
    return Network(session_links=session_links, flood=flood, flood_if_down=flood_if_down, peer_links=peer_links, stp=stp,
                   names=names, role=model.role, asn=model.asn, allowas_in=model.allowas_in,
                   maximum_paths=model.maximum_paths, multipath_relax=model.multipath_relax, rank=rank, links=links,
                   out_links=out_links, link_index=link_index, export=export, destinations=destinations,
                   statics=statics, lossless=dict(lossless), unresolved_statics=unresolved,
                   undefined_policies=undefined, routing=model, vni_floods=vni_floods, unresolved_vteps=unresolved_vteps,
                   vtep_destinations=frozenset(d for flood in vni_floods
                                               for d in [flood.own, *(r for r, _ in flood.remote)] if d is not None))


ALL_VLANS = frozenset(range(1, 4095))


def _vlans(port: dict, bundle: dict | None) -> frozenset[int]:
    """The VLANs a switch port bridges (a member carries its bundle's); a trunk without a list carries all."""
    source = bundle if bundle is not None else port
    vlans = set(source.get("trunk_vlans") or ())
    if source.get("access_vlan"):
        vlans.add(source["access_vlan"])
    if not vlans and source.get("switchport_mode") == "trunk":
        return ALL_VLANS
    return frozenset(vlans)


def _mlag_sides(ctx) -> tuple[dict[str, str], dict[tuple[str, str], tuple[str, str]]]:
    """(device -> its peer-link port-channel, (device, port-channel) -> (peer, the peer's port-channel)) for every
    MLAG pair whose ends name each other (validators.mlag.mlag_pairs) and every port-channel with the same MLAG id
    on both: the dual-attached ones."""
    pairs = mlag_pairs(ctx.structured)
    peer_links: dict[str, str] = {}
    dual: dict[tuple[str, str], tuple[str, str]] = {}
    for host, peer in pairs.items():
        config = ctx.structured[host]
        if (config.get("mlag") or {}).get("peer_link"):
            peer_links[host] = config["mlag"]["peer_link"]
        theirs = {bundle["mlag"]: bundle["name"] for bundle in ctx.structured[peer].get("port_channels") or ()
                  if bundle.get("mlag") is not None}
        for bundle in config.get("port_channels") or ():
            if bundle.get("mlag") is not None and bundle["mlag"] in theirs:
                dual[(host, bundle["name"])] = (peer, theirs[bundle["mlag"]])
    return peer_links, dual


def _l2_links(ctx, index, links: list[Link], link_index: dict):
    """Append every cabled inter-switch link both of whose ends bridge a common VLAN to ``links`` (both
    directions; a port that also carries a session keeps its session link) and return the flooding edges: a frame
    flooded in a VLAN enters a switch on one such link and may leave on every other (not back into the port or
    bundle it came from), and, on an MLAG peer, from the peer-link out of a dual-attached port-channel only while
    the peer's members of it are down (the second list, with those member links)."""
    ends: dict[tuple[int, str], tuple[frozenset[int], str]] = {}
    members: dict[tuple[int, str], list[str]] = defaultdict(list)  # (device, port-channel) -> member ports
    for host, config in ctx.structured.items():
        bundles = {bundle["name"]: bundle for bundle in config.get("port_channels") or ()}
        for port in config["interfaces"]:
            if port.get("port_channel") and host in index:
                members[(index[host], port["port_channel"])].append(port["name"])
            if not port.get("enabled", True) or port.get("peer_device") not in index:
                continue
            bundle = bundles.get(port.get("port_channel") or "")
            vlans = _vlans(port, bundle)
            if vlans:
                ends[(index[host], port["name"])] = (vlans, port.get("port_channel") or port["name"])
    arriving: dict[int, list[tuple[int, frozenset[int], str]]] = defaultdict(list)
    leaving: dict[int, list[tuple[int, frozenset[int], str]]] = defaultdict(list)
    for (device, name), (vlans, bundle) in sorted(ends.items()):
        port = ctx.interface_index[(ctx.routing.names[device], name)]
        peer = (index[port["peer_device"]], port.get("peer_interface") or "")
        if peer not in ends:
            continue
        common = vlans & ends[peer][0]
        if not common:
            continue
        # A routed port that also bridges (a session runs on it) is one buffer per priority: the same node.
        position = link_index.get((device, name))
        if position is None:
            position = len(links)
            links.append(Link(device, name, peer[0], peer[1]))
            link_index[(device, name)] = position
        leaving[device].append((position, common, bundle))
        arriving[peer[0]].append((position, common, ends[peer][1]))
    peer_links, dual = _mlag_sides(ctx)
    names = ctx.routing.names
    flood: list[tuple[int, int, str]] = []
    flood_if_down: list[tuple[int, int, str, frozenset[int]]] = []
    for device, incoming in arriving.items():
        peer_link = peer_links.get(names[device])
        for in_link, in_vlans, in_bundle in incoming:
            for out_link, out_vlans, out_bundle in leaving.get(device, ()):
                shared = in_vlans & out_vlans
                if out_bundle == in_bundle or not shared:
                    continue
                reason = f"flooding of VLAN {min(shared)}"
                side = dual.get((names[device], out_bundle)) if in_bundle == peer_link else None
                if side is None:
                    flood.append((in_link, out_link, reason))
                    continue
                mlag_peer, peer_bundle = side
                down = frozenset(link_index[(index[mlag_peer], member)]
                                 for member in members[(index[mlag_peer], peer_bundle)]
                                 if (index[mlag_peer], member) in link_index)
                if down:  # a peer side without inter-switch members never lifts the rule here
                    flood_if_down.append((in_link, out_link, f"{reason} over the MLAG peer-link, {mlag_peer}'s members "
                                          f"of {peer_bundle} down", down))
    on_peer_link = {position for device, outgoing in leaving.items() for position, _vlans, bundle in outgoing
                    if bundle == peer_links.get(names[device])}
    return flood, flood_if_down, on_peer_link, arriving, leaving


def _links_carrying(ctx, index, arriving, leaving, vlans: set[int]) -> dict[int, set[int]]:
    """VLAN -> the inter-switch L2 links a frame of it can be on: those leaving a switch where the VLAN has a
    source (a port that is not inter-switch bridging it: servers; or a VXLAN mapping of it, whose decapsulated
    frames it floods), and, transitively, those a switch floods it to from another such link (not back into the
    port or bundle it came in by). A link that only ever returns frames to where they came from carries none, so
    head-end replication adds no edge from it (the path-insensitive graph would otherwise join the routed traffic
    sharing that port's buffer to the replication). MLAG's rule is taken in its steady state: nothing from the
    peer-link out of a dual-attached port-channel."""
    peer_links, dual = _mlag_sides(ctx)
    names = ctx.routing.names
    # link -> (the switch it arrives at, the port or bundle it arrives by)
    arrives = {position: (device, bundle) for device, incoming in arriving.items()
               for position, _vlans, bundle in incoming}
    sources: dict[int, set[int]] = defaultdict(set)  # VLAN -> switches where it has a source
    for host, config in ctx.structured.items():
        if host not in index:
            continue
        mapped = {int(vlan) for vlan in ((config.get("vxlan") or {}).get("vlan_vnis") or {})}
        bundles = {bundle["name"]: bundle for bundle in config.get("port_channels") or ()}
        local: set[int] = set()
        for port in config["interfaces"]:
            if port.get("enabled", True) and port.get("peer_device") not in index:
                local |= _vlans(port, bundles.get(port.get("port_channel") or "")) & vlans
        for vlan in (mapped | local) & vlans:
            sources[vlan].add(index[host])
    carrying: dict[int, set[int]] = {}
    for vlan in vlans:
        found = {position for device in sources[vlan] for position, shared, _bundle in leaving.get(device, ())
                 if vlan in shared}
        queue = deque(found)
        while queue:
            device, bundle = arrives[queue.popleft()]
            for position, shared, out_bundle in leaving.get(device, ()):
                if vlan not in shared or out_bundle == bundle or position in found:
                    continue
                if bundle == peer_links.get(names[device]) and (names[device], out_bundle) in dual:
                    continue
                found.add(position)
                queue.append(position)
        carrying[vlan] = found
    return carrying


def _vni_floods(ctx, index, destinations: list[tuple[str, int | None]], arriving, leaving
                ) -> tuple[list[VniFlood], list[str]]:
    """Head-end replication at every VTEP that bridges a VNI-mapped VLAN over an inter-switch L2 link (only there
    can replication add an edge: the graph's nodes are inter-switch links). Remote VTEPs: the config's flood list
    of the VNI, else every other switch mapping a VLAN to it (EVPN type 3 routes build that list)."""
    if not arriving:
        return [], []  # no inter-switch L2 link: replication adds no edge anywhere
    structured = ctx.structured
    vxlan = {host: config.get("vxlan") or {} for host, config in structured.items() if host in index}
    address_of = {host: str(v.get("vtep_ip") or "").split("/")[0] for host, v in vxlan.items() if v.get("vtep_ip")}
    carriers: dict[int, list[str]] = defaultdict(list)  # VNI -> VTEPs mapping a VLAN to it
    for host, v in vxlan.items():
        for vni in (v.get("vlan_vnis") or {}).values():
            carriers[int(vni)].append(host)
    exact = {prefix: position for position, (prefix, origin) in enumerate(destinations) if origin is not None}
    origins = {position: origin for position, (_prefix, origin) in enumerate(destinations) if origin is not None}
    unresolved: list[str] = []

    def destination_of(address: str) -> int | None:
        if f"{address}/32" in exact:
            return exact[f"{address}/32"]
        ip = ipaddress.IPv4Address(address)
        best = max(((ipaddress.IPv4Network(prefix, strict=False), position) for prefix, position in exact.items()
                    if ip in ipaddress.IPv4Network(prefix, strict=False)), default=None, key=lambda item: item[0].prefixlen)
        return best[1] if best else None

    peer_links, _dual = _mlag_sides(ctx)
    pairs = mlag_pairs(structured)
    carrying = _links_carrying(ctx, index, arriving, leaving,
                               {int(vlan) for v in vxlan.values() for vlan in (v.get("vlan_vnis") or {})})
    floods: list[VniFlood] = []
    for host, v in sorted(vxlan.items()):
        device = index[host]
        if host not in address_of or not (arriving.get(device) or leaving.get(device)):
            continue
        # An MLAG pair is one VTEP (one anycast VTEP address; Cumulus Linux user guide, "VXLAN Active-active Mode":
        # "a pair of MLAG switches ... act as a single VTEP"): the peer whose own port took a frame in replicated
        # it, so what crosses the peer-link is taken as not replicated again (the pair's split horizon).
        mlag_peer = pairs.get(host) is not None
        own = destination_of(address_of[host])
        for vlan_text, vni in sorted((v.get("vlan_vnis") or {}).items(), key=lambda item: int(item[0])):
            vlan, vni = int(vlan_text), int(vni)
            local_in = tuple(position for position, vlans, bundle in arriving.get(device, ())
                             if vlan in vlans and position in carrying[vlan]
                             and not (mlag_peer and bundle == peer_links.get(host)))
            local_out = tuple(position for position, vlans, _bundle in leaving.get(device, ()) if vlan in vlans)
            if not local_in and not local_out:
                continue
            listed = (v.get("flood_lists") or {}).get(str(vni))
            addresses = ([str(a).split("/")[0] for a in listed] if listed is not None else
                         [address_of[other] for other in carriers[vni] if other != host and other in address_of])
            remote = []
            for address in sorted(set(addresses) - {address_of[host]}):
                position = destination_of(address)
                if position is None:
                    unresolved.append(f"{host}: VNI {vni} VTEP {address}")
                    continue
                remote.append((position, origins[position]))  # the switch originating that address
            floods.append(VniFlood(device=device, vlan=vlan, vni=vni, local_in=local_in, local_out=local_out,
                                   remote=tuple(remote), own=own))
            if own is None:
                unresolved.append(f"{host}: own VTEP {address_of[host]}")
    return floods, sorted(set(unresolved), key=natural_key)


def _runs_stp(config) -> bool:
    """Spanning tree as stated, else the platform default: EOS runs MSTP by default (EOS user manual,
    "Spanning Tree Protocol"); a SONiC or Linux bridge does not (sonic-buildimage ships STP off; Linux bridges
    start with stp_state 0)."""
    mode = (config.get("spanning_tree") or {}).get("mode")
    if mode:
        return mode != "none"
    return config.get("platform") == "eos"


def _statics(ctx, index, link_index):
    """Per device: its static routes whose next hop is the address of an established session's peer."""
    peer_address: dict[str, tuple[int, str]] = {}  # next-hop address -> (device, its interface towards it)
    for (host, name), interface in ctx.interface_index.items():
        peer, peer_interface = interface.get("peer_device"), interface.get("peer_interface")
        if not peer or peer not in index or host not in index:
            continue
        peer_port = ctx.interface_index.get((peer, peer_interface)) or {}
        address = (peer_port.get("ip") or "").split("/")[0]
        if address:
            peer_address[f"{host}|{address}"] = (index[host], name)
    statics: list[list[tuple[ipaddress.IPv4Network, str, int]]] = [[] for _ in index]
    unresolved: list[str] = []
    for host, config in ctx.structured.items():
        for route in config.get("static_routes") or ():
            hop = str(route.get("next_hop") or "")
            found = peer_address.get(f"{host}|{hop}")
            link = link_index.get(found) if found else None
            try:
                prefix = ipaddress.IPv4Network(route["prefix"], strict=False)
            except (KeyError, ValueError):
                unresolved.append(f"{host}: {route.get('prefix')} via {hop}")
                continue
            if link is None:
                unresolved.append(f"{host}: {prefix} via {hop}")
                continue
            statics[index[host]].append((prefix, hop, link))
    return statics, unresolved


# --------------------------------------------------------------------------------------------- forwarding

_as_path_regex = as_path_regex  # one AS-path regex dialect for the export policy and neighbor policies


def exports(entries: list[dict] | None, path: tuple[int, ...]) -> bool:
    """Whether a route map lets a route with ``path`` (before the sender prepends its ASN) out; the first
    matching entry decides, and a route no entry matches is denied (the implicit deny of every route map)."""
    if entries is None:
        return True
    text = " ".join(str(asn) for asn in path)
    for entry in entries:
        pattern = entry.get("as_path")
        if pattern is None or _as_path_regex(pattern).search(text):
            return entry["action"] == "permit"
    return False


def bgp_routes(net: Network, origin: int, dead_links: frozenset[int] = frozenset(),
               dead_devices: frozenset[int] = frozenset(), prefix: str | None = None) -> dict[int, list[int]]:
    """{device: outgoing link indices} towards ``origin``'s prefixes (breadth-first by AS-path length, as
    :func:`validators.routing.propagate`, with export policies, and the neighbors' route maps and prefix lists
    applied to ``prefix`` when the model has any)."""
    if origin in dead_devices:
        return {}
    asn, allowas = net.asn, net.allowas_in
    routing = net.routing if net.routing is not None and net.routing.policies and prefix else None
    paths: dict[int, tuple[int, ...]] = {origin: ()}
    hops: dict[int, list[int]] = {origin: []}
    frontier = [origin]
    while frontier:
        candidates: dict[int, list] = defaultdict(list)
        for sender in frontier:
            base = paths[sender]
            path = (asn[sender],) + base
            for position in net.out_links[sender]:
                if position in dead_links:
                    continue
                link = net.links[position]
                receiver = link.peer
                if receiver in paths or receiver in dead_devices:
                    continue
                if not exports(net.export.get((sender, link.interface)), base):
                    continue
                if routing is not None and routing.denial(sender, receiver, link.peer_interface, prefix, base):
                    continue
                if path.count(asn[receiver]) > allowas[receiver]:
                    continue
                back = net.link_index.get((receiver, link.peer_interface))
                if back is None or back in dead_links:
                    continue
                candidates[receiver].append((len(path), net.rank[receiver].get((sender, link.peer_interface), 0),
                                             path, back))
        frontier = []
        for receiver, items in candidates.items():
            items.sort(key=lambda item: (item[0], item[1]))
            shortest, _rank, best, _hop = items[0]
            relax = net.multipath_relax[receiver]
            chosen = [item[3] for item in items if item[0] == shortest and (relax or item[2] == best)]
            paths[receiver] = best
            hops[receiver] = chosen[:net.maximum_paths[receiver]]
            frontier.append(receiver)
    hops.pop(origin, None)
    return hops


def forwarding(net: Network, dead_links=frozenset(), dead_devices=frozenset()) -> list[dict[int, list[int]]]:
    """Per destination (``net.destinations`` order): {device: outgoing links}, statics applied."""
    by_origin: dict[tuple[int, str | None], dict[int, list[int]]] = {}
    per_prefix = net.routing is not None and bool(net.routing.policies)  # policies: each prefix its own fate
    result = []
    for prefix, origin in net.destinations:
        if origin is not None:
            key = (origin, prefix if per_prefix else None)
            if key not in by_origin:
                by_origin[key] = bgp_routes(net, origin, dead_links, dead_devices, prefix if per_prefix else None)
            table = dict(by_origin[key])
        else:
            table = {}
        if any(net.statics):
            destination = ipaddress.IPv4Network(prefix, strict=False)
            for device, routes in enumerate(net.statics):
                if device in dead_devices or device == origin:
                    continue
                best = None
                for static_prefix, _hop, link in routes:
                    if link in dead_links or not destination.subnet_of(static_prefix):
                        continue
                    if best is None or static_prefix.prefixlen > best[0]:
                        best = (static_prefix.prefixlen, [link])
                    elif static_prefix.prefixlen == best[0]:
                        best[1].append(link)
                # A static covering the destination at least as specifically as the BGP route wins (distance 1 < 20);
                # a shorter one (a default) is used only where BGP gives no route.
                if best is not None and (device not in table or best[0] >= destination.prefixlen):
                    table[device] = best[1]
        result.append(table)
    return result


# --------------------------------------------------------------------------------------------- the graph


class BufferGraph:
    """Edges between links (indices into ``Network.links``) with the destinations that make each edge."""

    def __init__(self) -> None:
        self.edges: dict[int, set[int]] = defaultdict(set)
        self.reasons: dict[tuple[int, int], str] = {}

    def add(self, a: int, b: int, reason: str) -> None:
        if b not in self.edges[a]:
            self.edges[a].add(b)
            self.reasons[(a, b)] = reason

    @property
    def edge_count(self) -> int:
        return sum(len(targets) for targets in self.edges.values())


def build_graph(net: Network, tables: list[list[dict[int, list[int]]]], lossless: set[int],
                dead_links=frozenset()) -> BufferGraph:
    """The graph of one priority from one or more forwarding states (their union: the transient mix)."""
    graph = BufferGraph()
    to_vtep: dict[int, dict[int, set[int]]] = {}  # VTEP address destination -> the union below
    for destination, (prefix, origin) in enumerate(net.destinations):
        union: dict[int, set[int]] = defaultdict(set)
        for state in tables:
            for device, links in state[destination].items():
                union[device].update(link for link in links if link not in dead_links)
        if destination in net.vtep_destinations:
            to_vtep[destination] = union
        for outgoing in union.values():
            for first in outgoing:
                if first not in lossless:
                    continue
                nxt = net.links[first].peer
                if nxt == origin:
                    continue
                for second in union.get(nxt, ()):
                    if second in lossless:
                        graph.add(first, second, prefix)
    for first, second, reason in net.flood:
        if first in lossless and second in lossless and first not in dead_links and second not in dead_links:
            graph.add(first, second, reason)
    for first, second, reason, down in net.flood_if_down:
        if first in lossless and second in lossless and first not in dead_links and second not in dead_links \
                and down <= dead_links:
            graph.add(first, second, reason)
    names = net.names
    for flood in net.vni_floods:
        local_in = [link for link in flood.local_in if link in lossless and link not in dead_links]
        for destination, remote in flood.remote if local_in else ():
            for second in to_vtep[destination].get(flood.device, ()):
                if second in lossless:
                    for first in local_in:
                        graph.add(first, second, f"head-end replication of VLAN {flood.vlan} (VNI {flood.vni}) "
                                  f"to {names[remote]}'s VTEP")
        local_out = [link for link in flood.local_out if link in lossless and link not in dead_links]
        if flood.own is None or not local_out:
            continue
        for arriving_links in to_vtep[flood.own].values():
            for first in arriving_links:
                if first in lossless and net.links[first].peer == flood.device:
                    for second in local_out:
                        graph.add(first, second, f"VXLAN decapsulation of VNI {flood.vni} flooded into VLAN "
                                  f"{flood.vlan}")
    return graph


def _strong_components(edges: dict[int, set[int]]) -> list[list[int]]:
    """Tarjan's algorithm, iterative; components with a cycle only (size > 1, or a self loop)."""
    index_of: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    found: list[list[int]] = []
    counter = 0
    for root in list(edges):
        if root in index_of:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index_of[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index_of:
                    index_of[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index_of[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index_of[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges.get(node, ()):
                    found.append(component)
    return found


def shortest_cycle(edges: dict[int, set[int]], component: list[int]) -> list[int]:
    """The shortest cycle inside one strongly connected component (BFS from each member; a few hundred at most)."""
    members = set(component)
    best: list[int] | None = None
    for start in sorted(component)[:256]:
        parent = {start: -1}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            for child in sorted(edges.get(node, ())):
                if child not in members:
                    continue
                if child == start:
                    cycle = [node]
                    while parent[cycle[-1]] != -1:
                        cycle.append(parent[cycle[-1]])
                    cycle.reverse()
                    if best is None or len(cycle) < len(best):
                        best = cycle
                    queue.clear()
                    break
                if child not in parent:
                    parent[child] = node
                    queue.append(child)
        if best is not None and len(best) <= 2:
            break
    return best or []


# --------------------------------------------------------------------------------------------- the rule


@dataclass
class Proof:
    holds: bool
    reasons: list[str]  # why it does not hold (empty when it holds)
    pairs: int  # upper-neighbor pairs examined


def valley_free_proof(net: Network) -> Proof:
    """The AS-path rule of the module docstring: True means no valley in any failure set, steady or transient."""
    reasons: list[str] = []
    if net.unresolved_statics or any(net.statics):
        reasons.append("static routes are configured (they are not bound by AS-path loop prevention)")
    if net.flood or net.flood_if_down:
        reasons.append("VLANs are bridged over inter-switch links (flooding is not bound by AS-path loop prevention)")
    if any(flood.local_in or flood.local_out for flood in net.vni_floods):
        reasons.append("VTEPs bridge VNI-mapped VLANs over inter-switch links (head-end replication is not bound by "
                       "AS-path loop prevention)")
    tiers = [TIER.get(role) for role in net.role]
    unknown = [net.names[d] for d, tier in enumerate(tiers) if tier is None and net.out_links[d]]
    if unknown:
        reasons.append(f"switches without a Clos tier (role): {short_list(unknown)}")
    uppers: list[list[int]] = [[] for _ in net.names]
    lowers: list[set[int]] = [set() for _ in net.names]
    for position, link in enumerate(net.links[:net.session_links]):
        a, b = tiers[link.device], tiers[link.peer]
        if a is None or b is None:
            continue
        if a == b:
            reasons.append(f"a session joins two switches of one tier: {net.names[link.device]}:{link.interface} -> "
                           f"{net.names[link.peer]}")
        elif b > a:
            uppers[link.device].append(position)
        else:
            lowers[link.device].add(link.peer)
    pairs = 0
    # (1) no valley at one switch within one state: an upper neighbor never takes back what came from above.
    for device in range(len(net.names)):
        ups = uppers[device]
        groups: dict[tuple[int, int], list[int]] = defaultdict(list)
        for position in ups:
            link = net.links[position]
            groups[(net.asn[link.peer], net.allowas_in[link.peer])].append(position)
        for (asn_from, _), (asn_to, allow_to) in _group_pairs(groups):
            pairs += 1
            if asn_from == asn_to and allow_to == 0:
                continue
            senders = groups[(asn_to, allow_to)]
            if all(_denies_learned(net.export.get((device, net.links[p].interface)), asn_from) for p in senders):
                continue
            reasons.append(f"{net.names[device]} can pass a route from AS {asn_from} up to AS {asn_to}"
                           + (" (allowas-in there)" if asn_from == asn_to else " (the upper tier has more than one ASN)"))
            break
    # (2) no mixed-state valley: a switch with a lower tier never accepts from above a route to its own subtree.
    subtree = _subtrees(net, tiers, lowers)
    by_tier: dict[int, list[int]] = defaultdict(list)
    for device, tier in enumerate(tiers):
        if tier is not None and lowers[device] and uppers[device]:
            by_tier[tier].append(device)
    for members in by_tier.values():
        for x, y in combinations(members, 2):
            if subtree[x] & subtree[y] and not (net.asn[x] == net.asn[y] and net.allowas_in[x] == 0
                                                and net.allowas_in[y] == 0):
                reasons.append(f"{net.names[x]} and {net.names[y]} share a subtree but not an ASN (or take allowas-in):"
                               " one can learn the other's subtree from above")
                break
    return Proof(not reasons, _unique(reasons), pairs)


def _group_pairs(groups):
    keys = sorted(groups)
    for a in keys:
        for b in keys:
            if a != b or len(groups[a]) > 1:
                yield a, b


def _denies_learned(entries, asn_from: int) -> bool:
    # Representative paths that start with the upper neighbor's ASN (what came from above).
    return entries is not None and not any(exports(entries, path) for path in
                                           ((asn_from,), (asn_from, 64512), (asn_from, 65534, 64512)))


def _subtrees(net, tiers, lowers) -> list[frozenset[int]]:
    cache: dict[int, frozenset[int]] = {}

    def below(device: int) -> frozenset[int]:
        if device not in cache:
            cache[device] = frozenset()  # guards a malformed loop
            result = set()
            for lower in lowers[device]:
                result.add(lower)
                result |= below(lower)
            cache[device] = frozenset(result)
        return cache[device]

    return [below(device) for device in range(len(net.names))]


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


# --------------------------------------------------------------------------------------------- scenarios


@dataclass(frozen=True, slots=True)
class Scenario:
    kind: str  # baseline | link | link-pair | spine | super-spine | spine-pair | super-spine-pair | sample
    dead_links: frozenset[int]
    dead_devices: frozenset[int]

    def describe(self, net: Network) -> str:
        if self.kind == "baseline":
            return "no failure"
        parts = [net.names[d] for d in sorted(self.dead_devices)]
        seen = set()
        for position in sorted(self.dead_links):
            link = net.links[position]
            key = frozenset({(link.device, link.interface), (link.peer, link.peer_interface)})
            if key in seen:
                continue
            seen.add(key)
            parts.append(str(Subject.link(net.names[link.device], link.interface, net.names[link.peer],
                                          link.peer_interface)))
        return ", ".join(parts) + " down"


def _both(net: Network, position: int) -> frozenset[int]:
    link = net.links[position]
    back = net.link_index.get((link.peer, link.peer_interface))
    return frozenset({position} if back is None else {position, back})


def scenarios(net: Network, sample: int = SAMPLE_SIZE, seed: int = SEED) -> list[Scenario]:
    result = [Scenario("baseline", frozenset(), frozenset())]
    undirected = [position for position, link in enumerate(net.links)
                  if (net.names[link.device], link.interface) < (net.names[link.peer], link.peer_interface)]
    result += [Scenario("link", _both(net, position), frozenset()) for position in undirected]
    if len(undirected) * (len(undirected) - 1) // 2 <= PAIR_LIMIT:
        result += [Scenario("link-pair", _both(net, a) | _both(net, b), frozenset())
                   for a, b in combinations(undirected, 2)]
    for role, pair_kind in (("spine", "spine-pair"), ("super-spine", "super-spine-pair")):
        members = [d for d, r in enumerate(net.role) if r == role]
        result += [Scenario(role, frozenset(), frozenset({d})) for d in members]
        result += [Scenario(pair_kind, frozenset(), frozenset(pair)) for pair in combinations(members, 2)]
    rng = random.Random(seed)
    result.sort(key=_level)  # stable: smaller failure sets first, each kind in order
    seen = {(scenario.dead_links, scenario.dead_devices) for scenario in result}
    if len(undirected) >= 3:
        for _ in range(sample):  # drawn ``sample`` times; a set drawn twice is examined once
            chosen = rng.sample(undirected, rng.choice((3, 4)) if len(undirected) >= 4 else 3)
            dead = frozenset().union(*(_both(net, position) for position in chosen))
            if (dead, frozenset()) not in seen:
                seen.add((dead, frozenset()))
                result.append(Scenario("sample", dead, frozenset()))
    return result


@dataclass
class Cycle:
    priority: int
    scenario: Scenario
    links: list[int]  # the cycle's nodes, in order
    reasons: list[str]  # the destination that makes each edge (links[i] -> links[i+1])
    component: list[int] = field(default_factory=list)  # every link of the strongly connected component

    def key(self) -> tuple:
        start = min(range(len(self.links)), key=lambda i: self.links[i])
        return self.priority, tuple(self.links[start:] + self.links[:start]), tuple(self.component)


@dataclass
class DeadlockResult:
    method: str  # "proof" | "enumeration"
    proof: Proof
    priorities: list[int]
    scenarios_examined: int
    scenarios_total: int
    cycles: list[Cycle]
    nodes: int = 0
    edges: int = 0
    bounces: int = 0  # most bounces (down then up) on any lossless path of the examined states
    notes: list[str] = field(default_factory=list)


def analyse(ctx, sample: int = SAMPLE_SIZE, seed: int = SEED, enumerate_always: bool = False,
            stop_early: bool = True, net: Network | None = None) -> DeadlockResult:
    """The verdict: the proof when it holds (unless ``enumerate_always``), else enumeration; ``stop_early`` ends
    the enumeration after the smallest failure-set size that shows a cycle."""
    ctx = as_context(ctx)
    net = net if net is not None else build_network(ctx)
    priorities = sorted(net.lossless)
    proof = valley_free_proof(net)
    notes = []
    if net.unresolved_statics:
        notes.append(f"static routes whose next hop is no fabric peer (not followed): {short_list(net.unresolved_statics)}")
    if net.unresolved_vteps:
        notes.append("VTEP addresses no switch advertises (head-end replication to them not followed): "
                     f"{short_list(net.unresolved_vteps)}")
    if net.undefined_policies:
        notes.append(f"export route maps not defined in the config (taken as permit-all): "
                     f"{short_list(net.undefined_policies)}")
    if proof.holds and not enumerate_always:
        return DeadlockResult("proof", proof, priorities, 0, 0, [], notes=notes)
    return enumerate_scenarios(net, proof, priorities, sample, seed, notes, stop_early)


def enumerate_scenarios(net: Network, proof: Proof, priorities: list[int], sample: int, seed: int,
                        notes: list[str], stop_early: bool = True) -> DeadlockResult:
    all_scenarios = scenarios(net, sample, seed)
    per_scenario = max(1, len(net.destinations) * max(net.sessions, 1))
    budget = WORK_LIMIT // per_scenario
    if budget == 0:
        notes.append(f"enumeration capped at 0 of {len(all_scenarios):,} failure scenarios: one scenario takes "
                     f"{per_scenario:,} route computations (limit {WORK_LIMIT:,}): no certificate; the AS-path "
                     f"rule fails because {'; '.join(proof.reasons[:3])}")
        return DeadlockResult("enumeration", proof, priorities, 0, len(all_scenarios), [], notes=notes)
    examined = all_scenarios[:budget]
    baseline = forwarding(net)
    cycles: dict[tuple, Cycle] = {}
    nodes = edges = 0
    bounces = 0
    stopped_at = None
    for number, scenario in enumerate(examined):
        if stop_early and cycles and _level(scenario) > _level(examined[number - 1]):
            stopped_at = number  # cycles found at a smaller failure set: deeper sets are not needed to fail
            break
        state = baseline if scenario.kind == "baseline" else forwarding(net, scenario.dead_links, scenario.dead_devices)
        tables = [baseline] if scenario.kind == "baseline" else [baseline, state]
        bounces = max(bounces, max_bounces(net, state, scenario.dead_links | _device_links(net, scenario.dead_devices)))
        for priority in priorities:
            lossless = net.lossless[priority] - scenario.dead_links
            graph = build_graph(net, tables, lossless, scenario.dead_links | _device_links(net, scenario.dead_devices))
            if scenario.kind == "baseline":
                nodes += len({n for n in graph.edges} | {t for ts in graph.edges.values() for t in ts})
                edges += graph.edge_count
            for component in _strong_components(graph.edges):
                links = shortest_cycle(graph.edges, component)
                if not links:
                    continue
                reasons = [graph.reasons[(links[i], links[(i + 1) % len(links)])] for i in range(len(links))]
                cycle = Cycle(priority, scenario, links, reasons, sorted(component))
                cycles.setdefault(cycle.key(), cycle)
    if stopped_at is not None:
        notes.append(f"cycles found with {_level(examined[stopped_at - 1])} failure(s) or fewer: "
                     f"{len(all_scenarios) - stopped_at:,} larger failure sets not examined")
        examined = examined[:stopped_at]
    elif len(examined) < len(all_scenarios):
        notes.append(f"enumeration capped at {len(examined):,} of {len(all_scenarios):,} failure scenarios "
                     f"({per_scenario:,} route computations each): no certificate for the rest")
    ordered = sorted(cycles.values(), key=lambda c: (len(c.scenario.dead_links) + len(c.scenario.dead_devices),
                                                     len(c.links)))
    return DeadlockResult("enumeration", proof, priorities, len(examined), len(all_scenarios), ordered, nodes, edges,
                          bounces, notes)


def _level(scenario: Scenario) -> int:
    """How many things a scenario fails (links count once per direction pair)."""
    return len(scenario.dead_links) // 2 + len(scenario.dead_devices)


def _device_links(net: Network, devices: frozenset[int]) -> frozenset[int]:
    if not devices:
        return frozenset()
    return frozenset(p for p, link in enumerate(net.links) if link.device in devices or link.peer in devices)


def max_bounces(net: Network, table: list[dict[int, list[int]]], dead_links=frozenset()) -> int:
    """Most down-then-up turns on any path of one forwarding state (per destination a DAG; a destination whose
    forwarding loops is left out: no tag plan fixes a loop)."""
    tiers = [TIER.get(role, 0) for role in net.role]
    most = 0
    for destination, (_prefix, origin) in enumerate(net.destinations):
        walk = _BounceWalk(net.links, tiers, table[destination], origin, dead_links)
        try:
            for device_links in table[destination].values():
                for position in device_links:
                    if position not in dead_links:
                        most = max(most, walk.bounces(position))
        except (_Loop, RecursionError):
            continue
    return most


class _BounceWalk:
    """Longest count of bounces from one link on, over one destination's forwarding (memoised)."""

    def __init__(self, links, tiers, hops, origin, dead_links) -> None:
        self.links, self.tiers, self.hops, self.origin, self.dead = links, tiers, hops, origin, dead_links
        self.memo: dict[int, int] = {}

    def bounces(self, position: int, depth: int = 0) -> int:
        if position in self.memo:
            return self.memo[position]
        if depth > len(self.links):
            raise _Loop
        link, tiers = self.links[position], self.tiers
        best = 0
        if link.peer != self.origin:
            going_down = tiers[link.peer] < tiers[link.device]
            for nxt in self.hops.get(link.peer, ()):
                if nxt in self.dead:
                    continue
                turn = 1 if going_down and tiers[self.links[nxt].peer] > tiers[self.links[nxt].device] else 0
                best = max(best, turn + self.bounces(nxt, depth + 1))
        self.memo[position] = best
        return best


class _Loop(Exception):
    pass


# --------------------------------------------------------------------------------------------- the twin


def bounce_path(ctx, source: str, prefix: str, failed: list[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    """Where traffic from ``source`` to ``prefix`` goes once BGP has converged with the ``failed`` links
    (``(switch, interface)``, one end each) down: ``[(switch, [next-hop switches])]`` in the order reached,
    up to the prefix's origin. What the twin confirms hop by hop (labs/deadlock_confirm.py)."""
    net = build_network(as_context(ctx))
    index = {name: position for position, name in enumerate(net.names)}
    dead = frozenset().union(*(_both(net, net.link_index[(index[host], interface)]) for host, interface in failed))
    destination = next(d for d, (p, _origin) in enumerate(net.destinations) if p == prefix)
    table = forwarding(net, dead)[destination]
    origin = net.destinations[destination][1]
    result, queue, seen = [], deque([index[source]]), {index[source]}
    while queue:
        device = queue.popleft()
        if device == origin:
            continue
        peers = sorted({net.names[net.links[link].peer] for link in table.get(device, ())}, key=natural_key)
        result.append((net.names[device], peers))
        for peer in peers:
            if index[peer] not in seen:
                seen.add(index[peer])
                queue.append(index[peer])
    return result


# --------------------------------------------------------------------------------------------- reporting


def hops(net: Network, cycle: Cycle) -> list[tuple[str, str, str, int]]:
    """(switch, ingress interface, egress interface, priority) for each switch on the cycle."""
    result = []
    for i, position in enumerate(cycle.links):
        incoming = net.links[cycle.links[i - 1]]
        outgoing = net.links[position]
        result.append((net.names[outgoing.device], incoming.peer_interface, outgoing.interface, cycle.priority))
    return result


def describe_cycle(net: Network, cycle: Cycle) -> str:
    return " -> ".join(f"{switch} ({ingress} -> {egress})" for switch, ingress, egress, _p in hops(net, cycle))


def remediations(net: Network, result: DeadlockResult) -> list[str]:
    advice = []
    spine_asns = {net.asn[d] for d, role in enumerate(net.role) if role == Role.SPINE}
    if len(spine_asns) > 1:
        advice.append(f"give the spines one ASN (RFC 7938 section 5.2.1; today {len(spine_asns)}): AS-path loop "
                      "prevention then drops every bounce path")
    allowas = sorted({net.names[d] for d, value in enumerate(net.allowas_in) if value})
    if allowas:
        advice.append(f"remove allowas-in on {short_list(allowas)} (or scope it to the routes that need it)")
    if any(net.statics):
        advice.append("remove or correct the static routes on the cycle (they bypass AS-path loop prevention)")
    if any(p in net.peer_links for cycle in result.cycles for p in cycle.links):
        advice.append("give every port-channel dual-attached to an MLAG pair the same MLAG id on both peers: MLAG then "
                      "sends nothing from the peer-link out of it while the peer's side is up, and the peer-link "
                      "closes no loop")
    if net.flood:
        advice.append("keep lossless VLANs off inter-switch trunks (prune them) or send flooded traffic to a lossy "
                      "class: a flooded lossless frame can come back to the switch that flooded it")
    if any(reason.startswith(("head-end replication", "VXLAN decapsulation")) for cycle in result.cycles
           for reason in cycle.reasons):
        advice.append("remove the L2 link between VTEPs of one VNI (or make the pair one MLAG/EVPN multihoming "
                      "segment), or map the VNI's BUM traffic to a lossy class: a frame replicated to a VTEP comes "
                      "back over the L2 link and is replicated again")
    advice.append("a valley-free export policy: a leaf advertises upwards only what it originates "
                  "(route-map permit as-path ^$), a spine never sends a route learned from the core back up")
    advice.append("drop lossless bounces: an ACL or TTL rule that moves a packet turning down-then-up to a lossy class")
    if result.bounces:
        advice.append(f"or a Tagger tag plan (CoNEXT 2017): raise the tag on each bounce, one lossless priority per tag: "
                      f"{result.bounces + 1} lossless priorities for paths that bounce at most {result.bounces} time(s)")
    return advice


def lossless_peer_links(ctx) -> list[tuple[str, str, list[int], bool]]:
    """(switch, port, priorities, routed) of MLAG peer-link ports that run PFC; ``routed``: the switch has a BGP
    session to its MLAG peer-address (routed traffic over the peer SVI, which the graph does not follow)."""
    found = []
    for host, config in ctx.structured.items():
        mlag = config.get("mlag") or {}
        peer_link = mlag.get("peer_link")
        routed = bool(mlag.get("peer_address")) and any(
            neighbor.get("address") == mlag["peer_address"] for neighbor in (config.get("bgp") or {}).get("neighbors") or ())
        for port in config["interfaces"]:
            if port.get("kind") == "peer_link" or (peer_link and port.get("port_channel") == peer_link):
                priorities = sorted(_pfc(port))
                if priorities:
                    found.append((host, port["name"], priorities, routed))
    return found


def check_deadlock(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    net = build_network(ctx)
    if not net.lossless:
        raise CheckSkipped("no link runs PFC on both ends: no lossless buffer can wait on another")
    result = analyse(ctx, net=net)
    for host, port, priorities, routed in lossless_peer_links(ctx):
        if routed:
            result.notes.append(f"{host}:{port} (MLAG peer-link) runs PFC on {priorities} and {host} peers with BGP "
                                "over the peer SVI: routed lossless traffic across the peer-link (its uplinks down) "
                                "is not followed (iBGP is not simulated), so the verdict does not cover it")
    if result.method == "enumeration" and result.scenarios_examined == 0:
        raise CheckSkipped(result.notes[-1])
    lossless_links = len(set().union(*net.lossless.values()))
    ctx.record_examined(CHECK, {"lossless priorities": len(result.priorities), "lossless links": lossless_links,
                                "failure scenarios": result.scenarios_examined if result.method == "enumeration"
                                else 1, "destinations": len(net.destinations)})
    fabric_name = ctx.inventory.fabric if ctx.inventory is not None else "fabric"
    findings: list[Finding] = []
    for note in result.notes:
        warn = "capped" in note or "does not cover" in note
        findings.append(Finding(check=CHECK, severity=Severity.WARNING if warn else Severity.INFO,
                                subject=fabric_name, expected="every input followed", actual=note, message=note))
    if result.method == "proof":
        findings.append(Finding(
            check=CHECK, severity=Severity.INFO, subject=fabric_name, expected="no cyclic buffer dependency",
            actual="certificate: valley-free by the AS-path rule",
            message=f"certificate: no PFC deadlock cycle on priorities {result.priorities} under ANY failure set "
                    f"(steady or transient): every session joins two tiers and AS-path loop prevention or export "
                    f"policy rejects every valley ({result.proof.pairs:,} upper-neighbor pairs)"))
        return findings
    if not result.cycles:
        findings.append(Finding(
            check=CHECK, severity=Severity.INFO, subject=fabric_name, expected="no cyclic buffer dependency",
            actual=f"0 cycles in {result.scenarios_examined:,} scenarios",
            message=f"certificate for the scenarios examined ({result.scenarios_examined:,} of "
                    f"{result.scenarios_total:,}: baseline, every N-1, every spine and super-spine pair, "
                    f"{SAMPLE_SIZE:,} random N-3/N-4 link sets, seed {SEED}); the AS-path rule does not hold: "
                    f"{'; '.join(result.proof.reasons)}"))
        return findings
    advice = remediations(net, result)
    for cycle in result.cycles[:MAX_CYCLES]:
        path = describe_cycle(net, cycle)
        destinations = sorted(set(cycle.reasons), key=natural_key)
        # The subject lists each egress port of the cycle in the one endpoint grammar ("a:x<->b:y<->..."), so
        # the topology page colours every link of the cycle (ui/svg.py link_health); the message draws the hops.
        subject = str(Subject(tuple(SubjectEnd(switch, egress) for switch, _ingress, egress, _p in hops(net, cycle))))
        # Spanning tree does not run over VXLAN tunnels: a loop through one is no L2 loop it could block.
        flooded = any(reason.startswith("flooding") for reason in cycle.reasons) and not any(
            reason.startswith(("head-end replication", "VXLAN decapsulation")) for reason in cycle.reasons)
        blocking = sorted({net.names[net.links[p].device] for p in cycle.links} & {net.names[d] for d in net.stp})
        caveat = (f" It is an L2 loop: spanning tree on {short_list(blocking)} may block one of its ports (then "
                  "there is no cycle; the blocked port is not in the config)." if flooded and blocking else "")
        findings.append(Finding(
            check=CHECK, severity=Severity.WARNING if caveat else Severity.ERROR, subject=subject,
            expected="no cyclic buffer dependency",
            actual={"priority": cycle.priority, "failure": cycle.scenario.describe(net),
                    "hops": [{"switch": s, "ingress": i, "egress": e} for s, i, e, _p in hops(net, cycle)],
                    "destinations": destinations},
            message=f"PFC deadlock cycle on priority {cycle.priority} of {len(cycle.links)} links when "
                    f"{cycle.scenario.describe(net)}: {path}; made by traffic to {short_list(destinations)}. "
                    f"Remedies: {'; '.join(advice)}.{caveat}"))
    if len(result.cycles) > MAX_CYCLES:
        findings.append(Finding(check=CHECK, severity=Severity.ERROR, subject=fabric_name,
                                expected="no cyclic buffer dependency", actual=len(result.cycles),
                                message=f"{len(result.cycles) - MAX_CYCLES} more cycles not listed"))
    return findings


CHECKS = {CHECK: check_deadlock}
