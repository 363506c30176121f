"""``twin.failover_link`` / ``twin.failover_spine``: cut what a continuous host-to-host ping uses, measure
convergence and the flow's outage, restore and measure again (``labs.measure.inject``).

The outage limit is not a fixed number: it is what the timers the twin runs allow (``expect.failure_detection``:
BFD interval x multiplier, or the BGP hold time where the size policy turned BFD off) plus propagation, and the
report gives measured against expected with that basis."""

from __future__ import annotations

import time
from typing import Any

from compiler.errors import TwinError
from validators.findings import Finding, Report, Severity
from validators.prediction import PROPAGATION_MARGIN_S

from .. import expect, measure
from ..runtime import TwinState
from ..runtime.sizing import policy_frr_conf, recorded_policy
from .l3vni import record_relearn

RESTORE_TIMEOUT_S = 90.0


def check_failover(state: TwinState, report: Report, scope: str = "link", timeout_s: float = 30.0,
                   max_outage_s: float | None = None, flow_seconds: float | None = None) -> dict:
    """scope="link": the source leaf's uplink carrying the flow goes down. scope="spine": every link of the spine
    behind that uplink goes down (the spine side, as if the spine lost power). Convergence is the time until
    the kernel on the source leaf (local) and on the destination leaf (remote, needs the BGP withdraw) lists
    the reduced ECMP set toward the other VTEP; the outage is the largest gap between ping replies, allowed up to
    ``max_outage_s`` (default: the failure detection of the configs running on the path, plus propagation).
    The flow lasts ``flow_seconds`` (default: 3 s longer than that limit, so a flow that never recovers while the
    cut lasts shows an outage above the limit)."""
    check = f"twin.failover_{scope}"
    topology = state.topology_obj()
    try:
        source, destination = expect.flow_endpoints(topology)
    except TwinError as error:
        report.skip(check, str(error))
        return {}
    vteps = expect.vteps(topology)
    src_vtep, dst_vtep = f"{vteps[source.leaf]}/32", f"{vteps[destination.leaf]}/32"
    widths = expect.expected_ecmp_widths(topology)
    full_local, full_remote = widths[(source.leaf, destination.leaf)], widths[(destination.leaf, source.leaf)]
    uplinks = expect.uplinks(topology, source.leaf)
    policy = recorded_policy(state.size_policy)
    nodes = topology.nodes_by_name
    on_path = {source.leaf, destination.leaf, *(peer for _, peer, _ in uplinks)}
    detection = expect.failure_detection([policy_frr_conf(nodes[name].frr_conf, policy) for name in sorted(on_path)])
    if max_outage_s is None:
        max_outage_s = detection.outage_limit_s
    timeout_s = max(timeout_s, 3 * max_outage_s)
    flow_seconds = flow_seconds or max(4.0, max_outage_s + 3.0)
    # The cut is the uplink the flow hashes to, so the flow runs before the cut is chosen.
    flow = measure.Flow(state, source, destination, flow_seconds).start()
    try:
        time.sleep(0.5)
        cut = measure.busiest_port(state, source.leaf, [ifname for ifname, _, _ in uplinks])
        spine = next(peer for ifname, peer, _ in uplinks if ifname == cut)
        if scope == "link":
            cut_targets = [(source.leaf, cut)]
        elif scope == "spine":
            cut_targets = [(spine, ifname) for ifname, _, _ in expect.uplinks(topology, spine)]
        else:
            raise TwinError(f"scope={scope!r}: use 'link' or 'spine'")
    except BaseException:
        flow.kill()
        raise
    links_to_spine = {leaf: sum(1 for _, peer, _ in expect.uplinks(topology, leaf) if peer == spine)
                      for leaf in (source.leaf, destination.leaf)}
    lost_local = 1 if scope == "link" else links_to_spine[source.leaf]
    # The destination leaf loses its paths through the spine once the spine has no link left to the source.
    spine_cut_off = scope == "spine" or links_to_spine[source.leaf] == 1
    want_local = full_local - lost_local
    want_remote = full_remote - (links_to_spine[destination.leaf] if spine_cut_off else 0)
    injection = measure.inject(state, cut_targets, flow=flow, timeout_s=timeout_s,
                               restore_timeout_s=RESTORE_TIMEOUT_S,
                               watches=[(source.leaf, dst_vtep, want_local, full_local),
                                        (destination.leaf, src_vtep, want_remote, full_remote)])
    outage, restore_outage, relearn = injection.outage, injection.restore_outage, injection.relearn
    # inject always re-learns, and with a flow it measures both outages
    assert outage is not None and restore_outage is not None and relearn is not None
    record_relearn(relearn, report)
    local_s, remote_s = injection.converged
    local_back, remote_back = injection.restored
    resynced = relearn.as_measured()
    what = f"{source.leaf}:{cut}" if scope == "link" else f"{spine} (all {len(cut_targets)} links)"
    measured: dict[str, Any] = {
        "cut": what, "flow": f"{source.host}->{destination.host}",
        "local_converged_s": local_s, "remote_converged_s": remote_s,
        "outage_s": round(outage.largest_gap_s, 3), "pings_sent": outage.transmitted,
        "pings_lost": outage.transmitted - outage.received,
        "restored_local_s": local_back, "restored_remote_s": remote_back,
        "restore_outage_s": round(restore_outage.largest_gap_s, 3),
        "outage_limit_s": max_outage_s, "detection": detection.basis,
        **({"l3vni_next_hops_resynced": resynced} if resynced else {}),
    }
    findings = [Finding(check=check, severity=Severity.INFO, subject=what, expected=None, actual=measured,
                        message=f"{what} down: {source.leaf} converged in {local_s}s, {destination.leaf} in {remote_s}s, "
                        f"flow {measured['flow']} outage {measured['outage_s'] * 1000:.0f} ms (expected <= {max_outage_s * 1000:.0f} ms: "
                        f"{detection.basis} + {PROPAGATION_MARGIN_S:.0f} s propagation); restored ECMP in "
                        f"{local_back}s/{remote_back}s (flow gap while restoring {measured['restore_outage_s'] * 1000:.0f} ms)")]
    for label, value, limit in (("local convergence", local_s, timeout_s), ("remote convergence", remote_s, timeout_s),
                                ("ECMP restore (local)", local_back, RESTORE_TIMEOUT_S),
                                ("ECMP restore (remote)", remote_back, RESTORE_TIMEOUT_S)):
        if value is None:
            findings.append(Finding(check=check, severity=Severity.ERROR, subject=what, expected=f"within {limit:.0f}s", actual="not reached",
                                    message=f"{label} after cutting {what} did not happen within {limit:.0f}s"))
    if restore_outage.received and restore_outage.largest_gap_s > max_outage_s:
        findings.append(Finding(check=check, severity=Severity.ERROR, subject=measured["flow"], expected=f"restore outage <= {max_outage_s}s ({detection.basis})",
                                actual=measured["restore_outage_s"], message=f"bringing {what} back interrupted {measured['flow']} "
                                f"for {restore_outage.largest_gap_s:.3f}s"))
    if outage.received == 0:
        findings.append(Finding(check=check, severity=Severity.ERROR, subject=measured["flow"], expected="flow survives", actual="no replies at all",
                                message=f"the flow {measured['flow']} never got a reply while {what} was down"))
    elif outage.largest_gap_s > max_outage_s:
        findings.append(Finding(check=check, severity=Severity.ERROR, subject=measured["flow"], expected=f"outage <= {max_outage_s}s ({detection.basis})",
                                actual=round(outage.largest_gap_s, 3), message=f"cutting {what} interrupted {measured['flow']} for "
                                f"{outage.largest_gap_s:.3f}s"))
    report.add(check, findings)
    return measured
