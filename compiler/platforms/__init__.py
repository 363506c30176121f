"""Platform data: which front-panel ports a switch model has under each OS, and how they break out.

One data file per model in ``data/<model>.json`` (data, transcribed; each names its source and commit):

- ``sonic``: the HWSKU's ports from sonic-buildimage ``device/<vendor>/<platform>/<hwsku>/port_config.ini``
  (name, lanes, alias, index, speed, fec), ``hwsku.json`` (default breakout mode) and the platform's
  ``platform.json`` (breakout modes with their aliases). A file whose ``sonic.derived`` is true has no vendor
  source (the DCS-7816R4: SONiC has no 7800R4 platform); its lanes are placeholders and it says so.
- ``eos``: Arista's interface naming (``Ethernet<port>/<lane>``, modular ``Ethernet<slot>/<port>/<lane>``).
- FRR/Linux switches name ports ``swp<port>`` / ``swp<port>s<subport>`` (the Cumulus/ONIE convention), for every
  model: :func:`port_names` derives those from the catalogue's port count.

Breakout naming follows SONiC's own rule (sonic-config-engine ``portconfig.py`` ``BreakoutCfg``): a port of L
lanes broken into N sub-ports gives ``Ethernet<first + i*L/N>`` with lanes ``[i*L/N, (i+1)*L/N)``, the parent's
index and the i-th alias of the mode. EOS names a sub-port by its first lane: 2x400G on an 8-lane port gives
``Ethernet1/1`` and ``Ethernet1/5``. Pure Python; never imports Django.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from types import MappingProxyType

from compiler.errors import PlatformDataError

__all__ = [
    "EosNaming", "ModelPlatforms", "PlatformDataError", "PortProblem", "SonicLogicalPort", "SonicPlatform", "SonicPort",
    "breakout_count", "inventory_port_problems", "known_models", "model_platforms", "parent_name", "parse_breakout_mode", "port_names",
    "port_problem", "runs", "sonic_breakout_mode", "sonic_logical_ports", "sonic_platform", "sonic_port_layout",
    "valid_port_names",
]

DATA_DIR = Path(__file__).parent / "data"
# "2x400G[200G,100G]": 2 sub-ports of 400G, each may also run at 200G or 100G (platform.json key format).
_MODE = re.compile(r"^(?P<count>\d+)x(?P<speed>\d+)G(?:\[(?P<alternatives>[0-9G,]*)\])?$")
_FRR_NAME = re.compile(r"^swp(?P<port>[0-9]+)(?:s(?P<subport>[0-9]+))?$")


@dataclass(frozen=True, slots=True)
class SonicPort:
    """One row of the HWSKU's port_config.ini with its platform.json breakout modes."""

    name: str
    lanes: tuple[int, ...]
    alias: str
    index: int
    speed_gbps: int
    fec: str | None
    default_breakout_mode: str | None
    breakout_modes: Mapping[str, tuple[str, ...]]  # platform.json key -> aliases of the sub-ports


@dataclass(frozen=True, slots=True)
class SonicLogicalPort:
    """A port as SONiC creates it for one breakout mode of its parent: what PORT and BREAKOUT_CFG carry."""

    name: str
    parent: str
    lanes: tuple[int, ...]
    alias: str
    index: int
    breakout_mode: str


@dataclass(frozen=True)
class SonicPlatform:
    platform: str | None
    hwsku: str | None
    management_port: str
    derived: bool
    source: Mapping
    ports: tuple[SonicPort, ...]
    # The platform has a platform.json breakout table (dynamic port breakout); without one SONiC creates no
    # BREAKOUT_CFG and the HWSKU's default mode is the only one (e.g. DellEMC-Z9664f-O64).
    breakout_table: bool = False

    __hash__ = None  # type: ignore[assignment]  # holds mappings: unhashable on purpose

    def port(self, name: str) -> SonicPort | None:
        return self._by_name.get(name)

    @property
    def _by_name(self) -> dict[str, SonicPort]:
        found = self.__dict__.get("_by_name_cache")
        if found is None:
            found = {port.name: port for port in self.ports}
            object.__setattr__(self, "_by_name_cache", found)
        return found


@dataclass(frozen=True)
class EosNaming:
    interface_format: str
    lanes_per_port: int
    management_interface: str
    source: str
    first_slot: int | None = None
    ports_per_slot: int | None = None

    def __post_init__(self) -> None:
        if self.ports_per_slot and self.first_slot is None:
            raise PlatformDataError(f"eos.first_slot={self.first_slot!r}: needed with eos.ports_per_slot "
                                    f"{self.ports_per_slot} (modular naming Ethernet<slot>/<port>)")


@dataclass(frozen=True)
class ModelPlatforms:
    model: str
    vendor: str
    front_panel_ports: int
    eos: EosNaming | None
    sonic: SonicPlatform | None

    __hash__ = None  # type: ignore[assignment]  # holds mappings: unhashable on purpose


def parse_breakout_mode(mode: str) -> tuple[int, int, tuple[int, ...]]:
    """``"2x400G[200G,100G]"`` -> (2, 400, (200, 100)). Raises PlatformDataError on another shape."""
    match = _MODE.match(mode)
    if not match:
        raise PlatformDataError(f"breakout mode {mode!r}: expected <count>x<speed>G[<speed>G,...]")
    alternatives = tuple(int(item.rstrip("G")) for item in (match["alternatives"] or "").split(",") if item)
    return int(match["count"]), int(match["speed"]), alternatives


@cache
def model_platforms(model: str) -> ModelPlatforms:
    path = DATA_DIR / f"{model}.json"
    if not path.is_file():
        known = sorted(item.stem for item in DATA_DIR.glob("*.json"))
        raise PlatformDataError(f"model={model!r}: no platform data; known models: {', '.join(known)}")
    data = json.loads(path.read_text())
    eos = EosNaming(**data["eos"]) if data.get("eos") else None
    sonic = None
    if data.get("sonic"):
        raw = data["sonic"]
        sonic = SonicPlatform(
            platform=raw["platform"], hwsku=raw["hwsku"], management_port=raw["management_port"],
            derived=bool(raw.get("derived")), source=MappingProxyType(raw["source"]),
            breakout_table=any(path.endswith("platform.json") for path in raw["source"].get("files", ())),
            ports=tuple(
                SonicPort(
                    name=port["name"], lanes=tuple(port["lanes"]), alias=port["alias"], index=port["index"],
                    speed_gbps=port["speed_gbps"], fec=port.get("fec"),
                    default_breakout_mode=port.get("default_breakout_mode"),
                    breakout_modes=MappingProxyType({mode: tuple(aliases)
                                                     for mode, aliases in port.get("breakout_modes", {}).items()}),
                )
                for port in raw["ports"]
            ),
        )
    return ModelPlatforms(model=data["model"], vendor=data["vendor"], front_panel_ports=data["front_panel_ports"],
                          eos=eos, sonic=sonic)


@lru_cache(maxsize=1)
def known_models() -> tuple[str, ...]:
    """Models with a platform data file."""
    return tuple(sorted(path.stem for path in DATA_DIR.glob("*.json")))


def sonic_platform(model: str) -> SonicPlatform:
    found = model_platforms(model).sonic
    if found is None:
        raise PlatformDataError(f"model={model!r}: no SONiC platform (no HWSKU in sonic-buildimage)")
    return found


def sonic_breakout_mode(port: SonicPort, count: int, speed_gbps: int) -> str | None:
    """The platform.json mode key giving ``count`` sub-ports that can run at ``speed_gbps``, or None."""
    for mode in port.breakout_modes:
        mode_count, mode_speed, alternatives = parse_breakout_mode(mode)
        if mode_count == count and (mode_speed == speed_gbps or speed_gbps in alternatives):
            return mode
    return None


def sonic_logical_ports(port: SonicPort, mode: str) -> tuple[SonicLogicalPort, ...]:
    """The ports SONiC creates for ``port`` in breakout ``mode`` (sonic-config-engine BreakoutCfg rule)."""
    aliases = port.breakout_modes.get(mode)
    if aliases is None:
        raise PlatformDataError(f"{port.name}: breakout mode {mode!r} not in platform data; "
                                f"known: {', '.join(port.breakout_modes) or 'none'}")
    count = len(aliases)
    if len(port.lanes) % count:
        raise PlatformDataError(f"{port.name}: {len(port.lanes)} lanes do not split into {count} ports")
    step = len(port.lanes) // count
    base = int(port.name.removeprefix("Ethernet"))
    return tuple(
        SonicLogicalPort(name=f"Ethernet{base + offset}", parent=port.name, lanes=port.lanes[offset:offset + step],
                         alias=aliases[number], index=port.index, breakout_mode=mode)
        for number, offset in enumerate(range(0, len(port.lanes), step))
    )


def runs(model: str, platform: str) -> bool:
    """Whether the platform data lets this OS run on the model (FRR/Linux: any model in the data)."""
    found = model_platforms(model)
    if platform == "eos":
        return found.eos is not None
    if platform == "sonic":
        return found.sonic is not None
    return True


def breakout_count(model: str, platform: str, speed_gbps: int, max_speed_gbps: int,
                   catalogue_modes: tuple[str, ...]) -> int:
    """How many sub-ports of ``speed_gbps`` one front-panel port gives under this OS (0 = not possible).

    SONiC: the HWSKU's platform.json modes decide; the mode with the most sub-ports that can run at this speed
    wins (a "4x200G[100G]" port gives four 100G ports). A HWSKU without a platform.json breakout table offers
    only its default mode. EOS and FRR: the catalogue's modes (vendor datasheets, compiler/catalog.py).
    """
    if platform == "sonic":
        sonic = model_platforms(model).sonic
        if sonic is None:
            return 0
        counts = [count for count, mode_speed, alternatives in map(parse_breakout_mode, sonic.ports[0].breakout_modes)
                  if speed_gbps == mode_speed or speed_gbps in alternatives]
        return max(counts, default=0)
    if speed_gbps > max_speed_gbps:
        return 0
    count = max_speed_gbps // speed_gbps
    return count if count == 1 or f"{count}x{speed_gbps}G" in catalogue_modes else 0


def port_names(model: str, platform: str, port_number: int, count: int, speed_gbps: int) -> list[tuple[str, int | None]]:
    """Names of front-panel port ``port_number`` (1-based) broken into ``count`` sub-ports.

    Returns ``[(name, subport)]`` with subport None when the port is not broken out, else 1..count.
    """
    if platform == "sonic":
        sonic = sonic_platform(model)
        port = _sonic_front_panel_port(model, sonic, port_number)
        mode = sonic_breakout_mode(port, count, speed_gbps)
        if mode is None:
            raise PlatformDataError(f"model={model!r} port {port.name}: no SONiC breakout mode {count}x{speed_gbps}G; "
                                    f"known: {', '.join(port.breakout_modes)}")
        logical = sonic_logical_ports(port, mode)
        return [(item.name, None if count == 1 else number) for number, item in enumerate(logical, 1)]
    if platform == "eos":
        naming = model_platforms(model).eos
        if naming is None:
            raise PlatformDataError(f"model={model!r}: not an Arista model, EOS does not run on it")
        step = naming.lanes_per_port // count
        return [(_eos_name(naming, port_number, 1 + lane * step), None if count == 1 else lane + 1)
                for lane in range(count)]
    if count == 1:
        return [(f"swp{port_number}", None)]
    return [(f"swp{port_number}s{subport}", subport + 1) for subport in range(count)]


def parent_name(model: str, platform: str, port_number: int) -> str:
    """The name that identifies the physical port (its first sub-port's parent)."""
    if platform == "sonic":
        return _sonic_front_panel_port(model, sonic_platform(model), port_number).name
    if platform == "eos":
        naming = model_platforms(model).eos
        if naming is None:
            raise PlatformDataError(f"model={model!r}: not an Arista model, EOS does not run on it")
        return _eos_name(naming, port_number, None)
    return f"swp{port_number}"


def _eos_name(naming: EosNaming, port_number: int, lane: int | None) -> str:
    if naming.ports_per_slot and naming.first_slot is not None:  # both or neither (__post_init__)
        slot = naming.first_slot + (port_number - 1) // naming.ports_per_slot
        local = (port_number - 1) % naming.ports_per_slot + 1
        prefix = f"Ethernet{slot}/{local}"
    else:
        prefix = f"Ethernet{port_number}"
    return prefix if lane is None else f"{prefix}/{lane}"


def _sonic_front_panel_port(model: str, sonic: SonicPlatform, port_number: int) -> SonicPort:
    front = model_platforms(model).front_panel_ports
    if not 1 <= port_number <= min(front, len(sonic.ports)):
        raise PlatformDataError(f"model={model!r}: front-panel port {port_number} does not exist (1..{front})")
    return sonic.ports[port_number - 1]


@cache
def valid_port_names(model: str, platform: str, port_count: int) -> Mapping[str, frozenset[str | None]]:
    """Every interface name the model has under this OS -> the breakout parents it may have (None = unbroken)."""
    names: dict[str, set[str | None]] = {}
    if platform == "sonic":
        sonic = model_platforms(model).sonic
        for port in (sonic.ports if sonic else ()):
            for mode in port.breakout_modes:
                for item in sonic_logical_ports(port, mode):
                    names.setdefault(item.name, set()).add(None if len(port.breakout_modes[mode]) == 1 else port.name)
    elif platform == "eos":
        naming = model_platforms(model).eos
        if naming is not None:
            for number in range(1, port_count + 1):
                parent = _eos_name(naming, number, None)
                for lane in range(1, naming.lanes_per_port + 1):
                    names.setdefault(_eos_name(naming, number, lane), set()).update({None, parent})
    return MappingProxyType({name: frozenset(parents) for name, parents in names.items()})


def port_problem(model: str, platform: str, port_count: int, name: str, breakout_parent: str | None) -> str | None:
    """Why an inventory interface cannot exist on this model under this OS, or None when it can."""
    if platform == "frr":
        match = _FRR_NAME.match(name)
        if not match or not 1 <= int(match["port"]) <= port_count:
            return f"FRR/Linux ports are swp1..swp{port_count} (swp<port>s<subport> when broken out)"
        return None
    if platform == "eos" and model_platforms(model).eos is None:
        return f"{model} is not an Arista model: EOS does not run on it"
    if platform == "sonic" and model_platforms(model).sonic is None:
        return f"{model} has no SONiC platform (no HWSKU in sonic-buildimage)"
    parents = valid_port_names(model, platform, port_count).get(name)
    if parents is None:
        return f"{model} has no port {name} under {platform} (platform data compiler/platforms/data/{model}.json)"
    if platform == "sonic" and breakout_parent not in parents:
        expected = " or ".join(sorted(str(parent) for parent in parents))
        return f"{name} is a sub-port of {expected} on {model}, not of {breakout_parent}"
    return None


def breakout_parents(model: str, platform: str, port_count: int, names: list[str]) -> dict[str, tuple[str, int] | None]:
    """For interfaces read from elsewhere (NetBox): name -> (breakout parent, sub-port number) or None (unbroken).

    A physical port counts as broken out when more than one of ``names`` lies on it. Names the platform data does
    not know are left out (the inventory check reports them).
    """
    groups: dict[str, list[str]] = {}
    if platform == "frr":
        for name in names:
            match = _FRR_NAME.match(name)
            if match and match["subport"] is not None:
                groups.setdefault(f"swp{match['port']}", []).append(name)
    elif platform == "eos" and model_platforms(model).eos is not None:
        valid = valid_port_names(model, platform, port_count)
        for name in names:
            if name in valid:
                groups.setdefault(name.rsplit("/", 1)[0], []).append(name)
    elif platform == "sonic" and model_platforms(model).sonic is not None:
        valid = valid_port_names(model, platform, port_count)
        for name in names:
            parents = [parent for parent in valid.get(name, ()) if parent is not None]
            if len(parents) == 1:
                groups.setdefault(parents[0], []).append(name)
            elif name in valid:
                groups.setdefault(name, []).append(name)
    result: dict[str, tuple[str, int] | None] = {}
    for parent, members in groups.items():
        ordered = sorted(members, key=lambda item: [int(part) for part in re.findall(r"[0-9]+", item)])
        for number, name in enumerate(ordered, 1):
            result[name] = (parent, number) if len(ordered) > 1 or platform == "frr" else None
    return result


@lru_cache(maxsize=4096)
def sonic_port_layout(model: str, parent: str, count: int, speed_gbps: int) -> tuple[str, Mapping[str, SonicLogicalPort]]:
    """(breakout mode, name -> logical port) for ``count`` sub-ports of ``speed_gbps`` on SONiC port ``parent``."""
    port = sonic_platform(model).port(parent)
    if port is None:
        raise PlatformDataError(f"model={model!r}: no SONiC port {parent} in the HWSKU's port_config.ini")
    mode = sonic_breakout_mode(port, count, speed_gbps)
    if mode is None:
        raise PlatformDataError(f"port {parent}: no breakout mode gives {count} x {speed_gbps}G on {model}; "
                                f"modes: {', '.join(port.breakout_modes)}")
    return mode, MappingProxyType({item.name: item for item in sonic_logical_ports(port, mode)})


@dataclass(frozen=True, slots=True)
class PortProblem:
    """A switch whose OS does not run on its model (``interface`` None) or an interface its model lacks."""

    hostname: str
    model: str
    interface: str | None
    message: str


def inventory_port_problems(switches, port_counts: Mapping[str, int]) -> list[PortProblem]:
    """Every switch interface that does not exist on the switch's model under its OS (the one home of this rule;
    compiler.validate turns it into FieldErrors, validators.physical into findings).

    SONiC: a name of the HWSKU's port_config.ini or of one of its platform.json breakout modes, under the right
    parent; EOS: Arista's naming within the model's ports; FRR: swp<port>[s<subport>]. Switches whose model has
    no platform data, or whose platform is unknown, are not checked (nothing to check against).
    """
    with_data = set(known_models())
    problems: list[PortProblem] = []
    for switch in switches:
        if switch.platform not in ("eos", "sonic", "frr") or switch.model not in with_data:
            continue
        if not runs(switch.model, switch.platform):
            problems.append(PortProblem(switch.hostname, switch.model, None,
                                        f"{switch.platform} does not run on this model (no {switch.platform} "
                                        f"platform data in compiler/platforms/data/{switch.model}.json)"))
            continue
        port_count = port_counts.get(switch.model) or model_platforms(switch.model).front_panel_ports
        if switch.platform == "frr":
            for interface in switch.interfaces:
                problem = port_problem(switch.model, "frr", port_count, interface.name, interface.breakout_parent)
                if problem:
                    problems.append(PortProblem(switch.hostname, switch.model, interface.name, problem))
            continue
        # One dict lookup per interface: 140,000 interfaces at 1,088 switches.
        valid = valid_port_names(switch.model, switch.platform, port_count)
        check_parent = switch.platform == "sonic"
        for interface in switch.interfaces:
            parents = valid.get(interface.name)
            if parents is None or (check_parent and interface.breakout_parent not in parents):
                problem = port_problem(switch.model, switch.platform, port_count, interface.name,
                                       interface.breakout_parent)
                if problem:
                    problems.append(PortProblem(switch.hostname, switch.model, interface.name, problem))
    return problems
