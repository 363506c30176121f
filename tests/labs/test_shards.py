"""Shard planner, stitching plan and exports (issue 35): pure, no root needed.

``UPDATE_GOLDEN=1 pytest tests/labs/test_shards.py`` rewrites the export golden files under tests/labs/data/shards.
"""

import dataclasses
import os
from pathlib import Path

import pytest
import yaml
from twin_sample_fabric import sample_fabric

from compiler.clos import ClosParams, plan_clos
from compiler.errors import InputError
from compiler.scenario import snapshot_from_scenario
from labs.__main__ import main
from labs.shard_export import clabernetes_topology, netlab_multiserver_plan
from labs.shard_run import shard_prefix, shard_topology
from labs.shards import (
    CPU_S_PER_SESSION_END,
    FILES_PER_SWITCH,
    INOTIFY_BASE,
    INOTIFY_PER_SWITCH,
    MIB_PER_SWITCH,
    HostCapacity,
    ShardHost,
    graph_from_inventory,
    graph_from_topology,
    parse_hosts,
    plan_shards,
)
from labs.stitch import (
    STITCH_UDP_PORT,
    STITCH_VNI_BASE,
    UnderlayHost,
    required_underlay_mtu,
    stitch_plan,
    stitched_far_ends,
    stitched_topology,
    vxlan_end,
)
from labs.topology import HostInterface, validate_topology

GOLDEN = Path(__file__).parent / "data" / "shards"
REPO = Path(__file__).resolve().parents[2]
EIGHT = parse_hosts(",".join(f"h{i}:1" for i in range(1, 9)))


@pytest.fixture(scope="module")
def graph_1088():
    inventory = plan_clos(ClosParams(name="plan", spines=64, leaves=1024, servers_per_leaf=1, platform="sonic"))
    return graph_from_inventory(inventory)


def test_parse_hosts_reads_names_and_weights():
    assert parse_hosts("a:1, b:2.5") == (ShardHost("a", 1.0), ShardHost("b", 2.5))


@pytest.mark.parametrize("text,message", [("a", "use name:weight"), ("a:0", "weight must be > 0"),
                                          ("a:1,a:2", "host named twice"), ("", "name at least one host")])
def test_parse_hosts_refuses_bad_items(text, message):
    with pytest.raises(InputError) as error:
        parse_hosts(text)
    assert error.value.errors[0].field == "--hosts" and message in error.value.errors[0].message


def test_1088_switches_on_8_hosts_each_within_budget(graph_1088):
    plan = plan_shards(graph_1088, EIGHT)
    assert len(plan.assignment) == 1088 and plan.within_budget, plan.as_text()
    for budget in plan.budgets:
        assert budget.switches == 136 and budget.spines == 8  # spines spread in proportion: fewest cut cables
        assert budget.memory_mib == pytest.approx(136 * MIB_PER_SWITCH)
        assert budget.inotify_instances == INOTIFY_BASE + INOTIFY_PER_SWITCH * 136
        assert budget.file_descriptors == FILES_PER_SWITCH * 136
        assert budget.cpu_s_to_converge == pytest.approx(CPU_S_PER_SESSION_END * budget.session_ends, abs=0.1)
    # each of 1,024 leaves keeps its 8 same-host spine cables: 1,024 x 56 cross
    assert len(plan.cross_cables) == 1024 * 56
    worst = plan_shards(graph_1088, EIGHT, worst_cut=True)
    assert len(worst.cross_cables) == 65536 > len(plan.cross_cables)
    assert not worst.within_budget  # all 65,536 sessions' spine ends on one host: over the 120 s goal
    assert "convergence" in worst.budgets[0].problems[0] and worst.budgets[1].within_budget


def test_small_hosts_are_over_budget(graph_1088):
    plan = plan_shards(graph_1088, EIGHT, capacity=HostCapacity(cores=2, memory_mib=4096))
    assert not plan.within_budget
    assert any("memory" in problem for problem in plan.budgets[0].problems)
    assert "OVER BUDGET" in plan.as_text()


def test_weights_share_the_switches():
    inventory = plan_clos(ClosParams(name="w", spines=4, leaves=64, servers_per_leaf=1, platform="sonic"))
    plan = plan_shards(graph_from_inventory(inventory, leaf_block=4), parse_hosts("a:1,b:3"))
    counts = {budget.host: budget.switches for budget in plan.budgets}
    assert counts["a"] + counts["b"] == 68 and counts["b"] > 2.5 * counts["a"]


def test_five_stage_keeps_pods_whole():
    scenario = yaml.safe_load((REPO / "examples" / "pods-5stage.yaml").read_text())
    inventory = snapshot_from_scenario(scenario).inventory
    graph = graph_from_inventory(inventory)
    assert graph.kind == "5-stage"
    plan = plan_shards(graph, parse_hosts("a:1,b:1,c:1,d:1"))
    for switch in inventory.switches:
        if switch.pod:
            pod_hosts = {plan.assignment[s.hostname] for s in inventory.switches if s.pod == switch.pod}
            assert len(pod_hosts) == 1, (switch.pod, pod_hosts)
    assert len({plan.assignment[s.hostname] for s in inventory.switches if s.pod}) == 4  # one pod per host


def test_disjoint_groups_need_no_cross_cable():
    topology = sample_fabric("ftshardt", spines=1, leaves=2)
    graph = graph_from_topology(topology, rails={"leaf1": {0}, "leaf2": {1}})
    assert graph.units["leaf1"] == "rail:0" and graph.units["leaf2"] == "rail:1"
    plan = plan_shards(graph, parse_hosts("a:1"))
    assert plan.cross_cables == ()


def test_worst_cut_puts_spines_alone():
    plan = plan_shards(graph_from_topology(sample_fabric("ftshardt")), parse_hosts("a:1,b:1"), worst_cut=True)
    assert plan.switches_of("a") == ["spine1", "spine2"] and len(plan.cross_cables) == 4
    with pytest.raises(InputError):
        plan_shards(graph_from_topology(sample_fabric("ftshardt")), parse_hosts("a:1"), worst_cut=True)


# --------------------------------------------------------------------------------------------- stitching

UNDERLAY = {"a": UnderlayHost("a", "198.18.0.1", netns="p_h_a"), "b": UnderlayHost("b", "198.18.0.2", netns="p_h_b")}


def _worst(topology):
    return plan_shards(graph_from_topology(topology), parse_hosts("a:1,b:1"), worst_cut=True).assignment


def test_stitch_plan_vni_from_cable_index_and_own_port():
    topology = sample_fabric("ftshardt")
    plan = stitch_plan(topology, _worst(topology), UNDERLAY)
    assert [link.vni for link in plan.links] == [STITCH_VNI_BASE + index for index in range(4)]
    assert plan.port == STITCH_UDP_PORT != 4789
    assert stitched_topology(topology, plan).extra["stitch"]["links"][0]["vni"] == STITCH_VNI_BASE
    end = vxlan_end(topology, plan, plan.links[0], "a")
    link = topology.links[0]
    assert end.underlay_netns == ("p_h_b" if _worst(topology)[link.a_node] == "b" else "p_h_a")
    assert end.underlay_lines[0].startswith(f"link add st{STITCH_VNI_BASE} mtu {link.mtu} type vxlan id ")
    assert f"dstport {STITCH_UDP_PORT} dev ul0" in end.underlay_lines[0]
    assert end.underlay_lines[1] == f"link set st{STITCH_VNI_BASE} netns {topology.netns(link.a_node)}"
    assert end.switch_netns == topology.netns(link.a_node)
    assert end.switch_lines == (f"link set st{STITCH_VNI_BASE} name {link.a_ifname}",)


def test_same_host_cables_stay_veth():
    topology = sample_fabric("ftshardt")
    assignment = {node.name: "a" for node in topology.nodes}
    assert stitch_plan(topology, assignment, UNDERLAY).links == ()


def test_underlay_mtu_twice_the_encapsulation_on_evpn_cables():
    assert required_underlay_mtu(9214, evpn=False, tenant=9000) == 9264
    assert required_underlay_mtu(9214, evpn=True, tenant=9200) == 9300  # 9,200 + 2 x 50


def test_stitch_plan_refuses_small_underlay_fabric_port_and_unassigned():
    topology = sample_fabric("ftshardt")
    small = {**UNDERLAY, "b": UnderlayHost("b", "198.18.0.2", mtu=9000)}
    with pytest.raises(InputError) as error:
        stitch_plan(topology, _worst(topology), small)
    fields = error.value.errors
    assert [f.field for f in fields] == ["hosts[b].mtu"] and "needs 9266" in fields[0].message
    with pytest.raises(InputError) as error:
        stitch_plan(topology, _worst(topology), UNDERLAY, port=4789)
    assert error.value.errors[0].field == "stitch.port"
    with pytest.raises(InputError) as error:
        stitch_plan(topology, {"spine1": "a"}, UNDERLAY)
    assert {f.field for f in error.value.errors} >= {"assignment[leaf1]", "assignment[spine2]"}


# --------------------------------------------------------------------------------------------- exports


def _golden(name: str, data: dict) -> None:
    path = GOLDEN / name
    text = yaml.safe_dump(data, sort_keys=False)
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{name} drifted; UPDATE_GOLDEN=1 regenerates it"


@pytest.fixture
def plan_2x2():
    return plan_shards(graph_from_topology(sample_fabric("ftshardt")), parse_hosts("a:1,b:1"), worst_cut=True)


def test_netlab_multiserver_export(plan_2x2):
    data = netlab_multiserver_plan(plan_2x2, name="sample")
    assert data["plugin"] == ["multiserver"] and data["multiserver"]["assignment"] == "explicit"
    assert data["multiserver"]["servers"]["a"]["groups"] == ["shard_a"]
    assert data["groups"]["shard_a"]["members"] == ["spine1", "spine2"]
    assert data["multiserver"]["vxlan"]["dstport"] == STITCH_UDP_PORT and data["multiserver"]["vxlan"]["dev"]
    _golden("netlab_2x2.yaml", data)


def test_clabernetes_export(plan_2x2):
    data = clabernetes_topology(plan_2x2, name="sample")
    assert [item["metadata"]["name"] for item in data["items"]] == ["sample-a", "sample-b"]
    spines = yaml.safe_load(data["items"][0]["spec"]["definition"]["containerlab"])
    assert set(spines["topology"]["nodes"]) == {"spine1", "spine2"}
    assert all(link["type"] == "vxlan" and link["remote"] == "198.18.0.2" for link in spines["topology"]["links"])
    assert data["items"][0]["spec"]["deployment"]["scheduling"]["nodeSelector"] == {"kubernetes.io/hostname": "a"}
    _golden("clabernetes_2x2.yaml", data)


# --------------------------------------------------------------------------------------------- command line


def test_cli_plan(capsys):
    assert main(["plan", "--hosts", "a:1,b:1", "--clos", "2x4", "--json"]) == 0
    assert '"within_budget": true' in capsys.readouterr().out
    assert main(["plan", "--hosts", "a:1,b:1", "--clos", "2x4", "--cores", "1", "--memory-gib", "0"]) == 1
    assert "OVER BUDGET" in capsys.readouterr().out
    assert main(["plan", "--hosts", "a:1,b:1", "--clos", "2x4", "--export", "netlab"]) == 0
    assert "multiserver:" in capsys.readouterr().out
    assert main(["plan", "--hosts", "a", "--clos", "2x4"]) == 2
    assert '"--hosts"' in capsys.readouterr().out
    assert main(["plan", "--hosts", "a:1", "--clos", "two"]) == 2
    assert '"--clos"' in capsys.readouterr().out


def test_a_cut_of_a_stitched_cable_downs_both_ends():
    topology = sample_fabric("ftshardt")
    stitched = stitched_topology(topology, stitch_plan(topology, _worst(topology), UNDERLAY))
    link = topology.links[0]
    assert stitched_far_ends(stitched, [(link.a_node, link.a_ifname)]) == [(link.b_node, link.b_ifname)]
    assert stitched_far_ends(stitched, [(link.a_node, link.a_ifname), (link.b_node, link.b_ifname)]) == []
    assert stitched_far_ends(topology, [(link.a_node, link.a_ifname)]) == []  # veth pairs: the kernel does it


def test_shard_topology_keeps_its_switches_servers_and_its_ends_of_stitched_cables():
    topology = sample_fabric("ftshtopo")
    plan = stitch_plan(topology, _worst(topology), UNDERLAY)
    spines = shard_topology(topology, plan, "a", prefix=shard_prefix("ftshtopo", 0))
    leaves = shard_topology(topology, plan, "b", prefix=shard_prefix("ftshtopo", 1))
    assert (spines.name_prefix, leaves.name_prefix) == ("ftshtopos0", "ftshtopos1")
    assert [node.name for node in spines.nodes] == ["spine1", "spine2"] and not spines.hosts
    assert [node.name for node in leaves.nodes] == ["leaf1", "leaf2"] and len(leaves.hosts) == len(topology.hosts)
    for shard, host in ((spines, "a"), (leaves, "b")):
        validate_topology(shard)  # cable ends on the other host are named, not refused
        shard_plan = shard.extra["stitch"]
        # Every cable crosses: each shard holds all of them, same VNIs, indexes into its own links.
        assert [link["vni"] for link in shard_plan["links"]] == [link.vni for link in plan.links]
        assert [shard.links[link["index"]].subject for link in shard_plan["links"]] == [
            topology.links[link.index].subject for link in plan.links]
        assert shard.extra["shard"]["host"] == host
    assert spines.extra["shard"]["remote_switches"] == ["leaf1", "leaf2"]


def test_shard_topology_refuses_a_server_on_two_hosts_and_an_unknown_host():
    topology = sample_fabric("ftshtopo")
    plan = stitch_plan(topology, _worst(topology), UNDERLAY)
    first = topology.hosts[0]
    dual_homed = dataclasses.replace(first, interfaces=(*first.interfaces, HostInterface(
        "eth1", "spine1", "eth9", "10.99.0.1/24")))  # a second NIC cabled to a switch on host a
    split = dataclasses.replace(topology, hosts=(dual_homed, *topology.hosts[1:]))
    with pytest.raises(InputError, match="server cabled to switches on two twin hosts") as error:
        shard_topology(split, plan, "b", prefix="ftshtopos1")
    assert [field_error.field for field_error in error.value.errors] == [f"hosts[{first.name}]"]
    with pytest.raises(InputError, match="not a host of the stitch plan"):
        shard_topology(topology, plan, "c", prefix="ftshtopos2")
    with pytest.raises(InputError, match="shard prefix"):
        shard_prefix("tw0123456789abcd", 10)
