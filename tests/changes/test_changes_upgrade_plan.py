"""Rolling-upgrade planning (pure): spine limits, redundant pairs, the N-1 what-if (two-tier formula and the BFS
for other shapes agree), a device that cannot be drained hitlessly, and planning time at 1,000+ switches."""

from __future__ import annotations

import time

import pytest

from changes.pipelines.upgrade import FabricGraph, plan_upgrade
from compiler.errors import InputError


def clos(spines: int, leaves: int, uplinks: int = 1):
    roles = {f"spine{s}": "spine" for s in range(1, spines + 1)} | {f"leaf{n}": "leaf" for n in range(1, leaves + 1)}
    links = [(f"leaf{n}", f"spine{s}") for n in range(1, leaves + 1) for s in range(1, spines + 1)
             for _ in range(uplinks)]
    return roles, links


def test_two_spines_never_drained_together_even_if_policy_allows():
    roles, links = clos(2, 4)
    plan = plan_upgrade(roles=roles, links=links, max_spines_drained=2, wave_size=2)
    assert plan["waves"] == [["spine1"], ["spine2"]]
    assert [entry["min_leaf_pair_ecmp"] for entry in plan["whatif"]] == [1, 1]


def test_spine_limit_and_wave_size():
    roles, links = clos(4, 8, uplinks=2)
    assert plan_upgrade(roles=roles, links=links, max_spines_drained=1, wave_size=4)["waves"] == [
        ["spine1"], ["spine2"], ["spine3"], ["spine4"]]
    plan = plan_upgrade(roles=roles, links=links, max_spines_drained=2, wave_size=4)
    assert plan["waves"] == [["spine1", "spine2"], ["spine3", "spine4"]]
    assert [entry["min_leaf_pair_ecmp"] for entry in plan["whatif"]] == [4, 4]  # 2 spines x 2 parallel uplinks


def test_spine_fraction_caps_the_count():
    roles, links = clos(8, 8)
    plan = plan_upgrade(roles=roles, links=links, max_spines_drained=4, wave_size=8, max_spine_fraction=0.25)
    assert plan["max_spines_drained"] == 2 and all(len(wave) == 2 for wave in plan["waves"])
    assert len(plan_upgrade(roles=roles, links=links, max_spines_drained=4, wave_size=8)["waves"]) == 2


def test_redundant_pair_members_never_share_a_wave():
    roles, links = clos(2, 4)
    plan = plan_upgrade(roles=roles, links=links, devices=["leaf1", "leaf2", "leaf3", "leaf4"], wave_size=2,
                        redundant_pairs=[("leaf1", "leaf2"), ("leaf3", "leaf4")])
    for wave in plan["waves"]:
        assert not {"leaf1", "leaf2"} <= set(wave) and not {"leaf3", "leaf4"} <= set(wave)
    assert sorted(device for wave in plan["waves"] for device in wave) == ["leaf1", "leaf2", "leaf3", "leaf4"]


def test_single_homed_leaf_blocks_a_hitless_upgrade_of_its_only_spine():
    roles, links = clos(2, 3)
    links = [link for link in links if link != ("leaf3", "spine2")]  # leaf3 only reaches spine1
    with pytest.raises(InputError) as error:
        plan_upgrade(roles=roles, links=links)
    assert "policy.devices" in error.value.as_dict() and "spine1" in str(error.value) and "leaf3" in str(error.value)


def test_three_tier_uses_bfs_and_agrees():
    # Two pods of 2 leaves and 2 spines each, joined by 2 super-spines.
    roles = {"ss1": "super-spine", "ss2": "super-spine"}
    links = []
    for pod in (1, 2):
        for s in (1, 2):
            roles[f"p{pod}s{s}"] = "spine"
            links += [(f"p{pod}s{s}", "ss1"), (f"p{pod}s{s}", "ss2")]
            for leaf in (1, 2):
                roles[f"p{pod}l{leaf}"] = "leaf"
                links.append((f"p{pod}l{leaf}", f"p{pod}s{s}"))
    graph = FabricGraph(roles, links)
    assert not graph.two_tier
    assert graph.min_leaf_pair_ecmp([])[0] == 2
    assert graph.min_leaf_pair_ecmp(["ss1"])[0] == 2  # leaves still have both pod spines as next hops
    assert graph.min_leaf_pair_ecmp(["p1s1"])[0] == 1
    assert graph.min_leaf_pair_ecmp(["p1s1", "p1s2"])[0] == 0
    plan = plan_upgrade(roles=roles, links=links, max_spines_drained=2, wave_size=4)
    assert all(entry["min_leaf_pair_ecmp"] >= 1 for entry in plan["whatif"])
    assert all(not {"p1s1", "p1s2"} <= set(wave) and not {"ss1", "ss2"} <= set(wave) for wave in plan["waves"])


def test_planning_1088_switches_takes_well_under_a_second():
    roles, links = clos(64, 1024)
    started = time.perf_counter()
    plan = plan_upgrade(roles=roles, links=links, max_spines_drained=2, wave_size=4)
    elapsed = time.perf_counter() - started
    assert len(plan["waves"]) == 32 and all(entry["min_leaf_pair_ecmp"] == 62 for entry in plan["whatif"])
    assert elapsed < 2.0, f"planning 64x1024 took {elapsed:.2f}s"
