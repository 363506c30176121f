"""The twin's processes: starting a switch's FRR daemons, stopping and restarting them by recorded PID, finding
the processes that belong to the twin, and FRR's leftover crash directories.

Processes are stopped by recorded PID (checked against their ``-N <pathspace>`` command line) and by
``ip netns pids`` of the twin's own namespaces, never by process name: other twins run the same binaries.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import time
from pathlib import Path

from compiler.errors import TwinError

from ..frr_binaries import active_frr, frr_daemon_dirs
from ..shell import ns_enter_args, run
from ..topology import TwinNode, TwinTopology
from .frr_files import RUN_FRR
from .sizing import SizePolicy, policy_frr_conf
from .state import TwinState
from .vrf import VRF_VIEWS_DIR, add_vrf_view

# [ \t]*, not \s*: under MULTILINE "^\s*" re-scans every following blank line (quadratic; tests/test_regex_budget.py).
BFD_CONFIGURED = re.compile(r"^[ \t]*(neighbor \S+ bfd|bfd)\b", re.MULTILINE)
# An IGP underlay of a parsed foreign config (compiler.render.igp prints `router ospf` / `router isis`): the twin
# runs the daemon FRR has for it (FRR user guide, "OSPFv2" / "IS-IS"), so adjacencies form live.
IGP_DAEMONS = ((re.compile(r"^router ospf\b", re.MULTILINE), "ospfd"),
               (re.compile(r"^router isis\b", re.MULTILINE), "isisd"))
# Memory per switch (measured on the 2x4 reference twin, zebra + bgpd + bfdd after convergence):
# - FRR sizes each event loop's poll and task arrays by the fd limit (here ``ulimit -n`` = 20000); a twin
#   daemon has a few dozen sockets, so 1024 is plenty and saves ~3 MiB per switch (zebra 2.8, bfdd 0.5).
# - glibc gives every daemon thread its own malloc arena; bgpd runs 4 threads. One arena saves ~1.4 MiB per
#   bgpd at no cost a twin notices. Together: 34 -> 30 MiB per switch.
DAEMON_FD_LIMIT = 1024
DAEMON_ENV = ("MALLOC_ARENA_MAX=1",)
# Runs a switch's daemons, one after the other (each daemonizes once it is ready, ``-d``), with the switch's
# hostname and, for netns VRFs, its own view of /run/netns. zebra's netns VRF backend treats every entry of
# /run/netns as a VRF named after the entry, so a switch's daemons must see exactly that switch's VRFs under their
# VRF names, not the hundreds of other twin namespaces on the host. The view is a host directory
# (VRF_VIEWS_DIR/<pathspace>/<VRF> bind-mounted to the VRF's namespace); only such a switch's daemons get a mount
# namespace of their own (``unshare --mount``, a slave of the host's, so nothing leaks out), in which the host's
# /run/netns is detached (so the host's later ``ip netns add``/``del`` no longer propagate into it) and the view
# bind-mounted there instead. The views root is a shared mount, so a VRF added later on the host (a change that
# adds a tenant) appears in the running daemon's view and zebra picks it up through inotify. Every other switch's
# daemons share the host's mount namespace (``labs.shell.ns_enter_args``: network namespace only).
# Each daemon's own stdout/stderr go to a file beside its log: FRR 10 keeps them open after ``-d`` until its
# configuration has been loaded, so a captured pipe would block the start for good.
# Arguments: hostname, [view directory], "--", then per daemon its stdio file, its argv and "::"; every value is
# an argument, no shell string is built.
DAEMON_WRAPPER = r"""set -e
hostname "$1"; shift
if [ "$1" != "--" ]; then umount -l /run/netns 2>/dev/null || true; mount --rbind "$1" /run/netns; shift; fi
shift
command=()
for arg in "$@"; do
  if [ "$arg" = "::" ]; then
    stdio=${command[0]}; "${command[@]:1}" </dev/null >>"$stdio" 2>&1; command=()
  else command+=("$arg"); fi
done
"""
# A lone daemon start (restart, single daemon); a boot uses its size policy's ``start_timeout_s``, which grows
# with the start wave and the fabric (labs.runtime.sizing).
MIN_START_TIMEOUT_S = 30.0
RESTARTED_DAEMONS = ("bgpd", "zebra")  # stop order of a restart; bfdd (and FRR 10's mgmtd) keep running
FRR_CRASH_DIR = Path("/var/tmp/frr")  # each FRR daemon keeps a log buffer in <dir>/<daemon>.<pid>/


def daemons_for(frr_conf: str, netns_vrfs: bool) -> list[tuple[str, list[str]]]:
    """(daemon, extra arguments) in start order. The network-namespace VRF backend: FRR 8.4 is told so with
    zebra's ``-n``; FRR 10 starts with mgmtd (``FrrBinaries.needs_mgmtd``), and every daemon gets the library
    option ``-w``: a zebra started alone in that mode expects the "<vrf>:<ifname>" interface keys of the
    netns backend from mgmtd and aborts on the first ``interface`` stanza (measured: lib/if.c
    netns_ifname_split assertion)."""
    if active_frr().needs_mgmtd:
        common = ["-w"] if netns_vrfs else []
        daemons = [("mgmtd", common), ("zebra", ["-s", "16777216", *common]), ("bgpd", common)]
    else:
        common = []
        daemons = [("zebra", ["-s", "16777216", *(["-n"] if netns_vrfs else [])]), ("bgpd", [])]
    if BFD_CONFIGURED.search(frr_conf):
        daemons.append(("bfdd", common))  # BFD is configured: run it, so the twin tests what the config says
    daemons += [(daemon, common) for pattern, daemon in IGP_DAEMONS if pattern.search(frr_conf)]
    return daemons


def start_daemon(pathspace: str, hostname: str, daemon: str, extra: list[str], log_dir: Path,
                 vrf_view: bool, timeout_s: float = MIN_START_TIMEOUT_S) -> int:
    """Start one FRR daemon of a switch in its namespace and pathspace; returns its PID (``start_daemons``)."""
    return start_daemons(pathspace, hostname, [(daemon, extra)], log_dir, vrf_view, timeout_s=timeout_s)[daemon]


def start_daemons(pathspace: str, hostname: str, daemons: list[tuple[str, list[str]]], log_dir: Path,
                  vrf_view: bool, timeout_s: float = MIN_START_TIMEOUT_S) -> dict[str, int]:
    """Start a switch's FRR daemons (in order) in its namespace and pathspace with one wrapper process; returns
    daemon -> PID.

    They run under ``unshare --uts`` with the switch's hostname: in a shared UTS namespace FRR 8.4 ignores
    ``hostname`` from frr.conf (docs/twin-notes.md). ``-P 0``: no TCP vty port (dozens of twins share the host).
    ``vrf_view``: the daemons see the switch's netns VRFs as their /run/netns (``DAEMON_WRAPPER``). The binaries
    are those of the active FRR (``labs.frr_binaries.active_frr``)."""
    frr = active_frr()
    pid_files = {daemon: RUN_FRR / pathspace / f"{daemon}.pid" for daemon, _ in daemons}
    for pid_file in pid_files.values():
        with contextlib.suppress(FileNotFoundError):
            pid_file.unlink()
    stdio = {daemon: log_dir / f"{hostname}.{daemon}.stdio" for daemon, _ in daemons}
    commands: list[str] = []
    for daemon, extra in daemons:
        commands += [str(stdio[daemon]), frr.daemon(daemon), "-N", pathspace, "-d", "-F", "datacenter", "-P", "0",
                     "--limit-fds", str(DAEMON_FD_LIMIT), *extra, "--log", f"file:{log_dir}/{hostname}.{daemon}.log",
                     "::"]
    view = [str(VRF_VIEWS_DIR / pathspace)] if vrf_view else []
    unshare = ["unshare", "--uts", *(["--mount", "--propagation", "slave"] if vrf_view else [])]
    try:
        run([*ns_enter_args(pathspace), "env", *DAEMON_ENV, *unshare, "bash", "-c", DAEMON_WRAPPER, "bash",
             hostname, *view, "--", *commands], timeout=timeout_s)
        return {daemon: _read_pid(pid_file) for daemon, pid_file in pid_files.items()}
    except TwinError as exc:
        raise TwinError(f"{exc}{_printed(stdio)}") from exc


def _printed(stdio: dict[str, Path]) -> str:
    """What the daemons printed to their stdio files (the tail of each), for a start error."""
    printed = []
    for daemon, path in stdio.items():
        text = path.read_text(errors="replace").strip()[-500:] if path.exists() else ""
        if text:
            printed.append(f"{daemon} printed: {text}")
    return f"; {'; '.join(printed)}" if printed else ""


def start_frr(topology: TwinTopology, node: TwinNode, log_dir: Path, vrf_netns: dict[str, str],
              policy: SizePolicy | None = None, timeout_s: float = MIN_START_TIMEOUT_S) -> tuple[dict[str, int], str]:
    """Start the node's daemons (``daemons_for``), then load frr.conf with ``vtysh -b``. With netns VRFs
    (``vrf_netns``: VRF name -> namespace) the switch's VRF view is built first. Under the size ``policy`` the
    daemons are those of the config the twin runs (no bfdd when the policy turned BFD off). ``timeout_s``
    bounds the start and the config load each (``SizePolicy.start_timeout_s``)."""
    pathspace = topology.netns(node.name)
    for vrf, namespace in sorted(vrf_netns.items()):
        add_vrf_view(pathspace, vrf, namespace)
    daemons = daemons_for(policy_frr_conf(node.frr_conf, policy), bool(vrf_netns))
    pids = start_daemons(pathspace, node.name, daemons, log_dir, bool(vrf_netns), timeout_s=timeout_s)
    loaded = run([active_frr().vtysh, "-N", pathspace, "-b"], check=False, timeout=max(120.0, timeout_s))
    config_error = ""
    if loaded.returncode != 0:
        config_error = (loaded.stdout + loaded.stderr).strip()[-2000:] or f"vtysh -b rc={loaded.returncode}"
    return pids, config_error


def restart_daemons(state: TwinState, node_name: str) -> dict[str, int]:
    """Stop a switch's zebra and bgpd by recorded PID and start them again exactly as at boot (arguments, memory
    settings, VRF view); bfdd keeps running. Returns the new PIDs: the caller loads the config into them and
    then records them (``record_daemon_pids``)."""
    pathspace = state.node_netns[node_name]
    recorded = state.pids.get(node_name, {})
    for daemon in RESTARTED_DAEMONS:
        stop_daemon(recorded.get(daemon), pathspace)
    netns_vrfs = bool(state.vrf_netns.get(node_name))
    restarted = [(daemon, extra) for daemon, extra in daemons_for("", netns_vrfs)
                 if daemon in RESTARTED_DAEMONS]  # mgmtd keeps running, like bfdd
    try:
        return start_daemons(pathspace, node_name, restarted, state.log_dir, netns_vrfs)
    except TwinError as exc:
        raise TwinError(f"{', '.join(RESTARTED_DAEMONS)} of {node_name} did not restart: {exc}") from exc


def record_daemon_pids(state: TwinState, node_name: str, pids: dict[str, int]) -> None:
    """Merge a switch's new daemon PIDs into the state file as it is now (daemons not restarted keep theirs)."""
    fresh = TwinState.load(state.prefix, state.state_dir) or state
    fresh.pids[node_name] = {**fresh.pids.get(node_name, {}), **pids}
    fresh.save()


def stop_daemon(pid: int | None, pathspace: str, grace_s: float = 5.0) -> None:
    """Stop one recorded daemon: SIGTERM, SIGKILL after ``grace_s`` (never by name: other twins run the same
    binaries; a PID that is no longer this pathspace's daemon is left alone)."""
    if not pid or not is_our_daemon(pid, pathspace):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and is_our_daemon(pid, pathspace):
        time.sleep(0.05)
    if is_our_daemon(pid, pathspace):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _read_pid(path: Path, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(FileNotFoundError, ValueError):
            return int(path.read_text().strip())
        time.sleep(0.02)
    raise TwinError(f"{path} did not appear within {timeout}s: the daemon did not start (see the twin's logs)")


def terminate(pids: set[int], grace_s: float = 3.0) -> None:
    """SIGTERM, then SIGKILL after ``grace_s``, and wait until they are gone (or zombies)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(process_alive(pid) for pid in pids):
        time.sleep(0.05)
    for pid in pids:
        if process_alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(process_alive(pid) for pid in pids):
        time.sleep(0.05)


def process_alive(pid: int) -> bool:
    """True while the process exists and is not a zombie (a zombie no longer holds sockets or memory)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def is_our_daemon(pid: int, pathspace: str) -> bool:
    """The PID is alive and really is an FRR daemon of this pathspace (PIDs get reused)."""
    if not pathspace or not process_alive(pid):
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return any(argv[i] == b"-N" and argv[i + 1] == pathspace.encode() for i in range(len(argv) - 1))


def frr_daemons_in(pathspaces: set[str]) -> set[int]:
    """FRR daemons (binaries under ``frr_daemon_dirs``: the system's or the extracted FRR's) whose ``-N`` pathspace is exactly one of ``pathspaces`` (the
    twin's owned namespaces): never a name pattern, so another installation's daemons never match."""
    wanted = {name.encode() for name in pathspaces}
    dirs = tuple(f"{directory}/".encode() for directory in frr_daemon_dirs())
    found = set()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].startswith(dirs) and any(
                argv[i] == b"-N" and argv[i + 1] in wanted for i in range(len(argv) - 1)):
            found.add(int(cmdline.parent.name))
    return found


def remove_frr_crash_dirs(pids: set[int] | None = None) -> int:
    """Remove FRR's per-process log-buffer directories (/var/tmp/frr/<daemon>.<pid>) of ``pids`` once they are
    dead, or of every dead PID when ``pids`` is None. FRR leaves them behind when a daemon is stopped; a later
    daemon that gets a reused PID then fails with "failed to mkdir ... File exists". A directory whose process is
    alive is never touched, so other twins and FRR instances are safe."""
    removed = 0
    if not FRR_CRASH_DIR.is_dir():
        return removed
    for directory in FRR_CRASH_DIR.iterdir():
        daemon, _, pid_text = directory.name.rpartition(".")
        if not daemon or not pid_text.isdigit() or not directory.is_dir():
            continue
        pid = int(pid_text)
        if (pids is None or pid in pids) and not process_alive(pid):
            shutil.rmtree(directory, ignore_errors=True)
            removed += 1
    return removed
