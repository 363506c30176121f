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
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from ipaddress import IPv4Network, ip_network

from common.runs import RunStatus, run_execute
from compiler.clos import ClosParams, plan_clos
from compiler.errors import FieldError, InputError
from compiler.model import Endpoint, Inventory, Role
from compiler.pods import PodsParams, plan_pods, tier_oversubscription

from .models import FabricBuild, Server, Switch
from .services import PersistResult, inventory_persist

# Management /16s are handed out from RFC 1918's 172.16.0.0/12 when a fabric keeps the planner's default pools
# and another fabric already uses them (several fabrics in one inventory: backend GPU + frontend/storage).
MGMT_POOL_SPACE = IPv4Network("172.16.0.0/12")
_DEFAULTS = ClosParams()


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
    notes: tuple[str, ...] = field(default=())  # what the builder decided for the caller (pools picked)
    tiers: dict[str, dict[str, float]] | None = None  # 5-stage: compiler.pods.tier_oversubscription

    def as_dict(self) -> dict:
        return {
            "fabric": self.inventory.fabric,
            "switches": len(self.inventory.switches),
            "servers": len(self.inventory.servers),
            "cables": len(self.inventory.cables),
            **self.persisted.as_dict(),
            "notes": list(self.notes),
            "oversubscription": {c.leaf: (round(c.ratio, 3) if c.uplink_gbps else None) for c in self.capacities},
            **({"tier_oversubscription": {  # JSON has no inf: None is "no uplink"
                tier: {key: None if math.isinf(value) else value for key, value in ratios.items()}
                for tier, ratios in self.tiers.items() if tier != Role.LEAF}} if self.tiers is not None else {}),
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


def management_pools(params: ClosParams) -> tuple[ClosParams, tuple[str, ...]]:
    """``params`` with management pools that no other fabric of the inventory uses, and notes saying why.

    A fabric that already has addresses keeps its pools when the caller left the defaults (rebuilds and growth
    are idempotent). Left at the default and taken by another fabric, a pool becomes the first free /16 of
    172.16.0.0/12; given explicitly and taken, it is a field error naming the holder and a free /16.
    """
    notes: list[str] = []
    used: dict[IPv4Network, str] = {}  # /16 -> the other fabric using it
    own: dict[str, IPv4Network] = {}  # "mgmt_pool"/"server_mgmt_pool" -> this fabric's /16 (rebuilds)
    for model, field_name in ((Switch, "mgmt_pool"), (Server, "server_mgmt_pool")):
        for address, fabric_name in (model.objects.exclude(mgmt_ip=None).values_list("mgmt_ip", "fabric__name")
                                     .order_by().distinct()):
            block = ip_network(f"{address}/16", strict=False)
            if not isinstance(block, IPv4Network):
                continue  # IPv6 management addresses cannot collide with an IPv4 pool
            if fabric_name == params.name:
                own.setdefault(field_name, block)
            else:
                used.setdefault(block, fabric_name)
    chosen: dict[str, str] = {}
    mine: list[IPv4Network] = []  # pools this fabric ends up with (its two pools must not overlap either)
    for field_name in ("mgmt_pool", "server_mgmt_pool"):
        value = getattr(params, field_name)
        try:
            pool = IPv4Network(value, strict=False)
        except ValueError:
            continue  # the planner names the field and the value
        default = value == getattr(_DEFAULTS, field_name)
        if default and field_name in own:
            chosen[field_name] = str(own[field_name])
            mine.append(own[field_name])
            continue
        taken = {block: holder for block, holder in used.items() if block.overlaps(pool)}
        if not taken and not any(other.overlaps(pool) for other in mine):
            mine.append(pool)
            continue
        free = _free_block(set(used) | set(mine), start=pool)
        holder = next(iter(taken.values()), params.name)
        if not default:
            raise InputError(FieldError(
                field_name, value, f"overlaps management addresses of fabric {holder}: use a free /16"
                                   + (f" such as {free}" if free else "")))
        if free is None:
            raise InputError(FieldError(field_name, value, f"used by fabric {holder} and no /16 of "
                                                                      f"{MGMT_POOL_SPACE} is free: give one"))
        chosen[field_name] = str(free)
        mine.append(free)
        notes.append(f"{field_name} {free} ({value} is used by fabric {holder})")
    return replace(params, **chosen), tuple(notes)


def _free_block(used: set[IPv4Network], *, start: IPv4Network) -> IPv4Network | None:
    """The first /16 of MGMT_POOL_SPACE at or after ``start`` (then from the beginning) that nothing uses."""
    blocks = list(MGMT_POOL_SPACE.subnets(new_prefix=16))
    first = next((index for index, block in enumerate(blocks) if block.overlaps(start)), 0)
    for block in blocks[first:] + blocks[:first]:
        if not any(block.overlaps(other) for other in used):
            return block
    return None


def fabric_build(*, params: ClosParams, progress: bool = False) -> BuildResult:
    """Plan ``params`` (with management pools free of other fabrics) and persist the plan in one transaction."""
    params, notes = management_pools(params)
    inventory = plan_clos(params)
    persisted = inventory_persist(inventory=inventory, site=params.site, progress=progress)
    return BuildResult(inventory, persisted, leaf_capacities(inventory), notes)


def fabric_build_prepare(*, params: ClosParams | PodsParams, requested_by=None) -> FabricBuild:
    """A pending build record of ``params`` (validated by the caller: the API plans once in its serializer); a
    PodsParams (5-stage Clos) is stored as its dict, the pod template under ``pod``."""
    requested_by = requested_by if requested_by is not None and requested_by.is_authenticated else None
    return FabricBuild.objects.create(fabric_name=params.name, params=dataclasses.asdict(params),
                                      requested_by=requested_by)


def fabric_build_params(build: FabricBuild) -> ClosParams | PodsParams:
    """The recorded parameters: a PodsParams when the record has a ``pod`` template (a 5-stage build)."""
    stored = dict(build.params)
    if "pod" in stored:
        return PodsParams(**{**stored, "pod": _clos_params(stored["pod"])})
    return _clos_params(stored)


def _clos_params(stored: dict) -> ClosParams:
    stored = dict(stored)
    stored["leaf_platforms"] = tuple(stored.get("leaf_platforms") or ())  # JSON has no tuples
    return ClosParams(**stored)


def fabric_build_execute(*, build: FabricBuild, progress: bool = False) -> FabricBuild:
    """Build and persist the recorded Clos or 5-stage Clos (``common.runs.run_execute``: a refused plan or
    inventory fails the record with its field errors; a bug fails it and is raised). ``summary`` keeps the
    counts, ``result`` the full ``BuildResult.as_dict()``."""
    params = fabric_build_params(build)
    _build_recorded(build, lambda: _build_run(params, progress))
    return build


def _build_run(params: ClosParams | PodsParams, progress: bool) -> BuildResult:
    if isinstance(params, PodsParams):
        return fabric_build_pods(params=params, progress=progress)
    return fabric_build(params=params, progress=progress)


def fabric_build_command(*, params: ClosParams | PodsParams, progress: bool = False
                         ) -> tuple[FabricBuild, BuildResult | None]:
    """What ``manage.py fabric_build`` runs: the build recorded like the API's and the UI's (a FabricBuild row),
    executed in this process; the BuildResult (None when the build failed) is for the command's report."""
    build = FabricBuild.objects.create(fabric_name=params.name, params=dataclasses.asdict(params))
    return build, _build_recorded(build, lambda: _build_run(params, progress))


def _build_recorded(build: FabricBuild, run: Callable[[], BuildResult]) -> BuildResult | None:
    outcome: BuildResult | None = None
    with run_execute(build):
        outcome = run()
        result = outcome.as_dict()
        build.result = result
        build.summary = {key: result[key] for key in ("fabric", "switches", "servers", "cables")}
    return outcome if build.status == RunStatus.SUCCEEDED else None


def fabric_build_pods(*, params: PodsParams, progress: bool = False) -> BuildResult:
    """A 5-stage Clos (``compiler.pods.plan_pods``: pods under super-spine planes), persisted the same way: growing
    ``pods`` adds pods and plugs new super-spine ports, nothing else moves."""
    # The same management-pool choice as a 3-stage build: the pod template carries the pools (issue #30 point 4).
    pod, notes = management_pools(replace(params.pod, name=params.name))
    params = replace(params, pod=pod)
    inventory = plan_pods(params)
    persisted = inventory_persist(inventory=inventory, site=params.pod.site, progress=progress)
    return BuildResult(inventory, persisted, leaf_capacities(inventory), notes,
                       tiers=tier_oversubscription(inventory))
