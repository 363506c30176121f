"""eBGP simulation: the leaf-spine fast path and the per-origin engine agree with the reference path-vector
simulation on correct and broken fabrics; ECMP and VTEP reachability checks name the leaf pair and the cause."""

import pytest
from validator_fabrics import compiled, context, interface, neighbor, set_asn, three_tier

from validators import ecmp, reachability
from validators.context import FabricContext
from validators.routing import propagate, simulate_reference


def assert_fast_matches_reference(ctx):
    model = ctx.routing
    reference = simulate_reference(model)
    matrix = ctx.leaf_pairs
    compared = 0
    for origin in matrix.leaves:
        prefix = model.vtep_prefix[model.index[origin]]
        for receiver in matrix.leaves:
            if origin == receiver:
                continue
            route = reference[receiver].get(prefix)
            assert matrix.width(origin, receiver) == (route.ecmp_width if route else 0), (origin, receiver, route)
            compared += 1
    assert compared == len(matrix.leaves) * (len(matrix.leaves) - 1)
    return matrix


def shut_uplink(leaf, spine):
    def mutate(structured):
        interface(structured, leaf, peer=spine)["enabled"] = False
    return mutate


def collide(leaf_a, leaf_b):
    def mutate(structured):
        set_asn(structured, leaf_b, structured[leaf_a]["asn"])
    return mutate


def cap_paths(leaf, paths):
    def mutate(structured):
        structured[leaf]["bgp"]["maximum_paths"] = paths
    return mutate


def withdraw_vtep(leaf):
    def mutate(structured):
        vtep = structured[leaf]["vxlan"]["vtep_ip"] + "/32"
        structured[leaf]["bgp"]["networks"].remove(vtep)
    return mutate


CASES = {
    "correct 4x6": (dict(), None),
    "missing uplink": (dict(), shut_uplink("leaf3", "spine2")),
    "asn collision": (dict(), collide("leaf2", "leaf4")),
    "maximum_paths 2": (dict(), cap_paths("leaf1", 2)),
    "vtep not advertised": (dict(), withdraw_vtep("leaf5")),
    "two links per spine": (dict(spines=2, leaves=4, uplinks_per_spine=2), shut_uplink("leaf1", "spine1")),
    "one spine": (dict(spines=1, leaves=3), shut_uplink("leaf2", "spine1")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_path_matches_reference(case):
    params, mutate = CASES[case]
    matrix = assert_fast_matches_reference(context(compiled(**params), mutate))
    assert matrix.mode == "leaf-spine"


def test_multi_plane_valley_paths_match_reference():
    """Spines of two planes have different ASNs, so a leaf cut off from one plane is reached through another
    leaf (a valley path): only the propagation engine finds those, and it must agree with the reference."""

    def split(structured):
        for spine in ("spine1", "spine2"):
            interface(structured, "leaf1", peer=spine)["enabled"] = False
        for spine in ("spine3", "spine4"):
            interface(structured, "leaf2", peer=spine)["enabled"] = False

    ctx = context(compiled(spines=4, leaves=5, planes=2), split)
    matrix = assert_fast_matches_reference(ctx)
    assert matrix.tier.long_paths_possible
    assert matrix.width("leaf2", "leaf1") > 0  # reachable, but only through another leaf
    findings = ecmp.check_ecmp(ctx)
    assert any("through another leaf" in f.message and "leaf1" in f.subject for f in findings)
    assert reachability.check_vtep_reachability(ctx) == []


def test_correct_fabric_has_designed_ecmp_everywhere():
    ctx = context(compiled())
    assert ecmp.check_ecmp(ctx) == []
    assert reachability.check_vtep_reachability(ctx) == []
    assert ctx.leaf_pairs.summary()["min_ecmp"] == 4 and ctx.leaf_pairs.summary()["classes"] == 1


def test_missing_spine_uplink_gives_ecmp_3_instead_of_4():
    ctx = context(compiled(), shut_uplink("leaf3", "spine2"))
    findings = ecmp.check_ecmp(ctx)
    assert findings, "a missing uplink must fail the ECMP check"
    assert all(f.expected == 4 and f.actual == 3 for f in findings)
    assert any(f.subject.startswith("leaf3->") for f in findings)  # leaf3's routes towards the others
    assert any(f.subject.endswith("->leaf3") for f in findings)  # the others' routes towards leaf3
    assert all("missing paths via spine2" in f.message for f in findings)
    assert ctx.leaf_pairs.width("leaf1", "leaf3") == 3 and ctx.leaf_pairs.width("leaf1", "leaf2") == 4


def test_maximum_paths_caps_ecmp():
    findings = ecmp.check_ecmp(context(compiled(), cap_paths("leaf1", 2)))
    assert findings and all(f.actual == 2 and "maximum_paths 2" in f.message for f in findings)
    assert all(f.subject.startswith("leaf1->") for f in findings)


def test_asn_collision_makes_the_two_leaves_unreachable():
    ctx = context(compiled(), collide("leaf2", "leaf4"))
    findings = reachability.check_vtep_reachability(ctx)
    assert sorted(f.subject for f in findings) == ["leaf2->leaf4", "leaf4->leaf2"]
    assert all("loop prevention" in f.message for f in findings)
    assert ctx.leaf_pairs.width("leaf2", "leaf1") == 4  # everyone else still reaches both


def test_vtep_not_advertised_is_unreachable_from_everyone():
    findings = reachability.check_vtep_reachability(context(compiled(), withdraw_vtep("leaf5")))
    assert len(findings) == 1 and findings[0].subject.endswith("->leaf5")
    assert "does not advertise its VTEP" in findings[0].message


def test_per_rack_asns_need_allowas_in_between_rails():
    """Rail leaves of one rack share an ASN under per_rack: without allowas-in they cannot reach each other."""
    result = compiled(spines=2, leaves=4, rails_per_server=2, asn_scheme="per_rack")
    ctx = context(result)
    assert_fast_matches_reference(ctx)
    unreachable = {f.subject for f in reachability.check_vtep_reachability(ctx)}
    if not any(config["bgp"].get("allowas_in") for config in ctx.structured.values()):
        assert {"leaf1->leaf2", "leaf2->leaf1"} <= unreachable

    def allow(structured):
        for config in structured.values():
            if config["role"] == "leaf":
                config["bgp"]["allowas_in"] = 1

    fixed = context(result, allow)
    assert_fast_matches_reference(fixed)
    assert reachability.check_vtep_reachability(fixed) == []


# --------------------------------------------------------------------------- hand-made three-tier fabric


def test_three_tier_uses_the_tier_classes_and_matches_reference():
    ctx = FabricContext(three_tier())
    matrix = assert_fast_matches_reference(ctx)
    assert matrix.mode == "five-stage"  # RFC 7938 ASN scheme: validators.tiers
    assert matrix.width("leaf3", "leaf1") == 1  # leaf1 has one uplink
    assert reachability.check_vtep_reachability(ctx) == []
    routes = simulate_reference(ctx.routing)
    assert routes["leaf1"]["10.0.4.3/32"].as_path == (65001, 64999, 65002, 65103)
    assert routes["spine1"]["10.0.4.3/32"].ecmp_width == 2  # via super1 and super2 (multipath-relax)
    assert {hop[0] for hop in routes["spine1"]["10.0.4.3/32"].next_hops} == {"super1", "super2"}


def test_three_tier_outside_the_rfc7938_scheme_uses_the_propagation_engine():
    fabric = three_tier()
    set_asn(fabric, "super2", 64998)  # super-spines in two ASNs: valley paths become possible
    matrix = assert_fast_matches_reference(FabricContext(fabric))
    assert matrix.mode == "general"


def test_three_tier_super_spines_sharing_an_asn_block_valley_routing():
    fabric = three_tier()
    for host in ("spine2",):  # leaf3 loses its pod spine: no other path exists
        fabric[host]["interfaces"][0]["enabled"] = False
    ctx = FabricContext(fabric)
    assert_fast_matches_reference(ctx)
    findings = reachability.check_vtep_reachability(ctx)
    assert any(f.subject.endswith("->leaf3") for f in findings)


def test_propagate_respects_dead_devices_like_the_reference():
    ctx = context(compiled(spines=2, leaves=3))
    model = ctx.routing
    spine1 = model.index["spine1"]
    origin = model.index["leaf1"]
    routes = propagate(model, origin, dead_devices=frozenset({spine1}))
    reference = simulate_reference(model, dead_devices={"spine1"})
    prefix = model.vtep_prefix[origin]
    for receiver in ("leaf2", "leaf3"):
        assert len(routes[model.index[receiver]][1]) == reference[receiver][prefix].ecmp_width == 1


def test_neighbor_helper_is_consistent():
    structured = context(compiled()).structured
    assert neighbor(structured, "leaf1", "spine1")["remote_as"] == structured["spine1"]["asn"]
