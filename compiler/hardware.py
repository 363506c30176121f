"""Hardware facts the compiler derives from a switch model: its ASIC family and the electrical lanes of its ports.

The switch model -> ASIC mapping lives in one place, the catalogue (``compiler.catalog.SWITCH_MODELS[...].asic``,
or the inventory's own ``switch_models``); this module maps that ASIC to the family whose forwarding architecture
decides how a feature is expressed, and a port cage to its electrical lane count. Renderers turn the family into
syntax (e.g. EOS's ECN queue keyword, compiler.render.eos); nothing here is vendor syntax.

Pure Python; never imports Django.
"""

from __future__ import annotations

from compiler.model import SwitchModelSpec


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
