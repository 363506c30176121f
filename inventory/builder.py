"""The fabric builder: plan a Clos with ``compiler.clos.plan_clos`` and persist it with ``inventory_persist``.

``fabric_build_prepare`` + ``fabric_build_execute`` record a build as a ``FabricBuild`` run record (the API and
the UI: in the web process without a broker, in a Celery worker with one); ``fabric_build`` is the work itself.

The plan is pure and deterministic; persisting upserts by natural keys, so building twice changes nothing and
building with more leaves only adds objects. The builder also reports oversubscription per leaf
(server-facing capacity / spine-facing capacity; 1.0 is non-blocking).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from compiler.clos import ClosParams, plan_clos
from compiler.model import Endpoint, Inventory, Role
from compiler.pods import PodsParams, plan_pods
from twin.runs import run_execute

from .models import FabricBuild
from .services import PersistResult, inventory_persist


@dataclass(frozen=True, slots=True)
class LeafCapacity:
    leaf: str
    downlink_gbps: int  # cabled to servers
    uplink_gbps: int  # cabled to spines

    @property
    def ratio(self) -> float:
        return self.downlink_gbps / self.uplink_gbps if self.uplink_gbps else math.inf


@dataclass(frozen=True)
class BuildResult:
    inventory: Inventory
    persisted: PersistResult
    capacities: tuple[LeafCapacity, ...]

    def as_dict(self) -> dict:
        return {
            "fabric": self.inventory.fabric,
            "switches": len(self.inventory.switches),
            "servers": len(self.inventory.servers),
            "cables": len(self.inventory.cables),
            **self.persisted.as_dict(),
            "oversubscription": {c.leaf: (round(c.ratio, 3) if c.uplink_gbps else None) for c in self.capacities},
        }


def leaf_capacities(inventory: Inventory) -> tuple[LeafCapacity, ...]:
    capacities = []
    for leaf in inventory.switches_with_role(Role.LEAF):
        down = up = 0
        for interface in leaf.interfaces:
            here = Endpoint(leaf.hostname, interface.name)
            cable = inventory.cable_at.get(here)
            if cable is None:
                continue
            if inventory.role_of(cable.other_end(here).device) == "server":
                down += interface.speed_gbps
            else:
                up += interface.speed_gbps
        capacities.append(LeafCapacity(leaf.hostname, down, up))
    return tuple(capacities)


def oversubscription_table(capacities: tuple[LeafCapacity, ...], limit: int = 50) -> str:
    """A printable table; long fabrics show the first ``limit`` leaves and a summary line."""
    lines = [f"{'leaf':<16}{'downlink Gb/s':>15}{'uplink Gb/s':>13}{'ratio':>9}"]
    for capacity in capacities[:limit]:
        ratio = f"{capacity.ratio:.2f}:1" if capacity.uplink_gbps else "no uplink"
        lines.append(f"{capacity.leaf:<16}{capacity.downlink_gbps:>15}{capacity.uplink_gbps:>13}{ratio:>9}")
    if len(capacities) > limit:
        ratios = [c.ratio for c in capacities]
        lines.append(f"... {len(capacities) - limit} more leaves; ratio min {min(ratios):.2f} max {max(ratios):.2f}")
    return "\n".join(lines)


def fabric_build(*, params: ClosParams, progress: bool = False) -> BuildResult:
    """Plan ``params`` and persist the plan in one transaction."""
    inventory = plan_clos(params)
    persisted = inventory_persist(inventory=inventory, site=params.site, progress=progress)
    return BuildResult(inventory, persisted, leaf_capacities(inventory))


def fabric_build_prepare(*, params: ClosParams, requested_by=None) -> FabricBuild:
    """A pending build record of ``params`` (validated by the caller: the API plans once in its serializer)."""
    requested_by = requested_by if requested_by is not None and requested_by.is_authenticated else None
    return FabricBuild.objects.create(fabric_name=params.name, params=dataclasses.asdict(params),
                                      requested_by=requested_by)


def fabric_build_params(build: FabricBuild) -> ClosParams:
    stored = dict(build.params)
    stored["leaf_platforms"] = tuple(stored.get("leaf_platforms") or ())  # JSON has no tuples
    return ClosParams(**stored)


def fabric_build_execute(*, build: FabricBuild, progress: bool = False) -> FabricBuild:
    """Build and persist the recorded Clos (``twin.runs.run_execute``: a refused plan or inventory fails the
    record with its field errors; a bug fails it and is raised). ``summary`` keeps the counts, ``result`` the
    full ``BuildResult.as_dict()``."""
    with run_execute(build):
        result = fabric_build(params=fabric_build_params(build), progress=progress).as_dict()
        build.result = result
        build.summary = {key: result[key] for key in ("fabric", "switches", "servers", "cables")}
    return build
def fabric_build_pods(*, params: PodsParams, progress: bool = False) -> BuildResult:
    """A 5-stage Clos (``compiler.pods.plan_pods``: pods under super-spine planes), persisted the same way: growing
    ``pods`` adds pods and plugs new super-spine ports, nothing else moves."""
    inventory = plan_pods(params)
    persisted = inventory_persist(inventory=inventory, site=params.pod.site, progress=progress)
    return BuildResult(inventory, persisted, leaf_capacities(inventory))
