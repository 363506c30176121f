"""Machine-wide kernel limits (neighbour tables, inotify instances, open files) shared by concurrent twins
(logic only: sysctls faked, no root)."""

import pytest

from compiler.errors import TwinError
from labs import runtime, shell
from labs.runtime import limits


@pytest.fixture
def fake_kernel(tmp_path, monkeypatch):
    sysctls = {key: value for key, value in zip(runtime.NEIGH_GC_KEYS, [128, 512, 1024] * 2, strict=True)}
    sysctls |= {limits.INOTIFY_INSTANCES: 128, limits.FILE_MAX: 2_000_000}
    namespaces: list[str] = []
    monkeypatch.setattr(limits, "SHARED_RUN_DIR", tmp_path)
    monkeypatch.setattr(limits, "read_sysctl", lambda key: sysctls[key])
    monkeypatch.setattr(limits, "write_sysctl", lambda key, value: sysctls.__setitem__(key, value))
    monkeypatch.setattr(limits, "all_namespaces", lambda: list(namespaces))
    return sysctls, namespaces


def test_last_twin_down_restores_the_originals(fake_kernel):
    sysctls, namespaces = fake_kernel
    runtime.raise_neighbour_limits("fta", interfaces=10)
    namespaces += ["fta-leaf1"]
    raised = dict(sysctls)
    assert raised["net.ipv4.neigh.default.gc_thresh3"] == 65536 and raised["net.ipv6.neigh.default.gc_thresh1"] > 128
    runtime.raise_neighbour_limits("ftb", interfaces=10)
    namespaces += ["ftb-leaf1"]
    # first twin down: the other still needs the raised limits
    namespaces.remove("fta-leaf1")
    runtime.release_neighbour_limits("fta")
    assert sysctls == raised and runtime.neighbour_limits_record()["holders"] == ["ftb"]
    namespaces.remove("ftb-leaf1")
    runtime.release_neighbour_limits("ftb")
    assert sysctls["net.ipv4.neigh.default.gc_thresh3"] == 1024 and runtime.neighbour_limits_record() is None


def test_crashed_holder_does_not_pin_the_limits_forever(fake_kernel):
    sysctls, namespaces = fake_kernel
    runtime.raise_neighbour_limits("ftcrash", interfaces=10)  # crashed: its namespaces are gone
    runtime.raise_neighbour_limits("ftlive", interfaces=10)
    namespaces += ["ftlive-spine1"]
    namespaces.remove("ftlive-spine1")
    runtime.release_neighbour_limits("ftlive")
    assert sysctls["net.ipv6.neigh.default.gc_thresh3"] == 1024


def test_big_twin_raises_beyond_the_default(fake_kernel):
    sysctls, _ = fake_kernel
    runtime.raise_neighbour_limits("ftbig", interfaces=20000)
    assert sysctls["net.ipv4.neigh.default.gc_thresh3"] == 160000


def test_inotify_instances_grow_with_every_running_twin_and_shrink_back(fake_kernel):
    # zebra takes one inotify instance per switch, all as user frr: the default 128 stopped switch 129 (issue 19).
    sysctls, namespaces = fake_kernel
    runtime.raise_neighbour_limits("ftbig", interfaces=10, switches=256)
    namespaces += ["ftbig-leaf1"]
    assert sysctls[limits.INOTIFY_INSTANCES] == 128 + 2 * 256
    runtime.raise_neighbour_limits("ftsmall", interfaces=10, switches=6)
    namespaces += ["ftsmall-leaf1"]
    assert sysctls[limits.INOTIFY_INSTANCES] == 128 + 2 * 256 + 2 * 6
    assert sysctls[limits.FILE_MAX] == 2_000_000  # already above 256 switches x 3 daemons x 1024
    namespaces.remove("ftbig-leaf1")
    runtime.release_neighbour_limits("ftbig")
    assert sysctls[limits.INOTIFY_INSTANCES] == 128 + 2 * 6
    namespaces.remove("ftsmall-leaf1")
    runtime.release_neighbour_limits("ftsmall")
    assert sysctls[limits.INOTIFY_INSTANCES] == 128 and runtime.neighbour_limits_record() is None


def test_a_limit_that_cannot_be_raised_is_named(fake_kernel, monkeypatch):
    sysctls, _ = fake_kernel

    def read_only(key, value):
        if key == limits.INOTIFY_INSTANCES:
            raise PermissionError("Read-only file system")
        sysctls[key] = value

    monkeypatch.setattr(limits, "write_sysctl", read_only)
    with pytest.raises(TwinError, match=r"fs\.inotify\.max_user_instances is 128 but the running twins need 640.*"
                       r"sysctl -w fs\.inotify\.max_user_instances=640"):
        runtime.raise_neighbour_limits("ftro", interfaces=10, switches=256)
    # the failed boot's teardown restores what was raised before the failure
    runtime.release_neighbour_limits("ftro")
    assert sysctls["net.ipv4.neigh.default.gc_thresh3"] == 1024 and runtime.neighbour_limits_record() is None


def test_prerequisites_name_what_is_missing(monkeypatch):
    monkeypatch.setattr(shell.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(shell.shutil, "which", lambda tool: None if tool == "vtysh" else f"/usr/bin/{tool}")
    reasons = shell.twin_prerequisites()
    assert any("needs root" in reason for reason in reasons)
    assert "'vtysh' not on PATH" in reasons
