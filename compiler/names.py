"""The one name grammar: which characters and lengths each kind of name or text field accepts.

Every boundary uses this module: Django model field validators (``common/names.py`` wraps :func:`name_problem`),
hence API serializers and UI model forms; the YAML and NetBox importers; and the pure core, where
:func:`snapshot_name_errors` runs first in ``compiler.validate.check_intent`` so the compiler rejects exactly what
the Django side would. Renderers additionally refuse any value with a line break (:func:`check_single_line`),
defence in depth for rows written before this grammar existed.

Rules common to every kind: a ``str``; no control characters (Unicode category Cc: NUL, CR, LF, TAB, U+0085 ...),
no format characters (Cf: zero-width and bidi overrides that make two names look alike), no line or paragraph
separators (Zl/Zp: U+2028, U+2029), no surrogates or unassigned code points. Patterns are matched with
``fullmatch`` (a ``$`` would accept a trailing newline).

Names that become path components (hostnames, server names, fabric and intent names) cannot contain ``/``, ``\\``,
start with ``.`` or be ``.``/``..``: the grammar alone keeps them inside their directory; ``compiler.paths``
checks the resolved path as well.

This module never imports Django.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass, fields, is_dataclass
from functools import lru_cache
from itertools import chain
from operator import attrgetter

import orjson

from compiler.errors import FieldError, RenderError, UnsafePathError

# Linux IFNAMSIZ is 16 bytes including the terminating NUL (include/uapi/linux/if.h), so a kernel interface
# name has at most 15 characters; dev_valid_name() (net/core/dev.c) also refuses "/", ":", whitespace, "." and
# "..". VRFs are kernel devices on Linux/FRR/SONiC (Documentation/networking/vrf.rst), NICs are kernel devices.
LINUX_IFNAME_MAX = 15

# RFC 1123 section 2.1 host names: labels of letters, digits and hyphens, not starting or ending with a hyphen
# (RFC 952 as relaxed by RFC 1123: a label may start with a digit), separated by dots. A label has at most 63
# octets (RFC 1035 section 2.3.4); our hostname columns hold 63 characters, within Linux HOST_NAME_MAX (64) and
# EOS's `hostname` limit.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOSTNAME_RE = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
DNS_NAME_MAX = 253  # RFC 1035 section 3.1: 255 octets on the wire, 253 characters in text


def server_address_problem(value: object, *, names: bool = False) -> str | None:
    """Why ``value`` is not a server address: an IP address, or with ``names`` also an RFC 1123 host name (NTP
    servers: every target takes one, EOS ``ntp server``, SONiC's NTP_SERVER key ``inet:host`` in sonic-ntp.yang,
    chrony ``server``). None when it is one."""
    try:
        ipaddress.ip_address(value)  # type: ignore[arg-type]
        return None
    except (ValueError, TypeError):
        pass
    if names and isinstance(value, str) and len(value) <= DNS_NAME_MAX and HOSTNAME_RE.fullmatch(value) \
            and not value.replace(".", "").isdigit():
        return None
    return "not an IP address or a host name" if names else "not an IP address"

# Object names (tenants, networks, RoCE classes, fabrics, intents, racks, sites, switch models): letters, digits,
# "_", ".", "-", starting with a letter or digit. This is the intersection of what every target prints as a bare
# token: EOS `vlan N / name X` takes one word (no spaces), FRR and SONiC YANG names are tokens, and the names
# become directory names (compile output, containerlab export) and twin namespace parts.
OBJECT_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")

# Switch interface names as the platforms spell them: EOS `Ethernet1/1`, `Ethernet1/1/1`, `Management1`,
# `Port-Channel10`; SONiC `Ethernet0`, `PortChannel0001`; FRR/Linux `swp1`, `eth0`, `eth1.10`. Letters first,
# then letters, digits and / . : _ -. Never a path component (the twin maps them with linux_ifname).
INTERFACE_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9/.:_-]*")

# Linux kernel device names (NICs, VRFs): see LINUX_IFNAME_MAX; we allow the portable subset.
LINUX_IFNAME_RE = re.compile(r"[A-Za-z0-9_.-]+")

# Software versions: EOS `4.32.2F`, `4.30.1F-INT`, SONiC `SONiC.202311.1`, FRR `8.4.4`, `FRR 8.4.4`, `10.0+dev`:
# words of letters, digits and . _ + - separated by single spaces.
VERSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*(?: [A-Za-z0-9._+-]+)*")

# Reserved VRF names. `default` is the global routing table on EOS (`vrf default`), FRR (VRF_DEFAULT_NAME,
# lib/vrf.h) and SONiC; `mgmt` is SONiC's management VRF (sonic-mgmt_vrf.yang, MGMT_VRF_CONFIG) and the name
# FRR documents for a management VRF (ours on every platform, compiler/structured/management.py); `all` is the
# keyword of `show ... vrf all` on EOS and FRR. Compared case-insensitively so `Default`/`MGMT` cannot confuse an
# operator.
# A twin's name prefix: the start of every namespace, FRR pathspace and state file of one twin (labs.runtime),
# so it stays short, lower case and shell- and path-safe. Its makers are in twins/ (a Twin row: "tw" + the 6-hex
# installation id + 6 hex of the intent and engine = 14; a change rehearsal's scratch twin: "ftr" + 8 hex).
TWIN_PREFIX_RE = re.compile(r"[a-z][a-z0-9]{2,15}")

RESERVED_VRF_NAMES = frozenset({"default", "all", "mgmt"})


@dataclass(frozen=True, slots=True)
class NameKind:
    """One field kind: a pattern (None = any single-line printable text), a maximum length and why."""

    key: str
    pattern: re.Pattern[str] | None
    max_length: int
    allowed: str  # human wording of the pattern, used in error messages
    path_safe: bool = False  # may become a path component
    reserved: frozenset[str] = frozenset()


HOSTNAME = NameKind("hostname", HOSTNAME_RE, 63,
                    "RFC 1123 labels (letters, digits, '-'; no leading/trailing '-') separated by '.'",
                    path_safe=True)
OBJECT_NAME = NameKind("name", OBJECT_NAME_RE, 100,
                       "letters, digits, '_', '.', '-', starting with a letter or digit", path_safe=True)
INTERFACE_NAME = NameKind("interface name", INTERFACE_NAME_RE, 64,
                          "a letter, then letters, digits, '/', '.', ':', '_', '-'")
NIC_NAME = NameKind("NIC name", LINUX_IFNAME_RE, LINUX_IFNAME_MAX,
                    "a Linux device name: letters, digits, '_', '.', '-' (not '.' or '..')",
                    reserved=frozenset({".", ".."}))
VRF_NAME = NameKind("VRF name", LINUX_IFNAME_RE, LINUX_IFNAME_MAX,
                    "a Linux device name: letters, digits, '_', '.', '-'",
                    reserved=RESERVED_VRF_NAMES | {".", ".."})
VERSION = NameKind("software version", VERSION_RE, 50,
                   "words of letters, digits, '.', '_', '+', '-' (single spaces between), starting with a letter or digit")
# Free single-line text: descriptions (EOS/FRR `description` print the rest of the line; SONiC PORT description
# is a string leaf), serial numbers, vendors, part numbers. 200 is our widest description column.
TEXT = NameKind("text", None, 200, "one line of printable text")

KINDS = {kind.key: kind for kind in (HOSTNAME, OBJECT_NAME, INTERFACE_NAME, NIC_NAME, VRF_NAME, VERSION, TEXT)}

# Characters every renderer refuses (str.splitlines() breaks on all of these), plus NUL.
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029\x00")
_LINE_BREAK_RE = re.compile("[" + re.escape("".join(sorted(LINE_BREAKS))) + "]")
_UNESCAPED_BREAK_RE = re.compile("[\x85\u2028\u2029]")  # the line breaks JSON leaves unescaped


def _bad_character(value: str) -> str | None:
    for char in value:
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            return f"contains the control or invisible character U+{ord(char):04X}"
    return None


@lru_cache(maxsize=65536)
def _problem(kind: NameKind, value: str, max_length: int, blank: bool) -> str | None:
    if value == "":
        return None if blank else "must not be empty"
    if len(value) > max_length:
        return f"is {len(value)} characters long, at most {max_length} allowed"
    if value.isascii():
        if not value.isprintable():
            return _bad_character(value)
    else:
        bad = _bad_character(value)
        if bad:
            return bad
    if kind.pattern is not None and not kind.pattern.fullmatch(value):
        return f"must be {kind.allowed}"
    if kind.reserved and value.lower() in kind.reserved:
        return f"is reserved ({', '.join(sorted(kind.reserved - {'.', '..'}))} cannot be used)"
    return None


def name_problem(kind: NameKind | str, value: object, *, max_length: int | None = None,
                 blank: bool = False) -> str | None:
    """Why ``value`` is not a valid ``kind`` (None when it is). ``max_length`` narrows the kind's own limit."""
    kind = KINDS[kind] if isinstance(kind, str) else kind
    if not isinstance(value, str):
        return f"must be a string, not {type(value).__name__}"
    limit = kind.max_length if max_length is None else min(max_length, kind.max_length)
    return _problem(kind, value, limit, blank)


def path_component(kind: NameKind | str, value: object, field: str) -> str:
    """``value`` if it may be used as one path component (a path-safe kind that passes the grammar)."""
    kind = KINDS[kind] if isinstance(kind, str) else kind
    if not kind.path_safe:
        raise ValueError(f"{kind.key} names are not path-safe")  # a programming error, not an input error
    problem = name_problem(kind, value)
    if problem:
        raise UnsafePathError(FieldError(field, value, f"cannot be a path component: {problem}"))
    return value  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------- the pure core

# (dataclass name, field) -> (kind, may be blank). Every other str field of a snapshot dataclass is TEXT, so no
# string in a snapshot escapes the common rules; enumerations and addresses are also checked by compiler.validate.
FIELD_KINDS: dict[tuple[str, str], tuple[NameKind, bool]] = {
    ("SwitchModelSpec", "name"): (OBJECT_NAME, False),
    ("Rack", "name"): (OBJECT_NAME, False),
    ("Rack", "site"): (OBJECT_NAME, True),
    ("Interface", "name"): (INTERFACE_NAME, False),
    ("Interface", "breakout_parent"): (INTERFACE_NAME, True),
    ("Switch", "hostname"): (HOSTNAME, False),
    ("Switch", "model"): (OBJECT_NAME, False),
    ("Switch", "rack"): (OBJECT_NAME, True),
    ("Switch", "os_version"): (VERSION, True),
    ("NicPort", "name"): (NIC_NAME, False),
    ("Server", "name"): (HOSTNAME, False),
    ("Server", "rack"): (OBJECT_NAME, True),
    ("Endpoint", "device"): (HOSTNAME, False),
    ("Endpoint", "interface"): (INTERFACE_NAME, False),
    ("Cable", "label"): (TEXT, False),  # e.g. "leaf1:Ethernet1/1--spine1:Ethernet1/1"; never a path or a token
    ("Inventory", "fabric"): (OBJECT_NAME, False),
    ("Tenant", "name"): (OBJECT_NAME, False),
    ("Tenant", "vrf"): (VRF_NAME, False),
    ("Network", "name"): (OBJECT_NAME, False),
    ("Network", "tenant"): (OBJECT_NAME, False),
    ("RoceClass", "name"): (OBJECT_NAME, False),
    ("FabricIntent", "name"): (OBJECT_NAME, False),
    ("FabricIntent", "inventory_fabric"): (OBJECT_NAME, False),
}

# Per-field limits narrower than the kind's (the Django columns): (dataclass name, field) -> max length.
FIELD_MAX_LENGTH: dict[tuple[str, str], int] = {
    ("Tenant", "name"): 64, ("Network", "name"): 64, ("Network", "tenant"): 64, ("RoceClass", "name"): 32,
    ("Cable", "label"): 100, ("Switch", "serial"): 64, ("Server", "serial"): 64, ("Optic", "serial"): 64,
    ("Optic", "media"): 32, ("Rack", "row"): 50,
}


def _label(obj: object, index: int) -> str:
    for attribute in ("hostname", "name", "label"):
        value = getattr(obj, attribute, None)
        if isinstance(value, str) and not name_problem(TEXT, value):
            return value
    return str(index)


def object_name_errors(obj: object, path: str, errors: list[FieldError]) -> None:
    """Append a FieldError for every str field of dataclass ``obj`` (recursively) that breaks the grammar."""
    cls = type(obj).__name__
    for spec in fields(obj):  # type: ignore[arg-type]
        value = getattr(obj, spec.name)
        field = f"{path}.{spec.name}" if path else spec.name
        if isinstance(value, str):
            kind, blank = FIELD_KINDS.get((cls, spec.name), (TEXT, True))
            problem = name_problem(kind, value, max_length=FIELD_MAX_LENGTH.get((cls, spec.name)), blank=blank)
            if problem:
                errors.append(FieldError(field, value, problem))
        elif is_dataclass(value):
            object_name_errors(value, field, errors)
        elif isinstance(value, tuple):
            # Tuples of strings: Network.leaves holds hostnames, anything else (breakout modes) is text.
            item_kind = HOSTNAME if (cls, spec.name) == ("Network", "leaves") else TEXT
            for index, item in enumerate(value):
                if is_dataclass(item):
                    object_name_errors(item, f"{field}[{_label(item, index)}]", errors)
                elif isinstance(item, str):
                    problem = name_problem(item_kind, item)
                    if problem:
                        errors.append(FieldError(f"{field}[{index}]", item, problem))


def _column_valid(kind: NameKind, strings: set[str], max_length: int | None, blank: bool) -> bool:
    """name_problem(...) is None for every string, in C loops when they are all printable ASCII (the usual case)."""
    limit = kind.max_length if max_length is None else min(max_length, kind.max_length)
    if "" in strings:
        if not blank:
            return False
        strings = strings - {""}
    joined = "".join(strings)
    if not (joined.isascii() and joined.isprintable()):
        return not any(name_problem(kind, value, max_length=max_length, blank=blank) for value in strings)
    if max(map(len, strings), default=0) > limit:
        return False
    if kind.pattern is not None and not all(map(kind.pattern.fullmatch, strings)):
        return False
    return not (kind.reserved and set(map(str.lower, strings)) & kind.reserved)


def _all_valid(roots: tuple[object, ...]) -> bool:
    """True when no str field under ``roots`` breaks the grammar, checked column-wise over unique values.

    A 1,088-switch fabric holds ~800,000 strings but only a few thousand distinct ones per field: collecting the
    distinct values with map/set (C loops) and checking each once takes 0.1 s where the path-naming walk of
    :func:`object_name_errors` takes 2 s. The walk runs only when something is wrong, to name the fields.
    """
    level: dict[type, list] = {}
    for root in roots:
        level.setdefault(type(root), []).append(root)
    while level:
        deeper: dict[type, list] = {}
        for cls, objects in level.items():
            for spec in fields(cls):
                key = (cls.__name__, spec.name)
                values = list(map(attrgetter(spec.name), objects))
                types = set(map(type, values))
                if tuple in types:  # tuples of dataclasses or of strings (Network.leaves, breakout modes)
                    values = list(chain.from_iterable(value for value in values if type(value) is tuple))
                    types = set(map(type, values))
                    kind, blank, limit = (HOSTNAME if key == ("Network", "leaves") else TEXT), True, None
                else:
                    kind, blank = FIELD_KINDS.get(key, (TEXT, True))
                    limit = FIELD_MAX_LENGTH.get(key)
                for value_type in types:
                    if value_type is str:
                        strings = set(values) if len(types) == 1 else {v for v in values if type(v) is str}
                        if not _column_valid(kind, strings, limit, blank):
                            return False
                    elif is_dataclass(value_type):
                        same = values if len(types) == 1 else [v for v in values if type(v) is value_type]
                        deeper.setdefault(value_type, []).extend(same)
                    elif issubclass(value_type, str):  # a str subclass: check each like a str
                        if any(name_problem(kind, str(v)) for v in values if type(v) is value_type):
                            return False
        level = deeper
    return True


def inventory_name_errors(inventory) -> list[FieldError]:
    """Every grammar problem in a :class:`compiler.model.Inventory`, with dotted field paths."""
    errors: list[FieldError] = []
    if not _all_valid((inventory,)):
        object_name_errors(inventory, "", errors)
    return errors


def snapshot_name_errors(snapshot) -> list[FieldError]:
    """Every grammar problem in a snapshot's inventory and intent (paths as compiler.validate writes them)."""
    errors: list[FieldError] = []
    if not _all_valid((snapshot.inventory, snapshot.intent)):
        object_name_errors(snapshot.inventory, "", errors)
        object_name_errors(snapshot.intent, "", errors)
    return errors


# --------------------------------------------------------------------------------------------- renderers


def check_single_line(structured: object, platform: str) -> None:
    """Refuse a structured config holding any string with a line break or NUL (defence in depth).

    The grammar already refuses these at every boundary; this is the renderers' own guard, one call per platform,
    so an old row or a new code path can never add a line to a config. Raises RenderError naming the field.

    Fast path: JSON escapes every character below U+0020 with a backslash (RFC 8259 section 7), so a JSON text
    without a backslash and without U+0085/U+2028/U+2029 (which JSON leaves as they are) holds no line break
    anywhere. Only otherwise is the config walked in Python, to name the field. The text is orjson's (UTF-8
    bytes, ~6x faster than ``json.dumps``: 0.5 s instead of 3.1 s for 4,998 switches); an all-ASCII text cannot
    hold those three characters, so the regex scan runs only over a text with non-ASCII bytes.
    """
    try:
        text = orjson.dumps(structured, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # orjson.JSONEncodeError: not JSON-shaped (a tuple key, a 65-bit int...): walk it
        text = None
    if text is not None and b"\\" not in text and (text.isascii() or not _UNESCAPED_BREAK_RE.search(text.decode())):
        return
    _walk_for_line_breaks(structured, platform)


def _walk_for_line_breaks(structured: object, platform: str) -> None:
    host = structured.get("hostname", "?") if isinstance(structured, dict) else "?"
    stack: list[tuple[str, object]] = [("", structured)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if _LINE_BREAK_RE.search(value):
                raise RenderError(f"{platform}: {host}: {path}={value!r}: contains a line break or NUL; "
                                  f"refusing to render it into a config")
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and _LINE_BREAK_RE.search(key):
                    raise RenderError(f"{platform}: {host}: {path}: key {key!r} contains a line break or NUL; "
                                      f"refusing to render it into a config")
                stack.append((f"{path}.{key}" if path else str(key), item))
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                stack.append((f"{path}[{index}]", item))
