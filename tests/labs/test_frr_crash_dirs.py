"""FRR log-buffer directories of dead daemons are removed; a live process's directory is never touched."""

import os
import subprocess

from labs import runtime


def test_only_dead_daemons_directories_are_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(runtime, "FRR_CRASH_DIR", tmp_path)
    dead_pid = subprocess.Popen(["true"]).pid
    os.waitpid(dead_pid, 0)
    live = tmp_path / f"bgpd.{os.getpid()}"
    dead = tmp_path / f"bgpd.{dead_pid}"
    unrelated = tmp_path / "notes"
    for directory in (live, dead, unrelated):
        directory.mkdir()
    assert runtime.remove_frr_crash_dirs({os.getpid()}) == 0  # alive: kept even when named
    assert runtime.remove_frr_crash_dirs() == 1
    assert live.exists() and unrelated.exists() and not dead.exists()
