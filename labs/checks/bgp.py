"""``twin.bgp_sessions``: every fabric link has an Established session per address family (time-to-converge)."""

from __future__ import annotations

from validators.findings import Finding, Report, Severity

from .. import expect, measure
from ..runtime import TwinState

CHECK = "twin.bgp_sessions"


def missing_session_findings(wait: measure.SessionWait, timeout_s: float) -> list[Finding]:
    """One error per node and address family with fewer Established sessions than fabric links."""
    findings = []
    for node, afis in sorted(wait.missing.items()):
        down_peers = wait.observed[node][1]
        for afi, (want, got) in sorted(afis.items()):
            findings.append(Finding(check=CHECK, severity=Severity.ERROR, subject=node, expected=f"{want} Established ({afi})",
                                    actual=f"{got} Established", message=f"{node}: {got}/{want} {afi} sessions Established after "
                                    f"{timeout_s:.0f}s; not up: {', '.join(down_peers.get(afi, [])) or 'not configured'}"))
    return findings


def session_count_text(expected: dict[str, dict[str, int]]) -> str:
    """The session count explained, each session counted once: "16 BGP sessions (8 links x 2 address families;
    32 counting both ends)". ``expected`` is per node and address family, so every session appears at both ends."""
    ends = sum(sum(families.values()) for families in expected.values())
    links = {afi: sum(per_node.get(afi, 0) for per_node in expected.values()) // 2
             for afi in sorted({afi for per_node in expected.values() for afi in per_node})}
    links = {afi: count for afi, count in links.items() if count}
    if len(set(links.values())) == 1:
        how = (f"{next(iter(links.values()))} links x {len(links)} address "
               f"famil{'y' if len(links) == 1 else 'ies'}")
    else:  # e.g. EVPN on fewer links than IPv4 unicast
        how = ", ".join(f"{afi} on {count} links" for afi, count in links.items())
    return f"{ends // 2} BGP sessions ({how}; {ends} counting both ends)"


def check_bgp_sessions(state: TwinState, report: Report, timeout_s: float = 60.0, poll_s: float = 0.2) -> dict:
    """Wait until every expected session is Established (or the timeout) and report what is missing.
    The time is measured from daemon start, so right after ``up`` it is the boot-to-converged time."""
    expected = expect.expected_sessions(state.topology_obj())
    if not any(count for families in expected.values() for count in families.values()):
        report.skip(CHECK, "no switch-to-switch links, so no BGP session is expected")
        return {}
    wait = measure.wait_bgp_sessions(state, expected, timeout_s=timeout_s, poll_s=poll_s)
    findings = missing_session_findings(wait, timeout_s)
    measured = {"sessions": sum(sum(families.values()) for families in expected.values()), "polls": wait.polls,
                "resolution_s": round(wait.slowest_poll_s + poll_s, 2)}  # one poll of every node + the pause
    if not wait.missing and state.daemons_started_at:
        measured["converged_s"] = round(wait.converged_at - state.daemons_started_at, 2)
        # Daemons start node after node; this is the part after the last one was started.
        measured["after_last_daemon_s"] = round(measured["converged_s"] - state.timings.get("daemons_s", 0.0), 2)
        # Already converged at the first look: the number is an upper bound, not the convergence time.
        measured["upper_bound_only"] = wait.polls == 1
        findings.append(Finding(check=CHECK, severity=Severity.INFO, subject="fabric", expected="all sessions Established",
                                actual=measured["converged_s"], message=f"{session_count_text(expected)} Established "
                                f"{measured['converged_s']}s after daemon start"))
    report.add(CHECK, findings)
    return measured
