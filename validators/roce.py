"""RoCEv2 lossless-fabric checks along every server-to-server path (NIC -> leaf -> spine -> leaf -> NIC).

A RoCE flow stays lossless only if every hop classifies it the same way and pauses it on every link it crosses:

* ``roce.chain`` -- DSCP -> traffic class -> priority group -> queue -> 802.1p priority is the same on every
  device and matches the intent (DSCP and priority of each class); a lossless class has a priority group of
  its own (a group shared with lossy traffic shares its headroom and its pause). The hop is named: leaves are
  hops 2 and 4, spines hop 3 of the path.
* ``roce.pfc`` -- PFC (IEEE 802.1Qbb) is on for every lossless priority and off for every lossy class on both
  ends of every link a flow can take (fabric, peer and server ports); the device lists the same lossless
  priorities as the intent.
* ``roce.ecn`` -- ECN/WRED marking (DCQCN) thresholds exist for each class that asks for them, 0 < min <= max, max
  fits the switch buffer, and they are equal across a tier (same role): DCQCN reacts to the first marking hop,
  so a hop with different thresholds changes the fabric's behaviour.
* ``roce.cnp`` -- the congestion notification packets' DSCP is mapped to its own class (not best effort, where
  CNPs would queue behind the traffic they are meant to slow down).
* ``roce.watchdog`` -- the PFC watchdog is enabled (device and every lossless port) with a positive detection
  time, so a PFC storm or deadlock is broken instead of freezing the fabric.
* ``roce.trust`` -- every device and port trusts DSCP (RoCEv2 is routed; 802.1p does not survive L3 hops).
* ``roce.isolation`` -- no lossy traffic class (lossy classes, best effort TC 0, the CNP class) is mapped to a
  lossless 802.1p priority or to a lossless class's egress queue: it would be paused with RoCE, or RoCE would sit
  in a queue sized and marked as lossy.
* ``roce.platform`` -- every RoCE property the classes ask for (PFC priority, ECN thresholds, DSCP trust, CNP
  strict priority, PFC watchdog, headroom) is implemented by each device's platform on its ASIC family
  (compiler.hardware.ROCE_CAPABILITIES): one finding per device and missing property, naming why the platform
  lacks it. FRR/Linux gaps (no PFC watchdog in Linux; no switchdev offload outside Spectrum) are warnings: the
  project builds such fabrics on purpose and the config states the setting; other platforms' gaps are errors.
  ``roce.watchdog`` does not judge a device whose platform has no watchdog (roce.platform names that gap).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping

from compiler.hardware import RoceFeature, roce_capabilities, roce_gap
from compiler.model import Platform
from validators.common import asic_family_of
from validators.context import as_context
from validators.findings import Finding, Severity

CHAIN = "roce.chain"
PFC = "roce.pfc"
ECN = "roce.ecn"
CNP = "roce.cnp"
WATCHDOG = "roce.watchdog"
TRUST = "roce.trust"
ISOLATION = "roce.isolation"
PLATFORM = "roce.platform"
QOS_KINDS = frozenset({"fabric", "server", "peer_link"})
NO_ROCE = "no RoCE classes in the intent"  # validators.run's reason for skipping every RoCE check
HOP = {"leaf": "hop 2/4 (source or destination leaf)", "border": "hop 2/4 (border leaf)",
       "spine": "hop 3 (spine)", "super-spine": "hop 3 (super-spine)"}


def roce_applies(fabric) -> bool:
    ctx = as_context(fabric)
    if ctx.intent is not None:
        return bool(ctx.intent.roce_classes)
    return any(config.get("qos") for config in ctx.structured.values())


def _classes(ctx) -> list[dict]:
    """The RoCE classes to check: the intent's when there is one, else the most common device definition."""
    if ctx.intent is not None:
        return [{"name": roce.name, "dscp": sorted(roce.dscp), "traffic_class": roce.traffic_class,
                 "priority": roce.priority, "lossless": roce.lossless,
                 "ecn": roce.ecn_max_kb > 0, "watchdog": roce.pfc_watchdog,
                 "cnp_dscp": roce.cnp_dscp, "cnp_priority": roce.cnp_priority}
                for roce in ctx.intent.roce_classes]
    definitions = Counter(repr(config["qos"].get("classes")) for config in ctx.structured.values() if config.get("qos"))
    if not definitions:
        return []
    sample = next(config["qos"]["classes"] for config in ctx.structured.values()
                  if config.get("qos") and repr(config["qos"].get("classes")) == definitions.most_common(1)[0][0])
    cnp: Mapping[str, object] = next((config["qos"].get("cnp") for config in ctx.structured.values() if config.get("qos")), {}) or {}
    return [dict(entry, ecn=bool(entry.get("ecn")), watchdog=True, cnp_dscp=cnp.get("dscp"),
                 cnp_priority=cnp.get("priority")) for entry in sample]


def _chain(qos: dict, dscp: int) -> tuple:
    tc = (qos.get("dscp_to_tc") or {}).get(str(dscp), 0)  # unmapped DSCPs fall into TC 0 (contract)
    key = str(tc)
    return (tc, (qos.get("tc_to_priority_group") or {}).get(key), (qos.get("tc_to_queue") or {}).get(key),
            (qos.get("tc_to_priority") or {}).get(key))


def _describe(dscp: int, chain: tuple) -> str:
    tc, pg, queue, priority = chain
    return f"DSCP {dscp} -> TC {tc} -> PG {pg} -> queue {queue} -> priority {priority}"


def _qos_devices(ctx):
    for host, config in ctx.structured.items():
        if any(interface["kind"] in QOS_KINDS for interface in config["interfaces"]):
            yield host, config


def check_chain(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    classes = _classes(ctx)
    devices = list(_qos_devices(ctx))
    ctx.record_examined(CHAIN, {"DSCP chains": sum(len(roce["dscp"]) for roce in classes) * len(devices),
                                "devices": len(devices)})
    for roce in classes:
        for dscp in roce["dscp"]:
            chains = {host: _chain(config.get("qos") or {}, dscp) for host, config in devices}
            usual = Counter(chains.values()).most_common(1)[0][0] if chains else None
            for host, chain in chains.items():
                config = ctx.structured[host]
                role = config["role"]
                wrong = []
                if not config.get("qos"):
                    wrong.append("no QoS policy at all")
                if chain[0] != roce["traffic_class"]:
                    wrong.append(f"TC {chain[0]} instead of {roce['traffic_class']}")
                if chain[3] != roce["priority"]:
                    wrong.append(f"priority {chain[3]} instead of {roce['priority']}")
                if usual is not None and chain != usual and not wrong:
                    wrong.append(f"differs from the {sum(1 for c in chains.values() if c == usual)} other devices "
                                 f"({_describe(dscp, usual)})")
                if wrong:
                    findings.append(Finding(
                        check=CHAIN, severity=Severity.ERROR, subject=host,
                        expected=_describe(dscp, usual) if usual else None, actual=_describe(dscp, chain),
                        message=f"class {roce['name']}: {_describe(dscp, chain)} on {host}, {HOP.get(role, role)} of every "
                        f"path through it: {'; '.join(wrong)}"))
        if roce["lossless"]:
            for host, config in devices:
                qos = config.get("qos") or {}
                pg_map = qos.get("tc_to_priority_group") or {}
                pg = pg_map.get(str(roce["traffic_class"]))
                lossy_tcs = {0} | {c["traffic_class"] for c in classes if not c["lossless"]}
                shared = sorted(tc for tc in lossy_tcs if pg_map.get(str(tc), 0) == pg and pg is not None)
                if shared:
                    findings.append(Finding(
                        check=CHAIN, severity=Severity.ERROR, subject=host,
                        expected=f"a priority group of {roce['name']} alone", actual=pg,
                        message=f"class {roce['name']}: lossless TC {roce['traffic_class']} shares priority group {pg} with "
                        f"lossy TC {shared} on {host} ({HOP.get(config.get('role'), '')})"))
    return findings


def _port_issue(findings, check, host, interface, expected, actual, message):
    findings.append(Finding(
        check=check, severity=Severity.ERROR, subject=f"{host}:{interface['name']}", expected=expected, actual=actual,
        message=message))


def check_pfc(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    classes = _classes(ctx)
    lossless = sorted({c["priority"] for c in classes if c["lossless"]})
    lossy = sorted({c["priority"] for c in classes if not c["lossless"]} - set(lossless))
    index = ctx.interface_index
    devices = list(_qos_devices(ctx))
    ports = 0
    for host, config in devices:
        device_lossless = sorted((config.get("qos") or {}).get("lossless_priorities") or [])
        if device_lossless != lossless:
            findings.append(Finding(
                check=PFC, severity=Severity.ERROR, subject=host, expected=lossless, actual=device_lossless,
                message=f"{host} declares lossless priorities {device_lossless}, the intent {lossless}"))
        for interface in config["interfaces"]:
            if interface["kind"] not in QOS_KINDS or not interface["enabled"]:
                continue
            ports += 1
            configured = (interface.get("qos") or {}).get("pfc_priorities") or []
            if configured == lossless:
                continue  # the common case: exactly the lossless priorities
            enabled = set(configured)
            missing = [p for p in lossless if p not in enabled]
            extra = [p for p in lossy if p in enabled]
            where = f"{host}:{interface['name']} (towards {interface['peer_device']}:{interface['peer_interface']})"
            if missing:
                _port_issue(findings, PFC, host, interface, lossless, sorted(enabled),
                            f"PFC is off for lossless priority {missing} on {where}: RoCE frames are dropped there "
                            "under congestion")
            if extra:
                _port_issue(findings, PFC, host, interface, lossless, sorted(enabled),
                            f"PFC is on for lossy priority {extra} on {where}: lossy traffic can pause the link")
            peer = index.get((interface["peer_device"], interface["peer_interface"]))
            if interface["kind"] != "server" and peer is not None and peer.get("enabled"):
                peer_enabled = set((peer.get("qos") or {}).get("pfc_priorities") or ())
                if peer_enabled != enabled:
                    findings.append(Finding(
                        check=PFC, severity=Severity.ERROR,
                        subject=f"{host}:{interface['name']}<->{interface['peer_device']}:{interface['peer_interface']}",
                        expected=sorted(enabled), actual=sorted(peer_enabled),
                        message=f"PFC priorities differ between the ends of the link: {sorted(enabled)} on {host}, "
                        f"{sorted(peer_enabled)} on {interface['peer_device']}: the sender ignores the pauses"))
    ctx.record_examined(PFC, {"ports": ports, "devices": len(devices)})
    return findings


def _buffer_bytes(ctx, host: str) -> float | None:
    inventory = ctx.inventory
    if inventory is None:
        return None
    switch = inventory.switches_by_name.get(host)
    model = inventory.models_by_name.get(switch.model) if switch else None
    return model.buffer_mb * 1_000_000 if model and model.buffer_mb else None  # datasheet MB are decimal


def check_ecn(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    classes = _classes(ctx)
    queues = sorted({str(c["traffic_class"]) for c in classes if c["ecn"]})
    # A lossless class must mark ECN before PFC fires: without marking, DCQCN gets no congestion signal and PFC is
    # the only brake (pause storms, head-of-line blocking; the AI cluster design guide's RoCE rules, DCQCN paper
    # SIGCOMM 2015 section 3). Issue #30 point 8: such a class passed although this check says it is flagged.
    for roce in classes:
        if roce.get("lossless") and not roce["ecn"]:
            findings.append(Finding(
                check=ECN, severity=Severity.ERROR, subject=f"class {roce['name']}", expected="ECN thresholds",
                actual=None, message=f"lossless class {roce['name']} (TC {roce['traffic_class']}) marks no ECN: "
                "DCQCN gets no congestion signal and PFC becomes the only brake; set ecn_min_kb/ecn_max_kb"))
    ctx.record_examined(ECN, {"classes with ECN": len(queues),
                              "lossless classes": sum(1 for roce in classes if roce.get("lossless"))})
    if not queues:
        return findings
    judged_ports = 0
    # Ports with identical thresholds usually share one dict: judge each distinct dict once.
    judged: dict[int, tuple] = {}
    ports_by_setting: dict[tuple[str, tuple], list[tuple[str, dict]]] = defaultdict(list)
    for host, config in _qos_devices(ctx):
        buffer = _buffer_bytes(ctx, host)
        role = config.get("role") or ""
        for interface in config["interfaces"]:
            if interface["kind"] not in QOS_KINDS or not interface["enabled"]:
                continue
            judged_ports += 1
            ecn = (interface.get("qos") or {}).get("ecn") or {}
            verdict = judged.get(id(ecn))
            if verdict is None:
                verdict = judged[id(ecn)] = _judge_ecn(ecn, queues)
            keys, problems = verdict
            for queue, problem, low, high in problems:
                if problem == "missing":
                    _port_issue(findings, ECN, host, interface, "ECN thresholds", None,
                                f"no ECN marking on queue {queue} of {host}:{interface['name']}: DCQCN gets no "
                                "congestion signal there and PFC becomes the only brake")
                else:
                    _port_issue(findings, ECN, host, interface, "0 < min <= max", [low, high],
                                f"ECN on queue {queue} of {host}:{interface['name']}: min {low} must be positive and "
                                f"not above max {high}")
            if buffer:
                for queue, key in zip(queues, keys, strict=True):
                    if key is not None and key[1] > buffer:
                        _port_issue(findings, ECN, host, interface, f"<= {int(buffer)}", key[1],
                                    f"ECN max threshold {key[1]} bytes on queue {queue} of {host}:{interface['name']} "
                                    f"exceeds the switch buffer {int(buffer)} bytes: marking never starts")
            ports_by_setting[(role, keys)].append((host, interface))
    ctx.record_examined(ECN, {"classes with ECN": len(queues), "ports": judged_ports})
    per_tier: dict[str, Counter] = defaultdict(Counter)
    for (role, keys), ports in ports_by_setting.items():
        per_tier[role][keys] += len(ports)
    for (role, keys), ports in ports_by_setting.items():
        usual = per_tier[role].most_common(1)[0][0]
        if keys == usual:
            continue
        for host, interface in ports:
            for queue, key, expected in zip(queues, keys, usual, strict=True):
                if key != expected and key is not None and expected is not None:
                    _port_issue(findings, ECN, host, interface, list(expected), list(key),
                                f"ECN on queue {queue} of {host}:{interface['name']} is min/max/probability "
                                f"{list(key)}, every other {role} port has {list(expected)}")
    return findings


def _judge_ecn(ecn: dict, queues: list[str]) -> tuple[tuple, list]:
    keys: list[tuple | None] = []
    problems: list[tuple] = []
    for queue in queues:
        thresholds = ecn.get(queue)
        if not thresholds:
            keys.append(None)
            problems.append((queue, "missing", None, None))
            continue
        low, high = thresholds.get("min_bytes") or 0, thresholds.get("max_bytes") or 0
        # min == max is step marking (every packet above it is marked), which the platforms accept: SONiC's
        # sonic-wred-profile.yang only requires max >= min, Linux's red_check_params (include/net/red.h) refuses
        # only qth_max < qth_min, and compiler.validate allows it for every platform (with probability 100).
        if not 0 < low <= high:
            problems.append((queue, "order", low, high))
        keys.append((low, high, thresholds.get("probability")))
    return tuple(keys), problems


def check_cnp(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    wanted = next(((c["cnp_dscp"], c["cnp_priority"]) for c in _classes(ctx) if c.get("cnp_dscp") is not None), None)
    ctx.record_examined(CNP, {"CNP classes": int(wanted is not None),
                              "devices": sum(1 for _device in _qos_devices(ctx)) if wanted else 0})
    if wanted is None:
        return findings
    dscp, priority = wanted
    for host, config in _qos_devices(ctx):
        qos = config.get("qos") or {}
        cnp = qos.get("cnp") or {}
        tc = (qos.get("dscp_to_tc") or {}).get(str(dscp))
        if not cnp or cnp.get("dscp") != dscp:
            findings.append(Finding(
                check=CNP, severity=Severity.ERROR, subject=host, expected=dscp, actual=cnp.get("dscp"),
                message=f"{host} has no CNP class for DSCP {dscp}"))
        elif tc is None or tc == 0:
            findings.append(Finding(
                check=CNP, severity=Severity.ERROR, subject=host, expected=cnp.get("traffic_class"), actual=tc,
                message=f"CNP DSCP {dscp} falls into best-effort TC 0 on {host}: congestion notifications "
                "queue behind the traffic they should slow down"))
        elif tc != cnp.get("traffic_class") or (qos.get("tc_to_priority") or {}).get(str(tc)) != priority:
            findings.append(Finding(
                check=CNP, severity=Severity.ERROR, subject=host, expected=[cnp.get("traffic_class"), priority],
                actual=[tc, (qos.get("tc_to_priority") or {}).get(str(tc))],
                message=f"CNP DSCP {dscp} maps to TC {tc} on {host}, the CNP class says TC "
                f"{cnp.get('traffic_class')} / priority {priority}"))
    return findings


def check_watchdog(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    classes = _classes(ctx)
    watched = any(c["lossless"] and c["watchdog"] for c in classes)
    devices = list(_qos_devices(ctx)) if watched else []
    pfc_ports = 0
    for host, config in devices:
        if RoceFeature.PFC_WATCHDOG not in roce_capabilities(config.get("platform"), asic_family_of(ctx, host, config)):
            continue  # a platform without a watchdog: roce.platform names the gap
        watchdog = (config.get("qos") or {}).get("pfc_watchdog") or {}
        if not watchdog.get("enabled") or not (watchdog.get("detect_ms") or 0) > 0:
            findings.append(Finding(
                check=WATCHDOG, severity=Severity.ERROR, subject=host, expected={"enabled": True, "detect_ms": "> 0"},
                actual=watchdog, message=f"PFC watchdog is not active on {host}: a PFC storm or deadlock there "
                "stops lossless traffic indefinitely"))
        for interface in config["interfaces"]:
            qos = interface.get("qos") or {}
            if interface["kind"] in QOS_KINDS and interface["enabled"] and qos.get("pfc_priorities"):
                pfc_ports += 1
                if not qos.get("pfc_watchdog"):
                    _port_issue(findings, WATCHDOG, host, interface, True, qos.get("pfc_watchdog"),
                                f"PFC watchdog is off on {host}:{interface['name']} while PFC is on")
    ctx.record_examined(WATCHDOG, {"devices": len(devices), "ports with PFC": pfc_ports})
    return findings


def check_trust(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    devices = list(_qos_devices(ctx))
    ports = 0
    for host, config in devices:
        trust = (config.get("qos") or {}).get("trust")
        if trust != "dscp":
            findings.append(Finding(
                check=TRUST, severity=Severity.ERROR, subject=host, expected="dscp", actual=trust,
                message=f"{host} trusts {trust}: RoCEv2 is marked by DSCP, other markings are lost at L3"))
        for interface in config["interfaces"]:
            if interface["kind"] in QOS_KINDS and interface["enabled"]:
                ports += 1
                port_trust = (interface.get("qos") or {}).get("trust")
                if port_trust != "dscp":
                    _port_issue(findings, TRUST, host, interface, "dscp", port_trust,
                                f"{host}:{interface['name']} trusts {port_trust}, not DSCP: RoCE traffic entering "
                                "there is classified best effort")
    ctx.record_examined(TRUST, {"devices": len(devices), "ports": ports})
    return findings


def check_isolation(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    devices = [(host, config) for host, config in _qos_devices(ctx)
               if any(entry.get("lossless") for entry in (config.get("qos") or {}).get("classes") or [])]
    ctx.record_examined(ISOLATION, {"devices with a lossless class": len(devices)})
    for host, config in devices:
        qos = config.get("qos") or {}
        classes = qos.get("classes") or []
        lossless_tcs = {str(entry["traffic_class"]): entry["name"] for entry in classes if entry.get("lossless")}
        if not lossless_tcs:
            continue
        names = {str(entry["traffic_class"]): f"class {entry['name']}" for entry in classes}
        cnp = qos.get("cnp") or {}
        if cnp:
            names.setdefault(str(cnp.get("traffic_class")), "the CNP class")
        names.setdefault("0", "best effort")
        tc_to_priority = qos.get("tc_to_priority") or {}
        tc_to_queue = qos.get("tc_to_queue") or {}
        lossless_priorities = {tc_to_priority.get(tc): tc for tc in lossless_tcs}
        lossless_queues = {tc_to_queue.get(tc): tc for tc in lossless_tcs}
        for tc in sorted(set(tc_to_priority) | set(tc_to_queue), key=int):
            if tc in lossless_tcs:
                continue
            lossy = f"lossy TC {tc} ({names.get(tc, 'unnamed')})"
            priority, queue = tc_to_priority.get(tc), tc_to_queue.get(tc)
            if priority in lossless_priorities:
                owner = lossless_priorities[priority]
                findings.append(Finding(
                    check=ISOLATION, severity=Severity.ERROR, subject=host,
                    expected=f"a priority other than {priority}", actual=priority,
                    message=f"{lossy} on {host} sends on priority {priority}, the PFC priority of lossless TC {owner} "
                    f"(class {lossless_tcs[owner]}): it is paused with RoCE and shares its headroom"))
            if queue is not None and queue in lossless_queues:
                owner = lossless_queues[queue]
                findings.append(Finding(
                    check=ISOLATION, severity=Severity.ERROR, subject=host, expected=f"a queue other than {queue}",
                    actual=queue, message=f"{lossy} on {host} uses egress queue {queue} of lossless TC {owner} (class "
                    f"{lossless_tcs[owner]}): RoCE shares a queue with lossy traffic"))
    return findings


def _required_features(classes: list[dict]) -> dict[str, list[str]]:
    """RoCE feature -> the classes that need it."""
    needed: dict[str, list[str]] = defaultdict(list)
    for roce in classes:
        needed[RoceFeature.DSCP_TRUST].append(roce["name"])
        if roce["lossless"]:
            needed[RoceFeature.PFC_PRIORITY].append(roce["name"])
            needed[RoceFeature.HEADROOM].append(roce["name"])
            if roce["watchdog"]:
                needed[RoceFeature.PFC_WATCHDOG].append(roce["name"])
        if roce["ecn"]:
            needed[RoceFeature.ECN].append(roce["name"])
        if roce.get("cnp_dscp") is not None:
            needed[RoceFeature.CNP_STRICT_PRIORITY].append(roce["name"])
    return needed


def check_platform(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    findings: list[Finding] = []
    needed = _required_features(_classes(ctx))
    devices = list(_qos_devices(ctx))
    ctx.record_examined(PLATFORM, {"devices": len(devices), "RoCE features needed": len(needed)})
    unknown: list[str] = []
    for host, config in devices:
        platform = config.get("platform")
        hardware = config.get("hardware") or {}
        family = asic_family_of(ctx, host, config)
        implemented = roce_capabilities(platform, family)
        if family is None and platform != Platform.FRR:
            # No model or HWSKU the catalogue maps to an ASIC family (a virtual switch, a SKU it does not list):
            # what the chip implements is unknown, so it is not judged ("platform unknown"), never a missing feature.
            unknown.append(f"{host} (model {hardware.get('model')})")
            continue
        # FRR/Linux states every setting in its plan; what the kernel cannot offload is a known limit of the
        # platform (compiler.hardware.ROCE_CAPABILITIES), not a wrong config.
        severity = Severity.WARNING if platform == Platform.FRR else Severity.ERROR
        for feature in RoceFeature.ALL:
            if feature in needed and feature not in implemented:
                findings.append(Finding(
                    check=PLATFORM, severity=severity, subject=host, expected=feature,
                    actual=f"{platform} on {family}",
                    message=f"{host} ({platform}, model {hardware.get('model')}, ASIC family {family}) lacks "
                    f"{feature}, needed by class(es) {sorted(set(needed[feature]))}: "
                    f"{roce_gap(platform, family, feature)} (compiler.hardware.ROCE_CAPABILITIES)"))
    if unknown:
        findings.append(Finding(
            check=PLATFORM, severity=Severity.INFO, subject="platform unknown", expected="a known ASIC family",
            actual=None, message=f"RoCE support of {len(unknown)} device(s) not judged: no model the catalogue maps "
            f"to an ASIC family ({', '.join(unknown[:5])}{' and more' if len(unknown) > 5 else ''})"))
        ctx.record_examined(PLATFORM, {"devices": len(devices) - len(unknown), "platform unknown": len(unknown),
                                       "RoCE features needed": len(needed)})
    return findings


CHECKS = {CHAIN: check_chain, PFC: check_pfc, ECN: check_ecn, CNP: check_cnp, WATCHDOG: check_watchdog,
          TRUST: check_trust, ISOLATION: check_isolation, PLATFORM: check_platform}
