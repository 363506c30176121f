"""One RoCE-health schema: counters per device, port and priority (or queue), per poll, and their rates.

Every adapter (:mod:`changes.rocegate.adapters`) turns a vendor's answer into :class:`Poll` rows of these
counters, so the gate (:mod:`changes.rocegate.gate`) never sees a vendor name. Counter kinds:

switch (per port; per priority for PFC, per queue for ECN/drops):
  ``pfc_rx``, ``pfc_tx`` (PFC frames, IEEE 802.1Qbb), ``pause_us`` (time paused on receive),
  ``ecn_marked`` (packets marked CE by WRED/ECN), ``lossless_drops`` (drops on a queue whose priority is
  lossless: must stay 0), ``wred_drops``, ``no_buffer_discards`` (ingress discards for want of buffer),
  ``wd_storms`` (PFC watchdog storms detected), ``wd_restores``;
NIC (per port; the host side of DCQCN):
  ``cnp_sent`` (notification point), ``cnp_handled`` (reaction point), ``ecn_marked_roce``,
  ``out_of_sequence``, ``packet_seq_err``, ``local_ack_timeout``, ``pause_storms``, ``prio_discards``,
  ``out_of_buffer``;
traffic (per port, index -1; the load the counters above are read against, never gated by themselves):
  ``tx_packets``, ``tx_bytes``, ``rx_packets``, ``rx_bytes`` (the twin's veth counters drive its synthetic plane).

Rates: (value now - value before) / seconds, with a counter that went backwards read as a **wrap** when the
previous value was in the top quarter of the counter's width (64-bit SAI and EOS counters, 32-bit mlx5 hardware
counters), else as a **reset** (the counter was cleared: the rate is the new value over the interval), never as a
negative rate. Pure Python; no Django.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SWITCH_COUNTERS = ("pfc_rx", "pfc_tx", "pause_us", "ecn_marked", "lossless_drops", "wred_drops",
                   "no_buffer_discards", "wd_storms", "wd_restores")
NIC_COUNTERS = ("cnp_sent", "cnp_handled", "ecn_marked_roce", "out_of_sequence", "packet_seq_err",
                "local_ack_timeout", "pause_storms", "prio_discards", "out_of_buffer")
TRAFFIC_COUNTERS = ("tx_packets", "tx_bytes", "rx_packets", "rx_bytes")
COUNTERS = SWITCH_COUNTERS + NIC_COUNTERS + TRAFFIC_COUNTERS
_KNOWN = frozenset(COUNTERS)
# Counter widths: SAI port/queue stats and EOS counters are 64-bit; mlx5 InfiniBand hw_counters are 32-bit
# (Linux drivers/infiniband/hw/mlx5/counters.c reads them as __be32 from the Q counter set).
WIDTH_BITS = {name: 64 for name in COUNTERS} | {name: 32 for name in (
    "cnp_sent", "cnp_handled", "ecn_marked_roce", "out_of_sequence", "packet_seq_err", "local_ack_timeout",
    "out_of_buffer")}


@dataclass(frozen=True, slots=True, order=True)
class Key:
    """Where a counter lives: ``index`` is the 802.1p priority for PFC counters, the egress queue for queue
    counters, -1 for a port-level counter."""

    device: str
    port: str
    index: int
    counter: str

    def __str__(self) -> str:
        where = f"{self.device}:{self.port}"
        return f"{where} {self.counter}" + (f"[{self.index}]" if self.index >= 0 else "")


@dataclass
class Poll:
    """Cumulative counter values read at ``time`` (seconds, any monotonic clock)."""

    time: float
    values: dict[Key, int] = field(default_factory=dict)

    def add(self, device: str, port: str, index: int, counter: str, value) -> None:
        if counter not in _KNOWN:
            raise ValueError(f"counter {counter!r}: not in the RoCE-health schema ({', '.join(COUNTERS)})")
        self.values[Key(device, port, index, counter)] = int(value)

    def merge(self, other: Poll) -> Poll:
        """Two sources polled together (a switch and its NICs) as one poll."""
        return Poll(max(self.time, other.time), {**self.values, **other.values})

    def only(self, devices: set[str]) -> Poll:
        return Poll(self.time, {key: value for key, value in self.values.items() if key.device in devices})

    def as_json(self) -> dict:
        """The poll as a JSON object (stored in a rollout step's detail, so a resumed runner has its pre window)."""
        return {"time": self.time, "rows": [[key.device, key.port, key.index, key.counter, value]
                                            for key, value in sorted(self.values.items())]}

    @classmethod
    def from_json(cls, data: dict) -> Poll:
        poll = cls(float(data["time"]))
        for device, port, index, counter, value in data["rows"]:
            poll.add(device, port, int(index), counter, value)
        return poll


def delta(before: int, now: int, width_bits: int = 64) -> tuple[int, str]:
    """(increase, how): ``how`` is "" for a plain increase, "wrap" or "reset"."""
    if now >= before:
        return now - before, ""
    top = 1 << width_bits
    if top - (top >> 2) <= before < top:  # within the top quarter: the counter wrapped
        # (a value at or above 2^width is a wider counter than assumed, e.g. a u64 bnxt_re counter of a kind mlx5
        # keeps in 32 bits: it went backwards because it was cleared)
        return now + top - before, "wrap"
    return now, "reset"


@dataclass
class Rates:
    """Per-second rates between two polls, and which keys wrapped or reset on the way."""

    seconds: float
    values: dict[Key, float]
    events: dict[Key, str]


def rates(before: Poll, now: Poll) -> Rates:
    seconds = now.time - before.time
    if seconds <= 0:
        raise ValueError(f"poll times must increase: {before.time} then {now.time}")
    values: dict[Key, float] = {}
    events: dict[Key, str] = {}
    for key, value in now.values.items():
        if key not in before.values:
            continue  # a counter that appeared (a port came up): no rate until the next poll
        increase, how = delta(before.values[key], value, WIDTH_BITS.get(key.counter, 64))
        values[key] = increase / seconds
        if how:
            events[key] = how
    return Rates(seconds, values, events)
