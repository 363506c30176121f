"""MTU on a running twin, by DF probes at exactly the MTU (must pass) and one byte more (must fail):

- ``twin.host_mtu``  end to end between hosts of one network on different leaves, on every ECMP path
- ``twin.link_mtu``  per cable and direction, plus each end's configured MTU read back from the kernel
"""

from __future__ import annotations

import itertools

from validators.findings import Finding, Report, Severity

from .. import expect, flowprobe, measure
from ..runtime import TwinState
from ..shell import parallel


def check_host_mtu(state: TwinState, report: Report) -> dict:
    """End-to-end DF probe between hosts on different leaves in the same network: a packet of exactly the host
    MTU must pass on every ECMP path both ways, one byte more must fail. Probed with many UDP flows whose
    route lookups are forced apart (``labs.flowprobe``: a ping would take one spine whatever its ICMP id). With
    the VXLAN device's ``df set`` an underlay hop smaller than MTU+50 drops the packet."""
    topology = state.topology_obj()
    ports = expect.host_ports(topology)
    widths = expect.expected_ecmp_widths(topology)
    pairs = []
    seen = set()
    for source, destination in itertools.permutations(ports, 2):
        if source.network == destination.network and source.leaf != destination.leaf and source.network not in seen:
            seen.add(source.network)
            pairs.append((source, destination))
    if not pairs:
        report.skip("twin.host_mtu", "no network has hosts on two different leaves")
        return {}

    def probe(pair):
        source, destination = pair
        mtu = min(source.mtu, destination.mtu)
        return measure.probe_host_mtu(state, source, destination, paths=widths.get((source.leaf, destination.leaf), 1),
                                      sizes=[mtu, mtu + 1])

    findings = []
    measured = {}
    for (source, destination), result in zip(pairs, parallel(probe, pairs), strict=True):
        mtu = min(source.mtu, destination.mtu)
        flows = result["flows"]
        fits, over = result["sizes"][str(mtu)], result["sizes"][str(mtu + 1)]
        subject = f"{source.host}->{destination.host}"
        paths = widths.get((source.leaf, destination.leaf), 1)
        measured[subject] = {"mtu": mtu, "flows": flows, "flows_passed": fits, "over_mtu_failed": over < flows,
                             "ecmp_paths": paths, "miss_probability": flowprobe.miss_probability(paths, flows),
                             "seconds": result["seconds"]}
        if not result["reachable"]:
            findings.append(Finding(check="twin.host_mtu", severity=Severity.ERROR, subject=subject, expected=f"{mtu}-byte packets pass", actual=None,
                                    message=f"{subject}: not even a {flowprobe.WARM_UP_PACKET}-byte packet got through"))
        elif fits < flows:
            local = f" ({'; '.join(result['local_errors'])})" if result["local_errors"] else ""
            findings.append(Finding(check="twin.host_mtu", severity=Severity.ERROR, subject=subject, expected=f"{flows}/{flows} flows at {mtu} bytes",
                                    actual=f"lost on flow {fits + 1} of {flows}{local}",
                                    message=f"{subject}: a {mtu}-byte DF packet was lost on flow {fits + 1} of {flows} "
                                    f"(every earlier flow passed): a hop on one of the {paths} ECMP paths is "
                                    "smaller than the host MTU + VXLAN overhead"))
        if result["reachable"] and over == flows:
            findings.append(Finding(check="twin.host_mtu", severity=Severity.ERROR, subject=subject, expected=f"{mtu + 1} bytes fail",
                                    actual="passed on every flow", message=f"{subject}: a {mtu + 1}-byte DF packet got through, "
                                    f"so the host MTU is larger than the intended {mtu}"))
    report.add("twin.host_mtu", findings)
    return measured


def check_link_mtu(state: TwinState, report: Report) -> dict:
    """Per cable and direction: a DF ping of exactly the intended link MTU to the peer's address on that link
    must pass, one byte more must fail. Finds a single mis-set port that ECMP would hide from host probes."""
    topology = state.topology_obj()
    if not topology.links:
        report.skip("twin.link_mtu", "no switch-to-switch links")
        return {}
    addresses = measure.port_addresses(state)
    probes = [(link, *ends) for link in topology.links for ends in (
        (link.a_node, link.a_ifname, link.b_node, link.b_ifname), (link.b_node, link.b_ifname, link.a_node, link.a_ifname))]

    def probe(item):
        link, node, ifname, peer, peer_if = item
        target = measure.link_probe_target(addresses, node, ifname, peer, peer_if)
        if target is None:
            return None, None, None
        fits = measure.probe_link_mtu(state, node, ifname, target, link.mtu)
        if not fits.ok:  # one retry: the first packet may wait for ARP/ND
            fits = measure.probe_link_mtu(state, node, ifname, target, link.mtu)
        return target[0], fits, measure.probe_link_mtu(state, node, ifname, target, link.mtu + 1)

    results = parallel(probe, probes)
    link_nodes = sorted({link.a_node for link in topology.links} | {link.b_node for link in topology.links})
    kernel_links = dict(zip(link_nodes, parallel(lambda node: measure.kernel_links(state, node),
                                                 link_nodes), strict=True))
    findings = []
    # The configured MTU of each end, read back from the kernel: finds an end set *larger* than intended,
    # which no probe can see (the smaller peer simply drops what it cannot take).
    for link in topology.links:
        for node, ifname in ((link.a_node, link.a_ifname), (link.b_node, link.b_ifname)):
            configured = kernel_links[node].get(ifname)
            if configured is not None and configured.mtu != link.mtu:
                findings.append(Finding(check="twin.link_mtu", severity=Severity.ERROR, subject=f"{node}:{ifname}", expected=link.mtu,
                                        actual=configured.mtu, message=f"{node}:{ifname} has MTU {configured.mtu} in the kernel, "
                                        f"the link {link.subject} is meant to carry {link.mtu}"))
    for (link, node, ifname, _peer, _peer_if), (target, fits, too_big) in zip(probes, results, strict=True):
        if target is None:
            findings.append(Finding(check="twin.link_mtu", severity=Severity.ERROR, subject=link.subject, expected="peer address", actual=None,
                                    message=f"{node}:{ifname}: no IPv4 or link-local address to probe the peer"))
            continue
        if not fits.ok:
            findings.append(Finding(check="twin.link_mtu", severity=Severity.ERROR, subject=link.subject, expected=link.mtu, actual="smaller",
                                    message=f"{node}:{ifname} -> {target}: DF ping of {link.mtu} bytes failed "
                                    f"({fits.local_error or 'no reply'}); one end of the link is below {link.mtu}"))
        if too_big.any_reply:
            findings.append(Finding(check="twin.link_mtu", severity=Severity.ERROR, subject=link.subject, expected=link.mtu, actual="larger",
                                    message=f"{node}:{ifname} -> {target}: a {link.mtu + 1}-byte DF ping got through; "
                                    f"the port MTU is above the intended {link.mtu}"))
    report.add("twin.link_mtu", findings)
    return {"links": len(topology.links), "probes": len(probes)}
