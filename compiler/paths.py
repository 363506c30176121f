"""The one place a name becomes part of a filesystem path or an archive member.

:func:`safe_join` resolves ``root / part / ...`` and refuses a result outside ``root`` (after following every
symlink that exists, so a planted ``out/x -> /etc`` link cannot redirect a write). :func:`archive_member` builds
a relative, ``..``-free tar/zip member name. Both refuse a component that is empty, ``.``, ``..``, absolute, or
holds a separator (``/``, ``\\``), NUL or another control character, naming the field and the value.

Names reach here already checked by the grammar (``compiler.names.path_component``); this is the second, purely
structural check, used by compile output (``out/``), containerlab export, Batfish snapshots and archive downloads.
This module never imports Django.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from compiler.errors import FieldError, UnsafePathError


def component_problem(part: object) -> str | None:
    """Why ``part`` cannot be one path component (None when it can)."""
    if not isinstance(part, str):
        return f"must be a string, not {type(part).__name__}"
    if part in ("", ".", ".."):
        return "must not be empty, '.' or '..'"
    if "/" in part or "\\" in part:
        return "must not contain a path separator"
    if not part.isprintable():
        return "must not contain control or invisible characters"
    if part != part.strip():
        return "must not start or end with white space"
    return None


def _check_parts(parts: tuple[object, ...], fields: tuple[str, ...]) -> None:
    errors = []
    for index, part in enumerate(parts):
        problem = component_problem(part)
        if problem:
            field = fields[index] if index < len(fields) else f"path[{index}]"
            errors.append(FieldError(field, part, f"cannot be a path component: {problem}"))
    if errors:
        raise UnsafePathError(errors)


def safe_join(root: Path | str, *parts: str, fields: tuple[str, ...] = ()) -> Path:
    """``root/parts...`` resolved, guaranteed to stay inside ``root`` (symlinks followed). ``fields`` names each
    part for the error (``("intent.name", "hostname", "platform", "file")``)."""
    _check_parts(parts, fields)
    base = Path(root).resolve()
    target = base.joinpath(*parts).resolve()
    if not target.is_relative_to(base):
        raise UnsafePathError(FieldError(fields[-1] if fields else "path", str(PurePosixPath(*parts)),
                                         f"resolves to {target}, outside {base} (a symlink on the way?)"))
    return target


def archive_member(*parts: str, fields: tuple[str, ...] = ()) -> str:
    """A tar/zip member name ``a/b/c``: relative, no ``..``, no absolute part, no separator inside a part."""
    _check_parts(parts, fields)
    return "/".join(parts)
