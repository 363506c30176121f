"""The one redaction helper: what counts as a secret and how it is hidden in audit entries, API output and logs.

Two rules, applied together everywhere:

- **by key pattern**: a value stored under a name that looks secret (``SECRET_NAME_PATTERN``: secret, password,
  passwd, passphrase, pwd, key, token, community, credential, private) is replaced by ``REDACTED``, at any depth
  of a dict/list, and in text of the form ``name=value`` / ``'name': 'value'``;
- **by value**: every clear secret this process has encrypted or decrypted (``secret_remember``, called by
  changes.credentials) is replaced wherever it appears in text, whatever the key — e.g. a password pasted into a
  description, or echoed in a driver's error message.

Device config text has its own pass (compiler.secret_redaction, keyed markers ``FT-SECRET[sha256-hmac:...]``):
``config_secrets_shown``/``config_text_shown`` apply it with the server's key, and the logging filter applies it
too once settings exist. Free text is scanned in linear time and log lines are cut at ``MAX_LOG_TEXT`` first.

Pure Python at import (Django's settings only inside functions) so the logging filter can be loaded from settings.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import threading
from collections.abc import Mapping

from compiler.secret_redaction import files_secrets_redacted

REDACTED = "***"
# Names of settings/options/fields whose value is a secret. Matched anywhere in the name, case-insensitively,
# so "enable_secret", "snmp_community", "api_key", "ssh_private_key_passphrase" and "auth_token" all match.
SECRET_NAME_PATTERN = re.compile(r"secret|passw|passphrase|pwd|key|token|community|credential|private", re.IGNORECASE)
# name=value, name: value, 'name': 'value', "name": "value" inside free text (log lines, reprs, messages). Read as a
# scan, not one pattern: a name is a whole run of [\w.-] (found once, never re-entered), then the separator and the
# value are matched at fixed positions. One regex with "[\w.-]*keyword[\w.-]*" backtracked over every start inside a
# long word run (quadratic: 8,000 characters of Host header cost ~15 s, issue 29); this scan is linear.
_NAME_RUN = re.compile(r"[\w.-]+")
_BLANKS = re.compile(r"\s*")  # matched at a position, never searched: "\s*[:=]" searched is quadratic on blanks
_QUOTED_VALUE = re.compile(r"""[^'"]*""")
_BARE_VALUE = re.compile(r"""[^\s,;}\])]+""")
# Text longer than this is cut (with TRUNCATED_MARKER) before the scan in log lines (RedactSecretsFilter): a log line
# never needs 16 KiB, and a hostile header or name is then bounded work whatever the pattern.
MAX_LOG_TEXT = 16_384
TRUNCATED_MARKER = "…[truncated {} characters]"
# Values shorter than this are not redacted by value (a 2-character "secret" would blank out half of every line);
# they are still redacted by key pattern.
MIN_VALUE_LENGTH = 4
_MAX_REMEMBERED = 10_000

_remembered: set[str] = set()
_lock = threading.Lock()


def is_secret_name(name: object) -> bool:
    """Is a value stored under this key/field name a secret?"""
    return isinstance(name, str) and bool(SECRET_NAME_PATTERN.search(name))


def secret_remember(value: object) -> None:
    """Redact this clear value wherever it appears from now on (in this process)."""
    if not isinstance(value, str) or len(value) < MIN_VALUE_LENGTH:
        return
    with _lock:
        if len(_remembered) >= _MAX_REMEMBERED:
            _remembered.clear()  # bounded memory; values are re-remembered at their next decryption
        _remembered.add(value)


def redact_text(text: str) -> str:
    """Hide remembered secret values and ``name=value`` assignments of secret-looking names in free text."""
    if not text:
        return text
    with _lock:
        values = sorted(_remembered, key=len, reverse=True)  # longest first: a secret containing another
    for value in values:
        if value in text:
            text = text.replace(value, REDACTED)
    return _assignments_redacted(text)


def _assignments_redacted(text: str) -> str:
    """``name=value`` of a secret-looking name with the value replaced by REDACTED (linear in ``len(text)``)."""
    out: list[str] = []
    position = copied = 0
    while (name := _NAME_RUN.search(text, position)) is not None:
        position = name.end()
        # the separator: an optional closing quote, blanks, ":" or "=", blanks, an optional opening quote
        cursor = position + (text[position:position + 1] in ("'", '"'))
        cursor = _BLANKS.match(text, cursor).end()
        if text[cursor:cursor + 1] not in (":", "=") or not SECRET_NAME_PATTERN.search(name.group()):
            continue
        cursor = _BLANKS.match(text, cursor + 1).end()
        quoted = text[cursor:cursor + 1] in ("'", '"')
        value = (_QUOTED_VALUE if quoted else _BARE_VALUE).match(text, cursor + quoted)
        if value is None:  # nothing after the separator ("password=" at a line's end)
            continue
        if value.group() != REDACTED:
            out += [text[copied:value.start()], REDACTED]
            copied = value.end()
        position = value.end()
    return "".join(out) + text[copied:] if out else text


def truncated(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a marker saying how much was dropped (bounded work downstream)."""
    if len(text) <= limit:
        return text
    return text[:limit] + TRUNCATED_MARKER.format(len(text) - limit)


def config_secrets_shown(files: Mapping[str, str]) -> dict[str, str]:
    """A device's config files as the product may hold them: every secret a platform reader knows replaced by its
    keyed marker ``FT-SECRET[sha256-hmac:...]`` (compiler.secret_redaction), the key derived from SECRET_KEY."""
    from django.conf import settings  # here: settings.LOGGING loads this module before settings exist

    key = hmac.new(settings.SECRET_KEY.encode(), b"fabric-twin config secret markers", hashlib.sha256).digest()
    return files_secrets_redacted(files, key=key)


def config_text_shown(text: str) -> str:
    """Free text that may quote config lines (a push's diff, a device's compare output) with their secrets as
    keyed markers (``config_secrets_shown``)."""
    return config_secrets_shown({"text": text})["text"] if text else text


def redact(value, *, key: object = None):
    """A copy of ``value`` (JSON-like: dict/list/str/number) with every secret replaced by ``REDACTED``.

    ``key`` is the name the value is stored under; a secret-looking name redacts the whole value.
    """
    if is_secret_name(key):
        return REDACTED if value not in (None, "", {}, []) else value
    if isinstance(value, dict):
        return {item_key: redact(item, key=item_key) for item_key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(item) for item in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


class RedactSecretsFilter(logging.Filter):
    """Logging filter (settings.LOGGING): the formatted message and traceback, cut to a bound, pass through
    ``redact_text`` and (once settings exist: the marker key) ``config_text_shown`` - a driver's error may quote a
    device's config line."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a broken format string: keep what the logger was given, redacted
            message = f"{record.msg} {record.args}"
        record.msg, record.args = _log_text_redacted(truncated(message, MAX_LOG_TEXT)), None
        if record.exc_info:
            record.exc_text = _log_text_redacted(truncated(logging.Formatter().formatException(record.exc_info),
                                                           4 * MAX_LOG_TEXT))
            record.exc_info = None
        if record.stack_info:
            record.stack_info = _log_text_redacted(truncated(record.stack_info, 4 * MAX_LOG_TEXT))
        return True


def _log_text_redacted(text: str) -> str:
    from django.conf import settings  # here: settings.LOGGING loads this module before settings exist

    return redact_text(config_text_shown(text) if settings.configured else text)
