"""Device credentials: never stored or logged in clear.

What is encrypted at rest, with Fernet (AES-128-CBC + HMAC-SHA256, from ``cryptography``):
- ``DeviceEndpoint.password_encrypted`` (set through ``endpoint_set_password``);
- every value in ``DeviceEndpoint.optional_args`` stored under a secret-looking key (twin.redaction's
  ``SECRET_NAME_PATTERN``: enable ``secret``, ``password``, ``community``, ``*key*``, ``token``...), at any
  depth, as ``{"$fernet": "<token>"}`` (the JSON of the clear value, so booleans and numbers come back as such).
  ``DeviceEndpoint.save`` encrypts them, whoever writes the row; ``endpoint_options`` decrypts them only to
  build the driver connection (changes.drivers.driver_for_endpoint).

The key is ``FT_CREDENTIAL_KEY`` (a urlsafe-base64 32-byte Fernet key: ``Fernet.generate_key()``) or, when that
is unset, the per-install key file ``settings.FT_CREDENTIAL_KEY_FILE`` (default ``<FT_DATA_DIR>/credential.key``),
generated once with mode 0600 and read on every later start. It is never derived from SECRET_KEY or any constant.
Operators can keep passwords out of the database entirely with ``password_env`` (an environment variable name)
or ``secret_file`` (a file whose first line is the password). Every clear value handled here is remembered by
twin.redaction so logs and audit entries show ``***`` instead.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from compiler.errors import DriverError, FieldError, InputError
from twin.keyfiles import KeyFileError, key_file_read_or_create
from twin.redaction import REDACTED, is_secret_name, secret_remember

KEY_ENV = "FT_CREDENTIAL_KEY"
# The marker of an encrypted value inside a JSON document (optional_args): {"$fernet": "<token>"}.
ENCRYPTED_MARKER = "$fernet"


def _key_checked(key: bytes, source: str) -> bytes:
    try:
        Fernet(key)
    except ValueError as exc:  # the key itself is never printed
        raise ImproperlyConfigured(f"{source}: not a Fernet key (32 url-safe base64-encoded bytes; "
                                   "generate one with: python -c 'from cryptography.fernet import Fernet; "
                                   "print(Fernet.generate_key().decode())')") from exc
    return key


def credential_keys() -> list[bytes]:
    """The current key first, then previous keys still accepted for decryption (during a rotation):
    FT_CREDENTIAL_KEY="new,old", or the key file's lines (``credential_key_rotate`` writes them)."""
    configured = os.environ.get(KEY_ENV, "").strip()
    if configured:
        return [_key_checked(key.strip().encode(), KEY_ENV) for key in configured.split(",") if key.strip()]
    try:
        content = key_file_read_or_create(Path(settings.FT_CREDENTIAL_KEY_FILE), Fernet.generate_key,
                                          setting="FT_CREDENTIAL_KEY_FILE")
    except KeyFileError as exc:
        raise ImproperlyConfigured(str(exc)) from None
    source = f"FT_CREDENTIAL_KEY_FILE={str(settings.FT_CREDENTIAL_KEY_FILE)!r}"
    return [_key_checked(line.strip(), source) for line in content.splitlines() if line.strip()]


def credential_key() -> bytes:
    """The key new secrets are encrypted with."""
    return credential_keys()[0]


def _fernet() -> MultiFernet:
    return MultiFernet([Fernet(key) for key in credential_keys()])


def encrypt_secret(clear: str) -> str:
    secret_remember(clear)
    return _encrypt(clear)


def decrypt_secret(token: str) -> str:
    clear = _decrypt(token)
    secret_remember(clear)
    return clear


def _encrypt(clear: str) -> str:
    return _fernet().encrypt(clear.encode()).decode()


def _decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode()).decode()
    except (InvalidToken, ValueError) as exc:
        raise DriverError(f"a stored credential cannot be decrypted with the current {KEY_ENV} / "
                          "FT_CREDENTIAL_KEY_FILE (was the key replaced?); set the password/secret again") from exc


def is_encrypted(value: object) -> bool:
    return isinstance(value, dict) and set(value) == {ENCRYPTED_MARKER} and isinstance(value[ENCRYPTED_MARKER], str)


def options_encrypt(options, *, key: object = None):
    """A copy of a JSON document with every value under a secret-looking key encrypted (idempotent)."""
    if is_secret_name(key):
        if is_encrypted(options) or options in (None, ""):
            return options
        for value in _strings_in(options):  # the clear strings, not their JSON ("true" must not be redacted)
            secret_remember(value)
        return {ENCRYPTED_MARKER: _encrypt(json.dumps(options))}
    if isinstance(options, dict):
        if is_encrypted(options):
            return options
        return {item_key: options_encrypt(item, key=item_key) for item_key, item in options.items()}
    if isinstance(options, list):
        return [options_encrypt(item) for item in options]
    return options


def options_decrypt(options):
    """The clear document (for the driver connection only; never save or return it). Strings come back as
    ``Redacted`` so a traceback or repr of the connection kwargs does not show them."""
    if is_encrypted(options):
        clear = json.loads(_decrypt(options[ENCRYPTED_MARKER]))
        for value in _strings_in(clear):
            secret_remember(value)
        return Redacted(clear) if isinstance(clear, str) else clear
    if isinstance(options, dict):
        return {item_key: options_decrypt(item) for item_key, item in options.items()}
    if isinstance(options, list):
        return [options_decrypt(item) for item in options]
    return options


def _strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings_in(item)


def options_keep_redacted(new, stored, *, key: object = None, path: str = "optional_args"):
    """``new`` with every ``***`` under a secret-looking key replaced by the stored (encrypted) value: a client
    that read the options (secrets shown as ``***``) and sends them back changes only what it edited. A ``***``
    with no stored value behind it is an error (it would otherwise become the secret)."""
    if is_secret_name(key) and new == REDACTED:
        if stored is None:
            raise InputError(FieldError(path, new, "no stored secret to keep here; send the value itself"))
        return stored
    if isinstance(new, dict):
        old = stored if isinstance(stored, dict) and not is_encrypted(stored) else {}
        return {item_key: options_keep_redacted(item, old.get(item_key), key=item_key, path=f"{path}.{item_key}")
                for item_key, item in new.items()}
    return new


def endpoint_options(endpoint) -> dict:
    """The endpoint's optional_args with secrets decrypted, in memory, for ``driver_for_endpoint`` only."""
    return options_decrypt(endpoint.optional_args or {})


def endpoint_set_password(endpoint, clear: str) -> None:
    """Encrypt and assign (the caller saves)."""
    endpoint.password_encrypted = encrypt_secret(clear) if clear else ""


def endpoint_password(endpoint) -> str:
    """The clear password from env var, secret file or the encrypted column, in that order. Never log it."""
    if endpoint.password_env:
        if endpoint.password_env not in os.environ:
            raise DriverError(f"password_env={endpoint.password_env!r}: environment variable is not set")
        clear = os.environ[endpoint.password_env]
        secret_remember(clear)
        return Redacted(clear)
    if endpoint.secret_file:
        path = Path(endpoint.secret_file)
        if not path.is_file():
            raise DriverError(f"secret_file={endpoint.secret_file!r}: file not found")
        clear = path.read_text().splitlines()[0] if path.stat().st_size else ""
        secret_remember(clear)
        return Redacted(clear)
    if endpoint.password_encrypted:
        return Redacted(decrypt_secret(endpoint.password_encrypted))
    return ""


class Redacted(str):
    """A string whose repr never shows the value (for connection kwargs that might end up in a traceback)."""

    def __repr__(self) -> str:
        return "'***'"


def _options_reencrypt(options, fernet: MultiFernet):
    if is_encrypted(options):
        return {ENCRYPTED_MARKER: fernet.rotate(options[ENCRYPTED_MARKER].encode()).decode()}
    if isinstance(options, dict):
        return {item_key: _options_reencrypt(item, fernet) for item_key, item in options.items()}
    if isinstance(options, list):
        return [_options_reencrypt(item, fernet) for item in options]
    return options


def credentials_reencrypt() -> int:
    """Re-encrypt every stored secret under the current (first) key; returns how many were re-encrypted. Runs in
    one transaction: a secret no accepted key opens aborts it with DriverError and changes nothing."""
    DeviceEndpoint = apps.get_model("changes", "DeviceEndpoint")  # by name: changes.models imports this module

    fernet = _fernet()
    count = 0
    with transaction.atomic():
        for endpoint in DeviceEndpoint.objects.select_for_update().order_by("pk"):
            try:
                if endpoint.password_encrypted:
                    endpoint.password_encrypted = fernet.rotate(endpoint.password_encrypted.encode()).decode()
                    count += 1
                options = _options_reencrypt(endpoint.optional_args or {}, fernet)
            except InvalidToken as exc:
                raise DriverError(f"{endpoint.hostname}: a stored credential cannot be decrypted with any accepted "
                                  "key; nothing was re-encrypted") from exc
            count += json.dumps(options).count(ENCRYPTED_MARKER)
            DeviceEndpoint.objects.filter(pk=endpoint.pk).update(password_encrypted=endpoint.password_encrypted,
                                                                 optional_args=options)
    return count
