"""The canary's RoCE-health gate in the rollout runner (issue 34): polls, the gate, the recorded verdict.

With ``policy.roce_gate.enabled`` a canary push (changes.pipelines.canary) gets two more steps around its first
wave, both through the devices' drivers (``DeviceDriver.counters``: SONiC COUNTERS_DB, EOS eAPI, the twin's
synthetic counter plane):

1. **pre window** (phase pre_check, wave 1, tag ``roce_pre``), just before the canary is pushed: the canary
   switches, their control peers (the change set's other switches of the same role) and their neighbours (the
   switches at the far end of the canary's fabric links, whose ports facing the canary are watched for PFC) are
   polled every
   ``post_s / polls`` seconds for ``pre_s`` seconds. The polls are stored in the step's detail, so a resumed runner
   judges against the same window.
2. **gate** (phase verify, wave 1, tag ``roce_gate``), after the canary's post-checks: up to ``polls`` polls at the
   same interval; after each, changes.rocegate.gate.evaluate judges the canary (its NICs included) against its
   own pre window and against the peers. The step records what was compared, the p-values, the rule that fired,
   and a per-device table of rates (pre, post, peers) that the rollout page shows. A failed gate fails the step and
   raises CheckFailed: the canary pipeline rolls back exactly as after any failed check.

Counters that cannot be read stop the rollout: the gate fails closed, it never passes what it could not see.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import replace

from compiler.errors import DriverError

from ..choices import StepPhaseChoices, StepResultChoices
from ..errors import CheckFailed
from ..rocegate.gate import evaluate
from ..rocegate.schema import Poll, rates
from ..rocegate.settings import CHARTED, DEFAULT_ROCE_QUEUE, GateSettings, queues_from_structured

PRE_TAG, GATE_TAG = "roce_pre", "roce_gate"
Phase, Result = StepPhaseChoices, StepResultChoices


class RoceGate:
    def __init__(self, context):
        self.ctx = context
        self.rollout = context.rollout
        self.settings = GateSettings.from_json(self.rollout.policy.get("roce_gate"))

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    # --------------------------------------------------------------------------------------------- whom and what

    def peers(self, canary: list[str]) -> list[str]:
        """Control peers: the change set's other switches of a canary's role (unchanged while the canary is judged:
        only the canary wave has been pushed)."""
        roles = {self.ctx.change_set_device(device).role for device in canary}
        return sorted(row.hostname for row in self.rollout.change_set.devices.all()
                      if row.role in roles and row.hostname not in canary)

    def watched(self, canary: list[str]) -> list[tuple[str, str]]:
        """(neighbour, port) of every port facing a canary from the far end of its fabric links (the structured
        config's ``peer_device``/``peer_interface``), when the neighbour is in the change set and is no canary: a
        canary that pauses its spines shows there first ("RX PFC on a spine port that was quiet")."""
        devices = {row.hostname for row in self.rollout.change_set.devices.all()}
        return sorted({(interface["peer_device"], interface["peer_interface"])
                       for device in canary
                       for interface in (self.ctx.change_set_device(device).structured or {}).get("interfaces") or ()
                       if interface.get("kind") == "fabric" and interface.get("peer_device") in devices
                       and interface["peer_device"] not in canary and interface.get("peer_interface")})

    def queues(self, canary: list[str]) -> tuple[set[int], set[int]]:
        """(lossless queues, queues with ECN): the policy's, else the canary's structured config's, else queue 3."""
        lossless = set(self.settings.lossless_queues or ())
        ecn = set(self.settings.ecn_queues or ())
        for device in canary:
            found = queues_from_structured(self.ctx.change_set_device(device).structured)
            if found is not None:
                lossless |= found[0] if self.settings.lossless_queues is None else set()
                ecn |= found[1] if self.settings.ecn_queues is None else set()
        return (lossless or {DEFAULT_ROCE_QUEUE}), (ecn or {DEFAULT_ROCE_QUEUE})

    def read(self, devices: list[str], lossless: set[int]) -> tuple[Poll, dict[str, list[str]]]:
        """One poll of every device, merged; and per switch the devices its poll carried (itself, its NICs)."""
        merged, groups = Poll(0.0), {}
        for device in devices:
            try:
                poll = self.ctx.driver(device).counters(lossless_queues=sorted(lossless))
            except DriverError as exc:
                raise CheckFailed(f"RoCE gate: counters of {device} could not be read: {exc}") from exc
            groups[device] = sorted({key.device for key in poll.values} | {device})
            merged = merged.merge(poll) if merged.values else poll
        return merged, groups

    def synthetic_counters(self, devices: list[str]) -> list[str]:
        """The counter kinds some of ``devices`` model instead of measuring (a twin: PFC, ECN, drops, NICs), so the
        verdict says which of its numbers are real."""
        return sorted({kind for device in devices for kind, source in self.ctx.driver(device).counter_sources().items()
                       if source == "synthetic"})

    # --------------------------------------------------------------------------------------------- the two steps

    def pre_window(self, canary: list[str]) -> None:
        if self._step(Phase.PRE_CHECK, PRE_TAG) is not None:
            return  # taken before a resume: the gate judges against that window
        settings, peers, watched = self.settings, self.peers(canary), self.watched(canary)
        polled = _polled(canary, peers, watched)
        lossless, _ecn = self.queues(canary)
        with self.ctx.step(Phase.PRE_CHECK, wave=1) as step:
            polls, groups = [], {}
            for number in range(settings.pre_polls):
                if number:
                    self.ctx.sleep(settings.interval_s)
                poll, groups = self.read(polled, lossless)
                polls.append(poll)
            step.detail = {"tag": PRE_TAG, "canary": canary, "peers": peers, "groups": groups,
                           "watched": [list(item) for item in watched],
                           "interval_s": settings.interval_s, "polls": [poll.as_json() for poll in polls]}
            step.output = (f"RoCE gate pre window: {len(polls)} polls every {settings.interval_s:g}s of the canary "
                           f"{', '.join(canary)} and its control peers {', '.join(peers) or '(none)'}"
                           + (f"; {len(watched)} neighbour port(s) facing it watched" if watched else ""))

    def judge(self, canary: list[str]) -> None:
        if self._step(Phase.VERIFY, GATE_TAG) is not None:
            return  # passed before a resume
        pre_step = self._step(Phase.PRE_CHECK, PRE_TAG)
        if pre_step is None:
            raise CheckFailed("RoCE gate: no pre-change window was recorded for the canary; cannot judge it")
        settings, detail = self.settings, pre_step.detail
        peers, pre = detail["peers"], [Poll.from_json(item) for item in detail["polls"]]
        watched = frozenset((device, port) for device, port in detail.get("watched", []))
        lossless, ecn = self.queues(canary)
        with self.ctx.step(Phase.VERIFY, wave=1) as step:
            post, groups = [], dict(detail["groups"])
            for _ in range(settings.polls):
                self.ctx.sleep(settings.interval_s)
                poll, groups = self.read(_polled(canary, peers, watched), lossless)
                post.append(poll)
                canary_set = {name for device in canary for name in groups.get(device, [device])}
                peer_set = {name for device in peers for name in groups.get(device, [device])}
                try:
                    decision = evaluate(replace(settings.gate, polls=len(post)), canary_set, peer_set, pre, post,
                                        ecn_queues=ecn, watched=watched)
                except ValueError as exc:  # e.g. poll times that do not increase (a clock reset across a resume)
                    raise CheckFailed(f"RoCE gate: the counters cannot be judged: {exc}") from exc
                if not decision.passed:
                    break
            step.detail = {"tag": GATE_TAG, "canary": canary, "peers": peers, "ecn_queues": sorted(ecn),
                           "watched": sorted([device, port] for device, port in watched),
                           "synthetic": self.synthetic_counters(_polled(canary, peers, watched)),
                           "lossless_queues": sorted(lossless), "interval_s": settings.interval_s,
                           "policy": settings.gate.as_dict(), "decision": decision.as_dict(),
                           "table": rate_table(canary, peers, groups, pre, post, decision),
                           "series": rate_series(canary, peers, groups, pre, post, decision)}
            step.output = decision.as_text()
            if not decision.passed:
                step.result = Result.FAILED
        if not decision.passed:
            raise CheckFailed(decision.as_text(), decision.as_dict())

    def _step(self, phase: str, tag: str):
        return self.rollout.steps.filter(phase=phase, wave=1, device="", result=Result.OK,
                                         detail__tag=tag).order_by("-id").first()


def _polled(canary: list[str], peers: list[str], watched) -> list[str]:
    """Who a poll reads: the canary, its control peers, then the neighbours whose ports are watched."""
    return list(dict.fromkeys([*canary, *peers, *sorted({device for device, _port in watched})]))


def _window_totals(polls: list[Poll], devices: set[str]) -> list[dict[str, float]]:
    """Per window between two polls: each counter kind's rate summed over ``devices`` (every port and index)."""
    windows = []
    for before, now in zip(polls, polls[1:], strict=False):
        totals: dict[str, float] = defaultdict(float)
        for key, rate in rates(before, now).values.items():
            if key.device in devices:
                totals[key.counter] += rate
        windows.append(totals)
    return windows


def rate_table(canary: list[str], peers: list[str], groups: dict[str, list[str]], pre: list[Poll],
               post: list[Poll], decision) -> list[dict]:
    """Per canary switch (its NICs included) and counter kind: the median rate per second before the push, after
    it, and of one control peer after it; ``failed`` marks the kinds a failed gate named."""
    failed = set(decision.counters_named())
    after = [pre[-1], *post]
    peer_windows = [window for peer in peers for window in _window_totals(after, set(groups.get(peer, [peer])))]
    rows = []
    for device in canary:
        members = set(groups.get(device, [device]))
        before, now = _window_totals(pre, members), _window_totals(after, members)
        for counter in sorted({name for window in before + now for name in window}):
            rows.append({"device": device, "counter": counter,
                         "pre_per_s": statistics.median(window.get(counter, 0.0) for window in before),
                         "post_per_s": statistics.median(window.get(counter, 0.0) for window in now),
                         "peers_per_s": (statistics.median(window.get(counter, 0.0) for window in peer_windows)
                                         if peer_windows else None),
                         "failed": counter in failed})
    return rows


CHARTS_PER_DEVICE = 4


def rate_series(canary: list[str], peers: list[str], groups: dict[str, list[str]], pre: list[Poll],
                post: list[Poll], decision) -> dict:
    """What the rollout page charts: per canary switch and counter kind, the canary's rate in every window (before
    and after the push) against the median of its control peers in the same window. The counters a failed gate
    named come first, then :data:`CHARTED`; ``push_after`` is the number of windows before the push."""
    polls = [*pre, *post]
    peer_windows = [_window_totals(polls, set(groups.get(peer, [peer]))) for peer in peers]
    out: dict = {"push_after": len(pre) - 1, "devices": {}}
    for device in canary:
        windows = _window_totals(polls, set(groups.get(device, [device])))
        present = {name for window in windows for name in window}
        wanted = [name for name in dict.fromkeys([*decision.counters_named(), *CHARTED])
                  if name in present][:CHARTS_PER_DEVICE]
        out["devices"][device] = {
            counter: {"canary": [window.get(counter, 0.0) for window in windows],
                      "peers": [statistics.median(peer[index].get(counter, 0.0) for peer in peer_windows)
                                for index in range(len(windows))] if peer_windows else []}
            for counter in wanted}
    return out
