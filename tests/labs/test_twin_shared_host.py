"""Two installations on one host (issue #12 point 7): twins of the same intent from two checkouts, a twin that
failed to start, and ``down --force`` next to namespaces and processes that look like ours but are not.

Needs root, FRR and ``ip netns`` (marked ``twin``). Every foreign object a test creates is removed in its
``finally``; the module checks that the host's namespace list is the same before and after.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from twin_sample_fabric import sample_fabric

from compiler.errors import TwinError
from labs import checks, ownership, runtime
from labs.shell import FRR_BIN_DIR
from labs.topology import TwinTopology, new_prefix
from twins.services import twin_prefix_for
from validators.findings import Report

pytestmark = [pytest.mark.twin, pytest.mark.usefixtures("twin_required")]

# Two clones' installation ids: random per run, so concurrent runs of this module on one host never share one.
FIRST = ownership.new_installation_id()
SECOND = next(i for i in iter(ownership.new_installation_id, None) if i != FIRST)
INTENT = SimpleNamespace(name="demo")  # twin_prefix_for only reads the intent's name


RANDOM_PREFIXES: list[str] = []  # the module's own twins with random prefixes (checked for leftovers at the end)


def _random_prefix() -> str:
    RANDOM_PREFIXES.append("ftsh" + new_prefix()[2:])
    return RANDOM_PREFIXES[-1]


def _namespaces() -> set[str]:
    return set(runtime.all_namespaces())


def _alive(pid: int) -> bool:
    return runtime.process_alive(pid)


@pytest.fixture(scope="module", autouse=True)
def no_namespace_left_behind():
    before = _namespaces()
    yield
    mine = {ns for ns in _namespaces() - before if ns.startswith((f"tw{FIRST}", f"tw{SECOND}", *RANDOM_PREFIXES))}
    assert not mine, f"namespaces left behind: {sorted(mine)}"
    print(f"\nnamespaces on the host before/after this module: {len(before)}/{len(_namespaces())}")


@pytest.fixture(scope="module")
def first_twin(tmp_path_factory):
    """Clone 1's twin of intent 'demo', running while clone 2 does things beside it."""
    state_dir = tmp_path_factory.mktemp("clone1")
    prefix = twin_prefix_for(fabric_intent=INTENT, engine="netns", installation=FIRST)
    state = runtime.up(sample_fabric(prefix, spines=1, leaves=2), state_dir, installation=FIRST)
    try:
        yield state
    finally:
        if runtime.TwinState.load(state.prefix, state_dir) is not None:
            runtime.down(state.prefix, state_dir, force=True, installation=FIRST)


def _assert_intact(state) -> None:
    health = runtime.status(state.prefix, state.state_dir, installation=state.installation)
    assert health["healthy"], health
    report = Report()
    checks.check_bgp_sessions(state, report, timeout_s=30)
    assert report.ok, report.as_text()


def test_two_clones_of_the_same_intent_get_different_names_and_do_not_harm_each_other(first_twin, tmp_path):
    second_prefix = twin_prefix_for(fabric_intent=INTENT, engine="netns", installation=SECOND)
    assert second_prefix != first_twin.prefix
    assert first_twin.prefix.startswith(f"tw{FIRST}") and second_prefix.startswith(f"tw{SECOND}")
    assert first_twin.prefix[-6:] == second_prefix[-6:]  # same intent hash, told apart by the installation
    second = runtime.up(sample_fabric(second_prefix, spines=1, leaves=2), tmp_path, installation=SECOND)
    try:
        assert all(ownership.owner(ns)["installation"] == SECOND for ns in second.namespaces)
        assert all(ownership.owner(ns)["netns_inode"] == ownership.netns_inode(ns) for ns in second.namespaces)
        assert all(ns.startswith(f"tw{SECOND}") for ns in second.namespaces)
        _assert_intact(first_twin)
    finally:
        # what the old `twin down` escalated to: force
        summary = runtime.down(second_prefix, tmp_path, force=True, installation=SECOND)
    assert summary["namespaces_removed"] == len(second.namespaces)
    assert not {ns for ns in _namespaces() if ns.startswith(second_prefix)}
    _assert_intact(first_twin)


def test_failed_start_then_down_leaves_the_other_installation_alone(first_twin, tmp_path):
    """Clone 2 boots the same intent under the *same* prefix as clone 1 (what the old intent-name hash did): it
    is refused without advice to remove anything, and its `down --force` then removes nothing of clone 1."""
    with pytest.raises(TwinError) as error:
        runtime.up(sample_fabric(first_twin.prefix, spines=1, leaves=2), tmp_path, installation=SECOND)
    message = str(error.value)
    assert f"installation {FIRST}" in message and "left alone" in message
    assert "force" not in message and "down(" not in message
    assert not (tmp_path / f"{first_twin.prefix}.json").exists()  # nothing half-saved
    summary = runtime.down(first_twin.prefix, tmp_path, force=True, installation=SECOND)
    assert summary["namespaces_removed"] == 0 and summary["processes_stopped"] == 0
    assert runtime.status(first_twin.prefix, tmp_path, installation=SECOND)["orphan_namespaces"] == []
    _assert_intact(first_twin)

    # A start that fails mid-boot under clone 2's own prefix, then `twin down`: clone 1 is untouched.
    broken = sample_fabric(twin_prefix_for(fabric_intent=INTENT, engine="netns", installation=SECOND),
                           spines=1, leaves=2)
    broken.nodes_by_name["leaf1"].linux_plan["bridges"][0]["vxlan"]["local"] = "10.0.4.999"
    with pytest.raises(TwinError, match="10.0.4.999"):
        runtime.up(broken, tmp_path, installation=SECOND)
    runtime.down(broken.name_prefix, tmp_path, force=True, installation=SECOND)
    assert not {ns for ns in _namespaces() if ns.startswith(broken.name_prefix)}
    _assert_intact(first_twin)


def _fake_frr_daemon(pathspace: str) -> subprocess.Popen:
    """A process whose command line looks exactly like one of our FRR daemons (argv[0] under FRR_BIN_DIR, -N
    <pathspace>) but that belongs to nobody we know."""
    return subprocess.Popen(["bash", "-c", f'exec -a {FRR_BIN_DIR}/zebra "$0" -c "import time; time.sleep(600)" '
                                           f'-N {pathspace}', sys.executable], start_new_session=True)


def test_down_force_never_touches_lookalike_namespaces_or_processes(tmp_path):
    """Our twin runs; beside it namespaces named ``<our prefix>-…`` that another installation marked (or nobody
    marked), a process inside one and a fake FRR daemon of that pathspace. ``down --force`` removes exactly ours."""
    prefix = _random_prefix()
    ours = runtime.up(sample_fabric(prefix, spines=1, leaves=2), tmp_path, installation=FIRST)
    foreign_marked, foreign_unmarked = f"{prefix}-ghost", f"{prefix}-leaf9"
    processes: list[subprocess.Popen] = []
    try:
        ownership.claim([foreign_marked], installation=SECOND, prefix=prefix, state_file="/elsewhere/ghost.json")
        for name in (foreign_marked, foreign_unmarked):
            runtime.run(["ip", "netns", "add", name])
        processes.append(subprocess.Popen(["ip", "netns", "exec", foreign_marked, "sleep", "600"],
                                          start_new_session=True))
        processes.append(_fake_frr_daemon(foreign_marked))
        processes.append(_fake_frr_daemon(foreign_unmarked))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not runtime.frr_daemons_in({foreign_marked, foreign_unmarked}):
            time.sleep(0.05)
        assert len(runtime.frr_daemons_in({foreign_marked, foreign_unmarked})) == 2  # they do look like ours

        summary = runtime.down(prefix, tmp_path, force=True, installation=FIRST)

        left = _namespaces()
        assert {foreign_marked, foreign_unmarked} <= left
        assert not {ns for ns in ours.namespaces if ns in left}
        assert summary["left_alone"] == [] or set(summary["left_alone"]) <= {foreign_marked, foreign_unmarked}
        assert all(_alive(process.pid) for process in processes), "a foreign process was killed"
        assert ownership.owner(foreign_marked)["installation"] == SECOND
        assert not ownership.marked(prefix, FIRST)  # our markers are gone with our namespaces
        assert not ours.state_file.exists()
        # and `up` next to them is refused without advice to remove them
        with pytest.raises(TwinError) as error:
            runtime.up(sample_fabric(prefix, spines=1, leaves=2), tmp_path, installation=FIRST)
        assert "not owned by this installation" in str(error.value) and "force" not in str(error.value)
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        for name in (foreign_marked, foreign_unmarked):
            runtime.run(["ip", "netns", "del", name], check=False)
        ownership.marker_path(foreign_marked).unlink(missing_ok=True)
        if runtime.TwinState.load(prefix, tmp_path) is not None:
            runtime.down(prefix, tmp_path, force=True, installation=FIRST)


def test_down_force_after_lost_state_file_finds_leftovers_by_marker_not_by_name(tmp_path):
    """A crash lost the state file: force removes what this installation's markers record for the prefix."""
    prefix = _random_prefix()
    state = runtime.up(TwinTopology(prefix, sample_fabric(prefix, spines=1, leaves=2).nodes[:1]), tmp_path,
                       installation=FIRST)
    pids = [pid for daemons in state.pids.values() for pid in daemons.values()]
    state.state_file.unlink()
    assert runtime.status(prefix, tmp_path, installation=FIRST)["orphan_namespaces"] == sorted(state.namespaces)
    assert runtime.status(prefix, tmp_path, installation=SECOND)["foreign_namespaces"] == sorted(state.namespaces)
    runtime.down(prefix, tmp_path, force=True, installation=SECOND)  # not SECOND's: nothing happens
    assert set(state.namespaces) <= _namespaces() and all(_alive(pid) for pid in pids)
    runtime.down(prefix, tmp_path, force=True, installation=FIRST)
    assert not set(state.namespaces) & _namespaces()
    assert not any(_alive(pid) for pid in pids)
    assert not list(Path("/etc/frr").glob(f"{prefix}-*")) and not ownership.marked(prefix, FIRST)
