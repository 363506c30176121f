"""N-1 what-ifs: the leaf-spine class algebra agrees with exact re-propagation of every scenario, on correct
and broken fabrics; failures that break reachability are named."""

import pytest
from validator_fabrics import compiled, context, interface, set_asn, three_tier

from validators import clos5, whatif
from validators.context import FabricContext


def outcome(result):
    return [(s.kind, s.subject, s.min_ecmp, s.unreachable_pairs, s.capacity_lost_gbps) for s in result.scenarios]


def shut(leaf, spine):
    def mutate(structured):
        interface(structured, leaf, peer=spine)["enabled"] = False
    return mutate


def collide(structured):
    set_asn(structured, "leaf3", structured["leaf1"]["asn"])


CASES = {
    "correct": (dict(), None),
    "missing uplink": (dict(), shut("leaf2", "spine1")),
    "asn collision": (dict(), collide),
    "two links per spine": (dict(spines=2, leaves=5, uplinks_per_spine=2), shut("leaf2", "spine1")),
    "multi-plane": (dict(spines=4, leaves=6, planes=2), shut("leaf2", "spine1")),
    "one spine": (dict(spines=1, leaves=3), None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_engine_matches_exact_engine(case):
    params, mutate = CASES[case]
    ctx = context(compiled(**params), mutate)
    fast = whatif.run_whatif(ctx)
    exact = whatif.run_whatif(ctx, engine="exact")
    assert fast.engine == "leaf-spine" and exact.engine == "exact"
    assert (fast.baseline_min_ecmp, fast.baseline_unreachable) == (exact.baseline_min_ecmp, exact.baseline_unreachable)
    assert outcome(fast) == outcome(exact)


def test_four_spines_worst_case_is_one_spine_down():
    ctx = context(compiled())
    result = whatif.run_whatif(ctx)
    assert len(result.scenarios) == 4 + 24  # every spine and every established link
    assert result.baseline_min_ecmp == 4 and not result.breaking()
    worst = result.worst()
    assert worst.kind == "spine" and worst.min_ecmp == 3 and worst.capacity_lost_fraction == pytest.approx(0.25)
    links = [s for s in result.scenarios if s.kind == "link"]
    assert all(s.min_ecmp == 3 and s.unreachable_pairs == 0 for s in links)
    findings = whatif.check_whatif(ctx, result)
    assert [f.severity for f in findings] == ["info"]
    assert "minimum ECMP 3" in findings[0].message


def test_single_spine_fabric_breaks_on_every_failure():
    ctx = context(compiled(spines=1, leaves=3))
    findings = whatif.check_whatif(ctx)
    errors = [f for f in findings if f.severity == "error"]
    assert {f.subject for f in errors} >= {"spine1"}
    link = next(f for f in errors if f.subject.startswith("leaf2:"))
    assert "4 more leaf pair(s) without a route" in link.message


def test_three_tier_fabric_exact_engine_agrees_with_clos5():
    result = whatif.run_whatif(FabricContext(three_tier()), engine="exact")
    assert result.engine == "exact"
    breaking = {s.subject for s in result.breaking()}
    assert "spine2" in breaking and "spine1" in breaking  # each pod hangs on one spine
    assert not any(s.subject.startswith("super") for s in result.breaking())
    # auto hands a 5-stage fabric to clos5.n_minus_1, which finds the same device failures breaking
    assert "clos5.n_minus_1" in whatif.run_whatif(FabricContext(three_tier())).skipped_reason
    clos5_breaking = {f.subject for f in clos5.check_n_minus_1(FabricContext(three_tier())) if f.severity == "error"}
    assert {s for s in clos5_breaking if "<->" not in s} == {s for s in breaking if "<->" not in s}


def test_n_minus_2_spine_pairs_fast_equals_exact_and_warns():
    ctx = context(compiled(spines=2, leaves=4))
    fast = whatif.run_whatif(ctx, spine_pairs=True)
    exact = whatif.run_whatif(ctx, engine="exact", spine_pairs=True)
    assert outcome(fast) == outcome(exact)
    assert [s.subject for s in fast.double()] == ["spine1+spine2"]
    assert fast.double()[0].unreachable_pairs == 12 and fast.double()[0].capacity_lost_fraction == 1.0
    assert not fast.breaking()  # N-1 survives
    findings = whatif.check_whatif_n2(ctx, fast)
    assert [(f.severity, f.subject) for f in findings] == [("warning", "spine1+spine2"), ("info", "spine1+spine2")]


@pytest.mark.parametrize("params", [dict(spines=4, leaves=6, planes=2), dict(spines=3, leaves=5)])
def test_n_minus_2_with_faults_fast_equals_exact(params):
    ctx = context(compiled(**params), shut("leaf2", "spine1"))
    assert outcome(whatif.run_whatif(ctx, spine_pairs=True)) == \
        outcome(whatif.run_whatif(ctx, engine="exact", spine_pairs=True))
