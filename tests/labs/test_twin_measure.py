"""labs.measure without a running twin: the one ping classification, the one failure injection (links always
come back), the L3VNI re-learn findings, and "every live measurement has one home" (no twin, no root)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from twin_sample_fabric import sample_fabric

from labs import expect, measure
from labs.checks.l3vni import record_relearn, relearn_findings
from validators.findings import CheckStatus, Report, Severity

LABS = Path(measure.__file__).parent


class FakeState:
    """Just enough of a TwinState for the injection: the topology (no namespaces are touched)."""

    def __init__(self, topology) -> None:
        self._topology = topology
        self.node_netns = {node.name: f"ft-{node.name}" for node in topology.nodes}

    def topology_obj(self):
        return self._topology


def ports_by_host(topology) -> dict:
    return {port.host: port for port in expect.host_ports(topology)}


def test_classify_ping_routes_without_vrfs_only_where_the_source_leaf_has_the_svi():
    topology = sample_fabric("ftm", leaves=2)
    ports = ports_by_host(topology)
    svis = expect.svi_networks(topology)
    source, other_network = ports["h1"], ports["h2b"]
    assert measure.classify_ping(source, ports["h2"], vrf_devices=False, svis=svis) == "bridged"
    assert measure.classify_ping(source, other_network, vrf_devices=False, svis=svis) == "routed"
    # broken: no SVI of net20 on leaf1 -> without tenant VRFs the twin cannot route it (needs the L3VNI)
    assert measure.classify_ping(source, other_network, vrf_devices=False, svis={}) == "static_only"
    assert measure.classify_ping(source, other_network, vrf_devices=True, svis={}) == "routed"


def test_inject_cuts_measures_restores_and_relearns(monkeypatch):
    state = FakeState(sample_fabric("ftm", leaves=2))
    calls: list[tuple[str, list]] = []
    links_down: list[bool] = []
    monkeypatch.setattr(measure, "set_links", lambda _state, targets, updown: (
        calls.append((updown, list(targets))), links_down.append(updown == "down")))
    # the matrix is reduced while the link is down, whole again once it is up
    monkeypatch.setattr(measure, "ecmp_widths", lambda _state, vteps, pairs=None: {
        ("leaf1", "leaf2"): 1 if links_down[-1:] == [True] else 2, ("leaf2", "leaf1"): 2})
    monkeypatch.setattr(measure, "relearn_l3vni_next_hops", lambda _state: measure.Relearn(has_l3vni=False))
    monkeypatch.setattr(measure.time, "sleep", lambda _s: None)
    injection = measure.inject(state, [("leaf1", "eth1")], settle_s=0.01)
    assert calls == [("down", [("leaf1", "eth1")]), ("up", [("leaf1", "eth1")])]
    assert injection.widths == {"leaf1->leaf2": 1, "leaf2->leaf1": 2}
    assert injection.restored[0] is not None and injection.relearn.has_l3vni is False


def test_inject_brings_the_links_back_when_a_measurement_fails(monkeypatch):
    state = FakeState(sample_fabric("ftm", leaves=2))
    calls: list[str] = []
    monkeypatch.setattr(measure, "set_links", lambda _state, targets, updown: calls.append(updown))
    readings = iter([{("leaf1", "leaf2"): 2}])

    def flaky(_state, vteps, pairs=None):
        try:
            return next(readings)
        except StopIteration:
            raise RuntimeError("vtysh went away") from None

    monkeypatch.setattr(measure, "ecmp_widths", flaky)
    monkeypatch.setattr(measure.time, "sleep", lambda _s: None)
    with pytest.raises(RuntimeError, match="vtysh went away"):
        measure.inject(state, [("leaf1", "eth1")], settle_s=0.01)
    assert calls == ["down", "up"]  # never leaves the twin with links down


def test_relearn_is_a_warning_when_repaired_and_an_error_when_not():
    report = Report()
    record_relearn(measure.Relearn(has_l3vni=True), report)
    assert report.checks["twin.l3vni_next_hops"].status == CheckStatus.PASSED
    quiet = Report()
    record_relearn(measure.Relearn(has_l3vni=False), quiet)
    assert "twin.l3vni_next_hops" not in quiet.checks  # nothing routes through an L3VNI: nothing to say

    repaired = relearn_findings(measure.Relearn(True, {"leaf1": ["10.0.4.2"]}, 1.5, {}))
    assert [finding.severity for finding in repaired] == [Severity.WARNING]
    assert "FRR lost the L3VNI next hops" in repaired[0].message and "10.0.4.2" in repaired[0].message
    # broken: still missing after `clear bgp *`
    left = relearn_findings(measure.Relearn(True, {"leaf1": ["10.0.4.2"]}, 45.0, {"leaf1": ["10.0.4.2"]}))
    assert [finding.severity for finding in left] == [Severity.WARNING, Severity.ERROR]
    assert "still missing 45s after re-learning" in left[1].message


def _calls_to(path: Path, names: set[str]) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr in names and isinstance(node.value, ast.Name) \
                and node.value.id in ("collectors", "flowprobe"):
            found.add(node.attr)
    return found


def test_every_live_measurement_has_one_home():
    """The checks and the fidelity comparison measure through labs.measure, never on their own."""
    measuring = {"ping", "start_ping", "collect_bgp_summary", "collect_kernel_routes", "collect_flood_lists",
                 "collect_tx_packets", "collect_link_counters", "collect_l3vnis", "collect_bfd_peers",
                 "collect_evpn_route_types", "collect_links", "probe"}
    offenders = {str(path.relative_to(LABS)): sorted(_calls_to(path, measuring))
                 for path in [LABS / "fidelity.py", *sorted((LABS / "checks").glob("*.py"))]}
    offenders = {path: calls for path, calls in offenders.items() if calls}
    assert offenders == {}, offenders
    assert _calls_to(LABS / "measure.py", measuring) == measuring
