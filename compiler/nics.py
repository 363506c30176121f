"""Host-side catalogue: NIC families, NIC models, GPU server models and what each NIC family can set.

The switch side has its catalogue in :mod:`compiler.catalog` (models) and :mod:`compiler.hardware` (what a
platform can program on an ASIC family); this is the same for the other end of every server cable. A server's
model names its NIC model (and so the NIC family, which picks the host renderer in
:mod:`compiler.render.hosts`) and the PCIe link each NIC slot gets. Figures are the vendors' datasheet values
named beside each entry; an inventory server without a model gets :func:`default_server_model` for its NIC speed.
Pure Python; never imports Django.
"""

from __future__ import annotations

from dataclasses import dataclass


class NicFamily:
    # NVIDIA ConnectX (mlx5 driver): MLNX_OFED/DOCA-OFED `mlnx_qos`, the mlx5 sysfs ECN tree, `cma_roce_mode`/
    # `cma_roce_tos` and `mlxconfig` firmware settings.
    CONNECTX = "connectx"
    # Broadcom NetXtreme-E Thor/Thor2 (bnxt_en + bnxt_re): DCB through the kernel's dcbnl (bnxt_en implements the
    # IEEE DCB ops; iproute2 `dcb`, or Broadcom's `niccli`) and the bnxt_re congestion-control configfs block.
    BNXT = "bnxt"
    # Any NIC whose driver implements dcbnl (Intel ice/irdma and others): iproute2 `dcb` only.
    LINUX_DCB = "linux-dcb"
    ALL = (CONNECTX, BNXT, LINUX_DCB)


class MultiplaneMode:
    """How a NIC spreads one rail over several independent network planes (NVIDIA Spectrum-X multiplane; the NIC
    Configuration Operator's ``NicConfigurationTemplate`` ``multiplaneMode`` and ``numberOfPlanes``, NVIDIA Network
    Operator documentation "Spectrum-X NIC Configuration" and "Software Multiplane Spectrum-X Quick Start"): the
    SuperNIC is split into one PF (netdev, RDMA device) per plane, and plane p's traffic must stay on network
    plane p -- its own leaves and spines -- since the planes are independent networks."""

    NONE = "none"  # one PF per rail, a single plane
    SWPLB = "swplb"  # one PF per plane; software load-balances across the planes (ConnectX-8, B300/GB300)
    HWPLB = "hwplb"  # one PF per plane with NIC LAG; the NIC load-balances across the planes (ConnectX-8)
    ALL = (NONE, SWPLB, HWPLB)


FAMILY_LABEL = {NicFamily.CONNECTX: "NVIDIA ConnectX (mlx5)", NicFamily.BNXT: "Broadcom Thor (bnxt_re)",
                NicFamily.LINUX_DCB: "generic Linux DCB (iproute2 dcb)"}


class NicFeature:
    """The host-side settings the RoCE classes ask of every NIC (validators.hosts checks each one)."""

    TRUST = "trust"  # classify received frames by DSCP (mlnx_qos --trust dscp; dcb apptrust order dscp)
    DSCP_PRIORITY = "dscp_priority"  # DSCP -> 802.1p priority table (mlnx_qos --dscp2prio; dcb app dscp-prio)
    PFC = "pfc"  # IEEE 802.1Qbb per-priority pause (mlnx_qos --pfc; dcb pfc prio-pfc)
    ETS = "ets"  # priority -> TC and TC bandwidth (mlnx_qos --prio_tc/--tsa/--tcbw; dcb ets)
    CABLE_LENGTH = "cable_length"  # receive-buffer headroom sized for the cable (mlnx_qos --cable_len)
    ECN = "ecn"  # DCQCN reaction and notification points per priority
    CNP = "cnp"  # DSCP and 802.1p priority of the congestion notification packets the NIC sends
    ROCE_TOS = "roce_tos"  # ToS of RDMA-CM connections (rdma_cm configfs default_roce_tos)
    ROCE_MODE = "roce_mode"  # RoCE v2 for RDMA-CM (rdma_cm configfs default_roce_mode)
    GLOBAL_PAUSE = "global_pause"  # IEEE 802.3x link pause off (ethtool -A)
    FIRMWARE = "firmware"  # non-volatile firmware settings (mlxconfig)
    ALL = (TRUST, DSCP_PRIORITY, PFC, ETS, CABLE_LENGTH, ECN, CNP, ROCE_TOS, ROCE_MODE, GLOBAL_PAUSE, FIRMWARE)


_KERNEL = frozenset({NicFeature.TRUST, NicFeature.DSCP_PRIORITY, NicFeature.PFC, NicFeature.ETS,
                     NicFeature.ROCE_TOS, NicFeature.ROCE_MODE, NicFeature.GLOBAL_PAUSE})

# NIC family -> what it can set, and why not the rest:
# - ConnectX: everything. mlnx_qos sets trust/dscp2prio/pfc/prio_tc/tsa/tcbw/cable_len (NVIDIA MLNX_OFED
#   documentation, "mlnx_qos" and "How To Configure RoCE with ECN and PFC"); ECN RP/NP per priority and the CNP
#   DSCP/802.1p priority live in /sys/class/net/<if>/ecn/roce_{rp,np}/ (NVIDIA "DCQCN Parameters" /
#   "Congestion Control" pages); firmware defaults through mlxconfig (ROCE_CC_PRIO_MASK_P1, CNP_DSCP_P1,
#   CNP_802P_PRIO_P1: the parameters NVIDIA's NIC Configuration Operator sets under roceOptimized).
# - Broadcom Thor: the kernel set (bnxt_en implements the IEEE dcbnl ops: ETS, PFC, DSCP app entries) plus ECN and
#   CNP through the bnxt_re configfs block /sys/kernel/config/bnxt_re/<dev>/ports/1/cc/ (ecn_enable, roce_dscp,
#   roce_prio, cnp_dscp, cnp_prio, apply; Broadcom "RoCE Deployment Guide", "Configuring Congestion Control on
#   Broadcom NICs"). No host-side cable-length knob: the firmware sizes the receive buffer.
# - Generic Linux DCB: only what dcbnl and rdma_cm configfs express (iproute2 dcb-app(8), dcb-apptrust(8),
#   dcb-pfc(8), dcb-ets(8); kernel Documentation/ABI/testing/configfs-rdma_cm). ECN/CNP are driver specific and
#   have no common interface; cable length neither.
NIC_CAPABILITIES: dict[str, frozenset[str]] = {
    NicFamily.CONNECTX: frozenset(NicFeature.ALL),
    NicFamily.BNXT: _KERNEL | {NicFeature.ECN, NicFeature.CNP},
    NicFamily.LINUX_DCB: _KERNEL,
}

NIC_GAPS: dict[tuple[str, str], str] = {
    (NicFamily.BNXT, NicFeature.CABLE_LENGTH): "bnxt firmware sizes the receive buffer; there is no host cable-length knob",
    (NicFamily.BNXT, NicFeature.FIRMWARE): "no firmware set is rendered for Thor (niccli NVM options are board specific)",
    (NicFamily.LINUX_DCB, NicFeature.ECN): "dcbnl has no DCQCN interface; ECN reaction/notification stay at the driver's default",
    (NicFamily.LINUX_DCB, NicFeature.CNP): "dcbnl has no CNP marking interface; the driver's default CNP DSCP/priority apply",
    (NicFamily.LINUX_DCB, NicFeature.CABLE_LENGTH): "dcbnl has no cable-length attribute",
    (NicFamily.LINUX_DCB, NicFeature.FIRMWARE): "no vendor firmware tool for a generic NIC",
}


def nic_capabilities(family: str) -> frozenset[str]:
    return NIC_CAPABILITIES.get(family, frozenset())


def nic_gap(family: str, feature: str) -> str:
    return NIC_GAPS.get((family, feature), f"NIC family {family} cannot set {feature}")


# PCIe usable bandwidth per lane in Gb/s after line encoding: Gen3 8 GT/s x 128/130, Gen4 16 GT/s x 128/130,
# Gen5 32 GT/s x 128/130 (PCI Express Base Specification 3.0-5.0), Gen6 64 GT/s PAM4 in FLIT mode with 242 of
# 256 bytes carrying payload (PCIe 6.0 Base Specification, FLIT format). x16: Gen4 ~252 Gb/s, Gen5 ~504 Gb/s,
# Gen6 ~968 Gb/s: a 400G port needs Gen5 x16, an 800G port Gen6 x16 or two Gen5 x16 slots.
PCIE_LANE_GBPS: dict[int, float] = {3: 8 * 128 / 130, 4: 16 * 128 / 130, 5: 32 * 128 / 130, 6: 64 * 242 / 256}
# sysfs current_link_speed text -> generation (Documentation/ABI/testing/sysfs-bus-pci, pci_speed_string())
PCIE_SPEED_TEXT: dict[int, str] = {3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe", 6: "64.0 GT/s PCIe"}


def pcie_bandwidth_gbps(generation: int, lanes: int) -> float:
    """Usable one-direction bandwidth of a PCIe link (0 for an unknown generation)."""
    return PCIE_LANE_GBPS.get(generation, 0.0) * lanes


@dataclass(frozen=True, slots=True)
class NicModelSpec:
    name: str
    vendor: str
    family: str
    max_speed_gbps: int
    pcie_gen: int
    pcie_lanes: int
    rdma_prefix: str  # RDMA device name prefix the driver registers: mlx5_0, bnxt_re0, irdma0
    source: str
    # PCI device ID NVIDIA's NIC Configuration Operator selects NICs by (``nicType``; the IDs its tooling uses,
    # Mellanox/netop-tools ops/mk-nic-config.sh: ConnectX-6 101b, ConnectX-7 1021, ConnectX-8 1023)
    pci_device_id: str = ""
    max_planes: int = 1  # network planes one NIC port can be split over (MultiplaneMode)


@dataclass(frozen=True, slots=True)
class ServerModelSpec:
    name: str
    vendor: str
    nic_model: str
    slot_pcie_gen: int  # the PCIe generation each NIC slot offers (through the board's PCIe switches)
    slot_pcie_lanes: int
    source: str
    multiplane_mode: str = MultiplaneMode.NONE
    planes: int = 1  # NIC ports per rail, one per plane: ports of a rail in name order are planes 0, 1, ...


NIC_MODELS: dict[str, NicModelSpec] = {
    nic.name: nic
    for nic in (
        NicModelSpec("ConnectX-6", "NVIDIA", NicFamily.CONNECTX, 200, 4, 16, "mlx5_",
                     "NVIDIA ConnectX-6 VPI datasheet: 200Gb/s HDR/200GbE, PCIe Gen4 x16", "101b"),
        NicModelSpec("ConnectX-7", "NVIDIA", NicFamily.CONNECTX, 400, 5, 16, "mlx5_",
                     "NVIDIA ConnectX-7 datasheet (MCX75310AAS-NEAT): 400Gb/s NDR/400GbE OSFP, PCIe Gen5 x16", "1021"),
        # Multiplane (swplb / hwplb) on ConnectX-8 only, 2 or 4 planes (NVIDIA Network Operator 26.4 "Spectrum-X
        # NIC Configuration": hwplb and swplb on ConnectX-8 SuperNIC; numberOfPlanes 2 dual-plane, 4 quad-plane)
        NicModelSpec("ConnectX-8", "NVIDIA", NicFamily.CONNECTX, 800, 6, 16, "mlx5_",
                     "NVIDIA ConnectX-8 SuperNIC datasheet: 800Gb/s, PCIe Gen6 x16", "1023", max_planes=4),
        NicModelSpec("BCM57608", "Broadcom", NicFamily.BNXT, 400, 5, 16, "bnxt_re",
                     "Broadcom BCM57608 Thor2 product brief: 1x400GbE, PCIe Gen5 x16"),
        NicModelSpec("E810-CQDA2", "Intel", NicFamily.LINUX_DCB, 100, 4, 16, "irdma",
                     "Intel Ethernet Network Adapter E810-CQDA2 product brief: 100GbE, PCIe 4.0 x16, RoCEv2 (irdma)"),
    )
}

SERVER_MODELS: dict[str, ServerModelSpec] = {
    server.name: server
    for server in (
        ServerModelSpec("DGX-A100", "NVIDIA", "ConnectX-6", 4, 16,
                        "NVIDIA DGX A100 User Guide: 8x ConnectX-6 200Gb/s compute NICs, PCIe Gen4 switches"),
        ServerModelSpec("DGX-H100", "NVIDIA", "ConnectX-7", 5, 16,
                        "NVIDIA DGX H100 User Guide: 8x ConnectX-7 400Gb/s (OSFP cages), PCIe Gen5 switches"),
        ServerModelSpec("DGX-B300", "NVIDIA", "ConnectX-8", 6, 16,
                        "NVIDIA DGX B300 datasheet: 8x ConnectX-8 SuperNIC 800Gb/s, PCIe Gen6"),
        # The same server cabled to a multi-plane fabric: each SuperNIC split into one PF per plane (NVIDIA Network
        # Operator "Software Multiplane Spectrum-X Quick Start": B300 numberOfPlanes 2 dual-plane, 4 quad-plane;
        # NVIDIA Kubernetes Launch Kit's B300 default: swplb, 2 planes)
        ServerModelSpec("DGX-B300-2P", "NVIDIA", "ConnectX-8", 6, 16,
                        "NVIDIA DGX B300, Spectrum-X dual-plane: 8 rails x 2 planes (2x 400G PFs per SuperNIC)",
                        MultiplaneMode.SWPLB, 2),
        ServerModelSpec("DGX-B300-4P", "NVIDIA", "ConnectX-8", 6, 16,
                        "NVIDIA DGX B300, Spectrum-X quad-plane: 8 rails x 4 planes (4x 200G PFs per SuperNIC)",
                        MultiplaneMode.SWPLB, 4),
        ServerModelSpec("XE9680-Thor2", "Dell", "BCM57608", 5, 16,
                        "Dell PowerEdge XE9680 spec sheet: 8x 400GbE Broadcom Thor2 on PCIe Gen5 x16 slots"),
        ServerModelSpec("Generic-E810", "generic", "E810-CQDA2", 4, 16,
                        "any PCIe Gen4 server with an Intel E810 100GbE RoCEv2 NIC"),
    )
}

# The model assumed for a server the inventory gives no model: the catalogue server whose NICs run at the speed of
# its first NIC port (a planner-built fabric names no server model). A documented default, not a measurement.
DEFAULT_SERVER_MODEL_BY_SPEED: dict[int, str] = {100: "Generic-E810", 200: "DGX-A100", 400: "DGX-H100",
                                                 800: "DGX-B300"}


def default_server_model(speed_gbps: int) -> str | None:
    for speed in sorted(DEFAULT_SERVER_MODEL_BY_SPEED):
        if speed_gbps <= speed:
            return DEFAULT_SERVER_MODEL_BY_SPEED[speed]
    return None


def server_model(name: str, speed_gbps: int) -> ServerModelSpec | None:
    """The catalogue model ``name``, or the default for ``speed_gbps`` when ``name`` is empty."""
    chosen = name or default_server_model(speed_gbps)
    return SERVER_MODELS.get(chosen) if chosen else None


def catalogue_problems() -> list[str]:
    """What is inconsistent in the catalogue (a test keeps it empty): unknown NIC models, multiplane modes, or a
    server split into more planes than its NIC can carry."""
    problems = []
    for server in SERVER_MODELS.values():
        nic = NIC_MODELS.get(server.nic_model)
        if nic is None:
            problems.append(f"{server.name}: unknown NIC model {server.nic_model!r}")
            continue
        if server.multiplane_mode not in MultiplaneMode.ALL:
            problems.append(f"{server.name}: unknown multiplane mode {server.multiplane_mode!r}")
        if (server.planes > 1) != (server.multiplane_mode != MultiplaneMode.NONE) or server.planes > nic.max_planes:
            problems.append(f"{server.name}: {server.planes} planes in mode {server.multiplane_mode} on a "
                            f"{nic.name} (at most {nic.max_planes})")
    return problems
