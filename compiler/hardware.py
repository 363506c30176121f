"""Hardware facts the compiler derives from a switch model: its ASIC family and the electrical lanes of its ports.

The switch model -> ASIC mapping lives in one place, the catalogue (``compiler.catalog.SWITCH_MODELS[...].asic``,
or the inventory's own ``switch_models``); this module maps that ASIC to the family whose forwarding architecture
decides how a feature is expressed, and a port cage to its electrical lane count. Renderers turn the family into
syntax (e.g. EOS's ECN queue keyword, compiler.render.eos); nothing here is vendor syntax.

Pure Python; never imports Django.
"""

from __future__ import annotations

import re

from compiler.model import Platform, SwitchModelSpec


class AsicFamily:
    # Broadcom StrataXGS (Trident, Tomahawk): shared-buffer switches with separate unicast and multicast egress
    # queues per port. Arista runs them as its 7050X/7060X/7260X/7300X/7358X series and configures them under
    # `platform trident` (Arista EOS User Manual, "Quality of Service", section "QoS Configuration: Trident and
    # Tomahawk Platform Switches": ECN/WRED and scheduling on `uc-tx-queue N`, multicast on `mc-tx-queue N`).
    STRATA = "strata"
    # Broadcom StrataDNX (Arad, Jericho, Qumran): virtual output queues with deep off-chip buffers, Arista's
    # 7280R/7500R/7800R series, configured under `platform sand` (same manual, "QoS Configuration: Jericho
    # Platform Switches": one `tx-queue N` per traffic class; ingress headroom is managed by the VOQ scheduler).
    SAND = "sand"
    # NVIDIA Spectrum: SONiC/Cumulus switches; no EOS image exists for them.
    SPECTRUM = "spectrum"
    ALL = (STRATA, SAND, SPECTRUM)


# The families Arista builds EOS switches on (the renderer knows each one's queue keyword, compiler.render.eos).
EOS_FAMILIES = (AsicFamily.STRATA, AsicFamily.SAND)

# ASIC (as the catalogue names it) -> family. Sources: Broadcom's product briefs (Tomahawk 3/4/5 BCM56980/56990/
# 78900, Trident 3/4 BCM56870/56880 are StrataXGS; Jericho2/3 BCM88690/88850 are StrataDNX) and NVIDIA's
# Spectrum-3/4 datasheets.
ASIC_FAMILIES: dict[str, str] = {
    "Broadcom Tomahawk 3": AsicFamily.STRATA,
    "Broadcom Tomahawk 4": AsicFamily.STRATA,
    "Broadcom Tomahawk 5": AsicFamily.STRATA,
    "Broadcom Trident 3": AsicFamily.STRATA,
    "Broadcom Trident 4": AsicFamily.STRATA,
    "Broadcom Jericho2": AsicFamily.SAND,
    "Broadcom Jericho2C+": AsicFamily.SAND,
    "Broadcom Jericho3": AsicFamily.SAND,
    "NVIDIA Spectrum-3": AsicFamily.SPECTRUM,
    "NVIDIA Spectrum-4": AsicFamily.SPECTRUM,
}

# Electrical lanes of one port cage, from the cage's MSA: QSFP-DD MSA rev 7 (8 lanes), OSFP MSA rev 5 (8 lanes),
# QSFP112 (SFF-8665 family, 4 x 112G lanes), QSFP28 (SFF-8665, 4 x 25G lanes), SFP28/SFP56 (one lane).
LANES_PER_CAGE: dict[str, int] = {
    "QSFP-DD": 8,
    "OSFP": 8,
    "QSFP112": 4,
    "QSFP28": 4,
    "QSFP56": 4,
    "SFP28": 1,
    "SFP56": 1,
}


# A switch's base MAC (the one its EEPROM carries; SONiC reads it into DEVICE_METADATA.mac, sonic-device_metadata.yang
# types it yang:mac-address, RFC 6991: six colon-separated hex octets). Stored lower-case.
_MAC = re.compile(r"^[0-9a-f]{2}(?::[0-9a-f]{2}){5}\Z")


def base_mac_problem(value: object) -> str | None:
    """Why ``value`` cannot be a switch's base MAC, or None. A base MAC is a unicast address (IEEE 802 I/G bit
    clear) and not all-zero."""
    if not isinstance(value, str) or not _MAC.match(value.lower()):
        return "expected a MAC address: six hex octets separated by colons (aa:bb:cc:dd:ee:ff)"
    if int(value[:2], 16) & 1:
        return "a multicast address (I/G bit set) cannot be a switch's base MAC"
    if value == "00:00:00:00:00:00":
        return "the all-zero address is no switch's base MAC"
    return None


def asic_family(model: SwitchModelSpec) -> str | None:
    """The ASIC family of a switch model, or None when its ASIC is not in :data:`ASIC_FAMILIES`."""
    return ASIC_FAMILIES.get(model.asic)


def port_lanes(model: SwitchModelSpec, breakout_count: int) -> int | None:
    """Electrical lanes one logical port uses: the cage's lanes divided by how many ports it is broken out into.

    An 8-lane OSFP port broken out 2x400G gives 4 lanes per 400G port; a QSFP-DD broken out 4x100G, 2 lanes each.
    None when the cage is unknown or the breakout does not divide its lanes.
    """
    lanes = LANES_PER_CAGE.get(model.form_factor)
    if lanes is None or breakout_count < 1 or lanes % breakout_count:
        return None
    return lanes // breakout_count


class RoceFeature:
    """The properties a RoCE class asks of every switch it crosses (validators.roce checks each one)."""

    PFC_PRIORITY = "pfc_priority"  # IEEE 802.1Qbb PFC on the lossless priority
    ECN = "ecn_thresholds"  # WRED/ECN marking thresholds per egress queue (DCQCN)
    DSCP_TRUST = "dscp_trust"  # classify by DSCP (RoCEv2 is routed)
    CNP_STRICT_PRIORITY = "cnp_strict_priority"  # the CNP queue served strict-priority
    PFC_WATCHDOG = "pfc_watchdog"  # PFC storm / deadlock detection and recovery
    HEADROOM = "headroom"  # per-port lossless priority-group headroom (xoff/xon) we compute
    ALL = (PFC_PRIORITY, ECN, DSCP_TRUST, CNP_STRICT_PRIORITY, PFC_WATCHDOG, HEADROOM)


_EVERY_ROCE_FEATURE = frozenset(RoceFeature.ALL)

# (platform, ASIC family) -> the RoCE features that platform can program into that ASIC. A pair not listed
# implements nothing.
# - EOS on StrataXGS and StrataDNX: every feature (Arista EOS User Manual, "Quality of Service" and "Priority Flow
#   Control": `qos trust dscp`, `priority-flow-control priority N no-drop`, `random-detect ecn`, strict/weighted
#   `tx-queue` scheduling, `priority-flow-control pause watchdog`; headroom via `qos profile` PG settings on
#   Strata, the VOQ scheduler on DNX). EOS does not run on Spectrum (validate_intent refuses it).
# - SONiC on all three: SAI implements DSCP_TO_TC_MAP, PFC (pfc_enable), WRED_PROFILE, SCHEDULER (STRICT/DWRR),
#   PFC_WD and BUFFER_PG headroom on Broadcom (XGS and DNX) and NVIDIA Spectrum (SONiC QoS and PFC watchdog HLDs,
#   sonic-net/SONiC doc/qos, doc/pfc_watchdog).
# - FRR/Linux: the kernel programs QoS through DCB (dcbnl: `dcb app/ets/pfc/buffer`, iproute2) and tc (RED with
#   the ecn flag), and only a switchdev driver pushes that into the ASIC. The only upstream one for our families
#   is mlxsw (NVIDIA Spectrum; kernel Documentation/networking/devlink/mlxsw.rst and the mlxsw wiki "Quality of
#   Service": DSCP app entries switch the port to DSCP trust, ETS strict/DWRR, PFC, manual-headroom `dcb buffer`,
#   RED/ECN offload). Linux has no PFC watchdog API and mlxsw implements none. Broadcom Strata/DNX have no
#   upstream switchdev driver: a Linux plan on them stays in software, so nothing RoCE reaches the ASIC.
ROCE_CAPABILITIES: dict[tuple[str, str], frozenset[str]] = {
    (Platform.EOS, AsicFamily.STRATA): _EVERY_ROCE_FEATURE,
    (Platform.EOS, AsicFamily.SAND): _EVERY_ROCE_FEATURE,
    (Platform.SONIC, AsicFamily.STRATA): _EVERY_ROCE_FEATURE,
    (Platform.SONIC, AsicFamily.SAND): _EVERY_ROCE_FEATURE,
    (Platform.SONIC, AsicFamily.SPECTRUM): _EVERY_ROCE_FEATURE,
    (Platform.FRR, AsicFamily.SPECTRUM): _EVERY_ROCE_FEATURE - {RoceFeature.PFC_WATCHDOG},
}


def roce_capabilities(platform: str, family: str | None) -> frozenset[str]:
    """The RoCE features ``platform`` implements on an ASIC of ``family`` (empty when the pair is unknown)."""
    return ROCE_CAPABILITIES.get((platform, family or ""), frozenset())


def roce_gap(platform: str | None, family: str | None, feature: str) -> str:
    """Why ``platform`` on ``family`` lacks ``feature`` (one of :class:`RoceFeature`), from the sources of
    :data:`ROCE_CAPABILITIES`: what a finding names."""
    if platform == Platform.FRR:
        if feature == RoceFeature.PFC_WATCHDOG:
            return "Linux has no PFC watchdog interface (no dcbnl or tc knob; mlxsw implements none)"
        if family is None:
            return ("the FRR/Linux config names no switch model, so whether a switchdev driver offloads the "
                    "kernel's DCB/tc settings to the ASIC is unknown")
        return (f"no upstream switchdev driver for ASIC family {family}: the kernel's DCB/tc settings stay in "
                "software and never reach the ASIC")
    return f"{platform} does not implement it on ASIC family {family}"


# (platform, ASIC family) pairs whose configuration does NOT state the per-port PFC headroom we compute: the
# chip sizes it. EOS on StrataDNX (Jericho/Jericho3, the 7280R/7500R/7800R series) is a VOQ switch: packets wait
# in ingress virtual output queues in deep off-chip buffer and the ingress scheduler manages PFC headroom itself;
# the Arista EOS User Manual ("QoS Configuration: Jericho Platform Switches") has no headroom command for it,
# while on Trident/Tomahawk (`platform trident mmu queue profile` ... `ingress headroom bytes`, "QoS
# Configuration: Trident and Tomahawk Platform Switches") it is configured; Arista's "7280R3 Switch
# Architecture" white paper describes the VOQ buffer as dynamically allocated. SONiC (BUFFER_PG/BUFFER_PROFILE,
# on every family) and FRR/Linux (`dcb buffer`) state it.
CHIP_SIZED_HEADROOM: frozenset[tuple[str, str]] = frozenset({(Platform.EOS, AsicFamily.SAND)})


def configures_port_headroom(platform: str | None, family: str | None) -> bool:
    """Whether a config of ``platform`` on ``family`` states per-port PFC headroom (False: the chip sizes it)."""
    return (platform or "", family or "") not in CHIP_SIZED_HEADROOM


class HashFeature:
    """The RoCE-aware load-balancing features an intent can ask of a switch (compiler.model.EcmpHashing)."""

    TIER_FUNCTIONS = "tier_functions"  # choose the ECMP hash function per switch (one per tier)
    PER_SWITCH_SEED = "per_switch_seed"  # set the ECMP hash seed per switch
    DEST_QP_UDF = "dest_qp_udf"  # hash UDP-payload bytes: the RoCE BTH destination QP
    DLB = "dlb"  # dynamic load balancing on ECMP groups
    ALL = (TIER_FUNCTIONS, PER_SWITCH_SEED, DEST_QP_UDF, DLB)


# (platform, ASIC family) -> the hashing features we render for it. Only what a vendor validator we run can check
# is listed (pyavd's eos_cli_config_gen schema for EOS, the vendored SONiC YANG for SONiC); a pair not listed
# renders nothing and validate_intent refuses the request, with the reason from :func:`hashing_gap`.
# - EOS on StrataDNX: DEST_QP_UDF -- pyavd 6.4 `load_balance.policies.sand_profiles[].fields.udp` ("load balancing
#   profiles for SAND-based platforms, used for port-channel and ECMP hashing", EOS >= 4.33.1F): `fields udp
#   dst-port N` + `payload bytes ...`; Arista TOI "UDP payload hashing" (arista.com/en/support/toi/tag/hashing).
# - SONiC on Spectrum: TIER_FUNCTIONS -- SWITCH_HASH|GLOBAL `ecmp_hash_algorithm` (sonic-hash.yang, revision
#   2023-09-25, vendored in tests/schemas/sonic-yang), the Generic Hash feature (SONiC doc/hash/hash-design.md)
#   contributed and tested on NVIDIA Spectrum (sonic-mgmt docs/testplan/Generic-hash-test-plan.md); orchagent
#   accepts an algorithm only where the SAI reports it. We claim no Broadcom SAI support: none is published.
# Not rendered on EOS/SONiC, and why (hashing_gap): a per-switch seed is in neither pyavd's schema nor any SONiC YANG
# (SONiC programs SAI_SWITCH_ATTR_ECMP_DEFAULT_HASH_SEED from swss's switch.json, outside CONFIG_DB); the BTH
# destination QP is no SWITCH_HASH field in the vendored sonic-hash.yang; DLB on ECMP groups is documented by
# Arista (TOI "ECMP Load Balancing DLB", EOS 4.30.2F) but pyavd has no schema for it, and no SONiC YANG has it.
# - FRR/Linux on StrataXGS and StrataDNX: PER_SWITCH_SEED -- no upstream switchdev driver exists for them (see
#   ROCE_CAPABILITIES), so the kernel forwards, and it hashes multipath routes with `net.ipv4.fib_multipath_hash_seed`
#   (Linux 6.11+, Documentation/networking/ip-sysctl.rst: "Applies to both IPv4 and IPv6 datapath"; 0 = a random
#   internal key), keyed (siphash) on the 5-tuple with `fib_multipath_hash_policy=1`. This is the twin's datapath:
#   labs/ecmp_oracle.py measured it (docs/collective.md, rung iii) and the kernel itself checks the rendered value
#   (tests/compiler/test_ecmp_hashing.py). On Spectrum mlxsw offloads the routes; whether it programs this seed into
#   the ASIC we have not verified, so FRR on Spectrum is not listed.
HASHING_CAPABILITIES: dict[tuple[str, str], frozenset[str]] = {
    (Platform.EOS, AsicFamily.SAND): frozenset({HashFeature.DEST_QP_UDF}),
    (Platform.SONIC, AsicFamily.SPECTRUM): frozenset({HashFeature.TIER_FUNCTIONS}),
    (Platform.FRR, AsicFamily.STRATA): frozenset({HashFeature.PER_SWITCH_SEED}),
    (Platform.FRR, AsicFamily.SAND): frozenset({HashFeature.PER_SWITCH_SEED}),
}


def hashing_capabilities(platform: str, family: str | None) -> frozenset[str]:
    """The hashing features we render for ``platform`` on an ASIC of ``family`` (empty when the pair is unknown)."""
    return HASHING_CAPABILITIES.get((platform, family or ""), frozenset())


def hashing_gap(platform: str, family: str | None, feature: str) -> str:
    """Why ``feature`` (one of :class:`HashFeature`) is not rendered for ``platform`` on ``family``: the sources of
    :data:`HASHING_CAPABILITIES`, for the error that refuses the intent."""
    where = f"{platform} on ASIC family {family or 'unknown'}"
    if feature == HashFeature.PER_SWITCH_SEED:
        return (f"{where}: no vendor schema we validate against has an ECMP hash seed (pyavd eos_cli_config_gen has "
                "none; SONiC sets it from swss switch.json, outside CONFIG_DB and its YANG); only FRR/Linux where the "
                "kernel forwards (net.ipv4.fib_multipath_hash_seed) renders one")
    if feature == HashFeature.DLB:
        return (f"{where}: no vendor schema we validate against has dynamic load balancing (EOS documents it in "
                "the TOI 'ECMP Load Balancing DLB', 4.30.2F, but pyavd has no field for it; no SONiC YANG has it)")
    if feature == HashFeature.DEST_QP_UDF:
        return (f"{where}: destination-QP (UDP payload) hashing is expressible only on EOS StrataDNX (pyavd "
                "load_balance.policies.sand_profiles); sonic-hash.yang has no BTH destination-QP field")
    return (f"{where}: a per-tier ECMP hash function is expressible only on SONiC Spectrum (SWITCH_HASH "
            "ecmp_hash_algorithm, the Generic Hash feature); pyavd has no hash-function field")
