"""RolloutPolicy: one frozen dataclass with a check per field; every problem names policy.<field> and its value,
and a valid policy is stored exactly as the caller's object over the defaults."""

from __future__ import annotations

import dataclasses

import pytest

from changes.choices import RolloutKindChoices as Kind
from changes.policy import RolloutPolicy
from compiler.errors import InputError

CANARY, UPGRADE = Kind.CANARY_PUSH, Kind.ROLLING_UPGRADE


def _problems(raw, kind=CANARY) -> dict[str, list]:
    return {error.field: [error.value, error.message] for error in RolloutPolicy.field_errors(raw, kind=kind)}


def test_defaults_pass_and_are_typed():
    policy = RolloutPolicy.from_json({}, kind=CANARY)
    assert policy.wave_size == 4 and policy.checks[0] == "static" and policy.canary_devices == ()
    assert policy.max_spine_fraction is None and not hasattr(policy, "twin_prefix")
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.wave_size = 9  # type: ignore[misc]
    with pytest.raises(TypeError):
        policy.canary["devices"] = ["leaf9"]  # type: ignore[index]


def test_stored_form_is_the_callers_object_over_the_defaults():
    raw = {"canary": {"rack": "rack2"}, "checks": ["bgp"]}
    merged = RolloutPolicy.merged_json(raw)
    assert merged["canary"] == {"rack": "rack2"} and merged["wave_size"] == 4
    assert "twin_prefix" not in merged and list(merged)[:2] == ["canary", "wave_size"]
    policy = RolloutPolicy.from_json(raw, kind=CANARY)
    assert policy.canary_rack == "rack2" and policy.canary_devices == () and policy.checks == ("bgp",)


@pytest.mark.parametrize("raw, kind, field, value, message", [
    ({"wave_size": 0}, CANARY, "policy.wave_size", 0, "must be an integer >= 1"),
    ({"wave_size": True}, CANARY, "policy.wave_size", True, "must be an integer >= 1"),
    ({"soak_s": -1}, CANARY, "policy.soak_s", -1, "must be an integer >= 0"),
    ({"converge_timeout_s": "60"}, CANARY, "policy.converge_timeout_s", "60", "must be an integer >= 1"),
    ({"max_spines_drained": 0}, CANARY, "policy.max_spines_drained", 0, "must be an integer >= 1"),
    ({"checks": ["bgp", "telepathy"]}, CANARY, "policy.checks", ["bgp", "telepathy"], "must be a list drawn from"),
    ({"canary": {"site": "x"}}, CANARY, "policy.canary", {"site": "x"}, 'use {"devices": [...]}'),
    ({"canary": {"rack": 3}}, CANARY, "policy.canary", {"rack": 3}, "devices must be a list of hostnames"),
    ({"canary": {"devices": ["leaf 1"]}}, CANARY, "policy.canary.devices", "leaf 1", ""),
    ({"redundant_pairs": [["a"]]}, CANARY, "policy.redundant_pairs", [["a"]], "[device, device] pairs"),
    ({"devices": "spine1"}, CANARY, "policy.devices", "spine1", "must be a list of hostnames"),
    ({"devices": ["spine/1"]}, CANARY, "policy.devices", "spine/1", ""),
    ({"max_spine_fraction": 1.5}, CANARY, "policy.max_spine_fraction", 1.5, "must be a number in (0, 1]"),
    ({"target_version": 4}, CANARY, "policy.target_version", 4, "must be a string"),
    ({"target_version": "4.1\nreload now"}, CANARY, "policy.target_version", "4.1\nreload now", ""),
    ({}, UPGRADE, "policy.target_version", "", "a rolling upgrade needs the version to install"),
    # issue #28: the Twin row is the handle; a prefix or path in the policy is refused by name, never ignored
    ({"twin_prefix": "ftx"}, CANARY, "policy.twin_prefix", "ftx", "named by `twin` (the Twin id)"),
    ({"twin_state_dir": "/tmp/x"}, CANARY, "policy.twin_state_dir", "/tmp/x", "not by a path"),
    ({"telepathy": 1}, CANARY, "policy.telepathy", 1, "unknown policy key"),
    ({"roce_gate": {"enabled": True, "ratio": 0.5}}, CANARY, "policy.roce_gate.ratio", 0.5, "a factor >= 1"),
    ({"roce_gate": {"alpha": float("inf")}}, CANARY, "policy.roce_gate.alpha", float("inf"), "significance level"),
    ({"target_version": "4.33.2F", "roce_gate": {"enabled": True}}, UPGRADE, "policy.roce_gate.enabled", True,
     "a rolling upgrade has none"),
])
def test_each_broken_field_is_named_with_its_value(raw, kind, field, value, message):
    problems = _problems(raw, kind)
    assert field in problems, problems
    assert problems[field][0] == value and message in problems[field][1]
    with pytest.raises(InputError) as raised:
        RolloutPolicy.from_json(raw, kind=kind)
    assert field in raised.value.as_dict()


@pytest.mark.parametrize("raw", [
    {"wave_size": 1, "soak_s": 0, "converge_timeout_s": 1, "max_spines_drained": 2},
    {"checks": ["health"], "canary": {"devices": ["leaf1", "leaf2"]}},
    {"canary": {"rack": "rack1"}, "redundant_pairs": [["spine1", "spine2"]], "devices": ["spine1"]},
    {"max_spine_fraction": 0.25, "target_version": "4.33.2F"},
    {"roce_gate": {"enabled": True, "pre_s": 60, "post_s": 20, "polls": 2, "alpha": 0.01, "ecn_queues": [3],
                   "lossless_queues": None, "max_pause_fraction": 0.05}},
])
def test_each_field_has_a_passing_value(raw):
    assert _problems(raw, UPGRADE if raw.get("target_version") else CANARY) == {}
    RolloutPolicy.from_json(raw, kind=CANARY)


def test_roce_gate_numbers_must_be_finite():
    # Python's json reads NaN (the command's --policy): NaN passes every comparison check the wrong way
    problems = _problems({"roce_gate": {"ratio": float("nan"), "floor_per_s": float("nan")}})
    assert set(problems) == {"policy.roce_gate.ratio", "policy.roce_gate.floor_per_s"}
