"""The fabric-wide RoCE QoS policy derived once from the intent's RoCE classes (used by roce_qos).

DSCP -> traffic class -> queue/priority group/802.1p priority maps, the lossless priorities (PFC), ECN/WRED
thresholds per queue (DCQCN marking), the CNP class, the PFC watchdog and the egress scheduling of each queue.
Everything unmapped stays in TC 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.model import FabricIntent, RoceClass
from compiler.natural import natural_key
from compiler.qos_math import kib, pfc_headroom, static_headroom


@dataclass(frozen=True)
class FabricQos:
    policy: dict  # the device-level ``qos`` block (copied per device)
    lossless_classes: tuple[RoceClass, ...]
    port_ecn: dict  # queue -> thresholds, shared by every port
    watchdog_enabled: bool
    _port_cache: dict = field(default_factory=dict, repr=False, compare=False)

    __hash__ = None  # type: ignore[assignment]  # holds mappings: unhashable on purpose

    def device_policy(self) -> dict:
        policy = dict(self.policy)
        policy["classes"] = [dict(item, dscp=list(item["dscp"]), ecn=dict(item["ecn"])) for item in policy["classes"]]
        for key in ("dscp_to_tc", "tc_to_queue", "tc_to_priority_group", "tc_to_priority", "cnp", "pfc_watchdog"):
            policy[key] = dict(policy[key])
        policy["scheduling"] = {queue: dict(entry) for queue, entry in policy["scheduling"].items()}
        policy["lossless_priorities"] = list(policy["lossless_priorities"])
        return policy

    def port_qos(self, speed_gbps: int, cable_length_m: float, mtu: int) -> dict:
        """The port QoS block. Ports with equal speed, cable length and MTU share ONE dict object (131k ports at
        64x1024 would otherwise cost seconds): structured configs are read-only once built."""
        key = (speed_gbps, float(cable_length_m or 0.0), mtu)
        cached = self._port_cache.get(key)
        if cached is None:
            cached = self._port_cache[key] = {
                "trust": "dscp",
                "pfc_priorities": list(self.policy["lossless_priorities"]),
                "pfc_watchdog": self.watchdog_enabled,
                "ecn": self._shared_port_ecn(),
                "headroom": {str(roce.priority): _headroom(roce.headroom_policy, roce.headroom_bytes, *key)
                             for roce in self.lossless_classes},
            }
        return cached

    def _shared_port_ecn(self) -> dict:
        """One ECN dict for every port QoS block (thresholds do not depend on the port), so renderers can work
        a queue's ECN out once per switch however many cable lengths its ports have."""
        shared = self._port_cache.get("ecn")
        if shared is None:
            shared = self._port_cache["ecn"] = {queue: dict(thresholds) for queue, thresholds in self.port_ecn.items()}
        return shared


def _headroom(policy: str, headroom_bytes: int, speed_gbps: int, cable_length_m: float, mtu: int) -> dict:
    if policy == "static":
        headroom = static_headroom(headroom_bytes, mtu)
    else:
        headroom = pfc_headroom(speed_gbps, cable_length_m, mtu)
    return headroom.as_dict(policy)


def _ecn(roce: RoceClass) -> dict:
    if roce.ecn_max_kb <= 0:
        return {}
    return {"min_bytes": kib(roce.ecn_min_kb), "max_bytes": kib(roce.ecn_max_kb),
            "probability": roce.ecn_mark_probability}


# Egress scheduling. CNPs are tiny and throttle the senders, so their queue is served first (strict priority; a
# CNP stuck behind data would come too late for DCQCN, see the DCQCN paper, SIGCOMM 2015, section 3). The other
# queues share the link by weight: the lossless (RoCE) queues carry the AI traffic and get
# LOSSLESS_BANDWIDTH_PERCENT between them, the lossy queues (best effort TC 0 and lossy classes) the rest. These
# are defaults of this compiler, not measurements; the intent has no weight field yet.
LOSSLESS_BANDWIDTH_PERCENT = 80


def _scheduling(tc_to_queue: dict[int, int], lossless_queues: set[int], cnp_queue: int | None) -> dict[str, dict]:
    """queue -> {mode: strict} or {mode: dwrr, weight_percent: N} for every queue a traffic class uses."""
    queues = sorted(set(tc_to_queue.values()))
    weighted = [queue for queue in queues if queue != cnp_queue]
    lossless = [queue for queue in weighted if queue in lossless_queues]
    lossy = [queue for queue in weighted if queue not in lossless_queues]
    lossless_share = LOSSLESS_BANDWIDTH_PERCENT if lossy else 100
    scheduling: dict[str, dict] = {}
    for queue in queues:
        if queue == cnp_queue:
            scheduling[str(queue)] = {"mode": "strict"}
        elif queue in lossless_queues:
            scheduling[str(queue)] = {"mode": "dwrr", "weight_percent": lossless_share // len(lossless)}
        else:
            share = 100 - LOSSLESS_BANDWIDTH_PERCENT if lossless else 100
            scheduling[str(queue)] = {"mode": "dwrr", "weight_percent": share // len(lossy)}
    return scheduling


def _int_keyed(mapping: dict[int, int]) -> dict[str, int]:
    return {str(key): mapping[key] for key in sorted(mapping)}


def build_fabric_qos(intent: FabricIntent) -> FabricQos:
    classes = sorted(intent.roce_classes, key=lambda roce: (roce.traffic_class, natural_key(roce.name)))
    dscp_to_tc: dict[int, int] = {}
    tc_to_queue: dict[int, int] = {0: 0}
    tc_to_pg: dict[int, int] = {0: 0}
    tc_to_priority: dict[int, int] = {0: 0}
    for roce in classes:
        for dscp in roce.dscp:
            dscp_to_tc[dscp] = roce.traffic_class
        tc_to_queue[roce.traffic_class] = roce.traffic_class  # one egress queue per traffic class
        # Lossless traffic gets its own priority group (numbered like its priority) so it has its own headroom.
        tc_to_pg[roce.traffic_class] = roce.priority if roce.lossless else 0
        tc_to_priority[roce.traffic_class] = roce.priority
    cnp: dict[str, int] = {}
    cnp_class = next((roce for roce in classes if roce.cnp_dscp is not None), None)
    # validate_intent requires the CNP priority together with the CNP DSCP; the check only narrows the types.
    if cnp_class is not None and cnp_class.cnp_dscp is not None and cnp_class.cnp_priority is not None:
        # CNPs ride in their own lossy traffic class numbered like the CNP priority, unless a (lossy) class
        # already carries the CNP DSCP (validate_intent checks it sits on the CNP priority): then use its TC.
        cnp_tc = dscp_to_tc.setdefault(cnp_class.cnp_dscp, cnp_class.cnp_priority)
        cnp = {"dscp": cnp_class.cnp_dscp, "priority": cnp_class.cnp_priority, "traffic_class": cnp_tc}
        tc_to_queue.setdefault(cnp_tc, cnp_tc)
        tc_to_pg.setdefault(cnp_tc, 0)
        tc_to_priority.setdefault(cnp_tc, cnp_class.cnp_priority)
    lossless = tuple(roce for roce in classes if roce.lossless)
    watched = [roce for roce in lossless if roce.pfc_watchdog]
    watchdog = {"enabled": bool(watched),
                # Strictest settings win when classes differ: detect soonest, restore latest.
                "detect_ms": min((roce.watchdog_detect_ms for roce in watched), default=0),
                "restore_ms": max((roce.watchdog_restore_ms for roce in watched), default=0),
                "action": "drop"}
    class_entries = [{"name": roce.name, "dscp": sorted(roce.dscp), "traffic_class": roce.traffic_class,
                      "priority": roce.priority, "queue": roce.traffic_class, "lossless": roce.lossless,
                      "ecn": _ecn(roce)} for roce in classes]
    policy = {
        "trust": "dscp",
        "dscp_to_tc": _int_keyed(dscp_to_tc),
        "tc_to_queue": _int_keyed(tc_to_queue),
        "tc_to_priority_group": _int_keyed(tc_to_pg),
        "tc_to_priority": _int_keyed(tc_to_priority),
        "classes": class_entries,
        "lossless_priorities": sorted({roce.priority for roce in lossless}),
        "cnp": cnp,
        "pfc_watchdog": watchdog,
        "scheduling": _scheduling(tc_to_queue, {roce.traffic_class for roce in lossless},
                                  tc_to_queue[cnp["traffic_class"]] if cnp else None),
    }
    port_ecn = {str(entry["queue"]): entry["ecn"] for entry in class_entries if entry["ecn"]}
    return FabricQos(policy=policy, lossless_classes=lossless, port_ecn=port_ecn, watchdog_enabled=bool(watched))
