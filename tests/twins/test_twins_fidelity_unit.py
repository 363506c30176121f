"""labs.fidelity comparison logic on canned predictions and observations (pure: no twin, no database)."""

from __future__ import annotations

import pytest

from compiler.errors import TwinError
from labs.fidelity import (
    Observation,
    Prediction,
    _selected_scenarios,
    compare,
    link_key,
    predict,
)
from labs.flowprobe import largest_passing
from validators.findings import CheckStatus, Severity

LINK = link_key("spine1", "eth1_1", "leaf1", "eth63_1")


def healthy_prediction() -> Prediction:
    return Prediction(
        sessions={"leaf1": {"ipv4Unicast": 2, "l2VpnEvpn": 2}, "spine1": {"ipv4Unicast": 1, "l2VpnEvpn": 1}},
        sessions_intended={"leaf1": 2, "spine1": 1},
        ecmp={"leaf1->leaf2": 2, "leaf2->leaf1": 2}, ecmp_designed={"leaf1->leaf2": 2, "leaf2->leaf1": 2},
        flood={"leaf1:10010": ["10.0.4.2"], "leaf2:10010": ["10.0.4.1"]},
        flood_configured={"leaf1:10010": ["10.0.4.2"], "leaf2:10010": ["10.0.4.1"]},
        port_networks={"gpu1:eth0": "a", "gpu2:eth0": "a", "gpu3:eth0": "b"},
        network_tenants={"a": "A", "b": "B"},
        reachability={"a->a": True, "a->b": False, "b->a": False, "b->b": True},
        reachability_reasons={"a->a": "bridged", "a->b": "different tenants", "b->a": "different tenants",
                              "b->b": "bridged"},
        link_mtu={LINK: 9214}, link_mtu_intended={LINK: 9214},
        host_mtu={"gpu1:eth0->gpu2:eth0": 9000}, host_mtu_intended={"gpu1:eth0->gpu2:eth0": 9000},
        baseline={"min_ecmp": 2, "unreachable_pairs": 0},
        scenarios=[{"kind": "spine", "subject": "spine1", "targets": [], "min_ecmp": 1, "unreachable_pairs": 0}],
    )


def healthy_observation() -> Observation:
    return Observation(
        sessions={"leaf1": {"ipv4Unicast": 2, "l2VpnEvpn": 2}, "spine1": {"ipv4Unicast": 1, "l2VpnEvpn": 1}},
        ecmp={"leaf1->leaf2": 2, "leaf2->leaf1": 2},
        flood={"leaf1:10010": ["10.0.4.2"], "leaf2:10010": ["10.0.4.1"]},
        pings={"gpu1:eth0->gpu2:eth0": True, "gpu2:eth0->gpu1:eth0": True, "gpu1:eth0->gpu3:eth0": None,
               "gpu3:eth0->gpu1:eth0": None},
        ping_networks={"gpu1:eth0->gpu2:eth0": ["a", "a"], "gpu2:eth0->gpu1:eth0": ["a", "a"],
                       "gpu1:eth0->gpu3:eth0": ["a", "b"], "gpu3:eth0->gpu1:eth0": ["b", "a"]},
        link_mtu={LINK: 9214}, host_mtu={"gpu1:eth0->gpu2:eth0": 9000},
        scenarios=[{"kind": "spine", "subject": "spine1", "min_ecmp": 1, "unreachable_pairs": 0}],
    )


def test_full_agreement_has_zero_disagreements_and_says_what_was_compared():
    result = compare(healthy_prediction(), healthy_observation())
    assert result.disagreements == 0 and result.agreed_failures == 0
    assert result.report.ok
    counts = result.counts
    assert (counts["bgp_sessions"].items, counts["bgp_sessions"].agree) == (4, 4)
    assert (counts["ecmp"].items, counts["ecmp"].agree) == (2, 2)
    assert (counts["evpn_flood"].items, counts["evpn_flood"].agree) == (2, 2)
    assert (counts["link_mtu"].agree, counts["host_mtu"].agree, counts["n_minus_1"].agree) == (1, 1, 2)
    summary = result.report.checks["fidelity.ecmp"].findings[0]
    assert summary.severity == Severity.INFO and "compared 2 items" in summary.message


def test_cross_tenant_cells_the_twin_cannot_measure_are_static_only_not_agreement():
    result = compare(healthy_prediction(), healthy_observation())
    reachability = result.counts["reachability"]
    # a->a measured and agrees; a->b and b->a were only static-only pairs; b->b had no pair in the twin at all.
    assert (reachability.items, reachability.agree, reachability.static_only, reachability.disagree) == (3, 1, 2, 0)
    assert reachability.not_sampled == 1
    assert "1 not sampled by the twin" in result.report.checks["fidelity.reachability"].findings[0].message


def test_host_pairs_the_twin_did_not_sample_are_counted_not_compared():
    prediction = healthy_prediction()
    prediction.host_mtu["gpu1:eth0->gpu9:eth0"] = 9000  # gpu9 is not a host of the twin
    result = compare(prediction, healthy_observation())
    assert (result.counts["host_mtu"].items, result.counts["host_mtu"].not_sampled) == (1, 1)
    assert result.disagreements == 0


def test_every_disagreement_is_an_error_finding_naming_the_item():
    observation = healthy_observation()
    observation.sessions["spine1"]["l2VpnEvpn"] = 0  # the twin's EVPN session did not come up
    observation.ecmp["leaf1->leaf2"] = 1  # one kernel next hop only
    observation.link_mtu[LINK] = 9000  # the twin's link is smaller than the configs say
    observation.pings["gpu2:eth0->gpu1:eth0"] = False  # one pair of a bridged network is silent
    observation.scenarios[0]["unreachable_pairs"] = 2
    result = compare(healthy_prediction(), observation)
    assert not result.report.ok
    errors = {(finding.check, finding.subject): finding for finding in result.report.findings
              if finding.severity == Severity.ERROR}
    assert set(errors) == {("fidelity.bgp_sessions", "spine1 l2VpnEvpn"), ("fidelity.ecmp", "leaf1->leaf2"),
                           ("fidelity.link_mtu", LINK), ("fidelity.reachability", "a->a"),
                           ("fidelity.n_minus_1", "spine spine1 unreachable_pairs")}
    assert result.disagreements == 5
    link = errors[("fidelity.link_mtu", LINK)]
    assert (link.expected, link.actual) == (9214, 9000) and "the twin measured 9000" in link.message
    assert "1 silent" in errors[("fidelity.reachability", "a->a")].message


def test_a_fault_both_sides_see_is_reported_as_agreement_on_the_failure():
    prediction, observation = healthy_prediction(), healthy_observation()
    prediction.link_mtu[LINK] = observation.link_mtu[LINK] = 9000  # intended 9214
    prediction.host_mtu["gpu1:eth0->gpu2:eth0"] = observation.host_mtu["gpu1:eth0->gpu2:eth0"] = 8950
    prediction.reachability["a->a"] = False
    prediction.reachability_reasons["a->a"] = "leaf3 does not map VNI 10010"
    observation.pings["gpu2:eth0->gpu1:eth0"] = False
    result = compare(prediction, observation)
    assert result.disagreements == 0 and result.report.ok
    assert result.agreed_failures == 3
    agreed = [f for f in result.report.findings if "agree on a fault" in f.message]
    assert {f.subject for f in agreed} == {LINK, "gpu1:eth0->gpu2:eth0", "a->a"}
    assert all(f.severity == Severity.INFO for f in agreed)


def test_flood_lists_missing_in_the_twin_disagree_and_a_missing_vni_both_see_agrees():
    prediction, observation = healthy_prediction(), healthy_observation()
    del observation.flood["leaf2:10010"]  # the twin has no VXLAN device for the VNI on leaf2
    result = compare(prediction, observation)
    error = next(f for f in result.report.findings if f.check == "fidelity.evpn_flood" and f.severity == "error")
    assert (error.subject, error.expected, error.actual) == ("leaf2:10010", ["10.0.4.1"], [])
    # leaf2 does not map the VNI in the configs either: leaf1's list is predicted without it, unlike the
    # configured flood list, and the twin agrees: a fault both sides see.
    del prediction.flood["leaf2:10010"]
    prediction.flood["leaf1:10010"] = []
    observation.flood["leaf1:10010"] = []
    result = compare(prediction, observation)
    assert result.disagreements == 0 and result.counts["evpn_flood"].agreed_failures == 1


def test_a_fault_only_one_side_sees_is_a_disagreement():
    prediction, observation = healthy_prediction(), healthy_observation()
    prediction.link_mtu[LINK] = 9000  # the configs say 9000, the twin passes 9214: the twin did not apply it
    result = compare(prediction, observation)
    assert result.disagreements == 1 and result.agreed_failures == 0
    assert result.report.checks["fidelity.link_mtu"].status == CheckStatus.FAILED


def test_items_missing_on_either_side_are_compared_not_dropped():
    observation = healthy_observation()
    del observation.sessions["spine1"]  # the twin could not read spine1 at all: not measured
    observation.ecmp["leaf1->leaf3"] = 2  # a pair the validators do not know
    result = compare(healthy_prediction(), observation)
    assert result.counts["bgp_sessions"].static_only == 2
    assert ("fidelity.ecmp", "leaf1->leaf3") in {(f.check, f.subject) for f in result.report.findings
                                                 if f.severity == Severity.ERROR}


def test_measurement_notes_are_warnings_never_hidden():
    observation = healthy_observation()
    observation.notes.append("spine spine1: ECMP not restored within 90 s")
    result = compare(healthy_prediction(), observation)
    assert result.report.checks["fidelity.measurement"].findings[0].severity == Severity.WARNING


@pytest.mark.parametrize(("actual", "predicted"), [(9000, 9000), (8950, 9000), (9214, 9000), (600, 9000)])
def test_largest_passing_finds_the_real_boundary(actual, predicted):
    probes = []

    def passes(size):
        probes.append(size)
        return size <= actual

    assert largest_passing(passes, predicted, floor=576, ceiling=16384) == actual
    if actual == predicted:
        assert probes == [predicted, predicted + 1]  # two probes when the prediction is right
    else:
        assert len(probes) < 20  # binary search


def test_largest_passing_reports_zero_when_nothing_gets_through():
    assert largest_passing(lambda size: False, 9000) == 0
    assert largest_passing(lambda size: False, 0) == 0


def test_scenario_selection():
    scenarios = [{"kind": "link", "subject": "b"}, {"kind": "spine", "subject": "s2"},
                 {"kind": "link", "subject": "a"}, {"kind": "spine", "subject": "s1"}]
    assert [s["subject"] for s in _selected_scenarios(scenarios, "sample")] == ["s1", "a"]
    assert len(_selected_scenarios(scenarios, "all")) == 4 and _selected_scenarios(scenarios, "none") == []
    with pytest.raises(TwinError, match="n_minus_1='some'"):
        _selected_scenarios(scenarios, "some")


def test_prediction_from_a_compiled_fabric():
    from compiler.api import compile_fabric
    from compiler.scenario import snapshot_from_scenario

    scenario = {"clos": {"spines": 2, "leaves": 3, "servers_per_leaf": 1, "platform": "frr"},
                "intent": {"name": "fid", "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                           "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/24",
                                         "gateway": "10.10.0.1", "attachments": "all"}]}}
    prediction = predict(compile_fabric(snapshot_from_scenario(scenario)))
    assert prediction.sessions["spine1"] == {"ipv4Unicast": 3, "l2VpnEvpn": 3}
    assert set(prediction.ecmp.values()) == {2} and len(prediction.ecmp) == 6
    assert set(prediction.link_mtu.values()) == {9214} and len(prediction.link_mtu) == 6
    # host MTU 9000 fits: 9000 + 50 (VXLAN) <= 9214 on every path
    assert set(prediction.host_mtu.values()) == {9000} and len(prediction.host_mtu) == 3
    assert prediction.reachability == {"net10->net10": True}
    assert {s["kind"] for s in prediction.scenarios} == {"spine", "link"} and len(prediction.scenarios) == 8
    spine = next(s for s in prediction.scenarios if s["subject"] == "spine1")
    assert (spine["min_ecmp"], spine["unreachable_pairs"], len(spine["targets"])) == (1, 0, 3)


def test_fidelity_module_never_imports_django():
    import ast
    from pathlib import Path

    import labs.fidelity

    tree = ast.parse(Path(labs.fidelity.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and node.module}
    assert not imported & {"django", "rest_framework", "celery", "intents", "inventory", "twins"}, imported
