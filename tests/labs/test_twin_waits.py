"""Waiting on a big twin asks only the switches still short (pure: the per-switch reading is faked)."""

from types import SimpleNamespace

from labs import measure


def test_bgp_wait_repolls_only_short_switches_then_confirms_all(monkeypatch):
    # leaf1 converges at its 3rd reading; spine1 is complete from the start; every reading is counted
    readings = {"spine1": [], "leaf1": []}
    script = {"leaf1": [0, 1, 2, 2, 2], "spine1": [2, 2, 2]}

    def fake(state, node):
        readings[node].append(1)
        established = script[node][min(len(readings[node]), len(script[node])) - 1]
        return {"ipv4Unicast": established}, {}

    monkeypatch.setattr(measure, "bgp_sessions", fake)
    wait = measure.wait_bgp_sessions(SimpleNamespace(), {"spine1": {"ipv4Unicast": 2}, "leaf1": {"ipv4Unicast": 2}},
                                     timeout_s=10, poll_s=0)
    assert not wait.missing
    assert len(readings["leaf1"]) == 4 and len(readings["spine1"]) == 2  # first poll + the confirmation only


def test_a_session_lost_during_confirmation_keeps_waiting(monkeypatch):
    script = {"leaf1": [0, 2, 1, 2, 2], "spine1": [2, 2, 2, 2]}  # leaf1 drops a session during the confirmation
    seen = {"leaf1": 0, "spine1": 0}

    def fake(state, node):
        seen[node] += 1
        return {"ipv4Unicast": script[node][min(seen[node], len(script[node])) - 1]}, {}

    monkeypatch.setattr(measure, "bgp_sessions", fake)
    wait = measure.wait_bgp_sessions(SimpleNamespace(), {"spine1": {"ipv4Unicast": 2}, "leaf1": {"ipv4Unicast": 2}},
                                     timeout_s=10, poll_s=0)
    assert not wait.missing and seen == {"leaf1": 5, "spine1": 3}  # the drop was seen and waited out


def test_bgp_wait_times_out_naming_what_is_missing(monkeypatch):
    monkeypatch.setattr(measure, "bgp_sessions", lambda state, node: ({"ipv4Unicast": 1}, {"ipv4Unicast": ["x (Active)"]}))
    wait = measure.wait_bgp_sessions(SimpleNamespace(), {"leaf1": {"ipv4Unicast": 2}}, timeout_s=0.05, poll_s=0.01)
    assert wait.missing == {"leaf1": {"ipv4Unicast": (2, 1)}}
