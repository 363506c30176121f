"""Encrypt what earlier versions stored in clear or under a derivable key.

- secret-looking keys of DeviceEndpoint.optional_args (enable secrets, communities, keys...) are encrypted;
- passwords encrypted under the old key derived from SECRET_KEY (HKDF-SHA256, info "fabric-twin device
  credentials v1") are re-encrypted under the per-install key (FT_CREDENTIAL_KEY or the key file), so stored
  passwords keep working across the upgrade. A password that neither key opens is left as is (the driver then
  says to set it again). The old derivation lives only here: nothing else may decrypt with it.
"""

import base64

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.db import migrations


def _legacy_fernet() -> Fernet | None:
    if not settings.SECRET_KEY:
        return None
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                   info=b"fabric-twin device credentials v1").derive(settings.SECRET_KEY.encode())
    return Fernet(base64.urlsafe_b64encode(derived))


def encrypt_endpoint_secrets(apps, schema_editor):
    from changes.credentials import credential_key, options_encrypt

    endpoint_model = apps.get_model("changes", "DeviceEndpoint")
    endpoints = list(endpoint_model.objects.all())
    if not endpoints:
        return  # a fresh install: do not create the key file before anything needs it
    current = Fernet(credential_key())
    legacy = _legacy_fernet()
    for endpoint in endpoints:
        if endpoint.password_encrypted and legacy is not None:
            try:
                current.decrypt(endpoint.password_encrypted.encode())
            except InvalidToken:
                try:
                    clear = legacy.decrypt(endpoint.password_encrypted.encode())
                    endpoint.password_encrypted = current.encrypt(clear).decode()
                except InvalidToken:
                    pass
        endpoint.optional_args = options_encrypt(endpoint.optional_args or {})
        endpoint.save(update_fields=["password_encrypted", "optional_args"])


class Migration(migrations.Migration):
    dependencies = [("changes", "0001_initial")]

    operations = [migrations.RunPython(encrypt_endpoint_secrets, migrations.RunPython.noop)]
