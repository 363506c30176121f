"""labs.runtime's public API (the package's one entry point) and the helpers the twin change driver is built on,
without booting a twin: names, FRR file writes, stopping and recording daemons by PID."""

import os
import stat
import subprocess
import sys
import time

import pytest

import labs.runtime
from changes.drivers.twin import TwinDriver
from compiler.errors import DriverError, TwinError
from labs import runtime
from labs.runtime import frr_files

# Every labs.runtime name used outside the package (callers, the twin driver, tests, bench): they keep working.
USED_OUTSIDE = (
    "up", "status", "down", "owned_state", "default_state_dir", "TwinState", "vtep_of", "run",
    "choose_vrf_backend", "plan_vrfs", "vrf_netns_name", "add_netns_vrf", "remove_netns_vrf", "LinuxBatches",
    "vxlan_add_command", "twin_frr_conf", "strip_twin_lines", "ZEBRA_NHG_WORKAROUND", "VRF_VIEWS_DIR",
    "NEIGH_GC_KEYS", "neighbour_limits_record", "remove_frr_crash_dirs", "daemons_for", "start_daemon",
    "node_namespace", "apply_plan_delta", "device_locations", "reload_frr_config", "write_frr_file", "vtysh_load",
    "restart_daemons", "record_daemon_pids", "stop_daemon", "ETC_FRR", "RUN_FRR",
)


def test_the_package_exports_every_name_used_outside_it():
    missing = [name for name in USED_OUTSIDE if not hasattr(labs.runtime, name)]
    assert missing == []
    assert sorted(set(labs.runtime.__all__) - set(dir(labs.runtime))) == []  # __all__ names nothing that is not there


def test_node_namespace_accepts_plain_names_and_refuses_the_rest():
    assert runtime.node_namespace("ftx1", "leaf1") == "ftx1-leaf1"
    for prefix, node in (("FT", "leaf1"), ("ftx1", "../etc"), ("ftx1", "leaf1\n"), ("ftx1", ""), (None, "leaf1")):
        with pytest.raises(TwinError, match="not plain names"):
            runtime.node_namespace(prefix, node)
    with pytest.raises(DriverError, match="not plain names"):
        TwinDriver("ftx1", "leaf1/../../x")
    assert TwinDriver("ftx1", "leaf1").netns == "ftx1-leaf1"


def test_write_frr_file_replaces_atomically_with_mode_0640(tmp_path, monkeypatch):
    monkeypatch.setattr(frr_files, "ETC_FRR", tmp_path)
    (tmp_path / "ftx1-leaf1").mkdir()
    path = runtime.write_frr_file("ftx1-leaf1", "frr.conf", "hostname leaf1\n")
    path = runtime.write_frr_file("ftx1-leaf1", "frr.conf", "hostname leaf2\n")
    assert path == tmp_path / "ftx1-leaf1" / "frr.conf" and path.read_text() == "hostname leaf2\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == ["frr.conf"]  # no temporary file left behind
    with pytest.raises(FileNotFoundError):
        runtime.write_frr_file("ftx1-leaf9", "frr.conf", "x\n")  # no pathspace directory: nothing is created


def _sleeper(*argv: str) -> subprocess.Popen:
    """A process whose command line carries ``argv`` (as an FRR daemon's carries ``-N <pathspace>``)."""
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", *argv])


def test_stop_daemon_stops_only_the_pathspaces_daemon():
    ours, other, unrelated = _sleeper("-N", "ftx1-leaf1"), _sleeper("-N", "ftx1-leaf10"), _sleeper()
    try:
        time.sleep(0.2)  # the interpreter has replaced the fork: /proc/<pid>/cmdline is final
        runtime.stop_daemon(other.pid, "ftx1-leaf1", grace_s=1)  # another pathspace's daemon: left alone
        runtime.stop_daemon(unrelated.pid, "ftx1-leaf1", grace_s=1)  # not a daemon at all (a reused PID)
        runtime.stop_daemon(None, "ftx1-leaf1")  # nothing recorded
        assert other.poll() is None and unrelated.poll() is None
        runtime.stop_daemon(ours.pid, "ftx1-leaf1", grace_s=1)
        assert ours.wait(timeout=5) == -15  # SIGTERM was enough
    finally:
        for process in (ours, other, unrelated):
            process.kill()
            process.wait()
    assert not runtime.process_alive(ours.pid)


def _state(tmp_path) -> runtime.TwinState:
    return runtime.TwinState(prefix="ftx1", label="", digest="", state_dir=str(tmp_path), status="up", created_at=0.0,
                             node_netns={"leaf1": "ftx1-leaf1"}, host_netns={}, frr_dirs=[],
                             pids={"leaf1": {"zebra": 11, "bgpd": 12, "bfdd": 13}})


def test_record_daemon_pids_merges_into_the_state_file_as_it_is_now(tmp_path):
    stale = _state(tmp_path)
    stale.save()
    current = runtime.TwinState.load("ftx1", tmp_path)
    current.config_errors["leaf1"] = "written meanwhile"
    current.save()
    runtime.record_daemon_pids(stale, "leaf1", {"zebra": 21, "bgpd": 22})
    recorded = runtime.TwinState.load("ftx1", tmp_path)
    assert recorded.pids["leaf1"] == {"zebra": 21, "bgpd": 22, "bfdd": 13}  # bfdd was not restarted: kept
    assert recorded.config_errors == {"leaf1": "written meanwhile"}  # the file as it is now, not the stale copy
    assert stale.log_dir == tmp_path / "ftx1" / "logs"
    assert os.path.exists(stale.state_file)
