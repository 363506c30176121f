"""Per-install key files: generated once, readable only by the owner, read on every later start.

Used by settings (SECRET_KEY while DEBUG is on and none is configured) and changes.credentials (the device
credential key unless FT_CREDENTIAL_KEY is set). Pure Python: settings load it before Django is set up.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path


class KeyFileError(Exception):
    """A key file that exists but must not be used (readable by others, empty)."""


def key_file_read_or_create(path: Path, generate: Callable[[], bytes], *, setting: str) -> bytes:
    """The key in ``path``; created with ``generate()`` when missing (O_EXCL: two processes starting together
    agree on one key), mode 0600 in a 0700 directory. ``setting`` names the file in errors."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise KeyFileError(f"{setting}={str(path)!r}: mode {mode:04o} lets other users read the key; "
                               "chmod 600 it") from None
    else:
        with os.fdopen(descriptor, "wb") as key_file:
            key_file.write(generate() + b"\n")
    key = path.read_bytes().strip()
    if not key:
        raise KeyFileError(f"{setting}={str(path)!r}: the file is empty (another process may be writing it; "
                           "if not, delete it to generate a new key)")
    return key
