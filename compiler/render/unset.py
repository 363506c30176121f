"""Unset values in rendered CLI text: a line that would print ``None`` is left out, with the block it opens.

A structured config parsed from a config we did not write (compiler.parse) holds None where its text stated nothing
(no ``timers bgp`` line, a port without ``mtu``). Printing ``mtu None`` or ``timers bgp None None`` gives a text no
switch and not our own parser accepts; leaving the line out leaves the setting at the platform's default, which is
what the original text said. The Jinja templates print :data:`UNSET` for None (``finalize``) and
:func:`omit_unset` drops each line holding it, with the lines indented under it and the FRR block end that closes
it (``router bgp None`` takes its whole block). Our own structured configs set every value: the text is unchanged.
Pure Python; never imports Django.
"""

from __future__ import annotations

UNSET = "\x00unset\x00"  # never reaches a file: omit_unset drops every line holding it
# FRR closes blocks with these at the header's own indentation (FRR user guide; compiler.parse.remediate).
BLOCK_ENDS = frozenset({"exit", "exit-address-family", "exit-vni", "exit-vrf"})


def finalize(value: object) -> object:
    """Jinja ``finalize``: every ``{{ value }}`` that is None prints as :data:`UNSET`."""
    return UNSET if value is None else value


def unset_or(value: object) -> str:
    """A value for a line formatted in Python (repeated blocks): :data:`UNSET` for None, as a template prints it."""
    return UNSET if value is None else str(value)


def omit_unset(text: str) -> str:
    """``text`` without the lines holding :data:`UNSET` and the blocks they open."""
    if UNSET not in text:
        return text
    out: list[str] = []
    dropped_indent: int | None = None  # indentation of the dropped line whose block is being skipped
    for line in text.split("\n"):
        content = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if dropped_indent is not None:
            if content and indent > dropped_indent:
                continue
            closes = content in BLOCK_ENDS and indent == dropped_indent
            dropped_indent = None
            if closes:
                continue
        if UNSET in line:
            dropped_indent = indent
            continue
        out.append(line)
    return "\n".join(out)
