"""A set of device configs from a directory or an archive: ``{device key: {file name: text}}``.

Layout: one sub-directory per device holding its files (``leaf2/config_db.json`` + ``leaf2/frr.conf``), or one
file per device at the top (``leaf1.cfg``: an EOS config, a SONiC config_db.json), or what ``manage.py compile
--out DIR`` writes: ``[<fabric>/]<device>/<platform>/<file>`` with ``<platform>`` one of eos, sonic, frr (recognised
by that directory name, not "any depth"). There a device rendered for several platforms (its own and the twin's
``frr``) is validated on its own platform; the other renderings are set aside and said so (``set_aside``), never
dropped in silence. Every name passes
:func:`compiler.paths.component_problem` and every path :func:`compiler.paths.safe_join` (no ``..``, no absolute
member, no symlink out of the directory); archives may hold regular files and directories only.

Limits keep one upload from exhausting memory or CPU, each checked before the next stage reads anything (an
error names the field, the file and the limit): the upload as received (MAX_UPLOAD_BYTES), the members an
archive declares (MAX_FILES, MAX_FILE_BYTES, MAX_TOTAL_BYTES, checked against the headers before any member is
inflated; a compressed tar is inflated with its output capped at MAX_TOTAL_BYTES), then each text's lines
(MAX_LINE_CHARS) and a JSON document's nesting (MAX_JSON_DEPTH) before a parser sees it. Pure Python; never
imports Django.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from compiler.errors import FieldError, InputError, UnsafePathError
from compiler.model import Platform
from compiler.parse import ParseError
from compiler.paths import component_problem, safe_join

MAX_FILES = 20_000  # 1,088 switches x 2 files fit with room
MAX_FILE_BYTES = 16 * 1024 * 1024
# 1,088 switches x ~100 KB of config is ~110 MB; was 2 GiB, which let a 150 KB zip claim 1.5 GB of memory.
MAX_TOTAL_BYTES = 256 * 1024 * 1024
MAX_UPLOAD_BYTES = 64 * 1024 * 1024  # one request's upload as sent (an archive compresses configs ~10x)
# Device config lines are short (EOS/FRR commands, SONiC's indented config_db.json); a 384 kB line cost 34.8 s
# of CPU in the readers' regexes before this bound (issue 29).
MAX_LINE_CHARS = 16 * 1024
MAX_JSON_DEPTH = 32  # config_db.json is 4 deep (table, key, field, list); json.loads recurses per level


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
    _check_text(field, "/".join(parts), text)
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
    upload_size_check("file", name, len(data))
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
    _check_count(name, _zip_declared_count(data))  # before zipfile builds an object per entry
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            _check_sizes(name, [info.file_size for info in infos])
            for info in infos:
                if info.is_dir():
                    continue
                if (info.external_attr >> 16) & 0o170000 not in (0, 0o100000):  # symlinks and devices
                    raise UnsafePathError(FieldError("file", info.filename, "not a regular file"))
                # zipfile stops inflating at the declared file_size and checks the CRC, so a member that lies
                # about its size is an error here, never more memory than was checked above.
                members.append((_parts(info.filename), archive.read(info)))
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, NotImplementedError,
            RuntimeError) as error:  # RuntimeError: an encrypted member; NotImplementedError: unknown compression
        raise ParseError(f"file={name!r}: a corrupt or unsupported zip archive ({type(error).__name__}: "
                         f"{str(error)[:200]})") from None
    return members


_ZIP_END = b"PK\x05\x06"  # end of central directory record (APPNOTE.TXT 4.3.16): 22 bytes + a comment <= 64 KiB


def _zip_declared_count(data: bytes) -> int:
    """The entry count the end record declares (0xFFFF: a ZIP64 archive, which means at least that many)."""
    at = data.rfind(_ZIP_END, max(0, len(data) - 22 - 0xFFFF))
    if at < 0 or len(data) < at + 22:
        return 0  # zipfile reports what is wrong
    return struct.unpack_from("<H", data, at + 10)[0]


def _tar_members(data: bytes, name: str) -> list[tuple[tuple[str, ...], bytes]]:
    """The regular files of a .tar(.gz): (path parts, content)."""
    members: list[tuple[tuple[str, ...], bytes]] = []
    try:
        archive = tarfile.open(fileobj=io.BytesIO(_tar_inflated(data, name)), mode="r:")
    except tarfile.TarError as error:
        raise ParseError(f"file={name!r}: neither a zip nor a tar archive ({error})") from None
    count = total = 0
    try:
        with archive:
            for info in archive:  # headers one by one: the limits hold before a member is read
                count, total = count + 1, total + info.size
                _check_member(name, info.size, count=count, total=total)
                if info.isdir():
                    continue
                extracted = archive.extractfile(info) if info.isfile() else None  # None for links and devices
                if extracted is None:
                    raise UnsafePathError(FieldError("file", info.name, "not a regular file (link or device)"))
                members.append((_parts(info.name), extracted.read()))
    except (tarfile.TarError, EOFError) as error:
        raise ParseError(f"file={name!r}: a corrupt tar archive ({type(error).__name__}: {str(error)[:200]})") from None
    return members


# Compressed tar formats by magic number (RFC 1952 2.3.1; bzip2; the .xz format 2.1.1.1) and their readers.
_COMPRESSED = ((b"\x1f\x8b", gzip.open), (b"BZh", bz2.open), (b"\xfd7zXZ\x00", lzma.open))


def _tar_inflated(data: bytes, name: str) -> bytes:
    """The tar inside ``data``, inflated to at most MAX_TOTAL_BYTES: tarfile would inflate a bomb whole just to
    list it (and read a pax header of any declared size into memory)."""
    for magic, reader in _COMPRESSED:
        if data.startswith(magic):
            try:
                with reader(io.BytesIO(data)) as stream:
                    inflated = stream.read(MAX_TOTAL_BYTES + 1)
            except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as error:
                raise ParseError(f"file={name!r}: a corrupt compressed archive ({type(error).__name__}: "
                                 f"{str(error)[:200]})") from None
            if len(inflated) > MAX_TOTAL_BYTES:
                raise InputError(FieldError("file", name, f"inflates to more than MAX_TOTAL_BYTES={MAX_TOTAL_BYTES} "
                                                          "bytes"))
            return inflated
    return data


def configs_from_uploads(uploads: list[tuple[str, bytes]]) -> dict[str, dict[str, str]]:
    """Several uploaded files, one per device (the device is the file name without its extension)."""
    upload_size_check("files", "files", sum(len(data) for _, data in uploads))
    _check_sizes("files", [len(data) for _, data in uploads], "files")
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


def upload_size_check(field: str, name: str, size: int) -> None:
    """Refuse an upload over MAX_UPLOAD_BYTES as sent; views call it with the upload's size before reading it."""
    if size > MAX_UPLOAD_BYTES:
        raise InputError(FieldError(field, name, f"{size} bytes uploaded; the limit is MAX_UPLOAD_BYTES="
                                                 f"{MAX_UPLOAD_BYTES}"))


def _check_count(name: str, count: int, field: str = "file") -> None:
    if count > MAX_FILES:
        raise InputError(FieldError(field, name, f"{count} files; the limit is MAX_FILES={MAX_FILES}"))


def _check_sizes(name: str, sizes: list[int], field: str = "file") -> None:
    _check_member(name, max(sizes, default=0), count=len(sizes), total=sum(sizes), field=field)


def _check_member(name: str, size: int, *, count: int, total: int, field: str = "file") -> None:
    """``size``: the largest member so far; ``count`` and ``total``: of every member so far."""
    _check_count(name, count, field)
    if size > MAX_FILE_BYTES:
        raise InputError(FieldError(field, name, f"a file of {size} bytes; the limit is MAX_FILE_BYTES="
                                                 f"{MAX_FILE_BYTES}"))
    if total > MAX_TOTAL_BYTES:
        raise InputError(FieldError(field, name, f"{total} bytes in all (inflated); the limit is "
                                                 f"MAX_TOTAL_BYTES={MAX_TOTAL_BYTES}"))


# JSON tokens that matter for nesting: a string (RFC 8259 section 7: no raw line break inside), a bracket, or a
# quote that opens no complete string. Strings are consumed whole, so brackets inside them do not count.
_JSON_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}]|"')


def _check_text(field: str, path: str, text: str) -> None:
    """Line length and JSON nesting, before any reader's regex or json.loads sees the text."""
    lines = text.splitlines()
    if max(map(len, lines), default=0) > MAX_LINE_CHARS:  # the scan in C; the line is found only when over
        number, line = next((number, line) for number, line in enumerate(lines, 1) if len(line) > MAX_LINE_CHARS)
        raise InputError(FieldError(field, path, f"line {number} is {len(line)} characters; the limit is "
                                                 f"MAX_LINE_CHARS={MAX_LINE_CHARS}"))
    if text.lstrip()[:1] in ("{", "["):
        depth = 0
        for token in _JSON_TOKEN.finditer(text):
            if token.group() == '"':
                break  # an unterminated string: json.loads stops there too (one scan, never re-tried: linear)
            if token.group()[0] != '"':
                depth += 1 if token.group() in "[{" else -1
            if depth > MAX_JSON_DEPTH:
                raise InputError(FieldError(field, path, f"JSON nested deeper than MAX_JSON_DEPTH={MAX_JSON_DEPTH} "
                                                         "levels"))
