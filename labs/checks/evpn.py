"""``twin.evpn_flood_lists``: every VTEP's flood list per VNI holds every other VTEP of that VNI (EVPN type 3)."""

from __future__ import annotations

import contextlib
import time

from compiler.errors import TwinError
from validators.findings import Finding, Report, Severity

from .. import expect, measure
from ..runtime import TwinState

CHECK = "twin.evpn_flood_lists"


def check_evpn_flood_lists(state: TwinState, report: Report, timeout_s: float = 30.0) -> dict:
    expected = expect.expected_flood_lists(state.topology_obj())
    if not any(expected.values()):
        report.skip(CHECK, "no VNI is carried by two or more VTEPs")
        return {}
    started = time.monotonic()
    deadline = started + timeout_s
    actual: dict[str, dict[str, set[str]]] = {}
    pending = list(expected)  # each poll reads only the VTEPs still short (then every VTEP once to confirm)
    ready_at = None
    while True:
        actual.update(measure.flood_lists(state, pending))
        gaps = {(node, device): (want, actual[node].get(device, set()))
                for node, devices in expected.items() for device, want in devices.items()
                if not want <= actual[node].get(device, set())}
        if not gaps and ready_at is None:
            ready_at = time.time()
        if gaps:
            ready_at = None
        if (not gaps and len(pending) == len(expected)) or time.monotonic() > deadline:
            break
        pending = sorted({node for node, _ in gaps}) if gaps else list(expected)
        if gaps:
            time.sleep(0.2)
    report.add(CHECK, [
        Finding(check=CHECK, severity=Severity.ERROR, subject=f"{node}:{device}", expected=sorted(want), actual=sorted(got),
                message=f"{node} {device} floods BUM traffic to {len(got)} of {len(want)} remote VTEPs; missing "
                f"{', '.join(sorted(want - got))} (EVPN type-3 routes not received)")
        for (node, device), (want, got) in sorted(gaps.items())
    ])
    measured: dict[str, object] = {"vxlan_devices": sum(len(devices) for devices in expected.values()),
                "waited_s": round(time.monotonic() - started, 2)}
    if ready_at and state.daemons_started_at:
        measured["ready_s"] = round(ready_at - state.daemons_started_at, 2)  # every flood list complete
    if expected:
        # A sample of what BGP carries (type 2 MAC/IP, type 3 flood, type 5 prefix) on the first VTEP.
        sample = sorted(expected)[0]
        with contextlib.suppress(TwinError):
            types = measure.evpn_route_types(state, sample)
            measured["route_types"] = {"node": sample, **{f"type{kind}": count for kind, count in sorted(types.items())}}
    return measured
