"""Host reachability by ping, against what the intent allows (``labs.measure.classify_ping``):

- ``twin.ping_bridged``     same network (L2VNI)
- ``twin.ping_routed``      between networks of a tenant (IRB)
- ``twin.tenant_isolation`` across tenants must fail; "static only" when the twin could build no tenant VRFs
"""

from __future__ import annotations

import itertools
import random

from validators.findings import Finding, Report, Severity

from .. import expect, measure
from ..expect import NO_TENANT_VRFS, HostPort
from ..runtime import TwinState
from ..shell import parallel
from .l3vni import resync_l3vni_next_hops


def check_ping_matrix(state: TwinState, report: Report, max_pairs: int = 200) -> dict:
    """Ping between host ports and compare with what the intent allows."""
    topology = state.topology_obj()
    ports = expect.host_ports(topology)
    vrf_devices = state.tenant_vrfs_built
    resync_l3vni_next_hops(state, report)  # FRR 8.4 leftovers of an earlier failure would read as a routing fault
    measure.warm_up(state, ports)
    pairs = sample_pairs([(a, b) for a, b in itertools.permutations(ports, 2) if a.host != b.host], max_pairs)
    if not pairs:
        report.skip("twin.ping_bridged", "fewer than two hosts in the topology")
        return {}
    svis = expect.svi_networks(topology)
    classes = {(a, b): measure.classify_ping(a, b, vrf_devices=vrf_devices, svis=svis) for a, b in pairs}
    to_ping = [pair for pair in pairs if classes[pair] != "static_only"]
    results = dict(zip(to_ping, parallel(lambda pair: measure.ping(state, pair[0].host, pair[1].address, count=3,
                                                                   interval=0.2), to_ping), strict=True))
    findings: dict[str, list[Finding]] = {"twin.ping_bridged": [], "twin.ping_routed": [], "twin.tenant_isolation": []}
    ran = {check: False for check in findings}
    for (source, destination), result in results.items():
        kind = classes[(source, destination)]
        subject = f"{source.host}->{destination.host}"
        if kind in ("bridged", "routed"):
            check = f"twin.ping_{kind}"
            ran[check] = True
            if not result.ok:
                findings[check].append(Finding(check=check, severity=Severity.ERROR, subject=subject, expected="3/3 replies",
                                               actual=f"{result.received}/{result.transmitted}",
                                               message=f"{subject} ({source.network} -> {destination.network}) "
                                               f"{result.local_error or 'lost replies'}"))
        elif kind in ("isolated", "unreachable"):
            ran["twin.tenant_isolation"] = True
            if result.any_reply:
                findings["twin.tenant_isolation"].append(Finding(
                    check="twin.tenant_isolation", severity=Severity.ERROR, subject=subject, expected="no reply", actual=f"{result.received} replies",
                    message=f"{source.host} ({source.tenant}/{source.network}) reached {destination.host} "
                    f"({destination.tenant}/{destination.network}) although the intent separates them"))
    for check, rows in findings.items():
        if ran[check]:
            report.add(check, rows)
    static_only = [pair for pair, kind in classes.items() if kind == "static_only"]
    cross_tenant = sum(1 for a, b in static_only if a.tenant != b.tenant)
    for check, count, reason in (
        ("twin.tenant_isolation", cross_tenant, f"static only: {NO_TENANT_VRFS}, so it routes "
         f"all tenants in one table and cannot measure isolation ({cross_tenant} cross-tenant pairs not pinged)"),
        ("twin.ping_routed", len(static_only) - cross_tenant, f"static only: {len(static_only) - cross_tenant} "
         f"pairs need the L3VNI (destination network has no SVI on the source leaf) and {NO_TENANT_VRFS}"),
    ):
        if count and ran[check]:
            report.add(check, [Finding(check=check, severity=Severity.INFO, subject="fabric", expected=None, actual=count, message=reason)])
        elif count:
            report.skip(check, reason)
    # Per sampled pair: what the intent says and whether it replied (None: not pinged, static only). Pairs
    # outside the sample are absent, so a caller never mistakes "not measured" for "reachable".
    outcomes = {f"{a.host}->{b.host}": {"kind": classes[(a, b)],
                                         "replied": results[(a, b)].any_reply if (a, b) in results else None}
                for a, b in pairs}
    return {"pairs": len(pairs), "pinged": len(to_ping), "static_only_pairs": len(static_only), "outcomes": outcomes}


def sample_pairs(pairs: list[tuple[HostPort, HostPort]], limit: int) -> list[tuple[HostPort, HostPort]]:
    """At most ``limit`` pairs, taken round-robin over the classes (source network, destination network,
    same leaf or not) so every class is represented, each class in a fixed shuffled order so many different
    hosts and leaves are used. The full matrix is O(hosts^2); small fabrics get all of it."""
    if len(pairs) <= limit:
        return pairs
    groups: dict[tuple, list] = {}
    for pair in pairs:
        groups.setdefault((pair[0].network, pair[1].network, pair[0].leaf == pair[1].leaf), []).append(pair)
    shuffler = random.Random(0)  # deterministic: the same topology always gets the same sample
    queues = []
    for key in sorted(groups):
        shuffler.shuffle(groups[key])
        queues.append(iter(groups[key]))
    chosen: list = []
    while len(chosen) < limit and queues:
        for queue in list(queues):
            taken = next(queue, None)
            if taken is None:
                queues.remove(queue)
            elif len(chosen) < limit:
                chosen.append(taken)
    return chosen
