"""Credential cryptography, without database rows: the Fernet key ring, encrypting and decrypting one secret or the
secret-looking values of a JSON document, the sealed rollback copy of a running config, and how a config secret is
encoded for a platform (EOS type 7, SONiC passkey).

What is encrypted at rest, with Fernet (AES-128-CBC + HMAC-SHA256, from ``cryptography``):
- ``DeviceEndpoint.password_encrypted`` (set through ``changes.credentials.endpoint_set_password``);
- every value in ``DeviceEndpoint.optional_args`` stored under a secret-looking key (common.redaction's
  ``SECRET_NAME_PATTERN``: enable ``secret``, ``password``, ``community``, ``*key*``, ``token``...), at any
  depth, as ``{"$fernet": "<token>"}`` (the JSON of the clear value, so booleans and numbers come back as such).
  ``DeviceEndpoint.save`` encrypts them, whoever writes the row; ``changes.credentials.endpoint_options`` decrypts
  them only to build the driver connection (changes.drivers.driver_for_endpoint);
- ``ConfigSecret.value_encrypted`` and the rollback copy ``ChangeSetDevice.running_files``.

The key is ``FT_CREDENTIAL_KEY`` (a urlsafe-base64 32-byte Fernet key: ``Fernet.generate_key()``) or, when that
is unset, the per-install key file ``settings.FT_CREDENTIAL_KEY_FILE`` (default ``<FT_DATA_DIR>/credential.key``),
generated once with mode 0600 and read on every later start. It is never derived from SECRET_KEY or any constant.
Every clear value handled here is remembered by common.redaction so logs and audit entries show ``***`` instead.
The rows that hold these values are read and written in changes.credentials.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from common.keyfiles import KeyFileError, key_file_read_or_create
from common.redaction import REDACTED, is_secret_name, secret_remember
from compiler.errors import DriverError, FieldError, InputError
from compiler.secret_redaction import TYPE7_TABLE

from .errors import SecretValueRefused

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


def credential_fernet() -> MultiFernet:
    return MultiFernet([Fernet(key) for key in credential_keys()])


def encrypt_secret(clear: str) -> str:
    secret_remember(clear)
    return _encrypt(clear)


def decrypt_secret(token: str) -> str:
    clear = _decrypt(token)
    secret_remember(clear)
    return clear


def _encrypt(clear: str) -> str:
    return credential_fernet().encrypt(clear.encode()).decode()


def _decrypt(token: str) -> str:
    try:
        return credential_fernet().decrypt(token.encode()).decode()
    except (InvalidToken, ValueError) as exc:
        raise DriverError(f"a stored credential cannot be decrypted with the current {KEY_ENV} / "
                          "FT_CREDENTIAL_KEY_FILE (was the key replaced?); set the password/secret again") from exc


def running_files_seal(files: dict[str, str]) -> dict:
    """The rollback copy of a device's running config as a change set stores it: encrypted whole
    (``{"$fernet": token}``), since it holds the device's secrets in clear and a rollback must restore them
    (issue 29). Not remembered for redaction: it is a config, not one secret."""
    return {ENCRYPTED_MARKER: _encrypt(json.dumps(files, sort_keys=True))} if files else {}


def running_files_open(stored: dict) -> dict[str, str]:
    """The rollback copy in clear, for the driver only; a copy stored before sealing comes back as it is.
    DriverError when no accepted key opens it."""
    return json.loads(_decrypt(stored[ENCRYPTED_MARKER])) if is_encrypted(stored) else dict(stored)


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


class Redacted(str):
    """A string whose repr never shows the value (for connection kwargs that might end up in a traceback)."""

    def __repr__(self) -> str:
        return "'***'"


def options_reencrypt(options, fernet: MultiFernet):
    if is_encrypted(options):
        return {ENCRYPTED_MARKER: fernet.rotate(options[ENCRYPTED_MARKER].encode()).decode()}
    if isinstance(options, dict):
        return {item_key: options_reencrypt(item, fernet) for item_key, item in options.items()}
    if isinstance(options, list):
        return [options_reencrypt(item, fernet) for item in options]
    return options


# Cisco/Arista "type 7" obfuscation (reversible, not encryption): what EOS prints after `key 7` for TACACS+ and
# RADIUS keys. Two decimal digits of salt, then each character XOR the table character at (salt + i), in hex.
# Checked against Arista AVD's own implementation (pyavd_utils.passwords.simple_7_encrypt) in the tests.
# SONiC TACACS+ passkey (sonic-system-tacacs.yang): 1..256 printable ASCII characters except blank, '#' and ','.
SONIC_PASSKEY = re.compile(r"[!-~]{1,256}")


SONIC_PASSKEY_FORBIDDEN = " #,"


def eos_type7(clear: str, *, salt: int) -> str:
    """``clear`` in EOS's type-7 form with a salt 0..15."""
    if not 0 <= salt <= 15:
        raise ValueError(f"type-7 salt {salt!r} must be 0..15")
    return f"{salt:02d}" + "".join(f"{ord(char) ^ ord(TYPE7_TABLE[(salt + index) % len(TYPE7_TABLE)]):02X}"
                                   for index, char in enumerate(clear))


def secret_encoded_for(platform: str, device: str, reference: str, clear: str) -> str:
    """The secret as the platform takes it where its reference stands: EOS ``key 7 <type-7>``; SONiC and FRR/Linux
    the clear value (SONiC ``passkey`` with ``key_encrypt`` false)."""
    if platform == "eos":
        # A salt fixed per reference, so the same secret always renders the same text (stable hashes, no diff).
        encoded = eos_type7(clear, salt=hashlib.sha256(reference.encode()).digest()[0] % 16)
        secret_remember(encoded)  # type 7 is reversible: as secret as the clear value
        return encoded
    if not SONIC_PASSKEY.fullmatch(clear) or any(char in clear for char in SONIC_PASSKEY_FORBIDDEN):
        raise SecretValueRefused(f"{device}: secret reference {reference!r}: the stored value cannot be a "
                                 f"{platform} TACACS+ passkey (1-256 printable ASCII characters, no blank, '#' or "
                                 "','; sonic-system-tacacs.yang); register another value")
    return clear
