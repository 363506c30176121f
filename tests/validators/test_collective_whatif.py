"""validators.collective.whatif: the work bound counts exactly the rows simulate creates, single-choice planes
keep every tier's capacity and leave no upward choice after the first hop, link loads cover the usable links."""

from collections import Counter

import numpy as np
import pytest

from compiler.clos import ClosParams, plan_clos
from compiler.errors import InputError
from compiler.pods import PodsParams, plan_pods
from validators.collective import COLLECTIVES, FabricGraph, Job, Scenario, simulate
from validators.collective.whatif import PLANE_MARK, check_budget, flow_rows, link_loads, single_choice_planes


@pytest.fixture(scope="module")
def pods():
    inventory = plan_pods(PodsParams(name="wi", pods=2, super_spines_per_plane=2,
                                     pod=ClosParams(spines=2, leaves=4, servers_per_leaf=2)))
    return inventory, FabricGraph(inventory)


@pytest.mark.parametrize("collective", COLLECTIVES)
def test_flow_rows_equal_the_simulated_rows(pods, collective):
    inventory, graph = pods
    scenario = Scenario(job=Job(gpus=64), collective=collective, qps=2, trials=3)
    prediction = simulate(inventory, scenario, graph=graph)
    assert flow_rows(inventory, graph, scenario) == prediction.flows * prediction.trials


def test_the_budget_names_the_fields_to_lower(pods):
    inventory, graph = pods
    scenario = Scenario(job=Job(gpus=64), collective="alltoall", qps=4, trials=8)
    rows = flow_rows(inventory, graph, scenario)
    assert check_budget(inventory, graph, scenario, budget=rows) == rows
    with pytest.raises(InputError) as refused:
        check_budget(inventory, graph, scenario, what_if_qps=8, budget=rows)  # 8 QPs double the rows
    assert {error.field for error in refused.value.errors} == {"trials", "qps", "what_if_qps"}


def test_single_choice_planes_keep_capacity_and_remove_the_upward_choice(pods):
    inventory, _ = pods
    planes = single_choice_planes(inventory)
    graph, split = FabricGraph(inventory), FabricGraph(planes)

    def capacity(g):
        totals = Counter()
        for link in range(g.switch_links):
            totals[g.tier_names[int(g.link_tier[link])]] += float(g.gbps[link])
        return totals

    assert capacity(split) == capacity(graph)
    spines = [name for name in split.names if PLANE_MARK in name]
    assert len(spines) == 2 * 2 * 2  # 2 pods x 2 spines x 2 super-spines each
    for name in spines:  # each plane spine has exactly one super-spine above it
        index = split.index[name]
        ups = range(split.out_start[index], split.out_start[index] + split.up_count[index])
        assert len({int(split.head[link]) for link in ups}) == 1
    assert single_choice_planes(planes) is None  # already single-choice
    assert single_choice_planes(plan_clos(ClosParams(name="two", spines=2, leaves=4, servers_per_leaf=2))) is None


def test_link_loads_cover_every_usable_link_busiest_first(pods):
    inventory, graph = pods
    prediction = simulate(inventory, Scenario(job=Job(gpus=64), collective="alltoall-pxn", trials=4), graph=graph)
    loads = link_loads(prediction, graph)
    assert list(loads) == [tier.tier for tier in prediction.tiers]
    for tier in prediction.tiers:
        rows = loads[tier.tier]
        assert len(rows) == tier.links
        means = [row["mean_load"] for row in rows]
        assert means == sorted(means, reverse=True)
    busiest = max(row["max_load"] for rows in loads.values() for row in rows)
    assert busiest == pytest.approx(float(prediction.bottleneck.max()))  # the worst link is the bottleneck
    assert np.isclose(sum(row["mean_flows"] for row in loads["nic->leaf"]), prediction.tiers[0].flows)
