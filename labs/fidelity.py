"""Fidelity: does the live twin measure what the static validators predict for the same compile?

Three steps, each usable alone:

    prediction = predict(compile_result)            # pure: validators.prediction, the configs' model (no twin)
    observation = observe(state, prediction)        # the running twin (root + FRR): same items, measured
    result = compare(prediction, observation)       # pure: one Finding per disagreement; the goal is zero

The prediction lives in ``validators.prediction`` and every measurement in ``labs.measure`` (the same ones
the live checks use); this module picks what to measure and compares.

What is compared (every item is keyed in the twin's names: switch hostnames, Linux interface names):

- ``bgp_sessions``  per device and address family: sessions the static pairing (validators.sessions) says
  establish vs sessions the twin's FRR reports Established.
- ``evpn_flood``    per leaf and L2VNI: the remote VTEPs that map the same VNI (they originate the EVPN type-3
  routes, RFC 8365 section 5.1.3) vs the twin's head-end replication list (all-zero-MAC FDB entries).
- ``ecmp``          per ordered VTEP pair: the static leaf-pair matrix width (validators.ecmp) vs kernel next
  hops toward the other leaf's VTEP /32.
- ``reachability``  per cell of the static host matrix (validators.overlay.host_reachability, network x network)
  vs the twin's pings between the host ports it models: a cell is reachable in the twin when every pinged pair
  replied. Cells the twin could not measure (cross-tenant pairs without kernel VRF devices, routed pairs that
  need the L3VNI) are "static only" and never count as agreement.
- ``link_mtu``      per fabric link: the largest IP packet both ends pass (min of the two configured MTUs) vs
  the largest DF ping the twin gets across in both directions.
- ``host_mtu``      per host pair of one network on different leaves: the largest inner IP packet that fits every
  ECMP path (NIC, leaf ports, VXLAN device, underlay hop - 50 bytes of VXLAN over IPv4, RFC 7348 section 5)
  vs the largest DF packet that passes both ways on every one of many UDP flows, each looked up afresh in the
  leaves' routing tables so the flows spread over every spine (``labs.flowprobe`` says why ping cannot).
- ``n_minus_1``     per what-if scenario (validators.whatif: one spine or one link down): minimum ECMP width
  and unreachable VTEP pairs, predicted vs measured after the same failure is injected in the twin.

Each item also says whether the prediction itself is a *failure* against the intent (a session that will not
establish, a link smaller than the intended MTU, a network that is split, ...). When twin and validators agree
on a failure the report says so explicitly (an info finding), so a misconfiguration caught by both is visible
as agreement, not as silence. This module never imports Django.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from compiler.errors import TwinError
from validators.findings import Finding, Report, Severity
from validators.prediction import Prediction, link_key, port_key, predict

from . import expect, measure
from .checks.l3vni import relearn_findings
from .expect import NO_TENANT_VRFS
from .flowprobe import MIN_PROBE_PACKET, largest_passing
from .shell import parallel

# Prediction, predict, link_key and port_key live in validators.prediction; re-exported for the callers of
# labs.fidelity (twins.services, tests).
__all__ = ["ASPECTS", "AspectCount", "FidelityResult", "Observation", "Prediction", "compare", "inject_scenario",
           "link_key", "observe", "port_key", "predict"]

ASPECTS = ("bgp_sessions", "evpn_flood", "ecmp", "reachability", "link_mtu", "host_mtu", "n_minus_1")
# What one compared item of each aspect is (the UI and the reports say what a count counts).
ASPECT_ITEMS = {
    "bgp_sessions": "established BGP sessions per device and address family",
    "evpn_flood": "EVPN flood list per leaf and L2VNI",
    "ecmp": "ECMP width per ordered VTEP pair",
    "reachability": "host matrix cells network -> network: every measured port pair replied",
    "link_mtu": "largest IP packet passing each fabric link, both ways",
    "host_mtu": "largest inner IP packet between hosts of one network on different leaves, on every ECMP path",
    "n_minus_1": "minimum ECMP and unreachable VTEP pairs after the same single failure",
}
# Big fabrics: the twin samples (the static matrix covers every pair). Per host-matrix cell at most this many
# pinged port pairs, cross-leaf first; per network at most this many host pairs for the path-MTU search.
PINGS_PER_CELL = 8
HOST_MTU_PAIRS_PER_NETWORK = 6


# --------------------------------------------------------------------------------------------- observation


@dataclass
class Observation:
    """What the twin measured, keyed like :class:`Prediction`. ``None`` values: not measurable here."""

    sessions: dict[str, dict[str, int]] = field(default_factory=dict)
    flood: dict[str, list[str]] = field(default_factory=dict)  # "leaf:vni" -> VTEPs in the VXLAN device's list
    ecmp: dict[str, int] = field(default_factory=dict)
    pings: dict[str, bool | None] = field(default_factory=dict)  # "srv:nic->srv:nic" -> replied (None: static only)
    ping_networks: dict[str, list[str]] = field(default_factory=dict)  # pair -> [network a, network b]
    static_only_reasons: dict[str, str] = field(default_factory=dict)
    link_mtu: dict[str, int | None] = field(default_factory=dict)
    host_mtu: dict[str, int | None] = field(default_factory=dict)
    host_mtu_flows: dict[str, int] = field(default_factory=dict)  # pair -> UDP flows each size was probed with
    scenarios: list[dict] = field(default_factory=list)  # kind, subject, min_ecmp, unreachable_pairs, timings
    notes: list[str] = field(default_factory=list)  # what went wrong while measuring (never hidden)
    seconds: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def observe(state, prediction: Prediction, *, n_minus_1: str = "sample", settle_s: float = 2.0) -> Observation:
    """Measure every fidelity item on a running twin (``labs.runtime.TwinState``).

    ``n_minus_1``: "sample" injects the first spine and the first link scenario of the static what-if,
    "all" every scenario, "none" skips failure injection. The prediction only says *which* items exist; each
    value is measured independently (MTUs by probing the exact boundary and, when it is not where predicted,
    by a binary search for the real one)."""
    observation = Observation()
    topology = state.topology_obj()

    started = time.monotonic()
    observation.sessions = measure.stable(lambda: measure.bgp_session_counts(state), settle_s=1.0, timeout_s=30.0)
    observation.seconds["bgp_sessions"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    observation.flood = measure.stable(lambda: _observe_flood(state), settle_s=1.0, timeout_s=30.0)
    observation.seconds["evpn_flood"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    vteps = expect.vteps(topology)  # the twin's own (from its Linux plans), not the prediction's
    observation.ecmp = measure.stable(lambda: _observe_ecmp(state, vteps), settle_s=1.0, timeout_s=30.0)
    observation.seconds["ecmp"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    ports = expect.host_ports(topology)
    svis = expect.svi_networks(topology)
    vrf_devices = state.tenant_vrfs_built
    measure.warm_up(state, ports)
    pairs = [(a, b) for a, b in itertools.permutations(ports, 2) if a.host != b.host]
    to_ping = []
    per_cell: dict[tuple[str, str], int] = defaultdict(int)
    pairs.sort(key=lambda pair: (pair[0].leaf == pair[1].leaf, pair[0].host, pair[1].host))  # cross-leaf first
    for a, b in pairs:
        cell = (a.network, b.network)
        if per_cell[cell] >= PINGS_PER_CELL:
            continue
        per_cell[cell] += 1
        key = f"{port_key(a.host, a.ifname)}->{port_key(b.host, b.ifname)}"
        observation.ping_networks[key] = [a.network, b.network]
        if measure.classify_ping(a, b, vrf_devices=vrf_devices, svis=svis) == "static_only":
            observation.pings[key] = None
            observation.static_only_reasons[key] = (
                f"different tenants: {NO_TENANT_VRFS}, it cannot measure isolation"
                if a.tenant != b.tenant else "needs the L3VNI (no SVI of the destination network on the source "
                                             f"leaf) and {NO_TENANT_VRFS}")
        else:
            to_ping.append((key, a, b))
    results = parallel(lambda item: measure.ping(state, item[1].host, item[2].address, count=3, interval=0.2),
                       to_ping)
    for (key, _a, _b), result in zip(to_ping, results, strict=True):
        observation.pings[key] = result.any_reply
    observation.seconds["reachability"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    _observe_link_mtu(state, prediction, observation)
    observation.seconds["link_mtu"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    _observe_host_mtu(state, prediction, observation, ports)
    observation.seconds["host_mtu"] = round(time.monotonic() - started, 2)

    started = time.monotonic()
    for scenario in _selected_scenarios(prediction.scenarios, n_minus_1):
        observation.scenarios.append(inject_scenario(state, scenario, notes=observation.notes, settle_s=settle_s))
    observation.seconds["n_minus_1"] = round(time.monotonic() - started, 2)
    return observation


def _selected_scenarios(scenarios: list[dict], mode: str) -> list[dict]:
    if mode == "none":
        return []
    if mode == "all":
        return list(scenarios)
    if mode != "sample":
        raise TwinError(f"n_minus_1={mode!r}: use sample, all or none")
    picked = []
    for kind in ("spine", "link"):
        of_kind = sorted((s for s in scenarios if s["kind"] == kind), key=lambda s: s["subject"])
        picked += of_kind[:1]
    return picked


def _observe_flood(state) -> dict[str, list[str]]:
    """Per node and VNI the VTEPs in the VXLAN device's head-end replication list (EVPN type 3 -> FDB)."""
    devices = expect.vxlan_vnis(state.topology_obj())
    tables = measure.flood_lists(state, sorted(node for node, vxlans in devices.items() if vxlans))
    return {f"{node}:{vni}": sorted(table.get(device, set()))
            for node, table in tables.items() for device, vni in devices[node].items()}


def _observe_ecmp(state, vteps: dict[str, str]) -> dict[str, int]:
    return {f"{source}->{destination}": width
            for (source, destination), width in measure.ecmp_widths(state, vteps).items()}


def _observe_link_mtu(state, prediction: Prediction, observation: Observation) -> None:
    """Per cable, each direction: the largest DF ping to the peer's address on that link."""
    addresses = measure.port_addresses(state)
    topology = state.topology_obj()
    probes_sent: dict[str, int] = {}
    probes = [(link_key(node, ifname, peer, peer_if), node, ifname, peer, peer_if)
              for node, ifname, peer, peer_if in expect.link_ends(topology)]

    def probe(item):
        key, node, ifname, peer, peer_if = item
        target = measure.link_probe_target(addresses, node, ifname, peer, peer_if)
        if target is None:
            return None
        # Resolve ARP/ND first so the first probe is not lost to it.
        measure.probe_link_mtu(state, node, ifname, target, None)

        def passes(size: int) -> bool:
            probes_sent[key] = probes_sent.get(key, 0) + 1
            return measure.probe_link_mtu(state, node, ifname, target, size, wait_s=0.5).any_reply

        headers = target[1]
        predicted = prediction.link_mtu.get(key) or link_mtu_of(topology, key)
        return largest_passing(passes, predicted,
                               floor=max(headers + 8, 1280 if headers == measure.IPV6_ICMP_HEADERS else 576))


    per_direction: dict[str, list[int | None]] = defaultdict(list)
    for item, value in zip(probes, parallel(probe, probes), strict=True):
        per_direction[item[0]].append(value)
    for key, values in per_direction.items():
        if any(value is None for value in values):
            observation.link_mtu[key] = None
            observation.notes.append(f"{key}: no IPv4 or link-local address to probe the peer")
        else:
            observation.link_mtu[key] = min(value for value in values if value is not None)
    observation.seconds["link_mtu_probes"] = sum(probes_sent.values())


def link_mtu_of(topology, key: str) -> int:
    for link in topology.links:
        if link_key(link.a_node, link.a_ifname, link.b_node, link.b_ifname) == key:
            return link.mtu
    return 9214


def _observe_host_mtu(state, prediction: Prediction, observation: Observation, ports) -> None:
    """Per predicted host pair the twin models: the largest DF ping passing on every one of several flows."""
    by_key = {port_key(port.host, port.ifname): port for port in ports}
    candidates: dict[str, list[str]] = defaultdict(list)  # network -> pairs whose both hosts the twin models
    for pair in sorted(prediction.host_mtu):
        ends = pair.split("->")
        if all(end in by_key for end in ends):
            candidates[by_key[ends[0]].network].append(pair)
    pairs = []
    for network_pairs in candidates.values():
        # Greedy sample: each pick covers as many leaves not yet probed as possible (ties: name order).
        covered: set[str] = set()
        for _ in range(min(HOST_MTU_PAIRS_PER_NETWORK, len(network_pairs))):
            best = max(network_pairs, key=lambda pair: len({by_key[end].leaf for end in pair.split("->")} - covered))
            network_pairs.remove(best)
            covered |= {by_key[end].leaf for end in best.split("->")}
            pairs.append(best)

    widths = expect.expected_ecmp_widths(state.topology_obj())

    def probe(pair: str) -> dict:
        source, destination = (by_key[end] for end in pair.split("->"))
        return measure.probe_host_mtu(state, source, destination, paths=widths.get((source.leaf, destination.leaf), 1),
                                      search={"predicted": prediction.host_mtu[pair], "floor": MIN_PROBE_PACKET,
                                              "ceiling": max(source.mtu, destination.mtu)})

    for pair, result in zip(pairs, parallel(probe, pairs), strict=True):
        observation.host_mtu[pair] = result["largest"]
        observation.host_mtu_flows[pair] = result["flows"]


def inject_scenario(state, scenario: dict, *, notes: list[str] | None = None, settle_s: float = 2.0) -> dict:
    """A what-if scenario on the twin (``labs.measure.inject``): cut its links (``targets``: [node, Linux
    ifname] pairs), wait until the kernels settle, measure min ECMP and unreachable VTEP pairs, restore, and wait
    until the ECMP matrix is back to what it was. What went wrong on the way is appended to ``notes``."""
    notes = notes if notes is not None else []
    injection = measure.inject(state, scenario["targets"], settle_s=settle_s)
    converged_s, restored_s = injection.converged[0], injection.restored[0]
    relearn = injection.relearn
    assert relearn is not None  # inject always re-learns before it returns
    if restored_s is None:
        notes.append(f"{scenario['kind']} {scenario['subject']}: ECMP not restored within 90 s after "
                     "the links came back; later measurements may be affected")
    # FRR 8.4 may have lost L3VNI router MACs on the way (labs.measure.relearn_l3vni_next_hops): said, and
    # repaired so that what is measured next is the fabric, not the leftover.
    notes.extend(f"{scenario['kind']} {scenario['subject']}: {finding.message}"
                 for finding in relearn_findings(relearn))
    resynced = relearn.as_measured()
    during = injection.widths or {}
    widths = list(during.values())
    return {"kind": scenario["kind"], "subject": scenario["subject"],
            "min_ecmp": min(widths, default=0), "unreachable_pairs": sum(1 for width in widths if width == 0),
            "settled_within_s": converged_s, "restored_s": restored_s, "widths": during,
            **({"l3vni_next_hops_resynced": resynced} if resynced else {})}


# --------------------------------------------------------------------------------------------- comparison


@dataclass
class AspectCount:
    items: int = 0
    agree: int = 0
    disagree: int = 0
    static_only: int = 0  # the twin cannot measure it on this machine (said, never counted as agreement)
    agreed_failures: int = 0
    not_sampled: int = 0  # predicted items the twin did not model or sample (big fabrics keep a few hosts per leaf)


@dataclass
class FidelityResult:
    report: Report
    counts: dict[str, AspectCount]

    @property
    def disagreements(self) -> int:
        return sum(count.disagree for count in self.counts.values())

    @property
    def agreed_failures(self) -> int:
        return sum(count.agreed_failures for count in self.counts.values())

    def as_dict(self) -> dict:
        return {"disagreements": self.disagreements, "agreed_failures": self.agreed_failures,
                "compared": {aspect: asdict(count) for aspect, count in self.counts.items()},
                "report": self.report.as_dict()}


class _Aspect:
    """Collects one aspect's findings and counts; ``finish`` records them in the report."""

    def __init__(self, name: str, what: str) -> None:
        self.check = f"fidelity.{name}"
        self.what = what
        self.count = AspectCount()
        self.findings: list[Finding] = []

    def item(self, subject: str, predicted, measured, *, failure: bool, describe: str) -> None:
        self.count.items += 1
        if measured is None:
            self.count.static_only += 1
            return
        if predicted == measured:
            self.count.agree += 1
            if failure:
                self.count.agreed_failures += 1
                self.findings.append(Finding(
                    check=self.check, severity=Severity.INFO, subject=subject, expected=predicted, actual=measured,
                    message=f"validators and twin agree on a fault: {describe}: both say {predicted}"))
            return
        self.count.disagree += 1
        self.findings.append(Finding(
            check=self.check, severity=Severity.ERROR, subject=subject, expected=predicted, actual=measured,
            message=f"validators predict {predicted}, the twin measured {measured}: {describe}"))

    def finish(self, report: Report) -> None:
        count = self.count
        if count.items == 0:
            report.skip(self.check, f"nothing to compare ({self.what})")
            return
        summary = Finding(
            check=self.check, severity=Severity.INFO, subject="fabric", expected=None, actual=asdict(count),
            message=f"compared {count.items} items ({self.what}): {count.agree} agree "
            f"({count.agreed_failures} of them on a fault), {count.disagree} disagree, "
            f"{count.static_only} static only"
            f"{f', {count.not_sampled} not sampled by the twin' if count.not_sampled else ''}")
        report.add(self.check, [summary, *self.findings])


def compare(prediction: Prediction, observation: Observation, title: str = "fidelity") -> FidelityResult:
    """Pure: one Finding per disagreement (error), one per agreed fault (info), a count line per aspect."""
    report = Report(title)
    aspects: dict[str, _Aspect] = {}
    # Each aspect's loop reuses these names for its own kind of value (widths, VTEP lists, MTUs, scenarios).
    predicted: Any
    measured: Any
    intended: Any

    sessions = aspects["bgp_sessions"] = _Aspect("bgp_sessions", ASPECT_ITEMS["bgp_sessions"])
    for device in sorted(set(prediction.sessions) | set(observation.sessions)):
        predicted_afis = prediction.sessions.get(device, {})
        measured_afis = observation.sessions.get(device)
        for afi in sorted(set(predicted_afis) | set(measured_afis or {})):
            predicted = predicted_afis.get(afi, 0)
            measured = None if measured_afis is None else measured_afis.get(afi, 0)
            intended = prediction.sessions_intended.get(device, predicted)
            sessions.item(f"{device} {afi}", predicted, measured, failure=predicted < intended,
                          describe=f"{device} Established {afi} sessions ({intended} fabric links)")

    flood = aspects["evpn_flood"] = _Aspect("evpn_flood", ASPECT_ITEMS["evpn_flood"])
    for key in sorted(set(prediction.flood) | set(observation.flood)):
        predicted = prediction.flood.get(key)
        configured = prediction.flood_configured.get(key, predicted)
        # A VXLAN device the twin does not have floods to nobody: [] (only an unmeasured twin gives None).
        measured = observation.flood.get(key, []) if observation.flood else None
        flood.item(key, predicted, measured, failure=predicted is not None and
                   predicted != configured, describe=f"remote VTEPs flooded for VNI {key.split(':')[-1]} on "
                                                    f"{key.split(':')[0]} (configured {configured})")

    ecmp = aspects["ecmp"] = _Aspect("ecmp", ASPECT_ITEMS["ecmp"])
    for pair in sorted(set(prediction.ecmp) | set(observation.ecmp)):
        predicted = prediction.ecmp.get(pair, 0)
        measured = observation.ecmp.get(pair)
        designed = prediction.ecmp_designed.get(pair, predicted)
        ecmp.item(pair, predicted, measured, failure=predicted < designed,
                  describe=f"next hops at {pair.split('->')[0]} toward {pair.split('->')[1]}'s VTEP "
                           f"(designed {designed})")

    _compare_reachability(prediction, observation, aspects)

    link_mtu = aspects["link_mtu"] = _Aspect("link_mtu", ASPECT_ITEMS["link_mtu"])
    for key in sorted(set(prediction.link_mtu) | set(observation.link_mtu)):
        predicted = prediction.link_mtu.get(key)
        intended = prediction.link_mtu_intended.get(key, predicted)
        link_mtu.item(key, predicted, observation.link_mtu.get(key) if key in observation.link_mtu else None,
                      failure=predicted is not None and intended is not None and predicted < intended,
                      describe=f"largest packet across {key} (intended {intended})")

    host_mtu = aspects["host_mtu"] = _Aspect("host_mtu", ASPECT_ITEMS["host_mtu"])
    for pair in sorted(prediction.host_mtu):
        if pair not in observation.host_mtu:
            host_mtu.count.not_sampled += 1
            continue
        predicted = prediction.host_mtu[pair]
        intended = prediction.host_mtu_intended.get(pair, predicted)
        flows = observation.host_mtu_flows.get(pair)
        host_mtu.item(pair, predicted, observation.host_mtu.get(pair), failure=predicted < intended,
                      describe=f"{pair} end to end (host MTU {intended}"
                               f"{f', {flows} UDP flows per size' if flows else ''})")

    n_minus_1 = aspects["n_minus_1"] = _Aspect("n_minus_1", ASPECT_ITEMS["n_minus_1"])
    predicted_by_subject = {(s["kind"], s["subject"]): s for s in prediction.scenarios}
    for measured in observation.scenarios:
        predicted = predicted_by_subject.get((measured["kind"], measured["subject"]))
        if predicted is None:
            continue
        subject = f"{measured['kind']} {measured['subject']}"
        for metric in ("min_ecmp", "unreachable_pairs"):
            failure = (metric == "unreachable_pairs" and predicted[metric] > prediction.baseline.get(metric, 0)) or \
                (metric == "min_ecmp" and predicted[metric] == 0)
            n_minus_1.item(f"{subject} {metric}", predicted[metric], measured[metric], failure=failure,
                           describe=f"{metric.replace('_', ' ')} with {subject} down")

    for aspect in aspects.values():
        aspect.finish(report)
    if observation.notes:
        report.add("fidelity.measurement", [Finding(
            check="fidelity.measurement", severity=Severity.WARNING, subject="twin", expected=None, actual=note,
            message=note)
                                            for note in observation.notes])
    return FidelityResult(report, {name: aspect.count for name, aspect in aspects.items()})


def _compare_reachability(prediction: Prediction, observation: Observation, aspects: dict) -> None:
    """Static matrix cells (network -> network) vs the twin's pings of the ports it models in those networks."""
    aspect = aspects["reachability"] = _Aspect("reachability", ASPECT_ITEMS["reachability"])
    cells: dict[str, dict[str, list]] = defaultdict(lambda: {"replied": [], "silent": [], "static_only": []})
    for pair, replied in observation.pings.items():
        source, destination = pair.split("->")
        # a port the prediction does not know prints as "None" in the cell name
        networks: list[str | None] = list(observation.ping_networks.get(pair) or ()) or [
            prediction.port_networks.get(source), prediction.port_networks.get(destination)]
        cell = f"{networks[0]}->{networks[1]}"
        bucket = "static_only" if replied is None else ("replied" if replied else "silent")
        cells[cell][bucket].append(pair)
    for cell in sorted(prediction.reachability):
        predicted = prediction.reachability[cell]
        reason = prediction.reachability_reasons.get(cell, "")
        source_net, destination_net = cell.split("->")
        measured_pairs = cells.get(cell)
        if measured_pairs is None:
            aspect.count.not_sampled += 1  # no host of these networks in the twin
            continue
        if not (measured_pairs["replied"] or measured_pairs["silent"]):
            aspect.item(cell, predicted, None, failure=False, describe=reason)
            continue
        measured = not measured_pairs["silent"]
        same_tenant = prediction.network_tenants.get(source_net) == prediction.network_tenants.get(destination_net)
        detail = (f"{len(measured_pairs['replied'])} pairs replied, {len(measured_pairs['silent'])} silent"
                  f"{' (e.g. ' + ', '.join(measured_pairs['silent'][:3]) + ')' if measured_pairs['silent'] else ''}"
                  f"; static: {reason}")
        aspect.item(cell, predicted, measured, failure=same_tenant and not predicted, describe=detail)
