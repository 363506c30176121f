"""Pure arithmetic for lossless Ethernet and VXLAN that both the compiler and the validators use.

PFC headroom (per lossless priority group of one port)
------------------------------------------------------
Once a port decides to pause a priority it must still absorb everything already on the way. The IEEE 802.1Qbb
delay model (and SONiC's dynamic headroom calculation, ``sonic-swss cfgmgr/buffer_headroom_<vendor>.lua``,
"Dynamically Headroom Calculation" HLD) sums:

* ``2 * MTU`` -- the frame the receiver is transmitting when it decides to pause (the PFC frame waits behind
  it) plus the frame the sender has already started when the PFC frame arrives;
* ``bytes on the cable, both directions`` -- propagation at ~5 ns/m (signals travel at ~2e8 m/s in fibre and
  twinax; SONiC uses 198,000,000 m/s) for the PFC frame going out and the data coming back:
  ``2 * length_m * 5 ns * speed / 8`` bytes = ``1.25 * length_m * speed_gbps`` bytes;
* ``peer response time`` -- how long the peer's MAC may keep sending after receiving the PFC frame, given in
  pause quanta (1 quantum = 512 bit times) per operating speed by IEEE 802.3 Annex 31B.3.7 (the same table the
  sonic-swss Barefoot headroom script carries). 800G+ are not in that table: we assume the quanta scale with
  speed from 400G (905 quanta at 400G -> 1810 at 800G), a conservative extrapolation.

What we implement exactly::

    xoff = ceil_1024(2 * mtu + 1.25 * cable_length_m * speed_gbps + response_quanta(speed) * 64 + mac_phy_bytes)
    xon  = ceil_1024(2 * mtu)         # resume once two jumbo frames of room are free again
    size = xoff + xon                 # reserved headroom per lossless priority group (no shared headroom pool)

Values are rounded up to 1024-byte cells as SONiC does. ``mac_phy_bytes`` (bytes held in the local MAC/PHY
pipeline) defaults to 0 because it is ASIC specific; pass the ASIC's value when known.

VXLAN
-----
RFC 7348 over IPv4 adds 50 bytes to the inner Ethernet frame (outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8):
an inner L3 MTU of ``host_mtu`` needs an underlay L3 MTU of at least ``host_mtu + 50``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

VXLAN_OVERHEAD_BYTES = 50  # RFC 7348 section 5, IPv4 outer header without 802.1Q tag
VXLAN_UDP_PORT = 4789  # IANA-assigned VXLAN port, RFC 7348 section 5
PROPAGATION_NS_PER_M = 5.0  # ~2e8 m/s in fibre and copper twinax
PAUSE_QUANTUM_BITS = 512  # IEEE 802.3 Annex 31B
HEADROOM_CELL_BYTES = 1024

# IEEE 802.3 Annex 31B.3.7: maximum PAUSE/PFC response delay in pause quanta, by operating speed (Gb/s).
PFC_RESPONSE_QUANTA: dict[int, int] = {400: 905, 200: 453, 100: 394, 50: 147, 40: 118, 25: 80, 10: 67, 1: 2}


@dataclass(frozen=True, slots=True)
class Headroom:
    xoff_bytes: int
    xon_bytes: int
    size_bytes: int

    def as_dict(self, policy: str) -> dict:
        return {"xoff_bytes": self.xoff_bytes, "xon_bytes": self.xon_bytes, "size_bytes": self.size_bytes,
                "policy": policy}


def round_up_cells(value: float, cell: int = HEADROOM_CELL_BYTES) -> int:
    return int(math.ceil(value / cell) * cell)


def pfc_response_quanta(speed_gbps: int) -> int:
    """Pause quanta the peer may need to stop sending, per IEEE 802.3 31B.3.7 (extrapolated above 400G)."""
    if speed_gbps in PFC_RESPONSE_QUANTA:
        return PFC_RESPONSE_QUANTA[speed_gbps]
    if speed_gbps > 400:
        return math.ceil(PFC_RESPONSE_QUANTA[400] * speed_gbps / 400)
    # Between table speeds use the next faster speed's value (more headroom, never less).
    faster = min(speed for speed in PFC_RESPONSE_QUANTA if speed >= speed_gbps)
    return PFC_RESPONSE_QUANTA[faster]


def cable_round_trip_bytes(speed_gbps: int, cable_length_m: float) -> float:
    """Bytes in flight on the cable during one round trip: 2 * length * 5 ns/m * speed / 8."""
    return 2 * cable_length_m * PROPAGATION_NS_PER_M * 1e-9 * speed_gbps * 1e9 / 8


def pfc_headroom(speed_gbps: int, cable_length_m: float, mtu: int, mac_phy_bytes: int = 0) -> Headroom:
    """Headroom one lossless priority group of a port needs (see the module docstring for the model)."""
    if speed_gbps <= 0:
        raise ValueError(f"speed_gbps must be positive, got {speed_gbps}")
    if cable_length_m < 0:
        raise ValueError(f"cable_length_m must not be negative, got {cable_length_m}")
    response_bytes = pfc_response_quanta(speed_gbps) * PAUSE_QUANTUM_BITS / 8
    xoff = round_up_cells(2 * mtu + cable_round_trip_bytes(speed_gbps, cable_length_m) + response_bytes + mac_phy_bytes)
    xon = round_up_cells(2 * mtu)
    return Headroom(xoff_bytes=xoff, xon_bytes=xon, size_bytes=xoff + xon)


def static_headroom(headroom_bytes: int, mtu: int) -> Headroom:
    """Operator-fixed headroom: the whole reservation is ``headroom_bytes``; XON stays two frames."""
    xon = round_up_cells(2 * mtu)
    return Headroom(xoff_bytes=max(headroom_bytes - xon, 0), xon_bytes=xon, size_bytes=headroom_bytes)


def vxlan_mtu(underlay_mtu: int) -> int:
    """MTU of a VXLAN device / its bridge carried over an underlay of ``underlay_mtu`` (RFC 7348, IPv4)."""
    return underlay_mtu - VXLAN_OVERHEAD_BYTES


def kib(value_kb: int) -> int:
    """Intent thresholds are given in KiB (1024 bytes), structured config speaks bytes."""
    return value_kb * 1024
