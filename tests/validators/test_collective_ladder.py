"""The collective simulator's validation ladder (docs/collective.md):

(i)  closed form: m flows hashed into n members -- the collision probability exactly (formula = enumeration) and
     the simulator's collision rate and expected max load over 10,000 trials against it (max load within 2 %);
(ii) the kernel's RoCE source port bit-exact on 10^5 QP-number pairs against a line-by-line transcription of
     include/rdma/ib_verbs.h, and every switch hash against an independent implementation;
(iv) the published effects in direction and size: more QPs per connection lower the bottleneck (Meta, SIGCOMM
     2024), equal seeds on two tiers polarize and distinct ones do not, single-choice planes (Alibaba HPN's
     dual-plane) remove the second tier's polarization.
(iii), the live twin as the oracle, is not done (docs/collective.md says so).
"""

from __future__ import annotations

import binascii
import itertools
import math
import zlib
from fractions import Fraction

import numpy as np
import pytest

from compiler.clos import ClosParams, plan_clos
from compiler.pods import PodsParams, plan_pods
from validators.collective import FabricGraph, HashConfig, HashPolicy, Job, Scenario, simulate
from validators.collective.closed_form import collision_probability, expected_max_load
from validators.collective.hashing import (
    crc16_bisync,
    crc16_ccitt,
    crc32,
    member_index,
    pack_fields,
    random_oracle,
    rotate,
    xor16,
)
from validators.collective.kernel import roce_udp_sport

# ----------------------------------------------------------------------------------------- (i) closed form


@pytest.mark.parametrize("flows,members", [(2, 2), (3, 4), (4, 4), (5, 3), (6, 5)])
def test_closed_forms_equal_exhaustive_enumeration(flows, members):
    outcomes = list(itertools.product(range(members), repeat=flows))
    collide = sum(len(set(o)) < flows for o in outcomes)
    max_load = sum(max(o.count(m) for m in range(members)) for o in outcomes)
    assert collision_probability(flows, members) == Fraction(collide, len(outcomes))
    assert expected_max_load(flows, members) == Fraction(max_load, len(outcomes))


FLOWS, MEMBERS, TRIALS = 6, 8, 10_000


@pytest.fixture(scope="module")
def one_hop():
    """Two leaves under 8 spines; a ring alternating between the leaves: 6 flows leave each leaf, 1 QP each."""
    inventory = plan_clos(ClosParams(name="hop", spines=MEMBERS, leaves=2, servers_per_leaf=FLOWS))
    order = tuple(f"gpu{number:04d}" for pair in zip(range(1, FLOWS + 1), range(FLOWS + 1, 2 * FLOWS + 1),
                                                     strict=True) for number in pair)
    return inventory, FabricGraph(inventory), Job(servers=order)


def max_on_leaf1_uplinks(graph, prediction):
    uplinks = [link for link in range(graph.switch_links) if graph.names[graph.tail[link]] == "leaf1"]
    assert len(uplinks) == MEMBERS
    return prediction.link_flows[:, uplinks].max(axis=1)


@pytest.mark.parametrize("function,sport", [("random", "random"), ("crc16-ccitt", "kernel"), ("crc32-hi", "kernel")])
def test_simulated_collisions_and_max_load_match_the_closed_form(one_hop, function, sport):
    inventory, graph, job = one_hop
    prediction = simulate(inventory, Scenario(job=job, channels=1, qps=1, sport=sport, trials=TRIALS, seed=7,
                                              hashing=HashPolicy(default=HashConfig(function=function),
                                                                 distinct_seeds=True)), graph=graph)
    maximum = max_on_leaf1_uplinks(graph, prediction)
    exact_max = float(expected_max_load(FLOWS, MEMBERS))
    assert abs(maximum.mean() - exact_max) / exact_max < 0.02, (maximum.mean(), exact_max)
    p = float(collision_probability(FLOWS, MEMBERS))
    sigma = math.sqrt(p * (1 - p) / TRIALS)
    assert abs((maximum >= 2).mean() - p) < 4 * sigma, ((maximum >= 2).mean(), p)
    # the tier figure: >= 2 elephants share a link of either leaf's uplinks
    tier = next(t for t in prediction.tiers if t.tier == "leaf->spine")
    both = 1 - (1 - p) ** 2
    assert abs(tier.elephant_share_probability - both) < 4 * math.sqrt(both * (1 - both) / TRIALS) + 1e-9


def test_a_single_source_port_is_not_mistaken_for_random_hashing(one_hop):
    """Broken case: every QP pinned to one source port -- all flows from a leaf share one hash input except the
    addresses; the max load is far from the closed form."""
    inventory, graph, job = one_hop
    prediction = simulate(inventory, Scenario(job=job, channels=1, qps=1, sport="pinned", pinned_sports=(49152,),
                                              trials=200, hashing=HashPolicy(default=HashConfig(function="xor16"))),
                          graph=graph)
    maximum = max_on_leaf1_uplinks(graph, prediction)
    assert maximum.std() == 0  # nothing varies between trials: the hash sees the same headers
    assert abs(maximum.mean() - float(expected_max_load(FLOWS, MEMBERS))) > 0.05 * float(expected_max_load(FLOWS, MEMBERS))


# ------------------------------------------------------------------------------ (ii) bit-exact functions


def kernel_sport(lqpn: int, rqpn: int) -> int:
    """include/rdma/ib_verbs.h, rdma_calc_flow_label + rdma_flow_label_to_udp_sport, line by line."""
    fl = (lqpn * rqpn) & 0xFFFFFFFFFFFFFFFF  # u64 fl = (u64)lqpn * rqpn;
    fl ^= fl >> 20
    fl ^= fl >> 40
    fl = fl & 0x000FFFFF  # IB_GRH_FLOWLABEL_MASK
    fl_low, fl_high = fl & 0x03FFF, fl & 0xFC000
    fl_low ^= fl_high >> 14
    return (fl_low | 0xC000) & 0xFFFF  # IB_ROCE_UDP_ENCAP_VALID_PORT_MIN


def test_kernel_source_port_is_bit_exact_on_100000_pairs():
    rng = np.random.default_rng(2024)
    lqpn = rng.integers(0, 1 << 24, size=100_000)
    rqpn = rng.integers(0, 1 << 24, size=100_000)
    lqpn[:4], rqpn[:4] = [0, 0xFFFFFF, 1, 0xFFFFFF], [0, 0xFFFFFF, 0xFFFFFF, 1]
    ours = roce_udp_sport(lqpn, rqpn)
    reference = np.array([kernel_sport(int(a), int(b)) for a, b in zip(lqpn, rqpn, strict=True)])
    assert np.array_equal(ours, reference)
    assert np.array_equal(ours, roce_udp_sport(rqpn, lqpn))  # symmetric: both ends compute the same port
    assert ours.min() >= 49152 and len(np.unique(ours)) > 16_000  # 14 bits, well spread


def test_a_wrong_fold_is_caught():
    """Broken case: a transcription without the 40-bit fold differs from the kernel on most large products."""
    def no_second_fold(lqpn, rqpn):
        fl = (lqpn * rqpn) & 0xFFFFFFFFFFFFFFFF
        fl ^= fl >> 20
        fl &= 0x000FFFFF
        return ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000

    rng = np.random.default_rng(1)
    pairs = rng.integers(1 << 20, 1 << 24, size=(1000, 2))
    ours = roce_udp_sport(pairs[:, 0], pairs[:, 1])
    wrong = np.array([no_second_fold(int(a), int(b)) for a, b in pairs])
    assert (ours != wrong).mean() > 0.9


def bitwise_crc16_bisync(data: bytes, init: int) -> int:
    crc = init
    for byte in data:
        for bit in range(8):
            mix = (crc ^ (byte >> bit)) & 1
            crc >>= 1
            if mix:
                crc ^= 0xA001
    return crc


def test_switch_hashes_match_independent_implementations():
    rng = np.random.default_rng(5)
    data = rng.integers(0, 256, size=(2000, 16), dtype=np.uint8)
    seeds = rng.integers(0, 1 << 32, size=2000, dtype=np.uint64)
    rows = [bytes(row) for row in data]
    assert np.array_equal(crc16_ccitt(data, seeds), [binascii.crc_hqx(r, int(s) & 0xFFFF) for r, s in zip(rows, seeds, strict=True)])
    assert np.array_equal(crc32(data, seeds), [zlib.crc32(r, int(s)) for r, s in zip(rows, seeds, strict=True)])
    assert np.array_equal(crc16_bisync(data, seeds), [bitwise_crc16_bisync(r, int(s) & 0xFFFF) for r, s in zip(rows, seeds, strict=True)])
    check = np.frombuffer(b"123456789", dtype=np.uint8)[None, :]
    zero = np.zeros(1, dtype=np.uint64)
    assert int(crc16_bisync(check, zero)[0]) == 0xBB3D  # CRC-16/ARC check value (reveng catalogue)
    assert int(crc16_ccitt(check, zero)[0]) == 0x31C3  # CRC-16/XMODEM check value
    assert int(crc32(check, zero)[0]) == 0xCBF43926  # CRC-32 (IEEE 802.3) check value
    words = [[(r[i] << 8) | r[i + 1] for i in range(0, 16, 2)] for r in rows]
    assert np.array_equal(xor16(data, seeds), [_xor(w) ^ (int(s) & 0xFFFF) for w, s in zip(words, seeds, strict=True)])
    assert np.array_equal(rotate(np.array([0x8001], dtype=np.uint32), np.array([1]), 16), [0xC000])
    assert not np.array_equal(random_oracle(data, seeds), random_oracle(data, seeds + np.uint64(1)))


def _xor(words):
    value = 0
    for word in words:
        value ^= word
    return value


def test_header_packing_is_network_order():
    packed = pack_fields([(np.array([0x0A000001]), 4), (np.array([4791]), 2), (np.array([0xABCDEF]), 3)])
    assert bytes(packed[0]) == bytes([10, 0, 0, 1, 0x12, 0xB7, 0xAB, 0xCD, 0xEF])


# ---------------------------------------------------------------------------- (iv) published effects


@pytest.fixture(scope="module")
def spread_ring():
    """8 leaves x 4 servers under 4 spines (1:1); ring order alternates leaves, so every hop crosses a spine."""
    inventory = plan_clos(ClosParams(name="qp", spines=4, leaves=8, servers_per_leaf=4))
    order = tuple(f"gpu{leaf * 4 + slot + 1:04d}" for slot in range(4) for leaf in range(8))
    return inventory, FabricGraph(inventory), Job(servers=order)


def test_more_qps_per_connection_lower_the_bottleneck(spread_ring):
    inventory, graph, job = spread_ring
    p95 = {qps: simulate(inventory, Scenario(job=job, channels=1, qps=qps, trials=64), graph=graph).percentile(95)
           for qps in (1, 4, 16)}
    assert p95[1] >= 2.0  # a collision doubles a link's load: the collective runs at half speed
    assert p95[1] > p95[4] > p95[16]
    assert p95[1] / p95[16] >= 2  # measured here: 4.0 -> 1.62 (balls into bins: 64 flows on 4 uplinks)


def five_stage(spines: int, super_spines_per_plane: int):
    return plan_pods(PodsParams(name=f"pol{spines}", pods=2, super_spines_per_plane=super_spines_per_plane,
                                pod=ClosParams(spines=spines, leaves=8, servers_per_leaf=4)))


def cross_pod_scenario(hashing: HashPolicy, qps: int = 4) -> Scenario:
    return Scenario(job=Job(gpus=512), collective="alltoall-pxn", qps=qps, trials=4, hashing=hashing)


def tier(prediction, name):
    return next(t for t in prediction.tiers if t.tier == name)


@pytest.fixture(scope="module")
def planes():
    inventory = five_stage(spines=4, super_spines_per_plane=4)
    return inventory, FabricGraph(inventory)


def test_equal_seeds_on_two_tiers_polarize_and_distinct_seeds_do_not(planes):
    inventory, graph = planes
    keyed = HashConfig(function="random", seed=7)
    equal = simulate(inventory, cross_pod_scenario(HashPolicy(default=keyed)), graph=graph)
    distinct = simulate(inventory, cross_pod_scenario(HashPolicy(default=keyed, distinct_seeds=True)), graph=graph)
    up_equal, up_distinct = tier(equal, "spine->super-spine"), tier(distinct, "spine->super-spine")
    assert up_equal.polarization >= 0.8 and up_equal.idle_links >= 0.5 * up_equal.links
    assert up_distinct.polarization <= 0.1 and up_distinct.idle_links <= 0.05 * up_distinct.links
    assert tier(equal, "leaf->spine").concentration <= 0.1  # the first tier itself spreads well
    assert equal.percentile(50) > distinct.percentile(50)


def test_distinct_crc_seeds_still_polarize_but_a_hash_offset_does_not(planes):
    """A CRC applies its seed as an XOR constant: tiers seeded differently but uniformly stay polarized on
    power-of-two groups; rotating the second tier's hash (a different offset) decorrelates it."""
    inventory, graph = planes
    crc = "crc16-ccitt"
    seeded = HashPolicy(default=HashConfig(function=crc, seed=1), by_role={"spine": HashConfig(function=crc, seed=2)})
    offset = HashPolicy(default=HashConfig(function=crc, seed=1),
                        by_role={"spine": HashConfig(function=crc, seed=1, offset=5)})
    assert tier(simulate(inventory, cross_pod_scenario(seeded), graph=graph), "spine->super-spine").polarization >= 0.8
    assert tier(simulate(inventory, cross_pod_scenario(offset), graph=graph), "spine->super-spine").polarization <= 0.1


def test_single_choice_planes_remove_second_tier_polarization(planes):
    """Alibaba HPN's dual-plane principle: after the first hop, one way up. The same 16 super-spines as 16
    planes of one (16 spines per pod) leave the spine tier no choice, so nothing can polarize or sit idle."""
    inventory, graph = planes
    equal = HashPolicy(default=HashConfig(function="crc16-ccitt"))
    shared = tier(simulate(inventory, cross_pod_scenario(equal), graph=graph), "spine->super-spine")
    single = five_stage(spines=16, super_spines_per_plane=1)
    separate = tier(simulate(single, cross_pod_scenario(equal)), "spine->super-spine")
    assert shared.polarization >= 0.8 and shared.idle_links >= 0.5 * shared.links
    assert separate.concentration is None and separate.polarization is None  # no choice left at that tier
    assert separate.idle_links <= 0.05 * separate.links


def test_member_tables_and_offsets_shape_the_choice():
    """(hash % T) % n: a 4-slot table over 3 members gives member 0 half the flows; 64 slots nearly a third."""
    values = np.arange(1 << 16, dtype=np.uint32)
    three = np.full(len(values), 3)
    small = np.bincount(member_index(values, three, np.full(len(values), 4)), minlength=3) / len(values)
    large = np.bincount(member_index(values, three, np.full(len(values), 64)), minlength=3) / len(values)
    plain = np.bincount(member_index(values, three, np.zeros(len(values), dtype=np.int64)), minlength=3) / len(values)
    assert np.allclose(small, [0.5, 0.25, 0.25])
    assert np.allclose(large, [22 / 64, 21 / 64, 21 / 64])
    assert np.abs(plain - 1 / 3).max() < 1e-4


def test_vxlan_outer_source_port_keeps_the_entropy(one_hop):
    """Under VXLAN the switches hash the outer header, whose only varying field between two VTEPs is the source
    port the ingress VTEP derives from the inner headers: 6 flows into 8 uplinks still match the closed form."""
    inventory, graph, job = one_hop
    vxlan = simulate(inventory, Scenario(job=job, channels=1, qps=1, trials=4000, seed=3, encapsulation="vxlan",
                                         hashing=HashPolicy(default=HashConfig(function="crc32-lo"),
                                                            distinct_seeds=True)), graph=graph)
    maximum = max_on_leaf1_uplinks(graph, vxlan)
    exact = float(expected_max_load(FLOWS, MEMBERS))
    assert abs(maximum.mean() - exact) / exact < 0.03
