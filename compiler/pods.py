"""Plan a 5-stage Clos (pods under super-spine planes) from a few parameters (pure, deterministic, growable).

``plan_pods(PodsParams(...)) -> Inventory``. Every pod is the leaf-spine Clos of :func:`compiler.clos.plan_clos`
(so rail-optimised scalable units come for free: ``pod.rails_per_server`` leaves per rail group, server NIC *i* to
the group's rail-*i* leaf, as NVIDIA's DGX SuperPOD reference architecture cables an SU), with every name
prefixed ``pod<p>-``. Above the pods, a super-spine tier in planes: spine *k* of every pod connects to each
super-spine of plane *k* (``super_spine_links`` parallel links each), the "spine planes" of RFC 7938 section 3.2 /
Meta's F16 and the fabric of Arista's L3LS 5-stage designs. There are as many planes as spines per pod.

Stable under growth: adding pods adds pods (pod *p* uses super-spine ports ``(p-1) * links + 1 ..``), adding
leaves to the pod template adds leaves; nothing already planned is renamed, re-addressed or re-cabled.
Management addresses come in fixed blocks per pod (``MGMT_BLOCKS_PER_POD`` x 250 switch addresses), super-spines
take the first block.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field, replace

from .catalog import SWITCH_MODELS, media_for, standard_length
from .clos import (
    OS_VERSIONS,
    RACK_HEIGHT_U,
    ClosParams,
    _interface,
    _logical_ports,
    _mgmt_ip,
    _pick_model,
    plan_clos,
)
from .errors import FieldError, IntentValidationError
from .model import Cable, Endpoint, Inventory, Optic, Platform, Rack, Role, Server, Switch

MGMT_BLOCKS_PER_POD = 4  # third octets of the management /16 per pod: 1,000 switches
SUPER_SPINES_PER_RACK = 4  # a 1-2U super-spine shares a rack; chassis fill one each
CORE_RUN_M = 60.0  # spine row to core row: inter-row tray run (single-mode optics at 400G+)


@dataclass(frozen=True)
class PodsParams:
    name: str = "pods"
    pods: int = 2
    pod: ClosParams = field(default_factory=lambda: ClosParams(spines=2, leaves=2))  # every pod (name fields ignored)
    super_spines_per_plane: int = 1
    super_spine_links: int = 1  # parallel links between a spine and each super-spine of its plane
    super_spine_platform: str | None = None  # default: the pod's spine platform
    super_spine_model: str | None = None


def plan_pods(params: PodsParams) -> Inventory:
    """Super-spines, then every pod (spines, leaves, servers), then the spine<->super-spine cables."""
    _check(params)
    pod = params.pod
    planes = pod.spines
    per_plane_ports = params.super_spines_per_plane * params.super_spine_links
    platform = params.super_spine_platform or pod.spine_platform or pod.platform
    speed = pod.uplink_speed_gbps
    model = _pick_model(params.super_spine_model, platform, speed, params.pods * params.super_spine_links,
                        "super_spine_model")
    ports = _logical_ports(model, platform, speed, 1, model.port_count)
    per_rack = SUPER_SPINES_PER_RACK if model.port_count <= 64 else 1
    racks: dict[str, Rack] = {}
    switches: list[Switch] = []
    super_spine_names: list[list[str]] = [[] for _ in range(planes)]
    for index in range(planes * params.super_spines_per_plane):
        # The pod template's name_prefix names the whole fabric's switches and racks, super-spines included
        # (several 5-stage fabrics in one inventory, as with compiler.clos.ClosParams.name_prefix).
        rack = f"{pod.site}-{pod.name_prefix}core{index // per_rack + 1:02d}"
        racks.setdefault(rack, Rack(name=rack, site=pod.site, row="CORE", position=index // per_rack + 1,
                                    height_u=RACK_HEIGHT_U, power_budget_kw=pod.rack_power_budget_kw))
        hostname = f"{pod.name_prefix}superspine{index + 1}"
        plane = index // params.super_spines_per_plane
        super_spine_names[plane].append(hostname)
        switches.append(Switch(
            hostname=hostname, role=Role.SUPER_SPINE, platform=platform, model=model.name,
            interfaces=tuple(_interface(port) for port in ports), rack=rack,
            u_position=RACK_HEIGHT_U - 1 - (index % per_rack) * 2 if per_rack > 1 else 1,
            os_version=OS_VERSIONS[platform], mgmt_ip=_mgmt_ip(pod.mgmt_pool, 0, index + 1),
            serial=f"SN-{params.name}-{hostname}", status="planned", plane=plane,
        ))
    servers_per_pod = math.ceil(pod.leaves / pod.rails_per_server) * pod.servers_per_leaf
    server_blocks = max(math.ceil(servers_per_pod / 250), 1)
    models = {model.name: model}
    servers: list[Server] = []
    cables: list[Cable] = []
    pod_switches: list[Switch] = []
    for number in range(1, params.pods + 1):
        inventory = plan_clos(replace(pod, name=params.name, name_prefix=f"pod{number}-{pod.name_prefix}",
                                      planes=planes, spine_uplinks=per_plane_ports))
        models.update(inventory.models_by_name)
        racks.update(inventory.racks_by_name)
        cables.extend(inventory.cables)
        order = sorted(inventory.switches, key=lambda s: s.role != Role.SPINE)  # spines first, then leaves
        for position, switch in enumerate(order):
            third = 1 + (number - 1) * MGMT_BLOCKS_PER_POD + position // 250
            pod_switches.append(replace(switch, pod=number,
                                        mgmt_ip=_mgmt_ip(pod.mgmt_pool, third, position % 250 + 1)))
        for position, server in enumerate(inventory.servers):
            third = (number - 1) * server_blocks + position // 250
            servers.append(replace(server, mgmt_ip=_mgmt_ip(pod.server_mgmt_pool, third, position % 250 + 1)))
    # spine k of every pod <-> each super-spine of plane k, links from the spine's top ports down
    optics: dict[Endpoint, Optic] = {}
    media = media_for(speed, CORE_RUN_M)
    length = standard_length(media.cable_type, CORE_RUN_M)
    spines_by_name = {}
    for switch in pod_switches:
        if switch.role != Role.SPINE:
            continue
        spines_by_name[switch.hostname] = switch
        top = len(switch.interfaces) - per_plane_ports
        for offset, super_spine in enumerate(super_spine_names[switch.plane]):
            for link in range(params.super_spine_links):
                spine_end = Endpoint(switch.hostname, switch.interfaces[top + offset * params.super_spine_links
                                                                        + link].name)
                super_end = Endpoint(super_spine, ports[(switch.pod - 1) * params.super_spine_links + link].name)
                for end, form in ((spine_end, models[switch.model].form_factor), (super_end, model.form_factor)):
                    optics[end] = Optic(form_factor=form, media=media.name, speed_gbps=speed, reach_m=media.reach_m,
                                        vendor="Generic", part_number=f"GEN-{media.name}",
                                        serial=f"OPT-{end.device}-{end.interface}".replace("/", "-"))
                cables.append(Cable(label=f"{spine_end}--{super_end}", a=spine_end, b=super_end,
                                    cable_type=media.cable_type, length_m=length, status="planned"))
    all_switches = tuple(_with_new_optics(switch, optics) for switch in (*switches, *pod_switches))
    return Inventory(
        fabric=params.name, switches=all_switches, servers=tuple(servers), cables=tuple(cables),
        racks=tuple(sorted(racks.values(), key=lambda rack: (rack.row, rack.position, rack.name))),
        switch_models=tuple(sorted(models.values(), key=lambda item: item.name)),
    )


@dataclass(frozen=True)
class TierCapacity:
    """Cabled capacity per switch, Gb/s: ``down`` (server-facing on a leaf, leaf-facing on a spine, spine-facing on
    a super-spine), ``up`` (towards the next tier), ``rail_of`` (leaf -> the NIC rail its servers plug into) and
    ``link`` ((lower switch, upper switch) -> Gb/s over all their parallel links)."""

    down: dict[str, int]
    up: dict[str, int]
    rail_of: dict[str, int]
    link: dict[tuple[str, str], int]


def tier_capacity(inventory: Inventory) -> TierCapacity:
    """Every cable counted once from each end (the one home of per-tier capacity: tier_oversubscription here and
    the failure ratios of validators/clos5.py read it)."""
    down: dict[str, int] = defaultdict(int)
    up: dict[str, int] = defaultdict(int)
    link: dict[tuple[str, str], int] = defaultdict(int)
    rail_of: dict[str, int] = {}
    tier = {Role.LEAF: 1, Role.BORDER: 1, Role.SPINE: 2, Role.SUPER_SPINE: 3}
    for cable in inventory.cables:
        a_role, b_role = inventory.role_of(cable.a.device), inventory.role_of(cable.b.device)
        for near, far, near_role, far_role in ((cable.a, cable.b, a_role, b_role), (cable.b, cable.a, b_role, a_role)):
            if near_role not in tier:
                continue
            switch = inventory.switches_by_name[near.device]
            speed = switch.interfaces_by_name[near.interface].speed_gbps
            if far_role == "server":
                down[near.device] += speed
                nic = inventory.servers_by_name[far.device].nics_by_name.get(far.interface)
                if nic is not None:
                    rail_of[near.device] = nic.rail
            elif far_role in tier and tier[far_role] > tier[near_role]:
                up[near.device] += speed
                link[(near.device, far.device)] += speed
            elif far_role in tier and tier[far_role] < tier[near_role]:
                down[near.device] += speed
    return TierCapacity(down=down, up=up, rail_of=rail_of, link=link)


def oversubscription(down: float, up: float) -> float:
    """Downstream / upstream capacity, rounded to 3 decimals; inf when there is no uplink at all."""
    return round(down / up, 3) if up else math.inf


def tier_oversubscription(inventory: Inventory) -> dict[str, dict[str, float]]:
    """Downstream / upstream cabled capacity per tier: ``leaf`` (server-facing / spine-facing) per leaf, ``spine``
    (leaf-facing / super-spine-facing) per spine, ``plane`` (the spines of one plane together) and ``rail`` (the
    leaves carrying NIC rail r, together). A ratio of 1.0 is non-blocking; inf means no uplink at all."""
    capacity = tier_capacity(inventory)
    down, up, rail_of = capacity.down, capacity.up, capacity.rail_of
    result: dict[str, dict[str, float]] = {"leaf": {}, "spine": {}, "plane": {}, "rail": {}}
    plane_totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    rail_totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    has_super = any(s.role == Role.SUPER_SPINE for s in inventory.switches)
    for switch in inventory.switches:
        name = switch.hostname
        if switch.role in (Role.LEAF, Role.BORDER):
            result["leaf"][name] = oversubscription(down[name], up[name])
            if name in rail_of:
                totals = rail_totals[f"rail{rail_of[name]}"]
                totals[0] += down[name]
                totals[1] += up[name]
        elif switch.role == Role.SPINE and has_super:
            result["spine"][name] = oversubscription(down[name], up[name])
            totals = plane_totals[f"plane{switch.plane + 1}"]
            totals[0] += down[name]
            totals[1] += up[name]
    result["plane"] = {key: oversubscription(*value) for key, value in sorted(plane_totals.items())}
    result["rail"] = {key: oversubscription(*value) for key, value in sorted(rail_totals.items())}
    return result


def _with_new_optics(switch: Switch, optics: dict[Endpoint, Optic]) -> Switch:
    if switch.role not in (Role.SPINE, Role.SUPER_SPINE):  # only they gained cables here
        return switch
    interfaces = tuple(
        replace(interface, optic=optics[Endpoint(switch.hostname, interface.name)])
        if Endpoint(switch.hostname, interface.name) in optics else interface
        for interface in switch.interfaces
    )
    return replace(switch, interfaces=interfaces)


def _check(params: PodsParams) -> None:
    errors = []
    for field_name, minimum in (("pods", 1), ("super_spines_per_plane", 1), ("super_spine_links", 1)):
        value = getattr(params, field_name)
        if not isinstance(value, int) or value < minimum:
            errors.append(FieldError(field_name, value, f"must be an integer >= {minimum}"))
    if params.super_spine_model is not None and params.super_spine_model not in SWITCH_MODELS:
        errors.append(FieldError("super_spine_model", params.super_spine_model,
                                 f"unknown model; known: {', '.join(sorted(SWITCH_MODELS))}"))
    if params.super_spine_platform is not None and params.super_spine_platform not in Platform.ALL:
        errors.append(FieldError("super_spine_platform", params.super_spine_platform,
                                 f"must be one of {', '.join(Platform.ALL)}"))
    if not errors:
        blocks = 1 + params.pods * MGMT_BLOCKS_PER_POD
        if blocks > 256:
            errors.append(FieldError("pods", params.pods, f"the management /16 holds {255 // MGMT_BLOCKS_PER_POD} "
                                                          f"pods of {MGMT_BLOCKS_PER_POD * 250} switches"))
        elif params.pod.spines + params.pod.leaves > MGMT_BLOCKS_PER_POD * 250:
            errors.append(FieldError("pod.leaves", params.pod.leaves,
                                     f"a pod holds {MGMT_BLOCKS_PER_POD * 250} switches (management block)"))
        elif params.super_spines_per_plane * params.pod.spines > 250:
            errors.append(FieldError("super_spines_per_plane", params.super_spines_per_plane,
                                     "at most 250 super-spines (management block)"))
    if errors:
        raise IntentValidationError(errors)
