"""Device credentials: never stored or logged in clear.

Passwords saved on a DeviceEndpoint are encrypted with Fernet (AES-128-CBC + HMAC-SHA256, from ``cryptography``).
The key comes from FT_CREDENTIAL_KEY (a urlsafe-base64 32-byte Fernet key: ``Fernet.generate_key()``); when unset
it is derived from Django's SECRET_KEY with HKDF-SHA256, so rotating SECRET_KEY makes stored passwords
unreadable (re-enter them). Operators can keep secrets out of the database entirely with ``password_env``
(an environment variable name) or ``secret_file`` (a file whose first line is the password).
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

from compiler.errors import DriverError

KEY_ENV = "FT_CREDENTIAL_KEY"
_HKDF_INFO = b"fabric-twin device credentials v1"


def credential_key() -> bytes:
    configured = os.environ.get(KEY_ENV, "").strip()
    if configured:
        return configured.encode()
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_HKDF_INFO).derive(settings.SECRET_KEY.encode())
    return base64.urlsafe_b64encode(derived)


def encrypt_secret(clear: str) -> str:
    return Fernet(credential_key()).encrypt(clear.encode()).decode()


def decrypt_secret(token: str) -> str:
    try:
        return Fernet(credential_key()).decrypt(token.encode()).decode()
    except (InvalidToken, ValueError) as exc:
        raise DriverError(f"stored password cannot be decrypted with the current {KEY_ENV}/SECRET_KEY "
                          "(was the key rotated?); set the password again") from exc


def endpoint_set_password(endpoint, clear: str) -> None:
    """Encrypt and assign (the caller saves)."""
    endpoint.password_encrypted = encrypt_secret(clear) if clear else ""


def endpoint_password(endpoint) -> str:
    """The clear password from env var, secret file or the encrypted column, in that order. Never log it."""
    if endpoint.password_env:
        if endpoint.password_env not in os.environ:
            raise DriverError(f"password_env={endpoint.password_env!r}: environment variable is not set")
        return os.environ[endpoint.password_env]
    if endpoint.secret_file:
        path = Path(endpoint.secret_file)
        if not path.is_file():
            raise DriverError(f"secret_file={endpoint.secret_file!r}: file not found")
        return path.read_text().splitlines()[0] if path.stat().st_size else ""
    if endpoint.password_encrypted:
        return decrypt_secret(endpoint.password_encrypted)
    return ""


class Redacted(str):
    """A string whose repr never shows the value (for connection kwargs that might end up in a traceback)."""

    def __repr__(self) -> str:
        return "'***'"
