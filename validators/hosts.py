"""Host <-> switch checks: every server NIC's RoCE/QoS/MTU state against the switch port it is cabled to.

The lossless proof of validators.roce stops at the switch port; these checks carry it to the NIC, on every
server link, so the static proof runs NIC -> leaf -> ... -> leaf -> NIC. The NIC side is the host config the
compiler derives (:mod:`compiler.host_config`) or, when given, the state read back from the servers
(``ValidationInput.hosts``, parsed by :mod:`compiler.parse.hosts`). The switch side is the leaf's structured
config (its QoS policy and the server port), the cable is the inventory's. Every failure names the server, the
NIC, the switch port, the expected and the actual value. A NIC setting its family cannot set, or a read-back
state that did not include, is None and not judged (``hosts.capability`` names what the family cannot set).

Checks (one per property; seed 003's RoCE failure table rows "MTU mismatch", "PFC priority misalignment" and
"mixed traffic on the same priority" are host<->switch mismatches):

* ``hosts.trust`` -- the NIC classifies by DSCP, as the switch port does.
* ``hosts.dscp_priority`` -- every class DSCP (and the CNP DSCP) gets the same 802.1p priority on NIC and switch.
* ``hosts.pfc`` -- the NIC's PFC vector equals the switch port's no-drop priorities, exactly.
* ``hosts.cnp`` -- the CNPs the NIC sends (DSCP, priority) land in the switch's CNP class.
* ``hosts.ecn`` -- DCQCN reaction and notification points on every lossless priority the switch ECN-marks
  (a lossless class without ECN thresholds is PFC-only by intent and asks for neither).
* ``hosts.roce_tos`` -- the RDMA-CM ToS carries a DSCP of a lossless switch class (ToS >> 2; ECN bits ignored).
* ``hosts.nccl_tc`` / ``hosts.nccl_fifo_tc`` -- NCCL's data and control traffic classes (NCCL_IB_TC, default 0;
  NCCL_IB_FIFO_TC, default NCCL_IB_TC) carry a DSCP of a lossless switch class.
* ``hosts.roce_version`` -- RoCE v2 for RDMA-CM and NCCL (NCCL_IB_ROCE_VERSION_NUM, default 2).
* ``hosts.gid`` -- the GID NCCL uses on each NIC is a RoCE v2 GID holding the NIC's own IPv4 address: the entry
  at NCCL_IB_GID_INDEX, or, unset or -1 (NCCL >= 2.21 picks one: NCCL_IB_ADDR_FAMILY, default AF_INET, and
  NCCL_IB_ROCE_VERSION_NUM), some such entry. A RoCE v1 GID has no IP header (not routed past the leaf); the
  link-local default GID or another address's GID is not the rail's subnet. Judged on the GID table read back
  (``gids.txt``), else on the table the kernel builds from the NIC's addresses
  (compiler.host_config.kernel_gid_table: index 3 with one IPv4 address).
* ``hosts.global_pause`` -- IEEE 802.3x pause off where the switch port runs PFC.
* ``hosts.mtu`` -- NIC MTU <= switch port MTU.
* ``hosts.roce_mtu`` -- the RoCE MTU the NIC's netdev MTU allows is the one the intent's host MTU asks for
  (RoCE MTU 4096 needs a netdev MTU >= 4,192: a NIC at 4,000 runs RoCE at 2048).
* ``hosts.overlay_mtu`` -- NIC MTU within the leaf's VXLAN MTU when the server port's VLAN is carried over VXLAN
  (NIC MTU + 50 bytes, RFC 7348, fits the underlay: mtu.overlay_budget proves the VXLAN MTU fits every path).
* ``hosts.cable_length`` -- the NIC's cable length (its receive headroom) is the inventory cable's.
* ``hosts.pcie`` -- the NIC's speed fits its PCIe link (compiler.nics.pcie_bandwidth_gbps: Gen4 x16 ~252 Gb/s,
  Gen5 x16 ~504 Gb/s).
* ``hosts.speed`` -- NIC speed equals the switch port speed.
* ``hosts.rail`` -- NIC rail r is cabled to a rail-r leaf (the rail most NICs on that leaf have), and no two NICs
  of one server share a leaf.
* ``hosts.plane`` -- on a server whose model splits each NIC over planes (compiler.nics.MultiplaneMode: Spectrum-X
  swplb/hwplb, 2 or 4 planes), each rail has one port per plane, and the port of plane p is cabled to a leaf whose
  uplinks reach spine plane p and no other: the planes are independent networks, so a leaf reaching two planes
  merges them and a plane-p port on another plane's leaf cannot reach plane p of the other servers. Judged on the
  inventory (cables, spine planes); skipped without a multi-plane server.
* ``hosts.capability`` -- warning per server and setting the intent needs that the NIC family cannot set.

Pure Python; never imports Django.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from compiler.host_config import (
    GID_ROCE_V2,
    NCCL_DEFAULT_TC,
    NCCL_ROCE_VERSION,
    HostConfig,
    NicConfig,
    build_host_configs,
    dscp_of_tos,
    kernel_gid_table,
    nic_planes,
    roce_mtu,
)
from compiler.model import Endpoint, Role
from compiler.natural import natural_key
from compiler.nics import FAMILY_LABEL, NicFeature, nic_capabilities, nic_gap, pcie_bandwidth_gbps, server_model
from compiler.qos_math import VXLAN_OVERHEAD_BYTES
from compiler.structured.contract import Interface, Qos
from validators.common import CheckSkipped
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.subjects import Subject

PREFIX = "hosts"
NO_HOSTS = "no servers: neither an inventory with servers nor host state read back"


@dataclass(frozen=True, slots=True)
class HostLink:
    """One server NIC with the switch port it is cabled to and that switch's QoS policy."""

    host: HostConfig
    nic: NicConfig
    switch: str
    port: Interface
    qos: Qos  # the switch's device QoS policy ({} without RoCE)
    cable_length_m: float | None  # the inventory cable's

    @property
    def subject(self) -> str:
        return str(Subject.link(self.nic.server, self.nic.name, self.switch, self.port["name"]))

    @property
    def where(self) -> str:
        return (f"{self.nic.server} NIC {self.nic.name} ({self.nic.nic_model or FAMILY_LABEL.get(self.nic.family)}, "
                f"{self.nic.rdma_device}) on {self.switch}:{self.port['name']}")


def host_configs(ctx) -> dict[str, HostConfig]:
    if ctx.hosts is not None:
        return dict(ctx.hosts)
    if ctx.snapshot is None or not ctx.snapshot.inventory.servers:
        raise CheckSkipped(NO_HOSTS)
    return build_host_configs(ctx.snapshot)


def host_links(fabric) -> list[HostLink]:
    """Every NIC cabled to a switch port the structured configs know, built once per run."""
    ctx = as_context(fabric)
    if ctx.host_links is not None:
        return ctx.host_links
    configs = host_configs(ctx)
    inventory = ctx.inventory
    index = ctx.interface_index
    links = []
    for host in configs.values():
        for nic in host.nics:
            cable = inventory.cable_at.get(Endpoint(nic.server, nic.name)) if inventory is not None else None
            if cable is not None:
                peer = cable.other_end(Endpoint(nic.server, nic.name))
                switch, port_name = peer.device, peer.interface
            else:
                switch, port_name = nic.leaf, nic.leaf_interface
            port = index.get((switch, port_name))
            if port is None:
                continue
            links.append(HostLink(host=host, nic=nic, switch=switch, port=port,
                                  qos=ctx.structured[switch].get("qos") or {},
                                  cable_length_m=cable.length_m if cable is not None else None))
    ctx.host_links = links
    return links


# --------------------------------------------------------------------------------------------- switch views


def switch_priority(qos: Qos, dscp: int) -> int | None:
    tc = (qos.get("dscp_to_tc") or {}).get(str(dscp), 0)  # unmapped DSCPs fall into TC 0 (the contract)
    return (qos.get("tc_to_priority") or {}).get(str(tc))


def lossless_dscps(qos: Qos) -> dict[int, str]:
    """DSCP -> class name for every DSCP of a lossless class of the switch."""
    return {dscp: entry["name"] for entry in qos.get("classes") or () if entry.get("lossless") for dscp in entry["dscp"]}


def _class_of(qos: Qos, dscp: int) -> str:
    tc = (qos.get("dscp_to_tc") or {}).get(str(dscp), 0)
    for entry in qos.get("classes") or ():
        if entry["traffic_class"] == tc:
            return f"class {entry['name']} (TC {tc}, {'lossless' if entry.get('lossless') else 'lossy'})"
    cnp = qos.get("cnp") or {}
    if cnp and cnp.get("traffic_class") == tc:
        return f"the CNP class (TC {tc}, lossy)"
    return f"TC {tc} (best effort, lossy)"


def _finding(check: str, link: HostLink, expected, actual, what: str, severity: str = Severity.ERROR) -> Finding:
    return Finding(check=check, severity=severity, subject=link.subject, expected=expected, actual=actual,
                   message=f"{link.where}: {what} (expected {expected}, actual {actual})")


# --------------------------------------------------------------------------------------------- checks

TRUST = f"{PREFIX}.trust"
DSCP_PRIORITY = f"{PREFIX}.dscp_priority"
PFC = f"{PREFIX}.pfc"
CNP = f"{PREFIX}.cnp"
ECN = f"{PREFIX}.ecn"
ROCE_TOS = f"{PREFIX}.roce_tos"
NCCL_TC = f"{PREFIX}.nccl_tc"
NCCL_FIFO_TC = f"{PREFIX}.nccl_fifo_tc"
ROCE_VERSION = f"{PREFIX}.roce_version"
GID = f"{PREFIX}.gid"
GLOBAL_PAUSE = f"{PREFIX}.global_pause"
MTU = f"{PREFIX}.mtu"
ROCE_MTU = f"{PREFIX}.roce_mtu"
OVERLAY_MTU = f"{PREFIX}.overlay_mtu"
CABLE_LENGTH = f"{PREFIX}.cable_length"
PCIE = f"{PREFIX}.pcie"
SPEED = f"{PREFIX}.speed"
RAIL = f"{PREFIX}.rail"
PLANE = f"{PREFIX}.plane"
CAPABILITY = f"{PREFIX}.capability"


def _per_link(name: str, judge: Callable[[HostLink], list[Finding] | None]) -> Callable:
    """A check that judges each link; ``judge`` returns None for a link it cannot judge (not examined)."""
    def check(fabric) -> list[Finding]:
        ctx = as_context(fabric)
        findings: list[Finding] = []
        judged = 0
        for link in host_links(ctx):
            result = judge(link)
            if result is None:
                continue
            judged += 1
            findings += result
        ctx.record_examined(name, {"server NIC links": judged})
        return findings
    check.__name__ = f"check_{name.split('.', 1)[1]}"
    return check


def _trust(link: HostLink) -> list[Finding] | None:
    if link.nic.trust is None or not link.qos:
        return None
    wanted = (link.port.get("qos") or {}).get("trust") or link.qos.get("trust") or "dscp"
    if link.nic.trust == wanted:
        return []
    return [_finding(TRUST, link, wanted, link.nic.trust,
                     f"the NIC trusts {link.nic.trust}, the switch port {wanted}: RoCE priorities disagree across the link")]


def _dscp_priority(link: HostLink) -> list[Finding] | None:
    if not link.qos or link.nic.trust is None:
        return None
    findings = []
    dscps = sorted({dscp for entry in link.qos.get("classes") or () for dscp in entry["dscp"]}
                   | ({link.qos["cnp"]["dscp"]} if (link.qos.get("cnp") or {}).get("dscp") is not None else set()))
    for dscp in dscps:
        wanted, actual = switch_priority(link.qos, dscp), link.nic.priority_of(dscp)
        if wanted != actual:
            findings.append(_finding(DSCP_PRIORITY, link, wanted, actual,
                                     f"DSCP {dscp} ({_class_of(link.qos, dscp)}) gets priority {actual} on the NIC, "
                                     f"{wanted} on the switch: its pauses and queue differ per end"))
    return findings


def _pfc(link: HostLink) -> list[Finding] | None:
    if link.nic.pfc_priorities is None or not link.qos:
        return None
    wanted = sorted((link.port.get("qos") or {}).get("pfc_priorities") or [])
    actual = sorted(link.nic.pfc_priorities)
    if wanted == actual:
        return []
    return [_finding(PFC, link, wanted, actual,
                     "the NIC's PFC vector differs from the switch port's no-drop priorities: pauses on "
                     f"{sorted(set(wanted) - set(actual)) or 'no priority'} are ignored by the NIC, pauses on "
                     f"{sorted(set(actual) - set(wanted)) or 'no priority'} are ignored by the switch")]


def _cnp(link: HostLink) -> list[Finding] | None:
    cnp = link.qos.get("cnp") or {}
    if not cnp or (link.nic.cnp_dscp is None and link.nic.cnp_priority is None):
        return None
    findings = []
    if link.nic.cnp_dscp is not None:
        tc = (link.qos.get("dscp_to_tc") or {}).get(str(link.nic.cnp_dscp), 0)
        if tc != cnp["traffic_class"]:
            findings.append(_finding(CNP, link, cnp["dscp"], link.nic.cnp_dscp,
                                     f"the NIC marks CNPs DSCP {link.nic.cnp_dscp}, which the switch puts in "
                                     f"{_class_of(link.qos, link.nic.cnp_dscp)}, not its CNP class (TC "
                                     f"{cnp['traffic_class']}, strict priority): CNPs queue behind the data they "
                                     "should slow down"))
    if link.nic.cnp_priority is not None and link.nic.cnp_priority != cnp["priority"]:
        findings.append(_finding(CNP, link, cnp["priority"], link.nic.cnp_priority,
                                 f"the NIC sends CNPs on 802.1p priority {link.nic.cnp_priority}, the switch's CNP "
                                 f"class is priority {cnp['priority']}"))
    return findings


def _ecn_priorities(qos: Qos) -> list[int]:
    return sorted({entry["priority"] for entry in qos.get("classes") or () if entry.get("lossless") and entry.get("ecn")})


def _ecn(link: HostLink) -> list[Finding] | None:
    wanted = _ecn_priorities(link.qos)
    if not wanted or (link.nic.ecn_rp is None and link.nic.ecn_np is None):
        return None  # no class marks ECN (PFC-only by intent), or the NIC family cannot set it
    findings = []
    for point, enabled, role in (("reaction point", link.nic.ecn_rp, "the NIC ignores CNPs and never slows down"),
                                 ("notification point", link.nic.ecn_np, "the NIC sends no CNP for CE-marked packets")):
        if enabled is None:
            continue
        missing = [p for p in wanted if p not in enabled]
        if missing:
            findings.append(_finding(ECN, link, wanted, sorted(enabled),
                                     f"DCQCN {point} off on lossless priority {missing}, which the switch ECN-marks: "
                                     f"{role}, so congestion reaches PFC"))
    return findings


def _lossless_tos(check: str, link: HostLink, tos: int, what: str) -> list[Finding]:
    dscp = dscp_of_tos(tos)
    lossless = lossless_dscps(link.qos)
    if dscp in lossless:
        return []
    wanted = sorted(dscp << 2 for dscp in lossless)
    return [_finding(check, link, f"ToS {wanted} (DSCP {sorted(lossless)})", f"ToS {tos} (DSCP {dscp})",
                     f"{what} carries DSCP {dscp}, which the switch puts in {_class_of(link.qos, dscp)}: it is "
                     "dropped under congestion instead of paused")]


def _roce_tos(link: HostLink) -> list[Finding] | None:
    if link.nic.roce_tos is None or not lossless_dscps(link.qos):
        return None
    return _lossless_tos(ROCE_TOS, link, link.nic.roce_tos, "the RDMA-CM ToS")


def _nccl_int(host: HostConfig, key: str, default: int | None) -> int | None:
    value = host.nccl.get(key)
    if value is None:
        return default
    try:
        return int(value, 0)
    except ValueError:
        return None


def _nccl_tc(link: HostLink) -> list[Finding] | None:
    if not link.host.nccl_env or not lossless_dscps(link.qos):
        return None
    tos = _nccl_int(link.host, "NCCL_IB_TC", NCCL_DEFAULT_TC)
    if tos is None:
        return [_finding(NCCL_TC, link, "an integer", link.host.nccl.get("NCCL_IB_TC"), "NCCL_IB_TC is not a number")]
    unset = " (NCCL_IB_TC unset: NCCL uses traffic class 0)" if "NCCL_IB_TC" not in link.host.nccl else ""
    return _lossless_tos(NCCL_TC, link, tos, f"NCCL's RDMA traffic{unset}")


def _nccl_fifo_tc(link: HostLink) -> list[Finding] | None:
    if not link.host.nccl_env or not lossless_dscps(link.qos):
        return None
    data = _nccl_int(link.host, "NCCL_IB_TC", NCCL_DEFAULT_TC)
    tos = _nccl_int(link.host, "NCCL_IB_FIFO_TC", data)
    if tos is None:
        return [_finding(NCCL_FIFO_TC, link, "an integer", link.host.nccl.get("NCCL_IB_FIFO_TC"),
                         "NCCL_IB_FIFO_TC is not a number")]
    return _lossless_tos(NCCL_FIFO_TC, link, tos, "NCCL's control (CTS FIFO) messages")


def _roce_version(link: HostLink) -> list[Finding] | None:
    if link.nic.roce_mode is None and not link.host.nccl_env:
        return None
    findings = []
    if link.nic.roce_mode is not None and link.nic.roce_mode != "v2":
        findings.append(_finding(ROCE_VERSION, link, "v2", link.nic.roce_mode,
                                 f"RDMA-CM uses RoCE {link.nic.roce_mode}: not routable across the leaf"))
    if link.host.nccl_env:
        version = _nccl_int(link.host, "NCCL_IB_ROCE_VERSION_NUM", NCCL_ROCE_VERSION)
        if version != NCCL_ROCE_VERSION:
            findings.append(_finding(ROCE_VERSION, link, NCCL_ROCE_VERSION, version,
                                     f"NCCL_IB_ROCE_VERSION_NUM={version}: NCCL picks a RoCE v1 GID"))
    return findings


NCCL_GID_AUTO = -1  # NCCL_IB_GID_INDEX default since NCCL 2.21 (src/transport/net_ib: NCCL_PARAM(IbGidIndex, -1))


def _gid(link: HostLink) -> list[Finding] | None:
    nic = link.nic
    if not link.host.nccl_env or (nic.gid_table is None and not nic.addresses):
        return None  # NCCL is not configured here, or neither a GID table nor an address to model one from
    table = nic.gid_table if nic.gid_table is not None else kernel_gid_table(nic.name, nic.addresses)
    source = "the GID table read back" if nic.gid_table is not None else "the GID table the kernel builds from its addresses"
    own = {address.split("/")[0] for address in nic.addresses}

    def usable(entry) -> bool:
        return entry.roce_type == GID_ROCE_V2 and entry.ipv4 is not None and (not own or entry.ipv4 in own) \
            and entry.netdev in (nic.name, "-")

    wanted = [entry.index for entry in table if usable(entry)]
    index = _nccl_int(link.host, "NCCL_IB_GID_INDEX", NCCL_GID_AUTO)
    expected = f"a RoCE v2 GID of {'/'.join(sorted(own)) or 'an IPv4 address'}" + (
        f" (index {', '.join(map(str, wanted))})" if wanted else "")
    if index is None:
        return [_finding(GID, link, "an integer", link.host.nccl.get("NCCL_IB_GID_INDEX"),
                         "NCCL_IB_GID_INDEX is not a number")]
    if index == NCCL_GID_AUTO:
        if wanted:
            return []
        return [_finding(GID, link, expected, "none in the table",
                         f"NCCL picks a RoCE v2 IPv4 GID by itself, and {source} of {nic.rdma_device} has none: "
                         "NCCL cannot connect over this NIC")]
    entry = next((item for item in table if item.index == index), None)
    if entry is None:
        return [_finding(GID, link, expected, f"index {index}: no GID",
                         f"NCCL_IB_GID_INDEX={index}, and {source} of {nic.rdma_device} has no GID at index {index}")]
    if usable(entry):
        return []
    if entry.roce_type != GID_ROCE_V2:
        why = "a RoCE v1 GID: frames carry no IP/UDP header and are not routed past the leaf"
    elif entry.ipv4 is None:
        why = f"GID {entry.gid} is not an IPv4 address of the NIC (link-local or IPv6): not its rail subnet"
    elif own and entry.ipv4 not in own:
        why = f"GID {entry.gid} holds {entry.ipv4}, not the NIC's address: traffic leaves with another source"
    else:
        why = f"the GID belongs to netdev {entry.netdev}, not {nic.name}"
    return [_finding(GID, link, expected, f"index {index}: {entry.gid} ({entry.roce_type})",
                     f"NCCL_IB_GID_INDEX={index} names {why}")]


def _global_pause(link: HostLink) -> list[Finding] | None:
    if link.nic.global_pause is None or not (link.port.get("qos") or {}).get("pfc_priorities"):
        return None
    if not link.nic.global_pause:
        return []
    return [_finding(GLOBAL_PAUSE, link, "off", "on",
                     "IEEE 802.3x link pause is on where the switch port runs PFC: the two are exclusive, one "
                     "congested class pauses every class")]


def _mtu(link: HostLink) -> list[Finding] | None:
    port_mtu = link.port.get("mtu")
    if not port_mtu:
        return None
    if link.nic.mtu <= port_mtu:
        return []
    return [_finding(MTU, link, f"<= {port_mtu}", link.nic.mtu,
                     f"the NIC MTU {link.nic.mtu} exceeds the switch port's {port_mtu}: larger frames are dropped")]


def _roce_mtu_check(intended_mtu: int | None) -> Callable[[HostLink], list[Finding] | None]:
    def judge(link: HostLink) -> list[Finding] | None:
        target = intended_mtu or link.port.get("mtu")
        if not target:
            return None
        wanted, actual = roce_mtu(target), roce_mtu(link.nic.mtu)
        if actual >= wanted:
            return []
        return [_finding(ROCE_MTU, link, f"RoCE MTU {wanted} (netdev MTU >= {wanted + 96})",
                         f"RoCE MTU {actual} (netdev MTU {link.nic.mtu})",
                         f"netdev MTU {link.nic.mtu} leaves RoCE MTU {actual}, not {wanted}: every RDMA message is cut "
                         "into smaller packets")]
    return judge


def _cable_length(link: HostLink) -> list[Finding] | None:
    if link.nic.cable_length_m is None or link.cable_length_m is None:
        return None
    wanted = math.ceil(link.cable_length_m)
    if link.nic.cable_length_m == wanted:
        return []
    short = link.nic.cable_length_m < wanted
    return [_finding(CABLE_LENGTH, link, f"{wanted} m", f"{link.nic.cable_length_m} m",
                     f"the NIC sizes its receive headroom for a {link.nic.cable_length_m} m cable, the inventory cable is "
                     f"{link.cable_length_m:g} m" + (": frames in flight overflow after the NIC pauses the switch"
                                                     if short else ": buffer wasted"))]


def _pcie(link: HostLink) -> list[Finding] | None:
    if link.nic.pcie_gen is None or link.nic.pcie_lanes is None:
        return None
    bandwidth = pcie_bandwidth_gbps(link.nic.pcie_gen, link.nic.pcie_lanes)
    if link.nic.speed_gbps <= bandwidth:
        return []
    return [_finding(PCIE, link, f">= {link.nic.speed_gbps} Gb/s of PCIe",
                     f"PCIe Gen{link.nic.pcie_gen} x{link.nic.pcie_lanes} = {bandwidth:.0f} Gb/s",
                     f"a {link.nic.speed_gbps}G port on a PCIe Gen{link.nic.pcie_gen} x{link.nic.pcie_lanes} link "
                     f"({bandwidth:.0f} Gb/s usable): the host, not the network, caps the NIC")]


def _speed(link: HostLink) -> list[Finding] | None:
    port_speed = link.port.get("speed_gbps")
    if not port_speed:
        return None
    if port_speed == link.nic.speed_gbps:
        return []
    return [_finding(SPEED, link, f"{port_speed}G", f"{link.nic.speed_gbps}G",
                     "NIC and switch port speeds differ: the link does not come up at either speed")]


def check_overlay_mtu(fabric) -> list[Finding]:
    """NIC MTU + VXLAN overhead within the leaf's VXLAN budget. mtu.overlay_budget proves that budget (the VXLAN
    interface MTU, host MTU + 50 bytes) fits every underlay path between the leaves; this check carries it to the
    NIC, whose MTU can differ from the intent's host MTU."""
    ctx = as_context(fabric)
    findings: list[Finding] = []
    judged = 0
    for link in host_links(ctx):
        vxlan = ctx.structured[link.switch].get("vxlan") or {}
        vlan = link.port.get("access_vlan")
        budget = vxlan.get("mtu")
        if not budget or vlan is None or str(vlan) not in (vxlan.get("vlan_vnis") or {}):
            continue
        judged += 1
        if link.nic.mtu > budget:
            findings.append(_finding(OVERLAY_MTU, link, f"<= {budget}", link.nic.mtu,
                                     f"VLAN {vlan} is carried over VXLAN with an MTU of {budget} on {link.switch}: "
                                     f"NIC MTU {link.nic.mtu} + {VXLAN_OVERHEAD_BYTES} bytes of encapsulation does not "
                                     "fit the underlay"))
    ctx.record_examined(OVERLAY_MTU, {"server NIC links on VXLAN": judged})
    return findings


def check_rail(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    links = host_links(ctx)
    rails_on: dict[str, Counter] = defaultdict(Counter)
    for link in links:
        rails_on[link.switch][link.nic.rail] += 1
    findings: list[Finding] = []
    per_server: dict[tuple[str, str], list[HostLink]] = defaultdict(list)
    for link in links:  # every link is judged for leaf sharing; links on a leaf with other NICs also for the rail
        per_server[(link.nic.server, link.switch)].append(link)
        counts = rails_on[link.switch]
        if sum(counts.values()) < 2:
            continue  # one NIC on the leaf: it defines the leaf's rail; nothing to compare
        ranked = counts.most_common(2)
        rail, top = ranked[0]
        if len(ranked) > 1 and ranked[1][1] == top:
            continue  # a tie: the NICs do not decide the leaf's rail
        if link.nic.rail != rail:
            findings.append(_finding(RAIL, link, f"a rail-{link.nic.rail} leaf", f"{link.switch} (rail {rail})",
                                     f"NIC rail {link.nic.rail} is cabled to {link.switch}, whose other "
                                     f"{top} NIC(s) are rail {rail}: rail traffic crosses the spine"))
    for (server, switch), shared in per_server.items():
        if len(shared) > 1:
            for link in shared:
                findings.append(_finding(RAIL, link, "one NIC per leaf", f"{len(shared)} NICs on {switch}",
                                         f"{server} has {len(shared)} NICs on {switch}: two rails share one leaf"))
    ctx.record_examined(RAIL, {"server NIC links": len(links)})
    return findings


def _spine_planes(inventory, leaf: str) -> set[int]:
    """The planes of the spines ``leaf``'s cables reach."""
    switch = inventory.switches_by_name.get(leaf)
    planes = set()
    for interface in switch.interfaces if switch is not None else ():
        cable = inventory.cable_at.get(Endpoint(leaf, interface.name))
        peer = inventory.switches_by_name.get(cable.other_end(Endpoint(leaf, interface.name)).device) if cable else None
        if peer is not None and peer.role == Role.SPINE:
            planes.add(peer.plane)
    return planes


def check_plane(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    if ctx.snapshot is None:
        raise CheckSkipped("no inventory: the spine planes a server's leaves reach are the inventory's cables")
    inventory = ctx.snapshot.inventory
    findings: list[Finding] = []
    judged = multiplane = 0
    reach: dict[str, set[int]] = {}
    for server in sorted(inventory.servers, key=lambda item: natural_key(item.name)):
        model = server_model(server.model, server.nics[0].speed_gbps if server.nics else 0)
        if model is None or model.planes < 2:
            continue
        multiplane += 1
        mode = f"{model.multiplane_mode}, {model.planes} planes ({model.name})"
        planes = nic_planes(server)
        per_rail: dict[int, list[str]] = defaultdict(list)
        for nic in server.nics:
            per_rail[nic.rail].append(nic.name)
        for rail, names in sorted(per_rail.items()):
            if len(names) != model.planes:
                findings.append(Finding(
                    check=PLANE, severity=Severity.ERROR, subject=f"{server.name}:rail{rail}",
                    expected=f"{model.planes} NIC ports", actual=f"{len(names)} ({', '.join(sorted(names, key=natural_key))})",
                    message=f"{server.name} rail {rail}: {len(names)} NIC port(s), but its multiplane mode ({mode}) "
                            f"exposes one port per plane (expected {model.planes}, actual {len(names)})"))
        for nic in sorted(server.nics, key=lambda item: (item.rail, natural_key(item.name))):
            endpoint = Endpoint(server.name, nic.name)
            cable = inventory.cable_at.get(endpoint)
            if cable is None:
                continue
            judged += 1
            peer = cable.other_end(endpoint)
            plane = planes[nic.name]
            if peer.device not in reach:
                reach[peer.device] = _spine_planes(inventory, peer.device)
            reached = reach[peer.device]
            if reached == {plane}:
                continue
            why = ("reaches no spine" if not reached else
                   "merges planes that must stay independent" if plane in reached else
                   f"carries plane {plane} into another plane, where the plane-{plane} ports of other servers are not")
            findings.append(Finding(
                check=PLANE, severity=Severity.ERROR, subject=f"{server.name}:{nic.name}<->{peer.device}:{peer.interface}",
                expected=f"spine plane {plane} only", actual=f"spine plane(s) {sorted(reached)}",
                message=f"{server.name} NIC {nic.name} (rail {nic.rail}, plane {plane} of {mode}) on "
                        f"{peer.device}:{peer.interface}, whose uplinks reach spine plane(s) {sorted(reached)}: the "
                        f"leaf {why} (expected spine plane {plane} only, actual {sorted(reached)})"))
    if not multiplane:
        raise CheckSkipped("no multi-plane server (no server model with a multiplane mode, compiler.nics)")
    if not judged and not findings:
        raise CheckSkipped(f"{multiplane} multi-plane server(s), none with a cabled NIC port")
    ctx.record_examined(PLANE, {"multi-plane NIC ports": judged})
    return findings


def _needed_features(qos: Qos) -> set[str]:
    if not qos:
        return set()
    needed = {NicFeature.TRUST, NicFeature.DSCP_PRIORITY, NicFeature.ROCE_TOS, NicFeature.ROCE_MODE, NicFeature.ETS}
    if qos.get("lossless_priorities"):
        needed |= {NicFeature.PFC, NicFeature.GLOBAL_PAUSE, NicFeature.CABLE_LENGTH}
    if _ecn_priorities(qos):
        needed.add(NicFeature.ECN)
    if qos.get("cnp"):
        needed.add(NicFeature.CNP)
    return needed


def check_capability(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    judged = 0
    for link in host_links(ctx):
        needed = _needed_features(link.qos)
        if not needed:
            continue
        judged += 1
        for feature in sorted(needed - nic_capabilities(link.nic.family)):
            if (link.nic.server, feature) in seen:
                continue
            seen.add((link.nic.server, feature))
            findings.append(Finding(
                check=CAPABILITY, severity=Severity.WARNING, subject=link.nic.server, expected=feature,
                actual=FAMILY_LABEL.get(link.nic.family, link.nic.family),
                message=f"{link.nic.server} ({link.nic.nic_model or link.nic.family}): the RoCE classes need "
                f"{feature} on its NICs, which {FAMILY_LABEL.get(link.nic.family, link.nic.family)} cannot set: "
                f"{nic_gap(link.nic.family, feature)}; the NIC's default is not verified"))
    ctx.record_examined(CAPABILITY, {"server NIC links": judged})
    return findings


def check_roce_mtu(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    return _per_link(ROCE_MTU, _roce_mtu_check(ctx.intent.host_mtu if ctx.intent is not None else None))(ctx)


# RoCE checks (validators.run skips them without RoCE classes) and the always-on ones (MTU, speed, PCIe, rail).
ROCE_CHECKS: dict[str, Callable] = {
    TRUST: _per_link(TRUST, _trust),
    DSCP_PRIORITY: _per_link(DSCP_PRIORITY, _dscp_priority),
    PFC: _per_link(PFC, _pfc),
    CNP: _per_link(CNP, _cnp),
    ECN: _per_link(ECN, _ecn),
    ROCE_TOS: _per_link(ROCE_TOS, _roce_tos),
    NCCL_TC: _per_link(NCCL_TC, _nccl_tc),
    NCCL_FIFO_TC: _per_link(NCCL_FIFO_TC, _nccl_fifo_tc),
    ROCE_VERSION: _per_link(ROCE_VERSION, _roce_version),
    GID: _per_link(GID, _gid),
    GLOBAL_PAUSE: _per_link(GLOBAL_PAUSE, _global_pause),
    CABLE_LENGTH: _per_link(CABLE_LENGTH, _cable_length),
    ROCE_MTU: check_roce_mtu,
    CAPABILITY: check_capability,
}
LINK_CHECKS: dict[str, Callable] = {
    MTU: _per_link(MTU, _mtu),
    OVERLAY_MTU: check_overlay_mtu,
    PCIE: _per_link(PCIE, _pcie),
    SPEED: _per_link(SPEED, _speed),
    RAIL: check_rail,
    PLANE: check_plane,
}
CHECKS: dict[str, Callable] = {**ROCE_CHECKS, **LINK_CHECKS}
