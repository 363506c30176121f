"""``manage.py credential_key_rotate``: replace the device-credential key and re-encrypt every stored secret.

Key file (FT_CREDENTIAL_KEY unset): a new key is generated and written first in the file, with the old key kept
on the next line while the rows are re-encrypted (in one transaction), then the old key is removed. A crash in
between leaves both keys in the file, so every secret still opens; run the command again.

FT_CREDENTIAL_KEY: this process cannot change the environment. Set FT_CREDENTIAL_KEY="NEW,OLD" everywhere
(web and workers), run this command (it re-encrypts under NEW), then set FT_CREDENTIAL_KEY=NEW.
"""

import os
import tempfile
from pathlib import Path

from cryptography.fernet import Fernet
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from changes.credentials import KEY_ENV, credential_keys, credentials_reencrypt
from compiler.errors import DriverError


def _write_key_file(path: Path, keys: list[bytes]) -> None:
    """Atomically (a 0600 temporary file renamed over the old one)."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".credential-key-")
    try:
        with os.fdopen(descriptor, "wb") as key_file:
            key_file.write(b"\n".join(keys) + b"\n")
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class Command(BaseCommand):
    help = "Replace the device-credential key (key file) or re-encrypt under the first FT_CREDENTIAL_KEY key."

    def handle(self, *args, **options):
        try:
            if os.environ.get(KEY_ENV, "").strip():
                if len(credential_keys()) < 2:
                    self.stderr.write(f"{KEY_ENV} holds one key: re-encrypting under it (to change the key, set "
                                      f'{KEY_ENV}="NEW,OLD" first)')
                count = credentials_reencrypt()
                self.stdout.write(f"re-encrypted {count} secrets under the first key of {KEY_ENV}; "
                                  f"now set {KEY_ENV} to that key alone")
                return
            path = Path(settings.FT_CREDENTIAL_KEY_FILE)
            old_keys = credential_keys()  # creates the file on a fresh install
            new_key = Fernet.generate_key()
            _write_key_file(path, [new_key, *old_keys])
            count = credentials_reencrypt()
            _write_key_file(path, [new_key])
        except DriverError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"new key in FT_CREDENTIAL_KEY_FILE={str(path)!r}; re-encrypted {count} secrets")
