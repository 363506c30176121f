"""One shard of a sharded twin, run on the twin host that owns it (issue 35): cut, boot, verify.

The planner (``labs.shards``) assigns every switch to a host and ``labs.stitch`` turns the cables between hosts
into VXLAN links. This module is what ONE host does with that: ``shard_topology`` keeps its own switches, the
servers cabled only to them and every cable with at least one end here (a cable to another host's switch is
stitched: only this host's end is created, ``topology.extra["shard"]``); ``labs.runtime.up`` boots it like any
twin; ``shard_verify`` checks it against the WHOLE fabric's expectations (``labs.expect`` on the full topology),
so a session or an ECMP path through another host is expected and measured here.

Each shard has its own twin prefix (``shard_prefix``: the twin's prefix and the shard's index), so K shards can
run on one machine (emulated hosts) without sharing a state file, a lock or a ``down(force=True)`` scope.
Pure Python (no Django): ``twins.shards`` records what these return.
"""

from __future__ import annotations

import dataclasses
import time

from compiler.errors import FieldError, InputError
from validators.findings import Finding, Report, Severity

from . import expect, measure
from .checks.bgp import missing_session_findings
from .checks.config import check_config_load
from .checks.ecmp import width_findings
from .checks.ping import check_ping_matrix
from .runtime import TwinState
from .runtime.sizing import CONVERGE_BASE_S, recorded_policy
from .shell import parallel
from .stitch import StitchPlan
from .topology import NAME_PREFIX, TwinLink, TwinTopology

STITCH_CHECK = "twin.stitched_cables"
ECMP_SETTLE_S = 15.0  # as labs.checks.ecmp.check_ecmp_width: paths reach the kernel after the sessions


def shard_prefix(prefix: str, index: int) -> str:
    """The twin prefix of shard ``index`` (0-based) of the twin ``prefix``: ``<prefix>s<index>``, within the
    16-character twin prefix grammar (compiler.names.TWIN_PREFIX_RE)."""
    candidate = f"{prefix}s{index}"
    if not NAME_PREFIX.fullmatch(candidate):
        raise InputError([FieldError("prefix", prefix, f"shard prefix {candidate!r} is not a twin prefix (3-16 "
                                                       "lowercase letters/digits): use a shorter twin prefix")])
    return candidate


def shard_topology(topology: TwinTopology, plan: StitchPlan, host: str, *, prefix: str) -> TwinTopology:
    """The part of ``topology`` that runs on ``host`` under ``prefix``. InputError for an unknown host or a
    server cabled to switches on two hosts (it cannot live in two machines)."""
    if host not in plan.hosts:
        raise InputError([FieldError("host", host, f"not a host of the stitch plan (hosts: {sorted(plan.hosts)})")])
    local = {node for node, owner in plan.assignment.items() if owner == host}
    errors = []
    servers = []
    for server in topology.hosts:
        peers = {interface.peer_node for interface in server.interfaces}
        if peers <= local:
            servers.append(server)
        elif peers & local:
            errors.append(FieldError(f"hosts[{server.name}]", sorted(peers), "server cabled to switches on two twin "
                                                                             "hosts: put its leaves on one host"))
    if errors:
        raise InputError(errors)
    links: list[TwinLink] = []
    new_index: dict[int, int] = {}
    for index, link in enumerate(topology.links):
        if link.a_node in local or link.b_node in local:
            new_index[index] = len(links)
            links.append(link)
    stitched = tuple(dataclasses.replace(link, index=new_index[link.index])
                     for link in plan.links if host in (link.a_host, link.b_host))
    remote = sorted({node for link in stitched for node in (link.a_node, link.b_node) if node not in local})
    shard_plan = StitchPlan(port=plan.port, links=stitched, hosts=plan.hosts, assignment=plan.assignment)
    return TwinTopology(
        name_prefix=prefix, nodes=tuple(node for node in topology.nodes if node.name in local), links=tuple(links),
        hosts=tuple(servers), label=f"{topology.label} shard {host}".strip(),
        extra={**topology.extra, "stitch": shard_plan.as_dict(),
               "shard": {"host": host, "twin_prefix": topology.name_prefix, "switches": sorted(local),
                         "remote_switches": remote}})


def check_stitched_ends(state: TwinState, report: Report) -> list[str]:
    """``twin.stitched_cables``: this shard's end of every stitched cable exists, is a VXLAN device and is up.
    Deleting a host's underlay interface deletes the VXLAN devices bound to it (labs.stitch, measured), so a
    missing end means this host left the underlay. Returns the missing or wrong ends (``node:ifname``)."""
    plan = state.topology_obj().extra.get("stitch") or {}
    local = set(state.node_netns)
    ends = sorted({(link[f"{side}_node"], link[f"{side}_ifname"]) for link in plan.get("links", [])
                   for side in ("a", "b") if link[f"{side}_node"] in local})
    if not ends:
        report.skip(STITCH_CHECK, "no stitched cable ends on this shard")
        return []
    nodes = sorted({node for node, _ in ends})
    links = dict(zip(nodes, parallel(lambda node: measure.kernel_links(state, node), nodes), strict=True))
    bad, findings = [], []
    for node, ifname in ends:
        link = links[node].get(ifname)
        if link is None or link.kind != "vxlan" or not link.up:
            bad.append(f"{node}:{ifname}")
            actual = "missing" if link is None else f"{link.kind}, {'up' if link.up else 'down'}"
            findings.append(Finding(check=STITCH_CHECK, severity=Severity.ERROR, subject=f"{node}:{ifname}",
                                    expected="VXLAN device, up", actual=actual,
                                    message=f"{node}:{ifname}: stitched cable end {actual} (its host's underlay is "
                                            "gone or the cable was cut)"))
    report.add(STITCH_CHECK, findings)
    return bad


def shard_verify(state: TwinState, fabric: TwinTopology, *, timeout_s: float | None = None) -> tuple[Report, dict]:
    """The live checks one host can run on its shard, against the whole fabric's expectations: frr.conf loaded,
    every BGP session of its switches Established (those over stitched cables included), the kernel ECMP width
    from each of its VTEPs to every VTEP of the fabric, and pings between its servers. Returns the report and
    ``answers`` (sessions per switch and ECMP widths: what must be identical to a one-machine run)."""
    local = set(state.node_netns)
    host = (state.topology_obj().extra.get("shard") or {}).get("host", "?")
    report = Report(f"shard {host} ({state.prefix}) of twin {fabric.name_prefix}")
    policy = recorded_policy(state.size_policy)
    timeout_s = timeout_s or (policy.converge_timeout_s if policy else CONVERGE_BASE_S)
    check_config_load(state, report)
    missing_ends = check_stitched_ends(state, report)
    if missing_ends:  # its underlay is gone (the VXLAN devices go with it): waiting for sessions cannot help
        for check in ("twin.bgp_sessions", "twin.ecmp_width", "twin.ping_bridged"):
            report.skip(check, f"shard {host} lost {len(missing_ends)} stitched cable end(s): {STITCH_CHECK} failed")
        return report, {"answers": {"sessions": {}, "ecmp": {}}, "converged_s": None, "ping": {},
                        "missing_stitched_ends": missing_ends, "missing_sessions": {}}
    expected = {node: families for node, families in expect.expected_sessions(fabric).items() if node in local}
    wait = measure.wait_bgp_sessions(state, expected, timeout_s=timeout_s, poll_s=0.2)
    report.add("twin.bgp_sessions", missing_session_findings(wait, timeout_s))
    vteps = expect.vteps(fabric)
    widths = {pair: width for pair, width in expect.expected_ecmp_widths(fabric).items() if pair[0] in local}
    measured_widths: dict[tuple[str, str], int] = {}
    if widths:
        started = time.monotonic()
        while True:
            measured_widths = measure.ecmp_widths(state, vteps, widths)
            if measured_widths == widths or time.monotonic() - started >= ECMP_SETTLE_S:
                break
            time.sleep(0.5)
        report.add("twin.ecmp_width", width_findings(widths, measured_widths, vteps))
    else:
        report.skip("twin.ecmp_width", f"no VTEP on shard {host}: its ECMP widths are measured on the other shards")
    ping = check_ping_matrix(state, report)
    answers = {"sessions": measure.bgp_session_counts(state),
               "ecmp": {f"{source}->{destination}": width
                        for (source, destination), width in sorted(measured_widths.items())}}
    converged_s = (round(wait.converged_at - state.daemons_started_at, 2)
                   if not wait.missing and state.daemons_started_at else None)
    return report, {"answers": answers, "converged_s": converged_s, "ping": ping,
                    "missing_sessions": {node: {afi: list(pair) for afi, pair in afis.items()}
                                         for node, afis in wait.missing.items()}}
