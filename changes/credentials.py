"""Device credentials: never stored or logged in clear.

What is encrypted at rest, with Fernet (AES-128-CBC + HMAC-SHA256, from ``cryptography``):
- ``DeviceEndpoint.password_encrypted`` (set through ``endpoint_set_password``);
- every value in ``DeviceEndpoint.optional_args`` stored under a secret-looking key (common.redaction's
  ``SECRET_NAME_PATTERN``: enable ``secret``, ``password``, ``community``, ``*key*``, ``token``...), at any
  depth, as ``{"$fernet": "<token>"}`` (the JSON of the clear value, so booleans and numbers come back as such).
  ``DeviceEndpoint.save`` encrypts them, whoever writes the row; ``endpoint_options`` decrypts them only to
  build the driver connection (changes.drivers.driver_for_endpoint).

The key is ``FT_CREDENTIAL_KEY`` (a urlsafe-base64 32-byte Fernet key: ``Fernet.generate_key()``) or, when that
is unset, the per-install key file ``settings.FT_CREDENTIAL_KEY_FILE`` (default ``<FT_DATA_DIR>/credential.key``),
generated once with mode 0600 and read on every later start. It is never derived from SECRET_KEY or any constant.
Operators can keep passwords out of the database entirely with ``password_env`` (an environment variable name)
or ``secret_file`` (a file whose first line is the password), but only from sources the deployment set aside
(``secret_source_problems``): a variable named ``FT_DEVICE_SECRET_*`` (``settings.FT_DEVICE_SECRET_ENV_PREFIX``)
and a file inside ``settings.FT_SECRET_DIR`` (``key_file`` too). An app admin picks the address a password is
sent to, so any other variable or file would hand the server's own secrets (SECRET_KEY, DATABASE_URL, the
credential key file, /etc/shadow) to a host of their choosing. Every clear value handled here is remembered by
common.redaction so logs and audit entries show ``***`` instead.

Config secrets (``ConfigSecret``): secrets a rendered config names by reference only - the TACACS+ key is
``FT-SECRET[vault:secret/fabric/tacacs]`` in every stored config, diff and golden (compiler.secret_refs).
``secret_refs_resolve`` is the one place a reference becomes a secret: every push driver (NAPALM EOS, Netmiko
SONiC, twin) calls it on the candidate just before it is sent, and it refuses the push (``SecretReferenceUnknown``)
when a reference is not registered. Register one with ``manage.py config_secret set <reference>`` (value from
stdin or an environment variable, never the command line).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from common.keyfiles import KeyFileError, key_file_read_or_create
from common.redaction import REDACTED, config_secrets_shown, is_secret_name, secret_remember
from compiler.errors import DriverError, FieldError, InputError
from compiler.secret_redaction import TYPE7_TABLE
from compiler.secret_refs import PLACEHOLDER, SECRET_REFERENCE, references_in

from .errors import SecretReferenceUnknown, SecretValueRefused

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


def endpoint_options(endpoint) -> dict:
    """The endpoint's optional_args with secrets decrypted, in memory, for ``driver_for_endpoint`` only."""
    return options_decrypt(endpoint.optional_args or {})


def endpoint_set_password(endpoint, clear: str) -> None:
    """Encrypt and assign (the caller saves)."""
    endpoint.password_encrypted = encrypt_secret(clear) if clear else ""


def secret_source_problems(*, password_env: str = "", secret_file: str = "", key_file: str = "") -> list[FieldError]:
    """Why each non-empty credential source is refused (empty list: all allowed). Checked when an endpoint is
    saved (``DeviceEndpoint.clean``) and again when it is used, so a row stored before the rule is refused then."""
    problems = []
    prefix = settings.FT_DEVICE_SECRET_ENV_PREFIX
    if password_env and (not prefix or not password_env.startswith(prefix) or password_env == prefix):
        problems.append(FieldError("password_env", password_env,
                                   f"only environment variables named {prefix}<NAME> are device secrets "
                                   "(FT_DEVICE_SECRET_ENV_PREFIX); store the password encrypted instead"
                                   if prefix else "FT_DEVICE_SECRET_ENV_PREFIX is empty: no environment variable "
                                   "is a device secret; store the password encrypted instead"))
    for field_name, value in (("secret_file", secret_file), ("key_file", key_file)):
        if value:
            problem = _secret_path_problem(value)
            if problem:
                problems.append(FieldError(field_name, value, problem))
    return problems


def _secret_path_problem(value: str) -> str:
    if not settings.FT_SECRET_DIR:
        return "FT_SECRET_DIR is not set: no file is a device secret; store the password encrypted instead"
    if "\x00" in value:
        return "contains a NUL character"
    return "" if _secret_path(value) else (f"must name a file inside FT_SECRET_DIR ({settings.FT_SECRET_DIR}), "
                                           "not one of the server's key files (FT_DATA_DIR, FT_CREDENTIAL_KEY_FILE)")


def _secret_path(value: str) -> Path | None:
    """``value`` (relative to FT_SECRET_DIR, or absolute) resolved, symlinks included, when it stays inside and
    is none of the server's own key files (FT_SECRET_DIR set to, or above, FT_DATA_DIR would otherwise reach the
    credential key and SECRET_KEY files)."""
    root = Path(settings.FT_SECRET_DIR).resolve()
    path = (root / value).resolve()
    data_dir = Path(settings.FT_DATA_DIR).resolve()
    if path.is_relative_to(data_dir) or path == Path(settings.FT_CREDENTIAL_KEY_FILE).resolve():
        return None
    return path if path != root and path.is_relative_to(root) else None


def _source_checked(endpoint) -> None:
    problems = secret_source_problems(password_env=endpoint.password_env, secret_file=endpoint.secret_file,
                                      key_file=endpoint.key_file)
    if problems:
        raise DriverError(f"{endpoint.hostname}: credential source refused: "
                          + "; ".join(str(problem) for problem in problems) + " (set it again on the endpoint)")


def endpoint_key_file(endpoint) -> str:
    """The SSH private key file, resolved inside FT_SECRET_DIR ("" when none)."""
    _source_checked(endpoint)
    return str(_secret_path(endpoint.key_file)) if endpoint.key_file else ""


def endpoint_password(endpoint) -> str:
    """The clear password from env var, secret file or the encrypted column, in that order. Never log it."""
    _source_checked(endpoint)
    if endpoint.password_env:
        if endpoint.password_env not in os.environ:
            raise DriverError(f"password_env={endpoint.password_env!r}: environment variable is not set")
        clear = os.environ[endpoint.password_env]
        secret_remember(clear)
        return Redacted(clear)
    if endpoint.secret_file:
        path = _secret_path(endpoint.secret_file)
        if path is None or not path.is_file():
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
    # by name: changes.models imports this module
    ConfigSecret = apps.get_model("changes", "ConfigSecret")
    DeviceEndpoint = apps.get_model("changes", "DeviceEndpoint")
    ChangeSetDevice = apps.get_model("changes", "ChangeSetDevice")

    fernet = _fernet()
    count = 0
    with transaction.atomic():
        for secret in ConfigSecret.objects.select_for_update().order_by("pk"):
            try:
                rotated = fernet.rotate(secret.value_encrypted.encode()).decode()
            except InvalidToken as exc:
                raise DriverError(f"config secret {secret.reference!r} cannot be decrypted with any accepted key; "
                                  "nothing was re-encrypted") from exc
            ConfigSecret.objects.filter(pk=secret.pk).update(value_encrypted=rotated)
            count += 1
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
        for row in ChangeSetDevice.objects.select_for_update().exclude(running_files={}).order_by("pk"):
            if not is_encrypted(row.running_files):
                continue
            try:
                sealed = _options_reencrypt(row.running_files, fernet)
            except InvalidToken as exc:
                raise DriverError(f"change set {row.change_set_id} {row.hostname}: the saved rollback config cannot "
                                  "be decrypted with any accepted key; nothing was re-encrypted") from exc
            ChangeSetDevice.objects.filter(pk=row.pk).update(running_files=sealed)
            count += 1
    return count


# --------------------------------------------------------------------------------------------- config secrets

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


def config_secret_set(*, reference: str, clear: str) -> bool:
    """Register (or replace) the secret behind ``reference``; True when it was new. The clear value is encrypted
    at once and never stored or logged in clear."""
    from .models import ConfigSecret  # here: models imports this module (DeviceEndpoint.save encrypts)

    if not SECRET_REFERENCE.match(reference or ""):
        raise InputError(FieldError("reference", reference, "expected '<scheme>:<path>' like "
                                               "vault:secret/fabric/tacacs (path characters A-Za-z0-9_./:@+=-)"))
    if not clear:
        raise InputError(FieldError("value", "", "an empty secret cannot be registered"))
    _, created = ConfigSecret.objects.update_or_create(reference=reference,
                                                       defaults={"value_encrypted": encrypt_secret(clear)})
    return created


def config_secret_delete(*, reference: str) -> bool:
    from .models import ConfigSecret

    deleted, _ = ConfigSecret.objects.filter(reference=reference).delete()
    return bool(deleted)


def _encoded_for(platform: str, device: str, reference: str, clear: str) -> str:
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


def config_secrets_compared(files: dict[str, str], *, device: str) -> dict[str, str]:
    """A device's files as comparisons, diffs and records hold them (common.redaction.config_secrets_shown): our
    ``FT-SECRET[<reference>]`` markers first resolved to the registered secret (``config_refs_compared``), so an
    intended secret and the one a device runs compare by keyed hash (a changed secret is drift; an equal one is not).
    """
    return config_secrets_shown(config_refs_compared(files, device=device))


def config_refs_compared(files: dict[str, str], *, device: str) -> dict[str, str]:
    """``files`` with our references resolved, for a comparison only: pass the result through
    common.redaction.config_secrets_shown before it is stored or shown. Reads the credential store (call it from the
    request's or task's thread). A reference that is not registered, or whose value the platform refuses, stays as
    its marker (then it differs, as the push would be refused)."""
    resolved = {}
    for name, text in files.items():
        platform = "sonic" if text.lstrip().startswith("{") else "eos"  # JSON: SONiC passkey; text: EOS key 7
        try:
            resolved.update(secret_refs_resolve({name: text}, device=device, platform=platform))
        except (SecretReferenceUnknown, SecretValueRefused):
            resolved[name] = text
    return resolved


def secret_refs_resolve(files: dict[str, str], *, device: str, platform: str) -> dict[str, str]:
    """The one resolver: ``files`` with every ``FT-SECRET[<reference>]`` replaced by the registered secret, encoded
    for ``platform`` (eos, sonic, frr). Files without a reference come back unchanged (no database access).
    Unknown references refuse the push (``SecretReferenceUnknown``, naming all of them); every clear and encoded
    value is remembered by common.redaction, so step output, errors and the audit trail show ``***``. The result is
    for the device only: never store or return it."""
    from .models import ConfigSecret

    references = list(dict.fromkeys(reference for text in files.values() for reference in references_in(text)))
    if not references:
        return files
    stored = dict(ConfigSecret.objects.filter(reference__in=references).values_list("reference", "value_encrypted"))
    unknown = [reference for reference in references if reference not in stored]
    if unknown:
        raise SecretReferenceUnknown(device, unknown)
    encoded = {reference: _encoded_for(platform, device, reference, decrypt_secret(stored[reference]))
               for reference in references}
    return {name: PLACEHOLDER.sub(lambda match: encoded[match.group(1)], text) for name, text in files.items()}
