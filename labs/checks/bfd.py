"""``twin.bfd_sessions``: where the config enables BFD (the twin then runs bfdd), every fabric link's BFD
session is up."""

from __future__ import annotations

import time

from validators.findings import Finding, Report, Severity

from .. import measure
from ..runtime import TwinState
from ..runtime.daemons import BFD_CONFIGURED
from ..runtime.sizing import recorded_policy
from ..shell import parallel

CHECK = "twin.bfd_sessions"


def check_bfd_sessions(state: TwinState, report: Report, timeout_s: float = 30.0) -> dict:
    topology = state.topology_obj()
    links_per_node = {node: sum(1 for link in topology.links if node in (link.a_node, link.b_node))
                      for node in state.pids}
    with_bfd = sorted(node for node, daemons in state.pids.items() if "bfdd" in daemons)
    if not with_bfd:
        policy = recorded_policy(state.size_policy)
        configured = any(BFD_CONFIGURED.search(node.frr_conf) for node in topology.nodes)
        if configured and policy and not policy.bfd:
            report.skip(CHECK, f"BFD is configured but this twin runs without it (size policy: {policy.reason}); "
                        "BFD sessions are static only here")
        else:
            report.skip(CHECK, "no node's frr.conf enables BFD")
        return {}
    started = time.monotonic()
    while True:
        peers = dict(zip(with_bfd, parallel(lambda node: measure.bfd_peers(state, node), with_bfd), strict=True))
        short = {node: rows for node, rows in peers.items()
                 if sum(1 for row in rows if row.up) < links_per_node[node]}
        if not short or time.monotonic() - started > timeout_s:
            break
        time.sleep(0.5)
    report.add(CHECK, [
        Finding(check=CHECK, severity=Severity.ERROR, subject=node, expected=f"{links_per_node[node]} BFD sessions up",
                actual=f"{sum(1 for row in rows if row.up)} up",
                message=f"{node}: BFD not up on {', '.join(f'{r.interface or r.peer} ({r.status})' for r in rows if not r.up) or 'any link (no sessions)'}")
        for node, rows in sorted(short.items())
    ])
    return {"nodes": len(with_bfd), "waited_s": round(time.monotonic() - started, 2)}
