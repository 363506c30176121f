"""A set of device configs from a directory or an archive: ``{device key: {file name: text}}``.

Layout: one sub-directory per device holding its files (``leaf2/config_db.json`` + ``leaf2/frr.conf``), or one
file per device at the top (``leaf1.cfg``: an EOS config, a SONiC config_db.json), or what ``manage.py compile
--out DIR`` writes: ``[<fabric>/]<device>/<platform>/<file>`` with ``<platform>`` one of eos, sonic, frr (recognised
by that directory name, not "any depth"). There a device rendered for several platforms (its own and the twin's
``frr``) is validated on its own platform; the other renderings are set aside and said so (``set_aside``), never
dropped in silence. Every name passes
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
from compiler.model import Platform
from compiler.parse import ParseError
from compiler.paths import component_problem, safe_join

MAX_FILES = 20_000  # 1,088 switches x 2 files fit with room
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024


TWIN_PLATFORM = Platform.FRR  # compile renders every device for the twin too (intents compile: "own plus frr")


def _add(out: dict[str, dict[str, str]], parts: tuple[str, ...], data: bytes, field: str) -> None:
    for part in parts:
        problem = component_problem(part)
        if problem:
            raise UnsafePathError(FieldError(field, "/".join(parts), f"cannot be a path component: {problem}"))
    if len(parts) > 2:
        raise ParseError(f"{field}={'/'.join(parts)!r}: configs are <device>/<file>, <file> or compile --out's "
                         "[<fabric>/]<device>/<platform>/<file>, not deeper")
    if parts[-1].startswith("."):
        return  # editor and OS litter (.DS_Store, .swp)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ParseError(f"{field}={'/'.join(parts)!r}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    device = parts[0] if len(parts) == 2 else PurePosixPath(parts[0]).stem
    out.setdefault(device, {})[parts[-1]] = text


def _own_platform(members: list[tuple[tuple[str, ...], bytes]], field: str,
                  set_aside: list[str] | None) -> list[tuple[tuple[str, ...], bytes]]:
    """compile --out's ``[<fabric>/]<device>/<platform>/<file>`` -> ``<device>/<file>`` members of each device's own
    platform (the one that is not the twin's frr, or frr when that is all there is); the other renderings are
    listed in ``set_aside``. Other layouts are returned as given (:func:`_add` refuses what is deeper)."""
    visible = [parts for parts, _ in members if not parts[-1].startswith(".")]
    depth = max((len(parts) for parts in visible), default=0)
    if depth <= 2:
        return members
    for parts in visible:
        if depth not in (3, 4) or len(parts) != depth or parts[-2] not in Platform.ALL:
            raise ParseError(f"{field}={'/'.join(parts)!r}: configs are <device>/<file>, <file> or compile --out's "
                             f"[<fabric>/]<device>/<platform>/<file> (platform: {', '.join(Platform.ALL)})")
    if depth == 4:
        fabrics = sorted({parts[0] for parts in visible})
        if len(fabrics) > 1:
            raise ParseError(f"{field}: configs of {len(fabrics)} fabrics ({', '.join(fabrics)}): give one fabric's "
                             "directory")
        members = [(parts[1:], data) for parts, data in members if len(parts) == 4]
        visible = [parts[1:] for parts in visible]
    platforms: dict[str, set[str]] = {}
    for device, platform, _ in visible:
        platforms.setdefault(device, set()).add(platform)
    chosen = {}
    for device, rendered in sorted(platforms.items()):
        own = sorted(rendered - {TWIN_PLATFORM})
        if len(own) > 1:
            raise ParseError(f"{field}={device!r}: rendered for {' and '.join(own)}: one device runs one platform "
                             "(validate one rendering at a time)")
        chosen[device] = own[0] if own else TWIN_PLATFORM
        for platform in sorted(rendered - {chosen[device]}):
            note = (f"{device}/{platform}/: the twin's {platform} rendering of {device}, not validated ({device} is "
                    f"validated on its own platform, {chosen[device]})")
            if set_aside is None:
                raise ParseError(f"{field}={device!r}: rendered for {chosen[device]} and {platform}: give one "
                                 "platform's files")
            set_aside.append(note)
    return [((parts[0], parts[2]), data) for parts, data in members
            if len(parts) == 3 and parts[1] == chosen.get(parts[0])]


def configs_from_directory(root: Path | str, set_aside: list[str] | None = None) -> dict[str, dict[str, str]]:
    """``set_aside`` receives what compile --out's layout holds beyond each device's own platform."""
    root = Path(root)
    if not root.is_dir():
        raise ParseError(f"configs={str(root)!r}: not a directory")
    out: dict[str, dict[str, str]] = {}
    members: list[tuple[tuple[str, ...], bytes]] = []
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
        members.append((relative, target.read_bytes()))
    for parts, data in _own_platform(members, "configs", set_aside):
        _add(out, parts, data, "configs")
    if not out:
        raise ParseError(f"configs={str(root)!r}: no config files")
    return out


def configs_from_archive(data: bytes, name: str = "upload",
                         set_aside: list[str] | None = None) -> dict[str, dict[str, str]]:
    """A .tar(.gz) or .zip of the directory layout above (one top directory wrapping it is allowed: compile's
    archive is ``<fabric>/<device>/<platform>/<file>``)."""
    members = _zip_members(data, name) if zipfile.is_zipfile(io.BytesIO(data)) else _tar_members(data, name)
    tops = {parts[0] for parts, _ in members}
    if len(tops) == 1 and all(len(parts) >= 2 for parts, _ in members):
        members = [(parts[1:], content) for parts, content in members]  # one wrapping directory
    out: dict[str, dict[str, str]] = {}
    for parts, content in _own_platform(members, "file", set_aside):
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
