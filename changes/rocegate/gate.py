"""The RoCE-health gate of a canary: hard gates, relative gates and ratio limits over two polls.

Operators' pass/fail rules for a lossless class (the AI cluster design guide this project started from; NVIDIA
and Arista RoCE deployment guides say the same): any loss in the RoCE class is a problem; ECN marks must appear
before PFC fires (DCQCN: marking thresholds sit below the PFC XOFF point, so a healthy queue marks and slows senders
long before it pauses); frequent pauses at steady state mean the fabric needs retuning.

* **Hard gates** -- any increase on the canary fails: ``lossless_drops``, PFC watchdog storms (``wd_storms``),
  NIC pause storms, NIC local ACK timeouts, and ECN marks on a queue the intent gives no ECN.
* **Relative gates** -- per counter kind, the canary's rates after the push against **both** its own pre-change
  window **and** its unchanged control peers of the same role: a one-sided Mann-Whitney U test (rank test, no
  distribution assumed; normal approximation with tie correction and continuity, Mann & Whitney 1947) at
  ``alpha`` against each, and a median ratio beyond ``ratio``. The direction is the counter's bad direction (more
  pauses, drops and retransmissions; fewer ECN marks or CNPs sent when the class still carries traffic).
* **Ratio limits** -- the paused fraction of time (``pause_us`` per second / 10^6) above ``max_pause_fraction``
  on any canary port and priority; PFC received (above ``quiet_pfc_per_s``) on a canary port where the
  pre-change window saw none at all, or on a **watched** port of a neighbour facing the canary (a spine's
  downlink to the canary leaf: the canary pausing its spine shows there, not on the canary).

A decision is made on the first ``polls`` polls after the push (default 2). Pure Python; no Django.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass, field

from .schema import Key, Poll, rates

HARD = ("lossless_drops", "wd_storms", "pause_storms", "local_ack_timeout")
# Relative gates: counter -> the bad direction.
RELATIVE = {"pfc_rx": "higher", "pfc_tx": "higher", "pause_us": "higher", "wred_drops": "higher",
            "no_buffer_discards": "higher", "out_of_sequence": "higher", "packet_seq_err": "higher",
            "prio_discards": "higher", "out_of_buffer": "higher", "cnp_handled": "higher",
            "ecn_marked": "lower", "cnp_sent": "lower", "ecn_marked_roce": "lower"}


@dataclass
class GatePolicy:
    """Stored with the rollout (``Rollout.policy["roce_gate"]``); every field has a default."""

    alpha: float = 0.01
    ratio: float = 2.0  # the canary's median must differ from the others' by this factor too (effect size)
    max_pause_fraction: float = 0.02  # > 2 % of the time paused at steady state: retune, not normal operation
    polls: int = 2
    # Below these, a change is noise, not a fault: a relative gate needs the medians to differ by at least
    # ``floor_per_s`` events per second, and a quiet port must start receiving PFC above ``quiet_pfc_per_s``.
    floor_per_s: float = 1.0
    quiet_pfc_per_s: float = 5.0
    hard: tuple[str, ...] = HARD
    relative: dict[str, str] = field(default_factory=lambda: dict(RELATIVE))

    @classmethod
    def from_dict(cls, data: dict | None) -> GatePolicy:
        data = dict(data or {})
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"roce_gate: unknown field(s) {', '.join(sorted(unknown))}")
        if "hard" in data:
            data["hard"] = tuple(data["hard"])
        policy = cls(**data)
        if (not 0 < policy.alpha < 0.5 or policy.ratio < 1 or policy.polls < 1 or policy.max_pause_fraction <= 0
                or policy.floor_per_s < 0 or policy.quiet_pfc_per_s < 0):
            raise ValueError(f"roce_gate: alpha in (0, 0.5), ratio >= 1, polls >= 1, max_pause_fraction > 0, "
                             f"floors >= 0; "
                             f"got {asdict(policy)}")
        return policy

    def as_dict(self) -> dict:
        data = asdict(self)
        data["hard"] = list(self.hard)
        return data


@dataclass
class GateResult:
    gate: str  # hard:<counter> | relative:<counter> | pause_fraction | quiet_port_pfc
    verdict: str  # failed | passed
    subject: str  # the key or the counter kind
    numbers: dict
    counter: str = ""  # the counter kind it judged (schema.COUNTERS): what a table or chart marks

    def as_dict(self) -> dict:
        return asdict(self)

    def as_text(self) -> str:
        return f"{self.gate} on {self.subject}: {_numbers(self.numbers)}"


@dataclass
class Decision:
    passed: bool
    decided_at_poll: int  # 1-based poll after the push at which the verdict was reached
    failures: list[GateResult]
    examined: dict[str, int]
    # every relative comparison made at the deciding poll, passed or failed, with its medians and p-values
    compared: list[GateResult] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"passed": self.passed, "decided_at_poll": self.decided_at_poll, "examined": dict(self.examined),
                "failures": [item.as_dict() for item in self.failures],
                "compared": [item.as_dict() for item in self.compared]}

    def counters_named(self) -> list[str]:
        """The counter kinds the failures name, in order, each once."""
        return list(dict.fromkeys(item.counter for item in self.failures if item.counter))

    def as_text(self) -> str:
        if self.passed:
            return f"RoCE gate passed after {self.decided_at_poll} poll(s): {self.examined}"
        return "RoCE gate failed: " + "; ".join(failure.as_text() for failure in self.failures)


def _numbers(numbers: dict) -> str:
    return ", ".join(f"{name} {value:.4g}" if isinstance(value, float) else f"{name} {value}"
                     for name, value in numbers.items())


def mann_whitney_greater(x: list[float], y: list[float]) -> float:
    """One-sided p-value that ``x`` tends to be larger than ``y`` (normal approximation, ties, continuity)."""
    n1, n2 = len(x), len(y)
    if not n1 or not n2:
        return 1.0
    combined = sorted([(value, 0) for value in x] + [(value, 1) for value in y])
    ranks = [0.0] * len(combined)
    ties = 0.0
    i = 0
    while i < len(combined):
        j = i
        while j + 1 < len(combined) and combined[j + 1][0] == combined[i][0]:
            j += 1
        average = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[k] = average
        t = j - i + 1
        ties += t ** 3 - t
        i = j + 1
    r1 = sum(rank for rank, (_value, group) in zip(ranks, combined, strict=True) if group == 0)
    u1 = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))) if n > 1 else 0.0
    if variance <= 0:
        return 1.0
    z = (u1 - n1 * n2 / 2 - 0.5) / math.sqrt(variance)
    return 0.5 * math.erfc(z / math.sqrt(2))


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _series(polls: list[Poll]) -> list[dict[Key, float]]:
    return [rates(before, now).values for before, now in zip(polls, polls[1:], strict=False)]


def evaluate(policy: GatePolicy, canary: set[str], controls: set[str], pre: list[Poll], post: list[Poll],
             ecn_queues: set[int], watched: frozenset[tuple[str, str]] = frozenset()) -> Decision:
    """``pre``: polls before the push (at least 2); ``post``: polls after it (the first of them may be the last
    pre poll). Devices are switches or hosts (a canary switch's NICs are given as canary hosts). ``watched``:
    (device, port) of neighbours' ports facing the canary, judged by the quiet-port PFC rule."""
    if len(pre) < 2:
        raise ValueError("the RoCE gate needs at least 2 polls before the push (one rate)")
    before = _series(pre)
    after_all = _series([pre[-1], *post])
    failures: list[GateResult] = []
    examined: dict[str, int] = defaultdict(int)
    compared: list[GateResult] = []
    decided = min(policy.polls, len(after_all))
    for poll_number in range(1, decided + 1):
        after = after_all[:poll_number]
        failures = _judge(policy, canary, controls, before, after, ecn_queues, examined, compared, watched)
        if failures:
            return Decision(False, poll_number, failures, dict(examined), list(compared))
    return Decision(True, decided, [], dict(examined), list(compared))


def _judge(policy, canary, controls, before, after, ecn_queues, examined, compared, watched) -> list[GateResult]:
    failures: list[GateResult] = []
    examined.clear()
    compared.clear()
    # Hard gates: any increase on the canary.
    for window in after:
        for key, rate in window.items():
            if key.device not in canary:
                continue
            examined["canary counters"] += 1
            hard = key.counter in policy.hard or (key.counter == "ecn_marked" and key.index not in ecn_queues)
            if hard and rate > 0:
                gate = f"hard:{key.counter}" if key.counter in policy.hard else "hard:ecn_on_queue_without_ecn"
                failures.append(GateResult(gate, "failed", str(key), {"per_second": rate}, key.counter))
    # Ratio limits: paused time, and PFC on a port that was quiet before the push.
    quiet = {key for key in set().union(*before) if key.counter == "pfc_rx"
             and (key.device in canary or (key.device, key.port) in watched)
             and all(window.get(key, 0.0) == 0.0 for window in before)}
    watched_keys = {key for window in after for key in window
                    if key.counter == "pfc_rx" and (key.device, key.port) in watched}
    if watched_keys:
        examined["watched neighbour ports"] = len({(key.device, key.port) for key in watched_keys})
    for window in after:
        for key, rate in window.items():
            if key in quiet and key.device not in canary and rate > policy.quiet_pfc_per_s:
                failures.append(GateResult("quiet_port_pfc", "failed", str(key),
                                           {"pfc_rx_per_second": rate, "before_push": 0, "faces_the_canary": 1},
                                           key.counter))
            if key.device not in canary:
                continue
            if key.counter == "pause_us" and rate / 1e6 > policy.max_pause_fraction:
                failures.append(GateResult("pause_fraction", "failed", str(key),
                                           {"paused_fraction": rate / 1e6, "limit": policy.max_pause_fraction},
                                           key.counter))
            if key in quiet and rate > policy.quiet_pfc_per_s:
                failures.append(GateResult("quiet_port_pfc", "failed", str(key),
                                           {"pfc_rx_per_second": rate, "before_push": 0}, key.counter))
    # Relative gates per counter kind.
    for counter, direction in policy.relative.items():
        canary_now = [rate for window in after for key, rate in window.items()
                      if key.device in canary and key.counter == counter]
        if not canary_now:
            continue
        examined[f"relative:{counter}"] = len(canary_now)
        canary_before = [rate for window in before for key, rate in window.items()
                         if key.device in canary and key.counter == counter]
        control_now = [rate for window in after for key, rate in window.items()
                       if key.device in controls and key.counter == counter]
        result = _relative(policy, counter, direction, canary_now, canary_before, control_now)
        compared.append(result)
        if result.verdict == "failed":
            failures.append(result)
    return _dedupe(failures)


def _relative(policy, counter, direction, canary_now, canary_before, control_now) -> GateResult:
    sign = 1 if direction == "higher" else -1
    now, pre, peers = ([sign * value for value in values] for values in (canary_now, canary_before, control_now))
    p_pre = mann_whitney_greater(now, pre)
    p_peers = mann_whitney_greater(now, peers) if peers else 0.0  # no control peers: the own window decides
    median_now, median_pre = _median(canary_now), _median(canary_before)
    median_peers = _median(control_now) if control_now else median_pre
    reference = max(median_pre, median_peers) if direction == "higher" else min(median_pre, median_peers)
    if direction == "higher":
        effect = median_now / reference if reference > 0 else (math.inf if median_now > 0 else 1.0)
    else:
        effect = reference / median_now if median_now > 0 else (math.inf if reference > 0 else 1.0)
    difference = abs(median_now - reference)
    failed = (p_pre < policy.alpha and p_peers < policy.alpha and effect >= policy.ratio
              and difference >= policy.floor_per_s)
    return GateResult(f"relative:{counter}", "failed" if failed else "passed", counter, {
        "canary_median": median_now, "pre_median": median_pre, "peers_median": median_peers,
        "p_vs_pre": p_pre, "p_vs_peers": p_peers, "direction": direction,
        "peers_compared": bool(control_now)}, counter)


def _dedupe(failures: list[GateResult]) -> list[GateResult]:
    seen, out = set(), []
    for failure in failures:
        key = (failure.gate, failure.subject)
        if key not in seen:
            seen.add(key)
            out.append(failure)
    return out
