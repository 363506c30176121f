"""FRR log-buffer directories of dead daemons are removed; a live process's directory is never touched."""

import os
import subprocess

from labs import runtime
from labs.runtime import daemons


def test_only_dead_daemons_directories_are_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(daemons, "FRR_CRASH_DIR", tmp_path)
    # Keep the Popen: a discarded one polls (and reaps) its child when collected, racing an explicit waitpid.
    finished = subprocess.Popen(["true"])
    finished.wait()
    dead_pid = finished.pid
    live = tmp_path / f"bgpd.{os.getpid()}"
    dead = tmp_path / f"bgpd.{dead_pid}"
    unrelated = tmp_path / "notes"
    for directory in (live, dead, unrelated):
        directory.mkdir()
    assert runtime.remove_frr_crash_dirs({os.getpid()}) == 0  # alive: kept even when named
    assert runtime.remove_frr_crash_dirs() == 1
    assert live.exists() and unrelated.exists() and not dead.exists()
