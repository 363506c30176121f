"""The fabric as the flow simulator sees it: integer-indexed switches, directed links (each cable one ECMP member
each way, host links included) and the equal-cost next hops towards every destination leaf.

Routes are the shortest paths over the cabled switch graph. In an RFC 7938 eBGP Clos (every leaf its own ASN,
the spines of a pod or fabric sharing one, ``maximum_paths`` at least the fabric's width, multipath-relax) BGP's
best paths are exactly these: shortest AS path = fewest hops, and a valley path (leaf-spine-leaf-spine) is never
shorter. tests/validators/collective/test_collective_routes.py checks that, next hop by next hop, against
:func:`validators.routing.propagate` over compiled configs on a 2-tier and a 5-stage fabric; the cabling is read
here because the path-vector engine costs O(origins x sessions) in Python, too slow for a 5,000-switch fabric.
Links between two switches of one tier (MLAG peer links) carry no routed fabric traffic and are left out.

Distances are computed by a breadth-first search for 64 destinations at a time, as bits of one uint64 per switch
(``numpy.bitwise_or.reduceat`` over the out-links of every switch). The ECMP members of (switch, destination)
are looked up lazily, only for the pairs flows actually reach, and kept.
Pure Python + numpy; never imports Django.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler.errors import FieldError, InputError
from compiler.model import Endpoint, Inventory, Role

from .hashing import splitmix64

TIER_OF_ROLE = {Role.LEAF: 0, Role.BORDER: 0, Role.SPINE: 1, Role.SUPER_SPINE: 2}
NIC = "nic"
UNREACHABLE = 255


@dataclass(frozen=True, slots=True)
class NicAttachment:
    server: str
    nic: str
    rail: int
    leaf: int  # switch index
    up_link: int  # link index nic -> leaf
    down_link: int  # link index leaf -> nic
    ip: int  # IPv4 as an integer (synthetic: see FabricGraph)


class FabricGraph:
    """Switches ``0..n-1``; links ``0..L-1``: switch links first (sorted by tail switch), then host links.

    Host addresses and VTEP addresses are synthetic but shaped like a real plan (hashes read them): the NICs on
    leaf ``i`` are ``10.<i // 256>.<i % 256>.<position + 1>`` (one /24 per leaf), the VTEP of switch ``i`` is
    ``10.254.<i // 256>.<i % 256>``.
    """

    def __init__(self, inventory: Inventory) -> None:
        switches = sorted(inventory.switches, key=lambda switch: (TIER_OF_ROLE.get(switch.role, 0), switch.hostname))
        self.names = [switch.hostname for switch in switches]
        self.index = {name: position for position, name in enumerate(self.names)}
        self.role = [switch.role for switch in switches]
        self.tier = np.array([TIER_OF_ROLE.get(role, 0) for role in self.role], dtype=np.int8)
        speed_of: dict[tuple[str, str], int] = {}
        for switch in switches:
            for interface in switch.interfaces:
                speed_of[(switch.hostname, interface.name)] = interface.speed_gbps
        for server in inventory.servers:
            for nic in server.nics:
                speed_of[(server.name, nic.name)] = nic.speed_gbps
        tails: list[int] = []
        heads: list[int] = []
        speeds: list[float] = []
        ends: list[tuple[Endpoint, Endpoint]] = []  # (tail end, head end) of every switch link, both directions
        host_ends: list[tuple[Endpoint, Endpoint, float]] = []  # (nic end, leaf end, Gb/s)
        index, tier = self.index, self.tier.tolist()
        for cable in inventory.cables:
            a, b = cable.a, cable.b
            ia, ib = index.get(a.device), index.get(b.device)
            if ia is not None and ib is not None:
                if tier[ia] == tier[ib]:
                    continue  # peer links carry no routed fabric traffic
                speed = float(min(speed_of.get((a.device, a.interface), 0), speed_of.get((b.device, b.interface), 0)))
                tails += (ia, ib)
                heads += (ib, ia)
                speeds += (speed, speed)
                ends += ((a, b), (b, a))
            elif ia is not None or ib is not None:
                nic_end, leaf_end = (b, a) if ia is not None else (a, b)
                if nic_end.device in inventory.servers_by_name and tier[index[leaf_end.device]] == 0:
                    host_ends.append((nic_end, leaf_end, float(speed_of.get((nic_end.device, nic_end.interface), 0))))
        tail_list, head_list = np.array(tails, dtype=np.int64), np.array(heads, dtype=np.int64)
        downward = self.tier[head_list] < self.tier[tail_list] if len(tails) else np.zeros(0, dtype=bool)
        order = np.lexsort((head_list, downward, tail_list))  # per switch: up-links first, then down-links
        self.switch_links = len(tails)
        tail_array = tail_list[order].astype(np.int32)
        head_array = head_list[order].astype(np.int32)
        speed_array = np.array(speeds, dtype=np.float64)[order]
        self.ends = [ends[position] for position in order]
        counts = np.bincount(tail_array, minlength=len(self.names))
        self.out_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.up_count = np.bincount(tail_array[~downward[order]], minlength=len(self.names)).astype(np.int64)
        # (tail, head) -> its parallel links, for the downward next hops
        pair_key = tail_array.astype(np.int64) * len(self.names) + head_array
        self.key_order = np.argsort(pair_key, kind="stable")
        self.sorted_key = pair_key[self.key_order]
        # host links: per NIC an up link (nic -> leaf) and a down link (leaf -> nic)
        self.nics: list[NicAttachment] = []
        self.nic_index: dict[tuple[str, str], int] = {}
        per_leaf: dict[int, int] = {}
        host_tails, host_heads, host_speeds = [], [], []
        for nic_end, leaf_end, speed in sorted(host_ends, key=lambda item: (item[0].device, item[0].interface)):
            leaf = self.index[leaf_end.device]
            position = per_leaf.get(leaf, 0)
            per_leaf[leaf] = position + 1
            up = self.switch_links + 2 * len(self.nics)
            nic_port = inventory.servers_by_name[nic_end.device].nics_by_name.get(nic_end.interface)
            self.nic_index[(nic_end.device, nic_end.interface)] = len(self.nics)
            self.nics.append(NicAttachment(
                server=nic_end.device, nic=nic_end.interface, rail=nic_port.rail if nic_port else 0, leaf=leaf,
                up_link=up, down_link=up + 1, ip=(10 << 24) | ((leaf // 256) << 16) | ((leaf % 256) << 8) | (position + 1)))
            host_tails += [-1, leaf]
            host_heads += [leaf, -1]
            host_speeds += [speed, speed]
            self.ends += [(nic_end, leaf_end), (leaf_end, nic_end)]
        self.tail = np.concatenate([tail_array, np.array(host_tails, dtype=np.int32)])
        self.head = np.concatenate([head_array, np.array(host_heads, dtype=np.int32)])
        self.gbps = np.concatenate([speed_array, np.array(host_speeds, dtype=np.float64)])
        # tier of every link: "leaf->spine", "spine->super-spine", ..., "nic->leaf", "leaf->nic"
        role_name = {-1: NIC, 0: "leaf", 1: "spine", 2: "super-spine"}
        tier_with_nic = np.concatenate([self.tier.astype(np.int64), [-1]])  # index -1: a NIC end
        pair = (tier_with_nic[self.tail] + 1) * 4 + (tier_with_nic[self.head] + 1)
        codes, link_tier = np.unique(pair, return_inverse=True)
        names = [f"{role_name[int(code) // 4 - 1]}->{role_name[int(code) % 4 - 1]}" for code in codes]
        ranked = sorted(range(len(names)), key=lambda position: _tier_order(names[position]))
        self.tier_names = [names[position] for position in ranked]
        remap = np.empty(len(names), dtype=np.int16)
        remap[ranked] = np.arange(len(names), dtype=np.int16)
        self.link_tier = remap[link_tier.ravel()]
        self.vtep_ip = (np.uint32(10 << 24 | 254 << 16) + np.arange(len(self.names), dtype=np.uint32)).astype(np.uint32)

    def label(self, link: int) -> str:
        tail_end, head_end = self.ends[link]
        return f"{tail_end}->{head_end}"

    @property
    def switch_count(self) -> int:
        return len(self.names)

    @property
    def link_count(self) -> int:
        return len(self.tail)

    def distances(self, destinations: np.ndarray) -> np.ndarray:
        """Hops from every switch to each destination switch: (destinations, switches) uint8, 255 unreachable."""
        count = self.switch_count
        result = np.full((len(destinations), count), UNREACHABLE, dtype=np.uint8)
        heads = self.head[: self.switch_links]
        starts = self.out_start[:-1]
        nonempty = np.flatnonzero(self.out_start[1:] > starts)
        for block in range(0, len(destinations), 64):
            targets = destinations[block: block + 64]
            width = len(targets)
            shifts = np.arange(width, dtype=np.uint64)
            frontier = np.zeros(count, dtype=np.uint64)
            frontier[targets] = np.uint64(1) << shifts
            reached = frontier.copy()
            result[block + np.arange(width), targets] = 0
            level = 0
            while True:
                level += 1
                gathered = np.zeros(count, dtype=np.uint64)
                if len(nonempty):
                    gathered[nonempty] = np.bitwise_or.reduceat(frontier[heads], starts[nonempty])
                new = gathered & ~reached
                if not new.any():
                    break
                reached |= new
                switch, bit = np.nonzero((new[:, None] >> shifts[None, :]) & np.uint64(1))
                result[block + bit, switch] = level
                frontier = new
        return result


class Routes:
    """ECMP next-hop members (link indices) of (switch, destination leaf), computed when first asked for."""

    def __init__(self, graph: FabricGraph, destinations: np.ndarray) -> None:
        self.graph = graph
        self.destinations = destinations.astype(np.int64)
        self.dest_count = len(destinations)
        self.distance = graph.distances(self.destinations)
        self.pair_id = np.full(graph.switch_count * self.dest_count, -1, dtype=np.int32)  # 82 MB at 5k x 4k
        self.start = np.zeros(0, dtype=np.int64)
        self.count = np.zeros(0, dtype=np.int64)
        self.signature = np.zeros(0, dtype=np.uint64)  # of the member set: equal sets, equal signatures
        self.members = np.zeros(0, dtype=np.int64)

    def groups(self, switch: np.ndarray, destination: np.ndarray) -> np.ndarray:
        """Pair ids of (switch, destination position) rows; ``start``/``count``/``signature`` index by them."""
        key = switch.astype(np.int64) * self.dest_count + destination
        ids = self.pair_id[key]
        missing = ids < 0
        if missing.any():
            self._add(np.unique(key[missing]))
            ids = self.pair_id[key]
        return ids

    def _add(self, keys: np.ndarray) -> None:
        """Members of new (switch, destination) pairs: up-links towards a switch one hop closer, and down-links to
        the destination itself or to one of its up-neighbours (the valley-free down paths of a 2-tier, 3-tier or
        5-stage Clos). Scanning every down-link of a spine for every destination would cost spines x leaves x
        leaves; a down next hop can only be the destination or its parent."""
        graph = self.graph
        switch, destination = keys // self.dest_count, keys % self.dest_count
        here = self.distance[destination, switch].astype(np.int16)
        target = self.destinations[destination]
        up_row, up_link = _expand(np.arange(len(keys)), graph.out_start[switch], graph.up_count[switch])
        # down to the destination itself (distance 1) or to a parent of it (distance 2)
        direct = np.flatnonzero(here == 1)
        parent_rows = np.flatnonzero((here == 2) & (graph.tier[switch] > 0))
        parent_row, parent_link = _expand(parent_rows, graph.out_start[target[parent_rows]],
                                          graph.up_count[target[parent_rows]])
        near = np.concatenate([target[direct], graph.head[parent_link].astype(np.int64)])
        near_row = np.concatenate([direct, parent_row])
        lookup = switch[near_row] * graph.switch_count + near
        low = np.searchsorted(graph.sorted_key, lookup, side="left")
        high = np.searchsorted(graph.sorted_key, lookup, side="right")
        down_row, down_position = _expand(near_row, low, high - low)
        row = np.concatenate([up_row, down_row])
        link = np.concatenate([up_link, graph.key_order[down_position]])
        there = self.distance[destination[row], graph.head[link]].astype(np.int16)
        keep = (there == here[row] - 1) & (here[row] != UNREACHABLE)
        row, link = row[keep], link[keep]
        order = np.lexsort((link, row))
        row, link = row[order], link[order]
        counts = np.bincount(row, minlength=len(keys))
        unreachable = np.flatnonzero(counts == 0)
        if len(unreachable):
            bad = int(unreachable[0])
            raise InputError([FieldError(
                "fabric", graph.names[int(switch[bad])],
                f"has no path to {graph.names[int(self.destinations[destination[bad]])]} "
                f"({len(unreachable)} switch/destination pair(s) unreachable): the fabric is partitioned")])
        starts = len(self.members) + np.cumsum(counts) - counts
        mixed = splitmix64(link.astype(np.uint64))
        signature = np.zeros(len(keys), dtype=np.uint64)
        signature[:] = np.bitwise_xor.reduceat(mixed, np.cumsum(counts) - counts) ^ counts.astype(np.uint64)
        self.pair_id[keys] = len(self.start) + np.arange(len(keys))
        self.start = np.concatenate([self.start, starts])
        self.count = np.concatenate([self.count, counts])
        self.signature = np.concatenate([self.signature, signature])
        self.members = np.concatenate([self.members, link])


def _expand(rows: np.ndarray, first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, first + k) for k in 0..count-1 of every row: a ragged range expansion."""
    count = count.astype(np.int64)
    repeated = np.repeat(rows, count)
    within = np.arange(len(repeated)) - np.repeat(np.cumsum(count) - count, count)
    return repeated, np.repeat(first.astype(np.int64), count) + within


def _tier_order(name: str) -> tuple[int, str]:
    order = ["nic->leaf", "leaf->spine", "spine->super-spine", "super-spine->spine", "spine->leaf", "leaf->nic"]
    return (order.index(name) if name in order else len(order), name)
