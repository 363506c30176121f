"""EOS device-wide settings read back (issue #25: the lines fabric configs carry most often after routing):
structured ``system`` and ``bfd`` (docs/structured-config.md, "Foreign fabric settings").

``system``: local accounts switched off (``no aaa root``: the root account has no password and cannot log in;
``no enable password``), the default mode of QSFP cages (``transceiver qsfp default-mode 4x10G``), SNMP location
and contact, queue-length monitoring (``queue-monitor length [log N | notifying]``), agent daemons (``daemon
NAME`` / ``exec CMD`` / ``[no] shutdown``, e.g. TerminAttr streaming to CloudVision), port-group SerDes rates,
the TCAM profile, Sand LAG hardware-only mode (``platform sand lag hardware-only``) and the internal VLAN range
(``vlan internal order ascending range 1006 1199``). ``bfd``: the ``router bfd``
timers (``interval N min-rx N multiplier N``, ``multihop interval ...``; RFC 5880 section 6.8.1, RFC 5883
multihop). Syntax: Arista EOS User Manual ("User Accounts", "Transceivers", "SNMP", "Latency Analyzer (LANZ)",
"Daemon", "BFD").

A line carrying a secret is never modelled (secrets are references, compiler/secret_refs.py): a daemon ``exec``
with a shared key (``-cvauth=key,...``) stays unmodelled, as do ``aaa root secret`` and ``enable password X``.
"""

from __future__ import annotations

import re

from compiler.parse.common import Node

_QSFP_MODE = re.compile(r"(?<!\d)\d+x\d+G")  # `4x10G`: lanes x rate a QSFP cage starts in
_BFD_TIMERS = re.compile(r"interval (\d+) min-rx (\d+) multiplier (\d+)")
_SECRET_ARGUMENT = re.compile(r"-cvauth=key,")
# `hardware speed-group N serdes 10G|25G`: the SerDes rate a group of ports shares (Arista EOS User Manual, "Port
# groups"); `hardware tcam` / `system profile P`: the TCAM profile (`vxlan-routing` to route VXLAN on Sand chips).
_SERDES = re.compile(r"(?<!\d)\d+G")  # (?<!\d): a search over a long digit run stays linear
_TCAM_PROFILE = re.compile(r"system profile [\w-]+")  # TerminAttr's shared-key authentication: the key follows
# `vlan internal order ascending|descending range B E`: the VLANs EOS takes one of for each routed port (Arista EOS
# User Manual, "vlan internal order"); IEEE 802.1Q VLAN IDs 2..4094, the range's beginning first.
_INTERNAL_VLAN_ORDER = re.compile(r"vlan internal order (ascending|descending) range (\d{1,4}) (\d{1,4})")


def empty_system() -> dict:
    return {"aaa_root": None, "enable_password": None, "transceiver_qsfp_default_mode": None,
            "snmp_location": None, "snmp_contact": None, "queue_monitor_length": None, "daemons": [],
            "speed_groups": {}, "tcam_profile": None, "sand_lag_hardware_only": False, "vlan_internal_order": None}


def _use(node: Node) -> None:
    node.used = True


def system_line(node: Node, structured: dict) -> bool:
    """One top-level EOS line into ``structured["system"]`` / ``structured["bfd"]``; True when it is one."""
    words = node.words()
    text = node.text
    system = structured.get("system") or empty_system()
    if text == "no aaa root":
        system["aaa_root"] = False
    elif text == "no enable password":
        system["enable_password"] = False
    elif words[:2] == ["transceiver", "qsfp"] and len(words) == 4 and words[2] == "default-mode" \
            and _QSFP_MODE.fullmatch(words[3]):
        system["transceiver_qsfp_default_mode"] = words[3]
    elif words[:2] == ["snmp-server", "location"] and len(words) >= 3:
        system["snmp_location"] = text.split(None, 2)[2]
    elif words[:2] == ["snmp-server", "contact"] and len(words) >= 3:
        system["snmp_contact"] = text.split(None, 2)[2]
    elif words[:2] == ["queue-monitor", "length"] and _queue_monitor(words[2:], system):
        pass
    elif words[0] == "daemon" and len(words) == 2:
        system["daemons"].append(_daemon(node))
    elif words[:2] == ["hardware", "speed-group"] and len(words) == 5 and words[2].isdigit() \
            and words[3] == "serdes" and _SERDES.fullmatch(words[4]):
        system["speed_groups"][words[2]] = words[4]
    elif (order := _INTERNAL_VLAN_ORDER.fullmatch(text)) and 2 <= int(order[2]) <= int(order[3]) <= 4094:
        system["vlan_internal_order"] = {"allocation": order[1], "beginning": int(order[2]), "ending": int(order[3])}
    elif text == "platform sand lag hardware-only":
        system["sand_lag_hardware_only"] = True
    elif text == "hardware tcam" and len(node.children) == 1 and _TCAM_PROFILE.fullmatch(node.children[0].text):
        system["tcam_profile"] = node.children[0].words()[2]
        _use(node.children[0])
    elif text == "router bfd":
        _router_bfd(node, structured)
        _use(node)
        return True
    else:
        return False
    structured["system"] = system
    _use(node)
    return True


def _queue_monitor(rest: list[str], system: dict) -> bool:
    """``queue-monitor length`` (on), ``... log N`` (log every N s), ``... notifying`` (SNMP notifications)."""
    entry = system["queue_monitor_length"] or {"log_interval_s": None, "notifying": False}
    if not rest:
        pass
    elif rest[0] == "log" and len(rest) == 2 and rest[1].isdigit():
        entry["log_interval_s"] = int(rest[1])
    elif rest == ["notifying"]:
        entry["notifying"] = True
    else:
        return False
    system["queue_monitor_length"] = entry
    return True


def _daemon(node: Node) -> dict:
    daemon: dict = {"name": node.words()[1], "exec": None, "enabled": False}
    for child in node.children:
        if child.text.startswith("exec ") and not _SECRET_ARGUMENT.search(child.text):
            daemon["exec"] = child.text[len("exec "):]
        elif child.text in ("no shutdown", "shutdown"):
            daemon["enabled"] = child.text == "no shutdown"
        else:
            continue
        _use(child)
    return daemon


def _router_bfd(node: Node, structured: dict) -> None:
    bfd = structured.get("bfd") or {"single_hop": None, "multihop": None}
    for child in node.children:
        multihop = child.text.startswith("multihop ")
        match = _BFD_TIMERS.fullmatch(child.text[len("multihop "):] if multihop else child.text)
        if match is None:
            continue
        bfd["multihop" if multihop else "single_hop"] = {
            "interval_ms": int(match.group(1)), "min_rx_ms": int(match.group(2)), "multiplier": int(match.group(3))}
        _use(child)
    structured["bfd"] = bfd
