"""SONiC renderer: structured config -> ``config_db.json`` + ``frr.conf``.

``config_db.json`` is built table by table in :mod:`compiler.render.sonic.config_db` (each builder names the SONiC
YANG model it follows). ``frr.conf`` comes from the shared FRR renderer, fed with the same structured config with
VRF names in SONiC's form (``Vrf_<name>``, required by sonic-vrf.yang) so FRR and CONFIG_DB agree on every VRF.
Interface names are SONiC's own (``Ethernet0``) and are used as-is. DEVICE_METADATA selects
``docker_routing_config_mode: split-unified``: FRR is configured from this one frr.conf, not from CONFIG_DB, and
the frr.conf carries the FPM lines SONiC appends in that mode (:data:`SONIC_FPM_LINES`).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii

from compiler.errors import RenderError
from compiler.render.frr import render_frr_conf
from compiler.render.sonic.config_db import ROUTING_CONFIG_MODE, build_config_db, sonic_vrf_name
from compiler.structured.contract import StructuredConfig

__all__ = ["render", "render_config_db", "sonic_structured", "dumps_sorted_indented", "fpm_lines"]

# What SONiC itself adds to frr.conf in split-unified mode, in its order: docker_init.sh's write_default_zebra_config
# (sonic-net/sonic-buildimage dockers/docker-fpm-frr/docker_init.sh at 086b03bd70f9) appends both lines when no line
# starts with "no fpm use-next-hop-groups". zebra (started with SONiC's FPM module, supervisord.conf.common.j2) then
# streams routes to fpmsyncd on 127.0.0.1, which writes them to APPL_DB for orchagent and the ASIC. A frr.conf
# without them would make frr-reload.py delete them from the running zebra: no new route would reach the ASIC.
# "no fpm use-next-hop-groups": routes carry their next hops (SONiC's zebra.conf.j2 enables next-hop groups only
# for DEVICE_METADATA nexthop_group=enabled, which we never write).
SONIC_FPM_LINES = {"split-unified": ("no fpm use-next-hop-groups", "fpm address 127.0.0.1")}


# Said in the rendered frr.conf when the model is unknown (config_db.json has no place for a comment).
PLATFORM_UNKNOWN_NOTE = ("! platform unknown (model/HWSKU not in compiler/platforms): config_db.json is rendered "
                         "without the port map (lanes, alias, index), BREAKOUT_CFG, HWSKU and buffer pools\n")


def render(structured: StructuredConfig) -> dict[str, str]:
    """Render one device for SONiC: ``{"config_db.json": ..., "frr.conf": ...}``. A device whose model is unknown
    (a parsed config with an HWSKU we have no platform data for) is rendered without the platform's port map, and
    its frr.conf opens with :data:`PLATFORM_UNKNOWN_NOTE` saying so."""
    frr_conf = render_frr_conf(sonic_structured(structured), ifname=_sonic_ifname,
                               fpm_lines=fpm_lines(ROUTING_CONFIG_MODE))
    return {
        "config_db.json": render_config_db(structured),
        "frr.conf": frr_conf if structured.get("model") is not None else PLATFORM_UNKNOWN_NOTE + frr_conf,
    }


def fpm_lines(mode: str) -> tuple[str, ...]:
    """The FPM lines frr.conf carries for a SONiC ``docker_routing_config_mode`` (the lines SONiC adds itself, so a
    reload of our frr.conf keeps them); a mode where FRR does not run our frr.conf is refused by name."""
    try:
        return SONIC_FPM_LINES[mode]
    except KeyError:
        raise RenderError(f"docker_routing_config_mode={mode!r}: frr.conf is rendered for "
                          f"{sorted(SONIC_FPM_LINES)} only (in other modes SONiC does not run one frr.conf of ours)"
                          ) from None


def render_config_db(structured: StructuredConfig) -> str:
    """``config_db.json`` text: sorted keys, 4-space indent, trailing newline (byte-for-byte deterministic).

    The text is exactly ``json.dumps(tables, sort_keys=True, indent=4)``; see :func:`dumps_sorted_indented`.
    """
    parts: list[str] = []
    dumps_sorted_indented(build_config_db(structured), 0, parts)
    parts.append("\n")
    return "".join(parts)


def dumps_sorted_indented(value: object, level: int, parts: list[str]) -> None:
    """Append ``json.dumps(value, sort_keys=True, indent=4)`` to ``parts``.

    With ``indent`` set, the standard library falls back to its pure-Python encoder, which dominated SONiC render
    time. CONFIG_DB is nested dicts of strings, so :class:`_SortedIndentedJson` formats them itself with
    C-accelerated string escaping and hands only other scalars to ``json.dumps``.
    """
    parts.append(_SortedIndentedJson().text(value, level))


class _SortedIndentedJson:
    """``json.dumps(sort_keys=True, indent=4)`` for one value, with three shortcuts for CONFIG_DB's shape.

    - A dict whose values are all strings (a CONFIG_DB entry) is formatted in one comprehension, and entries with
      the same keys (every PORT entry...) share one ``%`` template, kept for the process: sorted once, then filled.
    - A dict object met twice at the same depth is formatted once: config_db.py gives every port with the same
      QoS the same entry objects (PORT_QOS_MAP, PFC_WD, QUEUE, BUFFER_PG), so a 1,024-port spine formats each
      shared entry once. ``id()`` is a safe key: the value being written keeps every nested object alive.
    - Indentation strings are built once per depth.
    Anything else (lists, numbers, booleans, null, nested dicts) takes the general path, exactly like json.dumps.
    """

    TEMPLATE_MAX_KEYS = 16  # bigger string-only dicts (CABLE_LENGTH, DSCP_TO_TC_MAP) are one of a kind per switch

    def __init__(self) -> None:
        self.punctuation: list[tuple[str, str, str]] = []  # depth -> (opening, separator, closing) of a dict
        self.text_by_id: list[dict[int, str]] = []  # depth -> id(dict) -> text

    def _depth(self, level: int) -> tuple[str, str, str]:
        while len(self.punctuation) <= level:
            depth = len(self.punctuation)
            inner, outer = "\n" + "    " * (depth + 1), "\n" + "    " * depth
            self.punctuation.append(("{" + inner, "," + inner, outer + "}"))
            self.text_by_id.append({})
        return self.punctuation[level]

    def text(self, value: object, level: int) -> str:
        if isinstance(value, str):
            return encode_basestring_ascii(value)
        if isinstance(value, dict):
            return self.dict_text(value, level) if value else "{}"
        if isinstance(value, list):
            if not value:
                return "[]"
            opening, separator, closing = self._depth(level)
            body = separator.join([self.text(item, level + 1) for item in value])
            return "[" + opening[1:] + body + closing[:-1] + "]"
        return json.dumps(value)

    def dict_text(self, value: dict, level: int) -> str:
        """A non-empty dict."""
        opening, separator, closing = self._depth(level)
        items = sorted(value.items())
        if isinstance(items[0][1], str):
            try:  # the common case: every value is a string
                return opening + separator.join([f"{encode_basestring_ascii(name)}: {encode_basestring_ascii(item)}"
                                                 for name, item in items]) + closing
            except TypeError:  # a later value is a nested dict or a non-string scalar
                pass
        self._depth(level + 1)
        known = self.text_by_id[level + 1]
        rows = []
        for name, item in items:
            if type(item) is dict:
                if item:
                    text = known.get(id(item))
                    if text is None:
                        text = known[id(item)] = self._entry_text(item, level + 1)
                else:
                    text = "{}"
            else:
                text = self.text(item, level + 1)
            rows.append(f"{encode_basestring_ascii(name)}: {text}")
        return opening + separator.join(rows) + closing

    def _entry_text(self, entry: dict, level: int) -> str:
        if len(entry) > self.TEMPLATE_MAX_KEYS:
            return self.dict_text(entry, level)
        keys = (level, *entry)
        found = _ENTRY_TEMPLATES.get(keys)
        if found is None:
            try:
                found = _entry_template(keys[1:], self._depth(level))
            except TypeError:  # a key that is not a string: json.dumps' own rules apply (general path)
                return self.dict_text(entry, level)
            if len(_ENTRY_TEMPLATES) >= _ENTRY_TEMPLATES_MAX:
                _ENTRY_TEMPLATES.clear()
            _ENTRY_TEMPLATES[keys] = found
        sorted_keys, template = found
        try:
            return template % tuple([encode_basestring_ascii(entry[key]) for key in sorted_keys])
        except TypeError:  # a value is not a string
            return self.dict_text(entry, level)


# (depth, *keys in insertion order) -> (sorted keys, template), for every switch: CONFIG_DB has a few dozen entry
# shapes. Bounded so that unusual input cannot grow it without limit.
_ENTRY_TEMPLATES: dict[tuple, tuple[list, str]] = {}
_ENTRY_TEMPLATES_MAX = 4096


def _entry_template(keys: tuple, punctuation: tuple[str, str, str]) -> tuple[list, str]:
    """Sorted keys and a ``%s`` template for string-only dicts with these keys."""
    opening, separator, closing = punctuation
    sorted_keys = sorted(keys)
    body = separator.join(f"{encode_basestring_ascii(key).replace('%', '%%')}: %s" for key in sorted_keys)
    return sorted_keys, opening + body + closing


def sonic_structured(structured: StructuredConfig) -> StructuredConfig:
    """The structured config with VRF names as SONiC spells them; shares every untouched part with the input."""
    if not structured["vrfs"] and not structured["bgp"]["vrfs"]:
        return structured
    renamed = structured.copy()
    renamed["vrfs"] = [{**vrf, "name": sonic_vrf_name(vrf["name"])} for vrf in structured["vrfs"]]
    renamed["vlans"] = [
        {**vlan, "vrf": sonic_vrf_name(vlan["vrf"])} if vlan["vrf"] else vlan for vlan in structured["vlans"]
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
