"""A set of device configs from a directory or an archive: ``{device key: {file name: text}}``.

Layout: one sub-directory per device holding its files (``leaf2/config_db.json`` + ``leaf2/frr.conf``), or one
file per device at the top (``leaf1.cfg``: an EOS config, a SONiC config_db.json). Every name passes
:func:`compiler.paths.component_problem` and every path :func:`compiler.paths.safe_join` (no ``..``, no absolute
member, no symlink out of the directory); archives may hold regular files and directories only. Limits keep an
upload from exhausting memory. Pure Python; never imports Django.
"""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from compiler.errors import FieldError, UnsafePathError
from compiler.parse import ParseError
from compiler.paths import component_problem, safe_join

MAX_FILES = 20_000  # 1,088 switches x 2 files fit with room
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024


def _add(out: dict[str, dict[str, str]], parts: tuple[str, ...], data: bytes, field: str) -> None:
    for part in parts:
        problem = component_problem(part)
        if problem:
            raise UnsafePathError(FieldError(field, "/".join(parts), f"cannot be a path component: {problem}"))
    if len(parts) > 2:
        raise ParseError(f"{field}={'/'.join(parts)!r}: configs are <device>/<file> or <file>, not deeper")
    if parts[-1].startswith("."):
        return  # editor and OS litter (.DS_Store, .swp)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ParseError(f"{field}={'/'.join(parts)!r}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    device = parts[0] if len(parts) == 2 else PurePosixPath(parts[0]).stem
    out.setdefault(device, {})[parts[-1]] = text


def configs_from_directory(root: Path | str) -> dict[str, dict[str, str]]:
    root = Path(root)
    if not root.is_dir():
        raise ParseError(f"configs={str(root)!r}: not a directory")
    out: dict[str, dict[str, str]] = {}
    count = total = 0
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).parts
        if path.is_dir() and not path.is_symlink():
            continue
        target = safe_join(root, *relative, fields=("configs",) * len(relative))  # symlinks must stay inside
        if not target.is_file():
            continue
        count += 1
        size = target.stat().st_size
        total += size
        if count > MAX_FILES or size > MAX_FILE_BYTES or total > MAX_TOTAL_BYTES:
            raise ParseError(f"configs={str(root)!r}: more than {MAX_FILES} files or {MAX_FILE_BYTES} bytes per "
                             f"file or {MAX_TOTAL_BYTES} bytes in all")
        _add(out, relative, target.read_bytes(), "configs")
    if not out:
        raise ParseError(f"configs={str(root)!r}: no config files")
    return out


def configs_from_archive(data: bytes, name: str = "upload") -> dict[str, dict[str, str]]:
    """A .tar(.gz) or .zip of the directory layout above (one top directory wrapping it is allowed)."""
    members = _zip_members(data, name) if zipfile.is_zipfile(io.BytesIO(data)) else _tar_members(data, name)
    tops = {parts[0] for parts, _ in members}
    if len(tops) == 1 and all(len(parts) >= 2 for parts, _ in members):
        members = [(parts[1:], content) for parts, content in members]  # one wrapping directory
    out: dict[str, dict[str, str]] = {}
    for parts, content in members:
        _add(out, parts, content, "file")
    if not out:
        raise ParseError(f"file={name!r}: no config files in the archive")
    return out


def _zip_members(data: bytes, name: str) -> list[tuple[tuple[str, ...], bytes]]:
    """The regular files of a .zip: (path parts, content)."""
    members: list[tuple[tuple[str, ...], bytes]] = []
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        _check_sizes(name, [info.file_size for info in infos])
        for info in infos:
            if info.is_dir():
                continue
            if (info.external_attr >> 16) & 0o170000 not in (0, 0o100000):  # symlinks and devices
                raise UnsafePathError(FieldError("file", info.filename, "not a regular file"))
            members.append((_parts(info.filename), archive.read(info)))
    return members


def _tar_members(data: bytes, name: str) -> list[tuple[tuple[str, ...], bytes]]:
    """The regular files of a .tar(.gz): (path parts, content)."""
    members: list[tuple[tuple[str, ...], bytes]] = []
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data))
    except tarfile.TarError as error:
        raise ParseError(f"file={name!r}: neither a zip nor a tar archive ({error})") from None
    with archive:
        infos = archive.getmembers()
        _check_sizes(name, [info.size for info in infos])
        for info in infos:
            if info.isdir():
                continue
            extracted = archive.extractfile(info) if info.isfile() else None  # None for links and devices
            if extracted is None:
                raise UnsafePathError(FieldError("file", info.name, "not a regular file (link or device)"))
            members.append((_parts(info.name), extracted.read()))
    return members


def configs_from_uploads(uploads: list[tuple[str, bytes]]) -> dict[str, dict[str, str]]:
    """Several uploaded files, one per device (the device is the file name without its extension)."""
    _check_sizes("files", [len(data) for _, data in uploads])
    out: dict[str, dict[str, str]] = {}
    for name, data in uploads:
        _add(out, (name,), data, "files")
    if not out:
        raise ParseError("files=[]: no config files")
    return out


def _parts(member: str) -> tuple[str, ...]:
    parts = tuple(part for part in member.split("/") if part not in ("", "."))
    if member.startswith("/") or not parts:
        raise UnsafePathError(FieldError("file", member, "absolute or empty archive member"))
    for part in parts:
        problem = component_problem(part)
        if problem:
            raise UnsafePathError(FieldError("file", member, f"cannot be a path component: {problem}"))
    return parts


def _check_sizes(name: str, sizes: list[int]) -> None:
    if len(sizes) > MAX_FILES or any(size > MAX_FILE_BYTES for size in sizes) or sum(sizes) > MAX_TOTAL_BYTES:
        raise ParseError(f"file={name!r}: more than {MAX_FILES} members or {MAX_FILE_BYTES} bytes per member or "
                         f"{MAX_TOTAL_BYTES} bytes in all")
