"""5-stage Clos checks (validators/clos5.py) and the tier class algebra (validators/tiers.py): the class widths
agree with the reference path-vector simulation on correct and broken fabrics; every check has a passing case and a
deliberately broken one."""

from dataclasses import replace
from functools import lru_cache

import pytest
from validator_fabrics import compiled, context, intent_for, interface, neighbor, set_asn

from compiler.api import compile_fabric
from compiler.clos import ClosParams
from compiler.model import Snapshot
from compiler.pods import PodsParams, plan_pods
from validators import clos5, mtu, roce, whatif
from validators.routing import simulate_reference
from validators.run import validate_fabric


@lru_cache(maxsize=8)
def five_stage(pods=2, spines=2, leaves=3, super_spines_per_plane=1, super_spine_links=1):
    inventory = plan_pods(PodsParams(name=f"f{pods}x{spines}x{leaves}", pods=pods,
                                     super_spines_per_plane=super_spines_per_plane,
                                     super_spine_links=super_spine_links,
                                     pod=ClosParams(spines=spines, leaves=leaves, servers_per_leaf=1)))
    return compile_fabric(Snapshot(inventory, intent_for(inventory)))


def shut(host, peer):
    def mutate(structured):
        interface(structured, host, peer=peer)["enabled"] = False
    return mutate


def errors(findings):
    return [f for f in findings if f.severity == "error"]


CASES = {
    "correct": (dict(), None),
    "leaf uplink down": (dict(), shut("pod1-leaf2", "pod1-spine1")),
    "spine to core down": (dict(), shut("pod2-spine1", "superspine1")),
    "two per plane, one down": (dict(super_spines_per_plane=2), shut("pod1-spine2", "superspine3")),
    "parallel links, one down": (dict(super_spine_links=2, pods=3), shut("pod3-spine1", "superspine1")),
}


@pytest.mark.parametrize("case", CASES)
def test_tier_classes_match_the_reference_simulation(case):
    params, mutate = CASES[case]
    ctx = context(five_stage(**params), mutate)
    matrix = ctx.leaf_pairs
    assert matrix.mode == "five-stage"
    model = ctx.routing
    reference = simulate_reference(model)
    for origin in matrix.leaves:
        prefix = model.vtep_prefix[model.index[origin]]
        for receiver in matrix.leaves:
            if origin != receiver:
                route = reference[receiver].get(prefix)
                assert matrix.width(origin, receiver) == (route.ecmp_width if route else 0), (origin, receiver)


def test_whole_run_on_a_correct_five_stage_fabric_has_no_error():
    report = validate_fabric(context(five_stage()))
    assert [f for f in report.findings if f.severity == "error"] == []
    statuses = {name: result.status for name, result in report.checks.items()}
    assert statuses[clos5.ECMP] == statuses[clos5.VALLEY_FREE] == statuses[clos5.N_MINUS_1] == "passed"


def test_ecmp_per_tier_passing_and_broken():
    summary = clos5.check_ecmp(context(five_stage()))
    assert errors(summary) == [] and "intra-pod ECMP 2..2; inter-pod ECMP 2..2" in summary[-1].message
    broken = errors(clos5.check_ecmp(context(five_stage(), shut("pod2-spine1", "superspine1"))))
    assert broken and all("inter-pod ECMP width 1, cabling gives 2" in f.message for f in broken)
    intra = errors(clos5.check_ecmp(context(five_stage(), shut("pod1-leaf2", "pod1-spine1"))))
    assert any("intra-pod ECMP width 1, cabling gives 2" in f.message for f in intra)


def test_valley_free_passing_and_broken():
    assert clos5.check_valley_free(context(five_stage())) == []

    def drop_leaf_policy(structured):
        del neighbor(structured, "pod1-leaf1", "pod1-spine1")["route_map_out"]
    broken = clos5.check_valley_free(context(five_stage(), drop_leaf_policy))
    assert [f.subject for f in broken] == ["pod1-leaf1->pod1-spine1"]

    def spine_own_asn(structured):
        set_asn(structured, "pod1-spine2", 65050)
    broken = clos5.check_valley_free(context(five_stage(), spine_own_asn))
    assert any(f.subject == "pod1-spine2" and f.expected == 65000 and f.actual == 65050 for f in broken)

    def weak_spine_policy(structured):
        structured["pod2-spine1"]["bgp"]["route_maps"][0]["entries"][0]["action"] = "permit"
    broken = clos5.check_valley_free(context(five_stage(), weak_spine_policy))
    assert [f.subject for f in broken] == ["pod2-spine1->superspine1"]


def test_n_minus_1_reports_plane_capacity_and_breaks_on_a_single_plane():
    findings = clos5.check_n_minus_1(context(five_stage(super_spines_per_plane=2)))
    assert errors(findings) == []
    messages = [f.message for f in findings]
    # 3 leaves down, 2 super-spines up per plane-2 spine; one super-spine lost halves plane 2's uplink
    assert "losing superspine3 makes plane 2 3.00:1 (was 1.50:1); minimum ECMP 2" in messages
    # one spine per pod: one plane; losing its super-spine cuts the pods apart
    single = errors(clos5.check_n_minus_1(context(five_stage(spines=1))))
    assert [f.subject for f in single][:1] == ["superspine1"]
    assert "leaves 18 more leaf pair(s) without a route" in single[0].message  # 3 x 3 leaves, both directions


@lru_cache(maxsize=2)
def rail_fabric(missing_uplink=False):
    """2 pods x (2 spines + 4 rail leaves: 2 rail groups of 2 rails), 2 servers per leaf; optionally without the
    pod1-leaf1 <-> pod1-spine1 cable (a rail-0 leaf left with one uplink)."""
    inventory = plan_pods(PodsParams(name="rails", pods=2, pod=ClosParams(spines=2, leaves=4, rails_per_server=2,
                                                                          servers_per_leaf=2)))
    if missing_uplink:
        ends = {"pod1-leaf1", "pod1-spine1"}
        inventory = replace(inventory, cables=tuple(cable for cable in inventory.cables
                                                    if {cable.a.device, cable.b.device} != ends))
    return compile_fabric(Snapshot(inventory, intent_for(inventory)))


def rail_messages(findings):
    return {f.message.split(":")[0]: f.message for f in findings if f.message.startswith("worst rail")}


def test_n_minus_1_reports_per_rail_ratios_under_spine_link_and_leaf_loss():
    findings = clos5.check_n_minus_1(context(rail_fabric()))
    assert errors(findings) == []
    assert rail_messages(findings) == {
        # every rail leaf: 2 servers down, 2 spines up (1:1); a spine lost halves every rail's uplink
        "worst rail under a spine failure": "worst rail under a spine failure: losing pod1-spine1 makes pod 1 "
                                            "rail 0 2.00:1 (was 1.00:1)",
        # rail 0 of pod 1 = 2 leaves, 4 uplinks: one link lost leaves 3
        "worst rail under a link failure": "worst rail under a link failure: losing pod1-leaf1<->pod1-spine1 makes "
                                           "pod 1 rail 0 1.33:1 (was 1.00:1)",
        "worst rail under a leaf failure": "worst rail under a leaf failure: losing pod1-leaf1 makes pod 1 rail 0 "
                                           "1.00:1 (was 1.00:1), 50.0% of its server-facing capacity gone",
    }


def test_n_minus_1_rail_ratios_on_a_leaf_missing_an_uplink():
    """Broken cabling: pod1-leaf1 has one uplink, so rail 0 of pod 1 starts at 4:3 and losing pod1-spine2 cuts
    pod1-leaf1 off (an error, as losing superspine2 cuts it off from pod 2) and leaves the rail 4:1."""
    findings = clos5.check_n_minus_1(context(rail_fabric(missing_uplink=True)))
    assert {"pod1-spine2", "superspine2"} <= {f.subject for f in errors(findings)}
    assert rail_messages(findings)["worst rail under a spine failure"] == (
        "worst rail under a spine failure: losing pod1-spine2 makes pod 1 rail 0 4.00:1 (was 1.33:1)")


def test_two_tier_fabric_is_skipped_with_the_reason():
    report = validate_fabric(context(compiled()), checks=["clos5"])
    assert {r.status for r in report.checks.values()} == {"skipped"}
    assert all("no super-spine" in r.reason for r in report.checks.values())


def test_n_minus_1_matches_the_exact_whatif_engine_on_device_failures():
    ctx = context(five_stage(spines=1, leaves=2))
    exact = whatif.run_whatif(ctx, engine="exact")
    expected = {s.subject: s.unreachable_pairs for s in exact.breaking() if "<->" not in s.subject}
    got = {f.subject: f.actual for f in errors(clos5.check_n_minus_1(context(five_stage(spines=1, leaves=2))))
           if "<->" not in f.subject}
    # whatif fails spines only; the single super-spine cuts the 2 pods apart: 2 x 2 leaves, both directions
    assert got.pop("superspine1") == 8
    assert got == expected and len(expected) == 2  # both pod spines, the same pair counts


def test_mtu_budget_and_lossless_chain_cover_the_core_tier():
    """The 5-hop path leaf-spine-super-spine-spine-leaf: a low MTU or a PFC gap on the core tier is found there
    (the correct fabric passes both: test_whole_run_on_a_correct_five_stage_fabric_has_no_error)."""
    def low_core_mtu(structured):
        for host, peer in (("pod1-spine1", "superspine1"), ("superspine1", "pod1-spine1")):
            interface(structured, host, peer=peer)["mtu"] = 1600
    budget = errors(mtu.check_overlay_budget(context(five_stage(), low_core_mtu)))
    assert budget and all("exceeds the underlay MTU 1600 at pod1-spine1:" in f.message for f in budget)

    def no_pfc_on_core(structured):
        port = interface(structured, "superspine2", peer="pod2-spine2")
        port["qos"] = dict(port["qos"], pfc_priorities=[])
    pfc = errors(roce.check_pfc(context(five_stage(), no_pfc_on_core)))
    assert {f.subject.split(":")[0] for f in pfc} == {"superspine2"}
    assert any("PFC is off for lossless priority [3] on superspine2" in f.message for f in pfc)


def test_an_oversubscribed_plane_is_a_warning_a_non_blocking_one_is_not():
    """Issue #30 point 8: a plane oversubscribed by design was only "info" under a failure. 3 leaves per pod
    under 2 super-spines per plane is 1.5:1 (warning naming the plane); 2 leaves under 2 is 1:1 (nothing)."""
    warned = [f for f in clos5.check_n_minus_1(context(five_stage(super_spines_per_plane=2)))
              if f.severity == "warning"]
    assert sorted(f.subject for f in warned) == ["plane 1", "plane 2"]
    assert "is 1.50:1 oversubscribed" in warned[0].message
    balanced = clos5.check_n_minus_1(context(five_stage(leaves=2, super_spines_per_plane=2)))
    assert not [f for f in balanced if f.severity == "warning"]
