"""A training job's placement and the network connections of its collectives.

Placement: the job's servers in rank order (given, or the first fully cabled servers of the inventory); GPU ``g``
of a server with ``G`` GPUs and ``R`` cabled NICs uses NIC ``g * R // G`` (GPU i <-> NIC i on an 8-GPU,
8-NIC HGX/DGX node). Traffic between GPUs of one server rides NVLink and is not a fabric flow.

Connections follow NCCL's algorithms at the level of who sends how many bytes to whom (NCCL's ring and tree
all-reduce move 2(N-1)/N and ~2x the buffer per rank: Patarasuk & Yuan, JPDC 2009; NCCL documentation
"Collective operations"):

* ``ring-allreduce`` -- ``channels`` rings; ring c enters and leaves every server on rail ``c % R``
  (NCCL_CROSS_NIC=0, NCCL's default: a ring keeps to one rail), so the fabric carries one connection per server
  per ring, server i -> server i+1, each sending 2(N-1)/N x size / channels bytes (N ranks).
* ``allgather`` / ``reduce-scatter`` -- the same rings, (N-1)/N x size / channels bytes each.
* ``tree-allreduce`` -- NCCL's double binary tree over the servers: channel c uses tree c % 2 (tree 0 heap
  ordered, tree 1 the mirror image, so a leaf of one is interior in the other) on rail c % R; every tree edge
  carries size / channels both up (reduce) and down (broadcast).
* ``alltoall`` -- every GPU to every GPU of every other server, size / N bytes per pair, NIC to NIC.
* ``alltoall-pxn`` -- the same bytes with PXN (NCCL_PXN): data first moves over NVLink to the GPU on the
  destination's rail, so server a sends to server b on rail r only, rail-local.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from compiler.errors import FieldError, InputError
from compiler.model import Inventory

from .fabric import FabricGraph

COLLECTIVES = ("ring-allreduce", "tree-allreduce", "allgather", "reduce-scatter", "alltoall", "alltoall-pxn")
MAX_CONNECTIONS = 20_000_000  # beyond this an all-to-all is a different tool's job (memory: ~40 bytes a flow)


@dataclass(frozen=True)
class Job:
    """``servers`` in rank order, or empty to take the first fully cabled servers of the inventory holding ``gpus``
    GPUs (rounded up to whole servers)."""

    gpus: int = 0
    servers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Placement:
    servers: tuple[str, ...]
    gpus_per_server: int
    nics: np.ndarray  # (servers, rails) NIC attachment indices of the graph

    @property
    def ranks(self) -> int:
        return len(self.servers) * self.gpus_per_server

    @property
    def rails(self) -> int:
        return int(self.nics.shape[1])


def place(inventory: Inventory, graph: FabricGraph, job: Job) -> Placement:
    def cabled_nics(server) -> list[int] | None:
        found = [graph.nic_index.get((server.name, nic.name)) for nic in sorted(server.nics, key=lambda n: n.rail)]
        return None if not found or any(index is None for index in found) else [int(i) for i in found if i is not None]

    if job.servers:
        repeated = sorted(name for name, count in Counter(job.servers).items() if count > 1)
        if repeated:  # a rank order names each server once; a repeat would be a server talking to itself
            raise InputError([FieldError("job.servers", repeated[:4], "a server appears more than once")])
        chosen = []
        for name in job.servers:
            server = inventory.servers_by_name.get(name)
            if server is None:
                raise InputError([FieldError("job.servers", name, "no such server in the inventory")])
            if cabled_nics(server) is None:
                raise InputError([FieldError("job.servers", name, "has a NIC that is not cabled to a leaf")])
            chosen.append(server)
    else:
        if not isinstance(job.gpus, int) or job.gpus < 2:
            raise InputError([FieldError("job.gpus", job.gpus, "must be an integer >= 2 (or give job.servers)")])
        chosen, total = [], 0
        for server in inventory.servers:
            if total >= job.gpus:
                break
            if server.gpu_count > 0 and cabled_nics(server) is not None:
                chosen.append(server)
                total += server.gpu_count
        if total < job.gpus:
            raise InputError([FieldError("job.gpus", job.gpus, f"the inventory has {total} GPUs on fully cabled "
                                                               "servers")])
    shapes = {(server.gpu_count, len(server.nics)) for server in chosen}
    if len(shapes) != 1:
        raise InputError([FieldError("job.servers", [s.name for s in chosen][:4],
                                     f"mixed server shapes (GPUs, NICs) {sorted(shapes)}; one job, one shape")])
    if len(chosen) < 2:
        raise InputError([FieldError("job", job.servers or job.gpus, "a job on one server sends nothing over the "
                                                                       "fabric (NVLink only)")])
    nics = np.array([cabled_nics(server) for server in chosen], dtype=np.int64)
    return Placement(servers=tuple(s.name for s in chosen), gpus_per_server=chosen[0].gpu_count, nics=nics)


def connections(placement: Placement, kind: str, size_bytes: int, channels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(source NIC, destination NIC, bytes) of every fabric connection of one collective."""
    if kind not in COLLECTIVES:
        raise InputError([FieldError("collective", kind, f"must be one of {', '.join(COLLECTIVES)}")])
    if not isinstance(size_bytes, int) or size_bytes < 1:
        raise InputError([FieldError("size_bytes", size_bytes, "must be an integer >= 1")])
    if not isinstance(channels, int) or channels < 1:
        raise InputError([FieldError("channels", channels, "must be an integer >= 1")])
    servers, rails, gpus = len(placement.servers), placement.rails, placement.gpus_per_server
    ranks = placement.ranks
    nics = placement.nics
    index = np.arange(servers)
    if kind in ("ring-allreduce", "allgather", "reduce-scatter"):
        factor = 2 * (ranks - 1) / ranks if kind == "ring-allreduce" else (ranks - 1) / ranks
        rail = np.arange(channels) % rails
        src = nics[np.tile(index, channels), np.repeat(rail, servers)]
        dst = nics[np.tile((index + 1) % servers, channels), np.repeat(rail, servers)]
        size = np.full(len(src), factor * size_bytes / channels)
        return src, dst, size
    if kind == "tree-allreduce":
        sources, destinations = [], []
        for channel in range(channels):
            mirror = channel % 2 == 1
            tree_rail = channel % rails
            child = np.arange(1, servers)
            parent = (child - 1) // 2
            if mirror:
                child, parent = servers - 1 - child, servers - 1 - parent
            for a, b in ((child, parent), (parent, child)):  # reduce up, broadcast down
                sources.append(nics[a, tree_rail])
                destinations.append(nics[b, tree_rail])
        src, dst = np.concatenate(sources), np.concatenate(destinations)
        return src, dst, np.full(len(src), size_bytes / channels)
    pairs = servers * (servers - 1)
    per_pair = size_bytes / ranks
    a, b = np.nonzero(~np.eye(servers, dtype=bool))
    if kind == "alltoall-pxn":
        if pairs * rails > MAX_CONNECTIONS:
            raise _too_many(pairs * rails)
        src = nics[np.repeat(a, rails), np.tile(np.arange(rails), pairs)]
        dst = nics[np.repeat(b, rails), np.tile(np.arange(rails), pairs)]
        # all G x (G / R) GPU pairs of (a, b) whose destination GPU sits on rail r
        return src, dst, np.full(len(src), per_pair * gpus * gpus / rails)
    count = pairs * gpus * gpus
    if count > MAX_CONNECTIONS:
        raise _too_many(count)
    gpu_nic = np.arange(gpus) * rails // gpus
    src_gpu, dst_gpu = np.tile(np.repeat(np.arange(gpus), gpus), pairs), np.tile(np.arange(gpus), gpus * pairs)
    src = nics[np.repeat(a, gpus * gpus), gpu_nic[src_gpu]]
    dst = nics[np.repeat(b, gpus * gpus), gpu_nic[dst_gpu]]
    return src, dst, np.full(len(src), per_pair)


def _too_many(count: int) -> InputError:
    return InputError([FieldError("collective", count, f"{count:,} connections exceed the simulator's "
                                                       f"{MAX_CONNECTIONS:,}; use alltoall-pxn or fewer servers")])
