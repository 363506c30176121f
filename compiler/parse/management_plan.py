"""The Linux plan's ``management`` key (compiler.render.frr.management_plan, issue #13) -> ``management``.

The plan states the management port (its Linux name), address, VRF (``table``: the VRF's routing table), gateway,
the ``ip`` commands that set them, chrony ``server`` lines, rsyslog targets, resolv.conf ``nameserver`` lines and
``not_rendered`` (AAA: TACACS+ on Linux is PAM/NSS, so the plan says only that AAA is wanted, not its servers or
secret). Every command or line that is not the plan's own statement of those values is reported unmodelled.
"""

from __future__ import annotations

import re
from typing import Any

from compiler.parse.common import Unmodelled
from compiler.structured.contract import Management

PLAN = "linux-plan.json"
KNOWN_KEYS = {"applies", "interface", "address", "vrf", "table", "gateway", "commands", "chrony", "rsyslog",
              "resolv_conf", "not_rendered"}
_CHRONY = re.compile(r"^server (\S+) iburst$")
_RSYSLOG = re.compile(r"^\*\.\* @(?:\[([0-9A-Fa-f:.]+)\]|([^\s:\[\]]+)):514$")
_RESOLV = re.compile(r"^nameserver (\S+)$")


def _expected_commands(plan: dict[str, Any]) -> set[str]:
    """The commands the plan's own values call for (the renderer prints a subset of these, in order)."""
    port, vrf, table = plan.get("interface"), plan.get("vrf"), plan.get("table")
    address, gateway = plan.get("address"), plan.get("gateway")
    out = {f"ip link set {port} up"}
    if vrf:
        out |= {f"ip link add {vrf} type vrf table {table}", f"ip link set {vrf} up", f"ip link set {port} master {vrf}"}
    if address:
        out.add(f"ip address replace {address} dev {port}")
        if gateway and vrf:
            out.add(f"ip route replace default via {gateway} vrf {vrf}")
    return out


def _is_default_route(command: str, plan: dict[str, Any]) -> bool:
    """Without a VRF the default route goes out of the port with a metric (the renderer's 4096)."""
    prefix = f"ip route replace default via {plan.get('gateway')} dev {plan.get('interface')} metric "
    return (not plan.get("vrf") and bool(plan.get("address")) and command.startswith(prefix)
            and command[len(prefix):].isdigit())


def read_management_plan(plan: Any, unmodelled: list[Unmodelled]) -> Management | None:
    """The plan's ``management`` value -> the structured ``management`` (None: the key is absent or unreadable)."""
    if plan is None:
        return None
    if not isinstance(plan, dict) or not isinstance(plan.get("interface"), str):
        unmodelled.append(Unmodelled(PLAN, 0, "management"))
        return None
    for key in plan:
        if key not in KNOWN_KEYS:
            unmodelled.append(Unmodelled(PLAN, 0, f"management.{key}"))
    expected = _expected_commands(plan)
    for command in plan.get("commands") or []:
        if command not in expected and not _is_default_route(command, plan):
            unmodelled.append(Unmodelled(PLAN, 0, f"management.commands: {command}"))

    def servers(key: str, pattern: re.Pattern[str]) -> list[str]:
        out = []
        for line in plan.get(key) or []:
            match = pattern.match(line)
            if match is None:
                unmodelled.append(Unmodelled(PLAN, 0, f"management.{key}: {line}"))
            else:
                out.append(next(group for group in match.groups() if group))
        return out

    gateway: Any = plan.get("gateway")
    not_rendered = plan.get("not_rendered") or {}
    for key in not_rendered:
        if key != "aaa":
            unmodelled.append(Unmodelled(PLAN, 0, f"management.not_rendered.{key}"))
    management: Management = {
        "interface": plan["interface"], "vrf": plan.get("vrf") or "default", "address": plan.get("address"),
        "gateway": gateway,
        "ntp_servers": servers("chrony", _CHRONY), "syslog_servers": servers("rsyslog", _RSYSLOG),
        "dns_servers": servers("resolv_conf", _RESOLV),
        # The plan says AAA is wanted, not its servers or secret reference (those stay with the switch image).
        "aaa": {"tacacs_servers": [], "secret_ref": ""} if "aaa" in not_rendered else None,
    }
    return management
