"""A synthetic counter plane: what a canary leaf, its control peers and their NICs would count, poll by poll.

No hardware here, and the twin's veth has no PFC or ECN, so the gate is tested on counters generated from a small
queue model driven by per-link load: a uniform load (log-normal noise around ``default_load``) for the offline
figures, or the twin's **measured** per-link traffic (:class:`TrafficMeter`: the kernel's byte and packet counters
of each switch port, read by labs.measure.link_counters). Measured, a port's egress queue carries the packets the
veth really sent and its load is the bits it sent per second over :data:`TWIN_LINE_RATE_BPS`; the poll then also
carries those traffic counters (``tx_packets`` …, schema.TRAFFIC_COUNTERS), so every rate the gate computes
follows what the twin carried. PFC, ECN, drops and NIC counters stay **synthetic** (:data:`SYNTHETIC`): veth has
no DCB, no queues and no RoCE NIC. In the model:

* the lossless queue (priority/queue 3) marks ECN on a fraction of packets that grows with load above the marking
  threshold (DCQCN's RED-like marking, Zhu et al., SIGCOMM 2015) and pauses (PFC) only above a higher load: a
  healthy queue marks long before it pauses;
* NICs send CNPs in proportion to the marks they receive (notification point) and handle the CNPs of their peers
  (reaction point); sequence errors and out-of-sequence packets are rare background noise;
* loads vary per port and poll (log-normal, sigma 0.15) and counts are Poisson: the noise a real fabric shows.

Each :data:`FAULTS` entry changes the canary after the push the way that misconfiguration would show in counters.
:func:`to_sonic_db`, :func:`to_eos` and :func:`to_mlx5` write a poll as those vendors answer, and
:func:`through_source` reads it back through the real adapters, so the gate can be measured on what each
vendor's adapter makes of its answers (:data:`VENDOR_SOURCES`). Pure (numpy); no Django.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from . import adapters
from .schema import COUNTERS, TRAFFIC_COUNTERS, Poll, delta

LOSSLESS, LOSSY, CNP_QUEUE = 3, 1, 6
INTERVAL_S = 10.0
PACKETS_PER_S = 200_000.0  # per port at load 1.0 in this model (scaled down; only ratios matter to the gate)
UPLINKS = ("Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4")
SERVER_PORTS = ("Ethernet5", "Ethernet6", "Ethernet7", "Ethernet8")
# The twin's scale: a twin port is a veth in a namespace on a shared CPU, and the twin's test flows are a few Mb/s
# (labs.measure.Flow: 500 pps pings), not line rate. 10 Mb/s of twin traffic stands for a fully loaded port, so such
# a flow loads a port to the ~0.5 where the model's lossless queue marks, and loads follow the twin's traffic in
# proportion. A model scale, not a property of any hardware.
TWIN_LINE_RATE_BPS = 10e6
SYNTHETIC = tuple(name for name in COUNTERS if name not in TRAFFIC_COUNTERS)  # modelled, never measured on a twin


def ecn_mark_fraction(load: float) -> float:
    """The fraction of a healthy lossless queue's packets marked CE at a load: RED-like, from 0 at load 0.3 to
    0.2 % at 0.9 (DCQCN's marking between Kmin and Kmax, Zhu et al., SIGCOMM 2015; the numbers are the model's)."""
    return min(max((load - 0.3) / 0.6, 0.0), 1.0) * 0.002


@dataclass(frozen=True)
class PortTraffic:
    """What a port carried, per second, between two reads of its counters (measured)."""

    tx_packets: float = 0.0
    tx_bytes: float = 0.0
    rx_packets: float = 0.0
    rx_bytes: float = 0.0


@dataclass(frozen=True)
class Layout:
    """A switch's ports in the model: its uplinks (fabric links) and its server ports, each with the host and NIC
    behind it (host name, NIC port)."""

    uplinks: tuple[str, ...] = UPLINKS
    servers: tuple[tuple[str, str, str], ...] = ()  # (switch port, host, NIC port)

    @classmethod
    def default(cls, device: str) -> Layout:
        return cls(UPLINKS, tuple((port, f"{device}-gpu{number}", "eth0")
                                  for number, port in enumerate(SERVER_PORTS, start=1)))


class TrafficMeter:
    """Per-second traffic of each port between successive reads of cumulative counters (64-bit kernel counters: a
    counter that went backwards was reset, schema.delta). The first read of a device gives no rates (zero load)."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[float, dict[str, Sequence[int]]]] = {}

    def rates(self, device: str, clock: float, counters: Mapping[str, Sequence[int]]) -> dict[str, PortTraffic]:
        """``counters``: port -> (tx_packets, tx_bytes, rx_packets, rx_bytes), cumulative, read at ``clock``
        (seconds, monotonic)."""
        previous = self.last.get(device)
        self.last[device] = (clock, {port: tuple(values) for port, values in counters.items()})
        if previous is None or clock <= previous[0]:
            return {}
        seconds = clock - previous[0]
        out = {}
        for port, now in counters.items():
            before = previous[1].get(port)
            if before is None:
                continue
            out[port] = PortTraffic(*(delta(int(old), int(new))[0] / seconds for old, new in zip(before, now,
                                                                                                 strict=True)))
        return out


@dataclass
class Effect:
    """How a fault changes the canary's counters (multipliers and added rates per second)."""

    ecn: float = 1.0  # marks on the lossless queue
    pause: float = 1.0  # PFC pauses on the lossless priority
    pause_add: float = 0.0  # added paused fraction of time
    uplink_pause_add: float = 0.0  # added paused fraction on one uplink (incast on one spine)
    lossless_drops: float = 0.0
    lossy_drops: float = 1.0
    seq_errors: float = 1.0
    ack_timeouts: float = 0.0
    cnp_sent: float = 1.0
    cnp_handled: float = 1.0
    wd_storms: float = 0.0
    pause_storms: float = 0.0
    ecn_on_lossy: float = 0.0
    no_buffer: float = 1.0
    wrong_priority: bool = False  # PFC frames on priority 4 instead of 3


FAULTS: dict[str, Effect] = {
    # RoCE's DSCP mapped to a lossy queue: no marks where the intent expects them, drops and retransmissions.
    "dscp_to_lossy_queue": Effect(ecn=0.02, lossy_drops=40.0, seq_errors=60.0, cnp_sent=0.05),
    # ECN thresholds ten times too high: the queue pauses before it marks.
    "ecn_threshold_10x": Effect(ecn=0.05, pause=30.0, pause_add=0.01, cnp_sent=0.1),
    # PFC on the wrong priority: the lossless queue overflows without pausing, priority 4 pauses instead.
    "pfc_wrong_priority": Effect(lossless_drops=50.0, wrong_priority=True, seq_errors=20.0),
    # Watchdog off with a stuck receiver: the port stays paused, no storm is ever detected.
    "watchdog_off_stuck_receiver": Effect(pause=200.0, pause_add=0.5),
    # CNP queue not strict: CNPs queue behind data and arrive late; senders slow down too late.
    "cnp_queue_not_strict": Effect(cnp_handled=0.1, ecn=4.0, pause=15.0, pause_add=0.005),
    # An MTU drop on the path: large RoCE frames vanish, requesters time out and retransmit.
    "mtu_drop": Effect(seq_errors=80.0, ack_timeouts=2.0),
    # QP hashing removed: one spine uplink takes the incast.
    "qp_hashing_removed": Effect(uplink_pause_add=0.2, ecn=3.0),
    # The NIC notification point off: marks arrive, no CNP leaves.
    "nic_np_off": Effect(cnp_sent=0.0, pause=10.0, pause_add=0.004),
    # A PFC watchdog storm after the push (a real deadlock or storm).
    "watchdog_storm": Effect(wd_storms=0.2),
    # ECN marking enabled on a lossy queue the intent gives no ECN.
    "ecn_on_lossy_queue": Effect(ecn_on_lossy=500.0),
    # Headroom cut too small: ingress discards and lossless drops on a busy queue.
    "headroom_too_small": Effect(no_buffer=300.0, lossless_drops=5.0),
    # A NIC pause storm (the NIC's own watchdog fires).
    "nic_pause_storm": Effect(pause_storms=0.3, pause=50.0),
}


@dataclass
class Plane:
    """Cumulative counters of every device, advanced one poll at a time."""

    devices: list[str]
    seed: int = 0
    load: dict[tuple[str, str], float] = field(default_factory=dict)  # (device, port) -> mean load 0..1
    default_load: float = 0.55
    time: float = 0.0
    # Driven by measured traffic instead of a load: (device, port) -> what the port carried since the last poll;
    # a port without a measurement carried nothing. Loads are its bits per second over ``line_rate_bps``.
    measured: bool = False
    traffic: dict[tuple[str, str], PortTraffic] = field(default_factory=dict)
    line_rate_bps: float = TWIN_LINE_RATE_BPS
    layouts: dict[str, Layout] = field(default_factory=dict)  # default: Layout.default(device)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)
        self.totals: dict[tuple, float] = {}
        self.effects: dict[str, Effect] = {}

    def layout(self, device: str) -> Layout:
        return self.layouts.get(device) or Layout.default(device)

    def hosts(self, device: str) -> list[tuple[str, str]]:
        return [(host, nic) for _port, host, nic in self.layout(device).servers]

    def _add(self, poll: Poll, device: str, port: str, index: int, counter: str, rate: float) -> None:
        key = (device, port, index, counter)
        count = float(self.rng.poisson(max(rate, 0.0) * INTERVAL_S))
        self.totals[key] = self.totals.get(key, 0.0) + count
        poll.add(device, port, index, counter, int(self.totals[key]))

    def _add_measured(self, poll: Poll, device: str, port: str, traffic: PortTraffic) -> None:
        """The traffic a port carried, as counts over the model's interval: the rate the gate computes from them is
        the measured rate (no noise added: the measurement is the traffic)."""
        for counter in TRAFFIC_COUNTERS:
            key = (device, port, -1, counter)
            self.totals[key] = self.totals.get(key, 0.0) + getattr(traffic, counter) * INTERVAL_S
            poll.add(device, port, -1, counter, round(self.totals[key]))

    def _port_load(self, device: str, port: str, poll: Poll) -> tuple[float, float]:
        """(load 0..1, packets per second) of a port's egress queue in this poll."""
        if not self.measured:
            load = self.load.get((device, port), self.default_load) * float(self.rng.lognormal(0.0, 0.15))
            return load, load * PACKETS_PER_S
        traffic = self.traffic.get((device, port), PortTraffic())
        self._add_measured(poll, device, port, traffic)
        return min(traffic.tx_bytes * 8 / self.line_rate_bps, 1.0), traffic.tx_packets

    def poll(self) -> Poll:
        self.time += INTERVAL_S
        poll = Poll(self.time)
        for device in self.devices:
            effect = self.effects.get(device, Effect())
            layout = self.layout(device)
            nics = {port: (host, nic) for port, host, nic in layout.servers}
            for number, port in enumerate(layout.uplinks + tuple(nics)):
                load, packets = self._port_load(device, port, poll)
                mark_fraction = ecn_mark_fraction(load)
                pause_fraction = max(load - 0.85, 0.0) * 0.02 * effect.pause + effect.pause_add
                if number == 0:
                    pause_fraction += effect.uplink_pause_add
                pause_fraction = min(pause_fraction, 1.0)
                pfc_priority = 4 if effect.wrong_priority else LOSSLESS
                self._add(poll, device, port, pfc_priority, "pfc_rx", pause_fraction * 2_000 + 0.05)
                self._add(poll, device, port, pfc_priority, "pfc_tx", pause_fraction * 2_000 + 0.05)
                self._add(poll, device, port, pfc_priority, "pause_us", pause_fraction * 1e6)
                self._add(poll, device, port, LOSSLESS, "ecn_marked", packets * mark_fraction * effect.ecn)
                self._add(poll, device, port, LOSSLESS, "lossless_drops", effect.lossless_drops)
                self._add(poll, device, port, LOSSY, "wred_drops", load * 20 * effect.lossy_drops)
                self._add(poll, device, port, LOSSY, "ecn_marked", effect.ecn_on_lossy)
                self._add(poll, device, port, LOSSLESS, "wd_storms", effect.wd_storms)
                self._add(poll, device, port, LOSSLESS, "wd_restores", 0.0)  # a storm that never ends
                self._add(poll, device, port, -1, "no_buffer_discards", 0.05 * effect.no_buffer)
                if port in nics:
                    host, nic = nics[port]
                    marks = packets * mark_fraction * effect.ecn
                    self._add(poll, host, nic, -1, "ecn_marked_roce", marks)
                    self._add(poll, host, nic, -1, "cnp_sent", marks / 20 * effect.cnp_sent)
                    self._add(poll, host, nic, -1, "cnp_handled", marks / 20 * effect.cnp_handled)
                    self._add(poll, host, nic, -1, "out_of_sequence", 0.05 * effect.seq_errors)
                    self._add(poll, host, nic, -1, "packet_seq_err", 0.02 * effect.seq_errors)
                    self._add(poll, host, nic, -1, "local_ack_timeout", effect.ack_timeouts)
                    self._add(poll, host, nic, -1, "pause_storms", effect.pause_storms)
        return poll


class SyntheticSource:
    """The synthetic plane behind a driver's ``counters()`` (the twin driver; the runner tests' in-memory devices).

    One :class:`Plane` per switch (its NICs included), seeded from the switch's name, advanced one modelled interval
    (:data:`INTERVAL_S`) per read: a round of reads over a canary and its peers is one instant of the model, whatever
    the wall clock did between the reads. ``fault`` is the fault model the caller says the switch shows now (none:
    healthy); the plane applies it from this read on, and a healthy read removes it (a rollback)."""

    def __init__(self, seed: int = 0, load: dict | None = None, line_rate_bps: float = TWIN_LINE_RATE_BPS):
        self.seed = seed
        self.load = dict(load or {})
        self.line_rate_bps = line_rate_bps
        self.planes: dict[str, Plane] = {}
        self.meter = TrafficMeter()

    def read(self, device: str, fault: str | None = None, *, layout: Layout | None = None,
             link_counters: Mapping[str, Sequence[int]] | None = None, clock: float | None = None) -> Poll:
        """One poll of ``device``. With ``link_counters`` (port -> cumulative tx_packets, tx_bytes, rx_packets,
        rx_bytes, read at ``clock``) the plane is driven by the traffic measured since the previous read, on the
        ports of ``layout``; without, by the uniform load."""
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"fault {fault!r}: not a fault model of the synthetic plane ({', '.join(sorted(FAULTS))})")
        plane = self.planes.get(device)
        if plane is None:
            plane = self.planes[device] = Plane([device], seed=self.seed + zlib.crc32(device.encode()),
                                                load=self.load)
        plane.effects = {device: FAULTS[fault]} if fault else {}
        if layout is not None:
            plane.layouts[device] = layout
        if link_counters is not None:
            if clock is None:
                raise ValueError("link_counters need the clock they were read at")
            plane.measured, plane.line_rate_bps = True, self.line_rate_bps
            plane.traffic = {(device, port): rates for port, rates in
                             self.meter.rates(device, clock, link_counters).items()}
        return plane.poll()


_SOURCES: dict[str, SyntheticSource] = {}


def source_for(name: str) -> SyntheticSource:
    """The one synthetic plane of a named fabric (a twin's prefix) in this process: every driver of that fabric
    reads the same model."""
    return _SOURCES.setdefault(name, SyntheticSource(seed=zlib.crc32(name.encode())))


def run_push(fault: str | None, *, seed: int, controls: int = 3, pre_polls: int = 6, post_polls: int = 2,
             load: dict | None = None):
    """(plane, pre polls, post polls): the canary ``leaf1`` pushed between them, with ``fault`` or healthy."""
    devices = [f"leaf{number}" for number in range(1, controls + 2)]
    plane = Plane(devices, seed=seed, load=load or {})
    pre = [plane.poll() for _ in range(pre_polls)]
    if fault is not None:
        plane.effects["leaf1"] = FAULTS[fault]
    post = [plane.poll() for _ in range(post_polls)]
    return plane, pre, post


# ------------------------------------------------------------------------------------------ vendor answers


def to_sonic_db(poll: Poll, device: str) -> dict:
    """A poll as SONiC's COUNTERS_DB holds it (name maps, port OIDs, unicast queue OIDs)."""
    db: dict[str, dict] = {"COUNTERS_PORT_NAME_MAP": {}, "COUNTERS_QUEUE_NAME_MAP": {}, "COUNTERS_QUEUE_TYPE_MAP": {}}
    names = {"pfc_rx": "SAI_PORT_STAT_PFC_{}_RX_PKTS", "pfc_tx": "SAI_PORT_STAT_PFC_{}_TX_PKTS",
             "pause_us": "SAI_PORT_STAT_PFC_{}_RX_PAUSE_DURATION_US"}
    queue_names = {"ecn_marked": "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", "wred_drops":
                   "SAI_QUEUE_STAT_WRED_DROPPED_PACKETS", "wd_storms": "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED",
                   "wd_restores": "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED",
                   "lossless_drops": "SAI_QUEUE_STAT_DROPPED_PACKETS"}
    for key, value in poll.values.items():
        if key.device != device:
            continue
        port_oid = db["COUNTERS_PORT_NAME_MAP"].setdefault(key.port, f"oid:0x1{len(db['COUNTERS_PORT_NAME_MAP']):015x}")
        if key.counter in names:
            db.setdefault(f"COUNTERS:{port_oid}", {})[names[key.counter].format(key.index)] = str(value)
        elif key.counter == "no_buffer_discards":
            db.setdefault(f"COUNTERS:{port_oid}", {})["SAI_PORT_STAT_IF_IN_DISCARDS"] = str(value)
        elif key.counter in queue_names:
            name = f"{key.port}:{key.index}"
            queue_oid = db["COUNTERS_QUEUE_NAME_MAP"].setdefault(name, f"oid:0x15{len(db['COUNTERS_QUEUE_NAME_MAP']):014x}")
            db["COUNTERS_QUEUE_TYPE_MAP"][queue_oid] = "SAI_QUEUE_TYPE_UNICAST"
            db.setdefault(f"COUNTERS:{queue_oid}", {})[queue_names[key.counter]] = str(value)
    return db


def to_eos(poll: Poll, device: str) -> dict:
    """A poll as Arista eAPI answers the four counter commands (the shapes changes.rocegate.adapters reads)."""
    pfc: dict = {"interfaces": {}}
    watchdog: dict = {"interfaces": {}}
    ecn: dict = {"intfQueueCounters": {}}
    drops: dict = {"interfaces": {}}
    for key, value in poll.values.items():
        if key.device != device:
            continue
        if key.counter in ("pfc_rx", "pfc_tx", "pause_us"):
            entry = pfc["interfaces"].setdefault(key.port, {"priorities": {}})["priorities"].setdefault(
                str(key.index), {})
            entry[{"pfc_rx": "rxFrames", "pfc_tx": "txFrames", "pause_us": "rxPauseTimeUs"}[key.counter]] = value
        elif key.counter in ("wd_storms", "wd_restores"):
            queue = watchdog["interfaces"].setdefault(key.port, {"txQueues": {}})["txQueues"].setdefault(
                str(key.index), {})
            queue["stuckCount" if key.counter == "wd_storms" else "recoveryCount"] = value
        elif key.counter == "ecn_marked":
            ecn["intfQueueCounters"].setdefault(key.port, {"queueCounters": {}})["queueCounters"][str(key.index)] = \
                str(value)  # EOS answers the count as a string ("-" where the queue has no ECN)
        elif key.counter in ("lossless_drops", "wred_drops"):
            classes = drops["interfaces"].setdefault(key.port, {"ucastQueues": {"trafficClasses": {}}})[
                "ucastQueues"]["trafficClasses"].setdefault(f"TC{key.index}", {})
            classes["droppedPackets" if key.counter == "lossless_drops" else "wredDroppedPackets"] = value
        elif key.counter == "no_buffer_discards":
            drops["interfaces"].setdefault(key.port, {"ucastQueues": {"trafficClasses": {}}})["ingressDiscards"] = value
    return {"show priority-flow-control counters detail": pfc,
            "show priority-flow-control counters watchdog": watchdog,
            "show qos interfaces ecn counters queue": ecn, "show interfaces counters queue drops": drops}


def to_sonic_cli(poll: Poll, device: str) -> tuple[str, str, str]:
    """A poll as SONiC's CLI prints it: (``pfcstat``, ``pfcstat --history``, ``pfcwd show stats -e``) text, in
    sonic-utilities' column headers (scripts/pfcstat, pfcwd/main.py; numbers with thousands commas). Only the
    PFC, pause-time and watchdog counters: that text carries no ECN, drop or discard counts."""
    frames: dict[str, dict[str, dict[int, int]]] = {"pfc_rx": {}, "pfc_tx": {}}
    pause: dict[str, dict[int, int]] = {}
    watchdog: dict[tuple[str, int], dict[str, int]] = {}
    for key, value in poll.values.items():
        if key.device != device:
            continue
        if key.counter in frames:
            frames[key.counter].setdefault(key.port, {})[key.index] = value
        elif key.counter == "pause_us":
            pause.setdefault(key.port, {})[key.index] = value
        elif key.counter in ("wd_storms", "wd_restores"):
            watchdog.setdefault((key.port, key.index), {})[key.counter] = value
    tables = []
    for counter, title in (("pfc_rx", "Port Rx"), ("pfc_tx", "Port Tx")):
        rows = [f"{title}  " + "  ".join(f"PFC{priority}" for priority in range(8)), "-" * 60]
        rows += [f"{port}  " + "  ".join(f"{counts[p]:,}" if p in counts else "N/A" for p in range(8))
                 for port, counts in frames[counter].items()]
        tables.append("\n".join(rows) + "\n")
    history = ["Port  Priority  RX Pause Transitions  Total RX Pause Time US  Recent RX Pause Time US  "
               "Recent RX Pause Timestamp", "-" * 60]
    history += [f"{port}  PFC{priority}  N/A  {value:,}  N/A  N/A" for port, values in pause.items()
                for priority, value in values.items()]
    wd = ["QUEUE  STATUS  STORM DETECTED/RESTORED  TX OK/DROP  RX OK/DROP  TX LAST OK/DROP  RX LAST OK/DROP", "-" * 60]
    wd += [f"{port}:{queue}  operational  {counts.get('wd_storms', 0)}/{counts.get('wd_restores', 0)}  0/0  0/0  0/0  0/0"
           for (port, queue), counts in watchdog.items()]
    return "\n".join(tables), "\n".join(history) + "\n", "\n".join(wd) + "\n"


def to_mlx5(poll: Poll, host: str) -> tuple[str, str, dict[str, str]]:
    """(port, ``ethtool -S`` text, hw_counters files) of one host's NIC."""
    names = {"cnp_sent": "np_cnp_sent", "cnp_handled": "rp_cnp_handled", "ecn_marked_roce":
             "np_ecn_marked_roce_packets", "out_of_sequence": "out_of_sequence", "packet_seq_err": "packet_seq_err",
             "local_ack_timeout": "local_ack_timeout_err"}
    port, lines, hw = "eth0", ["NIC statistics:"], {}
    for key, value in poll.values.items():
        if key.device != host:
            continue
        port = key.port
        if key.counter in names:
            hw[names[key.counter]] = f"{value}\n"
        elif key.counter == "pause_storms":
            lines.append(f"     tx_pause_storm_error_events: {value}")
    return port, "\n".join(lines) + "\n", hw


# Where the gate's counters come from, each read back through its real adapter: switches as Arista eAPI answers, as
# SONiC COUNTERS_DB or as SONiC's CLI text (pfcstat, pfcstat --history, pfcwd show stats: PFC, pause time and
# watchdog only), their NICs as mlx5 ``ethtool -S`` + ``hw_counters``; or the NICs alone (no switch counters).
VENDOR_SOURCES = ("eos", "sonic", "sonic-cli", "nic")


def through_source(poll: Poll, source: str, plane: Plane, lossless_queues=(LOSSLESS,)) -> Poll:
    """``poll`` as ``source`` would answer it (:func:`to_eos`, :func:`to_sonic_db`, :func:`to_mlx5`), read back by
    the adapters: the gate then judges exactly what each adapter makes of its vendor's shape."""
    if source not in VENDOR_SOURCES:
        raise ValueError(f"source {source!r}: not one of {', '.join(VENDOR_SOURCES)}")
    values: dict[str, dict] = {}  # each device's counters (the renderers walk one device's poll, not the fabric's)
    for key, value in poll.values.items():
        values.setdefault(key.device, {})[key] = value
    own = {device: Poll(poll.time, device_values) for device, device_values in values.items()}
    out, empty = Poll(poll.time), Poll(poll.time)
    for device in plane.devices:
        if source == "eos":
            adapters.eos_eapi(device, to_eos(own.get(device, empty), device), poll.time, lossless_queues, poll=out)
        elif source == "sonic":
            adapters.sonic_counters_db(device, to_sonic_db(own.get(device, empty), device), poll.time,
                                       lossless_queues, poll=out)
        elif source == "sonic-cli":
            pfcstat, history, pfcwd = to_sonic_cli(own.get(device, empty), device)
            adapters.sonic_pfcstat(device, pfcstat, poll.time, poll=out)
            adapters.sonic_pfcstat(device, history, poll.time, poll=out)
            adapters.sonic_pfcwd_stats(device, pfcwd, poll.time, poll=out)
        for host, _nic in plane.hosts(device):
            port, text, hw = to_mlx5(own.get(host, empty), host)
            adapters.mlx5(host, port, text, hw, poll.time, poll=out)
    return out

