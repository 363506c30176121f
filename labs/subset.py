"""Subset boot: a twin of every spine and super-spine plus a chosen set of leaves, for fabrics too big to twin
whole on one machine (a 1,088-switch fabric) and for CI.

    python -m labs up --scenario fabric.yaml --subset ci            # CI-sized default: 2 leaves per pod
    python -m labs up --scenario fabric.yaml --subset leaf1,leaf17  # these leaves
    python -m labs up --scenario fabric.yaml --subset per-pod:1,pod:3,rail:0,leaves:4

A selection is a comma-separated list of items, their union: a leaf name; ``leaves:N`` (the first N leaves in
natural order); ``per-pod:N`` (the first N leaves of every pod; a 2-tier fabric is one pod); ``pod:P`` (every
leaf of pod P); ``rail:R`` (every leaf serving NICs of rail R); ``ci`` (= ``per-pod:2``). Leaves are the switches
that are neither spines nor super-spines (border leaves included). Spines and super-spines are always booted,
so ECMP widths between the booted leaves are the full fabric's.

Pure: ``subset_topology`` takes a ``TwinTopology`` and returns a smaller one: cables and hosts of left-out
leaves removed, and in every booted switch's frr.conf the BGP neighbor lines and ``interface`` blocks of ports whose
cable was left out (a neighbor that can never come up only costs bgpd connection attempts; a 64x1024 spine's
1,024 interface blocks took minutes to load per spine). ``TwinTopology.extra["subset"]``
says what was left out; the static prediction is restricted to the same switches
(``validators.prediction.predict(..., devices=...)``).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from collections import defaultdict
from collections.abc import Mapping

from compiler.errors import FieldError, InputError

from .topology import TwinHost, TwinNode, TwinTopology

ALWAYS_BOOTED_ROLES = ("spine", "super-spine")
CI_SUBSET = "per-pod:2"  # the CI-sized default: the smallest selection with a cross-leaf flow in every pod
ITEM = re.compile(r"^(?P<kind>leaves|per-pod|pod|rail):(?P<value>\d+)$")
NEIGHBOR_LINE = re.compile(r"^\s*neighbor (?P<peer>\S+) ")
INTERFACE_LINE = re.compile(r"^interface (?P<name>\S+)\s*$")


def natural_key(name: str) -> tuple:
    """leaf2 before leaf10."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def leaves_of(topology: TwinTopology) -> list[str]:
    return sorted((node.name for node in topology.nodes if node.role not in ALWAYS_BOOTED_ROLES), key=natural_key)


def select_leaves(topology: TwinTopology, selection: str, *, pods: Mapping[str, int] | None = None,
                  rails: Mapping[str, set[int]] | None = None, field: str = "subset") -> list[str]:
    """The leaves ``selection`` names, in natural order. ``pods`` (leaf -> pod number; default: every leaf in pod
    0) and ``rails`` (leaf -> rails of the NICs it serves) come from the inventory (``leaf_groups``). Every
    item must select something: an unknown leaf, a spine, a pod or rail without leaves is an ``InputError``
    naming ``field`` and the item."""
    return choose_leaves({node.name: node.role for node in topology.nodes}, selection, pods=pods,
                         rails=rails or {}, field=field)


def choose_leaves(roles: Mapping[str, str], selection: str, *, pods: Mapping[str, int] | None = None,
                  rails: Mapping[str, set[int]] | None = None, field: str = "subset") -> list[str]:
    """``select_leaves`` on switch name -> role (a twin topology's nodes, or the inventory's switches when a
    request is checked before anything is compiled). ``rails`` None: the rails are not known yet, ``rail:R``
    items are taken as written (the boot checks them against the compile)."""
    leaves = sorted((name for name, role in roles.items() if role not in ALWAYS_BOOTED_ROLES), key=natural_key)
    pods = pods or {}
    rails_known = rails is not None
    rails = rails or {}
    items = [item.strip() for item in selection.split(",") if item.strip()]
    if not items:
        raise InputError([FieldError(field, selection, "names no leaf: give leaf names, leaves:N, per-pod:N, pod:P, "
                                                        "rail:R or ci")])
    chosen: set[str] = set()
    errors = []
    for item in items:
        item = CI_SUBSET if item == "ci" else item
        match = ITEM.match(item)
        if match is None:
            if item in roles and roles[item] in ALWAYS_BOOTED_ROLES:
                errors.append(FieldError(field, item, f"is a {roles[item]}: spines and super-spines are always booted; "
                                                      "name leaves"))
            elif item not in roles:
                errors.append(FieldError(field, item, f"no leaf named {item!r} in this fabric ({len(leaves)} leaves: "
                                                      f"{', '.join(leaves[:3])}{' ...' if len(leaves) > 3 else ''})"))
            else:
                chosen.add(item)
            continue
        kind, value = match.group("kind"), int(match.group("value"))
        if kind == "leaves":
            picked = leaves[:value]
        elif kind == "per-pod":
            by_pod: dict[int, list[str]] = defaultdict(list)
            for leaf in leaves:
                by_pod[pods.get(leaf, 0)].append(leaf)
            picked = [leaf for members in by_pod.values() for leaf in members[:value]]
        elif kind == "pod":
            picked = [leaf for leaf in leaves if pods.get(leaf, 0) == value]
        elif rails_known:
            picked = [leaf for leaf in leaves if value in rails.get(leaf, set())]
        else:
            continue
        if not picked:
            errors.append(FieldError(field, item, f"selects no leaf (pods: {sorted(set(pods.values())) or [0]}, rails: "
                                                  f"{sorted({r for rs in rails.values() for r in rs})})"))
        chosen.update(picked)
    if errors:
        raise InputError(errors)
    return sorted(chosen, key=natural_key)


def subset_topology(topology: TwinTopology, leaves: list[str], *, selection: str = "") -> TwinTopology:
    """``topology`` with every spine and super-spine and only ``leaves`` (``select_leaves``)."""
    kept = {node.name for node in topology.nodes if node.role in ALWAYS_BOOTED_ROLES or node.name in leaves}
    left_out = [name for name in leaves_of(topology) if name not in kept]
    links = [link for link in topology.links if link.a_node in kept and link.b_node in kept]
    cabled: dict[str, set[str]] = defaultdict(set)
    for link in links:
        cabled[link.a_node].add(link.a_ifname)
        cabled[link.b_node].add(link.b_ifname)
    hosts = []
    for host in topology.hosts:
        interfaces = tuple(interface for interface in host.interfaces if interface.peer_node in kept)
        if interfaces:
            hosts.append(TwinHost(name=host.name, interfaces=interfaces))
    for host in hosts:
        for interface in host.interfaces:
            cabled[interface.peer_node].add(interface.peer_ifname)
    nodes, pruned = [], {}
    for node in topology.nodes:
        if node.name not in kept:
            continue
        frr_conf, removed = _without_neighbors_on(node, cabled[node.name])
        if removed:
            pruned[node.name] = removed
        nodes.append(dataclasses.replace(node, frr_conf=frr_conf))
    summary = {
        "selection": selection,
        "leaves": sorted(set(leaves) & kept, key=natural_key),
        "left_out_leaves": left_out,
        "left_out_hosts": len(topology.hosts) - len(hosts),
        "left_out_links": len(topology.links) - len(links),
        "switches": f"{len(nodes)} of {len(topology.nodes)}",
        "neighbors_removed": pruned,  # switch -> BGP neighbors toward left-out cables, removed from its frr.conf
    }
    return dataclasses.replace(topology, nodes=tuple(nodes), links=tuple(links), hosts=tuple(hosts),
                               extra={**topology.extra, "subset": summary})


def _without_neighbors_on(node: TwinNode, cabled: set[str]) -> tuple[str, int]:
    """The node's frr.conf without the BGP neighbors and ``interface`` blocks of plan ports that have no cable in
    the subset: unnumbered neighbors by interface name, numbered ones by address inside the port's subnet.
    Returns (conf, neighbors removed)."""
    dropped_ports = [port for port in node.linux_plan.get("links", []) if port["name"] not in cabled]
    if not dropped_ports:
        return node.frr_conf, 0
    names = {port["name"] for port in dropped_ports}
    networks = [ipaddress.ip_interface(port["address"]).network for port in dropped_ports if port.get("address")]

    def dropped(peer: str) -> bool:
        if peer in names:
            return True
        try:
            address = ipaddress.ip_address(peer)
        except ValueError:
            return False  # a peer group or an interface that stays
        return any(address in network for network in networks)

    removed: set[str] = set()
    lines: list[str] = []
    in_dropped_interface = False
    for line in node.frr_conf.splitlines():
        if in_dropped_interface:
            in_dropped_interface = line.strip() != "exit"
            continue
        interface = INTERFACE_LINE.match(line)
        if interface and interface.group("name") in names:
            in_dropped_interface = True
            continue
        if line.strip() == "!" and lines and lines[-1].strip() == "!":
            continue  # the separator of a removed block
        match = NEIGHBOR_LINE.match(line)
        if match and dropped(match.group("peer")):
            removed.add(match.group("peer"))
            continue
        lines.append(line)
    return "\n".join(lines) + ("\n" if node.frr_conf.endswith("\n") else ""), len(removed)


def leaf_groups(inventory) -> tuple[dict[str, int], dict[str, set[int]]]:
    """From a ``compiler.model.Inventory``: leaf -> pod (5-stage Clos; 0 in a 2-tier fabric) and leaf -> rails of
    the server NICs cabled to it."""
    pods = {switch.hostname: switch.pod for switch in inventory.switches}
    servers = {server.name: server for server in inventory.servers}
    rails: dict[str, set[int]] = defaultdict(set)
    for cable in inventory.cables:
        for switch_end, server_end in ((cable.a, cable.b), (cable.b, cable.a)):
            server = servers.get(server_end.device)
            nic = server.nics_by_name.get(server_end.interface) if server else None
            if nic is not None and switch_end.device in pods:
                rails[switch_end.device].add(nic.rail)
    return pods, dict(rails)


def subset_from_compile(topology: TwinTopology, result, selection: str, *, field: str = "subset") -> TwinTopology:
    """``select_leaves`` with the compile's pods and rails, then ``subset_topology``."""
    pods, rails = leaf_groups(result.snapshot.inventory)
    leaves = select_leaves(topology, selection, pods=pods, rails=rails, field=field)
    return subset_topology(topology, leaves, selection=selection)
