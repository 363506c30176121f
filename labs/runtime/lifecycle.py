"""Boot, inspect and tear down a whole twin: ``up``, ``status``, ``down`` (the sub-systems they orchestrate are
the sibling modules; ``labs.runtime`` explains the guarantees)."""

from __future__ import annotations

import contextlib
import shutil
import time
from pathlib import Path

from compiler.errors import TwinError
from compiler.model import Role

from .. import ownership
from ..collectors import collect_bgp_summary
from ..frr_binaries import select_frr, use_frr
from ..ownership import SHARED_RUN_DIR
from ..shell import ip_batch, parallel, run
from ..topology import TwinTopology, validate_topology
from .daemons import frr_daemons_in, is_our_daemon, process_alive, remove_frr_crash_dirs, start_frr, terminate
from .frr_files import ETC_FRR, LIB_FRR, RUN_FRR, write_frr_files
from .kernel import all_namespaces, create_namespaces, detect_kernel_features, namespaces_with_prefix
from .limits import raise_neighbour_limits, release_neighbour_limits
from .linux_plan import apply_linux_plan, configure_host, create_cables, set_fabric_cables
from .sizing import size_policy
from .state import TwinState, claim, default_state_dir, prefix_lock, require_owner, resolve_installation
from .vrf import VRF_VIEWS_DIR, choose_vrf_backend, plan_vrfs, remove_vrf_views, vrf_netns_name


def up(topology: TwinTopology, state_dir: Path | str | None = None, installation: str | None = None,
       frr: str | None = None) -> TwinState:
    """Boot the twin. Returns once every daemon runs and its config is loaded (convergence is measured by
    ``labs.checks``). Running ``up`` again with the same topology returns the running twin; with a different
    topology under the same prefix it refuses. If anything fails, whatever was created is removed again.
    ``installation`` (default ``labs.ownership.default_installation()``) owns everything the twin creates.
    ``frr``: which FRR runs (``labs.frr_binaries.select_frr``: ``auto``, ``10.3`` or ``8.4``; default
    ``FT_TWIN_FRR`` or ``auto``); the state records it with the version read from the binary."""
    validate_topology(topology)
    binaries = select_frr(choice=frr)  # InputError naming the path before anything is created
    installation = resolve_installation(installation)
    state_dir = Path(state_dir or default_state_dir()).resolve()
    with prefix_lock(topology.name_prefix):
        existing = TwinState.load(topology.name_prefix, state_dir)
        if existing is not None:
            require_owner(existing, installation)
            return _existing_twin(existing, topology)
        use_frr(binaries)
        leftovers = namespaces_with_prefix(topology.name_prefix)
        foreign = sorted(set(leftovers) - ownership.owned(leftovers, installation))
        if foreign:
            # Someone else's (another installation, or unmarked): never advise removing them.
            raise TwinError(f"namespaces {[ownership.describe_owner(ns) for ns in foreign[:3]]} use prefix "
                            f"{topology.name_prefix!r} but are not owned by this installation ({installation}); "
                            "they are left alone: choose another name_prefix")
        if leftovers:
            raise TwinError(f"namespaces {leftovers[:5]} of this installation ({installation}) with prefix "
                            f"{topology.name_prefix!r} exist but no state file; run down({topology.name_prefix!r}, "
                            "force=True)")
        state = TwinState(
            prefix=topology.name_prefix,
            label=topology.label,
            digest=topology.digest(),
            state_dir=str(state_dir),
            status="booting",
            created_at=time.time(),
            node_netns={node.name: topology.netns(node.name) for node in topology.nodes},
            host_netns={host.name: topology.netns(host.name) for host in topology.hosts},
            frr_dirs=[str(Path(base) / topology.netns(node.name)) for node in topology.nodes
                      for base in binaries.pathspace_dirs],
            topology=topology.to_dict(),
            installation=installation,
            frr=binaries.as_dict(),
        )
        state.save()  # recorded before anything exists, so a crash mid-boot can always be cleaned up
        try:
            claim(state, state.namespaces)  # marked as ours before they exist (refused if someone else's)
            _boot(topology, state)
        except BaseException:
            state.status = "failed"
            state.save()
            # Keep the original error; if cleanup itself fails the state file stays for down(force=True).
            with contextlib.suppress(TwinError):
                _teardown(state, force=True)
            raise
        return state


def status(prefix: str, state_dir: Path | str | None = None, sessions: bool = False,
           installation: str | None = None) -> dict:
    """Liveness of a twin from its state file: which namespaces exist and which recorded daemons run.
    ``sessions=True`` also asks each switch's FRR how many BGP sessions are Established (one vtysh per node).
    Without a state file, ``orphan_namespaces`` are this installation's leftovers (by ownership marker) and
    ``foreign_namespaces`` the ones with this prefix that belong to someone else (never touched)."""
    installation = resolve_installation(installation)
    state = TwinState.load(prefix, state_dir)
    if state is None:
        leftovers = set(namespaces_with_prefix(prefix)) | (ownership.marked(prefix, installation)
                                                           & set(all_namespaces()))
        ours = ownership.owned(leftovers, installation)
        return {"prefix": prefix, "exists": False, "orphan_namespaces": sorted(ours),
                "foreign_namespaces": sorted(leftovers - ours)}
    require_owner(state, installation)
    existing = set(all_namespaces())
    missing_ns = sorted(ns for ns in state.namespaces if ns not in existing)
    # Present under our name but no longer ours (marker gone or another namespace now): not our twin any more.
    not_owned = sorted(ns for ns in state.namespaces
                       if ns in existing and not ownership.is_owned(ns, state.installation))
    dead = {node: [daemon for daemon, pid in daemons.items() if not is_our_daemon(pid, state.node_netns[node])]
            for node, daemons in state.pids.items()}
    dead = {node: daemons for node, daemons in dead.items() if daemons}
    healthy = state.status == "up" and not missing_ns and not not_owned and not dead
    extra = {}
    if sessions and healthy:

        def established(node: str) -> dict[str, int | str]:
            try:
                rows = collect_bgp_summary(state.node_netns[node])
            except TwinError as error:
                return {"error": str(error)}
            return {"established": sum(1 for row in rows if row.established), "configured": len(rows)}

        extra["bgp"] = dict(zip(state.node_netns, parallel(established, state.node_netns), strict=True))
    return {
        "prefix": prefix,
        "exists": True,
        "label": state.label,
        "status": state.status,
        "healthy": healthy,
        "switches": len(state.node_netns),
        "hosts": len(state.host_netns),
        "missing_namespaces": missing_ns,
        "not_owned_namespaces": not_owned,
        "dead_daemons": dead,
        "config_errors": state.config_errors,
        "timings": state.timings,
        "kernel": state.kernel,
        "frr": state.frr,
        "uptime_s": round(time.time() - state.created_at, 1),
        "state_file": str(state.state_file),
        **extra,
    }


def down(prefix: str, state_dir: Path | str | None = None, force: bool = False,
         installation: str | None = None) -> dict:
    """Remove the twin. Without ``force`` it needs the state file; with ``force`` it also removes this
    installation's leftovers of the prefix recorded by ownership markers (after a crash or a lost state file).
    A twin, namespace or process of another installation is never touched, ``force`` included."""
    installation = resolve_installation(installation)
    state = TwinState.load(prefix, state_dir)
    if state is None:
        if not force:
            raise TwinError(f"no twin {prefix!r} in {state_dir or default_state_dir()}; use force=True to remove "
                            f"this installation's ({installation}) leftovers of it")
        state = TwinState(prefix=prefix, label="", digest="", state_dir=str(state_dir or default_state_dir()),
                          status="unknown", created_at=time.time(), node_netns={}, host_netns={}, frr_dirs=[],
                          installation=installation)
    require_owner(state, installation)
    with prefix_lock(prefix):
        summary = _teardown(state, force=force)
    with contextlib.suppress(FileNotFoundError):
        (SHARED_RUN_DIR / f"{prefix}.lock").unlink()
    return summary


# --------------------------------------------------------------------------------------------- boot


def _existing_twin(existing: TwinState, topology: TwinTopology) -> TwinState:
    if existing.digest != topology.digest():
        raise TwinError(f"twin {topology.name_prefix!r} is already running a different topology; "
                        "run down() first or choose another name_prefix")
    health = status(existing.prefix, existing.state_dir, installation=existing.installation)
    if not health["healthy"]:
        raise TwinError(f"twin {existing.prefix!r} exists but is not healthy "
                        f"(status={health['status']}, missing={health['missing_namespaces'][:3]}, "
                        f"dead={health['dead_daemons']}); run down({existing.prefix!r}, force=True)")
    return existing


def _boot(topology: TwinTopology, state: TwinState) -> None:
    started = time.monotonic()
    remove_frr_crash_dirs()  # stale ones from dead daemons would make a daemon with a reused PID fail to start
    policy = size_policy(len(topology.nodes))
    state.size_policy = policy.as_dict()
    raise_neighbour_limits(topology.name_prefix, len(topology.links) + sum(len(h.interfaces) for h in topology.hosts),
                           switches=len(topology.nodes))
    state.kernel = detect_kernel_features(topology.name_prefix, state)
    state.vrf_backend = choose_vrf_backend(topology, state.kernel)
    if state.vrf_backend == "netns":
        state.vrf_netns = {node.name: {vrf: vrf_netns_name(topology, node.name, vrf) for vrf in plan_vrfs(node)}
                           for node in topology.nodes if plan_vrfs(node)}
    state.save()  # the VRF namespaces are recorded (and marked) before they exist, like the others
    claim(state, state.namespaces)
    create_namespaces(state)
    create_cables(topology)
    parallel(lambda node: apply_linux_plan(topology, node, state), topology.nodes)
    if policy.late_cabling:
        set_fabric_cables(topology, "down")  # plugged in once every switch runs (sizing.LATE_CABLING_SWITCHES)
    parallel(lambda host: configure_host(topology, host), topology.hosts)
    state.timings["topology_s"] = round(time.monotonic() - started, 3)
    state.save()

    log_dir = state.log_dir
    log_dir.mkdir(parents=True, exist_ok=True)
    shutil.chown(log_dir, "frr", "frr")
    parallel(lambda node: write_frr_files(topology.netns(node.name), node.frr_conf, state.vrf_netns.get(node.name, {}),
                                          policy), topology.nodes)
    state.daemons_started_at = time.time()
    daemons_started = time.monotonic()
    # Spines (and super-spines) first: a leaf's sessions come up as soon as its daemons run. ``policy.wave``
    # switches start at a time (cores, memory), each within a timeout that grows with the wave and the fabric.
    ordered = sorted(topology.nodes, key=lambda node: node.role not in (Role.SUPER_SPINE, Role.SPINE))
    results = parallel(lambda node: start_frr(topology, node, log_dir, state.vrf_netns.get(node.name, {}), policy,
                                              timeout_s=policy.start_timeout_s), ordered, workers=policy.wave)
    if policy.late_cabling:
        set_fabric_cables(topology, "up")
    for node, (pids, config_error) in zip(ordered, results, strict=True):
        state.pids[node.name] = pids
        if config_error:
            state.config_errors[node.name] = config_error
    state.timings["daemons_s"] = round(time.monotonic() - daemons_started, 3)
    state.timings["boot_s"] = round(time.monotonic() - started, 3)
    state.status = "up"
    state.save()


# --------------------------------------------------------------------------------------------- teardown


def _teardown(state: TwinState, force: bool) -> dict:
    """Stop the twin's processes and delete its namespaces, FRR directories, VRF views and logs.

    What may be touched is decided by ownership, never by name: the namespaces recorded in the state file (with
    ``force`` also every namespace this installation marked for the prefix: the record survives a lost state
    file) *and* whose marker names this installation. Anything else, even if named ``<prefix>-…``, is left
    alone and reported as ``left_alone``."""
    prefix = state.prefix
    installation = state.installation
    candidates = set(state.namespaces)
    if force:
        candidates |= ownership.marked(prefix, installation)
    namespaces = ownership.owned(candidates, installation)
    left_alone = sorted(candidates - namespaces)
    # FRR directories and VRF views are named after the switch's namespace (its pathspace): only owned ones.
    frr_dirs = {directory for directory in state.frr_dirs if Path(directory).name in namespaces}
    if force:
        frr_dirs |= {str(base / ns) for ns in namespaces for base in (ETC_FRR, RUN_FRR, LIB_FRR)
                     if (base / ns).is_dir()}
    existing = set(all_namespaces())

    def our_processes() -> set[int]:
        """Recorded daemons, daemons named in the twin's PID files, FRR daemons started with one of the twin's
        pathspaces (-N, exact names), and every process inside the twin's own namespaces (pings, a daemon
        mid-start)."""
        found = {pid for node, daemons in state.pids.items() for pid in daemons.values()
                 if state.node_netns.get(node, "") in namespaces and is_our_daemon(pid, state.node_netns[node])}
        for directory in frr_dirs:
            for pid_file in Path(directory).glob("*.pid"):
                with contextlib.suppress(ValueError, OSError):
                    pid = int(pid_file.read_text().strip())
                    if is_our_daemon(pid, Path(directory).name):
                        found.add(pid)
        found |= frr_daemons_in(namespaces)
        for ns in namespaces & existing:
            found |= {int(pid) for pid in run(["ip", "netns", "pids", ns], check=False).stdout.split() if pid.isdigit()}
        return {pid for pid in found if process_alive(pid)}

    # Scan until two scans in a row find nothing: a crashed ``up`` can leave a daemon start in flight (a
    # daemonizing zebra forks after the first scan), and one left behind would outlive its namespace.
    victims: set[int] = set()
    quiet_scans = 0
    for _ in range(50):
        alive = our_processes()
        if not alive:
            quiet_scans += 1
            if quiet_scans == 2:
                break
            time.sleep(0.1)
            continue
        quiet_scans = 0
        terminate(alive)
        victims |= alive
    survivors = sorted(our_processes())
    remove_frr_crash_dirs(victims)
    remove_vrf_views({ns for ns in namespaces if (VRF_VIEWS_DIR / ns).is_dir()})
    ip_batch([f"netns del {ns}" for ns in sorted(namespaces & existing)])
    for directory in frr_dirs:
        shutil.rmtree(directory, ignore_errors=True)
    remaining = sorted(namespaces & set(all_namespaces()))
    ownership.release(namespaces - set(remaining), installation)
    release_neighbour_limits(prefix)
    if namespaces or state.state_file.exists():
        # Daemon logs of this twin: only when something here was ours (a force down by another installation
        # sharing the state directory owns nothing and must not delete them).
        shutil.rmtree(Path(state.state_dir) / prefix, ignore_errors=True)
    if remaining or survivors:
        raise TwinError(f"teardown of {prefix!r} incomplete: namespaces left {remaining[:5]}, live PIDs {survivors}")
    with contextlib.suppress(FileNotFoundError):
        state.state_file.unlink()
    return {"prefix": prefix, "installation": installation, "namespaces_removed": len(namespaces & existing),
            "processes_stopped": len(victims), "frr_dirs_removed": len(frr_dirs),
            "left_alone": [ns for ns in left_alone if ns in existing]}
