"""The collective simulator's ECMP next hops (validators/collective/fabric.py, read from the cabling) are the
routes BGP computes from the compiled configs (validators.routing.propagate): member by member, for every switch
and every destination leaf, on a 2-tier fabric with parallel links and on a 5-stage one. Broken case: a leaf
whose uplink cable is removed loses that member in both."""

from dataclasses import replace

import numpy as np
import pytest
from validator_fabrics import intent_for

from compiler.api import compile_fabric
from compiler.clos import ClosParams, plan_clos
from compiler.model import Snapshot
from compiler.pods import PodsParams, plan_pods
from validators.collective.fabric import FabricGraph, Routes
from validators.context import FabricContext
from validators.routing import RoutingModel, propagate


def two_tier():
    return plan_clos(ClosParams(name="rt2", spines=3, leaves=4, servers_per_leaf=1, uplinks_per_spine=2))


def five_stage():
    return plan_pods(PodsParams(name="rt5", pods=2, super_spines_per_plane=2, super_spine_links=2,
                                pod=ClosParams(spines=2, leaves=3, servers_per_leaf=1)))


def bgp_next_hops(inventory):
    """{(device, destination leaf): {(peer, local interface)}} from the compiled configs' BGP."""
    result = compile_fabric(Snapshot(inventory, intent_for(inventory)))
    model = RoutingModel.from_context(FabricContext(result.structured, result.snapshot))
    answer = {}
    for origin, role in enumerate(model.role):
        if role != "leaf":
            continue
        for device, (_path, hops) in propagate(model, origin).items():
            if device != origin:
                answer[(model.names[device], model.names[origin])] = {(model.names[p], i) for p, i in hops}
    return answer


def simulator_next_hops(inventory):
    graph = FabricGraph(inventory)
    leaves = np.array([i for i, role in enumerate(graph.role) if role == "leaf"])
    routes = Routes(graph, leaves)
    answer = {}
    for position, leaf in enumerate(leaves):
        switches = np.array([s for s in range(graph.switch_count) if s != leaf])
        pairs = routes.groups(switches, np.full(len(switches), position))
        for switch, pair in zip(switches, pairs, strict=True):
            links = routes.members[routes.start[pair]: routes.start[pair] + routes.count[pair]]
            answer[(graph.names[switch], graph.names[leaf])] = {
                (graph.ends[link][1].device, graph.ends[link][0].interface) for link in links}
    return answer


@pytest.mark.parametrize("build", [two_tier, five_stage], ids=["2-tier", "5-stage"])
def test_next_hops_are_the_bgp_multipath_routes(build):
    inventory = build()
    expected, actual = bgp_next_hops(inventory), simulator_next_hops(inventory)
    assert expected.keys() == actual.keys()
    assert {key: value for key, value in actual.items() if value != expected[key]} == {}
    widths = {len(value) for value in actual.values()}
    assert max(widths) >= 4  # parallel links are separate members (2-tier: 3 spines x 2; 5-stage: 2 x 2 up)


def test_a_removed_uplink_is_missing_in_both():
    inventory = two_tier()
    cut = next(c for c in inventory.cables if c.a.device == "leaf1" and c.b.device == "spine1")
    broken = replace(inventory, cables=tuple(c for c in inventory.cables if c is not cut))
    expected, actual = bgp_next_hops(broken), simulator_next_hops(broken)
    assert actual == expected
    assert len(actual[("leaf1", "leaf2")]) == 5  # 6 members, one cable gone
    assert (cut.b.device, cut.a.interface) not in actual[("leaf1", "leaf2")]
