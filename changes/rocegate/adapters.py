"""Vendor answers -> :class:`~changes.rocegate.schema.Poll` rows (pure; tested on recorded fixtures).

* SONiC COUNTERS_DB (what `pfcstat`, `pfcwd show stats` and `queuestat` read): ``COUNTERS_PORT_NAME_MAP`` and
  ``COUNTERS_QUEUE_NAME_MAP`` name the OIDs; port rows carry ``SAI_PORT_STAT_PFC_<p>_RX_PKTS`` / ``_TX_PKTS`` and
  the pause duration (``SAI_PORT_STAT_PFC_<p>_RX_PAUSE_DURATION_US``, or the ``EST_`` estimate some platforms
  write), ``SAI_PORT_STAT_IF_IN_DISCARDS``; unicast queue rows carry ``SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS``,
  ``SAI_QUEUE_STAT_DROPPED_PACKETS``, ``SAI_QUEUE_STAT_WRED_DROPPED_PACKETS`` and the PFC watchdog's
  ``PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED`` / ``_RESTORED`` (sonic-swss orchagent/pfcwdorch.cpp).
* Arista EOS eAPI JSON of ``show priority-flow-control counters detail``, ``show priority-flow-control counters
  watchdog``, ``show qos interfaces ecn counters queue`` and ``show interfaces counters queue drops``.
* NVIDIA mlx5: ``ethtool -S <if>`` text (``rx_prio<p>_pause``, ``tx_prio<p>_pause``, ``rx_prio<p>_pause_duration``
  in microseconds, ``rx_prio<p>_discards``, ``rx_discards_phy``, ``tx_pause_storm_error_events``) and the RDMA
  device's ``hw_counters`` directory as {file: value} (``np_cnp_sent``, ``rp_cnp_handled``,
  ``np_ecn_marked_roce_packets``, ``out_of_sequence``, ``packet_seq_err``, ``local_ack_timeout_err``,
  ``out_of_buffer``; NVIDIA "Understanding mlx5 Linux Counters and Status Parameters").

A drop on a queue counts as ``lossless_drops`` only when the caller says the queue is lossless (the intent's
lossless classes); drops on lossy queues are what lossy queues do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

from .schema import Poll

_PFC = re.compile(r"SAI_PORT_STAT_PFC_(\d)_(RX|TX)_PKTS$")
_PAUSE = re.compile(r"(?:SAI|EST)_PORT_STAT_PFC_(\d)_RX_PAUSE_DURATION_US$")


def sonic_counters_db(device: str, db: Mapping[str, Mapping], time: float, lossless_queues: Iterable[int] = (),
                      poll: Poll | None = None) -> Poll:
    poll = poll if poll is not None else Poll(time)
    lossless = set(lossless_queues)
    for port, oid in (db.get("COUNTERS_PORT_NAME_MAP") or {}).items():
        row = db.get(f"COUNTERS:{oid}") or {}
        sai_pause = {int(m.group(1)) for name in row if (m := _PAUSE.match(name)) and name.startswith("SAI_")}
        for name, value in row.items():
            if match := _PFC.match(name):
                poll.add(device, port, int(match.group(1)), "pfc_rx" if match.group(2) == "RX" else "pfc_tx", value)
            elif match := _PAUSE.match(name):
                priority = int(match.group(1))
                if name.startswith("SAI_") or priority not in sai_pause:  # the SAI counter wins over an estimate
                    poll.add(device, port, priority, "pause_us", value)
            elif name == "SAI_PORT_STAT_IF_IN_DISCARDS":
                poll.add(device, port, -1, "no_buffer_discards", value)
    types = db.get("COUNTERS_QUEUE_TYPE_MAP") or {}
    for name, oid in (db.get("COUNTERS_QUEUE_NAME_MAP") or {}).items():
        port, _, index_text = name.rpartition(":")
        if types.get(oid, "SAI_QUEUE_TYPE_UNICAST") != "SAI_QUEUE_TYPE_UNICAST":
            continue
        queue = int(index_text)
        row = db.get(f"COUNTERS:{oid}") or {}
        for field, counter in (("SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", "ecn_marked"),
                               ("SAI_QUEUE_STAT_WRED_DROPPED_PACKETS", "wred_drops"),
                               ("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", "wd_storms"),
                               ("PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED", "wd_restores")):
            if field in row:
                poll.add(device, port, queue, counter, row[field])
        if queue in lossless and "SAI_QUEUE_STAT_DROPPED_PACKETS" in row:
            poll.add(device, port, queue, "lossless_drops", row["SAI_QUEUE_STAT_DROPPED_PACKETS"])
    return poll


def sonic_db_dump(text: str) -> dict[str, dict]:
    """What ``sonic-db-dump -n COUNTERS_DB -y`` prints (sonic-net/sonic-swss-common ``scripts/sonic-db-dump``: one
    JSON object, each Redis key -> ``{"type": "hash", "value": {field: value}, ...}``) as the ``{key: {field:
    value}}`` that :func:`sonic_counters_db` reads. Keys of other Redis types are left out."""
    try:
        dump = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"sonic-db-dump output is not JSON: {exc} ({text[:120]!r})") from exc
    if not isinstance(dump, dict):
        raise ValueError(f"sonic-db-dump output is not a JSON object: {text[:120]!r}")
    return {key: entry["value"] for key, entry in dump.items()
            if isinstance(entry, dict) and entry.get("type") == "hash" and isinstance(entry.get("value"), dict)}


# The four eAPI commands :func:`eos_eapi` reads, sent with JSON encoding.
EOS_COMMANDS = ("show priority-flow-control counters detail", "show priority-flow-control counters watchdog",
                "show qos interfaces ecn counters queue", "show interfaces counters queue drops")


def eos_eapi(device: str, answers: Mapping[str, Mapping], time: float, lossless_queues: Iterable[int] = (),
             poll: Poll | None = None) -> Poll:
    """``answers``: {command: its eAPI JSON result}."""
    poll = poll if poll is not None else Poll(time)
    lossless = set(lossless_queues)
    pfc = answers.get("show priority-flow-control counters detail") or {}
    for port, entry in (pfc.get("interfaceCounters") or {}).items():
        for priority, counters in (entry.get("priorities") or {}).items():
            poll.add(device, port, int(priority), "pfc_rx", counters.get("rxFrames", 0))
            poll.add(device, port, int(priority), "pfc_tx", counters.get("txFrames", 0))
            if "rxPauseTimeUs" in counters:
                poll.add(device, port, int(priority), "pause_us", counters["rxPauseTimeUs"])
    watchdog = answers.get("show priority-flow-control counters watchdog") or {}
    for port, entry in (watchdog.get("interfaces") or {}).items():
        for queue, counters in (entry.get("txQueues") or {}).items():
            for field_name, counter in (("stuckCount", "wd_storms"), ("recoveryCount", "wd_restores")):
                if field_name in counters:
                    poll.add(device, port, int(queue), counter, counters[field_name])
    ecn = answers.get("show qos interfaces ecn counters queue") or {}
    for port, entry in (ecn.get("interfaces") or {}).items():
        for queue, counters in (entry.get("txQueues") or {}).items():
            poll.add(device, port, int(queue), "ecn_marked", counters.get("ecnMarkedPackets", 0))
    drops = answers.get("show interfaces counters queue drops") or {}
    for port, entry in (drops.get("interfaces") or {}).items():
        for queue, counters in (entry.get("ucastQueues", {}).get("trafficClasses") or {}).items():
            queue_number = int(queue.removeprefix("TC"))
            if queue_number in lossless:
                poll.add(device, port, queue_number, "lossless_drops", counters.get("droppedPackets", 0))
            if "wredDroppedPackets" in counters:
                poll.add(device, port, queue_number, "wred_drops", counters["wredDroppedPackets"])
        if "ingressDiscards" in entry:
            poll.add(device, port, -1, "no_buffer_discards", entry["ingressDiscards"])
    return poll


_ETHTOOL = re.compile(r"^\s*([a-z0-9_]+):\s*(\d+)\s*$")
_PRIO = re.compile(r"^(rx|tx)_prio(\d)_(pause|pause_duration|discards)$")
HW_COUNTERS = {"np_cnp_sent": "cnp_sent", "rp_cnp_handled": "cnp_handled",
               "np_ecn_marked_roce_packets": "ecn_marked_roce", "out_of_sequence": "out_of_sequence",
               "packet_seq_err": "packet_seq_err", "local_ack_timeout_err": "local_ack_timeout",
               "out_of_buffer": "out_of_buffer"}


def mlx5(host: str, port: str, ethtool_text: str, hw_counters: Mapping[str, object], time: float,
         poll: Poll | None = None) -> Poll:
    poll = poll if poll is not None else Poll(time)
    for line in ethtool_text.splitlines():
        match = _ETHTOOL.match(line)
        if not match:
            continue
        name, value = match.group(1), int(match.group(2))
        if prio := _PRIO.match(name):
            direction, priority, what = prio.group(1), int(prio.group(2)), prio.group(3)
            if what == "pause":
                poll.add(host, port, priority, "pfc_rx" if direction == "rx" else "pfc_tx", value)
            elif what == "pause_duration" and direction == "rx":
                poll.add(host, port, priority, "pause_us", value)
            elif what == "discards" and direction == "rx":
                poll.add(host, port, priority, "prio_discards", value)
        elif name == "rx_discards_phy":
            poll.add(host, port, -1, "prio_discards", value)
        elif name == "tx_pause_storm_error_events":
            poll.add(host, port, -1, "pause_storms", value)
    for name, counter in HW_COUNTERS.items():
        if name in hw_counters:
            poll.add(host, port, -1, counter, int(str(hw_counters[name]).strip()))
    return poll
