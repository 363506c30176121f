"""The ``roce_gate`` key of a rollout policy: whether the canary is gated on RoCE counters, its windows, and the
gate's thresholds (:class:`~changes.rocegate.gate.GatePolicy`). Checked here, field by field, for
changes.policy (which names every problem ``policy.roce_gate.<field>``) and read by the canary pipeline.

Timing: ``post_s`` is the post-push window and ``polls`` the polls in it, so the poll interval is
``post_s / polls`` (the issue asks for a decision within 2 poll intervals); the pre window of ``pre_s`` seconds
is read at the same interval just before the canary's push (``pre_s / interval + 1`` polls, at least 2: one rate).
Queues: ``lossless_queues`` and ``ecn_queues`` default to what the canary's structured config says
(:func:`queues_from_structured`), else queue 3 (the RoCE class of the AI cluster design guide and of NVIDIA's
and Arista's RoCE guides: DSCP 26 -> priority/queue 3). Pure Python; no Django.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .gate import GatePolicy

DEFAULT_ROCE_QUEUE = 3  # DSCP 26 -> TC 3 -> queue 3, lossless, ECN-marked (the guides above)
TUNABLES = ("alpha", "ratio", "max_pause_fraction", "floor_per_s", "quiet_pfc_per_s")
KEYS = ("enabled", "pre_s", "post_s", "polls", "lossless_queues", "ecn_queues", *TUNABLES)
MAX_WINDOW_S = 3600  # a pre or post window longer than an hour holds a canary push for too long to be a gate

# Counter kinds the rollout page charts when no gate named a counter (after those a failed gate named).
CHARTED = ("pfc_rx", "pause_us", "ecn_marked", "cnp_sent")


@dataclass(frozen=True)
class GateSettings:
    enabled: bool = False
    pre_s: float = 60.0
    post_s: float = 20.0
    polls: int = 2
    lossless_queues: tuple[int, ...] | None = None  # None: from the canary's structured config
    ecn_queues: tuple[int, ...] | None = None
    gate: GatePolicy = field(default_factory=GatePolicy)

    @property
    def interval_s(self) -> float:
        return self.post_s / self.polls

    @property
    def pre_polls(self) -> int:
        return max(2, round(self.pre_s / self.interval_s) + 1)

    @classmethod
    def from_json(cls, value: Mapping[str, Any] | None) -> GateSettings:
        """The settings of a stored (already checked) policy value; ValueError on a value that fails the checks."""
        problems = settings_problems(value)
        if problems:
            raise ValueError("; ".join(f"roce_gate.{name}={bad!r}: {message}" for name, bad, message in problems))
        data = dict(value or {})
        tunables = {name: float(data[name]) for name in TUNABLES if name in data}
        return cls(enabled=bool(data.get("enabled", False)), pre_s=float(data.get("pre_s", cls.pre_s)),
                   post_s=float(data.get("post_s", cls.post_s)), polls=int(data.get("polls", cls.polls)),
                   lossless_queues=_queues(data.get("lossless_queues")), ecn_queues=_queues(data.get("ecn_queues")),
                   gate=GatePolicy(polls=int(data.get("polls", cls.polls)), **tunables))


def _queues(value) -> tuple[int, ...] | None:
    return None if value is None else tuple(int(queue) for queue in value)


def _number(value: Any) -> bool:
    """A finite JSON number (NaN and infinities pass every comparison check the wrong way or not at all)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def settings_problems(value: Any) -> list[tuple[str, Any, str]]:
    """Every problem of a ``roce_gate`` value as (field, value, message); field "" is the value itself."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return [("", value, f'must be an object such as {{"enabled": true, "pre_s": 60, "post_s": 20, "polls": 2}}; '
                            f"keys: {', '.join(KEYS)}")]
    problems = [(name, value[name], f"unknown key; known: {', '.join(KEYS)}") for name in value if name not in KEYS]
    if "enabled" in value and not isinstance(value["enabled"], bool):
        problems.append(("enabled", value["enabled"], "must be true or false"))
    for name in ("pre_s", "post_s"):
        if name in value and (not _number(value[name]) or not 0 < value[name] <= MAX_WINDOW_S):
            problems.append((name, value[name], f"must be seconds in (0, {MAX_WINDOW_S}]"))
    polls = value.get("polls", GateSettings.polls)
    if not isinstance(polls, int) or isinstance(polls, bool) or not 1 <= polls <= 60:
        problems.append(("polls", polls, "must be an integer in 1..60 (polls after the push)"))
    for name in ("lossless_queues", "ecn_queues"):
        queues = value.get(name)
        if queues is not None and (not isinstance(queues, list) or any(
                not isinstance(queue, int) or isinstance(queue, bool) or not 0 <= queue <= 7 for queue in queues)):
            problems.append((name, queues, "must be a list of queue numbers 0..7 (or null: from the intent)"))
    limits = {"alpha": (0.0, 0.5, "a significance level in (0, 0.5)"), "ratio": (1.0, None, "a factor >= 1"),
              "max_pause_fraction": (0.0, 1.0, "a fraction of time in (0, 1]"),
              "floor_per_s": (0.0, None, "events per second >= 0"), "quiet_pfc_per_s": (0.0, None, "frames/s >= 0")}
    for name, (low, high, what) in limits.items():
        if name not in value:
            continue
        number = value[name]
        inclusive_low = name in ("ratio", "floor_per_s", "quiet_pfc_per_s")
        if (not _number(number) or (number < low if inclusive_low else number <= low)
                or (high is not None and (number >= high if name == "alpha" else number > high))):
            problems.append((name, number, f"must be {what}"))
    if not problems:
        pre_s = value.get("pre_s", GateSettings.pre_s)
        interval = value.get("post_s", GateSettings.post_s) / polls
        if pre_s < interval:
            problems.append(("pre_s", pre_s, f"the pre window needs at least one poll interval (post_s / polls = "
                                             f"{interval:g} s) to give one rate"))
    return problems


def queues_from_structured(structured: Mapping | None) -> tuple[set[int], set[int]] | None:
    """(lossless queues, queues with ECN) of a device from its structured config (compiler.structured.roce_qos:
    ``qos.tc_to_queue`` of the traffic classes whose ``tc_to_priority`` is a lossless priority; the queues of the
    ports' ``qos.ecn``); None when the config has no RoCE QoS."""
    qos = (structured or {}).get("qos") or {}
    lossless_priorities = set(qos.get("lossless_priorities") or ())
    if not lossless_priorities:
        return None
    priorities = qos.get("tc_to_priority") or {}
    lossless = {int(queue) for tc, queue in (qos.get("tc_to_queue") or {}).items()
                if priorities.get(tc) in lossless_priorities}
    ecn = {int(queue) for interface in structured.get("interfaces") or ()
           for queue in ((interface.get("qos") or {}).get("ecn") or {})}
    return lossless, ecn
