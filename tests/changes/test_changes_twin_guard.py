"""The twin driver runs the pre-push guard before touching the node, with the drain carried on both sides.

No twin is booted: the node's running config, its drain file and the apply step are replaced, so only the wiring
is tested here (guard called, drain carried, nothing applied when refused); the apply itself is covered by the
live twin tests (test_changes_twin.py)."""

from __future__ import annotations

import pytest
from test_changes_push_guard import FRR

from changes.drivers.twin import TwinDriver
from changes.errors import PushRefused

DRAIN = ("route-map FT-DRAIN permit 10\n set as-path prepend 65101 65101 65101\nexit\nrouter bgp 65101\n"
         " address-family ipv4 unicast\n  neighbor 10.1.0.0 route-map FT-DRAIN out\n exit-address-family\nexit\n")
UNDRAINED = FRR[:FRR.index("route-map FT-DRAIN permit")].replace("  neighbor 10.1.0.0 route-map FT-DRAIN out\n", "")


@pytest.fixture
def node(tmp_path, monkeypatch):
    driver = TwinDriver("ftguard", "leaf1")
    driver.etc = tmp_path
    (tmp_path / "ft-drain.conf").write_text(DRAIN)  # the node is drained
    applied = []
    monkeypatch.setattr(driver, "get_running_config", lambda: {"frr.conf": UNDRAINED, "linux-plan.json": "{}\n"})
    monkeypatch.setattr(driver, "_apply", applied.append)
    driver.applied = applied
    return driver


@pytest.mark.parametrize("live_drift", [False, True])
def test_drained_node_takes_a_candidate_without_the_drain_lines(node, monkeypatch, live_drift):
    if live_drift:  # FRR's live config (with the drain) is what get_running_config returns after a vtysh change
        monkeypatch.setattr(node, "get_running_config", lambda: {"frr.conf": UNDRAINED + DRAIN, "linux-plan.json": "{}\n"})
    node._candidate = {"frr.conf": UNDRAINED + "ip forwarding\n", "linux-plan.json": "{}\n"}
    node.commit()
    assert len(node.applied) == 1  # guard passed, the drain is re-applied by _apply after the reload


def test_candidate_cutting_the_management_vrf_route_is_refused_and_nothing_applied(node):
    node._candidate = {"frr.conf": UNDRAINED.replace(" ip route 0.0.0.0/0 192.0.2.1\n", ""), "linux-plan.json": "{}\n"}
    with pytest.raises(PushRefused, match=r"leaf1: .*management 'vrf mgmt': line 'ip route 0.0.0.0/0 192.0.2.1'"):
        node.commit()
    assert node.applied == []


def test_candidate_that_changes_the_drain_route_map_is_refused(node):
    node._candidate = {"frr.conf": UNDRAINED + "route-map FT-DRAIN permit 10\n set metric 0\nexit\n",
                       "linux-plan.json": "{}\n"}
    with pytest.raises(PushRefused, match="drain state 'route-map FT-DRAIN permit 10 / set metric 0' would be added"):
        node.commit()
    assert node.applied == []
