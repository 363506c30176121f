"""Configs -> structured config: the inverse of :mod:`compiler.render`, for configs we rendered and for any other.

``parse_device(files)`` detects the platform from the content (:func:`detect_platform`) and returns a
:class:`~compiler.parse.common.ParsedDevice`: the structured config of docs/structured-config.md, the lines/keys
not modelled (file, line, text; every report shows them) and where each fact was stated (findings cite file:line).
``parse_fabric`` parses many devices and completes what only the set of them says (:mod:`compiler.parse.fabric`:
cabled peers from shared subnets, EVPN flood lists). :mod:`compiler.parse.carried` says per platform which fields
a config carries, so ``parse(render(s)) == carried(s)`` can be proven. Pure Python; never imports Django.
"""

from __future__ import annotations

import json

from compiler.errors import FabricTwinError
from compiler.parse import eos, frr, sonic
from compiler.parse.common import ParsedDevice, Unmodelled

__all__ = ["ParseError", "ParsedDevice", "Unmodelled", "detect_platform", "parse_device", "PARSERS"]

PARSERS = {"eos": eos.parse, "sonic": sonic.parse, "frr": frr.parse}
# The file each parser reads, told apart by content: JSON ("{") or text.
ROLES = {"eos": {eos.FILE: ""}, "sonic": {sonic.CONFIG_DB: "{", sonic.FRR_CONF: ""},
         "frr": {frr.PLAN: "{", frr.CONF: ""}}


class ParseError(FabricTwinError):
    """A set of files that is no device config we can read; names the file and why."""


def detect_platform(files: dict[str, str]) -> str:
    """eos | sonic | frr from the files' content (names are only a hint: pulled configs are named anything).

    SONiC: a JSON object with CONFIG_DB tables (DEVICE_METADATA / PORT). FRR: our Linux plan (JSON with ``links``)
    or frr.conf text (``frr version`` / ``router bgp`` with FRR's ``exit`` block ends and no EOS-only commands).
    EOS: CLI text with EOS-only commands (``interface Ethernet`` blocks indented by three spaces, ``vrf instance``,
    ``service routing protocols model``, ``management api``)."""
    json_files = {}
    text_files = {}
    for name, text in files.items():
        stripped = text.lstrip()
        if stripped.startswith("{"):
            try:
                json_files[name] = json.loads(text)
            except ValueError as error:
                raise ParseError(f"{name}: looks like JSON but does not parse: {error}") from error
        else:
            text_files[name] = text
    if any(isinstance(data, dict) and ("DEVICE_METADATA" in data or "PORT" in data) for data in json_files.values()):
        return "sonic"
    if any(isinstance(data, dict) and "links" in data for data in json_files.values()):
        return "frr"
    for text in text_files.values():
        if "\nexit\n" in text or text.startswith("frr version") or "\nfrr version" in text or "exit-address-family" in text:
            return "frr"
        if any(marker in text for marker in ("\nservice routing protocols model", "\nvrf instance ", "\n   switchport",
                                             "\nmanagement api ", "\ninterface Ethernet", "\nhostname ", "\nend")):
            return "eos"
    raise ParseError(f"{', '.join(sorted(files)) or '(no files)'}: not an EOS, SONiC or FRR configuration")


def parse_device(files: dict[str, str], platform: str | None = None, hostname_hint: str = "") -> ParsedDevice:
    """One device's files ({name: text}) -> ParsedDevice. ``platform`` None: detected from the content."""
    platform = platform or detect_platform(files)
    if platform not in PARSERS:
        raise ParseError(f"platform={platform!r}: no parser (known: {', '.join(PARSERS)})")
    roles = ROLES[platform]
    original = {_role_name(name, text, roles): name for name, text in files.items()}
    try:
        parsed = PARSERS[platform]({role: files[name] for role, name in original.items()}, hostname_hint)
    except (KeyError, ValueError, TypeError, AttributeError, IndexError) as error:
        # Foreign text in a shape no parser expects (a JSON value of the wrong type, a number that is not one):
        # refused naming the files, never a crash.
        raise ParseError(f"{', '.join(sorted(files))}: not a {platform} configuration this parser can read "
                         f"({type(error).__name__}: {error})") from error
    # Reports cite the files by the names they were given.
    parsed.unmodelled = [Unmodelled(original.get(item.file, item.file), item.line, item.text)
                         for item in parsed.unmodelled]
    parsed.locations = {key: (original.get(file, file), line) for key, (file, line) in parsed.locations.items()}
    return parsed


def _role_name(name: str, text: str, roles: dict[str, str]) -> str:
    """The parser's file name for a file: JSON is the CONFIG_DB / Linux plan, text is frr.conf or EOS CLI."""
    is_json = text.lstrip().startswith("{")
    role = next((role for role, opener in roles.items() if (opener == "{") == is_json), None)
    if role is None:
        raise ParseError(f"{name}: a {'JSON' if is_json else 'text'} file is not part of this platform's config")
    return role
