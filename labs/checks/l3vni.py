"""Tenant VRFs and L3VNIs (symmetric IRB) on a running twin.

- ``twin.l3vni_vrfs``       every leaf's tenant VRFs and L3VNIs are up in zebra with the planned L2VNIs
- ``twin.l3vni_next_hops``  every route through an L3VNI has its router MAC (FRR 8.4 loses them after a
                            best-path change: warned, re-learned by ``labs.measure.relearn_l3vni_next_hops``)
"""

from __future__ import annotations

import time

from validators.findings import Finding, Report, Severity

from .. import expect, measure
from ..runtime import TwinState
from ..shell import parallel
from .bgp import missing_session_findings
from .ecmp import width_findings

CHECK_VRFS = "twin.l3vni_vrfs"
CHECK_NEXT_HOPS = "twin.l3vni_next_hops"


def check_l3vni_vrfs(state: TwinState, report: Report, timeout_s: float = 30.0) -> dict:
    """Tenant VRFs and their L3VNIs as zebra sees them on every leaf: type L3, state Up, bound to the planned
    VRF, with a router MAC and exactly the planned L2VNIs. Only where the twin built tenant VRFs (kernel VRF
    devices or netns VRFs); otherwise ``check_not_modelled`` says "static only"."""
    expected = expect.expected_l3vnis(state.topology_obj())
    if not expected or not state.tenant_vrfs_built:
        return {}
    started = time.monotonic()
    while True:
        actual = dict(zip(expected, parallel(lambda node: measure.l3vnis(state, node), expected), strict=True))
        findings = []
        for node, vnis in sorted(expected.items()):
            for vni, (vrf, l2_vnis) in sorted(vnis.items()):
                got = actual[node].get(vni)
                subject = f"{node}:L3VNI {vni}"
                if got is None:
                    findings.append(Finding(check=CHECK_VRFS, severity=Severity.ERROR, subject=subject, expected=f"L3VNI in VRF {vrf}", actual=None,
                                            message=f"{node}: zebra has no L3VNI {vni} (VRF {vrf}): routed tenant traffic "
                                            "between leaves has no symmetric IRB path"))
                    continue
                problems = []
                if got.state != "Up":
                    problems.append(f"state {got.state or 'unknown'}")
                if got.vrf != vrf:
                    problems.append(f"bound to VRF {got.vrf or '-'} instead of {vrf}")
                if not got.router_mac:
                    problems.append("no router MAC")
                if got.l2_vnis != l2_vnis:
                    problems.append(f"L2VNIs {list(got.l2_vnis)} instead of {list(l2_vnis)}")
                if problems:
                    findings.append(Finding(check=CHECK_VRFS, severity=Severity.ERROR, subject=subject,
                                            expected={"vrf": vrf, "state": "Up", "l2_vnis": list(l2_vnis)},
                                            actual={"vrf": got.vrf, "state": got.state, "l2_vnis": list(got.l2_vnis)},
                                            message=f"{node} L3VNI {vni}: {'; '.join(problems)}"))
        if not findings or time.monotonic() - started > timeout_s:
            break
        time.sleep(0.5)
    report.add(CHECK_VRFS, findings)
    return {"backend": state.vrf_backend, "leaves": len(expected),
            "l3vnis": sum(len(vnis) for vnis in expected.values()), "waited_s": round(time.monotonic() - started, 2)}


def relearn_findings(relearn: measure.Relearn, check: str = CHECK_NEXT_HOPS) -> list[Finding]:
    """Lost next hops are a warning (a defect of this FRR build, not of the intent); next hops still missing
    after re-learning, and a fabric that did not converge again, are errors."""
    gaps, left, timeout_s = relearn.lost, relearn.still_missing, relearn.timeout_s
    lost = ", ".join(f"{leaf}: {', '.join(vteps)}" for leaf, vteps in gaps.items())
    if not relearn.relearned:
        return [Finding(check=check, severity=Severity.ERROR, subject=leaf,
                        expected="router MAC + neighbour per remote VTEP", actual=vteps,
                        message=f"{leaf}: FRR {relearn.frr_version or '?'} lost the L3VNI next hops (router MACs) of "
                        f"{', '.join(vteps)} after a best-path change; routed traffic toward them is blackholed. "
                        "Not re-learned: the twin's `clear bgp *` workaround runs only for FRR 8.4 "
                        "(FT_TWIN_L3VNI_RELEARN=1 forces it)")
                for leaf, vteps in gaps.items()]
    findings = [Finding(check=check, severity=Severity.WARNING, subject=leaf, expected="router MAC + neighbour per remote VTEP", actual=vteps,
                        message=f"{leaf}: FRR lost the L3VNI next hops (router MACs) of {', '.join(vteps)} after a best-path "
                        "change (FRR 8.4 zebra defect: a withdraw + re-announce of an EVPN-imported route is not "
                        "re-installed); routed traffic toward them was blackholed. Re-learned with `clear bgp *` "
                        f"in {relearn.resynced_s}s")
                for leaf, vteps in gaps.items()]
    findings += [Finding(check=check, severity=Severity.ERROR, subject=leaf, expected="router MAC + neighbour per remote VTEP", actual=vteps,
                         message=f"{leaf}: L3VNI next hops {', '.join(vteps)} still missing {timeout_s:.0f}s after re-learning "
                         f"the routes (lost at first: {lost})") for leaf, vteps in left.items()]
    converged = []
    if relearn.sessions is not None:
        converged += missing_session_findings(relearn.sessions, timeout_s)
    if relearn.ecmp is not None:
        converged += width_findings(*relearn.ecmp)
    findings += [Finding(check=check, severity=Severity.ERROR, subject=finding.subject, expected=finding.expected, actual=finding.actual,
                         message=f"after re-learning the routes: {finding.message}") for finding in converged]
    return findings


def record_relearn(relearn: measure.Relearn, report: Report, check: str = CHECK_NEXT_HOPS) -> None:
    """Record what ``labs.measure.relearn_l3vni_next_hops`` found: passed when every route through an L3VNI
    has its router MAC, the findings of ``relearn_findings`` otherwise; nothing when no route uses an L3VNI."""
    if not relearn.lost:
        if relearn.has_l3vni:
            report.add(check)
        return
    report.add(check, relearn_findings(relearn, check))


def resync_l3vni_next_hops(state: TwinState, report: Report, check: str = CHECK_NEXT_HOPS,
                           settle_s: float = 3.0, timeout_s: float = 45.0) -> dict:
    """Find L3VNI next hops FRR lost and restore them, saying so in the report (see
    ``labs.measure.relearn_l3vni_next_hops`` for why)."""
    relearn = measure.relearn_l3vni_next_hops(state, settle_s=settle_s, timeout_s=timeout_s)
    record_relearn(relearn, report, check)
    return relearn.as_measured()
