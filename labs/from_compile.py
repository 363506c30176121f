"""CompileResult -> TwinTopology: every switch runs its own config, every cable becomes a veth pair.

Each switch boots as FRR + Linux from the files of its own platform (:mod:`labs.node_configs`): an EOS switch
from its parsed ``startup-config`` (frr.conf + Linux plan rendered from the parse), a SONiC switch from its own
``frr.conf`` as is plus the Linux side of its ``config_db.json``, an FRR switch from its ``frr`` rendering. So a
fault that exists only in a vendor text runs in the twin. ``topology.extra["device_configs"]`` says per switch
what was exercised live and what stays static-only. Servers become host namespaces configured from their own
rendered host file, as the switches are: each server's host config (``compiler.host_config``, the one the NIC
renderers and the ``hosts.*`` checks use) is rendered as netplan (``compiler.render.hosts``) and parsed back
(``compiler.parse.hosts``), and each NIC takes its MTU, addresses and gateway from that file; the network and
tenant of an address come from ``compiler.hosts.host_addresses`` (the one agreed answer for lab host addressing).
"""

from __future__ import annotations

from collections import defaultdict

from compiler.errors import TwinError
from compiler.host_config import build_host_configs, roce_mtu
from compiler.hosts import host_addresses
from compiler.model import Endpoint, Role
from compiler.parse.hosts import parse_netplan
from compiler.render.frr import twin_ifname
from compiler.render.hosts import render_netplan

from .node_configs import node_from_own_config
from .topology import HostInterface, TwinHost, TwinLink, TwinTopology, new_prefix


def topology_from_compile(result, *, name_prefix: str | None = None, max_servers_per_leaf: int | None = None,
                          files: dict[str, dict[str, str]] | None = None) -> TwinTopology:
    """Build the twin input from a ``compiler.api.CompileResult``: each switch runs the rendering of its own
    platform. ``files`` ({hostname: {file name: text}}) replaces a switch's own files (a config as it will be
    pushed, or pulled from the switch). ``max_servers_per_leaf`` keeps big fabrics' twins small: only the first
    N servers (by name) with an address on each leaf become host namespaces."""
    snapshot = result.snapshot
    inventory = snapshot.inventory
    intent = snapshot.intent
    switches = inventory.switches_by_name
    limitations: list[str] = []

    nodes = []
    device_configs = {}
    ports: dict[str, dict[str, str]] = {}  # switch -> inventory port name -> the twin's (Linux) name
    for switch in inventory.switches:
        rendered = result.rendered.get(switch.hostname, {})
        platform = switch.platform if (files or {}).get(switch.hostname) or switch.platform in rendered else "frr"
        own = (files or {}).get(switch.hostname) or rendered.get(platform)
        if own is None:
            raise TwinError(f"{switch.hostname}: neither a {switch.platform!r} nor an 'frr' rendering in the "
                            "CompileResult; compile with the default platforms (own + frr) or pass its files")
        if platform != switch.platform:
            limitations.append(f"{switch.hostname}: runs its frr rendering (this compile has no {switch.platform} "
                               "rendering): its own config is not exercised live")
        config = node_from_own_config(hostname=switch.hostname, role=switch.role, platform=platform,
                                      files=own, intended=result.structured.get(switch.hostname))
        limitations.extend(config.limitations)
        device_configs[switch.hostname] = config.summary
        plan = config.node.linux_plan
        ports[switch.hostname] = {link["source_name"]: link["name"] for link in plan.get("links", [])
                                  if link.get("source_name")}
        for bridge in plan.get("bridges", []):
            trunked = [member for member in bridge.get("members", []) if "." in member]
            if trunked:
                # No 802.1Q devices nor VLAN-filtering bridges in this kernel: trunk ports cannot be modelled.
                limitations.append(f"{switch.hostname}: trunk members {', '.join(trunked)} of {bridge['name']} "
                                   "not modelled (kernel has no VLAN devices)")
        nodes.append(config.node)

    def port(device: str, interface: str) -> str:
        # A cabled port the config does not mention: its veth exists, unconfigured, under the twin's name for it.
        return ports.get(device, {}).get(interface) or twin_ifname(interface, switches[device].platform)

    links = []
    for cable in inventory.cables:
        if cable.a.device in switches and cable.b.device in switches:
            links.append(TwinLink(a_node=cable.a.device, a_ifname=port(cable.a.device, cable.a.interface),
                                  b_node=cable.b.device, b_ifname=port(cable.b.device, cable.b.interface),
                                  mtu=intent.underlay_mtu, label=cable.label))

    addresses = defaultdict(list)
    for address in host_addresses(snapshot):
        if address.leaf:
            addresses[address.endpoint].append(address)
    host_configs = build_host_configs(snapshot)
    roce = bool(intent.roce_classes)
    kept_per_leaf: dict[str, set[str]] = defaultdict(set)
    hosts = []
    for server in sorted(inventory.servers, key=lambda s: s.name):
        netplan: dict[str, tuple[int, tuple[str, ...], str | None]] | None = None
        interfaces = []
        for nic in server.nics:
            assigned = addresses.get(Endpoint(server.name, nic.name), [])
            if not assigned:
                continue
            address = assigned[0]
            if max_servers_per_leaf is not None and server.name not in kept_per_leaf[address.leaf] and \
                    len(kept_per_leaf[address.leaf]) >= max_servers_per_leaf:
                continue
            if netplan is None:  # only for servers the twin boots (a big fabric's twin keeps a few per leaf)
                # The server's netplan as rendered for it, read back: what a real server boots with.
                netplan = parse_netplan(render_netplan(host_configs[server.name]))
            if nic.name not in netplan:
                raise TwinError(f"{server.name}:{nic.name}: in network {assigned[0].network} but absent from "
                                "the server's rendered netplan")
            mtu, rendered_addresses, gateway = netplan[nic.name]
            if len(assigned) > 1:
                limitations.append(f"{server.name}:{nic.name}: in {len(assigned)} networks (trunk); only "
                                   f"{assigned[0].network} modelled")
            if address.address not in rendered_addresses:
                raise TwinError(f"{server.name}:{nic.name}: address {address.address} of network {address.network} "
                                f"is not in the server's rendered netplan ({', '.join(rendered_addresses) or 'none'})")
            kept_per_leaf[address.leaf].add(server.name)
            interfaces.append(HostInterface(ifname=nic.name, peer_node=address.leaf,
                                            peer_ifname=port(address.leaf, address.leaf_interface), address=address.address,
                                            gateway=gateway, mtu=mtu, network=address.network, tenant=address.tenant,
                                            roce_mtu=roce_mtu(mtu) if roce else 0))
        if interfaces:
            hosts.append(TwinHost(name=server.name, interfaces=tuple(interfaces)))

    return TwinTopology(name_prefix=name_prefix or new_prefix(), nodes=tuple(nodes), links=tuple(links),
                        hosts=tuple(hosts),
                        label=intent.name, extra={"limitations": limitations,
                                                  "spines": sum(1 for n in nodes if n.role == Role.SPINE),
                                                  "device_configs": device_configs})

