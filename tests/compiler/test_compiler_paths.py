"""compiler.paths: names never leave their directory (absolute, "..", symlink and Unicode cases)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compiler.errors import UnsafePathError
from compiler.paths import archive_member, component_problem, safe_join

ESCAPING = ["..", ".", "", "../x", "/etc", "/", "a/b", "a\\b", "x\x00", "x\n", "\u2028", " x", "x "]
FINE = ["leaf1", "startup-config", "frr.conf", "Zürich", "日本", "a..b", "..x", "x.."]


@pytest.mark.parametrize("part", ESCAPING, ids=repr)
def test_unsafe_components_are_refused_naming_field_and_value(tmp_path, part):
    assert component_problem(part)
    with pytest.raises(UnsafePathError) as caught:
        safe_join(tmp_path, "intent", part, fields=("intent.name", "hostname"))
    assert caught.value.errors[0].field == "hostname" and caught.value.errors[0].value == part
    with pytest.raises(UnsafePathError):
        archive_member("intent", part, "eos", "startup-config")


@pytest.mark.parametrize("part", FINE, ids=repr)
def test_plain_and_unicode_components_stay_inside(tmp_path, part):
    path = safe_join(tmp_path, "intent", part)
    assert path == tmp_path.resolve() / "intent" / part
    assert archive_member("intent", part) == f"intent/{part}"


def test_symlink_out_of_the_root_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "out"
    root.mkdir()
    (root / "intent").symlink_to(outside)
    with pytest.raises(UnsafePathError, match="outside"):
        safe_join(root, "intent", "leaf1", fields=("intent.name", "hostname"))


def test_symlink_inside_the_root_is_fine(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    assert safe_join(tmp_path, "alias", "leaf1") == (tmp_path / "real" / "leaf1").resolve()


def test_root_itself_may_be_a_symlink(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "real")
    assert safe_join(tmp_path / "out", "x").parent == (tmp_path / "real").resolve()


def test_deliberately_broken_join_escapes(tmp_path):
    """What safe_join prevents: pathlib alone lets an absolute or ".." name leave the root."""
    assert not (Path(tmp_path) / "/etc").is_relative_to(tmp_path)
    assert not os.path.normpath(Path(tmp_path) / "intent" / "../../x").startswith(str(tmp_path))
