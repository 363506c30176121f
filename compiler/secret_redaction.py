"""Device secrets in config text: the one pass that replaces every secret a config carries with a marker.

Where config text enters the product (a device's running config read for a change set, drift or post-push
verification; an uploaded config), every secret-bearing line and key is rewritten so that change sets, drift
records, remediation, rollout steps, the audit trail, logs, pages and commands only ever hold a marker, in the
vocabulary of compiler.secret_refs: ``FT-SECRET[sha256-hmac:<first 12 hex>]``, the keyed hash (HMAC-SHA256 with a
server key) of the clear value. Equal secrets give equal markers, so drift still sees a changed secret, and
without the server key the marker says nothing about the value. A marker already present
(``FT-SECRET[vault:...]``, rendered by us) is kept as it is.

Type-7 values (EOS and Cisco-style ``7 <hex>``) are reversible, so they are decoded before hashing: the same key
encoded with two salts compares equal. Pure Python (no Django); the key comes from the caller
(changes.credentials.config_secret_marker_key).

What is recognised, per platform (sources: Arista EOS User Manual, sections "User accounts", "TACACS+",
"RADIUS", "SNMP", "NTP", "BGP neighbor password", "IS-IS authentication", "OSPFv2 authentication"; SONiC YANG
models sonic-system-tacacs, sonic-system-radius, sonic-snmp, sonic-bgp-neighbor, sonic-device_metadata; FRR user
guide "BGP: neighbor PEER password", "OSPF: ip ospf message-digest-key / authentication-key", "IS-IS: isis
password, area-password, domain-password", "Key chains: key-string", "vtysh: password / enable password"):

- EOS text: ``username … secret|password [type] V``, ``enable password|secret [type] V``, ``aaa root secret
  [type] V``, ``snmp-server host … version 1|2c V``, ``key [type] V`` on
  ``tacacs-server``/``radius-server`` lines, ``snmp-server community V``, ``snmp-server user … auth <alg> V priv
  <alg> V``, ``ntp authentication-key N <alg> [type] V``, ``neighbor … password [type] V``, ``isis authentication
  key [type] V`` and ``authentication key [type] V`` (router isis), ``ip ospf message-digest-key N md5 [type] V``,
  ``ip ospf authentication-key [type] V``;
- FRR text: ``neighbor … password V``, ``ip ospf message-digest-key N md5 V``, ``ip ospf authentication-key V``,
  ``isis password [clear|md5] V``, ``area-password``/``domain-password [clear|md5] V``, ``key-string V``,
  ``password V`` and ``enable password V``;
- SONiC config_db.json: TACPLUS/TACPLUS_SERVER/RADIUS/RADIUS_SERVER ``passkey``, SNMP_COMMUNITY keys (the key is
  the community), BGP_NEIGHBOR/BGP_PEER_GROUP ``password``, ``admin_password`` and every field named like
  ``*passkey``/``*password``/``*secret``/``auth_key`` in any table, NTP_KEY ``value``.

Text is read as whitespace-separated words (a tokenizing scan, linear in the length; no pattern that backtracks).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping

from .secret_refs import PLACEHOLDER, PLACEHOLDER_PREFIX

MARKER_SCHEME = "sha256-hmac"
MARKER_HEX = 12  # 48 bits of the HMAC: tells two secrets apart, reveals nothing without the key
# Encryption-type words that may stand between a keyword and the value (EOS: 0 clear, 5 MD5 crypt, 7 reversible,
# 8a AES, sha512; FRR IS-IS: clear, md5).
_TYPE_WORDS = frozenset({"0", "5", "7", "8a", "sha512", "clear", "md5"})
# Cisco/Arista type-7 translation table (the published xlat string of the type-7 scheme).
TYPE7_TABLE = "dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87"
_TYPE7 = re.compile(r"[0-9]{2}(?:[0-9A-Fa-f]{2})+")
_WORD = re.compile(r"\S+")
_SONIC_SECRET_FIELD = re.compile(r"passkey|password|passwd|secret|auth_key", re.IGNORECASE)
_SONIC_SECRET_KEYED_TABLES = frozenset({"SNMP_COMMUNITY"})  # the entry's key is the secret
_SONIC_SECRET_VALUE_TABLES = frozenset({"NTP_KEY"})  # every field "value" of these tables is a secret


def secret_marker(value: str, *, key: bytes, encoding: str = "") -> str:
    """The marker standing for ``value``: an existing ``FT-SECRET[...]`` marker is kept; a type-7 value (``encoding``
    "7") is decoded first, so its salt does not matter."""
    if PLACEHOLDER.fullmatch(value):
        return value
    if encoding == "7":
        value = type7_decoded(value)
    digest = hmac.new(key, value.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:MARKER_HEX]
    return f"{PLACEHOLDER_PREFIX}{MARKER_SCHEME}:{digest}]"


def type7_decoded(value: str) -> str:
    """The clear text of a type-7 value (salt in the first two digits); the value itself when it is not one."""
    if not _TYPE7.fullmatch(value) or int(value[:2]) > 15:
        return value
    salt = int(value[:2])
    pairs = [int(value[index:index + 2], 16) for index in range(2, len(value), 2)]
    return "".join(chr(code ^ ord(TYPE7_TABLE[(salt + index) % len(TYPE7_TABLE)])) for index, code in enumerate(pairs))


def _value_after(lowered: list[str], index: int) -> tuple[int, str] | None:
    """(position, encoding) of the value following keyword ``lowered[index]``, skipping one encryption-type word."""
    position = index + 1
    encoding = ""
    if position < len(lowered) - 1 and lowered[position] in _TYPE_WORDS:
        encoding = lowered[position]
        position += 1
    return (position, encoding) if position < len(lowered) else None


def _secret_positions(lowered: list[str]) -> list[tuple[int, str]]:
    """(word index, encoding) of every secret in one command's words (lower-cased), EOS and FRR syntax together."""
    first = lowered[0]
    found: list[tuple[int, str] | None] = []
    if first == "username":
        found += [_value_after(lowered, i) for i, word in enumerate(lowered) if word in ("secret", "password")]
    elif first in ("enable", "password"):  # EOS "enable password|secret", FRR vtysh "password V"/"enable password V"
        start = 0 if first == "password" else 1
        if start < len(lowered) and lowered[start] in ("password", "secret"):
            found.append(_value_after(lowered, start))
    elif first in ("tacacs-server", "radius-server"):
        found += [_value_after(lowered, i) for i, word in enumerate(lowered) if word == "key"]
    elif first == "snmp-server" and len(lowered) > 2:
        if lowered[1] == "community":
            found.append((2, ""))
        elif lowered[1] == "user":
            found += [(i + 2, "") for i, word in enumerate(lowered[:-2]) if word in ("auth", "priv")]
        elif lowered[1] == "host":  # snmp-server host H [vrf V] [informs|traps] version 1|2c COMMUNITY
            found += [(i + 2, "") for i, word in enumerate(lowered[:-2])
                      if word == "version" and lowered[i + 1] in ("1", "2c")]
    elif first == "aaa" and len(lowered) > 3 and lowered[1] == "root":  # EOS aaa root secret [type] V
        found += [_value_after(lowered, i) for i, word in enumerate(lowered) if word == "secret"]
    elif first == "ntp" and len(lowered) > 4 and lowered[1] == "authentication-key":
        found.append(_value_after(lowered, 3))  # ntp authentication-key N <alg> [type] V
    elif first == "neighbor":
        found += [_value_after(lowered, i) for i, word in enumerate(lowered) if word == "password"]
    elif first == "ip" and len(lowered) > 3 and lowered[1] == "ospf":
        if lowered[2] == "message-digest-key" and len(lowered) > 5:
            found.append(_value_after(lowered, 4))  # ip ospf message-digest-key N md5 [type] V
        elif lowered[2] == "authentication-key":
            found.append(_value_after(lowered, 2))
    elif first == "isis" and len(lowered) > 2 and lowered[1] == "password":
        found.append(_value_after(lowered, 1))
    elif first in ("isis", "authentication"):
        found += [_value_after(lowered, i) for i, word in enumerate(lowered)
                  if word == "key" and i > 0 and lowered[i - 1] == "authentication"]
    elif first in ("area-password", "domain-password", "key-string"):
        found.append(_value_after(lowered, 0))
    return [item for item in found if item is not None and item[0] > 0]


# The first words of the commands above. A command is also recognised where it starts mid-line (a driver's error or
# a log line quoting it, a diff's "+"/"-" glued to it), within a window of words, so the scan stays linear.
_TRIGGERS = frozenset({"username", "enable", "aaa", "password", "tacacs-server", "radius-server", "snmp-server", "ntp",
                       "neighbor", "ip", "isis", "authentication", "area-password", "domain-password", "key-string"})
_WINDOW = 24  # words: the longest command above (tacacs-server with every option) has ~16


def _line_secret_positions(words: list[re.Match]) -> dict[int, str]:
    """Word index -> encoding of every secret on one line (a value found from two commands counts once)."""
    lowered = [word.group().lower() for word in words]
    found: dict[int, str] = {}
    for start, word in enumerate(lowered):
        head = word.lstrip("+-") if start == 0 else word
        if head in _TRIGGERS:
            window = [head, *lowered[start + 1:start + _WINDOW]]
            for index, encoding in _secret_positions(window):
                found.setdefault(start + index, encoding)
    return found


def text_secrets_redacted(text: str, *, key: bytes) -> str:
    """EOS or FRR config text (or a unified diff of it) with every secret replaced by its marker (lines, spacing and
    order kept)."""
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        words = list(_WORD.finditer(line))
        positions = _line_secret_positions(words) if words else {}
        if not positions:
            out.append(line)
            continue
        pieces, copied = [], 0
        for index, encoding in sorted(positions.items()):
            word = words[index]
            pieces += [line[copied:word.start()], secret_marker(word.group(), key=key, encoding=encoding)]
            copied = word.end()
        out.append("".join(pieces) + line[copied:])
    return "".join(out)


def config_db_secrets_redacted(document: Mapping, *, key: bytes) -> dict:
    """A SONiC CONFIG_DB document ({table: {key: {field: value}}}) with every secret replaced by its marker."""
    out: dict = {}
    for table, entries in document.items():
        if not isinstance(entries, Mapping):
            out[table] = entries
            continue
        redacted: dict = {}
        for entry_key, fields in entries.items():
            if table in _SONIC_SECRET_KEYED_TABLES:
                entry_key = secret_marker(str(entry_key), key=key)
            if isinstance(fields, Mapping):
                fields = {field: (secret_marker(value, key=key) if isinstance(value, str) and value
                                  and (_SONIC_SECRET_FIELD.search(field)
                                       or (table in _SONIC_SECRET_VALUE_TABLES and field == "value"))
                                  else value)
                          for field, value in fields.items()}
            redacted[entry_key] = fields
        out[table] = redacted
    return out


def files_secrets_redacted(files: Mapping[str, str], *, key: bytes) -> dict[str, str]:
    """One device's config files with every secret replaced by its marker: a JSON document is read as CONFIG_DB
    (written back indented, keys sorted), any other text as EOS/FRR lines. A JSON file that does not parse is
    redacted as text (its lines still pass the line rules)."""
    out: dict[str, str] = {}
    for name, text in files.items():
        if text.lstrip().startswith("{"):
            try:
                document = json.loads(text)
            except ValueError:
                document = None
            if isinstance(document, dict):
                if any(isinstance(entries, Mapping) for entries in document.values()):
                    redacted = config_db_secrets_redacted(document, key=key)
                    out[name] = text if redacted == document else json.dumps(redacted, indent=4, sort_keys=True) + "\n"
                else:
                    out[name] = text
                continue
        out[name] = text_secrets_redacted(text, key=key)
    return out
