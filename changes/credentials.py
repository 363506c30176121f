"""Device credentials as rows: where an endpoint's password and key come from, re-encrypting every stored secret
under a new key, and the registered config secrets behind ``FT-SECRET[...]`` references. Never stored or logged in
clear; the cryptography itself (key ring, Fernet, type 7) is changes.crypto, re-exported here.

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

import json
import os
from pathlib import Path

from cryptography.fernet import InvalidToken
from django.apps import apps
from django.conf import settings
from django.db import transaction

from common.redaction import config_secrets_shown, secret_remember
from compiler.errors import DriverError, FieldError, InputError
from compiler.secret_refs import PLACEHOLDER, SECRET_REFERENCE, references_in

from .crypto import (
    ENCRYPTED_MARKER,
    KEY_ENV,
    Redacted,
    credential_fernet,
    credential_key,
    credential_keys,
    decrypt_secret,
    encrypt_secret,
    eos_type7,
    is_encrypted,
    options_decrypt,
    options_encrypt,
    options_keep_redacted,
    options_reencrypt,
    running_files_open,
    running_files_seal,
    secret_encoded_for,
)
from .errors import SecretReferenceUnknown, SecretValueRefused

# The public names, changes.crypto's included: models, migrations, commands and tests import them from here.
__all__ = [
    "KEY_ENV", "config_refs_compared", "config_secret_delete", "config_secret_set", "config_secrets_compared",
    "credential_key", "credential_keys", "credentials_reencrypt", "endpoint_key_file", "endpoint_options",
    "endpoint_password", "endpoint_set_password", "eos_type7", "is_encrypted", "options_encrypt",
    "options_keep_redacted", "running_files_open", "running_files_seal", "secret_refs_resolve",
    "secret_source_problems",
]


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


def credentials_reencrypt() -> int:
    """Re-encrypt every stored secret under the current (first) key; returns how many were re-encrypted. Runs in
    one transaction: a secret no accepted key opens aborts it with DriverError and changes nothing."""
    # by name: changes.models imports this module
    ConfigSecret = apps.get_model("changes", "ConfigSecret")
    DeviceEndpoint = apps.get_model("changes", "DeviceEndpoint")
    ChangeSetDevice = apps.get_model("changes", "ChangeSetDevice")

    fernet = credential_fernet()
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
                options = options_reencrypt(endpoint.optional_args or {}, fernet)
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
                sealed = options_reencrypt(row.running_files, fernet)
            except InvalidToken as exc:
                raise DriverError(f"change set {row.change_set_id} {row.hostname}: the saved rollback config cannot "
                                  "be decrypted with any accepted key; nothing was re-encrypted") from exc
            ChangeSetDevice.objects.filter(pk=row.pk).update(running_files=sealed)
            count += 1
    return count


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
    encoded = {reference: secret_encoded_for(platform, device, reference, decrypt_secret(stored[reference]))
               for reference in references}
    return {name: PLACEHOLDER.sub(lambda match: encoded[match.group(1)], text) for name, text in files.items()}
