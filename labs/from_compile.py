"""CompileResult -> TwinTopology: every switch runs its FRR rendering, every cable becomes a veth pair.

The twin boots each switch, whatever its own platform (EOS, SONiC, FRR), as FRR + Linux using the compiler's
``frr`` rendering (``frr.conf`` + ``linux-plan.json``), so the twin tests the intent and the FRR translation of
it, not the vendor syntax (that is the static validators' job). Servers become host namespaces with the
addresses from ``compiler.hosts.host_addresses`` (the one agreed answer for lab host addressing).
"""

from __future__ import annotations

import json
from collections import defaultdict

from compiler.errors import TwinError
from compiler.hosts import host_addresses
from compiler.model import Endpoint, Role
from compiler.render.frr import linux_ifname

from .topology import HostInterface, TwinHost, TwinLink, TwinNode, TwinTopology, new_prefix


def topology_from_compile(result, *, name_prefix: str | None = None, max_servers_per_leaf: int | None = None
                          ) -> TwinTopology:
    """Build the twin input from a ``compiler.api.CompileResult`` (compiled with the ``frr`` platform, which
    ``compile_fabric`` adds by default). ``max_servers_per_leaf`` keeps big fabrics' twins small: only the
    first N servers (by name) with an address on each leaf become host namespaces."""
    snapshot = result.snapshot
    inventory = snapshot.inventory
    intent = snapshot.intent
    switches = inventory.switches_by_name
    limitations: list[str] = []

    nodes = []
    for switch in inventory.switches:
        files = result.rendered.get(switch.hostname, {}).get("frr")
        if files is None:
            raise TwinError(f"{switch.hostname}: no 'frr' rendering in the CompileResult; compile with the frr "
                            "platform (compile_fabric(snapshot) adds it by default)")
        plan = json.loads(files["linux-plan.json"])
        for bridge in plan.get("bridges", []):
            trunked = [member for member in bridge.get("members", []) if "." in member]
            if trunked:
                # No 802.1Q devices nor VLAN-filtering bridges in this kernel: trunk ports cannot be modelled.
                limitations.append(f"{switch.hostname}: trunk members {', '.join(trunked)} of {bridge['name']} "
                                   "not modelled (kernel has no VLAN devices)")
        nodes.append(TwinNode(name=switch.hostname, frr_conf=files["frr.conf"], linux_plan=plan,
                              role=switch.role, kind="switch"))

    links = []
    for cable in inventory.cables:
        if cable.a.device in switches and cable.b.device in switches:
            links.append(TwinLink(a_node=cable.a.device, a_ifname=linux_ifname(cable.a.interface),
                                  b_node=cable.b.device, b_ifname=linux_ifname(cable.b.interface),
                                  mtu=intent.underlay_mtu, label=cable.label))

    addresses = defaultdict(list)
    for address in host_addresses(snapshot):
        if address.leaf:
            addresses[address.endpoint].append(address)
    kept_per_leaf: dict[str, set[str]] = defaultdict(set)
    hosts = []
    for server in sorted(inventory.servers, key=lambda s: s.name):
        interfaces = []
        for nic in server.nics:
            assigned = addresses.get(Endpoint(server.name, nic.name), [])
            if not assigned:
                continue
            if len(assigned) > 1:
                limitations.append(f"{server.name}:{nic.name}: in {len(assigned)} networks (trunk); only "
                                   f"{assigned[0].network} modelled")
            address = assigned[0]
            if max_servers_per_leaf is not None and server.name not in kept_per_leaf[address.leaf] and \
                    len(kept_per_leaf[address.leaf]) >= max_servers_per_leaf:
                continue
            kept_per_leaf[address.leaf].add(server.name)
            interfaces.append(HostInterface(ifname=nic.name, peer_node=address.leaf,
                                            peer_ifname=linux_ifname(address.leaf_interface), address=address.address,
                                            gateway=address.gateway, mtu=nic.mtu,  # as the server has it
                                            network=address.network, tenant=address.tenant))
        if interfaces:
            hosts.append(TwinHost(name=server.name, interfaces=tuple(interfaces)))

    return TwinTopology(name_prefix=name_prefix or new_prefix(), nodes=nodes, links=links, hosts=hosts,
                        label=intent.name, extra={"limitations": limitations,
                                                  "spines": sum(1 for n in nodes if n.role == Role.SPINE)})

