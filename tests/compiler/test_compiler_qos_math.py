"""PFC headroom and VXLAN arithmetic against hand-computed values."""

from __future__ import annotations

import pytest

from compiler.qos_math import (
    cable_round_trip_bytes,
    pfc_headroom,
    pfc_response_quanta,
    static_headroom,
    vxlan_mtu,
)


def test_cable_round_trip_400g_100m():
    # 2 * 100 m * 5 ns/m = 1 us; 1 us at 400 Gb/s = 400,000 bits = 50,000 bytes.
    assert cable_round_trip_bytes(400, 100) == pytest.approx(50_000)


def test_headroom_400g_3m_jumbo_by_hand():
    # 2*9214 + 1.25*3*400 (1,500) + 905 quanta * 64 bytes (57,920) = 77,848 bytes, rounded up to 1024: 78,848
    headroom = pfc_headroom(400, 3.0, 9214)
    assert headroom.xoff_bytes == 78_848
    assert headroom.xon_bytes == 18_432  # 2 * 9214 = 18,428 -> 18,432
    assert headroom.size_bytes == 78_848 + 18_432


def test_headroom_grows_with_length_and_speed():
    short, long = pfc_headroom(400, 3, 9214), pfc_headroom(400, 300, 9214)
    assert long.xoff_bytes - short.xoff_bytes >= int(1.25 * 297 * 400) - 1024
    assert pfc_headroom(800, 3, 9214).xoff_bytes > pfc_headroom(400, 3, 9214).xoff_bytes
    assert pfc_headroom(100, 3, 9214).xoff_bytes < short.xoff_bytes


def test_response_quanta_table_and_extrapolation():
    assert pfc_response_quanta(100) == 394
    assert pfc_response_quanta(400) == 905
    assert pfc_response_quanta(800) == 1810
    assert pfc_response_quanta(300) == 905  # between table speeds: the faster one (never less headroom)


def test_bad_inputs_rejected():
    with pytest.raises(ValueError, match="speed_gbps must be positive, got 0"):
        pfc_headroom(0, 3, 9214)
    with pytest.raises(ValueError, match="cable_length_m"):
        pfc_headroom(400, -1, 9214)


def test_static_headroom_keeps_size():
    headroom = static_headroom(200_000, 9214)
    assert headroom.size_bytes == 200_000
    assert headroom.xoff_bytes + headroom.xon_bytes == 200_000


def test_vxlan_mtu_rfc7348():
    assert vxlan_mtu(9214) == 9164
    assert vxlan_mtu(9216) == 9166  # the value the twin notes measured
