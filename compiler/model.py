"""The frozen snapshot the pure core works on.

Everything the compiler and the validators know about a fabric arrives here, as immutable dataclasses:
the physical inventory (racks, switch models, switches, interfaces, optics, cables, servers), the intent
(underlay/overlay design, tenants, networks, RoCE classes) and the stored allocations (ASNs, addresses,
VNIs). The Django side builds a Snapshot in exactly one place (``intents/adapters.py``); tests and
benchmarks build one with :mod:`compiler.clos` without a database.

Units: speeds in Gb/s, lengths in metres, MTUs in bytes (L3 MTU as configured on the port), buffers in bytes.
This module never imports Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from ipaddress import IPv4Network
from types import MappingProxyType


class Role:
    SPINE = "spine"
    LEAF = "leaf"
    SUPER_SPINE = "super-spine"
    BORDER = "border"
    ALL = (SPINE, LEAF, SUPER_SPINE, BORDER)


class Platform:
    EOS = "eos"
    SONIC = "sonic"
    FRR = "frr"
    ALL = (EOS, SONIC, FRR)


# Peer links (MLAG on EOS, MC-LAG/ICCP on SONiC, bonding + a peer on FRR/Linux) are modelled on no platform:
# validate_intent and render_device both refuse them with this text.
PEER_LINK_REFUSED = "MLAG peer links are not supported"
PLATFORM_LABEL = {Platform.EOS: "EOS", Platform.SONIC: "SONiC", Platform.FRR: "FRR/Linux"}


class Underlay:
    NUMBERED = "numbered"  # /31 per fabric link
    UNNUMBERED = "unnumbered"  # BGP over IPv6 link-local (RFC 5549); FRR and SONiC only
    ALL = (NUMBERED, UNNUMBERED)


class AsnScheme:
    PER_LEAF = "per_leaf"
    PER_RACK = "per_rack"
    ALL = (PER_LEAF, PER_RACK)


class CableType:
    DAC = "dac"
    AOC = "aoc"
    SMF = "smf"  # single-mode fibre
    MMF = "mmf"  # multi-mode fibre
    ALL = (DAC, AOC, SMF, MMF)


EMPTY_MAP: Mapping = MappingProxyType({})


# --------------------------------------------------------------------------------------------- inventory


@dataclass(frozen=True, slots=True)
class SwitchModelSpec:
    name: str
    vendor: str
    asic: str
    port_count: int
    max_speed_gbps: int
    form_factor: str  # port cage: OSFP, QSFP-DD, QSFP112, QSFP28
    breakout_modes: tuple[str, ...] = ()  # e.g. ("1x800G", "2x400G", "4x200G")
    buffer_mb: float = 0.0
    typical_power_w: float = 0.0


@dataclass(frozen=True, slots=True)
class Rack:
    name: str
    site: str = ""
    row: str = ""
    position: int = 0
    height_u: int = 42
    power_budget_kw: float = 0.0


@dataclass(frozen=True, slots=True)
class Optic:
    form_factor: str  # QSFP-DD, OSFP, QSFP28, QSFP112
    media: str  # 400G-DR4, 400G-FR4, 800G-2xDR4, 400G-SR8, 400G-DAC, 400G-AOC ...
    speed_gbps: int
    reach_m: float
    vendor: str = ""
    part_number: str = ""
    serial: str = ""


@dataclass(frozen=True, slots=True)
class Interface:
    name: str
    speed_gbps: int
    mtu: int = 9214
    enabled: bool = True
    description: str = ""
    breakout_parent: str | None = None
    lane: int | None = None
    optic: Optic | None = None


@dataclass(frozen=True)
class Switch:
    hostname: str
    role: str
    platform: str
    model: str
    interfaces: tuple[Interface, ...] = ()
    rack: str | None = None
    u_position: int | None = None
    os_version: str = ""
    mgmt_ip: str | None = None
    serial: str = ""
    status: str = "planned"
    plane: int = 0  # spine plane (multi-plane fabrics); leaves ignore it; in a 5-stage Clos spine k and the
    # super-spines it connects to are plane k-1 (compiler.clos.plan_pods)
    pod: int = 0  # 5-stage Clos: pod number from 1 (spines and leaves); 0 = not in a pod (2-tier, super-spines)
    # The switch's own base MAC (read from the device or NetBox; compiler.hardware.base_mac_problem), None when
    # unknown: then no config we push states one (the platform keeps its own).
    base_mac: str | None = None

    @cached_property
    def interfaces_by_name(self) -> Mapping[str, Interface]:
        return {interface.name: interface for interface in self.interfaces}


@dataclass(frozen=True, slots=True)
class NicPort:
    name: str  # eth0, eth1 ...
    rail: int
    speed_gbps: int
    mtu: int = 9000
    optic: Optic | None = None


@dataclass(frozen=True)
class Server:
    name: str
    nics: tuple[NicPort, ...] = ()
    rack: str | None = None
    u_position: int | None = None
    gpu_count: int = 8
    power_w: float = 0.0
    mgmt_ip: str | None = None
    serial: str = ""
    model: str = ""  # server model in compiler.nics.SERVER_MODELS ("" = the default for its NIC speed)

    @cached_property
    def nics_by_name(self) -> Mapping[str, NicPort]:
        return {nic.name: nic for nic in self.nics}


@dataclass(frozen=True, slots=True, order=True)
class Endpoint:
    """One end of a cable: a switch interface or a server NIC port."""

    device: str
    interface: str

    def __str__(self) -> str:
        return f"{self.device}:{self.interface}"


@dataclass(frozen=True, slots=True)
class Cable:
    label: str
    a: Endpoint
    b: Endpoint
    cable_type: str
    length_m: float
    status: str = "planned"
    peer_link: bool = False  # leaf<->leaf links are only legal when marked as a peer link

    def other_end(self, endpoint: Endpoint) -> Endpoint:
        return self.b if endpoint == self.a else self.a


@dataclass(frozen=True, slots=True)
class MissingLink:
    """A port the source of truth (NetBox) says is cabled, whose link could not be imported (``--allow-missing-links``):
    the physical checks report it as an error until the port is cabled in the inventory."""

    endpoint: Endpoint
    source: str  # e.g. "netbox cable BO-1 (id 17)"
    reason: str


@dataclass(frozen=True)
class Inventory:
    fabric: str
    switches: tuple[Switch, ...] = ()
    servers: tuple[Server, ...] = ()
    cables: tuple[Cable, ...] = ()
    racks: tuple[Rack, ...] = ()
    switch_models: tuple[SwitchModelSpec, ...] = ()
    missing_links: tuple[MissingLink, ...] = ()  # cabled in the source of truth, not importable (see MissingLink)

    @cached_property
    def switches_by_name(self) -> Mapping[str, Switch]:
        return {switch.hostname: switch for switch in self.switches}

    @cached_property
    def servers_by_name(self) -> Mapping[str, Server]:
        return {server.name: server for server in self.servers}

    @cached_property
    def racks_by_name(self) -> Mapping[str, Rack]:
        return {rack.name: rack for rack in self.racks}

    @cached_property
    def models_by_name(self) -> Mapping[str, SwitchModelSpec]:
        return {model.name: model for model in self.switch_models}

    @cached_property
    def cable_at(self) -> Mapping[Endpoint, Cable]:
        """Endpoint -> the cable plugged into it (both ends are indexed)."""
        index: dict[Endpoint, Cable] = {}
        for cable in self.cables:
            index[cable.a] = cable
            index[cable.b] = cable
        return index

    def role_of(self, device: str) -> str:
        """'server' for servers, the switch role otherwise."""
        switch = self.switches_by_name.get(device)
        if switch is not None:
            return switch.role
        return "server" if device in self.servers_by_name else "unknown"

    def switches_with_role(self, role: str) -> tuple[Switch, ...]:
        return tuple(switch for switch in self.switches if switch.role == role)


# --------------------------------------------------------------------------------------------- intent


@dataclass(frozen=True, slots=True)
class BgpPolicy:
    maximum_paths: int = 64
    keepalive_s: int = 3
    hold_s: int = 9
    bfd: bool = True
    bfd_interval_ms: int = 300
    bfd_multiplier: int = 3


@dataclass(frozen=True, slots=True)
class Pools:
    loopback: str = "10.0.0.0/22"  # router-id loopbacks (/32 each)
    vtep: str = "10.0.4.0/22"  # VTEP loopbacks (/32 each, leaves only)
    p2p: str = "10.1.0.0/16"  # fabric links (/31 each)
    asn_first: int = 65100  # leaf ASN range (private 2-byte range by default, RFC 6996)
    asn_last: int = 65499
    spine_asn: int = 65000  # spines of plane p use spine_asn + p
    l2vni_base: int = 10000  # a network's L2VNI defaults to l2vni_base + vlan_id
    l3vni_first: int = 50001
    l3vni_last: int = 50999


class RouteTargetScheme:
    AUTO = "auto"  # FRR/EOS auto RT: <asn>:<vni>, leaves import with wildcard ASN where supported
    VNI = "vni"  # explicit <vni>:<vni> on every leaf (works across per-leaf ASNs on every platform)
    ALL = (AUTO, VNI)


@dataclass(frozen=True, slots=True)
class Tenant:
    name: str
    vrf: str
    l3vni: int | None = None  # None: allocated from the L3VNI range; a tenant without L3 routing sets none


@dataclass(frozen=True, slots=True)
class Network:
    name: str
    tenant: str
    vlan_id: int
    subnet: str  # IPv4 prefix, e.g. 10.10.0.0/24
    gateway: str | None = None  # anycast gateway IP inside subnet (None: L2-only)
    l2vni: int | None = None  # None: allocated as pools.l2vni_base + vlan_id
    leaves: tuple[str, ...] = ()  # empty: every leaf
    attachments: tuple[Endpoint, ...] = ()  # server NIC ports that sit in this network (access ports)


@dataclass(frozen=True, slots=True)
class RoceClass:
    name: str
    dscp: tuple[int, ...]
    priority: int  # 802.1p priority / PFC priority
    traffic_class: int  # switch traffic class == egress queue
    lossless: bool
    ecn_min_kb: int = 0  # WRED/ECN minimum threshold
    ecn_max_kb: int = 0  # WRED/ECN maximum threshold
    ecn_mark_probability: int = 0  # percent at max threshold
    cnp_dscp: int | None = None  # DCQCN congestion notification packets
    cnp_priority: int | None = None
    pfc_watchdog: bool = True
    watchdog_detect_ms: int = 200
    watchdog_restore_ms: int = 400
    headroom_policy: str = "dynamic"  # dynamic: computed per port from speed+cable; static: headroom_bytes
    headroom_bytes: int = 0


@dataclass(frozen=True)
class Management:
    """The out-of-band management plane every switch gets (structured key ``management``).

    ``network`` is the management subnet the inventory's ``Switch.mgmt_ip`` addresses come from (the planner's
    ``mgmt_pool``): it gives the address its prefix length, and ``gateway`` (default: the subnet's last host) the
    management VRF's default route. Servers are IP addresses (NTP servers may be host names). Secrets are never stored here: AAA names a secret by
    reference only (``aaa_secret_ref``, resolved by the push driver).
    """

    network: str = "172.16.0.0/16"
    gateway: str | None = None
    vrf: str = "mgmt"
    ntp_servers: tuple[str, ...] = ()
    syslog_servers: tuple[str, ...] = ()
    dns_servers: tuple[str, ...] = ()
    aaa_servers: tuple[str, ...] = ()  # TACACS+ servers
    aaa_secret_ref: str = ""  # e.g. "vault:secret/fabric/tacacs" (a reference, never the secret)

    def gateway_address(self) -> str:
        """``gateway``, or the network's last host: the builder numbers switches from the bottom of the pool
        (spine1 is 172.16.0.1), so the top is the free end (172.16.255.254 in the default /16)."""
        return self.gateway or str(IPv4Network(self.network, strict=False).broadcast_address - 1)


class TierHashing:
    """How the ECMP hash of one tier is kept apart from the next (docs/collective.md: two tiers hashing alike leave
    uplinks idle)."""

    DEFAULT = "default"  # the platform's default hash on every switch
    # A different hash function per tier (leaf, spine, super-spine): what decorrelates CRC tiers, whose seed is only
    # an XOR constant (validators.collective.hashing; tests/validators/test_collective_ladder.py).
    DISTINCT_FUNCTIONS = "distinct_functions"
    # A different seed per switch: decorrelates a keyed hash (the ladder: polarization 1.00 -> 0.00).
    DISTINCT_SEEDS = "distinct_seeds"
    ALL = (DEFAULT, DISTINCT_FUNCTIONS, DISTINCT_SEEDS)


@dataclass(frozen=True)
class EcmpHashing:
    """RoCE-aware load balancing the fabric asks of its switches and hosts (issue #32 item 4; what
    ``collective.bottleneck`` recommends). validate_intent refuses a switch whose platform cannot express a
    requested feature (compiler.hardware.HASHING_CAPABILITIES)."""

    tier_hashing: str = TierHashing.DEFAULT
    dest_qp_hashing: bool = False  # hash the RoCE BTH destination QP (a UDP-payload UDF) besides the 5-tuple
    dlb: bool = False  # dynamic (flowlet / port-load aware) load balancing on ECMP groups
    # The switch roles the switch features above apply to (empty: every role). A mixed fabric can ask for what only
    # one tier's platform expresses, e.g. destination-QP hashing on Jericho spines above Tomahawk leaves.
    roles: tuple[str, ...] = ()
    # NCCL_IB_QPS_PER_CONNECTION in every host's nccl.env: more QPs, more source ports, more ECMP entropy (NCCL
    # documentation, "Environment Variables"; Meta SIGCOMM 2024 section 5). 4 is what the host renderer always set.
    qps_per_connection: int = 4

    def applies_to(self, role: str) -> bool:
        return not self.roles or role in self.roles


@dataclass(frozen=True)
class FabricIntent:
    name: str
    inventory_fabric: str
    underlay: str = Underlay.NUMBERED
    asn_scheme: str = AsnScheme.PER_LEAF
    pools: Pools = field(default_factory=Pools)
    route_target_scheme: str = RouteTargetScheme.VNI
    underlay_mtu: int = 9214
    host_mtu: int = 9000
    bgp: BgpPolicy = field(default_factory=BgpPolicy)
    anycast_gateway_mac: str = "00:1c:73:00:00:99"
    tenants: tuple[Tenant, ...] = ()
    networks: tuple[Network, ...] = ()
    roce_classes: tuple[RoceClass, ...] = ()
    management: Management = field(default_factory=Management)
    # The EVPN overlay (the EVPN address family, a VXLAN interface on every VTEP) even where no tenant or network
    # is placed: a fabric adopted while its VNIs are all carried, or run before its first tenant. False: the
    # overlay follows the tenants and networks (the VTEPs that carry one).
    evpn_overlay: bool = False
    ecmp_hashing: EcmpHashing = field(default_factory=EcmpHashing)


# --------------------------------------------------------------------------------------------- allocations


@dataclass(frozen=True)
class Allocations:
    """Stored, stable allocations. Keys are hostnames, cable labels, network or tenant names."""

    asns: Mapping[str, int] = field(default_factory=dict)
    loopbacks: Mapping[str, str] = field(default_factory=dict)  # hostname -> "10.0.0.1"
    vteps: Mapping[str, str] = field(default_factory=dict)  # leaf hostname -> "10.0.4.1"
    p2p: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # cable label -> (a end "x/31", b end)
    l2vnis: Mapping[str, int] = field(default_factory=dict)  # network name -> VNI
    l3vnis: Mapping[str, int] = field(default_factory=dict)  # tenant name -> VNI

    __hash__ = None  # type: ignore[assignment]  # holds mappings: unhashable on purpose


@dataclass(frozen=True)
class Snapshot:
    inventory: Inventory
    intent: FabricIntent
    allocations: Allocations = field(default_factory=Allocations)

    __hash__ = None  # type: ignore[assignment]  # holds mappings: unhashable on purpose
