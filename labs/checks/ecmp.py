"""``twin.ecmp_width``: kernel next hops from each VTEP to each other VTEP loopback."""

from __future__ import annotations

from validators.findings import Finding, Report, Severity

from .. import expect, measure
from ..runtime import TwinState

CHECK = "twin.ecmp_width"


def width_findings(widths: dict[tuple[str, str], int], measured: dict[tuple[str, str], int],
                   vteps: dict[str, str]) -> list[Finding]:
    """One error per VTEP pair whose kernel width is not what the cabling gives."""
    findings = []
    for (source, destination), want in sorted(widths.items()):
        got = measured[(source, destination)]
        if got != want:
            findings.append(Finding(check=CHECK, severity=Severity.ERROR, subject=f"{source}->{destination}", expected=want, actual=got,
                                    message=f"{source} reaches {destination}'s VTEP {vteps[destination]} over {got} kernel "
                                    f"next hops, the cabling gives {want}"))
    return findings


def check_ecmp_width(state: TwinState, report: Report, settle_s: float = 15.0) -> dict:
    """Kernel ECMP width from each VTEP to each other VTEP loopback (what the data plane hashes over), re-read
    until every width matches or ``settle_s`` passes; the last reading is what is reported."""
    topology = state.topology_obj()
    widths = expect.expected_ecmp_widths(topology)
    if not widths:
        report.skip(CHECK, "fewer than two VTEPs: no VTEP-to-VTEP paths to measure")
        return {}
    measured, settled_s = measure.wait_ecmp_widths(state, widths, settle_s=settle_s)
    report.add(CHECK, width_findings(widths, measured, expect.vteps(topology)))
    return {"pairs": len(widths), "min_width": min(measured.values(), default=0),
            "max_width": max(measured.values(), default=0), "settled_s": settled_s}
