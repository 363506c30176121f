"""A compile run's stored configs out of the database: a directory tree or a .tar.gz / .zip archive, every name
through the path grammar."""

from __future__ import annotations

import io
import tarfile
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from compiler.errors import FieldError, InputError
from compiler.names import HOSTNAME, OBJECT_NAME, path_component
from compiler.paths import archive_member, safe_join

from ..models import CompileRun


def _config_rows(run: CompileRun, devices: Iterable[str] | None = None, platforms: Iterable[str] | None = None):
    rows = run.device_configs.order_by("hostname", "platform")
    if devices:
        rows = rows.filter(hostname__in=list(devices))
    if platforms:
        rows = rows.filter(platform__in=list(platforms))
    return rows.values_list("hostname", "platform", "files").iterator(chunk_size=200)


def compile_run_write(*, run: CompileRun, out_dir: Path, devices: Iterable[str] | None = None,
                      platforms: Iterable[str] | None = None) -> list[Path]:
    """Write ``<out>/<fabric intent>/<device>/<platform>/<file>`` for every stored config of ``run``.

    Every name passes the grammar and every path is resolved and kept inside ``out_dir`` (compiler.paths): an
    intent named ``../x``, a hostname ``/etc`` or a symlink planted under ``out/`` is an UnsafePathError, and
    nothing is written for it."""
    intent_name = path_component(OBJECT_NAME, run.fabric_intent.name, "intent.name")
    written = []
    for hostname, platform, files in _config_rows(run, devices, platforms):
        path_component(HOSTNAME, hostname, "hostname")
        for name, text in files.items():
            path = safe_join(out_dir, intent_name, hostname, platform, name,
                             fields=("intent.name", "hostname", "platform", "file"))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            written.append(path)
    return written


ARCHIVE_KINDS = {"tar.gz": "application/gzip", "zip": "application/zip"}


def compile_run_archive(*, run: CompileRun, kind: str = "tar.gz"):
    """Every config of ``run`` as a .tar.gz or .zip (same layout as ``compile_run_write``); returns a rewound
    file object (spooled to disk past 64 MB) and the download file name."""
    if kind not in ARCHIVE_KINDS:
        raise InputError(FieldError("kind", kind, f"one of {', '.join(ARCHIVE_KINDS)}"))
    prefix = path_component(OBJECT_NAME, run.fabric_intent.name, "intent.name")
    fields = ("intent.name", "hostname", "platform", "file")
    buffer = tempfile.SpooledTemporaryFile(max_size=64 * 1024 * 1024)
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for hostname, platform, files in _config_rows(run):
                path_component(HOSTNAME, hostname, "hostname")
                for name, text in files.items():
                    archive.writestr(archive_member(prefix, hostname, platform, name, fields=fields), text)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for hostname, platform, files in _config_rows(run):
                path_component(HOSTNAME, hostname, "hostname")
                for name, text in files.items():
                    data = text.encode()
                    info = tarfile.TarInfo(archive_member(prefix, hostname, platform, name, fields=fields))
                    info.size, info.mode = len(data), 0o644
                    info.mtime = int(run.finished.timestamp()) if run.finished else 0
                    archive.addfile(info, io.BytesIO(data))
    buffer.seek(0)
    return buffer, f"{prefix}-run{run.pk}.{kind}"
