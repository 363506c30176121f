"""allocate(): deterministic, stable under growth, per-rack ASNs, clear errors on exhaustion and collisions."""

from __future__ import annotations

import ipaddress

import pytest

from compiler.allocate import allocate
from compiler.errors import AllocationError
from compiler.model import Allocations


def test_allocation_is_deterministic(snapshot):
    first = allocate(snapshot.inventory, snapshot.intent, Allocations())
    second = allocate(snapshot.inventory, snapshot.intent, Allocations())
    assert first == second


def test_spines_first_lowest_values(snapshot):
    allocations = allocate(snapshot.inventory, snapshot.intent)
    assert allocations.loopbacks["spine1"] == "10.0.0.1"
    assert allocations.loopbacks["spine2"] == "10.0.0.2"
    assert allocations.loopbacks["leaf1"] == "10.0.0.3"
    assert allocations.vteps["leaf1"] == "10.0.4.1"
    assert "spine1" not in allocations.vteps
    assert allocations.asns["spine1"] == allocations.asns["spine2"] == 65000
    assert [allocations.asns[f"leaf{i}"] for i in range(1, 5)] == [65100, 65101, 65102, 65103]
    assert allocations.l2vnis == {"net10": 10010, "net20": 10020}
    assert allocations.l3vnis == {"A": 50001, "B": 50002}


def test_p2p_upper_end_gets_even_address(snapshot):
    allocations = allocate(snapshot.inventory, snapshot.intent)
    for cable in snapshot.inventory.cables:
        if cable.label not in allocations.p2p:
            continue
        a_end, b_end = allocations.p2p[cable.label]
        spine_end = a_end if cable.a.device.startswith("spine") else b_end
        assert int(ipaddress.IPv4Interface(spine_end).ip) % 2 == 0
        assert ipaddress.IPv4Interface(a_end).network == ipaddress.IPv4Interface(b_end).network
    assert len(allocations.p2p) == 8  # 2 spines x 4 leaves


def test_growing_fabric_moves_nothing(make_snapshot):
    small = make_snapshot()
    stored = allocate(small.inventory, small.intent)
    grown = make_snapshot(clos={"leaves": 6})
    regrown = allocate(grown.inventory, grown.intent, stored)
    for section in ("asns", "loopbacks", "vteps", "p2p", "l2vnis", "l3vnis"):
        before, after = getattr(stored, section), getattr(regrown, section)
        assert all(after[key] == value for key, value in before.items()), section
    assert {"leaf5", "leaf6"} <= set(regrown.asns)
    # New objects take the lowest free values: nothing already used is handed out twice.
    assert len(set(regrown.loopbacks.values())) == len(regrown.loopbacks)
    assert len({pair[0] for pair in regrown.p2p.values()}) == len(regrown.p2p)


def test_existing_entries_win_even_out_of_order(snapshot):
    stored = Allocations(loopbacks={"leaf4": "10.0.0.1"}, asns={"leaf2": 65400})
    allocations = allocate(snapshot.inventory, snapshot.intent, stored)
    assert allocations.loopbacks["leaf4"] == "10.0.0.1"
    assert allocations.loopbacks["spine1"] == "10.0.0.2"  # lowest free after the stored one
    assert allocations.asns["leaf2"] == 65400
    assert allocations.asns["leaf1"] == 65100


def test_per_rack_scheme_shares_asn_in_rack(make_snapshot):
    snapshot = make_snapshot(clos={"rails_per_server": 2, "leaves": 4}, intent={"asn_scheme": "per_rack"})
    allocations = allocate(snapshot.inventory, snapshot.intent)
    by_rack: dict = {}
    for switch in snapshot.inventory.switches:
        if switch.role == "leaf":
            by_rack.setdefault(switch.rack, set()).add(allocations.asns[switch.hostname])
    assert len(by_rack) == 2
    assert all(len(asns) == 1 for asns in by_rack.values())
    assert len({next(iter(asns)) for asns in by_rack.values()}) == 2


def test_spine_plane_asn(make_snapshot):
    snapshot = make_snapshot()
    from dataclasses import replace

    switches = tuple(replace(s, plane=1) if s.hostname == "spine2" else s for s in snapshot.inventory.switches)
    inventory = replace(snapshot.inventory, switches=switches)
    allocations = allocate(inventory, snapshot.intent)
    assert allocations.asns["spine1"] == 65000
    assert allocations.asns["spine2"] == 65001


def test_exhausted_loopback_pool_says_needed_and_free(snapshot):
    from dataclasses import replace

    intent = replace(snapshot.intent, pools=replace(snapshot.intent.pools, loopback="10.0.0.0/29"))
    with pytest.raises(AllocationError, match=r"pools.loopback='10.0.0.0/29': too small for router-id loopbacks: "
                                              r"6 needed \(6 new\), 5 free of 6") as caught:
        allocate(snapshot.inventory, intent, Allocations(loopbacks={"old": "10.0.0.1"}))
    assert caught.value.errors[0].field == "pools.loopback"


def test_exhausted_asn_range(snapshot):
    from dataclasses import replace

    intent = replace(snapshot.intent, pools=replace(snapshot.intent.pools, asn_first=65100, asn_last=65102))
    with pytest.raises(AllocationError, match="4 ASNs needed"):
        allocate(snapshot.inventory, intent)


def test_stored_duplicate_asn_is_a_collision(snapshot):
    with pytest.raises(AllocationError, match=r"allocations.asns\[leaf2\]=65100: stored ASN already used by leaf1"):
        allocate(snapshot.inventory, snapshot.intent, Allocations(asns={"leaf1": 65100, "leaf2": 65100}))


def test_stored_leaf_asn_equal_to_spine_is_a_collision(snapshot):
    with pytest.raises(AllocationError, match="collides with a spine ASN"):
        allocate(snapshot.inventory, snapshot.intent, Allocations(asns={"leaf1": 65000}))


def test_stored_duplicate_loopback_is_a_collision(snapshot):
    with pytest.raises(AllocationError, match="collides with leaf1"):
        allocate(snapshot.inventory, snapshot.intent, Allocations(loopbacks={"leaf1": "10.0.0.9", "leaf2": "10.0.0.9"}))


def test_per_rack_stored_mismatch_in_one_rack(make_snapshot):
    snapshot = make_snapshot(clos={"rails_per_server": 2}, intent={"asn_scheme": "per_rack"})
    rack_mates = [s.hostname for s in snapshot.inventory.switches if s.role == "leaf"][:2]
    with pytest.raises(AllocationError, match="one ASN per rack"):
        allocate(snapshot.inventory, snapshot.intent, Allocations(asns={rack_mates[0]: 65100, rack_mates[1]: 65101}))


def test_explicit_and_stored_vnis(make_snapshot):
    snapshot = make_snapshot()
    stored = Allocations(l2vnis={"net10": 77777}, l3vnis={"B": 50005})
    allocations = allocate(snapshot.inventory, snapshot.intent, stored)
    assert allocations.l2vnis["net10"] == 77777  # stored default kept
    assert allocations.l3vnis == {"A": 50001, "B": 50005}


def test_unnumbered_allocates_no_p2p(make_snapshot):
    snapshot = make_snapshot(intent={"underlay": "unnumbered"})
    assert allocate(snapshot.inventory, snapshot.intent).p2p == {}
