"""OSPF and IS-IS underlays of parsed configs (compiler/parse/igp.py): adjacencies on the cabled links, loopback
reachability and ECMP over them.

An adjacency needs both ends running the same protocol, neither end passive, the same network type (a
point-to-point end and a broadcast end never agree on the DR election, so the adjacency does not reach FULL), and
for OSPF the same area and authentication type (RFC 2328 10.5: a Hello from another area is dropped; D.3); for
IS-IS a common level (ISO 10589 8.2: a level-1 adjacency also needs the same area address). Each link that fails
is an error naming both ends. Routes are shortest paths over the adjacencies (metric: the stated cost / metric,
else 10, IS-IS's default and equal on every link when unstated) with ECMP over every equal-cost first hop, up
to the process's ``maximum_paths``. Loopbacks are advertised when they run the IGP (passive or not).

The check ``routing.igp`` is :mod:`validators.underlay`; :mod:`validators.reachability` counts a VTEP reached
over the IGP as reached.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass, field
from ipaddress import ip_interface, ip_network

from compiler.structured.contract import StructuredConfig
from validators.common import subnet_links
from validators.findings import Finding, Severity

IGP = "routing.igp"
DEFAULT_METRIC = 10  # ISO 10589 default metric; OSPF costs equal per link when unstated


@dataclass
class IgpTopology:
    """Adjacencies as a graph: device -> [(peer, metric toward it, local interface)], what each device
    advertises (loopback address -> device), the findings of the links that form no adjacency."""

    graph: dict[str, list[tuple[str, int, str]]] = field(default_factory=dict)
    advertised: dict[str, set[str]] = field(default_factory=dict)  # an MLAG pair shares its VTEP address
    maximum_paths: dict[str, int | None] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    links: int = 0
    _paths: dict[str, tuple[dict[str, int], dict[str, set[str]]]] = field(default_factory=dict)

    def route_width(self, source: str, address: str) -> int:
        """ECMP width of ``source``'s IGP route to ``address`` (0: no route), capped by maximum_paths: the first
        hops of every equal-cost shortest path to the nearest device advertising it (anycast: the nearest ones);
        1 when ``source`` advertises it itself."""
        owners = self.advertised.get(address.split("/")[0], set())
        if source in owners:
            return 1
        if not owners or source not in self.graph:
            return 0
        if source not in self._paths:
            self._paths[source] = self._shortest(source)
        distance, hops = self._paths[source]
        reached = [owner for owner in owners if owner in distance]
        if not reached:
            return 0
        nearest = min(distance[owner] for owner in reached)
        width = len(set().union(*(hops[owner] for owner in reached if distance[owner] == nearest)))
        cap = self.maximum_paths.get(source)
        return min(width, cap) if cap else width

    def _shortest(self, source: str) -> tuple[dict[str, int], dict[str, set[str]]]:
        """Dijkstra from ``source`` keeping every equal-cost first hop (metrics are positive)."""
        distance = {source: 0}
        hops: dict[str, set[str]] = {source: set()}
        queue = [(0, source)]
        while queue:
            cost, device = heapq.heappop(queue)
            if cost > distance[device]:
                continue
            for peer, metric, _interface in self.graph.get(device, ()):
                candidate = cost + metric
                via = {peer} if device == source else hops[device]
                if candidate < distance.get(peer, candidate + 1):
                    distance[peer], hops[peer] = candidate, set(via)
                    heapq.heappush(queue, (candidate, peer))
                elif candidate == distance.get(peer):
                    hops[peer] |= via
        return distance, hops



def _isis_area(net: str | None) -> str | None:
    """The area address of a NET (``49.0001.1921.6825.5005.00`` -> ``49.0001``): all but system ID and NSEL."""
    parts = (net or "").split(".")
    return ".".join(parts[:-4]) if len(parts) > 4 else None


def _levels(text: str | None) -> set[int]:
    return {"level-1": {1}, "level-2": {2}}.get(text or "", {1, 2})


def _link_problem(a: Mapping, b: Mapping, config_a: Mapping, config_b: Mapping) -> str | None:
    """Why two IGP ends form no adjacency, or None when they do."""
    if a["protocol"] != b["protocol"]:
        return f"{a['protocol']} on one end, {b['protocol']} on the other"
    passive = [end for end, port in (("one", a), ("other", b)) if port["passive"]]
    if passive:
        return "passive on " + (" and ".join(passive) + " end" if len(passive) == 1 else "both ends")
    if a["point_to_point"] != b["point_to_point"]:
        return "network point-to-point on one end only"
    if a["protocol"] == "ospf":
        if a["area"] != b["area"]:
            return f"OSPF area {a['area']} on one end, {b['area']} on the other (RFC 2328 10.5)"
        if a.get("authentication") != b.get("authentication"):
            return (f"OSPF authentication {a.get('authentication') or 'none'} on one end, "
                    f"{b.get('authentication') or 'none'} on the other")
        return None
    levels_a = _levels(a["level"]) & _levels((config_a.get("igp") or {}).get("level"))
    levels_b = _levels(b["level"]) & _levels((config_b.get("igp") or {}).get("level"))
    common = levels_a & levels_b
    if common == {1} and _isis_area((config_a.get("igp") or {}).get("net")) != _isis_area(
            (config_b.get("igp") or {}).get("net")):
        return "IS-IS level-1 only, in different areas (ISO 10589 8.2)"
    return None if common else "IS-IS levels do not overlap"


def build_igp(structured: Mapping[str, StructuredConfig]) -> IgpTopology:
    topology = IgpTopology()
    for host, config in structured.items():
        if "igp" not in config:
            continue
        topology.graph[host] = []
        topology.maximum_paths[host] = config["igp"].get("maximum_paths")
        for loopback in config["loopbacks"]:
            if loopback.get("igp") and loopback["ip"]:
                topology.advertised.setdefault(str(ip_interface(loopback["ip"]).ip), set()).add(host)
    seen: set[tuple[str, str]] = set()
    by_subnet = subnet_links(structured)  # FRR states no cabling: a link is the two ends of a point-to-point subnet
    for host, config in structured.items():
        for port in config["interfaces"]:
            peer, peer_name = port["peer_device"], port["peer_interface"]
            if not peer and "igp" in port and (host, port["name"]) in by_subnet:
                peer, peer_name = by_subnet[(host, port["name"])]
            if "igp" not in port or not peer or not peer_name or peer not in structured or (host, port["name"]) in seen:
                continue
            far = next((item for item in structured[peer]["interfaces"] if item["name"] == peer_name), None)
            if far is None:
                continue
            seen.update({(host, port["name"]), (peer, peer_name)})
            topology.links += 1
            link = f"{host}:{port['name']}<->{peer}:{peer_name}"
            if "igp" not in far:
                if not port["igp"]["passive"]:
                    topology.findings.append(Finding(
                        check=IGP, severity=Severity.ERROR, subject=link, expected=port["igp"]["protocol"],
                        actual=None, message=f"no IGP adjacency on {link}: {port['igp']['protocol']} runs on "
                                             f"{host}:{port['name']} only"))
                continue
            problem = _link_problem(port["igp"], far["igp"], config, structured[peer])
            if problem:
                topology.findings.append(Finding(
                    check=IGP, severity=Severity.ERROR, subject=link, expected="an adjacency", actual=None,
                    message=f"no IGP adjacency on {link}: {problem}"))
                continue
            topology.graph[host].append((peer, port["igp"]["metric"] or DEFAULT_METRIC, port["name"]))
            topology.graph.setdefault(peer, []).append((host, far["igp"]["metric"] or DEFAULT_METRIC, peer_name))
    topology.findings += _subnets_apart(structured, seen)
    return topology


def _subnets_apart(structured: Mapping[str, StructuredConfig], linked: set[tuple[str, str]]) -> list[Finding]:
    """An OSPF port that forms no link (no cabling, no partner in its subnet) while another device states an OSPF
    `network` for that very subnet and has no address in it: the two ends of the link sit in different subnets
    (RFC 2328 10.5: a Hello from another subnet is dropped). The other device's port is named when exactly one of
    its addressed ports runs no IGP (the one moved out of the subnet)."""
    findings: list[Finding] = []
    stated = {host: [ip_network(text) for text in config["igp"].get("unmatched_networks") or ()]
              for host, config in structured.items() if "igp" in config}
    for host, config in structured.items():
        for port in config["interfaces"]:
            igp = port.get("igp")
            if not igp or igp["passive"] or igp["protocol"] != "ospf" or not port["ip"] or (host, port["name"]) in linked:
                continue
            own = ip_interface(port["ip"])
            for other, networks in stated.items():
                if other == host or not any(own.ip in network for network in networks):
                    continue
                loose = [item for item in structured[other]["interfaces"] if item["ip"] and "igp" not in item]
                far = f"{other}:{loose[0]['name']}" if len(loose) == 1 else other
                shown = f" ({loose[0]['ip']})" if len(loose) == 1 else ""
                findings.append(Finding(
                    check=IGP, severity=Severity.ERROR, subject=f"{host}:{port['name']}<->{far}",
                    expected=f"an address in {own.network}", actual=loose[0]["ip"] if len(loose) == 1 else None,
                    message=f"no IGP adjacency on {host}:{port['name']} ({port['ip']}): {other} runs OSPF on "
                    f"{own.network} but has no address in it{shown}: the link's ends are in different subnets"))
    return findings
