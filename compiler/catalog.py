"""Reference data the planner and the physical checks share: switch models, optic/cable media and reaches.

Values are nominal figures from the vendors' public datasheets and the IEEE 802.3 / MSA specifications named
beside each entry; they are defaults an operator can override in the inventory, not measurements.
Pure Python; never imports Django.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import CableType, SwitchModelSpec

# Switch models. Buffer sizes and typical power are the vendors' datasheet figures (rounded).
SWITCH_MODELS: dict[str, SwitchModelSpec] = {
    model.name: model
    for model in (
        # Arista 7060DX5-64S: Broadcom Tomahawk 4, 64 x 400G QSFP-DD, 1RU-2RU class leaf/spine.
        SwitchModelSpec(
            name="DCS-7060DX5-64S", vendor="Arista", asic="Broadcom Tomahawk 4", port_count=64,
            max_speed_gbps=400, form_factor="QSFP-DD", breakout_modes=("1x400G", "2x200G", "4x100G"),
            buffer_mb=113.0, typical_power_w=780.0,
        ),
        # Arista 7060X6-64PE: Broadcom Tomahawk 5, 64 x 800G OSFP.
        SwitchModelSpec(
            name="DCS-7060X6-64PE", vendor="Arista", asic="Broadcom Tomahawk 5", port_count=64,
            max_speed_gbps=800, form_factor="OSFP", breakout_modes=("1x800G", "2x400G", "4x200G", "8x100G"),
            buffer_mb=165.0, typical_power_w=1200.0,
        ),
        # Arista 7816R4 modular chassis (16 line-card slots x 36 x 800G OSFP): the spine of large 2-tier fabrics.
        SwitchModelSpec(
            name="DCS-7816R4", vendor="Arista", asic="Broadcom Jericho3", port_count=576,
            max_speed_gbps=800, form_factor="OSFP", breakout_modes=("1x800G", "2x400G"),
            buffer_mb=24576.0, typical_power_w=21000.0,
        ),
        # NVIDIA Spectrum-4 SN5600: 64 x 800G OSFP, runs SONiC.
        SwitchModelSpec(
            name="SN5600", vendor="NVIDIA", asic="NVIDIA Spectrum-4", port_count=64,
            max_speed_gbps=800, form_factor="OSFP", breakout_modes=("1x800G", "2x400G", "4x200G"),
            buffer_mb=160.0, typical_power_w=1100.0,
        ),
        # Dell Z9664F-ON: Broadcom Tomahawk 4, 64 x 400G QSFP-DD, ships with SONiC.
        SwitchModelSpec(
            name="Z9664F-ON", vendor="Dell", asic="Broadcom Tomahawk 4", port_count=64,
            max_speed_gbps=400, form_factor="QSFP-DD", breakout_modes=("1x400G", "2x200G", "4x100G"),
            buffer_mb=113.0, typical_power_w=750.0,
        ),
    )
}

# What the planner picks when the parameters do not name a model (first one with enough ports and speed).
DEFAULT_MODELS_BY_PLATFORM: dict[str, tuple[str, ...]] = {
    "eos": ("DCS-7060DX5-64S", "DCS-7060X6-64PE", "DCS-7816R4"),
    "sonic": ("Z9664F-ON", "SN5600", "DCS-7816R4"),
    "frr": ("Z9664F-ON", "SN5600", "DCS-7816R4"),
}


@dataclass(frozen=True, slots=True)
class Media:
    """An optic or cable-end type: what it plugs into, what cable it takes and how far it reaches."""

    name: str
    speed_gbps: int
    cable_type: str
    reach_m: float
    source: str  # where the reach comes from


# Reaches: IEEE 802.3 PMD clauses and MSAs; DAC/AOC reaches are the longest lengths vendors qualify.
MEDIA: dict[str, Media] = {
    media.name: media
    for media in (
        Media("100G-DAC", 100, CableType.DAC, 5.0, "IEEE 802.3bj 100GBASE-CR4: 5 m"),
        Media("100G-AOC", 100, CableType.AOC, 30.0, "vendor AOC qualification: up to 30 m"),
        Media("100G-SR4", 100, CableType.MMF, 100.0, "IEEE 802.3bm 100GBASE-SR4: 100 m on OM4"),
        Media("100G-DR", 100, CableType.SMF, 500.0, "IEEE 802.3cd 100GBASE-DR: 500 m"),
        Media("200G-DAC", 200, CableType.DAC, 3.0, "IEEE 802.3cd 200GBASE-CR4 (clause 136): 3 m"),
        Media("200G-AOC", 200, CableType.AOC, 30.0, "vendor 200G QSFP56 AOC qualification: up to 30 m"),
        Media("200G-SR4", 200, CableType.MMF, 100.0, "IEEE 802.3cd 200GBASE-SR4 (clause 138): 100 m on OM4"),
        Media("200G-DR4", 200, CableType.SMF, 500.0, "IEEE 802.3bs 200GBASE-DR4 (clause 121): 500 m"),
        Media("200G-FR4", 200, CableType.SMF, 2000.0, "IEEE 802.3bs 200GBASE-FR4 (clause 122): 2 km"),
        Media("400G-DAC", 400, CableType.DAC, 3.0, "QSFP-DD/OSFP passive copper 400GBASE-CR8 (802.3ck class): ~3 m"),
        Media("400G-AOC", 400, CableType.AOC, 30.0, "vendor 400G AOC qualification: up to 30 m"),
        Media("400G-SR8", 400, CableType.MMF, 100.0, "IEEE 802.3cm 400GBASE-SR8: 100 m on OM4"),
        Media("400G-DR4", 400, CableType.SMF, 500.0, "IEEE 802.3bs 400GBASE-DR4: 500 m"),
        Media("400G-FR4", 400, CableType.SMF, 2000.0, "100G Lambda MSA 400G-FR4: 2 km"),
        Media("800G-DAC", 800, CableType.DAC, 2.0, "IEEE 802.3ck 100G/lane copper (800G OSFP DAC): ~2 m"),
        Media("800G-AOC", 800, CableType.AOC, 30.0, "vendor 800G AOC qualification: up to 30 m"),
        Media("800G-2xSR4", 800, CableType.MMF, 50.0, "IEEE 802.3db 100GBASE-SR (x8): 50 m on OM4"),
        Media("800G-2xDR4", 800, CableType.SMF, 500.0, "IEEE 802.3df/800G Pluggable MSA 2x400G-DR4: 500 m"),
        Media("800G-2xFR4", 800, CableType.SMF, 2000.0, "800G Pluggable MSA 2xFR4: 2 km"),
    )
}

# Vendor part numbers of optics -> (catalogue media, reach in metres when the part reaches less than the media's
# standard reach, source). Read by the NetBox importer for inventory items (``part_id``) and module types
# (``part_number``); a part number not listed here is still recognised when it contains a media name.
OPTIC_PART_NUMBERS: dict[str, tuple[str, float | None, str]] = {
    # NVIDIA LinkX twin-port OSFP for Spectrum-4 (SN5600) / Quantum-2: two 400G engines in one OSFP plug
    "MMA4Z00-NS": ("800G-2xSR4", None, "NVIDIA MMA4Z00-NS: 800Gb/s twin-port OSFP 2x400G SR4, multimode, 50 m"),
    "MMS4X00-NM": ("800G-2xDR4", None, "NVIDIA MMS4X00-NM: 800Gb/s twin-port OSFP 2x400G DR4, single mode, 500 m "
                                       "(docs.nvidia.com/networking/display/mms4x00nm800g500m)"),
    "MMS4X00-NS": ("800G-2xDR4", 100.0, "NVIDIA MMS4X00-NS: 800Gb/s twin-port OSFP 2x400G DR8, single mode, 100 m "
                                        "(docs.nvidia.com/networking/display/800gmms4x00ns)"),
    "MMS4X50-NM": ("800G-2xFR4", None, "NVIDIA MMS4X50-NM: 800Gb/s twin-port OSFP 2xFR4, single mode, 2 km "
                                       "(docs.nvidia.com/networking/display/mms4x50nm800g2kmpub)"),
    "MMS4X00-NS400": ("400G-DR4", 100.0, "NVIDIA MMS4X00-NS400: 400Gb/s single-port OSFP DR4 for ConnectX-7, 100 m"),
    # Arista (Transceiver Compatibility and Interoperability guide: 400GBASE-DR4 500 m, -FR4 2 km, -SR8 100 m OM4)
    "QDD-400G-DR4": ("400G-DR4", None, "Arista QDD-400G-DR4: 400GBASE-DR4 QSFP-DD, 500 m parallel SMF"),
    "QDD-400G-FR4": ("400G-FR4", None, "Arista QDD-400G-FR4: 400GBASE-FR4 QSFP-DD, 2 km duplex SMF"),
    "QDD-400G-SR8": ("400G-SR8", None, "Arista QDD-400G-SR8: 400GBASE-SR8 QSFP-DD, 100 m OM4"),
    "OSFP-400G-DR4": ("400G-DR4", None, "Arista OSFP-400G-DR4: 400GBASE-DR4 OSFP, 500 m parallel SMF"),
    "OSFP-400G-FR4": ("400G-FR4", None, "Arista OSFP-400G-FR4: 400GBASE-FR4 OSFP, 2 km duplex SMF"),
    "OSFP-400G-SR8": ("400G-SR8", None, "Arista OSFP-400G-SR8: 400GBASE-SR8 OSFP, 100 m OM4"),
    "OSFP-800G-2DR4": ("800G-2xDR4", None, "Arista OSFP-800G-2DR4: 2x 400GBASE-DR4 OSFP, 500 m parallel SMF"),
    "OSFP-800G-2FR4": ("800G-2xFR4", None, "Arista OSFP-800G-2FR4: 2x 400GBASE-FR4 OSFP, 2 km duplex SMF"),
}


def media_for_part(part_number: str) -> tuple[str, float | None] | None:
    """(media, reach override) for a vendor part number; a catalogue media name inside it also counts; else None.

    Vendors suffix part numbers (``-T``, ``-FLT``, ``-C``...): the longest listed part number it starts with wins."""
    part = part_number.strip().upper()
    for known in sorted(OPTIC_PART_NUMBERS, key=len, reverse=True):
        if part == known or part.startswith(known + "-") or part.startswith(known + "_"):
            media, reach, _source = OPTIC_PART_NUMBERS[known]
            return media, reach
    name = next((name for name in sorted(MEDIA, key=len, reverse=True) if name.upper() in part), None)
    return (name, None) if name else None


# Standard cable lengths sold for each cable type (metres); a run is rounded up to the next one.
STANDARD_LENGTHS_M: dict[str, tuple[float, ...]] = {
    CableType.DAC: (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0),
    CableType.AOC: (3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 25.0, 30.0),
    CableType.MMF: (5.0, 10.0, 15.0, 20.0, 30.0, 50.0, 70.0, 100.0),
    CableType.SMF: tuple(float(metres) for metres in range(5, 2005, 5)),
}

# Order of preference for a run of a given length: cheapest, lowest-power media first.
_PREFERENCE = (CableType.DAC, CableType.AOC, CableType.MMF, CableType.SMF)


def media_for(speed_gbps: int, distance_m: float) -> Media:
    """The preferred media for a link of this speed over this distance (DAC, then AOC, then MMF, then SMF)."""
    candidates = [m for m in MEDIA.values() if m.speed_gbps == speed_gbps and m.reach_m >= distance_m]
    if not candidates:
        raise ValueError(f"no optic or cable for {speed_gbps}G over {distance_m} m")
    return min(candidates, key=lambda m: (_PREFERENCE.index(m.cable_type), m.reach_m))


def standard_length(cable_type: str, distance_m: float) -> float:
    """Round a run up to the next standard cable length of that type."""
    for length in STANDARD_LENGTHS_M[cable_type]:
        if length >= distance_m:
            return length
    return STANDARD_LENGTHS_M[cable_type][-1]
