"""A 5-stage Clos on the live twin (root + FRR only): 2 pods x (2 spines + 2 leaves) under 2 super-spines boots
from the compiled FRR configs, passes every live check, and a super-spine failure gives exactly the ECMP widths
the static tier model (validators/tiers.py) predicts for every leaf pair: 0 disagreements."""

import pytest

from compiler.api import compile_fabric
from compiler.scenario import snapshot_from_scenario
from labs import checks, fidelity, runtime
from labs.from_compile import topology_from_compile
from validators.context import as_context

pytestmark = [pytest.mark.twin, pytest.mark.usefixtures("twin_required")]

SCENARIO = {"pods": {"name": "tw5", "pods": 2, "super_spines_per_plane": 1,
                     "pod": {"spines": 2, "leaves": 2, "servers_per_leaf": 1, "platform": "frr"}},
            "intent": {"name": "tw5", "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                       "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/24",
                                     "gateway": "10.10.0.1", "attachments": "all"}]}}


def predicted_widths(result, dead: str | None) -> dict[str, int]:
    tiers = as_context(result).leaf_pairs.tiers
    model = tiers.model
    dead_supers = frozenset({model.index[dead]}) if dead else frozenset()
    out = {}
    for receiver in tiers.leaves:
        for origin in tiers.leaves:
            if receiver != origin:
                width = tiers.width(tiers.classes[tiers.class_of[origin]], tiers.classes[tiers.class_of[receiver]],
                                    dead_supers=dead_supers)
                out[f"{model.names[receiver]}->{model.names[origin]}"] = width
    return out


def test_five_stage_twin_converges_and_agrees_under_a_super_spine_failure(tmp_path):
    result = compile_fabric(snapshot_from_scenario(SCENARIO))
    topology = topology_from_compile(result)
    state = runtime.up(topology, tmp_path)
    try:
        report, _measured = checks.verify(state, failover=False)
        assert report.ok, report.as_text()  # sessions on 3 tiers, flood lists, ECMP widths across pods, pings, MTU
        targets = [[link.a_node, link.a_ifname] for link in topology.links if link.a_node == "superspine1"] + \
                  [[link.b_node, link.b_ifname] for link in topology.links if link.b_node == "superspine1"]
        measured = fidelity.inject_scenario(state, {"kind": "super-spine", "subject": "superspine1",
                                                    "targets": targets})
        predicted = predicted_widths(result, "superspine1")
        disagreements = {pair: (predicted[pair], width) for pair, width in measured["widths"].items()
                         if predicted.get(pair) != width}
        assert disagreements == {} and len(measured["widths"]) == 12
        assert measured["min_ecmp"] == 1 and measured["unreachable_pairs"] == 0
    finally:
        runtime.down(state.prefix, tmp_path, force=True)
