"""A sharded twin on two emulated hosts (issue 35): the 2x2 sample fabric with the worst cut (spines on host a,
leaves on host b: every leaf-spine cable crosses hosts as a VXLAN link through the emulated underlay), booted by
the ordinary ``labs.runtime.up``. It must pass the same live checks with the same sessions and ECMP widths as on
one machine; with host b's underlay deleted it must report a partition naming b's switches, never green.

Needs root, FRR and ``ip netns`` (skipped with the reason otherwise), like every twin test.
"""

import pytest
from twin_sample_fabric import sample_fabric

from compiler.errors import InputError
from labs import checks, expect, measure, runtime
from labs.shards import ShardHost, graph_from_topology, plan_shards
from labs.stitch import (
    STITCH_UDP_PORT,
    UnderlayHost,
    emulate_hosts,
    partition_report,
    remove_emulated_hosts,
    stitch_plan,
    stitched_topology,
)
from labs.topology import new_prefix
from validators.findings import Report

pytestmark = [pytest.mark.twin, pytest.mark.usefixtures("twin_required")]
HOSTS = (ShardHost("a", 1), ShardHost("b", 1))


def _answers(state) -> dict:
    """What must be identical between the single-host and the sharded run."""
    topology = state.topology_obj()
    return {"sessions": measure.bgp_session_counts(state),
            "ecmp": measure.ecmp_widths(state, expect.vteps(topology))}


@pytest.fixture(scope="module")
def single_host_answers(tmp_path_factory):
    state_dir = tmp_path_factory.mktemp("single")
    state = runtime.up(sample_fabric(new_prefix()), state_dir)
    try:
        report, _ = checks.verify(state, failover=False)
        assert report.ok, report.as_text()
        return _answers(state)
    finally:
        runtime.down(state.prefix, state_dir, force=True)


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    state_dir = tmp_path_factory.mktemp("sharded")
    topology = sample_fabric(new_prefix())
    plan = plan_shards(graph_from_topology(topology), HOSTS, worst_cut=True)
    underlay = emulate_hosts(topology.name_prefix, [host.name for host in HOSTS])
    try:
        stitch = stitch_plan(topology, plan.assignment, underlay)
        state = runtime.up(stitched_topology(topology, stitch), state_dir)
        try:
            yield plan, stitch, state
        finally:
            runtime.down(state.prefix, state_dir, force=True)
    finally:
        remove_emulated_hosts(topology.name_prefix, underlay)


def test_every_cable_crosses_hosts_as_vxlan(sharded):
    plan, stitch, state = sharded
    assert plan.switches_of("a") == ["spine1", "spine2"] and plan.switches_of("b") == ["leaf1", "leaf2"]
    assert len(stitch.links) == len(state.topology_obj().links) == 4
    for link in stitch.links:
        for node, ifname in ((link.a_node, link.a_ifname), (link.b_node, link.b_ifname)):
            details = runtime.run(["ip", "-n", state.node_netns[node], "-d", "link", "show", ifname]).stdout
            assert f"vxlan id {link.vni} " in details and f"dstport {STITCH_UDP_PORT}" in details, details


def test_sharded_twin_passes_the_live_checks_like_one_machine(sharded, single_host_answers):
    _, stitch, state = sharded
    report, measured = checks.verify(state, failover=True)
    assert report.ok, report.as_text()
    assert _answers(state) == single_host_answers
    # A stitched cable cut downs both ends (labs.stitch.stitched_far_ends): the far side reacts at once, as on a
    # veth pair, instead of waiting for the 9 s BGP hold time (8.0 s outage measured before both ends were cut).
    assert measured["failover_link"]["outage_s"] < 3.0, measured["failover_link"]
    assert partition_report(stitch)["partitioned"] is False


def test_underlay_mtu_too_small_is_refused():
    topology = sample_fabric("ftmtuchk")
    plan = plan_shards(graph_from_topology(topology), HOSTS, worst_cut=True)
    small = {"a": UnderlayHost("a", "198.18.0.1", mtu=9000), "b": UnderlayHost("b", "198.18.0.2", mtu=9266)}
    with pytest.raises(InputError) as error:
        stitch_plan(topology, plan.assignment, small)
    assert [field_error.field for field_error in error.value.errors] == ["hosts[a].mtu"]


def test_lost_host_is_a_partition_never_green(sharded):
    _, stitch, state = sharded
    runtime.run(["ip", "-n", stitch.hosts["b"].netns, "link", "del", stitch.hosts["b"].ifname])
    partition = partition_report(stitch)
    assert partition["partitioned"] and partition["lost_hosts"] == ["b"], partition
    assert partition["lost_switches"] == ["leaf1", "leaf2"]
    assert len(partition["cut_cables"]) == 4
    report = Report("after losing host b")
    checks.check_bgp_sessions(state, report, timeout_s=10)
    assert not report.ok, report.as_text()
