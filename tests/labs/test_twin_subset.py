"""Subset boot selection (pure: compiled topologies, no root): every spine plus the chosen leaves, what was left
out, neighbor lines toward left-out cables removed, and the static prediction restricted to the same switches."""

import json

import pytest
from twin_sample_fabric import sample_fabric

from compiler.api import compile_fabric
from compiler.errors import InputError, TwinError
from compiler.scenario import snapshot_from_scenario
from labs import __main__ as cli
from labs.from_compile import topology_from_compile
from labs.subset import select_leaves, subset_from_compile, subset_topology
from validators.prediction import predict


def _scenario(spines: int, leaves: int, underlay: str = "numbered") -> dict:
    return {"clos": {"spines": spines, "leaves": leaves, "servers_per_leaf": 1, "platform": "frr"},
            "intent": {"name": "subset", "underlay": underlay, "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                       "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/22",
                                     "gateway": "10.10.0.1", "attachments": "all"}]}}


@pytest.fixture(scope="module")
def compiled():
    result = compile_fabric(snapshot_from_scenario(_scenario(2, 8)))
    return result, topology_from_compile(result, name_prefix="ftsub1")


@pytest.fixture(scope="module")
def pods_compiled():
    scenario = {"pods": {"pods": 2, "super_spines_per_plane": 1, "pod": {"spines": 2, "leaves": 3, "servers_per_leaf": 1,
                                                                        "platform": "frr"}},
                "intent": _scenario(1, 1)["intent"]}
    result = compile_fabric(snapshot_from_scenario(scenario))
    return result, topology_from_compile(result, name_prefix="ftsub2")


def test_two_of_eight_leaves_keep_every_spine_and_say_what_was_left_out(compiled):
    result, topology = compiled
    small = subset_from_compile(topology, result, "leaf2,leaf7")
    assert sorted(node.name for node in small.nodes) == ["leaf2", "leaf7", "spine1", "spine2"]
    assert {(link.a_node, link.b_node) for link in small.links} <= {
        (a, b) for a in ("leaf2", "leaf7", "spine1", "spine2") for b in ("leaf2", "leaf7", "spine1", "spine2")}
    assert len(small.links) == 4 and {port.peer_node for host in small.hosts for port in host.interfaces} == {"leaf2", "leaf7"}
    subset = small.extra["subset"]
    assert subset["left_out_leaves"] == ["leaf1", "leaf3", "leaf4", "leaf5", "leaf6", "leaf8"]
    assert subset["left_out_links"] == 12 and subset["left_out_hosts"] == 6 and subset["switches"] == "4 of 10"
    # each spine keeps exactly its two booted leaves as BGP neighbors (numbered: by the /31 of the port)
    spine = small.nodes_by_name["spine1"].frr_conf
    assert subset["neighbors_removed"] == {"spine1": 6, "spine2": 6}
    assert sum(1 for line in spine.splitlines() if line.strip().endswith("peer-group UNDERLAY")) == 2
    assert "leaf7" in spine and "leaf3_" not in spine
    interfaces = [line.split()[1] for line in spine.splitlines() if line.startswith("interface ")]
    assert len(interfaces) == 2 and "!\n!" not in spine  # blocks of left-out ports removed with their separator
    # the leaves' own configs are untouched (all their cables are booted)
    assert small.nodes_by_name["leaf2"].frr_conf == topology.nodes_by_name["leaf2"].frr_conf


def test_unnumbered_neighbors_toward_left_out_ports_go_too():
    result = compile_fabric(snapshot_from_scenario(_scenario(2, 4, underlay="unnumbered")))
    small = subset_from_compile(topology_from_compile(result, name_prefix="ftsub3"), result, "leaves:2")
    spine = small.nodes_by_name["spine1"].frr_conf
    kept = sorted(link.a_ifname if link.a_node == "spine1" else link.b_ifname
                  for link in small.links if "spine1" in (link.a_node, link.b_node))
    interface_neighbors = sorted({line.split()[1] for line in spine.splitlines()
                                  if line.strip().startswith("neighbor ") and " interface" in line})
    assert interface_neighbors == kept and len(kept) == 2


def test_ci_default_is_two_leaves_per_pod(pods_compiled):
    result, topology = pods_compiled
    small = subset_from_compile(topology, result, "ci")
    leaves = small.extra["subset"]["leaves"]
    pods = {switch.hostname: switch.pod for switch in result.snapshot.inventory.switches}
    assert len(leaves) == 4 and sorted(pods[leaf] for leaf in leaves) == [1, 1, 2, 2]
    roles = {node.role for node in small.nodes}
    assert {"spine", "super-spine"} <= roles
    assert sum(1 for node in small.nodes if node.role in ("spine", "super-spine")) == sum(
        1 for node in topology.nodes if node.role in ("spine", "super-spine"))
    one_pod = subset_from_compile(topology, result, "pod:2")
    assert {pods[leaf] for leaf in one_pod.extra["subset"]["leaves"]} == {2}


def test_unknown_leaf_spine_and_empty_pod_are_named(compiled):
    result, topology = compiled
    with pytest.raises(InputError) as error:
        subset_from_compile(topology, result, "leaf2,leaf99,spine1,pod:7", field="subset")
    fields = {(item.field, item.value) for item in error.value.errors}
    assert fields == {("subset", "leaf99"), ("subset", "spine1"), ("subset", "pod:7")}
    assert "no leaf named 'leaf99'" in str(error.value)
    with pytest.raises(InputError, match="names no leaf"):
        select_leaves(topology, " , ")


def test_prediction_restricted_to_the_subset_matches_the_twin_expectations(compiled):
    result, topology = compiled
    small = subset_topology(topology, ["leaf2", "leaf7"])
    full = predict(result)
    restricted = predict(result, devices={node.name for node in small.nodes})
    assert full.sessions["spine1"]["ipv4Unicast"] == 8
    assert restricted.sessions["spine1"]["ipv4Unicast"] == 2 and restricted.sessions_intended["spine1"] == 2
    assert set(restricted.sessions) == {"leaf2", "leaf7", "spine1", "spine2"}
    assert set(restricted.ecmp) == {"leaf2->leaf7", "leaf7->leaf2"} and restricted.ecmp["leaf2->leaf7"] == 2
    assert set(restricted.flood) == {"leaf2:10010", "leaf7:10010"} or all(
        key.split(":")[0] in ("leaf2", "leaf7") for key in restricted.flood)
    assert all(len(vteps) == 1 for vteps in restricted.flood.values())
    assert len(restricted.link_mtu) == 4
    assert {port.split(":")[0] for pair in restricted.host_mtu for port in pair.split("->")} == {
        host.name for host in small.hosts}
    assert all(target[0] in {"leaf2", "leaf7", "spine1", "spine2"}
               for scenario in restricted.scenarios for target in scenario["targets"])


def test_prediction_is_told_the_twin_protocol_settings(compiled):
    result, _ = compiled
    assert predict(result).failure_detection == {"seconds": 0.9, "basis": "BFD 300 ms x 3", "outage_limit_s": 1.9}
    told = predict(result, twin_protocol={"bfd": False, "min_hold_s": 30}).failure_detection
    assert told == {"seconds": 30.0, "basis": "BGP hold 30 s", "outage_limit_s": 31.0}



def test_cli_refuses_an_unknown_leaf_before_anything_boots(tmp_path, capsys, monkeypatch):
    booted = []

    def fake_up(topology, *args, **kwargs):
        booted.append(topology)
        raise TwinError("not booting in a unit test")

    monkeypatch.setattr(cli.runtime, "up", fake_up)
    path = tmp_path / "twin.json"
    path.write_text(json.dumps(sample_fabric("ftcli1", leaves=3).to_dict()))
    assert cli.main(["up", "--topology", str(path), "--subset", "leaf2,leaf9"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["error"] == "invalid input" and "leaf9" in out["fields"]["--subset"][0] and not booted
    # the same selection without the typo is what would be booted
    cli.main(["up", "--topology", str(path), "--subset", "leaf2"])
    assert sorted(node.name for node in booted[0].nodes) == ["leaf2", "spine1", "spine2"]
