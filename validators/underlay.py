"""Check ``routing.igp`` (SKIPPED when no device runs OSPF or IS-IS): the IGP adjacency findings of
:mod:`validators.igp`, then every VTEP leaf's IGP route to every other leaf's VTEP loopback and its ECMP width
against the spines both leaves are adjacent to (the designed width of a leaf-spine underlay).
"""

from __future__ import annotations

from collections.abc import Mapping

from validators.common import CORE_ROLES, VTEP_ROLES, CheckSkipped
from validators.context import as_context
from validators.findings import Finding, Severity
from validators.igp import IGP


def vtep_loopback(config: Mapping) -> str | None:
    vtep_ip = (config.get("vxlan") or {}).get("vtep_ip")
    if vtep_ip:
        return vtep_ip
    return next((loopback["ip"].split("/")[0] for loopback in config["loopbacks"]
                 if loopback.get("purpose") == "vtep" and loopback["ip"]), None)


def check_igp(fabric) -> list[Finding]:
    ctx = as_context(fabric)
    structured = ctx.structured
    topology = ctx.igp
    if not topology.graph:
        raise CheckSkipped("no device runs OSPF or IS-IS")
    findings = list(topology.findings)
    pairs = 0
    leaves = sorted(host for host, config in structured.items()
                    if host in topology.graph and config.get("role") in VTEP_ROLES and vtep_loopback(config))
    for receiver in leaves:
        neighbors = {peer for peer, _metric, _interface in topology.graph[receiver]
                     if structured[peer].get("role") in CORE_ROLES}
        for origin in leaves:
            address = vtep_loopback(structured[origin]) or ""
            if origin == receiver or address == vtep_loopback(structured[receiver]):
                continue  # an MLAG pair shares one VTEP address: no tunnel between them
            pairs += 1
            if address not in topology.advertised:
                findings.append(Finding(
                    check=IGP, severity=Severity.ERROR, subject=f"{receiver}->{origin}", expected="a route",
                    actual=None, message=f"{origin}'s VTEP {address} is not advertised into "
                                         f"{structured[origin]['igp']['protocol']}: {receiver} has no IGP route to it"))
                continue
            width = topology.route_width(receiver, address)
            if width == 0:
                findings.append(Finding(
                    check=IGP, severity=Severity.ERROR, subject=f"{receiver}->{origin}", expected="a route",
                    actual=None, message=f"{receiver} has no IGP route to {origin}'s VTEP {address}: no chain of "
                                         "adjacencies joins them"))
                continue
            designed = len(neighbors & {peer for peer, _m, _i in topology.graph[origin]})
            cap = topology.maximum_paths.get(receiver)
            designed = min(designed, cap) if cap else designed
            if designed and width < designed:
                why = "unequal metrics toward the spines, or an adjacency missing"
                findings.append(Finding(
                    check=IGP, severity=Severity.ERROR, subject=f"{receiver}->{origin}", expected=designed,
                    actual=width, message=f"IGP ECMP width {width} from {receiver} to {origin}'s VTEP instead of "
                                          f"{designed} (the spines both are adjacent to): {why}"))
    ctx.record_examined(IGP, {"IGP links": topology.links, "VTEP leaf pairs": pairs})
    return findings
