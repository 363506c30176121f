"""The one redaction helper: what counts as a secret and how it is hidden in audit entries, API output and logs.

Two rules, applied together everywhere:

- **by key pattern**: a value stored under a name that looks secret (``SECRET_NAME_PATTERN``: secret, password,
  passwd, passphrase, pwd, key, token, community, credential, private) is replaced by ``REDACTED``, at any depth
  of a dict/list, and in text of the form ``name=value`` / ``'name': 'value'``;
- **by value**: every clear secret this process has encrypted or decrypted (``secret_remember``, called by
  changes.credentials) is replaced wherever it appears in text, whatever the key — e.g. a password pasted into a
  description, or echoed in a driver's error message.

Pure Python (no Django) so the logging filter can be loaded from settings.
"""

from __future__ import annotations

import logging
import re
import threading

REDACTED = "***"
# Names of settings/options/fields whose value is a secret. Matched anywhere in the name, case-insensitively,
# so "enable_secret", "snmp_community", "api_key", "ssh_private_key_passphrase" and "auth_token" all match.
SECRET_NAME_PATTERN = re.compile(r"secret|passw|passphrase|pwd|key|token|community|credential|private", re.IGNORECASE)
# name=value, name: value, 'name': 'value', "name": "value" inside free text (log lines, reprs, messages).
_SECRET_ASSIGNMENT = re.compile(
    r"""(?P<name>[\w.-]*(?:secret|passw|passphrase|pwd|key|token|community|credential|private)[\w.-]*)"""
    r"""(?P<sep>['"]?\s*[:=]\s*)(?P<quote>['"])?(?P<value>(?(quote)[^'"]*|[^\s,;}\])]+))""",
    re.IGNORECASE)
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
    return _SECRET_ASSIGNMENT.sub(
        lambda match: match.group(0) if match.group("value") == REDACTED else
        f"{match.group('name')}{match.group('sep')}{match.group('quote') or ''}{REDACTED}", text)


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
    """Logging filter (settings.LOGGING): the formatted message and traceback pass through ``redact_text``."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a broken format string: keep what the logger was given, redacted
            message = f"{record.msg} {record.args}"
        record.msg, record.args = redact_text(message), None
        if record.exc_info:
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)
        return True
