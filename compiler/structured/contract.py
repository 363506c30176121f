"""The structured config per device as types: the contract of docs/structured-config.md, checked by mypy.

One ``TypedDict`` per block of the document, named after its key. Every key of the document is declared here and
every declared key is in the document (tests/compiler/test_structured_contract.py parses the document's YAML and
compares, and checks the golden scenarios' compiled output against these types too). The dicts stay plain JSON
(stored in the database, diffed, rendered); the types only say what is in them.

Blocks that can be ``{}`` (``vxlan`` on spines, ``qos`` without RoCE classes, an unused port's ``qos``, ``qos.cnp``
without a CNP class, a class's ``ecn`` when it does not mark; and
``hardware``, ``mtu`` and ``management`` in the skeleton, before their feature ran) are declared ``total=False``:
either every key or none is present (the test checks that too).
"""

# No ``from __future__ import annotations`` here: TypedDict reads NotRequired from evaluated annotations only
# (Python 3.11), so this module's annotations must stay real objects.
from typing import NotRequired, TypedDict


class Hardware(TypedDict, total=False):
    model: str
    asic: str | None  # null when the model or its ASIC is unknown
    asic_family: str | None


class Mtu(TypedDict, total=False):
    underlay: int
    host: int


class InterfaceIgp(TypedDict):
    protocol: str  # ospf | isis
    area: str | None  # OSPF area, dotted (RFC 2328); null for IS-IS
    level: str | None  # IS-IS circuit level (level-1 | level-2 | level-1-2); null for OSPF
    point_to_point: bool
    passive: bool
    metric: int | None  # OSPF cost / IS-IS metric; null: the platform default
    authentication: NotRequired[str]  # OSPF: simple | message-digest (keys are not compared)


class Igp(TypedDict):
    protocol: str  # ospf | isis
    process: str
    router_id: str | None
    net: str | None  # IS-IS NET (ISO 10589)
    level: str | None  # IS-IS is-type
    maximum_paths: int | None
    unmatched_networks: NotRequired[list[str]]  # OSPF `network P area A` covering no port of the device


class Loopback(TypedDict):
    name: str
    ip: str
    purpose: str  # router_id | vtep
    igp: NotRequired[InterfaceIgp]  # foreign configs: the loopback advertised into the IGP


class EcnThresholds(TypedDict, total=False):  # {} for a class that does not mark ECN
    min_bytes: int
    max_bytes: int
    probability: int


class Headroom(TypedDict):
    xoff_bytes: int
    xon_bytes: int
    size_bytes: int
    policy: str


class PortQos(TypedDict, total=False):
    trust: str
    pfc_priorities: list[int]
    pfc_watchdog: bool
    ecn: dict[str, EcnThresholds]  # egress queue -> thresholds
    headroom: dict[str, Headroom]  # PFC priority -> buffer
    # SONiC: lossless priorities with no BUFFER_PG row, whose headroom the buffer manager sizes at runtime (foreign
    # configs saved before buffermgrd ran: sonic-swss cfgmgr/buffermgr, from the port speed and cable length).
    headroom_at_runtime: NotRequired[list[int]]


class StormControlLevel(TypedDict):
    level: str  # as stated: a percentage ("1", "0.5") or a packet rate ("100")
    unit: str  # percent | pps


class Interface(TypedDict):
    name: str
    kind: str  # fabric | server | peer_link | unused
    speed_gbps: int
    lanes: int | None
    breakout_parent: str | None
    mtu: int
    enabled: bool
    description: str
    peer_device: str | None
    peer_interface: str | None
    cable: str | None
    cable_length_m: float | None
    ip: str | None
    unnumbered: bool
    access_vlan: int | None
    trunk_vlans: list[int]
    qos: PortQos
    fec: NotRequired[str]  # optional renderer input (rs | fc | none | auto), docs/renderers.md
    # Foreign EOS configs: the rate is stated without a lane count (`speed forced 100gfull`, `speed 100g`), so the
    # port runs the lane mode its cage defaults to for that rate (lanes null); rendered `speed forced <rate>gfull`.
    speed_default_lanes: NotRequired[bool]
    # Layer 2 as read from foreign configs (the compiler does not emit them yet): docs/structured-config.md.
    port_channel: NotRequired[str]  # the bundle this port is a member of (LACP), by name
    lacp_mode: NotRequired[str]  # active | passive | on (static bundle, no LACP)
    switchport_mode: NotRequired[str]  # access | trunk when stated (a trunk without an allowed list carries all)
    trunk_groups: NotRequired[list[str]]  # EOS trunk groups (MLAG peer-link VLANs)
    native_vlan_tag: NotRequired[bool]  # the trunk's native VLAN is tagged too
    dhcp: NotRequired[bool]  # a routed port whose address is leased by DHCP (ip null)
    # Routing read from foreign configs (docs/structured-config.md, "Foreign routing features").
    ipv6: NotRequired[str]  # IPv6 address/length (RFC 5952 text)
    vrf: NotRequired[str]  # a routed port of a tenant VRF (absent: the default VRF)
    igp: NotRequired[InterfaceIgp]  # OSPF / IS-IS on the port
    # Port settings from foreign configs (docs/structured-config.md, "Foreign fabric settings").
    storm_control: NotRequired[dict[str, StormControlLevel]]  # broadcast | multicast | unknown-unicast | all
    ptp: NotRequired[bool]
    stp_bpdufilter: NotRequired[bool]
    macsec_profile: NotRequired[str]


class EthernetSegment(TypedDict):
    identifier: str | None  # the 10-octet ESI, EOS's text (0000:0000:0303:0202:0101)
    route_target_import: str | None  # ES-Import route target (a MAC address, RFC 7432 section 7.6)


class PortChannel(TypedDict):
    name: str  # Port-Channel10 (EOS), PortChannel0010 (SONiC), bond10 (Linux)
    members: list[str]  # interfaces[].name of every port naming it in port_channel
    min_links: int | None  # members that must be up for the bundle to be up (null: platform default)
    mtu: int | None  # the bundle's MTU, inherited by members that do not state their own (null: not stated)
    enabled: bool
    description: str
    ip: str | None  # routed bundle
    switchport_mode: str | None  # access | trunk; null when routed or not stated
    access_vlan: int | None  # access VLAN, or the trunk's native VLAN
    trunk_vlans: list[int]
    trunk_groups: list[str]
    native_vlan_tag: bool
    mlag: int | None  # MLAG id: the bundle is dual-attached across the MLAG pair
    qos: PortQos  # QoS/PFC stated on the bundle itself ({} when none); members carry their own
    storm_control: NotRequired[dict[str, StormControlLevel]]
    ptp: NotRequired[bool]
    stp_bpdufilter: NotRequired[bool]
    macsec_profile: NotRequired[str]
    evpn_ethernet_segment: NotRequired[EthernetSegment]  # foreign EOS configs: EVPN all-active multihoming
    lacp_system_id: NotRequired[str]  # the LACP system ID the segment's peers share (0303.0202.0101)


class Mlag(TypedDict, total=False):  # {} without MLAG
    domain_id: str
    local_interface: str  # the peer SVI (Vlan4094) the MLAG control session runs from
    peer_address: str
    peer_link: str  # port_channels[].name
    reload_delay_mlag_s: int | None
    reload_delay_non_mlag_s: int | None


class SpanningTree(TypedDict, total=False):  # {} when not stated
    mode: str  # mstp | rapid-pvst | rstp | none
    priorities: dict[str, int]  # MST instance or VLAN id -> bridge priority
    disabled_vlans: list[int]  # `no spanning-tree vlan-id` (the MLAG peer VLANs)


# "import" is a Python keyword: this block needs the functional syntax.
RouteTargets = TypedDict("RouteTargets", {"import": list[str], "export": list[str]})


class PolicyRef(TypedDict):
    kind: str  # route_map | prefix_list
    name: str
    direction: str  # in | out
    line: int  # the line of the reference, for the finding when the name is not defined


class PeerGroup(TypedDict):
    name: str
    remote_as: str | int
    bfd: bool
    address_families: list[str]
    # Foreign routing features (docs/structured-config.md): stated options, which neighbors inherit.
    shutdown: NotRequired[bool]
    local_as: NotRequired[int]
    bfd_profile: NotRequired[str]
    route_reflector_client: NotRequired[bool]
    policy_refs: NotRequired[list[PolicyRef]]
    update_source: NotRequired[str]
    next_hop_self: NotRequired[bool]
    description: NotRequired[str]
    ebgp_multihop: NotRequired[int]  # FRR `neighbor X ebgp-multihop N`: hops to an eBGP peer's loopback
    extended_nexthop: NotRequired[bool]  # FRR `neighbor X capability extended-nexthop` (RFC 8950)


class OverlayRemoteAs(TypedDict):
    address: str  # the peer's loopback the overlay session names
    remote_as: int | str


class Neighbor(TypedDict):
    address: str | None  # null when unnumbered (RFC 5549)
    interface: str
    remote_as: int
    peer_device: str
    peer_interface: str
    peer_group: str
    address_families: list[str]
    description: str
    route_map_out: NotRequired[str]  # export policy (IPv4 unicast) by name, from bgp.route_maps: 5-stage Clos only
    # Foreign routing features (docs/structured-config.md), own or inherited from the peer group.
    shutdown: NotRequired[bool]
    local_as: NotRequired[int]
    bfd: NotRequired[bool]
    bfd_profile: NotRequired[str]
    route_reflector_client: NotRequired[bool]
    policy_refs: NotRequired[list[PolicyRef]]
    update_source: NotRequired[str]  # a session between loopbacks (iBGP/EVPN overlay): interface is the loopback
    # The EVPN loopback session folded onto this underlay session states another remote AS: {address, remote_as}.
    overlay_remote_as: NotRequired[OverlayRemoteAs]
    next_hop_self: NotRequired[bool]
    ebgp_multihop: NotRequired[int]
    extended_nexthop: NotRequired[bool]


class RouteMapEntry(TypedDict):
    seq: int
    action: str  # permit | deny
    as_path: str | None  # AS-path regular expression to match; null: match everything


class RouteMap(TypedDict):
    name: str
    entries: list[RouteMapEntry]


class PoliciesDefined(TypedDict):
    route_map: list[str]
    prefix_list: list[str]


class ListenRange(TypedDict):
    name: str
    prefixes: list[str]
    remote_as: str | int  # external | internal | a number


class Evpn(TypedDict):
    enabled: bool
    advertise_all_vni: bool


class Redistribution(TypedDict):
    protocol: str  # connected | static | attached-host | ospf | isis
    route_map: str | None


class VrfNeighbor(TypedDict):
    address: str | None  # null when unnumbered over ``interface`` (RFC 5549)
    interface: str | None
    peer_group: str | None
    remote_as: int | str | None
    description: str


class BgpVrf(TypedDict):
    name: str
    rd: str
    l3vni: int
    route_targets: RouteTargets
    # Foreign configs (docs/structured-config.md, "Foreign fabric settings").
    update_wait_install: NotRequired[bool]
    redistribute: NotRequired[list[Redistribution]]  # absent: plain `redistribute connected`
    neighbors: NotRequired[list[VrfNeighbor]]


class VlanAwareBundle(TypedDict):
    name: str
    rd: str | None
    route_targets: RouteTargets
    redistribute_learned: bool
    vlans: list[int]


class BgpDistance(TypedDict):
    external: int
    internal: int
    local: int


class Bgp(TypedDict):
    asn: int
    router_id: str
    maximum_paths: int
    keepalive_s: int
    hold_s: int
    allowas_in: int
    bfd: bool
    peer_groups: list[PeerGroup]
    neighbors: list[Neighbor]
    networks: list[str]
    evpn: Evpn
    vrfs: list[BgpVrf]
    route_maps: NotRequired[list[RouteMap]]  # valley-free export policy of a 5-stage Clos (structured/valley_free.py)
    policies_defined: NotRequired[PoliciesDefined]  # foreign configs: the names their text defines
    listen_ranges: NotRequired[list[ListenRange]]  # dynamic neighbors (SONiC BGP_PEER_RANGE, FRR bgp listen range)
    vlan_aware_bundles: NotRequired[list[VlanAwareBundle]]  # foreign EOS configs: EVPN MAC-VRF bundles
    distance: NotRequired[BgpDistance]  # foreign configs: administrative distances
    update_wait_install: NotRequired[bool]  # foreign configs: advertise only routes installed in the FIB


class DhcpRelay(TypedDict):
    address: str  # the DHCP server
    vrf: str | None  # the VRF it is reached in (null: the SVI's)
    source_interface: str | None


class StaticRoute(TypedDict):
    prefix: str  # 0.0.0.0/0, 10.77.0.0/16
    next_hop: str  # the next-hop address


class Svi(TypedDict):
    ip: str | None  # anycast gateway (`ip address virtual`); null on an SVI with its own address only
    mac: str
    mtu: int
    address: NotRequired[str | None]  # the SVI's own address (`ip address`): MLAG peer SVIs, VARP gateways
    virtual_router_addresses: NotRequired[list[str]]  # VARP gateway addresses (`ip virtual-router address`)
    ipv6_enable: NotRequired[bool]  # foreign EOS configs: IPv6 link-local only (an RFC 5549 session runs over it)
    dhcp_relay: NotRequired[list[DhcpRelay]]  # foreign EOS configs: `ip helper-address`


class RemoteDomain(TypedDict):
    rd: str | None
    route_targets: RouteTargets


class Vlan(TypedDict):
    id: int
    name: str
    network: str
    vni: int
    tenant: str
    vrf: str | None
    rd: str
    route_targets: RouteTargets
    svi: Svi | None  # null when L2-only
    trunk_groups: NotRequired[list[str]]  # EOS: only trunks in these groups carry the VLAN (MLAG peer VLANs)
    igmp_snooping: NotRequired[bool]  # foreign EOS configs: `[no] ip igmp snooping vlan N` as stated
    remote_domain: NotRequired[RemoteDomain]  # foreign EOS configs: the EVPN gateway's remote-domain RD/RTs


class Vrf(TypedDict):
    name: str
    tenant: str
    l3vni: int
    transit_vlan: int  # facts: VLAN per L3VNI on platforms needing one (SONiC)
    linux_table: int  # facts: Linux kernel routing table of the VRF (FRR/Linux, the twin)
    ipv6_unicast_routing: NotRequired[bool]  # foreign EOS configs: `ipv6 unicast-routing vrf V`
    ipv4_over_ipv6_routing: NotRequired[bool]  # foreign EOS configs: `ip routing ipv6 interfaces vrf V` (RFC 5549)


class Vxlan(TypedDict, total=False):
    source_interface: str
    vtep_ip: str
    udp_port: int
    mtu: int
    vlan_vnis: dict[str, int]  # VLAN id -> L2VNI
    vrf_vnis: dict[str, int]  # VRF -> L3VNI
    flood_lists: dict[str, list[str]]  # VNI -> remote VTEPs


class QosClass(TypedDict):
    name: str
    dscp: list[int]
    traffic_class: int
    priority: int
    queue: int
    lossless: bool
    ecn: EcnThresholds


class Cnp(TypedDict, total=False):  # {} without a CNP class
    dscp: int
    priority: int
    traffic_class: int


class PfcWatchdog(TypedDict):
    enabled: bool
    detect_ms: int
    restore_ms: int
    action: str


class QueueScheduling(TypedDict):
    mode: str  # strict | dwrr
    weight_percent: NotRequired[int]  # dwrr only


class Qos(TypedDict, total=False):
    trust: str
    dscp_to_tc: dict[str, int]
    tc_to_queue: dict[str, int]
    tc_to_priority_group: dict[str, int]
    tc_to_priority: dict[str, int]
    classes: list[QosClass]
    lossless_priorities: list[int]
    cnp: Cnp
    pfc_watchdog: PfcWatchdog
    scheduling: dict[str, QueueScheduling]  # egress queue -> scheduling


class Aaa(TypedDict):
    tacacs_servers: list[str]
    secret_ref: str  # a reference the push driver resolves, never a secret


class NtpOptions(TypedDict):
    iburst: bool
    prefer: bool


class Management(TypedDict, total=False):
    interface: str
    vrf: str
    address: str | None  # null without an inventory mgmt_ip (ZTP/DHCP address kept)
    gateway: str
    ntp_servers: list[str]
    syslog_servers: list[str]
    dns_servers: list[str]
    aaa: Aaa | None
    ntp_options: NotRequired[dict[str, NtpOptions]]  # foreign configs: server -> options other than iburst alone


class SystemPort(TypedDict):
    linecard: str
    asic: str
    port: str  # the port's name on its ASIC (Ethernet0; the ASIC's own CPU port: Asic0)
    system_port_id: int  # chassis-wide number every ASIC queues toward (VOQ)
    switch_id: int
    core_index: int
    core_port_index: int
    speed_mbps: int


class QueueMonitorLength(TypedDict):
    log_interval_s: int | None
    notifying: bool


class Daemon(TypedDict):
    name: str
    exec: str | None  # the agent's command line; null when it carries a secret (that line stays unmodelled)
    enabled: bool


class VlanInternalOrder(TypedDict):
    allocation: str  # ascending | descending
    beginning: int
    ending: int


class System(TypedDict):
    aaa_root: bool | None  # false: `no aaa root`
    enable_password: bool | None  # false: `no enable password`
    transceiver_qsfp_default_mode: str | None
    snmp_location: str | None
    snmp_contact: str | None
    queue_monitor_length: QueueMonitorLength | None
    daemons: list[Daemon]
    speed_groups: dict[str, str]  # port group -> SerDes rate (`hardware speed-group 1 serdes 10G`)
    tcam_profile: str | None  # `hardware tcam` / `system profile vxlan-routing`
    sand_lag_hardware_only: bool  # `platform sand lag hardware-only`
    # `vlan internal order ascending range 1006 1199` as the device states it; null: not stated (EOS's default)
    vlan_internal_order: VlanInternalOrder | None


class BfdTimers(TypedDict):
    interval_ms: int
    min_rx_ms: int
    multiplier: int


class Bfd(TypedDict):
    single_hop: BfdTimers | None
    multihop: BfdTimers | None


class UdpPayloadHash(TypedDict):
    dst_port: int  # hash UDP packets to this destination port ...
    payload_bytes: str  # ... on these payload byte positions ("5-7": the BTH destination QP)


class LoadBalance(TypedDict):
    """RoCE-aware ECMP hashing (feature ecmp_hashing); present only where the intent asks for some."""

    ecmp_hash_function: str | None  # SAI/SONiC algorithm name (CRC_32LO, CRC_32HI, CRC_CCITT), None: default
    ecmp_hash_fields: list[str] | None  # SONiC native hash fields stated with the function
    ecmp_hash_seed: int | None  # this switch's own ECMP hash seed (FRR/Linux: fib_multipath_hash_seed)
    udp_payload_hash: UdpPayloadHash | None


class StructuredConfig(TypedDict):
    hostname: str
    role: str
    platform: str
    model: str
    system_mac: str | None  # the inventory's base MAC; None when unknown (never invented)
    hardware: Hardware
    asn: int
    router_id: str
    mtu: Mtu
    loopbacks: list[Loopback]
    interfaces: list[Interface]
    bgp: Bgp
    vlans: list[Vlan]
    vrfs: list[Vrf]
    vxlan: Vxlan
    qos: Qos
    management: Management
    port_channels: NotRequired[list[PortChannel]]
    mlag: NotRequired[Mlag]
    spanning_tree: NotRequired[SpanningTree]
    igp: NotRequired[Igp]  # foreign configs: an OSPF or IS-IS underlay (compiler/parse/igp.py)
    static_routes: NotRequired[list[StaticRoute]]  # default VRF IPv4 static routes (validators/deadlock.py follows them)
    system_ports: NotRequired[list[SystemPort]]  # foreign SONiC configs: a VOQ chassis's SYSTEM_PORT rows
    system: NotRequired[System]  # foreign EOS configs: device-wide settings (compiler/parse/eos_system.py)
    bfd: NotRequired[Bfd]  # foreign EOS configs: `router bfd` timers
    load_balance: NotRequired[LoadBalance]  # RoCE-aware ECMP hashing (structured/ecmp_hashing.py)
