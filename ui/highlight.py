"""Server-side highlighting of rendered configs and diffs (no JavaScript, no third-party lexer).

Deliberately small: EOS/FRR text gets comments ("!" or "#" lines), top-level section keywords and
addresses/numbers; JSON (SONiC config_db.json, linux-plan.json) gets keys, strings and numbers. Everything is
HTML-escaped first, so configs with "<" or "&" in descriptions are displayed literally.
"""

from __future__ import annotations

import re
from html import escape

from django.utils.safestring import SafeString, mark_safe

# First words of the sections and statements engineers scan for in EOS and FRR configs.
SECTION_KEYWORDS = (
    "hostname", "interface", "router", "vlan", "vrf", "ip", "ipv6", "route-map", "prefix-list", "address-family",
    "neighbor", "network", "redistribute", "vni", "vxlan", "qos", "priority-flow-control", "policy-map",
    "class-map", "platform", "service-policy", "mtu", "description", "shutdown", "no", "bgp", "maximum-paths",
    "timers", "bfd", "evpn", "rd", "route-target", "advertise-all-vni", "exit", "exit-address-family", "end",
    "spanning-tree", "exit-vrf", "exit-vni", "management", "username", "daemon", "switchport", "mac", "tx-queue", "random-detect",
    "speed", "frr", "log", "line", "agent", "hardware", "transceiver", "router-id", "peer", "remote-as",
)
_KEYWORD_RE = re.compile(r"^(\s*)(" + "|".join(re.escape(word) for word in sorted(SECTION_KEYWORDS, key=len,
                                                                                     reverse=True)) + r")\b")
_ADDRESS_RE = re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?|\d+)\b")
# Strings as an unrolled, possessive loop: an unclosed 100 kB string fails once instead of backtracking char by char.
_JSON_RE = re.compile(r'("[^"\\]*+(?:\\.[^"\\]*+)*+")(\s*:)?|(-?\b\d+(?:\.\d+)?\b)|\b(true|false|null)\b')


def _highlight_line(line: str) -> str:
    stripped = line.lstrip()
    if stripped.startswith(("!", "#")):
        return f'<span class="cm">{escape(line)}</span>'
    escaped = escape(line, quote=False)
    match = _KEYWORD_RE.match(escaped)
    head, rest = "", escaped
    if match:
        head = f'{match.group(1)}<span class="kw">{match.group(2)}</span>'
        rest = escaped[match.end():]
    rest = _ADDRESS_RE.sub(r'<span class="num">\1</span>', rest)
    return head + rest


def _highlight_json(text: str) -> str:
    def replace(match: re.Match) -> str:
        string, colon, number, literal = match.groups()
        if string is not None:
            css = "key" if colon else "str"
            return f'<span class="{css}">{escape(string)}</span>{colon or ""}'
        if number is not None:
            return f'<span class="num">{number}</span>'
        return f'<span class="kw">{literal}</span>'

    out, position = [], 0
    for match in _JSON_RE.finditer(text):
        out.append(escape(text[position:match.start()]))
        out.append(replace(match))
        position = match.end()
    out.append(escape(text[position:]))
    return "".join(out)


def highlight_config(text: str, language: str = "eos") -> SafeString:
    """HTML for a rendered config. ``language`` "json" for JSON files, anything else is line-oriented CLI."""
    if language == "json" or text.lstrip().startswith(("{", "[")):
        return mark_safe(_highlight_json(text))  # every piece is escaped above
    return mark_safe("\n".join(_highlight_line(line) for line in text.splitlines()))


def highlight_diff(text: str) -> SafeString:
    """HTML for a unified diff: added lines green, removed red, hunk headers purple."""
    lines = []
    for line in text.splitlines():
        css = ("add" if line.startswith("+") and not line.startswith("+++") else
               "del" if line.startswith("-") and not line.startswith("---") else
               "hunk" if line.startswith(("@@", "+++", "---")) else "")
        lines.append(f'<span class="{css}">{escape(line)}</span>' if css else escape(line))
    return mark_safe("\n".join(lines))
