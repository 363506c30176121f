"""Remediation: the CLI commands that take a device from what it runs back to what it should run.

``cli_remediation(intended_text, running_text, platform=...)`` compares the two texts as indentation trees
(:func:`compiler.parse.common.cli_tree`, the parsers' own reader) and returns the commands, in context, for EOS CLI
(a configure session) or FRR ``vtysh`` (FRR's frr.conf, and SONiC's frr.conf):

- a line the running config has and the intended one lacks is negated in its context (``no <line>``), and a
  block is removed by negating its header; a ``no <x>`` line only the running config has is left alone unless
  the intended config sets ``<x>`` otherwise: re-entering ``<x>`` would turn on what the device or its defaults
  turned off (EOS prints ``no aaa root``, FRR ``no bgp default ipv4-unicast``);
- a line the intended config has and the running one lacks is entered in its context, a missing block with all
  its lines;
- a setting that holds one value (``mtu``, ``description``, ``neighbor X remote-as`` ... :data:`SINGLE_VALUED`)
  is overwritten, never negated first: in FRR ``no neighbor X remote-as`` deletes the neighbor with all its
  settings (FRR user guide, bgpd "neighbor PEER remote-as"), and EOS replaces such a setting when it is entered
  again (Arista EOS User Manual, "Command modes": single-value parameters).

Negations come first (deepest first), then additions (parents first), so a neighbor is removed after its
address-family lines and created before them. Each context is left with ``exit`` (EOS and FRR both accept it in
every configuration mode). SONiC's CONFIG_DB side is an RFC 6902 JSON Patch: the push's own patch
(``changes.drivers.config_db.config_db_patch``), composed with this by ``changes.drift``.

hier_config (PyPI ``hier-config``) was considered: it has an EOS driver but no FRR one (FRR closes blocks with
``exit``/``exit-address-family``/``exit-vni``/``exit-vrf`` tokens), its EOS and generic drivers would still need
the single-valued rules above, and it would add pydantic to a pure-Python package; the tree walk here is short
and reads the text with the same reader as the parsers, whose result the tests check (parse(running + commands)
== parse(intended)). Pure Python; never imports Django.
"""

from __future__ import annotations

import re

from compiler.errors import FieldError, InputError
from compiler.parse.common import Node, cli_tree

# Block terminators FRR prints (frr.conf, ``show running-config``): structure, not configuration.
FRR_BLOCK_ENDS = frozenset({"exit", "exit-address-family", "exit-vni", "exit-vrf", "end"})
# Lines a config or ``show running-config`` prints that are no command to send: vtysh's banner, and FRR's version
# and defaults profile (FRR user guide, "frr defaults": fixed when the daemons start, not changeable at run time).
NOT_COMMANDS = re.compile(r"^(?:Building configuration\.\.\.|Current configuration:|frr version .*|frr defaults .*)$")
# Indentation each platform prints one level with (EOS 3 spaces, FRR 1).
INDENT = {"eos": "   ", "frr": " "}

# Settings that hold one value per context: entering a new value replaces the old one, so the old line is not
# negated (the key is the part before the value). Sources: Arista EOS User Manual (interface, BGP, QoS/PFC
# commands) and the FRR user guide (bgpd neighbor commands, zebra/vrf commands).
SINGLE_VALUED = (
    re.compile(r"^(neighbor \S+ (?:remote-as|peer-group|peer group|description|update-source|timers connect|timers"
               r"|advertisement-interval|maximum-routes|ebgp-multihop|local-as|allowas-in))(?=\s|$)"),
    re.compile(r"^(neighbor \S+ route-map) \S+ (in|out)$"),
    re.compile(r"^(description|mtu|speed|hostname|router-id|bgp router-id|switchport mode|switchport access vlan"
               r"|switchport trunk allowed vlan|timers bgp|rd|vxlan source-interface"
               r"|vxlan udp-port|bandwidth percent|qos trust|ingress headroom bytes|service-profile|random-detect ecn"
               r"|priority|log syslog|vxlan vlan \S+ vni|vxlan vrf \S+ vni"
               r"|qos map traffic-class \S+ to tx-queue"
               r"|priority-flow-control pause watchdog default (?:timeout|recovery-time)"
               r"|priority-flow-control pause watchdog action)(?=\s|$)"),
    # One value and nothing else: an interface's ``vrf NAME``, FRR's ``vni N`` in a VRF, ``maximum-paths N`` (not
    # ``vrf instance NAME``, ``maximum-paths ibgp N``: other settings).
    re.compile(r"^(vrf|vni|maximum-paths)(?= \d+(?: ecmp \d+)?$| [A-Za-z_][\w.-]*$)"),
)

Tree = dict[str, "Tree"]


def config_tree(text: str) -> Tree:
    """CLI text as nested ``{line: {child line: ...}}`` (indentation, ``!`` comments, FRR block ends and lines that
    are no command dropped)."""
    return _tree(cli_tree(text))


def _tree(nodes: list[Node]) -> Tree:
    out: Tree = {}
    for node in nodes:
        if node.text in FRR_BLOCK_ENDS or NOT_COMMANDS.match(node.text):
            continue
        out.setdefault(node.text, {}).update(_tree(node.children))
    return out


def setting_key(line: str) -> str:
    """What a line sets, without its value: ``mtu 9214`` -> ``mtu``; ``no shutdown`` -> ``shutdown``; a line with
    no single value (``qos map dscp 26 to traffic-class 3``) is its own key."""
    body = line[3:] if line.startswith("no ") else line
    for pattern in SINGLE_VALUED:
        match = pattern.match(body)
        if match:
            return " ".join(group for group in match.groups() if group)
    return body


# EOS front-panel and management ports cannot be removed, only returned to their defaults (Arista EOS User Manual,
# "default interface"); VLAN, loopback, port-channel and VXLAN interfaces are removed with ``no interface``.
EOS_PHYSICAL_PORT = re.compile(r"^interface (?:Ethernet|Management)\S*$")


def negate(line: str, platform: str) -> str:
    """The command that undoes a line: ``no <line>`` (a block header: the whole block); an EOS physical port:
    ``default interface <port>``."""
    if platform == "eos" and EOS_PHYSICAL_PORT.match(line):
        return f"default {line}"
    return f"no {line}"


def _negations(running: Tree, intended: Tree, platform: str) -> Tree:
    out: Tree = {}
    replaced = {setting_key(line) for line, children in intended.items() if not children and line not in running}
    for line in reversed(list(running)):
        children = running[line]
        if line in intended:
            inner = _negations(children, intended[line], platform)
            if inner:
                out[line] = inner
        elif children or (setting_key(line) not in replaced and not line.startswith("no ")):
            out[negate(line, platform)] = {}
    return out


def _additions(running: Tree, intended: Tree) -> Tree:
    out: Tree = {}
    for line, children in intended.items():
        if line not in running:
            out[line] = children
        elif children:
            inner = _additions(running[line], children)
            if inner:
                out[line] = inner
    return out


def _lines(tree: Tree, indent: str, depth: int = 0) -> list[str]:
    out = []
    for line, children in tree.items():
        out.append(indent * depth + line)
        if children:
            out += _lines(children, indent, depth + 1)
            out.append(indent * depth + "exit")
    return out


def cli_remediation(intended_text: str, running_text: str, *, platform: str) -> list[str]:
    """The commands (one a line, indented by context, contexts left with ``exit``) that take a device running
    ``running_text`` to ``intended_text``. ``platform``: ``eos`` (EOS CLI) or ``frr`` (vtysh: FRR and SONiC's
    frr.conf). Empty when the two texts hold the same lines in the same contexts."""
    if platform not in INDENT:
        raise InputError(FieldError("platform", platform, f"no CLI remediation (known: {', '.join(INDENT)})"))
    running, intended = config_tree(running_text), config_tree(intended_text)
    indent = INDENT[platform]
    return _lines(_negations(running, intended, platform), indent) + _lines(_additions(running, intended), indent)
