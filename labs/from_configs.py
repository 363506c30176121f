"""Parsed FRR configs (a foreign set read by compiler.parse) -> TwinTopology: the twin boots what the configs say.

Each device's structured config is rendered by the one FRR renderer (frr.conf with its OSPF/IS-IS underlay,
compiler.render.igp, and the Linux plan); links are the cabling the configs name (``peer_device`` /
``peer_interface``), else the point-to-point subnets two devices alone share (validators.common.subnet_links,
the same pairing the static checks use); an addressed port on no link gets a host namespace (a stub network's
LAN, as containerlab's lab has its PCs there). Link MTU: the ports' stated MTU, else Linux's default 1500 (a config
stating none runs its ports at the kernel default; OSPF compares the two ends' MTUs, RFC 2328 10.6).
"""

from __future__ import annotations

from ipaddress import ip_interface
from typing import cast

from compiler.errors import TwinError
from compiler.render.frr import linux_ifname, linux_plan, render_frr_conf
from compiler.structured.contract import StructuredConfig
from validators.common import subnet_links

from .topology import HostInterface, TwinHost, TwinLink, TwinNode, TwinTopology, new_prefix

LINUX_DEFAULT_MTU = 1500  # an Ethernet device's MTU when nothing sets one (ip-link(8))


def topology_from_configs(structured: dict[str, dict], *, name_prefix: str | None = None) -> TwinTopology:
    """``structured``: hostname -> structured config of a parsed FRR device (``ParsedDevice.structured``)."""
    nodes, ports = [], {}
    for host, config in sorted(structured.items()):
        if config.get("platform") != "frr":
            raise TwinError(f"{host}: platform={config.get('platform')!r}: topology_from_configs boots parsed FRR "
                            "configs (EOS and SONiC devices boot through labs.node_configs)")
        typed = cast(StructuredConfig, config)  # a parsed config has the structured config's shape
        plan = linux_plan(typed)
        nodes.append(TwinNode(name=host, frr_conf=render_frr_conf(typed, linux_ifname), linux_plan=plan,
                              role=config.get("role") or "leaf"))
        ports[host] = {port["name"]: port for port in config["interfaces"]}
    pairs: dict[tuple[str, str], tuple[str, str]] = {}
    for host, config in structured.items():
        for port in config["interfaces"]:
            if port.get("peer_device") in structured and port.get("peer_interface"):
                pairs[(host, port["name"])] = (port["peer_device"], port["peer_interface"])
    pairs.update({end: other for end, other in subnet_links(structured).items() if end not in pairs})
    links, seen = [], set()
    for (a, a_port), (b, b_port) in sorted(pairs.items()):
        if (b, b_port) in seen:
            continue
        seen.add((a, a_port))
        mtus = {ports[a].get(a_port, {}).get("mtu"), ports[b].get(b_port, {}).get("mtu")} - {None}
        links.append(TwinLink(a_node=a, a_ifname=linux_ifname(a_port), b_node=b, b_ifname=linux_ifname(b_port),
                              mtu=min(mtus) if mtus else LINUX_DEFAULT_MTU, label=f"{a}:{a_port}<->{b}:{b_port}"))
    cabled = {(link.a_node, link.a_ifname) for link in links} | {(link.b_node, link.b_ifname) for link in links}
    hosts = []
    for node in nodes:
        for port in node.linux_plan.get("links", []):
            if (node.name, port["name"]) in cabled or not port.get("address"):
                continue
            # An addressed port no other device in the set connects to (a LAN, a stub network): a host there, so
            # the port exists, comes up and is advertised as the config says (OSPF: a passive stub).
            router = ip_interface(port["address"])
            other = next(address for address in router.network.hosts() if address != router.ip)
            hosts.append(TwinHost(name=f"{node.name}-{port['name']}"[:48], interfaces=(HostInterface(
                ifname="eth0", peer_node=node.name, peer_ifname=port["name"],
                address=f"{other}/{router.network.prefixlen}", gateway=str(router.ip),
                mtu=port.get("mtu") or LINUX_DEFAULT_MTU),)))
    return TwinTopology(name_prefix=name_prefix or new_prefix(), nodes=tuple(nodes), links=tuple(links),
                        hosts=tuple(hosts), label="parsed configs", extra={"limitations": []})
