"""SONiC's frr.conf through FRR's own ``frr-reload.py --test`` against the config a SONiC switch runs (issue 27 item 4).

In split-unified mode SONiC's docker_init.sh (sonic-net/sonic-buildimage dockers/docker-fpm-frr/docker_init.sh at
086b03bd70f9, write_default_zebra_config) appends ``no fpm use-next-hop-groups`` and ``fpm address 127.0.0.1`` to
/etc/frr/frr.conf: zebra streams routes to fpmsyncd through them. The reload of our rendered frr.conf must delete
nothing SONiC added; a render without the FPM lines must show them in "Lines To Delete".

``--test --input <file>`` compares the new file with a running config read from a file: FRR's parser (``vtysh -m``)
reads both, no daemon runs. FRR 8.4 is the system's, 10.3 the extraction of scripts/frr10.sh (skipped without it).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from render_structured_fixtures import leaf_structured, spine_structured

from compiler.errors import InputError, RenderError
from compiler.render import sonic
from labs import frr_binaries

DOCKER_INIT_APPEND = "no fpm use-next-hop-groups\nfpm address 127.0.0.1\n"  # docker_init.sh, in its order
FPM_LINE = re.compile(r"^(?:no )?fpm ", re.MULTILINE)


def _frr(release: str) -> frr_binaries.FrrBinaries:
    try:
        if release == frr_binaries.EXTRACTED_RELEASE:
            return frr_binaries.extracted_frr()
        return frr_binaries.system_frr()
    except InputError as error:
        pytest.skip(f"FRR {release} is not on this machine: {error}")


def _without_fpm(frr_conf: str) -> str:
    return "".join(line for line in frr_conf.splitlines(keepends=True) if not FPM_LINE.match(line))


def _as_sonic_runs_it(frr_conf: str) -> str:
    """The switch's frr.conf after docker_init.sh: it appends the FPM lines when none starts the way it greps."""
    if re.search(r"^no fpm use-next-hop-groups", frr_conf, re.MULTILINE):
        return frr_conf
    return frr_conf + DOCKER_INIT_APPEND


def _reload_test(release: str, running: str, new: str, tmp_path) -> tuple[list[str], list[str]]:
    """(lines to delete, lines to add) as FRR's frr-reload.py --test prints them."""
    frr = _frr(release)
    (tmp_path / "vtysh.conf").write_text("service integrated-vtysh-config\n")
    (tmp_path / "running.conf").write_text(running)
    (tmp_path / "new.conf").write_text(new)
    result = subprocess.run(
        [frr.frr_reload, "--test", "--bindir", str(Path(frr.vtysh).parent), "--confdir", str(tmp_path),
         "--input", str(tmp_path / "running.conf"), str(tmp_path / "new.conf")],
        capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    sections: dict[str, list[str]] = {"Lines To Delete": [], "Lines To Add": []}
    current = None
    for line in result.stdout.splitlines():
        if line in sections:
            current = line
        elif current and line.strip() and not set(line) <= {"="}:
            sections[current].append(line)
    return sections["Lines To Delete"], sections["Lines To Add"]


CASES = {"leaf": leaf_structured("sonic"), "spine": spine_structured("sonic")}


@pytest.mark.parametrize("release", [frr_binaries.SYSTEM_RELEASE, frr_binaries.EXTRACTED_RELEASE])
@pytest.mark.parametrize("name", sorted(CASES))
def test_reload_of_our_frr_conf_deletes_nothing_sonic_added(name, release, tmp_path):
    ours = sonic.render(CASES[name])["frr.conf"]
    # The switch before our first push: SONiC's own frr.conf for the same routing, with docker_init.sh's lines.
    running = _as_sonic_runs_it(_without_fpm(ours))
    assert running != ours and running.endswith(DOCKER_INIT_APPEND)
    deleted, added = _reload_test(release, running, ours, tmp_path)
    assert deleted == [] and added == []  # the same config to FRR: the FPM lines stay as they are


@pytest.mark.parametrize("release", [frr_binaries.SYSTEM_RELEASE, frr_binaries.EXTRACTED_RELEASE])
def test_a_render_without_the_fpm_lines_is_caught(release, tmp_path):
    """The deliberately broken render: FRR would delete the FPM lines (``no fpm address``) from the running zebra."""
    ours = sonic.render(CASES["leaf"])["frr.conf"]
    broken = _without_fpm(ours)
    deleted, _added = _reload_test(release, _as_sonic_runs_it(ours), broken, tmp_path)
    assert "no fpm address 127.0.0.1" in deleted and "fpm use-next-hop-groups" in deleted


def test_docker_init_appends_nothing_to_our_frr_conf():
    """docker_init.sh greps for ``^no fpm use-next-hop-groups``: our frr.conf has it, so SONiC adds no second copy."""
    ours = sonic.render(CASES["leaf"])["frr.conf"]
    assert _as_sonic_runs_it(ours) == ours
    assert [line for line in ours.splitlines() if FPM_LINE.match(line)] == DOCKER_INIT_APPEND.splitlines()


def test_fpm_lines_of_a_mode_without_our_frr_conf_are_refused():
    assert sonic.fpm_lines("split-unified") == ("no fpm use-next-hop-groups", "fpm address 127.0.0.1")
    with pytest.raises(RenderError, match=r"docker_routing_config_mode='separated': frr.conf is rendered for "
                                          r"\['split-unified'\] only"):
        sonic.fpm_lines("separated")
