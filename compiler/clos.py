"""Plan a leaf-spine Clos inventory from a few parameters (pure, deterministic, growable).

``plan_clos(ClosParams(...)) -> Inventory`` is the one builder of Clos inventories: the Django fabric builder
persists its output, and the compiler tests and the benchmarks use it directly.

Layout rules (stable under growth: adding leaves only adds objects, nothing is renamed or re-cabled):
- Leaves are grouped in rail groups of ``rails_per_server`` leaves; a group shares one rack with its servers,
  and NIC rail r of every server in the group is cabled to leaf r of the group (rail-optimised; with one rail
  this is the classic top-of-rack design).
- Leaf downlinks use the lowest ports, uplinks the highest; spine port j serves leaf ((j-1) // uplinks) + 1.
- When a link speed is below the port speed the port is broken out (e.g. 800G OSFP as 2x400G).
- Cable media are chosen from the run length (DAC, then AOC, then multi-mode, then single-mode) and the
  length is rounded up to a standard cable length: see compiler.catalog.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from ipaddress import IPv4Network

from . import platforms
from .catalog import DEFAULT_MODELS_BY_PLATFORM, MEDIA, SWITCH_MODELS, Media, media_for, standard_length
from .errors import FieldError, InputError
from .model import (
    Cable,
    Endpoint,
    Interface,
    Inventory,
    NicPort,
    Optic,
    Platform,
    Rack,
    Role,
    Server,
    Switch,
    SwitchModelSpec,
)
from .names import HOSTNAME, name_problem

OS_VERSIONS = {Platform.EOS: "4.32.2F", Platform.SONIC: "SONiC.202405", Platform.FRR: "FRR 8.4.4"}

RACK_HEIGHT_U = 42
SERVER_HEIGHT_U = 4  # an 8-GPU HGX/DGX-class node
LEAF_HEIGHT_U = 2
RACK_WIDTH_M = 0.6  # 600 mm racks: horizontal run per rack position
ROW_PITCH_M = 12.0  # cable-tray run between adjacent rows
VERTICAL_RUN_M = 3.0  # up to the tray and down again
RACKS_PER_ROW = 16
SPINES_PER_NETWORK_RACK = 8


@dataclass(frozen=True)
class ClosParams:
    name: str = "ref"
    spines: int = 2
    leaves: int = 4
    servers_per_leaf: int = 2
    rails_per_server: int = 1
    uplink_speed_gbps: int = 400
    downlink_speed_gbps: int = 400
    uplinks_per_spine: int = 1
    platform: str = Platform.EOS
    spine_platform: str | None = None
    leaf_platforms: tuple[str, ...] = ()  # cycled over the leaves when set (mixed fabrics)
    leaf_model: str | None = None
    spine_model: str | None = None
    planes: int = 1
    site: str = "dc1"
    server_gpus: int = 8
    server_power_w: float = 10200.0  # NVIDIA DGX H100: 10.2 kW maximum system power
    rack_power_budget_kw: float = 40.0  # servers are packed by power as well as by rack units; 0 = no budget
    name_prefix: str = ""  # prepended to switch, server and rack names: several fabrics in one inventory
    mgmt_pool: str = "172.16.0.0/16"  # switch management addresses
    server_mgmt_pool: str = "172.20.0.0/16"  # server management addresses
    spine_uplinks: int = 0  # ports each spine keeps free at the top for a super-spine tier (compiler.clos.plan_pods)


@dataclass(frozen=True, slots=True)
class _Port:
    name: str
    speed_gbps: int
    breakout_parent: str | None
    lane: int | None


def plan_clos(params: ClosParams) -> Inventory:
    """The whole Clos inventory for ``params``: racks, switches with every port, optics, cables, servers, NICs."""
    _check_params(params)
    spine_platform = params.spine_platform or params.platform
    leaf_platforms = [
        params.leaf_platforms[index % len(params.leaf_platforms)] if params.leaf_platforms else params.platform
        for index in range(params.leaves)
    ]
    uplink_count = params.spines * params.uplinks_per_spine
    spine_model = _pick_model(
        params.spine_model, spine_platform, params.uplink_speed_gbps,
        params.leaves * params.uplinks_per_spine + params.spine_uplinks, "spine_model",
    )
    leaf_models = {
        platform: _pick_model(
            params.leaf_model, platform, max(params.uplink_speed_gbps, params.downlink_speed_gbps),
            uplink_count + params.servers_per_leaf, "leaf_model",
            other_speeds=(params.uplink_speed_gbps, params.downlink_speed_gbps),
        )
        for platform in sorted(set(leaf_platforms))
    }

    racks: dict[str, Rack] = {}
    switches: list[Switch] = []
    servers: list[Server] = []
    cables: list[Cable] = []
    rack_positions: dict[str, tuple[int, int]] = {}  # rack -> (row index, position) for run lengths

    def add_rack(name: str, row_index: int, position: int) -> None:
        if name not in racks:
            row = "NET" if row_index == 0 else _row_letter(row_index)
            racks[name] = Rack(
                name=name, site=params.site, row=row, position=position, height_u=RACK_HEIGHT_U,
                power_budget_kw=params.rack_power_budget_kw,
            )
            rack_positions[name] = (row_index, position)

    # --- spines: network racks in row 0
    spine_ports = _logical_ports(spine_model, spine_platform, params.uplink_speed_gbps, 1, spine_model.port_count)
    spine_names = []
    # Fixed 1-2U spines share network racks; a modular chassis (more than 64 ports) fills a rack of its own.
    spines_per_rack = SPINES_PER_NETWORK_RACK if spine_model.port_count <= 64 else 1
    for spine_index in range(1, params.spines + 1):
        rack_index = (spine_index - 1) // spines_per_rack + 1
        rack_name = f"{params.site}-{params.name_prefix}net{rack_index:02d}"
        add_rack(rack_name, 0, rack_index)
        slot = (spine_index - 1) % spines_per_rack
        hostname = f"{params.name_prefix}spine{spine_index}"
        spine_names.append(hostname)
        switches.append(
            Switch(
                hostname=hostname, role=Role.SPINE, platform=spine_platform, model=spine_model.name,
                interfaces=tuple(_interface(port) for port in spine_ports), rack=rack_name,
                u_position=RACK_HEIGHT_U - 1 - slot * LEAF_HEIGHT_U if spine_model.port_count <= 64 else 1,
                os_version=OS_VERSIONS[spine_platform], mgmt_ip=_mgmt_ip(params.mgmt_pool, 0, spine_index),
                serial=f"SN-{params.name}-{hostname}", status="planned",
                plane=(spine_index - 1) * params.planes // params.spines,
            )
        )

    # --- leaves, rail groups, servers
    leaf_ports: dict[str, list[_Port]] = {}
    leaf_layouts: dict[str, tuple[list[_Port], int, tuple[Interface, ...]]] = {}
    uplink_start: dict[str, int] = {}
    for leaf_index in range(1, params.leaves + 1):
        platform = leaf_platforms[leaf_index - 1]
        model = leaf_models[platform]
        group = (leaf_index - 1) // params.rails_per_server
        rail = (leaf_index - 1) % params.rails_per_server
        rack_name = f"{params.site}-{params.name_prefix}r{group + 1:03d}"
        add_rack(rack_name, group // RACKS_PER_ROW + 1, group % RACKS_PER_ROW + 1)
        hostname = f"{params.name_prefix}leaf{leaf_index}"
        if platform not in leaf_layouts:  # every leaf of one platform has the same ports: name them once
            ports, first_uplink = _leaf_ports(model, platform, params, uplink_count)
            leaf_layouts[platform] = (ports, first_uplink, tuple(_interface(port) for port in ports))
        ports, uplink_start[hostname], interfaces = leaf_layouts[platform]
        leaf_ports[hostname] = ports
        switches.append(
            Switch(
                hostname=hostname, role=Role.LEAF, platform=platform, model=model.name,
                interfaces=interfaces, rack=rack_name,
                u_position=RACK_HEIGHT_U - 1 - rail * LEAF_HEIGHT_U, os_version=OS_VERSIONS[platform],
                mgmt_ip=_mgmt_ip(params.mgmt_pool, 1 + (leaf_index - 1) // 250, (leaf_index - 1) % 250 + 1),
                serial=f"SN-{params.name}-{hostname}", status="planned",
            )
        )

    switch_by_name = {switch.hostname: switch for switch in switches}
    models_by_name = {spine_model.name: spine_model, **{m.name: m for m in leaf_models.values()}}
    optics: dict[tuple[str, str], Optic] = {}  # (device, interface) -> optic

    def cable(a: Endpoint, a_form: str, b: Endpoint, b_form: str, speed: int, distance_m: float,
              speed_field: str) -> None:
        media = _media(speed, distance_m, speed_field)
        length = standard_length(media.cable_type, distance_m)
        for end, form in ((a, a_form), (b, b_form)):
            optics[(end.device, end.interface)] = Optic(
                form_factor=form, media=media.name, speed_gbps=speed, reach_m=media.reach_m, vendor="Generic",
                part_number=f"GEN-{media.name}", serial=f"OPT-{end.device}-{end.interface}".replace("/", "-"),
            )
        cables.append(Cable(
            label=f"{a.device}:{a.interface}--{b.device}:{b.interface}", a=a, b=b, cable_type=media.cable_type,
            length_m=length, status="planned",
        ))

    # leaf <-> spine
    for leaf_index in range(1, params.leaves + 1):
        hostname = f"{params.name_prefix}leaf{leaf_index}"
        leaf = switch_by_name[hostname]
        leaf_rack = rack_positions[_planned_rack(leaf)]
        for spine_offset, spine_name in enumerate(spine_names):
            spine = switch_by_name[spine_name]
            spine_rack = rack_positions[_planned_rack(spine)]
            distance = VERTICAL_RUN_M + RACK_WIDTH_M * abs(leaf_rack[1] - spine_rack[1]) + ROW_PITCH_M * leaf_rack[0]
            for link in range(params.uplinks_per_spine):
                leaf_port = leaf_ports[hostname][uplink_start[hostname] + spine_offset * params.uplinks_per_spine + link]
                spine_port = spine_ports[(leaf_index - 1) * params.uplinks_per_spine + link]
                cable(
                    Endpoint(hostname, leaf_port.name), models_by_name[leaf.model].form_factor,
                    Endpoint(spine_name, spine_port.name), spine_model.form_factor,
                    params.uplink_speed_gbps, distance, "uplink_speed_gbps",
                )

    # servers <-> leaves (one NIC per rail, NIC rail r to leaf r of the rail group)
    groups = math.ceil(params.leaves / params.rails_per_server)
    leaf_power_w = max(model.typical_power_w for model in leaf_models.values())
    first_rack_capacity, overflow_capacity = _servers_per_rack(params, leaf_power_w)
    nic_form = "OSFP" if params.downlink_speed_gbps >= 800 else "QSFP112"
    for group in range(groups):
        group_rack = f"{params.site}-{params.name_prefix}r{group + 1:03d}"
        for slot in range(params.servers_per_leaf):
            if slot < first_rack_capacity:
                overflow, position_in_rack = 0, slot
            else:
                overflow, position_in_rack = divmod(slot - first_rack_capacity, overflow_capacity)
                overflow += 1
            rack_name = group_rack if overflow == 0 else f"{group_rack}-{overflow + 1}"
            if overflow and rack_name not in racks:
                row_index, position = rack_positions[group_rack]
                racks[rack_name] = Rack(
                    name=rack_name, site=params.site, row=_row_letter(row_index), position=position,
                    height_u=RACK_HEIGHT_U, power_budget_kw=params.rack_power_budget_kw,
                )
            server_number = group * params.servers_per_leaf + slot + 1
            name = f"{params.name_prefix}gpu{server_number:04d}"
            nics = tuple(
                NicPort(name=f"eth{rail}", rail=rail, speed_gbps=params.downlink_speed_gbps, mtu=9000)
                for rail in range(params.rails_per_server)
            )
            servers.append(Server(
                name=name, nics=nics, rack=rack_name, u_position=1 + position_in_rack * SERVER_HEIGHT_U,
                gpu_count=params.server_gpus, power_w=params.server_power_w,
                mgmt_ip=_mgmt_ip(params.server_mgmt_pool, (server_number - 1) // 250, (server_number - 1) % 250 + 1),
                serial=f"SN-{params.name}-{name}",
            ))
            for rail in range(params.rails_per_server):
                leaf_index = group * params.rails_per_server + rail + 1
                if leaf_index > params.leaves:
                    continue
                hostname = f"{params.name_prefix}leaf{leaf_index}"
                leaf = switch_by_name[hostname]
                distance = 2.0 + RACK_WIDTH_M * overflow
                cable(
                    Endpoint(name, f"eth{rail}"), nic_form,
                    Endpoint(hostname, leaf_ports[hostname][slot].name), models_by_name[leaf.model].form_factor,
                    params.downlink_speed_gbps, distance, "downlink_speed_gbps",
                )

    # attach optics to the interfaces and NIC ports they sit in
    switches = [
        _with_optics(switch, optics) for switch in switches
    ]
    servers = [
        Server(
            name=server.name, rack=server.rack, u_position=server.u_position, gpu_count=server.gpu_count,
            power_w=server.power_w, mgmt_ip=server.mgmt_ip, serial=server.serial,
            nics=tuple(
                NicPort(nic.name, nic.rail, nic.speed_gbps, nic.mtu, optics.get((server.name, nic.name)))
                for nic in server.nics
            ),
        )
        for server in servers
    ]
    return Inventory(
        fabric=params.name,
        switches=tuple(switches),
        servers=tuple(servers),
        cables=tuple(cables),
        racks=tuple(sorted(racks.values(), key=lambda rack: (rack.row, rack.position, rack.name))),
        switch_models=tuple(sorted(models_by_name.values(), key=lambda model: model.name)),
    )


def oversubscription(inventory: Inventory) -> dict[str, float]:
    """Per leaf: downlink capacity (server-facing, cabled) / uplink capacity (spine-facing, cabled)."""
    result: dict[str, float] = {}
    for leaf in inventory.switches_with_role(Role.LEAF):
        down = up = 0
        for interface in leaf.interfaces:
            cable = inventory.cable_at.get(Endpoint(leaf.hostname, interface.name))
            if cable is None:
                continue
            peer = cable.other_end(Endpoint(leaf.hostname, interface.name)).device
            if inventory.role_of(peer) == "server":
                down += interface.speed_gbps
            else:
                up += interface.speed_gbps
        result[leaf.hostname] = round(down / up, 3) if up else math.inf
    return result


# --------------------------------------------------------------------------------------------- helpers


def _check_params(params: ClosParams) -> None:
    errors = []
    for field_name, minimum in (("spines", 1), ("leaves", 1), ("servers_per_leaf", 0), ("rails_per_server", 1),
                                ("uplinks_per_spine", 1), ("planes", 1), ("spine_uplinks", 0)):
        value = getattr(params, field_name)
        if not isinstance(value, int) or value < minimum:
            errors.append(FieldError(field_name, value, f"must be an integer >= {minimum}"))
    for field_name in ("uplink_speed_gbps", "downlink_speed_gbps"):
        value = getattr(params, field_name)
        if value not in (100, 200, 400, 800):
            errors.append(FieldError(field_name, value, "must be one of 100, 200, 400, 800"))
    for field_name in ("platform", "spine_platform"):
        value = getattr(params, field_name)
        if value is not None and value not in Platform.ALL:
            errors.append(FieldError(field_name, value, f"must be one of {', '.join(Platform.ALL)}"))
    for value in params.leaf_platforms:
        if value not in Platform.ALL:
            errors.append(FieldError("leaf_platforms", value, f"must be one of {', '.join(Platform.ALL)}"))
    for field_name in ("leaf_model", "spine_model"):
        value = getattr(params, field_name)
        if value is not None and value not in SWITCH_MODELS:
            errors.append(FieldError(field_name, value, f"unknown model; known: {', '.join(sorted(SWITCH_MODELS))}"))
    for field_name in ("mgmt_pool", "server_mgmt_pool"):
        value = getattr(params, field_name)
        try:
            if IPv4Network(value, strict=False).prefixlen > 16:
                errors.append(FieldError(field_name, value, "needs at least a /16 (a /16 gives 250 x 250 addresses)"))
        except ValueError:
            errors.append(FieldError(field_name, value, "must be an IPv4 prefix such as 172.16.0.0/16"))
    # The prefix starts every hostname, so it must start an RFC 1123 label (compiler.names.HOSTNAME).
    if params.name_prefix and name_problem(HOSTNAME, f"{params.name_prefix}x"):
        errors.append(FieldError("name_prefix", params.name_prefix,
                                 "letters, digits and '-' only, starting with a letter or digit (it starts hostnames)"))
    if not errors and params.planes > params.spines:
        errors.append(FieldError("planes", params.planes, f"cannot exceed the number of spines ({params.spines})"))
    if errors:
        raise InputError(errors)


def _servers_per_rack(params: ClosParams, leaf_power_w: float) -> tuple[int, int]:
    """Servers in a rail group's own rack (beside its leaves) and in each overflow rack: limited by rack units
    and, when a budget is set, by power (servers draw their maximum system power, switches their typical power)."""
    first = (RACK_HEIGHT_U - LEAF_HEIGHT_U * params.rails_per_server) // SERVER_HEIGHT_U
    overflow = RACK_HEIGHT_U // SERVER_HEIGHT_U
    budget_w = params.rack_power_budget_kw * 1000
    if budget_w > 0 and params.server_power_w > 0:
        first = min(first, int((budget_w - params.rails_per_server * leaf_power_w) // params.server_power_w))
        overflow = min(overflow, int(budget_w // params.server_power_w))
        if overflow < 1:
            raise InputError(FieldError(
                "rack_power_budget_kw", params.rack_power_budget_kw,
                f"too small for one {params.server_power_w / 1000:.1f} kW server per rack",
            ))
    return max(first, 0), overflow


def _mgmt_ip(pool: str, third: int, fourth: int) -> str:
    """Address <third>.<fourth> of a management /16 (deterministic, stable as the fabric grows)."""
    network = IPv4Network(pool, strict=False)
    return str(network.network_address + third * 256 + fourth)


def _breakout(model: SwitchModelSpec, speed_gbps: int, platform: str) -> int:
    """How many logical ports one physical port gives at this speed (1 = no breakout, 0 = not possible).

    The platform data decides for SONiC (the HWSKU's breakout modes), the catalogue for EOS and FRR.
    """
    return platforms.breakout_count(model.name, platform, speed_gbps, model.max_speed_gbps, model.breakout_modes)


def _pick_model(name: str | None, platform: str, speed_gbps: int, ports_needed: int, field: str,
                other_speeds: tuple[int, ...] = ()) -> SwitchModelSpec:
    candidates = [SWITCH_MODELS[name]] if name else [SWITCH_MODELS[n] for n in DEFAULT_MODELS_BY_PLATFORM[platform]]
    if name and not platforms.runs(name, platform):
        runs_on = [other for other in Platform.ALL if platforms.runs(name, other)]
        raise InputError(FieldError(field, name, f"{name} has no {platform} platform data "
                                                 f"(compiler/platforms/data/{name}.json); it runs "
                                                 f"{', '.join(runs_on) or 'no modelled platform'}: choose that "
                                                 "platform or another model"))
    if name:
        missing = [speed for speed in (speed_gbps, *other_speeds) if not _breakout(SWITCH_MODELS[name], speed, platform)]
        if missing:
            raise InputError(FieldError(
                field, name, f"{name} under {platform} has no port mode for {missing[0]}G (breakout modes in "
                             f"compiler/platforms/data/{name}.json or the catalogue)"))
    for model in candidates:
        lanes = _breakout(model, speed_gbps, platform)
        if not all(_breakout(model, other, platform) for other in other_speeds):
            continue
        if lanes and model.port_count * lanes >= ports_needed:
            return model
    raise InputError(FieldError(
        field, name or f"auto ({platform})",
        f"no switch model gives {ports_needed} ports at {speed_gbps}G",
    ))


def _media(speed_gbps: int, distance_m: float, field: str) -> Media:
    """The catalogue media for a planned link, or a field error naming the speed when none reaches that far."""
    try:
        return media_for(speed_gbps, distance_m)
    except ValueError:
        speeds = sorted({media.speed_gbps for media in MEDIA.values()})
        reach = max((media.reach_m for media in MEDIA.values() if media.speed_gbps == speed_gbps), default=0.0)
        hint = (f"the longest {speed_gbps}G media reaches {reach:g} m" if reach
                else f"catalogued speeds: {', '.join(map(str, speeds))}")
        raise InputError(FieldError(field, speed_gbps, f"no optic or cable for a {distance_m:g} m run at "
                                                       f"{speed_gbps}G ({hint}; compiler/catalog.py MEDIA)")) from None


def _planned_rack(switch: Switch) -> str:
    """The rack of a switch this planner placed (it gives every switch one; the model allows none)."""
    assert switch.rack is not None, switch.hostname
    return switch.rack


def _logical_ports(model: SwitchModelSpec, platform: str, speed: int, first: int, last: int) -> list[_Port]:
    """Ports ``first``..``last`` (1-based front panel) at ``speed``, named from the platform data."""
    lanes = _breakout(model, speed, platform)
    ports: list[_Port] = []
    for port in range(first, last + 1):
        names = platforms.port_names(model.name, platform, port, lanes, speed)
        parent = None if lanes == 1 else platforms.parent_name(model.name, platform, port)
        ports.extend(_Port(name, speed, parent, subport) for name, subport in names)
    return ports


def _leaf_ports(
    model: SwitchModelSpec, platform: str, params: ClosParams, uplink_count: int
) -> tuple[list[_Port], int]:
    """Downlink ports from port 1, uplink ports at the top, unused ports in between at full speed.

    Returns the ports and the index of the first uplink port in that list.
    """
    down_lanes = _breakout(model, params.downlink_speed_gbps, platform)
    up_lanes = _breakout(model, params.uplink_speed_gbps, platform)
    down_physical = math.ceil(params.servers_per_leaf / down_lanes) if params.servers_per_leaf else 0
    up_physical = math.ceil(uplink_count / up_lanes)
    if down_physical + up_physical > model.port_count:
        raise InputError(FieldError(
            "servers_per_leaf", params.servers_per_leaf,
            f"{model.name} has {model.port_count} ports; {down_physical} downlink + {up_physical} uplink ports needed",
        ))
    down = _logical_ports(model, platform, params.downlink_speed_gbps, 1, down_physical)
    middle = _logical_ports(model, platform, model.max_speed_gbps, down_physical + 1, model.port_count - up_physical)
    up = _logical_ports(model, platform, params.uplink_speed_gbps, model.port_count - up_physical + 1, model.port_count)
    return down + middle + up, len(down) + len(middle)


def _interface(port: _Port) -> Interface:
    return Interface(
        name=port.name, speed_gbps=port.speed_gbps, mtu=9214, enabled=True,
        breakout_parent=port.breakout_parent, lane=port.lane,
    )


def _with_optics(switch: Switch, optics: dict[tuple[str, str], Optic]) -> Switch:
    interfaces = tuple(
        Interface(
            name=i.name, speed_gbps=i.speed_gbps, mtu=i.mtu, enabled=i.enabled, description=i.description,
            breakout_parent=i.breakout_parent, lane=i.lane, optic=optics.get((switch.hostname, i.name)),
        )
        for i in switch.interfaces
    )
    return Switch(
        hostname=switch.hostname, role=switch.role, platform=switch.platform, model=switch.model,
        interfaces=interfaces, rack=switch.rack, u_position=switch.u_position, os_version=switch.os_version,
        mgmt_ip=switch.mgmt_ip, serial=switch.serial, status=switch.status, plane=switch.plane, pod=switch.pod,
    )


def _row_letter(row_index: int) -> str:
    """Server rows A, B, ... Z, AA, AB ... (row 0 is the network row N)."""
    letters = ""
    number = row_index
    while number > 0:
        number, remainder = divmod(number - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters
