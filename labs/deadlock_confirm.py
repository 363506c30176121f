"""Confirm a PFC deadlock finding's bounce path on the live twin, hop by hop, from the kernels' own routes.

``validators.deadlock.bounce_path`` predicts where traffic to a prefix goes once BGP has converged with some
links down; here those links are cut on the twin and every predicted switch's FIB is read (``ip -j route show``)
until each one's next-hop switches equal the prediction. The result is labelled "route confirmed; PFC
static-only": veth has no PFC, so the twin shows the route of the cycle, never a pause. The links always come
back up. Pure engine code: no Django.
"""

from __future__ import annotations

import json
import time

from labs.measure import set_links
from labs.runtime.state import TwinState
from labs.shell import ns_exec

LABEL = "route confirmed; PFC static-only (veth has no PFC, so no pause can be shown)"


def live_next_hops(state: TwinState, node: str, prefix: str) -> list[str]:
    """The switches ``node``'s kernel forwards ``prefix`` to (its FIB entry's next-hop devices, by cable)."""
    peers = {}
    for link in state.topology_obj().links:
        peers[(link.a_node, link.a_ifname)] = link.b_node
        peers[(link.b_node, link.b_ifname)] = link.a_node
    output = ns_exec(state.node_netns[node], ["ip", "-j", "route", "show", prefix], check=False).stdout or "[]"
    routes = json.loads(output)
    if not routes:
        return []
    route = routes[0]
    devices = [hop["dev"] for hop in route.get("nexthops", ())] or [route.get("dev")]
    return sorted({peers.get((node, device), f"?{device}") for device in devices if device})


def confirm(state: TwinState, predicted: list[tuple[str, list[str]]], prefix: str, cut: list[tuple[str, str]],
            *, timeout_s: float = 90.0) -> dict:
    """Cut ``cut`` ((node, Linux ifname)), wait until the FIBs of the predicted switches match ``predicted``
    (or ``timeout_s``), report each hop (predicted, live), restore the links."""
    started = time.monotonic()
    set_links(state, cut, "down")
    try:
        while True:
            hops = [{"switch": node, "predicted": expected, "live": live_next_hops(state, node, prefix)}
                    for node, expected in predicted]
            confirmed = all(hop["predicted"] == hop["live"] for hop in hops)
            if confirmed or time.monotonic() - started > timeout_s:
                break
            time.sleep(1.0)
        return {"prefix": prefix, "confirmed": confirmed, "hops": hops,
                "seconds": round(time.monotonic() - started, 1), "label": LABEL if confirmed else
                "route NOT confirmed: the twin's kernels forward otherwise (see hops)"}
    finally:
        set_links(state, cut, "up")
