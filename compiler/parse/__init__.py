"""Configs -> structured config: the inverse of :mod:`compiler.render`, for configs we rendered and for any other.

``parse_device(files)`` detects the platform from the content (:func:`detect_platform`) and returns a
:class:`~compiler.parse.common.ParsedDevice`: the structured config of docs/structured-config.md, the lines/keys
not modelled (file, line, text; every report shows them) and where each fact was stated (findings cite file:line).
``compiler.parse.fabric.parse_fabric`` parses many devices and completes what only the set of them says (
cabled peers from shared subnets, EVPN flood lists). :mod:`compiler.parse.carried` says per platform which fields
a config carries, so ``parse(render(s)) == carried(s)`` can be proven. Pure Python; never imports Django.

Detection explains itself: each text file is scored on EOS-only and FRR-only lines (:func:`text_evidence`); a
file with evidence for neither, or for both in comparable amounts, is refused naming the file and the lines that
decided. FRR's per-daemon files (``zebra.conf`` + ``bgpd.conf`` ...) are merged into one device; every file given
is either used or refused by name, never dropped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from types import TracebackType

from compiler.errors import FabricTwinError
from compiler.parse import eos, frr, sonic
from compiler.parse.common import Node, ParsedDevice, Unmodelled

__all__ = ["ParseError", "ParsedDevice", "Unmodelled", "detect_platform", "is_daemons_file", "parse_device", "text_evidence",
           "PARSERS"]

PARSERS = {"eos": eos.parse, "sonic": sonic.parse, "frr": frr.parse}

# FRR's per-daemon configuration files (FRR user guide, "Basic Setup": without ``service integrated-vtysh-config``
# each daemon reads /etc/frr/<daemon>.conf; SONiC's "separated" FRR mode writes the same files). Merged in this
# order: zebra's interfaces and VRFs first, then the daemons that refer to them, BGP last, vtysh.conf (vtysh's own
# settings) after all.
FRR_FILE_ORDER = ("frr.conf", "zebra.conf", "mgmtd.conf", "staticd.conf", "bfdd.conf", "ospfd.conf", "ospf6d.conf",
                  "isisd.conf", "ripd.conf", "ripngd.conf", "eigrpd.conf", "pimd.conf", "ldpd.conf", "pathd.conf",
                  "pbrd.conf", "vrrpd.conf", "fabricd.conf", "bgpd.conf", "vtysh.conf")
DAEMONS_FILE = "daemons"  # /etc/frr/daemons: which daemons the FRR service starts (``bgpd=yes``)
_DAEMONS_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_DAEMON_SWITCH = re.compile(r"^(zebra|[a-z0-9]+d)=(yes|no)$")
# Each daemon's command line and vtysh's switch (FRR user guide, "Daemons Configuration File"): how the processes
# start (listen address, netlink buffer), nothing the network model holds; read, not listed as unmodelled. Other
# settings (``frr_profile`` changes FRR's defaults) are listed.
_DAEMON_START = re.compile(r"^(?:zebra|[a-z0-9]+d)_options=|^(?:vtysh_enable|MAX_FDS|watchfrr_\w+)=")

# A file's platform evidence: lines only one of the two CLI dialects has. EOS: Arista EOS User Manual
# (``show running-config`` opens with "! Command:" / "! device:"; RANCID marks its dumps "!RANCID-CONTENT-TYPE:
# arista"). FRR: FRR user guide (vtysh closes top-level blocks with ``exit``, nested ones with
# ``exit-address-family``/``exit-vni``/``exit-vrf``; EOS prints a nested ``exit`` in some modes, never a top-level one).
# *_TOP: a top-level command; *_ANY: a command at any depth (``no`` form included); _EOS_CHILD: nested only.
_EOS_TOP = (
    r"service routing protocols model|vrf instance |management (?:api|ssh|console|security|defaults)"
    r"|ip routing(?: vrf|$)|no ip routing|spanning-tree |mlag configuration|transceiver |daemon \S+$"
    r"|aaa (?:authorization|authentication|accounting|root)|username \S+ (?:privilege|role|secret)"
    r"|ntp server |logging |clock timezone |ip name-server |dns domain |vlan \d|ip virtual-router "
    r"|queue-monitor |platform (?:trident|sand|jericho|tomahawk)|errdisable |event-handler |interface Port-Channel"
    r"|interface Vxlan\d|interface Management\d|arp aging |hardware |ip igmp snooping|no aaa root|boot system "
    r"|ip as-path access-list ")
_EOS_ANY = (
    r"(?:no )?(?:switchport|channel-group |ip address virtual |vxlan (?:source-interface|udp-port|vlan|vrf|flood)"
    r"|neighbor \S+ peer group |neighbor \S+ maximum-routes |address-family evpn$|service-profile "
    r"|priority-flow-control |speed forced |mlag \d|peer-link |peer-address |tx-queue |uc-tx-queue |qos trust "
    r"|spanning-tree )")
_EOS_CHILD = r"router-id \d"  # EOS's BGP/OSPF router ID (FRR: ``bgp router-id``; top-level: zebra's)
_EOS_COMMENT = (r" Command: show (?:running|startup)-config| device: \S+ \(| boot system "
                r"|RANCID-CONTENT-TYPE: arista")
_FRR_TOP = (
    r"frr (?:version|defaults) |log (?:syslog|file|stdout|timestamp|commands)|service integrated-vtysh-config"
    r"|line vty$|ip forwarding$|ipv6 forwarding$|no ipv6 forwarding$|agentx$|vrf \S+$|password \S+$|exit$"
    r"|debug (?:bgp|zebra|ospf|isis|bfd)|zebra |ip nht |ipv6 nht |segment-routing$|fpm |bgp as-path access-list ")
_FRR_ANY = (
    r"(?:no )?(?:exit-address-family$|exit-vni$|exit-vrf$|address-family l2vpn evpn$|advertise-all-vni$"
    r"|advertise-default-gw$|no bgp ebgp-requires-policy$|bgp router-id |neighbor \S+ interface"
    r"|ip router (?:ospf|isis)|ipv6 router (?:ospf6|isis)|ipv6 nd ra-interval|no ipv6 nd suppress-ra"
    r"|neighbor \S+ capability extended-nexthop)")


# One pattern per depth, the side named by the group that matched: one regex call per line.
_TOP = re.compile(rf"(?P<eos>{_EOS_TOP})|(?P<frr>{_FRR_TOP})|(?P<eos_any>{_EOS_ANY})|(?P<frr_any>{_FRR_ANY})")
_NESTED = re.compile(rf"(?P<eos>{_EOS_CHILD})|(?P<eos_any>{_EOS_ANY})|(?P<frr_any>{_FRR_ANY})")
_EOS_COMMENT_LINE = re.compile(rf"!(?:{_EOS_COMMENT})")
_SIDE = {"eos": "eos", "eos_any": "eos", "frr": "frr", "frr_any": "frr"}
# A block's first level as each dialect prints it: FRR one space, EOS three. Hand-written files (two or four
# spaces, or one in Batfish's EOS fixtures: EOS and FRR read any) are decided by their commands.
_INDENT_DIALECT = {1: "frr", 3: "eos"}
_CONFIG_DB_KEY = re.compile(r'^[ \t]{0,8}"(?:DEVICE_METADATA|PORT)"[ \t]*:[ \t]*\{', re.MULTILINE)
_PLAN_KEY = re.compile(r'^[ \t]{0,8}"links"[ \t]*:[ \t]*\[', re.MULTILINE)
_DAEMON_FILES = frozenset(FRR_FILE_ORDER) - {"frr.conf"}  # per-daemon files (and vtysh.conf, vtysh's own)
_HOSTNAME = re.compile(r"^hostname[ \t]+(\S+)", re.MULTILINE)
_FRR_NAMES = frozenset(FRR_FILE_ORDER)
DOMINANCE = 4  # a file is of one dialect when its evidence outweighs the other's this many times
PREFIX_LINES = 150  # detection reads this many lines of a file first ...
DECISIVE_COMMANDS = 10  # ... and stops there when it holds this many commands of one dialect and none of the other


class ParseError(FabricTwinError):
    """A set of files that is no device config we can read; names the file and why."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a text file's lines say about its dialect: per side, the commands only that dialect has
    (``eos``/``frr``) and the lines indented as only that dialect prints them (``eos_indent``/``frr_indent``)."""

    name: str
    eos: list[tuple[int, str]]
    frr: list[tuple[int, str]]
    eos_indent: list[tuple[int, str]] = field(default_factory=list)
    frr_indent: list[tuple[int, str]] = field(default_factory=list)
    first_command: str = ""  # "line 1 `hostname r1`", for a refusal of a file with no evidence

    def first(self, side: str) -> str:
        line, text = ((self.eos or self.eos_indent) if side == "eos" else (self.frr or self.frr_indent))[0]
        return f"{self.name}:{line} `{text}`" if line else f"{self.name}: {text}"

    def dialect(self) -> str:
        """eos | frr, or ParseError naming the file and the lines that decided. Commands decide; indentation
        only when no line is a command of either dialect (hand-written EOS is indented anyhow)."""
        eos_count, frr_count = len(self.eos), len(self.frr)
        kind = "commands"
        if not eos_count and not frr_count:
            eos_count, frr_count, kind = len(self.eos_indent), len(self.frr_indent), "indented lines"
        if frr_count and frr_count >= DOMINANCE * eos_count:
            return "frr"
        if eos_count and eos_count >= DOMINANCE * frr_count:
            return "eos"
        if not eos_count and not frr_count:
            raise ParseError(f"{self.name}: neither an EOS nor an FRR configuration: no line only EOS or only FRR "
                             f"has ({self.first_command or 'the file holds no command'})")
        raise ParseError(f"{self.name}: both EOS and FRR {kind} ({eos_count} EOS-only, first {self.first('eos')}; "
                         f"{frr_count} FRR-only, first {self.first('frr')}): refusing to guess the platform")


def text_evidence(name: str, text: str) -> Evidence:
    """Score a CLI text on EOS-only and FRR-only commands (:data:`_EOS_TOP`, :data:`_FRR_ANY` ...) and on the
    indentation a block's first level has: EOS prints three spaces, FRR one (hand-written two or four: no evidence).
    A file named like an FRR daemon's (``bgpd.conf``) counts as one FRR command: names are a hint, the content
    decides. The first :data:`PREFIX_LINES` lines are read first; when they hold :data:`DECISIVE_COMMANDS` commands
    of one dialect and none of the other, the rest of a large file (a spine's hundreds of interfaces) is not read
    for detection (its lines still reach the parser, unmodelled if foreign)."""
    head = text.split("\n", PREFIX_LINES)
    evidence = _evidence(name, head[:PREFIX_LINES])
    eos_count, frr_count = len(evidence.eos), len(evidence.frr)
    if len(head) > PREFIX_LINES and not (min(eos_count, frr_count) == 0
                                         and max(eos_count, frr_count) >= DECISIVE_COMMANDS):
        evidence = _evidence(name, text.split("\n"))
    return evidence


def _evidence(name: str, lines: list[str]) -> Evidence:
    commands: dict[str, list[tuple[int, str]]] = {"eos": [], "frr": []}
    indented: dict[str, list[tuple[int, str]]] = {"eos": [], "frr": []}
    first: tuple[int, str] | None = None
    unit = 0  # the current top-level block's first indentation
    for number, raw in enumerate(lines, start=1):
        content = raw.strip()
        if not content:
            continue
        if content[0] == "!":
            if _EOS_COMMENT_LINE.match(content):
                commands["eos"].append((number, content))
            continue
        first = first or (number, content)
        indent = len(raw) - len(raw.lstrip(" "))
        unit = 0 if indent == 0 else unit or indent
        match = (_NESTED if indent else _TOP).match(content)
        if match is not None:
            commands[_SIDE[match.lastgroup or ""]].append((number, raw.rstrip()))
        elif unit in _INDENT_DIALECT:
            indented[_INDENT_DIALECT[unit]].append((number, raw.rstrip()))
    if name.rsplit("/", 1)[-1] in _FRR_NAMES:
        commands["frr"].append((0, "named like an FRR daemon's file"))
    return Evidence(name, commands["eos"], commands["frr"], indented["eos"], indented["frr"],
                    f"first command: line {first[0]} `{first[1]}`" if first else "")


def is_daemons_file(text: str) -> bool:
    """/etc/frr/daemons: shell assignments, at least one ``<daemon>=yes|no``."""
    switches = False
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line[0] == "#":
            continue
        if not _DAEMONS_LINE.match(line):
            return False  # the first CLI line ends it: a config file is never read whole here
        switches = switches or bool(_DAEMON_SWITCH.match(line))
    return switches


def _classify(name: str, text: str) -> tuple[str, str]:
    """(kind, why) of one file: config_db | plan (JSON), daemons, eos | frr (CLI text)."""
    if text.lstrip().startswith("{"):
        # Our renderers' and SONiC's files name their tables as top-level keys: told apart without decoding the
        # JSON twice (the parser decodes it; a file that does not decode is refused there, naming the line).
        if _CONFIG_DB_KEY.search(text):
            return "config_db", f"{name}: a SONiC CONFIG_DB (DEVICE_METADATA/PORT tables)"
        if _PLAN_KEY.search(text):
            return "plan", f"{name}: a Linux plan (links)"
        try:
            data = json.loads(text)
        except ValueError as error:
            raise ParseError(f"{name}: looks like JSON but does not parse: {error}") from error
        if isinstance(data, dict) and ("DEVICE_METADATA" in data or "PORT" in data):
            return "config_db", f"{name}: a SONiC CONFIG_DB (DEVICE_METADATA/PORT tables)"
        if isinstance(data, dict) and "links" in data:
            return "plan", f"{name}: a Linux plan (links)"
        if isinstance(data, dict) and any(key.split("|", 1)[0] in ("DEVICE_METADATA", "PORT") for key in data):
            raise ParseError(f"{name}: CONFIG_DB as Redis dumps it (flat `TABLE|key` rows, e.g. "
                             f"{next(key for key in data if '|' in key)!r}), not a config_db.json: give the file SONiC "
                             "saves (`config save`, or `sonic-cfggen -d --print-data`)")
        raise ParseError(f"{name}: JSON that is neither a SONiC config_db.json (no DEVICE_METADATA or PORT table) "
                         "nor a Linux plan (no links)")
    if is_daemons_file(text):
        return "daemons", f"{name}: FRR's daemons file"
    evidence = text_evidence(name, text)
    dialect = evidence.dialect()
    return dialect, evidence.first(dialect)


def _device_kinds(files: dict[str, str]) -> tuple[str, dict[str, str], str]:
    """(platform, {file: kind}, why) for one device's files; ParseError naming the files that do not fit."""
    kinds: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for name in sorted(files):
        kinds[name], reasons[name] = _classify(name, files[name])
    by_kind: dict[str, list[str]] = {}
    for name, kind in kinds.items():
        by_kind.setdefault(kind, []).append(name)
    if "config_db" in by_kind:
        platform, leader = "sonic", by_kind["config_db"][0]
    elif "plan" in by_kind:
        platform, leader = "frr", by_kind["plan"][0]
    elif "eos" in by_kind:
        platform, leader = "eos", by_kind["eos"][0]
    elif "frr" in by_kind:
        platform, leader = "frr", by_kind["frr"][0]
    elif files:
        raise ParseError(f"{', '.join(sorted(files))}: FRR's daemons file alone is no configuration (no frr.conf "
                         "or per-daemon .conf file)")
    else:
        raise ParseError("(no files): not an EOS, SONiC or FRR configuration")
    _check_kinds(platform, kinds, reasons)
    return platform, kinds, reasons[leader]


# What each platform's device may hold: kind -> how many files of it.
_ALLOWED = {"eos": {"eos": 1}, "sonic": {"config_db": 1, "frr": len(FRR_FILE_ORDER)},
            "frr": {"plan": 1, "frr": len(FRR_FILE_ORDER), "daemons": 1}}


def _check_kinds(platform: str, kinds: dict[str, str], reasons: dict[str, str]) -> None:
    allowed = _ALLOWED[platform]
    seen: dict[str, list[str]] = {}
    for name, kind in kinds.items():
        seen.setdefault(kind, []).append(name)
    for kind, names in seen.items():
        if kind not in allowed:
            other = next((name for name, other_kind in kinds.items() if other_kind in allowed), None)
            if other is None:  # the platform was given and no file is of it
                raise ParseError(f"{names[0]} is {kind} ({reasons[names[0]]}): not a {platform} configuration")
            raise ParseError(f"{names[0]} is {kind} ({reasons[names[0]]}) and {other} is {kinds[other]} "
                             f"({reasons[other]}): one device's files are of one platform")
        if len(names) > allowed[kind]:
            raise ParseError(f"{', '.join(names)}: {len(names)} {kind} files for one device (one is used; which "
                             "one runs?)")


def detect_platform(files: dict[str, str]) -> str:
    """eos | sonic | frr from the files' content (names are only a hint: pulled configs are named anything).

    SONiC: a JSON object with CONFIG_DB tables (DEVICE_METADATA / PORT), with its FRR text. FRR: our Linux plan
    (JSON with ``links``) and/or FRR text (frr.conf or per-daemon files, FRR's ``daemons`` file). EOS: one CLI text
    whose lines are EOS's (:func:`text_evidence`). ParseError naming the file and the lines that decided otherwise."""
    return _device_kinds(files)[0]


@dataclass(frozen=True, slots=True)
class _Segment:
    """One FRR file inside the merged text, from line ``first`` of it."""

    name: str
    first: int


def _merge_frr(files: dict[str, str], names: list[str]) -> tuple[str, list[_Segment]]:
    """FRR's per-daemon files as one frr.conf text (FRR's integrated config is their concatenation: FRR user guide,
    "Integrated configuration mode"), with where each file's lines went."""
    integrated = [name for name in names if name.rsplit("/", 1)[-1] not in _DAEMON_FILES]
    daemon_files = [name for name in names if name.rsplit("/", 1)[-1] in _DAEMON_FILES
                    and name.rsplit("/", 1)[-1] != "vtysh.conf"]
    if len(integrated) > 1:
        raise ParseError(f"{', '.join(integrated)}: {len(integrated)} integrated FRR configs for one device (which one "
                         "runs?)")
    if integrated and daemon_files:
        # FRR user guide, "Integrated configuration mode": when frr.conf exists the daemons read it, not their own.
        raise ParseError(f"{integrated[0]} is an integrated FRR config and {', '.join(daemon_files)} per-daemon "
                         f"file(s): FRR reads the integrated one when it exists, the others would not run")
    order = {name: index for index, name in enumerate(FRR_FILE_ORDER)}
    ordered = sorted(names, key=lambda name: (order.get(name.rsplit("/", 1)[-1], 0), name))
    merged: list[str] = []
    segments = []
    hostnames: dict[str, str] = {}
    for name in ordered:
        lines = files[name].split("\n")
        segments.append(_Segment(name, len(merged) + 1))
        merged += lines + ["!"]  # "!" closes every block: a file's last block never runs into the next file
        for host in _HOSTNAME.findall(files[name]):
            hostnames.setdefault(host, name)
    if len(hostnames) > 1:
        raise ParseError("FRR files of one device name different hosts: "
                         + ", ".join(f"{name} says `hostname {host}`" for host, name in hostnames.items()))
    return "\n".join(merged), segments


def _origin(segments: list[_Segment], line: int) -> tuple[str, int]:
    for segment in reversed(segments):
        if line >= segment.first:
            return segment.name, line - segment.first + 1
    return segments[0].name, line


def _daemons(name: str, text: str, frr_names: list[str]) -> list[Unmodelled]:
    """Read FRR's daemons file: a per-daemon file whose daemon is switched off would not run (ParseError naming
    both); ``<daemon>=yes|no`` lines and the daemons' start options are read, other settings listed as not
    modelled."""
    unmodelled = []
    switched_off = set()
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _DAEMON_SWITCH.match(line)
        if match is None and not _DAEMON_START.match(line):
            unmodelled.append(Unmodelled(name, number, line))
        elif match is None:
            continue
        elif match.group(2) == "no":
            switched_off.add(match.group(1))
    for conf in frr_names:
        daemon = conf.rsplit("/", 1)[-1].removesuffix(".conf")
        if daemon in switched_off:
            raise ParseError(f"{conf}: configures {daemon}, but {name} says {daemon}=no (the daemon would not run "
                             "it)")
    return unmodelled


def parse_device(files: dict[str, str], platform: str | None = None, hostname_hint: str = "") -> ParsedDevice:
    """One device's files ({name: text}) -> ParsedDevice. ``platform`` None: detected from the content.

    Every file is used or refused: a SONiC device is its config_db.json and FRR text, an FRR device its FRR text
    (one frr.conf or FRR's per-daemon files, merged) with our Linux plan and FRR's daemons file, an EOS device one
    CLI text. ParseError names the file (and line and command when a line could not be read)."""
    if platform is None:
        platform, kinds, detected_by = _device_kinds(files)
    elif platform not in PARSERS:
        raise ParseError(f"platform={platform!r}: no parser (known: {', '.join(PARSERS)})")
    else:
        kinds, detected_by = _kinds_for(platform, files), f"platform={platform} given"
        _check_kinds(platform, kinds, {name: f"{name} ({kind})" for name, kind in kinds.items()})
    role_files: dict[str, str] = {}
    original: dict[str, str] = {}
    segments: list[_Segment] = []
    extra: list[Unmodelled] = []
    frr_names = [name for name, kind in kinds.items() if kind == "frr"]
    for name, kind in kinds.items():
        if kind in ("config_db", "plan", "eos"):
            role = {"config_db": sonic.CONFIG_DB, "plan": frr.PLAN, "eos": eos.FILE}[kind]
            role_files[role], original[role] = files[name], name
        elif kind == "daemons":
            extra += _daemons(name, files[name], frr_names)
    if frr_names:
        role_files[frr.CONF], segments = _merge_frr(files, frr_names)
    try:
        parsed = PARSERS[platform](role_files, hostname_hint)
    except (KeyError, ValueError, TypeError, AttributeError, IndexError) as error:
        # Foreign text in a shape no parser expects (a JSON value of the wrong type, a number that is not one):
        # refused naming the file, line and command, never a crash.
        # The line the failing parser frame was reading, unless the value the error quotes is elsewhere (read
        # from one block, failing in another: an interface's `ip address dhcp` used by `router bgp`).
        framed, holds_value = _failed_line(error.__traceback__, original, segments, role_files, str(error))
        quoted = "" if holds_value else _line_quoting(str(error), original, segments, role_files)
        where = quoted or framed
        raise ParseError(f"{where or ', '.join(sorted(files))}: not a {platform} configuration this parser can "
                         f"read ({type(error).__name__}: {error})") from error

    def cite(file: str, line: int) -> tuple[str, int]:
        if file == frr.CONF and segments:
            return _origin(segments, line)
        return original.get(file, file), line

    # Reports cite the files by the names they were given, and the line in the file it came from.
    parsed.unmodelled = [Unmodelled(*cite(item.file, item.line), item.text) for item in parsed.unmodelled] + extra
    parsed.locations = {key: cite(file, line) for key, (file, line) in parsed.locations.items()}
    parsed.files = sorted(files)
    parsed.detected_by = detected_by
    return parsed


def _kinds_for(platform: str, files: dict[str, str]) -> dict[str, str]:
    """Each file's kind when the platform is given: JSON is the platform's JSON file, text its CLI text."""
    kinds = {}
    for name, text in files.items():
        if text.lstrip().startswith("{"):
            kinds[name] = {"sonic": "config_db", "frr": "plan"}.get(platform, "json")
        elif platform == "frr" and is_daemons_file(text):
            kinds[name] = "daemons"
        else:
            kinds[name] = "eos" if platform == "eos" else "frr"
    return kinds


_QUOTED = re.compile(r"'([^'\n]{3,})'")


def _line_quoting(message: str, original: dict[str, str], segments: list[_Segment], role_files: dict[str, str]) -> str:
    """``file:line `text``` of the first line holding the value an error quotes ("not an IPv4 address:
    'fc00::82'"), when no parser frame named the line (the value failed after the line was read)."""
    match = _QUOTED.search(message)
    if match is None:
        return ""
    for role, text in role_files.items():
        position = text.find(match.group(1))
        if position < 0:
            continue
        number = text.count("\n", 0, position) + 1
        line_text = text.split("\n")[number - 1].strip()
        name, line = _origin(segments, number) if role == frr.CONF and segments else (original.get(role, role), number)
        return f"{name}:{line} `{line_text}`"
    return ""


def _quoted_child(node: Node, message: str) -> Node:
    """The line under a block that holds the value the error quotes (a block is read whole, then fails on one of
    its lines: ``router bgp`` on ``neighbor 2001:db8::1 ...``); the block itself when none does."""
    match = _QUOTED.search(message)
    if match is None or match.group(1) in node.text:
        return node
    pending = list(node.children)
    while pending:
        child = pending.pop(0)
        if match.group(1) in child.text:
            return child
        pending.extend(child.children)
    return node


def _failed_line(trace: TracebackType | None, original: dict[str, str], segments: list[_Segment],
                 role_files: dict[str, str], message: str) -> tuple[str, bool]:
    """``file:line `command``` of the line a parser failed on: the innermost parser frame holding a CLI line
    (a :class:`~compiler.parse.common.Node`) or a config_db row key names it; and whether that line holds the
    value the error quotes (True when it quotes none)."""
    node: Node | None = None
    keys: list[str] = []  # config_db row keys in the parser frames, innermost first
    while trace is not None:
        frame_locals = trace.tb_frame.f_locals
        if trace.tb_frame.f_code.co_filename.startswith(__file__.rsplit("/", 1)[0]):
            nodes = [value for value in frame_locals.values() if isinstance(value, Node)]
            if nodes:  # a block and the line inside it being read: the later line is the one that failed
                node = max(nodes, key=lambda item: item.line)
            keys[:0] = [frame_locals[name] for name in ("name", "key") if isinstance(frame_locals.get(name), str)]
        trace = trace.tb_next
    quote = _QUOTED.search(message)
    if node is not None:
        node = _quoted_child(node, message)
        holds_value = quote is None or quote.group(1) in node.text
        file = frr.CONF if frr.CONF in role_files and eos.FILE not in role_files else eos.FILE
        if file == frr.CONF and segments:
            name, line = _origin(segments, node.line)
        else:
            name, line = original.get(file, file), node.line
        return f"{name}:{line} `{node.text}`", holds_value
    if keys and sonic.CONFIG_DB in role_files:
        index = sonic._json_line_index(role_files[sonic.CONFIG_DB])  # the same index findings cite lines from
        for key in keys:
            found = next(((entry, number) for entry, number in index.items() if entry.split("|", 1)[-1] == key), None)
            if found:
                return f"{original.get(sonic.CONFIG_DB, sonic.CONFIG_DB)}:{found[1]} `{found[0]}`", quote is None
    return "", False
