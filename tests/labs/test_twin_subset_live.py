"""Subset boot live: 2 spines + 2 of 8 leaves of a compiled fabric boot green, and the report says what was left
out (needs root + FRR; skipped with the reason otherwise)."""

import pytest

from compiler.api import compile_fabric
from compiler.scenario import snapshot_from_scenario
from labs import checks, runtime
from labs.from_compile import topology_from_compile
from labs.subset import subset_from_compile
from labs.topology import new_prefix

pytestmark = [pytest.mark.twin, pytest.mark.usefixtures("twin_required")]


def test_two_of_eight_leaves_boot_green_and_the_rest_is_reported_left_out(tmp_path):
    scenario = {"clos": {"spines": 2, "leaves": 8, "servers_per_leaf": 1, "platform": "frr"},
                "intent": {"name": "subset8", "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                           "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/22",
                                         "gateway": "10.10.0.1", "attachments": "all"}]}}
    result = compile_fabric(snapshot_from_scenario(scenario))
    topology = subset_from_compile(topology_from_compile(result, name_prefix=new_prefix()), result, "leaf3,leaf8")
    state = runtime.up(topology, tmp_path)
    try:
        report, measured = checks.verify(state, failover=False)
        sessions = runtime.status(state.prefix, tmp_path, sessions=True)["bgp"]
    finally:
        runtime.down(state.prefix, tmp_path, force=True)
    assert sorted(state.node_netns) == ["leaf3", "leaf8", "spine1", "spine2"]
    assert report.ok, report.as_text()
    assert report.checks["twin.bgp_sessions"].status == "passed"
    assert report.checks["twin.ping_bridged"].status == "passed"
    # each spine runs exactly its two twinned leaves' sessions (ipv4 + evpn): no neighbor toward a left-out leaf
    assert sessions["spine1"] == {"established": 4, "configured": 4}
    subset = report.checks["twin.subset"]
    assert subset.status == "skipped" and "6 leaves (leaf1, leaf2, leaf4, leaf5, leaf6, leaf7)" in subset.reason
    assert measured["size_policy"]["bfd"] is True and measured["size_policy"]["switches"] == 4
