"""scripts/frr10.sh takes the Debian mirror from the machine's own APT sources (issue #30 point 11): the
repository names no package host, deb822 and one-line sources both work, -security entries are not taken, and a
machine with no Debian source is refused with the variable to set."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "frr10.sh"


def _mirror(etc: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "FT_APT_ETC": str(etc), "FT_FRR10_DIR": str(etc / "frr")}
    return subprocess.run(["bash", str(SCRIPT), "--mirror"], capture_output=True, text=True, env=env, timeout=30)


def test_the_script_names_no_package_host():
    text = SCRIPT.read_text()
    assert not re.search(r"https?://[a-z0-9.-]+\.(org|net|com)", text), "a package host is written into frr10.sh"


def test_deb822_sources_give_the_main_archive_not_security(tmp_path):
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\n# http://snapshot.example/archive/debian/20250520T000000Z\nURIs: http://mirror.test/debian-security\n"
        "Suites: bookworm-security\n\nTypes: deb\nURIs: http://mirror.test/debian/\nSuites: bookworm\n")
    result = _mirror(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "http://mirror.test/debian"


def test_one_line_sources_with_options(tmp_path):
    (tmp_path / "sources.list").write_text(
        "# deb http://commented.test/debian bookworm main\n"
        "deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://local.test/debian bookworm main\n")
    result = _mirror(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "http://local.test/debian"


def test_no_debian_source_is_refused(tmp_path):
    (tmp_path / "sources.list").write_text("deb http://elsewhere.test/ubuntu jammy main\n")
    result = _mirror(tmp_path)
    assert result.returncode == 1
    assert result.stdout.strip() == ""
