"""Vendor answers -> :class:`~changes.rocegate.schema.Poll` rows (pure; tested on recorded fixtures).

* SONiC COUNTERS_DB (what `pfcstat`, `pfcwd show stats` and `queuestat` read): ``COUNTERS_PORT_NAME_MAP`` and
  ``COUNTERS_QUEUE_NAME_MAP`` name the OIDs; port rows carry ``SAI_PORT_STAT_PFC_<p>_RX_PKTS`` / ``_TX_PKTS`` and
  the pause duration (``SAI_PORT_STAT_PFC_<p>_RX_PAUSE_DURATION_US``, or the ``EST_`` estimate some platforms
  write), ``SAI_PORT_STAT_IF_IN_DISCARDS``; unicast queue rows carry ``SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS``,
  ``SAI_QUEUE_STAT_DROPPED_PACKETS``, ``SAI_QUEUE_STAT_WRED_DROPPED_PACKETS`` and the PFC watchdog's
  ``PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED`` / ``_RESTORED`` (sonic-swss orchagent/pfcwdorch.cpp).
* SONiC CLI text: ``pfcstat`` (Rx/Tx PFC frames per priority), ``pfcstat --history`` (pause time) and ``pfcwd
  show stats`` (storms detected/restored), as sonic-utilities prints them (:func:`sonic_pfcstat`,
  :func:`sonic_pfcwd_stats`).
* Arista EOS eAPI JSON of ``show priority-flow-control counters detail``, ``show priority-flow-control counters
  watchdog``, ``show qos interfaces ecn counters queue`` and ``show interfaces counters queue drops``.
* Broadcom bnxt_re / bnxt_en (:func:`bnxt_re`) and any port through Linux DCB, ``dcb -s pfc show`` (:func:`dcb_pfc`).
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

from .schema import Key, Poll

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


# SONiC's CLI text (sonic-net/sonic-utilities): ``pfcstat`` (scripts/pfcstat; ``show pfc counters``) prints a
# ``Port Rx`` and a ``Port Tx`` table of PFC frames per priority (PFC0..PFC7, numbers with thousands commas, ``N/A``
# where COUNTERS_DB has no counter); ``pfcstat --history`` a row per port and priority whose ``Total RX Pause Time
# US`` is SAI's (or the EST_ estimate's) pause duration; ``pfcwd show stats`` (pfcwd/main.py) a row per queue
# ``<port>:<queue>`` whose ``STORM DETECTED/RESTORED`` is ``PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED/_RESTORED``. After
# ``pfcstat -c`` (``sonic-clear pfccounters``) pfcstat prints "Last cached time was ..." and the increase since the
# clear (never below 0: utilities_common/netstat.py ns_diff): to the gate that is a counter reset (schema.delta).
_PFCSTAT_HEADER = re.compile(r"^\s*Port (Rx|Tx)\s+PFC0\s+PFC1\s+PFC2\s+PFC3\s+PFC4\s+PFC5\s+PFC6\s+PFC7\s*$")
_PFCSTAT_HISTORY_HEADER = re.compile(r"^\s*Port\s+Priority\s+RX Pause Transitions\s+Total RX Pause Time US\b")
_PFCWD_HEADER = re.compile(r"^\s*QUEUE\s+STATUS\s+STORM DETECTED/RESTORED\b")
_RULE = re.compile(r"^[-\s]+$")


def _cli_number(text: str, what: str) -> int | None:
    """A CLI count (``1,200``) as an int; ``N/A`` (no such counter) as None."""
    if text == "N/A":
        return None
    digits = text.replace(",", "")
    if not digits.isdigit():
        raise ValueError(f"{what}: {text!r} is not a count")
    return int(digits)


def sonic_pfcstat(device: str, text: str, time: float, poll: Poll | None = None) -> Poll:
    """``pfcstat`` / ``show pfc counters`` text (the Rx and Tx tables: ``pfc_rx`` / ``pfc_tx`` per priority), or
    ``pfcstat --history`` text (``pause_us`` per priority from ``Total RX Pause Time US``). Rows of ``N/A`` (a port
    without those counters) are left out."""
    poll = poll if poll is not None else Poll(time)
    table = ""
    for number, line in enumerate(text.splitlines(), start=1):
        if match := _PFCSTAT_HEADER.match(line):
            table = "pfc_rx" if match.group(1) == "Rx" else "pfc_tx"
            continue
        if _PFCSTAT_HISTORY_HEADER.match(line):
            table = "history"
            continue
        if not line.strip() or _RULE.match(line) or line.startswith("Last cached time was"):
            continue
        if not table:
            raise ValueError(f"pfcstat output of {device}, line {number}: {line.strip()[:120]!r} comes before any "
                             f"'Port Rx', 'Port Tx' or history header")
        fields = line.split()
        if table == "history":  # Port, PFC<p>, transitions, total pause time, recent time, recent timestamp
            if len(fields) < 4 or not re.fullmatch(r"PFC[0-7]", fields[1]):
                raise ValueError(f"pfcstat --history output of {device}, line {number}: {line.strip()[:120]!r} is "
                                 f"not '<port> PFC<p> <transitions> <total pause us> ...'")
            value = _cli_number(fields[3], f"pfcstat --history of {device}:{fields[0]} {fields[1]}")
            if value is not None:
                poll.add(device, fields[0], int(fields[1][3]), "pause_us", value)
            continue
        if len(fields) != 9:
            raise ValueError(f"pfcstat output of {device}, line {number}: {line.strip()[:120]!r} is not a port and "
                             f"8 PFC counts")
        for priority, count in enumerate(fields[1:]):
            value = _cli_number(count, f"pfcstat of {device}:{fields[0]} PFC{priority}")
            if value is not None:
                poll.add(device, fields[0], priority, table, value)
    return poll


def sonic_pfcwd_stats(device: str, text: str, time: float, *, ports: Iterable[str] = (),
                      lossless_queues: Iterable[int] = (), poll: Poll | None = None) -> Poll:
    """``pfcwd show stats`` text: ``wd_storms`` / ``wd_restores`` per queue. Without ``-e`` (``--empty``) pfcwd leaves
    out a queue whose counts are all 0, and a counter that first appears after the push would have no rate (see
    schema.rates): so each of ``ports`` x ``lossless_queues`` missing from the table is read as 0/0. Run it with
    ``-e``, or pass the ports and lossless queues."""
    poll = poll if poll is not None else Poll(time)
    seen = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _PFCWD_HEADER.match(line):
            seen = True
            continue
        if not line.strip() or _RULE.match(line):
            continue
        fields = line.split()
        port, _, queue = fields[0].rpartition(":")
        storms, _, restores = (fields[2] if len(fields) >= 3 else "").partition("/")
        if not (seen and port and queue.isdigit() and storms.isdigit() and restores.isdigit()):
            raise ValueError(f"pfcwd show stats output of {device}, line {number}: {line.strip()[:120]!r} is not "
                             f"'<port>:<queue> <status> <detected>/<restored> ...' under its header")
        poll.add(device, port, int(queue), "wd_storms", int(storms))
        poll.add(device, port, int(queue), "wd_restores", int(restores))
    if not seen:
        raise ValueError(f"pfcwd show stats output of {device} has no QUEUE/STATUS/STORM DETECTED header: "
                         f"{text[:120]!r}")
    _zero_fill(poll, device, ports, lossless_queues, ("wd_storms", "wd_restores"))
    return poll


def _zero_fill(poll: Poll, device: str, ports: Iterable[str], queues: Iterable[int], counters: tuple[str, ...]):
    """A counter the answer leaves out because it is 0 (pfcwd without -e; EOS's watchdog answer before the first
    event) is 0: without it, the first storm after the push would be a counter that appeared, with no rate."""
    queues = list(queues)
    for port in ports:
        for queue in queues:
            for counter in counters:
                poll.values.setdefault(Key(device, port, int(queue), counter), 0)


# The four eAPI commands :func:`eos_eapi` reads, sent with JSON encoding.
EOS_COMMANDS = ("show priority-flow-control counters detail", "show priority-flow-control counters watchdog",
                "show qos interfaces ecn counters queue", "show interfaces counters queue drops")


def eos_eapi(device: str, answers: Mapping[str, Mapping], time: float, lossless_queues: Iterable[int] = (),
             poll: Poll | None = None) -> Poll:
    """``answers``: {command: its eAPI JSON result}."""
    poll = poll if poll is not None else Poll(time)
    lossless = set(lossless_queues)
    pfc = answers.get("show priority-flow-control counters detail") or {}
    # ``interfaces`` -> port -> ``priorities`` -> "<p>" -> ``rxFrames`` / ``txFrames`` (as facebook/DNE-TaaC's EOS PFC
    # health check reads ``show interfaces <if> priority-flow-control counters detail | json``). The pause-time
    # field ``rxPauseTimeUs`` is this project's guess: no public answer shows one; it is read when present.
    # (``show priority-flow-control counters`` without ``detail`` answers ``interfaceCounters`` -> port ->
    # rxFrames/txFrames, port totals without priorities, ANTA's VerifyInterfacesPFCCounters: not read here.)
    pfc_ports = list(pfc.get("interfaces") or {})
    for port, entry in (pfc.get("interfaces") or {}).items():
        for priority, counters in (entry.get("priorities") or {}).items():
            poll.add(device, port, int(priority), "pfc_rx", counters.get("rxFrames", 0))
            poll.add(device, port, int(priority), "pfc_tx", counters.get("txFrames", 0))
            if "rxPauseTimeUs" in counters:
                poll.add(device, port, int(priority), "pause_us", counters["rxPauseTimeUs"])
    watchdog = answers.get("show priority-flow-control counters watchdog") or {}
    # ``interfaces`` -> port -> ``txQueues`` -> "<q>" -> ``stuckCount`` / ``recoveryCount`` (DNE-TaaC's EOS PFC
    # watchdog check). EOS answers ``{"interfaces": {}}`` until a watchdog event and leaves a port out until its
    # first one: a port with PFC (in the PFC answer) missing here has 0/0 on its lossless queues.
    for port, entry in (watchdog.get("interfaces") or {}).items():
        for queue, counters in (entry.get("txQueues") or {}).items():
            for field_name, counter in (("stuckCount", "wd_storms"), ("recoveryCount", "wd_restores")):
                if field_name in counters:
                    poll.add(device, port, int(queue), counter, counters[field_name])
    if "show priority-flow-control counters watchdog" in answers:
        _zero_fill(poll, device, pfc_ports, lossless, ("wd_storms", "wd_restores"))
    ecn = answers.get("show qos interfaces ecn counters queue") or {}
    # As EOS answers (ANTA's VerifyInterfacesECNCounters reads it so; its unit-test data): per interface
    # ``queueCounters`` {queue: "count"}, "-" for a queue without ECN configured (no counter, not zero).
    for port, entry in (ecn.get("intfQueueCounters") or {}).items():
        for queue, count in (entry.get("queueCounters") or {}).items():
            if count != "-":
                poll.add(device, port, int(queue), "ecn_marked", int(count))
    for port, entry in (ecn.get("interfaces") or {}).items():  # the shape this project first assumed
        for queue, counters in (entry.get("txQueues") or {}).items():
            poll.add(device, port, int(queue), "ecn_marked", counters.get("ecnMarkedPackets", 0))
    drops = answers.get("show interfaces counters queue drops") or {}
    for port, entry in (drops.get("interfaces") or {}).items():
        # As EOS answers on VOQ platforms (ANTA's VerifyInterfacesVoqAndEgressQueueDrops; its unit-test data):
        # per traffic class, ingress VOQ and egress queue drops; both are drops of that class's packets.
        for traffic_class, counters in (entry.get("trafficClasses") or {}).items():
            queue_number = int(traffic_class.removeprefix("TC"))
            if queue_number in lossless:
                dropped = sum(int((counters.get(side) or {}).get("countersSum", {}).get("droppedPackets", 0))
                              for side in ("ingressVoqCounters", "egressQueueCounters"))
                poll.add(device, port, queue_number, "lossless_drops", dropped)
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


# Broadcom bnxt_re (RDMA) ``hw_counters`` names -> schema counters. Linux drivers/infiniband/hw/bnxt_re/hw_counters.c
# (``bnxt_re_stat_descs``): ``tx_cnp_pkts`` (CNPs this NIC sent as notification point), ``rx_cnp_pkts`` (CNPs it
# received as reaction point), ``rx_ecn_marked_pkts``, ``rx_out_of_buffer``, ``oos_drop_count`` (responder drops of
# out-of-sequence packets), ``seq_err_naks_rcvd`` (NAKs for a sequence error, mlx5's packet_seq_err) and
# ``to_retransmits`` (retransmissions after the ACK timer expired, mlx5's local_ack_timeout_err). A later Broadcom
# patch renames the first four to the mlx5 names (``np_cnp_pkts``, ``rp_cnp_handled``,
# ``np_ecn_marked_roce_packets``, ``out_of_buffer``): both spellings are read. Values are u64 (rdma_hw_stats).
BNXT_RE_HW_COUNTERS = {"tx_cnp_pkts": "cnp_sent", "np_cnp_pkts": "cnp_sent",
                       "rx_cnp_pkts": "cnp_handled", "rp_cnp_handled": "cnp_handled",
                       "rx_ecn_marked_pkts": "ecn_marked_roce", "np_ecn_marked_roce_packets": "ecn_marked_roce",
                       "rx_out_of_buffer": "out_of_buffer", "out_of_buffer": "out_of_buffer",
                       "oos_drop_count": "out_of_sequence", "seq_err_naks_rcvd": "packet_seq_err",
                       "to_retransmits": "local_ack_timeout"}
# bnxt_en ``ethtool -S`` port statistics (Linux drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c:
# bnxt_port_stats_arr and the BNXT_{RX,TX}_STATS_EXT_PFC_ENTRY / _DISCARD_COS_ENTRY macros).
_BNXT_PFC = re.compile(r"^(rx|tx)_pfc_ena_frames_pri(\d)$")
_BNXT_PFC_DURATION = re.compile(r"^pfc_pri(\d)_rx_duration_us$")
_BNXT_DISCARD = re.compile(r"^rx_discard_packets_cos(\d)$")


def bnxt_re(host: str, port: str, ethtool_text: str, hw_counters: Mapping[str, object], time: float,
            poll: Poll | None = None) -> Poll:
    """A Broadcom NIC: bnxt_en ``ethtool -S <if>`` (``rx_pfc_ena_frames_pri<p>`` / ``tx_…`` PFC frames per
    priority, ``pfc_pri<p>_rx_duration_us`` time paused, ``rx_discard_packets_cos<q>`` discards per CoS queue,
    ``continuous_pause_events`` the port's pause-storm detector) and the bnxt_re device's ``hw_counters``
    directory as {file: value} (:data:`BNXT_RE_HW_COUNTERS`)."""
    poll = poll if poll is not None else Poll(time)
    for line in ethtool_text.splitlines():
        match = _ETHTOOL.match(line)
        if not match:
            continue  # per-ring lines ("[0]: rx_ucast_packets: 1") are not port counters
        name, value = match.group(1), int(match.group(2))
        if pfc := _BNXT_PFC.match(name):
            poll.add(host, port, int(pfc.group(2)), "pfc_rx" if pfc.group(1) == "rx" else "pfc_tx", value)
        elif duration := _BNXT_PFC_DURATION.match(name):
            poll.add(host, port, int(duration.group(1)), "pause_us", value)
        elif discard := _BNXT_DISCARD.match(name):
            poll.add(host, port, int(discard.group(1)), "prio_discards", value)
        elif name == "continuous_pause_events":
            poll.add(host, port, -1, "pause_storms", value)
    for name, counter in BNXT_RE_HW_COUNTERS.items():
        if name in hw_counters:
            poll.add(host, port, -1, counter, int(str(hw_counters[name]).strip()))
    return poll


_DCB_LINE = re.compile(r"^\s*(requests|indications)\s(.*)$")


def dcb_pfc(host: str, port: str, output: str, time: float, poll: Poll | None = None) -> Poll:
    """Any NIC or Linux switch port through the kernel's DCB netlink: ``dcb -s pfc show dev <port>`` (iproute2
    ``dcb/dcb_pfc.c``), as text (``requests 0:0 1:217 …`` / ``indications …``) or with ``-j`` as JSON
    (``{"requests": [8 counts], "indications": [8 counts], …}``). ``requests`` are the PFC frames sent and
    ``indications`` those received (``struct ieee_pfc`` in include/uapi/linux/dcbnl.h, u64), one per traffic
    class; the index is read as the 802.1p priority, which it is when priorities map 1:1 to traffic classes (the
    intent's ``tc_to_priority`` is the identity). No pause time, queue or RDMA counter comes through this path."""
    poll = poll if poll is not None else Poll(time)
    if output.lstrip().startswith("{"):
        try:
            data = json.loads(output)
        except ValueError as exc:
            raise ValueError(f"dcb pfc JSON of {host}:{port} is not JSON: {exc}") from exc
        arrays = {name: data.get(name) for name in ("requests", "indications")}
        if not all(isinstance(values, list) for values in arrays.values()):
            raise ValueError(f"dcb pfc JSON of {host}:{port} has no requests/indications arrays (was -s given?)")
        pairs = {name: list(enumerate(values)) for name, values in arrays.items()}
    else:
        pairs = {}
        for line in output.splitlines():
            if match := _DCB_LINE.match(line):
                items = [item.partition(":") for item in match.group(2).split()]
                if not items or not all(prio.isdigit() and colon and count.isdigit() for prio, colon, count in items):
                    raise ValueError(f"dcb pfc output of {host}:{port}: {line.strip()[:120]!r} is not "
                                     f"'<name> <prio>:<count> ...'")
                pairs[match.group(1)] = [(int(prio), int(count)) for prio, _colon, count in items]
        if set(pairs) != {"requests", "indications"}:
            raise ValueError(f"dcb pfc output of {host}:{port} has no requests/indications lines (was -s given?)")
    for name, counter in (("requests", "pfc_tx"), ("indications", "pfc_rx")):
        for priority, value in pairs[name]:
            poll.add(host, port, int(priority), counter, value)
    return poll
