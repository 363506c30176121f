"""Arista EOS renderer: structured config (docs/structured-config.md) -> ``startup-config`` text.

This package owns only formatting. Every decision (which ports get PFC, which VLANs exist, ECN thresholds) is
already made in the structured config; the Python here checks that the structured config can be expressed in
EOS at all (raising :class:`compiler.errors.RenderError` naming the field otherwise) and provides small
formatting filters. The Jinja2 templates in ``templates/`` print the blocks in the order EOS itself shows them
in ``show running-config``; the blocks repeated per port and per BGP neighbor are formatted in Python
(:mod:`compiler.render.eos.repeated_blocks`: 8x faster than the Jinja loops at 1,088 switches). Syntax follows
Arista's own generator (aristanetworks/avd, ``pyavd/_eos_cli_config_gen/j2templates/eos/*.j2``), read for
reference only.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

from compiler.errors import RenderError
from compiler.render.eos import repeated_blocks

__all__ = ["render", "eos_speed"]

TEMPLATE_DIR = Path(__file__).parent / "templates"

# EOS names a forced speed by rate and electrical lane count ("400g-8" = 8 x 50G PAM4 lanes). The structured
# config carries the rate only, so we use the lane count of the common port generation for each rate: 8 x 50G for
# 400G (QSFP-DD/OSFP 400G-8), 8 x 100G for 800G (OSFP 800G-8), 4 lanes for 100G (100G-4, QSFP28) and 200G
# (200G-4). An interface dict may carry ``lanes`` to override (e.g. 400G-4 on 112G SerDes platforms).
DEFAULT_LANES_BY_SPEED_GBPS = {100: 4, 200: 4, 400: 8, 800: 8, 1600: 8}
SINGLE_LANE_SPEEDS_GBPS = (1, 10, 25, 50)

# EOS PFC watchdog actions (avd priority-flow-control.j2: "drop" | "no-drop"). The contract uses SONiC's words:
# "drop" drops the stuck queue's packets, "forward" ignores the storm's pause frames and keeps sending.
WATCHDOG_ACTIONS = {"drop": "drop", "forward": "no-drop"}

# EOS permanently ties traffic class 7 to tx-queue 7 for control-plane traffic; it cannot be remapped.
EOS_CONTROL_TRAFFIC_CLASS = 7

# `qos map dscp ... to traffic-class N` takes a list of DSCP values; we print at most this many per line so each
# command stays short and readable.
DSCP_VALUES_PER_LINE = 8


def render(structured: dict) -> dict[str, str]:
    """Render one device's structured config as an EOS ``startup-config``."""
    try:
        _check_expressible(structured)
        watchdog_action = _watchdog_action(structured.get("qos") or {})
        neighbors = structured["bgp"]["neighbors"]
        text = _template().render(
            device=structured,
            virtual_router_mac=_virtual_router_mac(structured),
            dscp_map_lines=_dscp_map_lines(structured.get("qos") or {}),
            watchdog_action=watchdog_action,
            ethernet_interfaces=repeated_blocks.ethernet_interfaces(structured["interfaces"], watchdog_action,
                                                                    eos_speed),
            bgp_neighbor_lines=repeated_blocks.bgp_neighbor_lines(neighbors),
            standalone_neighbors=[neighbor for neighbor in neighbors if not neighbor["peer_group"]],
        )
    except KeyError as error:
        # A field the contract promises is missing; say which instead of printing nothing.
        raise RenderError(
            f"{structured.get('hostname', '?')}: structured config does not match docs/structured-config.md: "
            f"missing field {error.args[0]!r}"
        ) from error
    except (jinja2.UndefinedError, TypeError) as error:
        # StrictUndefined in the templates: same meaning as the KeyError above.
        raise RenderError(
            f"{structured.get('hostname', '?')}: structured config does not match docs/structured-config.md: {error}"
        ) from error
    return {"startup-config": text}


def eos_speed(interface: dict) -> str:
    """EOS ``speed`` argument for an interface, e.g. 400 Gb/s -> ``400g-8``."""
    speed_gbps = interface["speed_gbps"]
    if speed_gbps in SINGLE_LANE_SPEEDS_GBPS:
        return f"{speed_gbps}g"
    lanes = interface.get("lanes") or DEFAULT_LANES_BY_SPEED_GBPS.get(speed_gbps)
    if lanes is None:
        raise RenderError(
            f"interfaces[{interface['name']}].speed_gbps={speed_gbps!r}: no EOS speed keyword for this rate"
        )
    return f"{speed_gbps}g-{lanes}"


def _seconds(milliseconds: int) -> str:
    """EOS watchdog timers are in seconds with up to 3 decimals: 200 -> ``0.2``."""
    return f"{milliseconds / 1000:.3f}".rstrip("0").rstrip(".")


@cache
def _template() -> jinja2.Template:
    """One Jinja2 environment per process: templates are parsed and compiled once, then reused for every device."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        auto_reload=False,  # templates do not change while a process runs; skip a stat() per include per device
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    environment.filters["seconds"] = _seconds
    environment.filters["by_int_key"] = lambda mapping: sorted(mapping.items(), key=lambda item: int(item[0]))
    return environment.get_template("startup-config.j2")


def _check_expressible(structured: dict) -> None:
    """Raise RenderError for structured configs EOS cannot express, naming the field and value."""
    hostname = structured.get("hostname", "?")
    for neighbor in structured["bgp"].get("neighbors", []):
        if neighbor.get("address") is None:
            # BGP unnumbered (RFC 5549, IPv6 link-local peering) is built for FRR and SONiC only; see
            # compiler.model.Underlay.
            raise RenderError(
                f"{hostname}: bgp.neighbors[{neighbor.get('interface')}].address=None: unnumbered BGP "
                f"(peer {neighbor.get('peer_device')}) is not supported by the EOS renderer; use a numbered underlay"
            )
    for interface in structured["interfaces"]:
        if interface.get("unnumbered"):
            raise RenderError(
                f"{hostname}: interfaces[{interface['name']}].unnumbered=True: unnumbered interfaces are not "
                "supported by the EOS renderer"
            )
    qos = structured.get("qos") or {}
    queue_of_control_class = (qos.get("tc_to_queue") or {}).get(str(EOS_CONTROL_TRAFFIC_CLASS))
    if queue_of_control_class is not None and int(queue_of_control_class) != EOS_CONTROL_TRAFFIC_CLASS:
        raise RenderError(
            f"{hostname}: qos.tc_to_queue[7]={queue_of_control_class!r}: EOS ties traffic class 7 to tx-queue 7"
        )


def _virtual_router_mac(structured: dict) -> str | None:
    """EOS has one fabric-wide anycast gateway MAC (``ip virtual-router mac-address``); all SVIs must agree."""
    macs = {vlan["svi"]["mac"].lower(): vlan["id"] for vlan in structured["vlans"] if vlan.get("svi")}
    if len(macs) > 1:
        listing = ", ".join(f"vlan {vlan_id}: {mac}" for mac, vlan_id in sorted(macs.items()))
        raise RenderError(
            f"{structured['hostname']}: vlans[].svi.mac differ ({listing}); EOS supports a single "
            "ip virtual-router mac-address per device"
        )
    return next(iter(macs), None)


def _dscp_map_lines(qos: dict) -> list[tuple[str, int]]:
    """(``"24 26"``, traffic_class) pairs covering all 64 DSCPs: the contract maps unlisted DSCPs to class 0.

    EOS's own default map is not "everything to 0" (DSCP 0-7 go to traffic class 1), so every value is written.
    """
    if not qos:
        return []
    classes: dict[int, list[int]] = {}
    dscp_to_tc = {int(dscp): int(tc) for dscp, tc in qos["dscp_to_tc"].items()}
    for dscp in range(64):
        classes.setdefault(dscp_to_tc.get(dscp, 0), []).append(dscp)
    lines = []
    for traffic_class in sorted(classes):
        values = classes[traffic_class]
        for start in range(0, len(values), DSCP_VALUES_PER_LINE):
            chunk = values[start : start + DSCP_VALUES_PER_LINE]
            lines.append((" ".join(str(value) for value in chunk), traffic_class))
    return lines


def _watchdog_action(qos: dict) -> str | None:
    watchdog = qos.get("pfc_watchdog") or {}
    if not watchdog.get("enabled"):
        return None
    action = watchdog.get("action")
    if action not in WATCHDOG_ACTIONS:
        raise RenderError(
            f"qos.pfc_watchdog.action={action!r}: EOS supports {sorted(WATCHDOG_ACTIONS)} "
            "(drop, or forward as EOS no-drop)"
        )
    return WATCHDOG_ACTIONS[action]
