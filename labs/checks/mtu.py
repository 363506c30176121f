"""MTU on a running twin, by DF probes at exactly the MTU (must pass) and one byte more (must fail):

- ``twin.host_mtu``  end to end between hosts of one network on different leaves, on every ECMP path
- ``twin.link_mtu``  per cable and direction, plus each end's configured MTU read back from the kernel
- ``twin.host_roce_mtu``  from each host NIC to its peer hosts, DF pings at the RoCE frame size and at the NIC MTU
  the server's host config gives (``labs.from_compile``: its rendered netplan), one byte more must fail; a failure
  names the port at fault with the MTU expected and the path MTU probed
"""

from __future__ import annotations

import itertools

from validators.findings import Finding, Report, Severity

from .. import expect, flowprobe, measure
from ..runtime import TwinState
from ..shell import parallel
from .ping import sample_pairs

# Host pairs probed by twin.host_roce_mtu: every pair on small twins; on big ones a sample keeping every class
# (source network, destination network, same leaf) represented, as the ping matrix does.
PEER_PROBE_LIMIT = 64


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


def check_host_roce_mtu(state: TwinState, report: Report) -> dict:
    """From each host NIC to every peer host port it can reach (bridged or routed; at most ``PEER_PROBE_LIMIT``
    pairs), a DF ping through the fabric carrying an IPv4 packet of the RoCE frame (RoCE MTU + 96 bytes of RoCE
    headers) and one of exactly the intended NIC MTU (ping payload = size - 28) must get its echo; one byte more
    than the MTU must not (the path is no larger than the host config says). A pair that fails is searched for
    its path MTU (the largest echoed size), and the port at fault is named from the kernel MTUs of the path's
    edge ports (both NICs and their leaf ports): host or leaf, port, expected, probed. A fault inside the fabric
    is twin.link_mtu's; a pair with no edge port below the MTU is named as the pair. A veth receiving a frame lets
    4 bytes over its MTU through, room for an 802.1Q tag (net/core/dev.c ``is_skb_forwardable``: MTU + hard
    header + VLAN_HLEN), so a port of MTU m probes as m + 4 in the direction it receives and as m in the direction
    it sends (a host NIC refuses locally, a bridge port drops); each port's finding keeps its smallest probe. A NIC
    set larger than its host config is found by reading its MTU back from the kernel (no probe can see it where
    the leaf port is no larger)."""
    topology = state.topology_obj()
    ports = expect.host_ports(topology)
    svis = expect.svi_networks(topology)
    pairs = [(source, destination) for source, destination in itertools.permutations(ports, 2)
             if source.host != destination.host and measure.classify_ping(
                 source, destination, vrf_devices=state.tenant_vrfs_built, svis=svis) in ("bridged", "routed")]
    if not pairs:
        report.skip("twin.host_roce_mtu", "no two hosts that the intent lets reach each other")
        return {}
    pairs = sample_pairs(pairs, PEER_PROBE_LIMIT)
    measure.warm_up(state, {port for pair in pairs for port in pair})

    def probe(pair):
        source, destination = pair
        mtu = min(source.mtu, destination.mtu)
        frame = min(source.roce_frame, destination.roce_frame)
        results = {}
        for size in [size for size in (frame, mtu) if size]:
            result = measure.probe_host_ping_mtu(state, source, destination.address, size)
            if not result.ok:  # one retry: the first packet may wait for ARP
                result = measure.probe_host_ping_mtu(state, source, destination.address, size)
            results[size] = result
        over = measure.probe_host_ping_mtu(state, source, destination.address, mtu + 1)
        path_mtu = mtu if results[mtu].ok else measure.largest_host_ping(state, source, destination.address,
                                                                         predicted=mtu)
        return {"mtu": mtu, "roce_frame": frame, "passed_mtu": results[mtu].ok,
                "passed_roce_frame": results[frame].ok if frame else None, "over_mtu_failed": not over.any_reply,
                "path_mtu": path_mtu, "local_error": results[mtu].local_error or None}

    results = parallel(probe, pairs)
    hosts = sorted({port.host for pair in pairs for port in pair})
    leaves = sorted({port.leaf for pair in pairs for port in pair})
    host_links = dict(zip(hosts, parallel(lambda host: measure.host_links(state, host), hosts), strict=True))
    leaf_links = dict(zip(leaves, parallel(lambda leaf: {ifname: link for ifname, (_netns, link) in measure.switch_port_links(
        state, leaf).items()}, leaves), strict=True))

    def kernel_mtu(links: dict, ifname: str) -> int | None:
        link = links.get(ifname)
        return link.mtu if link is not None else None

    findings: dict[str, Finding] = {}  # subject -> finding: a port at fault shows on every pair through it
    measured = {}
    # Smallest probed path MTU first, so a port's finding carries the tightest probe through it: the direction in
    # which the port sends (exact), not the one in which it receives (4 bytes of slack, above).
    for (source, destination), result in sorted(zip(pairs, results, strict=True),
                                                key=lambda item: item[1]["path_mtu"]):
        mtu, frame, path_mtu = result["mtu"], result["roce_frame"], result["path_mtu"]
        pair = f"{source.host}:{source.ifname}->{destination.host}:{destination.ifname}"
        measured[pair] = result
        if not result["passed_mtu"]:
            edges = [(source.host, source.ifname, kernel_mtu(host_links[source.host], source.ifname), "host"),
                     (source.leaf, source.peer_ifname, kernel_mtu(leaf_links[source.leaf], source.peer_ifname), "leaf"),
                     (destination.leaf, destination.peer_ifname,
                      kernel_mtu(leaf_links[destination.leaf], destination.peer_ifname), "leaf"),
                     (destination.host, destination.ifname, kernel_mtu(host_links[destination.host],
                                                                       destination.ifname), "host")]
            roce = ""
            if frame:
                roce = (f"; the {frame}-byte RoCE frame (RoCE MTU {min(source.roce_mtu, destination.roce_mtu)}) "
                        f"{'still passes' if result['passed_roce_frame'] else 'fails too: RoCE at that MTU is broken'}")
            at_fault = [(node, port, configured, kind) for node, port, configured, kind in edges
                        if configured is not None and configured < mtu]
            for node, port, configured, kind in at_fault:
                subject = f"{node}:{port}"
                findings.setdefault(subject, Finding(
                    check="twin.host_roce_mtu", severity=Severity.ERROR, subject=subject, expected=mtu, actual=path_mtu,
                    message=f"{'host' if kind == 'host' else 'leaf'} {node} port {port}: expected MTU {mtu} (the host "
                    f"config's NIC MTU), probed {path_mtu}: a {mtu}-byte DF ping {pair} got no echo and "
                    f"{path_mtu} bytes is the largest that did; {port} has MTU {configured} in the kernel"
                    f"{' (a veth receives 4 bytes over its MTU)' if path_mtu == configured + 4 else ''}{roce}"))
            if not at_fault:
                findings.setdefault(pair, Finding(
                    check="twin.host_roce_mtu", severity=Severity.ERROR, subject=pair, expected=mtu, actual=path_mtu,
                    message=f"{pair}: expected MTU {mtu}, probed {path_mtu}: no NIC or leaf port on the path's edges "
                    f"is below {mtu}, so a fabric hop is (see twin.link_mtu){roce}"))
        elif frame and not result["passed_roce_frame"]:
            findings.setdefault(pair, Finding(
                check="twin.host_roce_mtu", severity=Severity.ERROR, subject=pair, expected=frame, actual="no echo",
                message=f"{pair}: the {frame}-byte RoCE frame got no echo though {mtu} bytes did"))
        if not result["over_mtu_failed"]:
            nic_mtu = kernel_mtu(host_links[source.host], source.ifname)
            subject = f"{source.host}:{source.ifname}"
            findings.setdefault(subject, Finding(
                check="twin.host_roce_mtu", severity=Severity.ERROR, subject=subject, expected=mtu, actual=nic_mtu,
                message=f"host {source.host} port {source.ifname}: expected MTU {mtu}, a {mtu + 1}-byte DF ping "
                f"{pair} got its echo; the NIC has MTU {nic_mtu} in the kernel, above its host config"))
    # Each probed NIC's MTU read back from the kernel: a NIC set *larger* than its host config is invisible to
    # the probes wherever its leaf port is no larger (one byte more fails at the leaf, as it must).
    for host_port in sorted({port for pair in pairs for port in pair}, key=lambda port: (port.host, port.ifname)):
        nic_mtu = kernel_mtu(host_links[host_port.host], host_port.ifname)
        subject = f"{host_port.host}:{host_port.ifname}"
        if nic_mtu is not None and nic_mtu > host_port.mtu and subject not in findings:
            findings[subject] = Finding(
                check="twin.host_roce_mtu", severity=Severity.ERROR, subject=subject, expected=host_port.mtu,
                actual=nic_mtu, message=f"host {host_port.host} port {host_port.ifname}: expected MTU "
                f"{host_port.mtu} (the host config's NIC MTU), read back {nic_mtu} from the kernel; the probes pass "
                f"only because the leaf port {host_port.leaf}:{host_port.peer_ifname} drops what is larger")
    report.add("twin.host_roce_mtu", list(findings.values()))
    return measured
