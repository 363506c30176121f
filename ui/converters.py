"""URL converter for object names in UI paths.

A name row written before the grammar existed (or by a bulk path) may hold any character, ``/`` included; with
``<str:>`` ``reverse()`` then raised NoReverseMatch and every page linking to the object was a 500. ``<name:>``
escapes only what would break the one path segment — ``%`` as ``%25``, ``/`` as ``%2F``, and a whole name ``.``
or ``..`` (browsers resolve those away) with ``%2E`` — and ``reverse`` percent-encodes the result as usual, so the
request path decodes back to the escaped form and ``to_python`` undoes it. Every name round-trips; plain names
keep plain URLs.
"""

import re

_ESCAPED = re.compile(r"%(25|2F|2E)")
_UNESCAPE = {"25": "%", "2F": "/", "2E": "."}


class NameConverter:
    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        return _ESCAPED.sub(lambda match: _UNESCAPE[match.group(1)], value)

    def to_url(self, value: str) -> str:
        escaped = str(value).replace("%", "%25").replace("/", "%2F")
        return escaped.replace(".", "%2E") if escaped in (".", "..") else escaped
