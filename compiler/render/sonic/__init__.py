"""SONiC renderer: structured config -> ``config_db.json`` + ``frr.conf``.

``config_db.json`` is built table by table in :mod:`compiler.render.sonic.config_db` (each builder names the SONiC
YANG model it follows). ``frr.conf`` comes from the shared FRR renderer, fed with the same structured config with
VRF names in SONiC's form (``Vrf_<name>``, required by sonic-vrf.yang) so FRR and CONFIG_DB agree on every VRF.
Interface names are SONiC's own (``Ethernet0``) and are used as-is. DEVICE_METADATA selects
``docker_routing_config_mode: split-unified``: FRR is configured from this one frr.conf, not from CONFIG_DB.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii

from compiler.render.sonic.config_db import build_config_db, sonic_vrf_name

__all__ = ["render", "render_config_db", "sonic_structured", "dumps_sorted_indented"]


def render(structured: dict) -> dict[str, str]:
    """Render one device for SONiC: ``{"config_db.json": ..., "frr.conf": ...}``."""
    # Imported here so config_db rendering works on its own; the FRR renderer lives in compiler/render/frr.
    from compiler.render.frr import render_frr_conf

    return {
        "config_db.json": render_config_db(structured),
        "frr.conf": render_frr_conf(sonic_structured(structured), ifname=_sonic_ifname),
    }


def render_config_db(structured: dict) -> str:
    """``config_db.json`` text: sorted keys, 4-space indent, trailing newline (byte-for-byte deterministic).

    The text is exactly ``json.dumps(tables, sort_keys=True, indent=4)``; see :func:`dumps_sorted_indented`.
    """
    parts: list[str] = []
    dumps_sorted_indented(build_config_db(structured), 0, parts)
    parts.append("\n")
    return "".join(parts)


_NEWLINE_INDENTS = tuple("\n" + "    " * level for level in range(32))


def dumps_sorted_indented(value: object, level: int, parts: list[str]) -> None:
    """Append ``json.dumps(value, sort_keys=True, indent=4)`` to ``parts``.

    With ``indent`` set, the standard library falls back to its pure-Python encoder, which dominated SONiC render
    time. CONFIG_DB is nested dicts of strings, so this writer formats them itself with C-accelerated string
    escaping and hands only other scalars to ``json.dumps``. Two shortcuts keep 1,000+ switches fast:

    - a dict whose values are all strings (every CONFIG_DB entry) is formatted in one comprehension;
    - a dict object met twice at the same depth is formatted once: config_db.py gives every port with the same
      QoS the same entry objects (PORT_QOS_MAP, PFC_WD, QUEUE, BUFFER_PG), so a 1,024-port spine formats each
      shared entry once. ``id()`` is a safe key because ``value`` keeps every nested object alive meanwhile.
    """
    parts.append(_json_text(value, level, {}))


def _json_text(value: object, level: int, formatted: dict[int, dict[int, str]]) -> str:
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if isinstance(value, dict):
        return _dict_text(value, level, formatted) if value else "{}"
    if isinstance(value, list):
        if not value:
            return "[]"
        separator = "," + _indent(level + 1)
        body = separator.join([_json_text(item, level + 1, formatted) for item in value])
        return "[" + _indent(level + 1) + body + _indent(level) + "]"
    return json.dumps(value)


def _dict_text(value: dict, level: int, formatted: dict[int, dict[int, str]]) -> str:
    """A non-empty dict; ``formatted`` maps depth -> id(dict) -> text of the dicts already formatted there."""
    separator = "," + _indent(level + 1)
    items = sorted(value.items())
    try:  # the common case: every value is a string
        body = separator.join([f"{encode_basestring_ascii(name)}: {encode_basestring_ascii(item)}"
                               for name, item in items])
    except TypeError:  # a value is a nested table or a non-string scalar
        known = formatted.setdefault(level + 1, {})
        rows = []
        for name, item in items:
            if isinstance(item, dict) and item:
                text = known.get(id(item))
                if text is None:
                    text = known[id(item)] = _dict_text(item, level + 1, formatted)
            else:
                text = _json_text(item, level + 1, formatted)
            rows.append(f"{encode_basestring_ascii(name)}: {text}")
        body = separator.join(rows)
    return "{" + _indent(level + 1) + body + _indent(level) + "}"


def _indent(level: int) -> str:
    return _NEWLINE_INDENTS[level] if level < len(_NEWLINE_INDENTS) else "\n" + "    " * level


def sonic_structured(structured: dict) -> dict:
    """The structured config with VRF names as SONiC spells them; shares every untouched part with the input."""
    if not structured["vrfs"] and not structured["bgp"]["vrfs"]:
        return structured
    renamed = dict(structured)
    renamed["vrfs"] = [{**vrf, "name": sonic_vrf_name(vrf["name"])} for vrf in structured["vrfs"]]
    renamed["vlans"] = [
        {**vlan, "vrf": sonic_vrf_name(vlan["vrf"])} if vlan.get("vrf") else vlan for vlan in structured["vlans"]
    ]
    renamed["bgp"] = {
        **structured["bgp"],
        "vrfs": [{**vrf, "name": sonic_vrf_name(vrf["name"])} for vrf in structured["bgp"]["vrfs"]],
    }
    if structured["vxlan"]:
        renamed["vxlan"] = {
            **structured["vxlan"],
            "vrf_vnis": {sonic_vrf_name(name): vni for name, vni in structured["vxlan"]["vrf_vnis"].items()},
        }
    return renamed


def _sonic_ifname(name: str) -> str:
    """SONiC kernel interface names are the CONFIG_DB port names (Ethernet0), already Linux-safe."""
    return name
