"""Host config: what every GPU server's NICs must be set to so RoCE stays lossless from NIC to NIC.

One :class:`HostConfig` per server, vendor-neutral, derived from the same fabric QoS policy the switches get
(:func:`compiler.structured.qos_policy.build_fabric_qos`), the inventory (cable lengths, NIC speeds, rails, the
server model's NIC family and PCIe slot) and the host addresses (:mod:`compiler.hosts`). The host renderers
(:mod:`compiler.render.hosts`) only print it; the parsers (:mod:`compiler.parse.hosts`) read a host's state back
into the same :class:`NicConfig` shape, so the checks (:mod:`validators.hosts`) judge intended and read-back state
alike. A field is None when the NIC family cannot set it (:data:`compiler.nics.NIC_CAPABILITIES`) or the state
read back did not include it.

Values and their sources:

* trust DSCP: RoCEv2 is routed; 802.1p does not survive an L3 hop (the switch side trusts DSCP too).
* DSCP -> priority: every class DSCP to its class priority, the CNP DSCP to the CNP priority. Unlisted DSCPs keep
  the NIC default ``priority = DSCP >> 3`` (the mlx5 default dscp2prio table as ``mlnx_qos`` prints it: DSCP 0-7
  to priority 0, 8-15 to 1, ...; the class-selector rule of RFC 2474 section 4.2.2).
* PFC: exactly the switch's lossless priorities (IEEE 802.1Qbb; the two ends of a link must agree).
* priority -> TC and ETS bandwidth: the priority's switch traffic class, the switch queue's DWRR weight; the CNP
  class strict (the same scheduling as the switch egress, compiler.structured.qos_policy).
* cable length: the inventory cable, rounded up to whole metres (``mlnx_qos --cable_len`` takes metres and sizes
  the NIC's receive headroom with it, like the switch's headroom).
* ECN: DCQCN reaction point (the sender slows down on CNPs) and notification point (the receiver sends CNPs on
  CE-marked packets) on each lossless priority whose class has ECN thresholds; a lossless class without
  thresholds is PFC-only, as some operators run 400G fabrics, and asks for neither.
* RoCE ToS = DSCP << 2 (the DSCP sits in the upper six bits of the IPv4 ToS byte, RFC 2474 section 3); the two
  ECN bits stay 0 because the NIC sets ECT itself when DCQCN is on (RFC 3168 section 5). 104 is DSCP 26; 106 is
  the same DSCP with ECT(0), which a check accepts.
* RoCE v2 (routable RoCE, InfiniBand Trade Association Annex A17).
* global pause off: IEEE 802.3x link pause and PFC are mutually exclusive on a port (802.1Qbb clause 36.1.3).
* MTU: the intent's host MTU; RoCE picks the largest InfiniBand MTU (256..4096) that fits the netdev MTU minus
  the RoCE headers, so RoCE MTU 4096 needs a netdev MTU of at least 4,192 (:func:`roce_mtu`).
* NCCL environment (NCCL documentation, "Environment Variables"): NCCL_IB_HCA lists the RDMA devices of the rails,
  NCCL_IB_TC the RoCE class ToS, NCCL_IB_FIFO_TC the ToS of NCCL's control (CTS FIFO) messages, kept in the
  lossless class, NCCL_IB_GID_INDEX 3 (the IPv4-mapped RoCE v2 GID of the first address on mlx5 and bnxt_re),
  NCCL_IB_ROCE_VERSION_NUM 2 and NCCL_IB_QPS_PER_CONNECTION from the intent's ecmp_hashing.qps_per_connection,
  default 4 (more QPs, more ECMP entropy: NCCL docs advise
  more than one QP per connection on RoCE fabrics with ECMP).
* GID table: not set by us, the kernel fills it (:func:`kernel_gid_table`); NCCL_IB_GID_INDEX 3 must name the
  RoCE v2 GID of the NIC's rail address there (validators.hosts ``hosts.gid``).

Pure Python; never imports Django.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass

from compiler.hosts import HostAddress, host_addresses
from compiler.model import Endpoint, RoceClass, Server, Snapshot
from compiler.natural import natural_key
from compiler.nics import NIC_MODELS, NicFamily, NicFeature, nic_capabilities, server_model
from compiler.structured.qos_policy import FabricQos, build_fabric_qos

PRIORITIES = 8  # IEEE 802.1Q priorities / NIC traffic classes
ROCE_HEADER_BYTES = 96  # netdev MTU - this >= IB MTU (the mlx5/bnxt_re rule: 4096 + 96 = 4192)
IB_MTUS = (256, 512, 1024, 2048, 4096)  # InfiniBand Architecture Specification vol. 1, 7.7.1 (IBA MTU)
NCCL_GID_INDEX = 3
NCCL_ROCE_VERSION = 2
NCCL_QPS_PER_CONNECTION = 4
NCCL_DEFAULT_TC = 0  # NCCL_IB_TC unset: traffic class 0 (NCCL docs), i.e. DSCP 0, best effort


def roce_mtu(netdev_mtu: int) -> int:
    """The RoCE (InfiniBand) MTU a netdev MTU allows: the largest IB MTU <= netdev MTU - 96 (0: none fits)."""
    fitting = [mtu for mtu in IB_MTUS if mtu + ROCE_HEADER_BYTES <= netdev_mtu]
    return fitting[-1] if fitting else 0


# RoCE GID types as sysfs prints them (kernel Documentation/ABI/stable/sysfs-class-infiniband,
# ports/<port>/gid_attrs/types/<index>: "IB/RoCE v1" or "RoCE v2" for UDP-encapsulated, routable GIDs).
GID_ROCE_V1 = "IB/RoCE v1"
GID_ROCE_V2 = "RoCE v2"
GID_TYPES = (GID_ROCE_V1, GID_ROCE_V2)
DEFAULT_GID = "fe80::(from the MAC)"  # the link-local default GID (EUI-64 of the netdev MAC, RFC 4291 2.5.1)


@dataclass(frozen=True, slots=True)
class GidEntry:
    """One entry of a RoCE port's GID table (/sys/class/infiniband/<dev>/ports/1/gids/<index> and gid_attrs)."""

    index: int
    gid: str  # as sysfs prints it (8 groups of 4 hex digits), or DEFAULT_GID in the modelled table
    roce_type: str  # GID_ROCE_V1 | GID_ROCE_V2
    netdev: str

    @property
    def ipv4(self) -> str | None:
        """The IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d, RFC 4291 2.5.5.2), else None."""
        try:
            mapped = ipaddress.IPv6Address(self.gid).ipv4_mapped
        except ValueError:
            return None
        return str(mapped) if mapped is not None else None


def kernel_gid_table(netdev: str, addresses: tuple[str, ...]) -> tuple[GidEntry, ...]:
    """The GID table the kernel builds for a RoCE port whose netdev holds ``addresses`` (in the order added):
    the default link-local GID first, once per GID type (drivers/infiniband/core/cache.c reserves the default
    GIDs at the start of the table), then each IP address once per GID type, an IPv4 address as an IPv4-mapped
    GID (core/roce_gid_mgmt.c). So a NIC with one IPv4 address has its RoCE v2 IPv4 GID at index 3, the value
    NCCL_IB_GID_INDEX=3 relies on; ``ibv_devinfo -v`` / ``show_gids`` print the same order (e.g. Juniper's AI
    data-center JVD, "How to run a NCCL test using autoconfigured IPv6 addresses": GID[0] fe80 v1, [1] fe80 v2,
    [2] ::ffff:IPv4 v1, [3] ::ffff:IPv4 v2, [4]/[5] a global IPv6 address)."""
    entries = [GidEntry(0, DEFAULT_GID, GID_ROCE_V1, netdev), GidEntry(1, DEFAULT_GID, GID_ROCE_V2, netdev)]
    for address in addresses:
        ip = ipaddress.ip_interface(address).ip
        gid = f"::ffff:{ip}" if ip.version == 4 else str(ip)
        for roce_type in GID_TYPES:
            entries.append(GidEntry(len(entries), gid, roce_type, netdev))
    return tuple(entries)


def nic_planes(server: Server) -> dict[str, int]:
    """NIC port -> network plane on a server whose NICs are split over planes: a rail's ports in name order are
    its planes 0, 1, ... (one PF per plane, compiler.nics.MultiplaneMode)."""
    by_rail: dict[int, list[str]] = {}
    for nic in server.nics:
        by_rail.setdefault(nic.rail, []).append(nic.name)
    return {name: index for names in by_rail.values() for index, name in enumerate(sorted(names, key=natural_key))}


def dscp_of_tos(tos: int) -> int:
    """The DSCP in a ToS byte (RFC 2474: the upper six bits; the lower two are ECN)."""
    return tos >> 2


@dataclass(frozen=True, slots=True)
class NicConfig:
    """One NIC port's RoCE/QoS/addressing state (intended or read back)."""

    server: str
    name: str  # netdev: eth0
    rdma_device: str  # mlx5_0, bnxt_re0, irdma0
    rail: int
    family: str  # compiler.nics.NicFamily
    nic_model: str
    speed_gbps: int
    mtu: int
    pcie_gen: int | None = None
    pcie_lanes: int | None = None
    trust: str | None = None  # "dscp" | "pcp"
    dscp_to_priority: tuple[tuple[int, int], ...] = ()  # explicit entries, sorted by DSCP
    pfc_priorities: tuple[int, ...] | None = None
    priority_to_tc: tuple[int, ...] | None = None  # 8 entries
    tc_bandwidth: tuple[int, ...] | None = None  # 8 ETS percentages
    tc_strict: tuple[int, ...] | None = None  # TCs served strict priority
    cable_length_m: int | None = None
    ecn_rp: tuple[int, ...] | None = None  # priorities with the DCQCN reaction point on
    ecn_np: tuple[int, ...] | None = None  # priorities with the DCQCN notification point on
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    roce_mode: str | None = None  # "v1" | "v2"
    roce_tos: int | None = None
    global_pause: bool | None = None  # IEEE 802.3x pause (rx or tx) on
    addresses: tuple[str, ...] = ()  # "10.100.0.2/24"
    gateway: str | None = None
    leaf: str = ""  # the switch port it is cabled to ("" when not cabled)
    leaf_interface: str = ""
    # The RoCE GID table read back from the host (None: not read; the intended state models it from the addresses
    # with kernel_gid_table, since the kernel, not us, fills it)
    gid_table: tuple[GidEntry, ...] | None = None

    def priority_of(self, dscp: int) -> int:
        """The priority the NIC gives ``dscp``: its explicit entry, else the default DSCP >> 3."""
        for mapped, priority in self.dscp_to_priority:
            if mapped == dscp:
                return priority
        return dscp >> 3

    @property
    def endpoint(self) -> Endpoint:
        return Endpoint(self.server, self.name)


@dataclass(frozen=True, slots=True)
class HostConfig:
    server: str
    model: str  # the server model used ("" when the catalogue has none for it)
    nics: tuple[NicConfig, ...]
    nccl_env: tuple[tuple[str, str], ...]  # NCCL environment, in file order

    @property
    def nccl(self) -> dict[str, str]:
        return dict(self.nccl_env)


@dataclass(frozen=True)
class HostPolicy:
    """The fabric-wide host settings, computed once from the intent (the same for every NIC)."""

    dscp_to_priority: tuple[tuple[int, int], ...]
    pfc_priorities: tuple[int, ...]
    priority_to_tc: tuple[int, ...]
    tc_bandwidth: tuple[int, ...]
    tc_strict: tuple[int, ...]
    ecn_priorities: tuple[int, ...]
    cnp_dscp: int | None
    cnp_priority: int | None
    roce_tos: int | None
    fifo_tos: int | None
    host_mtu: int
    # NCCL_IB_QPS_PER_CONNECTION: the intent's ecmp_hashing.qps_per_connection (what collective.bottleneck
    # recommends; default 4).
    qps_per_connection: int = NCCL_QPS_PER_CONNECTION


def _roce_class(classes: tuple[RoceClass, ...]) -> RoceClass | None:
    """The class NCCL traffic rides: the first lossless class (by traffic class, name), else the first class."""
    ordered = sorted(classes, key=lambda roce: (not roce.lossless, roce.traffic_class, natural_key(roce.name)))
    return ordered[0] if ordered else None


def host_policy(snapshot: Snapshot, qos: FabricQos | None = None) -> HostPolicy:
    intent = snapshot.intent
    if not intent.roce_classes:
        return HostPolicy((), (), (0,) * PRIORITIES, (100,) + (0,) * (PRIORITIES - 1), (), (), None, None, None,
                          None, intent.host_mtu, intent.ecmp_hashing.qps_per_connection)
    qos = qos or build_fabric_qos(intent)
    policy = qos.policy
    dscp_to_priority = {int(dscp): policy["tc_to_priority"][str(tc)] for dscp, tc in policy["dscp_to_tc"].items()}
    priority_tc = dict.fromkeys(range(PRIORITIES), 0)
    for tc, priority in policy["tc_to_priority"].items():
        priority_tc[priority] = int(tc)
    weights = [0] * PRIORITIES
    strict = []
    for queue, entry in policy["scheduling"].items():
        if entry["mode"] == "strict":
            strict.append(int(queue))
        else:
            weights[int(queue)] = entry["weight_percent"]
    if sum(weights) and sum(weights) != 100:  # integer shares: give the remainder to the lowest weighted TC
        first = next(tc for tc, weight in enumerate(weights) if weight)
        weights[first] += 100 - sum(weights)
    ecn = sorted({roce.priority for roce in intent.roce_classes if roce.lossless and roce.ecn_max_kb > 0})
    cnp = policy["cnp"]
    roce = _roce_class(intent.roce_classes)
    tos = min(roce.dscp) << 2 if roce is not None and roce.dscp else None
    return HostPolicy(
        dscp_to_priority=tuple(sorted(dscp_to_priority.items())),
        pfc_priorities=tuple(policy["lossless_priorities"]),
        priority_to_tc=tuple(priority_tc[p] for p in range(PRIORITIES)),
        tc_bandwidth=tuple(weights), tc_strict=tuple(sorted(strict)), ecn_priorities=tuple(ecn),
        cnp_dscp=cnp.get("dscp"), cnp_priority=cnp.get("priority"), roce_tos=tos, fifo_tos=tos,
        host_mtu=intent.host_mtu, qps_per_connection=intent.ecmp_hashing.qps_per_connection,
    )


def build_host_configs(snapshot: Snapshot, policy: HostPolicy | None = None) -> dict[str, HostConfig]:
    """Every server's host config, in server name order."""
    policy = policy or host_policy(snapshot)
    inventory = snapshot.inventory
    by_endpoint: dict[Endpoint, list[HostAddress]] = {}
    for address in host_addresses(snapshot):
        by_endpoint.setdefault(address.endpoint, []).append(address)
    cable_at = inventory.cable_at
    configs: dict[str, HostConfig] = {}
    roce = bool(snapshot.intent.roce_classes)
    for server in sorted(inventory.servers, key=lambda s: natural_key(s.name)):
        first_speed = server.nics[0].speed_gbps if server.nics else 0
        model = server_model(server.model, first_speed)
        nic_model = NIC_MODELS[model.nic_model] if model is not None else None
        family = nic_model.family if nic_model is not None else NicFamily.LINUX_DCB
        can = nic_capabilities(family)
        prefix = nic_model.rdma_prefix if nic_model is not None else "rdma"
        nics = []
        for index, nic in enumerate(sorted(server.nics, key=lambda n: (n.rail, natural_key(n.name)))):
            endpoint = Endpoint(server.name, nic.name)
            cable = cable_at.get(endpoint)
            peer = cable.other_end(endpoint) if cable is not None else None
            addresses = by_endpoint.get(endpoint, ())
            gen = min(nic_model.pcie_gen, model.slot_pcie_gen) if nic_model and model else None
            lanes = min(nic_model.pcie_lanes, model.slot_pcie_lanes) if nic_model and model else None
            nics.append(NicConfig(
                server=server.name, name=nic.name, rdma_device=f"{prefix}{index}", rail=nic.rail, family=family,
                nic_model=nic_model.name if nic_model else "", speed_gbps=nic.speed_gbps, mtu=policy.host_mtu,
                pcie_gen=gen, pcie_lanes=lanes,
                trust="dscp" if roce and NicFeature.TRUST in can else None,
                dscp_to_priority=policy.dscp_to_priority if NicFeature.DSCP_PRIORITY in can else (),
                pfc_priorities=policy.pfc_priorities if roce and NicFeature.PFC in can else None,
                priority_to_tc=policy.priority_to_tc if roce and NicFeature.ETS in can else None,
                tc_bandwidth=policy.tc_bandwidth if roce and NicFeature.ETS in can else None,
                tc_strict=policy.tc_strict if roce and NicFeature.ETS in can else None,
                cable_length_m=(math.ceil(cable.length_m) if cable is not None and roce
                                and NicFeature.CABLE_LENGTH in can else None),
                ecn_rp=policy.ecn_priorities if roce and NicFeature.ECN in can else None,
                ecn_np=policy.ecn_priorities if roce and NicFeature.ECN in can else None,
                cnp_dscp=policy.cnp_dscp if NicFeature.CNP in can else None,
                cnp_priority=policy.cnp_priority if NicFeature.CNP in can else None,
                roce_mode="v2" if roce and NicFeature.ROCE_MODE in can else None,
                roce_tos=policy.roce_tos if NicFeature.ROCE_TOS in can else None,
                global_pause=False if roce and NicFeature.GLOBAL_PAUSE in can else None,
                addresses=tuple(address.address for address in addresses),
                gateway=next((address.gateway for address in addresses if address.gateway), None),
                leaf=peer.device if peer is not None else "", leaf_interface=peer.interface if peer is not None else "",
            ))
        configs[server.name] = HostConfig(server=server.name, model=model.name if model else "", nics=tuple(nics),
                                          nccl_env=nccl_env(tuple(nics), policy) if roce else ())
    return configs


def nccl_env(nics: tuple[NicConfig, ...], policy: HostPolicy) -> tuple[tuple[str, str], ...]:
    env = [("NCCL_IB_HCA", "=" + ",".join(f"{nic.rdma_device}:1" for nic in nics))]  # "=": exact names, port 1
    if policy.roce_tos is not None:
        env.append(("NCCL_IB_TC", str(policy.roce_tos)))
    if policy.fifo_tos is not None:
        env.append(("NCCL_IB_FIFO_TC", str(policy.fifo_tos)))
    env += [("NCCL_IB_GID_INDEX", str(NCCL_GID_INDEX)), ("NCCL_IB_ROCE_VERSION_NUM", str(NCCL_ROCE_VERSION)),
            ("NCCL_IB_QPS_PER_CONNECTION", str(policy.qps_per_connection))]
    return tuple(env)
