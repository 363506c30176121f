"""Boot, inspect and tear down a twin: one netns per switch/host, veth cables, the Linux plan, zebra+bgpd.

Recipe and pitfalls: docs/twin-notes.md (measured on this machine kind). The public API is three
functions the ``manage.py twin`` command wraps:

    up(topology, state_dir=None) -> TwinState     # idempotent for the same topology
    status(prefix, state_dir=None) -> dict
    down(prefix, state_dir=None, force=False) -> dict

Cleanup guarantee: everything the twin creates is named with its unique prefix (namespaces
``<prefix>-<node>``, FRR pathspaces ``/etc/frr/<prefix>-<node>`` and ``/var/run/frr/<prefix>-<node>``) and is
recorded in the JSON state file *before* it is created, so ``down`` removes exactly that, and
``down(force=True)`` also works after a crash from the recorded state plus the ownership markers. Processes are
stopped by recorded PID (checked against their ``-N <pathspace>`` command line) and by ``ip netns pids`` of the
twin's own namespaces, never by process name: other twins may run concurrently.

Shared hosts (``labs.ownership``): every twin belongs to an installation; the state file records it and each
namespace carries an ownership marker written before the namespace exists. Nothing is deleted or killed unless
its namespace's marker names the caller's installation, ``force`` included; a twin of another installation is
refused, never "cleaned up".
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import json
import os
import re
import shutil
import signal
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from compiler.errors import TwinError
from compiler.paths import safe_join

from . import ownership
from .ownership import SHARED_RUN_DIR
from .shell import FRR_BIN_DIR, ip_batch, ns_exec, parallel, run
from .topology import TwinNode, TwinTopology, validate_topology

REPO_ROOT = Path(__file__).resolve().parent.parent
ETC_FRR = Path("/etc/frr")
RUN_FRR = Path("/var/run/frr")
NEIGH_GC_KEYS = tuple(f"net.ipv{family}.neigh.default.gc_thresh{level}" for family in (4, 6) for level in (1, 2, 3))
# FRR 8.4 loses ECMP members after a link flap when zebra uses kernel nexthop objects (docs/twin-notes.md pitfalls;
# fixed upstream in FRR 9.x). The twin forces it off whatever the rendered config says.
ZEBRA_NHG_WORKAROUND = "no zebra nexthop kernel enable"
VRF_NETNS_LINE = re.compile(r"^\s+netns /run/netns/\S+\s*$")
VRF_STANZA = re.compile(r"^vrf (\S+)\s*$")
FIRST_BLOCK = re.compile(r"^(interface|router|vrf|route-map|ip prefix-list|bfd)\b")
VRF_BACKENDS = ("", "kernel", "netns", "none")  # FT_TWIN_VRF_BACKEND values ("": feature-detected)
BFD_CONFIGURED = re.compile(r"^\s*(neighbor \S+ bfd|bfd)\b", re.MULTILINE)
# Memory per switch (measured on the 2x4 reference twin, zebra + bgpd + bfdd after convergence):
# - FRR sizes each event loop's poll and task arrays by the fd limit (here ``ulimit -n`` = 20000); a twin
#   daemon has a few dozen sockets, so 1024 is plenty and saves ~3 MiB per switch (zebra 2.8, bfdd 0.5).
# - glibc gives every daemon thread its own malloc arena; bgpd runs 4 threads. One arena saves ~1.4 MiB per
#   bgpd at no cost a twin notices. Together: 34 -> 30 MiB per switch.
DAEMON_FD_LIMIT = 1024
DAEMON_ENV = ("MALLOC_ARENA_MAX=1",)
# Defaults every router namespace needs on top of the plan: forwarding, L3/L4 ECMP hashing so one host pair
# can use several paths, and no reverse-path filtering (asymmetric ECMP paths are normal in a Clos).
ROUTER_SYSCTLS = {
    "net.ipv4.ip_forward": "1",
    "net.ipv6.conf.all.forwarding": "1",
    "net.ipv4.fib_multipath_hash_policy": "1",
    "net.ipv6.fib_multipath_hash_policy": "1",
    "net.ipv4.conf.all.rp_filter": "0",
    "net.ipv4.conf.default.rp_filter": "0",
}


def default_state_dir() -> Path:
    return Path(os.environ.get("FT_TWIN_STATE_DIR", REPO_ROOT / "out" / "twins"))


@dataclass
class TwinState:
    """What a running twin consists of; persisted as ``<state_dir>/<prefix>.json``."""

    prefix: str
    label: str
    digest: str
    state_dir: str
    status: str  # booting | up | failed
    created_at: float
    node_netns: dict[str, str]  # switch node -> namespace
    host_netns: dict[str, str]  # host -> namespace
    frr_dirs: list[str]
    pids: dict[str, dict[str, int]] = field(default_factory=dict)  # node -> {zebra: pid, bgpd: pid}
    daemons_started_at: float | None = None  # epoch seconds; convergence is measured from here
    timings: dict[str, float] = field(default_factory=dict)
    config_errors: dict[str, str] = field(default_factory=dict)  # node -> what vtysh -b rejected
    kernel: dict[str, bool] = field(default_factory=dict)
    topology: dict = field(default_factory=dict)
    # How tenant VRFs are built: "kernel" (VRF devices), "netns" (one namespace per switch VRF, FRR's
    # network-namespace VRF backend), or "" (the twin has no tenant VRFs).
    vrf_backend: str = ""
    vrf_netns: dict[str, dict[str, str]] = field(default_factory=dict)  # switch node -> {VRF name: namespace}
    installation: str = ""  # labs.ownership: the installation that booted it ("" in pre-ownership state files)

    @property
    def state_file(self) -> Path:
        return Path(self.state_dir) / f"{self.prefix}.json"

    @property
    def namespaces(self) -> list[str]:
        return ([*self.node_netns.values(), *self.host_netns.values()]
                + [ns for vrfs in self.vrf_netns.values() for ns in vrfs.values()])

    def switch_namespaces(self, node: str) -> list[str]:
        """A switch's namespace followed by its VRF namespaces (netns VRF backend)."""
        return [self.node_netns[node], *self.vrf_netns.get(node, {}).values()]

    @property
    def tenant_vrfs_built(self) -> bool:
        """True when the twin really separates tenants (kernel VRF devices or netns VRFs): L3VNI routing and
        cross-tenant isolation are then measured, not "static only"."""
        return self.vrf_backend in ("kernel", "netns")

    def topology_obj(self) -> TwinTopology:
        return TwinTopology.from_dict(self.topology)

    def save(self) -> None:
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.state_file.with_suffix(".tmp")
        temporary.write_text(json.dumps(asdict(self), indent=1, sort_keys=True))
        temporary.replace(self.state_file)  # atomic: a crash never leaves half a state file

    @classmethod
    def load(cls, prefix: str, state_dir: Path | str | None = None) -> TwinState | None:
        path = Path(state_dir or default_state_dir()) / f"{prefix}.json"
        if not path.exists():
            return None
        return cls(**json.loads(path.read_text()))


# --------------------------------------------------------------------------------------------- public API


def up(topology: TwinTopology, state_dir: Path | str | None = None, installation: str | None = None) -> TwinState:
    """Boot the twin. Returns once every daemon runs and its config is loaded (convergence is measured by
    ``labs.checks``). Running ``up`` again with the same topology returns the running twin; with a different
    topology under the same prefix it refuses. If anything fails, whatever was created is removed again.
    ``installation`` (default ``labs.ownership.default_installation()``) owns everything the twin creates."""
    validate_topology(topology)
    installation = _installation(installation)
    state_dir = Path(state_dir or default_state_dir()).resolve()
    with _prefix_lock(topology.name_prefix):
        existing = TwinState.load(topology.name_prefix, state_dir)
        if existing is not None:
            _require_owner(existing, installation)
            return _existing_twin(existing, topology)
        leftovers = _namespaces_with_prefix(topology.name_prefix)
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
            frr_dirs=[str(base / topology.netns(node.name)) for node in topology.nodes for base in (ETC_FRR, RUN_FRR)],
            topology=topology.to_dict(),
            installation=installation,
        )
        state.save()  # recorded before anything exists, so a crash mid-boot can always be cleaned up
        try:
            _claim(state, state.namespaces)  # marked as ours before they exist (refused if someone else's)
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
    installation = _installation(installation)
    state = TwinState.load(prefix, state_dir)
    if state is None:
        leftovers = set(_namespaces_with_prefix(prefix)) | (ownership.marked(prefix, installation)
                                                            & set(_all_namespaces()))
        ours = ownership.owned(leftovers, installation)
        return {"prefix": prefix, "exists": False, "orphan_namespaces": sorted(ours),
                "foreign_namespaces": sorted(leftovers - ours)}
    _require_owner(state, installation)
    existing = set(_all_namespaces())
    missing_ns = sorted(ns for ns in state.namespaces if ns not in existing)
    # Present under our name but no longer ours (marker gone or another namespace now): not our twin any more.
    not_owned = sorted(ns for ns in state.namespaces
                       if ns in existing and not ownership.is_owned(ns, state.installation))
    dead = {node: [daemon for daemon, pid in daemons.items() if not _is_our_daemon(pid, state.node_netns[node])]
            for node, daemons in state.pids.items()}
    dead = {node: daemons for node, daemons in dead.items() if daemons}
    healthy = state.status == "up" and not missing_ns and not not_owned and not dead
    extra = {}
    if sessions and healthy:
        from .collectors import collect_bgp_summary

        def established(node: str) -> dict[str, int]:
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
        "uptime_s": round(time.time() - state.created_at, 1),
        "state_file": str(state.state_file),
        **extra,
    }


def down(prefix: str, state_dir: Path | str | None = None, force: bool = False,
         installation: str | None = None) -> dict:
    """Remove the twin. Without ``force`` it needs the state file; with ``force`` it also removes this
    installation's leftovers of the prefix recorded by ownership markers (after a crash or a lost state file).
    A twin, namespace or process of another installation is never touched, ``force`` included."""
    installation = _installation(installation)
    state = TwinState.load(prefix, state_dir)
    if state is None:
        if not force:
            raise TwinError(f"no twin {prefix!r} in {state_dir or default_state_dir()}; use force=True to remove "
                            f"this installation's ({installation}) leftovers of it")
        state = TwinState(prefix=prefix, label="", digest="", state_dir=str(state_dir or default_state_dir()),
                          status="unknown", created_at=time.time(), node_netns={}, host_netns={}, frr_dirs=[],
                          installation=installation)
    _require_owner(state, installation)
    with _prefix_lock(prefix):
        summary = _teardown(state, force=force)
    with contextlib.suppress(FileNotFoundError):
        (SHARED_RUN_DIR / f"{prefix}.lock").unlink()
    return summary


def owned_state(prefix: str, state_dir: Path | str | None = None, installation: str | None = None
                ) -> TwinState | None:
    """The twin's state file if it exists, refused (TwinError) when another installation booted the twin: what
    every operation on a running twin (checks, failure injection, changes) starts from."""
    state = TwinState.load(prefix, state_dir)
    if state is not None:
        _require_owner(state, _installation(installation))
    return state


def _installation(installation: str | None) -> str:
    return ownership.check_installation(installation) if installation else ownership.default_installation()


def _require_owner(state: TwinState, installation: str) -> None:
    """Refuse to act on a twin another installation booted (its state file says so)."""
    if state.installation != installation:
        owner = state.installation or "unknown (state file from before installation ids)"
        raise TwinError(f"twin {state.prefix!r} ({state.state_file}) belongs to installation {owner}, not to this "
                        f"installation ({installation}); nothing was touched")


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
    _raise_neighbour_limits(topology.name_prefix, len(topology.links) + sum(len(h.interfaces) for h in topology.hosts))
    state.kernel = detect_kernel_features(topology.name_prefix, state)
    state.vrf_backend = choose_vrf_backend(topology, state.kernel)
    if state.vrf_backend == "netns":
        state.vrf_netns = {node.name: {vrf: vrf_netns_name(topology, node.name, vrf) for vrf in plan_vrfs(node)}
                           for node in topology.nodes if plan_vrfs(node)}
    state.save()  # the VRF namespaces are recorded (and marked) before they exist, like the others
    _claim(state, state.namespaces)
    _create_namespaces(state)
    _create_cables(topology)
    parallel(lambda node: _apply_linux_plan(topology, node, state), topology.nodes)
    parallel(lambda host: _configure_host(topology, host), topology.hosts)
    state.timings["topology_s"] = round(time.monotonic() - started, 3)
    state.save()

    log_dir = Path(state.state_dir) / topology.name_prefix / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    shutil.chown(log_dir, "frr", "frr")
    parallel(lambda node: _write_frr_files(topology, node, state.vrf_netns.get(node.name, {})), topology.nodes)
    state.daemons_started_at = time.time()
    daemons_started = time.monotonic()
    results = parallel(lambda node: _start_frr(topology, node, log_dir, state.vrf_netns.get(node.name, {})),
                       topology.nodes)
    for node, (pids, config_error) in zip(topology.nodes, results, strict=True):
        state.pids[node.name] = pids
        if config_error:
            state.config_errors[node.name] = config_error
    state.timings["daemons_s"] = round(time.monotonic() - daemons_started, 3)
    state.timings["boot_s"] = round(time.monotonic() - started, 3)
    state.status = "up"
    state.save()


def detect_kernel_features(prefix: str, state: TwinState) -> dict[str, bool]:
    """Feature-detect in a scratch namespace (never assume): VRF devices decide whether tenant VRFs are real.
    The scratch namespace is marked as the twin's before it exists, so a crash here is cleaned up too."""
    scratch = kernel_probe_netns(prefix)
    _claim(state, [scratch])
    run(["ip", "netns", "add", scratch])
    ownership.bind([scratch], state.installation)
    try:
        features = {}
        for kind, args in (("vrf", ["type", "vrf", "table", "4242"]), ("dummy", ["type", "dummy"])):
            result = run(["ip", "-n", scratch, "link", "add", "name", "probe0", *args], check=False)
            features[kind] = result.returncode == 0
            if features[kind]:
                run(["ip", "-n", scratch, "link", "del", "probe0"], check=False)
        return features
    finally:
        run(["ip", "netns", "del", scratch], check=False)
        if scratch not in _all_namespaces():
            ownership.release([scratch], state.installation)


def kernel_probe_netns(prefix: str) -> str:
    return f"{prefix}-.kernelprobe"  # node names start with a letter or digit: never collides


def _claim(state: TwinState, namespaces: Iterable[str]) -> None:
    ownership.claim(namespaces, installation=state.installation, prefix=state.prefix,
                    state_file=str(state.state_file))


def choose_vrf_backend(topology: TwinTopology, kernel: dict[str, bool]) -> str:
    """How this boot builds tenant VRFs: kernel VRF devices where the kernel has them, otherwise FRR's
    network-namespace VRF backend (``zebra -n``), so L3VNIs and tenant isolation are measured on any kernel.
    ``FT_TWIN_VRF_BACKEND`` forces one: ``kernel``, ``netns``, or ``none`` (no tenant VRFs: every tenant is
    routed in the default table and L3VNI routing and isolation are reported "static only")."""
    if not any(plan_vrfs(node) for node in topology.nodes):
        return ""
    forced = os.environ.get("FT_TWIN_VRF_BACKEND", "")
    if forced not in VRF_BACKENDS:
        raise TwinError(f"FT_TWIN_VRF_BACKEND={forced!r}: use one of {', '.join(repr(b) for b in VRF_BACKENDS if b)}")
    if forced == "kernel" and not kernel.get("vrf"):
        raise TwinError("FT_TWIN_VRF_BACKEND=kernel but this kernel has no VRF devices")
    if forced == "none":
        return ""
    return forced or ("kernel" if kernel.get("vrf") else "netns")


def plan_vrfs(node: TwinNode) -> list[str]:
    """Tenant VRFs of a switch's Linux plan: its L3VNI VRFs and any VRF a bridge (SVI) belongs to."""
    plan = node.linux_plan
    names = [vrf["name"] for vrf in plan.get("vrfs", [])]
    names += [bridge["vrf"] for bridge in plan.get("bridges", []) if bridge.get("vrf")]
    return sorted(set(names))


def vrf_netns_name(topology: TwinTopology, node_name: str, vrf: str) -> str:
    # "+" never occurs in node names (labs.topology), so a VRF namespace cannot collide with a node's; the
    # twin's prefix keeps ``down --force`` finding it.
    return f"{topology.netns(node_name)}+{vrf}"


def add_netns_vrf(state: TwinState, node_name: str, vrf: str) -> str:
    """Create one more netns VRF on a running switch (a change that adds a tenant): recorded in the state file
    before it exists, routed like the switch, and put into the switch's VRF view, where zebra finds it."""
    namespace = vrf_netns_name(state.topology_obj(), node_name, vrf)
    existing = state.vrf_netns.setdefault(node_name, {})
    if vrf in existing:
        return existing[vrf]
    existing[vrf] = namespace
    state.save()
    _claim(state, [namespace])
    run(["ip", "netns", "add", namespace])
    ownership.bind([namespace], state.installation)
    ns_exec(namespace, ["sysctl", "-qw", *(f"{key}={value}" for key, value in ROUTER_SYSCTLS.items())])
    run(["ip", "-n", namespace, "link", "set", "lo", "up"])
    add_vrf_view(state.node_netns[node_name], vrf, namespace)
    return namespace


def remove_netns_vrf(state: TwinState, node_name: str, vrf: str) -> None:
    """Remove a netns VRF from a running switch: server ports still in it go back to the switch's namespace
    first (deleting a namespace destroys the veths in it, and with them the cable), then the view entry."""
    namespace = state.vrf_netns.get(node_name, {}).get(vrf)
    if namespace is None:
        return
    if not ownership.is_owned(namespace, state.installation):
        raise TwinError(f"VRF namespace {ownership.describe_owner(namespace)} is not owned by installation "
                        f"{state.installation!r}; it is left alone")
    switch = state.node_netns[node_name]
    links = json.loads(run(["ip", "-n", namespace, "-j", "link", "show", "type", "veth"], check=False).stdout or "[]")
    ip_batch([f"link set dev {link['ifname']} netns {switch}" for link in links], netns=namespace)
    ip_batch([f"link set dev {link['ifname']} up" for link in links], netns=switch)
    view = safe_join(VRF_VIEWS_DIR, switch, vrf, fields=("netns", "vrf"))  # a VRF name never leaves the views dir
    if _is_mountpoint(view):
        run(["umount", "-l", str(view)], check=False)
    with contextlib.suppress(OSError):
        view.unlink()
    run(["ip", "netns", "del", namespace], check=False)
    if namespace not in _all_namespaces():
        ownership.release([namespace], state.installation)
    del state.vrf_netns[node_name][vrf]
    state.save()


def _create_namespaces(state: TwinState) -> None:
    ip_batch([f"netns add {ns}" for ns in state.namespaces])
    ownership.bind(state.namespaces, state.installation)
    # Per-namespace sysctls need one exec per namespace; sysctl takes them all in one call. A netns VRF routes
    # like the switch it belongs to.
    router_sysctls = [f"{key}={value}" for key, value in ROUTER_SYSCTLS.items()]
    routers = [*state.node_netns.values(), *(ns for vrfs in state.vrf_netns.values() for ns in vrfs.values())]
    parallel(lambda ns: ns_exec(ns, ["sysctl", "-qw", *router_sysctls]), routers)


def _create_cables(topology: TwinTopology) -> None:
    """One veth pair per cable, created directly in both namespaces with the intended MTU on both ends."""
    commands = []
    for link in topology.links:
        commands.append(f"link add name {link.a_ifname} netns {topology.netns(link.a_node)} mtu {link.mtu} type veth "
                        f"peer name {link.b_ifname} netns {topology.netns(link.b_node)} mtu {link.mtu}")
    for host in topology.hosts:
        for interface in host.interfaces:
            commands.append(f"link add name {interface.ifname} netns {topology.netns(host.name)} mtu {interface.mtu} "
                            f"type veth peer name {interface.peer_ifname} netns {topology.netns(interface.peer_node)} "
                            f"mtu {interface.mtu}")
    ip_batch(commands)


class LinuxBatches:
    """``ip``/``bridge`` command batches of one switch, per namespace: its own and, with netns VRFs, one per
    tenant VRF. Shared by the boot (``_apply_linux_plan``) and the twin change driver.

    Tenant VRFs follow the twin's backend. "kernel": VRF devices with the bridges enslaved. "netns": each VRF is
    its own namespace holding the tenant's bridges, SVIs and server ports; VXLAN devices are created in the
    switch's namespace straight into the VRF namespace (``ip link add … netns``), so their underlay socket stays in the
    switch's with the VTEP address while the device is in the VRF (how FRR's netns VRF backend expects EVPN: FRR
    topotest bgp_evpn_rt5 moves them there)."""

    def __init__(self, netns: str, backend: str, vrf_netns: dict[str, str], cabled: set[str],
                 location: dict[str, str] | None = None):
        self.netns = netns
        self.backend = backend
        self.vrf_netns = vrf_netns
        self.cabled = cabled
        self.location = location or {}  # device -> namespace it is in now (default: the switch's)
        self.ip: dict[str, list[str]] = {netns: []}
        self.bridge: dict[str, list[str]] = {netns: []}
        self.svis: dict[str, list[str]] = {}  # namespace -> SVI bridges in it
        self.moved: set[str] = set()

    def namespace_of(self, vrf: str | None) -> str:
        return self.vrf_netns.get(vrf, self.netns) if vrf and self.backend == "netns" else self.netns

    def add_vrf_device(self, vrf: dict) -> None:
        if self.backend == "kernel":
            self.ip[self.netns] += [f"link add name {vrf['name']} type vrf table {vrf['table']}",
                                    f"link set {vrf['name']} up"]

    def add_bridge(self, bridge: dict, vrf: str | None) -> None:
        target = self.namespace_of(vrf)
        if target == self.netns:
            bridge_commands(bridge, self.ip[self.netns], self.bridge[self.netns],
                            master=vrf if self.backend == "kernel" else None, cabled=self.cabled)
        else:
            target_ip = self.ip.setdefault(target, [])
            if bridge.get("vxlan"):
                # Born in the VRF namespace, never in the switch's: zebra would first see it as a VNI of the
                # default VRF and, on a running twin, keep installing its EVPN entries there ("No such device").
                self.ip[self.netns].append(vxlan_add_command(bridge["vxlan"], into_netns=target))
            members = [member for member in bridge.get("members", []) if member in self.cabled]
            for member in members:
                here = self.location.get(member, self.netns)
                if here != target:
                    self.ip.setdefault(here, []).append(f"link set dev {member} netns {target}")
                    self.moved.add(member)
            bridge_commands(bridge, target_ip, self.bridge.setdefault(target, []), master=None, cabled=self.cabled,
                            create_vxlan=False)
            target_ip.extend(f"link set dev {member} up" for member in members)  # a move sets a link down
        if bridge.get("svi"):
            self.svis.setdefault(target, []).append(bridge["name"])

    def apply(self) -> None:
        """The switch's namespace first (it creates and moves devices), then each VRF namespace."""
        for namespace in [self.netns, *(ns for ns in self.ip if ns != self.netns)]:
            ip_batch(self.ip.get(namespace, []), netns=namespace)
            ip_batch(self.bridge.get(namespace, []), netns=namespace, tool="bridge")
        for namespace, names in self.svis.items():
            # Asymmetric IRB: the anycast gateway learns host MACs from gratuitous ARP too (docs/twin-notes.md recipe).
            ns_exec(namespace, ["sysctl", "-qw", *(f"net.ipv4.conf.{name}.arp_accept=1" for name in names)])


def _apply_linux_plan(topology: TwinTopology, node: TwinNode, state: TwinState) -> None:
    """Apply the node's linux-plan.json: sysctls, loopbacks, port MTUs/addresses, VRFs, bridges + VXLAN, SVIs
    (tenant VRFs as ``LinuxBatches`` explains)."""
    netns = topology.netns(node.name)
    plan = node.linux_plan
    if plan.get("sysctls"):
        ns_exec(netns, ["sysctl", "-qw", *(f"{key}={value}" for key, value in plan["sysctls"].items())])
    cabled = _cabled_ports(topology, node.name)
    vrf_netns = state.vrf_netns.get(node.name, {})
    batches = LinuxBatches(netns, state.vrf_backend, vrf_netns, cabled)
    ip_cmds = batches.ip[netns]
    ip_cmds.append("link set lo up")
    ip_cmds += [f"addr add {address} dev lo" for address in plan.get("loopback_addresses", [])]
    # A plan port without a cable has no veth to configure (an unused port on real hardware): skipped.
    for port in (port for port in plan.get("links", []) if port["name"] in cabled):
        if port.get("mtu"):
            ip_cmds.append(f"link set dev {port['name']} mtu {port['mtu']}")
        if port.get("address"):
            ip_cmds.append(f"addr add {port['address']} dev {port['name']}")
    for namespace in vrf_netns.values():
        batches.ip.setdefault(namespace, []).append("link set lo up")
    for vrf in plan.get("vrfs", []):
        batches.add_vrf_device(vrf)
        if vrf.get("bridge"):
            batches.add_bridge(vrf["bridge"], vrf["name"])
    for bridge in plan.get("bridges", []):
        batches.add_bridge(bridge, bridge.get("vrf"))
    # Every cabled port comes up, like a switch port without "shutdown"; the plan only adds MTU/address.
    ip_cmds.extend(f"link set dev {port} up" for port in sorted(cabled - batches.moved))
    batches.apply()


def _cabled_ports(topology: TwinTopology, node_name: str) -> set[str]:
    ports = {link.a_ifname for link in topology.links if link.a_node == node_name}
    ports |= {link.b_ifname for link in topology.links if link.b_node == node_name}
    ports |= {i.peer_ifname for host in topology.hosts for i in host.interfaces if i.peer_node == node_name}
    return ports


def vxlan_add_command(vxlan: dict, into_netns: str | None = None) -> str:
    """``ip`` command creating a VXLAN device. nolearning: EVPN owns the FDB. df set: behave like hardware, drop
    instead of fragmenting the outer packet, otherwise underlay MTU faults stay hidden (docs/twin-notes.md pitfalls).
    ``into_netns``: run in the switch's namespace, the device is born in that (VRF) namespace while its underlay
    socket stays in the switch's, with the VTEP address and the routes (netns VRF backend)."""
    where = f" netns {into_netns}" if into_netns else ""
    return (f"link add name {vxlan['name']}{where} mtu {vxlan.get('mtu', 1500)} type vxlan id {vxlan['vni']} "
            f"local {vxlan['local']} dstport {vxlan.get('dstport', 4789)} nolearning df set")


def bridge_commands(bridge: dict, ip_cmds: list[str], bridge_cmds: list[str], master: str | None,
                    cabled: set[str], create_vxlan: bool = True) -> None:
    """Append the ``ip``/``bridge`` commands for one Linux-plan bridge (its VXLAN device, cabled members, anycast
    SVI; under ``master`` when the kernel has VRFs). ``create_vxlan=False``: the VXLAN device already exists in
    the namespace (netns VRFs). Shared by the twin's boot and the twin change driver."""
    name = bridge["name"]
    ip_cmds.append(f"link add name {name} type bridge stp_state 0 mcast_snooping 0")
    if bridge.get("mtu"):
        ip_cmds.append(f"link set dev {name} mtu {bridge['mtu']}")
    if master:
        ip_cmds.append(f"link set dev {name} master {master}")
    vxlan = bridge.get("vxlan")
    if vxlan:
        if create_vxlan:
            ip_cmds.append(vxlan_add_command(vxlan))
        ip_cmds += [f"link set dev {vxlan['name']} master {name}", f"link set dev {vxlan['name']} up"]
        bridge_cmds.append(f"link set dev {vxlan['name']} learning off neigh_suppress on")
    for member in (member for member in bridge.get("members", []) if member in cabled):
        ip_cmds.append(f"link set dev {member} master {name}")
    svi = bridge.get("svi")
    if svi:
        # Distributed anycast gateway: the same IP and MAC on every leaf.
        if svi.get("mac"):
            ip_cmds.append(f"link set dev {name} address {svi['mac']}")
        ip_cmds.append(f"addr add {svi['address']} dev {name}")
    ip_cmds.append(f"link set dev {name} up")


def _configure_host(topology: TwinTopology, host) -> None:
    netns = topology.netns(host.name)
    commands = ["link set lo up"]
    default_set = False
    for interface in host.interfaces:
        commands += [f"addr add {interface.address} dev {interface.ifname}", f"link set dev {interface.ifname} up"]
    for interface in host.interfaces:
        # One default route: via the first NIC that has a gateway (multi-rail hosts reach other rails locally).
        if interface.gateway and not default_set:
            commands.append(f"route add default via {interface.gateway} dev {interface.ifname}")
            default_set = True
    ip_batch(commands, netns=netns)


def twin_frr_conf(frr_conf: str, netns_vrfs: Iterable[str] = ()) -> str:
    """The frr.conf a twin switch runs: the rendered one plus what the twin itself needs, in one place (boot and
    the twin change driver use it; ``strip_twin_lines`` takes it out again for comparisons).

    - ``no zebra nexthop kernel enable``: FRR 8.4 loses ECMP members after a link flap otherwise (docs/twin-notes.md).
    - ``netns /run/netns/<VRF>`` in the stanza of each VRF this switch has as a namespace (netns VRF backend).
      zebra adds that line to its running config by itself when it finds the namespace, so a config without
      it reads to ``frr-reload.py`` as "no netns": the reload would unbind the VRF from its namespace and zebra
      would stop following it (seen: ``vrf TENANT_A inactive``, EVPN flood entries never installed)."""
    if ZEBRA_NHG_WORKAROUND not in frr_conf:
        frr_conf = f"{ZEBRA_NHG_WORKAROUND}\n{frr_conf}"
    wanted = sorted(set(netns_vrfs))
    if not wanted and "netns /run/netns/" not in frr_conf:
        return frr_conf
    lines = frr_conf.splitlines()
    out: list[str] = []
    missing = set(wanted)
    for line in lines:
        if VRF_NETNS_LINE.match(line):
            continue  # written below for exactly the VRFs this switch has
        out.append(line)
        stanza = VRF_STANZA.match(line)
        if stanza and stanza.group(1) in missing:
            out.append(f" netns /run/netns/{stanza.group(1)}")
            missing.discard(stanza.group(1))
    if missing:
        # VRFs without a stanza of their own (e.g. only SVIs in them): before the first interface/router/vrf
        # block, like FRR writes them.
        at = next((index for index, line in enumerate(out) if FIRST_BLOCK.match(line)), len(out))
        added = [text for vrf in sorted(missing) for text in (f"vrf {vrf}", f" netns /run/netns/{vrf}", "exit-vrf", "!")]
        out[at:at] = added
    return "\n".join(out) + "\n"


def strip_twin_lines(frr_conf: str) -> str:
    """``frr_conf`` without what ``twin_frr_conf`` adds (and what zebra adds for netns VRFs by itself): a vrf
    stanza left with nothing but its netns line disappears with it."""
    lines = [line.rstrip() for line in frr_conf.splitlines()
             if line.strip() != ZEBRA_NHG_WORKAROUND and not VRF_NETNS_LINE.match(line)]
    out: list[str] = []
    index = 0
    while index < len(lines):
        if VRF_STANZA.match(lines[index]) and index + 1 < len(lines) and lines[index + 1].strip() == "exit-vrf":
            index += 2
            if index < len(lines) and lines[index].strip() == "!":
                index += 1
            continue
        out.append(lines[index])
        index += 1
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def _write_frr_files(topology: TwinTopology, node: TwinNode, netns_vrfs: Iterable[str] = ()) -> None:
    pathspace = topology.netns(node.name)
    for base in (ETC_FRR, RUN_FRR):
        directory = base / pathspace
        directory.mkdir(parents=True, exist_ok=True)
        shutil.chown(directory, "frr", "frr")
    frr_conf = twin_frr_conf(node.frr_conf, netns_vrfs)
    for name, text in (("frr.conf", frr_conf), ("vtysh.conf", "service integrated-vtysh-config\n")):
        path = ETC_FRR / pathspace / name
        path.write_text(text)
        shutil.chown(path, "frr", "frr")
        path.chmod(0o640)


# Runs a daemon with its own hostname and, for netns VRFs, its own view of /run/netns. zebra's netns VRF backend
# treats every entry of /run/netns as a VRF named after the entry, so a switch's daemons must see exactly that
# switch's VRFs under their VRF names, not the hundreds of other twin namespaces on the host. The view is a
# host directory (VRF_VIEWS_DIR/<pathspace>/<VRF> bind-mounted to the VRF's namespace); ``ip netns exec`` gives
# the daemon a private mount namespace (a slave of the host's, so nothing leaks out) in which the view is
# bind-mounted over /run/netns. The views root is a shared mount, so a VRF added later on the host (a change
# that adds a tenant) appears in the running daemon's view and zebra picks it up through inotify.
# Arguments: hostname, [view directory], "--", daemon argv; every value is an argument, no shell string is built.
DAEMON_WRAPPER = r"""set -e
hostname "$1"; shift
if [ "$1" != "--" ]; then mount --rbind "$1" /run/netns; shift; fi
shift
exec "$@"
"""
VRF_VIEWS_DIR = SHARED_RUN_DIR / "vrf-views"


def daemons_for(frr_conf: str, netns_vrfs: bool) -> list[tuple[str, list[str]]]:
    """(daemon, extra arguments) in start order. ``-n``: zebra's network-namespace VRF backend."""
    daemons = [("zebra", ["-s", "16777216", *(["-n"] if netns_vrfs else [])]), ("bgpd", [])]
    if BFD_CONFIGURED.search(frr_conf):
        daemons.append(("bfdd", []))  # BFD is configured: run it, so the twin tests what the config says
    return daemons


def start_daemon(pathspace: str, hostname: str, daemon: str, extra: list[str], log_dir: Path,
                 vrf_view: bool) -> int:
    """Start one FRR daemon of a switch in its namespace and pathspace; returns its PID.

    It runs under ``unshare --uts`` with the switch's hostname: in a shared UTS namespace FRR 8.4 ignores
    ``hostname`` from frr.conf (docs/twin-notes.md). ``-P 0``: no TCP vty port (dozens of twins share the host).
    ``vrf_view``: the daemon sees the switch's netns VRFs as its /run/netns (``DAEMON_WRAPPER``)."""
    pid_file = RUN_FRR / pathspace / f"{daemon}.pid"
    with contextlib.suppress(FileNotFoundError):
        pid_file.unlink()
    command = [f"{FRR_BIN_DIR}/{daemon}", "-N", pathspace, "-d", "-F", "datacenter", "-P", "0",
               "--limit-fds", str(DAEMON_FD_LIMIT), *extra, "--log", f"file:{log_dir}/{hostname}.{daemon}.log"]
    view = [str(VRF_VIEWS_DIR / pathspace)] if vrf_view else []
    ns_exec(pathspace, ["env", *DAEMON_ENV, "unshare", "--uts", "sh", "-c", DAEMON_WRAPPER, "sh", hostname, *view,
                        "--", *command], timeout=30)
    return _read_pid(pid_file)


def add_vrf_view(pathspace: str, vrf: str, namespace: str) -> None:
    """Make the VRF namespace visible as ``/run/netns/<vrf>`` to the daemons of switch ``pathspace``."""
    _ensure_views_root()
    view = VRF_VIEWS_DIR / pathspace
    view.mkdir(exist_ok=True)
    entry = safe_join(view, vrf, fields=("vrf",))  # bind-mounted as root: a VRF name never leaves the views dir
    if _is_mountpoint(entry):
        return
    entry.touch()
    run(["mount", "--bind", f"/run/netns/{namespace}", str(entry)])


def _remove_vrf_views(pathspaces: set[str]) -> None:
    """Unmount and delete the VRF views of these switches (they pin the VRF namespaces)."""
    if not VRF_VIEWS_DIR.is_dir():
        return
    for pathspace in sorted(pathspaces):
        view = VRF_VIEWS_DIR / pathspace
        if not view.is_dir():
            continue
        for entry in view.iterdir():
            if _is_mountpoint(entry):
                run(["umount", "-l", str(entry)], check=False)
            with contextlib.suppress(OSError):
                entry.unlink()
        with contextlib.suppress(OSError):
            view.rmdir()


def _ensure_views_root() -> None:
    with _shared_file_lock():
        VRF_VIEWS_DIR.mkdir(parents=True, exist_ok=True)
        if not _is_mountpoint(VRF_VIEWS_DIR):
            # Like /run/netns itself: a bind mount onto itself that can be made shared.
            run(["mount", "--bind", str(VRF_VIEWS_DIR), str(VRF_VIEWS_DIR)])
        run(["mount", "--make-shared", str(VRF_VIEWS_DIR)])


def _is_mountpoint(path: Path) -> bool:
    target = str(path)
    with open("/proc/self/mountinfo") as handle:
        return any(line.split()[4] == target for line in handle)


def _start_frr(topology: TwinTopology, node: TwinNode, log_dir: Path, vrf_netns: dict[str, str]
               ) -> tuple[dict[str, int], str]:
    """Start the node's daemons (``daemons_for``), then load frr.conf with ``vtysh -b``. With netns VRFs
    (``vrf_netns``: VRF name -> namespace) the switch's VRF view is built first."""
    pathspace = topology.netns(node.name)
    for vrf, namespace in sorted(vrf_netns.items()):
        add_vrf_view(pathspace, vrf, namespace)
    pids = {daemon: start_daemon(pathspace, node.name, daemon, extra, log_dir, bool(vrf_netns))
            for daemon, extra in daemons_for(node.frr_conf, bool(vrf_netns))}
    loaded = run(["vtysh", "-N", pathspace, "-b"], check=False, timeout=120)
    config_error = ""
    if loaded.returncode != 0:
        config_error = (loaded.stdout + loaded.stderr).strip()[-2000:] or f"vtysh -b rc={loaded.returncode}"
    return pids, config_error


def _read_pid(path: Path, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(FileNotFoundError, ValueError):
            return int(path.read_text().strip())
        time.sleep(0.02)
    raise TwinError(f"{path} did not appear within {timeout}s: the daemon did not start (see the twin's logs)")


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
        frr_dirs |= {str(base / ns) for ns in namespaces for base in (ETC_FRR, RUN_FRR) if (base / ns).is_dir()}
    existing = set(_all_namespaces())
    pathspaces = set(namespaces)

    def our_processes() -> set[int]:
        """Recorded daemons, daemons named in the twin's PID files, FRR daemons started with one of the twin's
        pathspaces (-N, exact names), and every process inside the twin's own namespaces (pings, a daemon
        mid-start)."""
        found = {pid for node, daemons in state.pids.items() for pid in daemons.values()
                 if state.node_netns.get(node, "") in pathspaces and _is_our_daemon(pid, state.node_netns[node])}
        for directory in frr_dirs:
            for pid_file in Path(directory).glob("*.pid"):
                with contextlib.suppress(ValueError, OSError):
                    pid = int(pid_file.read_text().strip())
                    if _is_our_daemon(pid, Path(directory).name):
                        found.add(pid)
        found |= _frr_daemons_in(pathspaces)
        for ns in namespaces & existing:
            found |= {int(pid) for pid in run(["ip", "netns", "pids", ns], check=False).stdout.split() if pid.isdigit()}
        return {pid for pid in found if _alive(pid)}

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
        _terminate(alive)
        victims |= alive
    survivors = sorted(our_processes())
    remove_frr_crash_dirs(victims)
    _remove_vrf_views({ns for ns in namespaces if (VRF_VIEWS_DIR / ns).is_dir()})
    ip_batch([f"netns del {ns}" for ns in sorted(namespaces & existing)])
    for directory in frr_dirs:
        shutil.rmtree(directory, ignore_errors=True)
    remaining = sorted(namespaces & set(_all_namespaces()))
    ownership.release(namespaces - set(remaining), installation)
    _release_neighbour_limits(prefix)
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


FRR_CRASH_DIR = Path("/var/tmp/frr")  # each FRR daemon keeps a log buffer in <dir>/<daemon>.<pid>/


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
        if (pids is None or pid in pids) and not _alive(pid):
            shutil.rmtree(directory, ignore_errors=True)
            removed += 1
    return removed


def _frr_daemons_in(pathspaces: set[str]) -> set[int]:
    """FRR daemons (binaries under FRR_BIN_DIR) whose ``-N`` pathspace is exactly one of ``pathspaces`` (the
    twin's owned namespaces): never a name pattern, so another installation's daemons never match."""
    wanted = {name.encode() for name in pathspaces}

    def ours(pathspace: bytes) -> bool:
        return pathspace in wanted

    found = set()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].startswith(FRR_BIN_DIR.encode()) and any(
                argv[i] == b"-N" and ours(argv[i + 1]) for i in range(len(argv) - 1)):
            found.add(int(cmdline.parent.name))
    return found


def _terminate(pids: set[int], grace_s: float = 3.0) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.05)
    for pid in pids:
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    """True while the process exists and is not a zombie (a zombie no longer holds sockets or memory)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def _is_our_daemon(pid: int, pathspace: str) -> bool:
    """The PID is alive and really is an FRR daemon of this pathspace (PIDs get reused)."""
    if not pathspace or not _alive(pid):
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return any(argv[i] == b"-N" and argv[i + 1] == pathspace.encode() for i in range(len(argv) - 1))


def _namespaces_with_prefix(prefix: str) -> list[str]:
    listing = run(["ip", "netns", "list"], check=False).stdout
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    return sorted(name for name in names if name.startswith(f"{prefix}-"))


@contextlib.contextmanager
def _prefix_lock(prefix: str):
    SHARED_RUN_DIR.mkdir(parents=True, exist_ok=True)
    with open(SHARED_RUN_DIR / f"{prefix}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# --------------------------------------------------------------------------------------------- neighbour limits


def _read_sysctl(key: str) -> int:
    return int(Path("/proc/sys", *key.split(".")).read_text().strip())


def _write_sysctl(key: str, value: int) -> None:
    Path("/proc/sys", *key.split(".")).write_text(f"{value}\n")


def _raise_neighbour_limits(prefix: str, interfaces: int) -> None:
    """The ARP/ND table is one kernel table shared by every namespace, its limits settable only in the root
    namespace (default gc_thresh3=1024): beyond ~100 switches BGP unnumbered fails with "neighbor table
    overflow" (docs/twin-notes.md). Raise them while any twin runs; the originals are restored by the last twin down.
    Holders are recorded machine-wide so concurrent twins do not restore each other's raised values."""
    wanted_max = max(65536, 8 * interfaces)
    wanted = {1: wanted_max // 4, 2: wanted_max // 2, 3: wanted_max}
    with _shared_file_lock():
        record = _load_neighbour_record()
        if record is None:
            record = {"original": {key: _read_sysctl(key) for key in NEIGH_GC_KEYS}, "holders": []}
        if prefix not in record["holders"]:
            record["holders"].append(prefix)
        for key in NEIGH_GC_KEYS:
            value = wanted[int(key[-1])]
            if _read_sysctl(key) < value:
                _write_sysctl(key, value)
        _neighbour_record_path().write_text(json.dumps(record))


def _release_neighbour_limits(prefix: str) -> None:
    with _shared_file_lock():
        record = _load_neighbour_record()
        if record is None:
            return
        live = set(_all_namespaces())
        # Drop this twin and any holder that crashed without tearing down (none of its namespaces remain).
        record["holders"] = [holder for holder in record["holders"]
                             if holder != prefix and any(ns.startswith(f"{holder}-") for ns in live)]
        if record["holders"]:
            _neighbour_record_path().write_text(json.dumps(record))
            return
        for key, value in record["original"].items():
            _write_sysctl(key, value)
        _neighbour_record_path().unlink()


def neighbour_limits_record() -> dict | None:
    """The machine-wide record (originals + holders), for status and tests."""
    return _load_neighbour_record()


def _neighbour_record_path() -> Path:
    return SHARED_RUN_DIR / "neigh-gc.json"


def _load_neighbour_record() -> dict | None:
    path = _neighbour_record_path()
    return json.loads(path.read_text()) if path.exists() else None


def _all_namespaces() -> list[str]:
    listing = run(["ip", "netns", "list"], check=False).stdout
    return [line.split()[0] for line in listing.splitlines() if line.strip()]


@contextlib.contextmanager
def _shared_file_lock():
    SHARED_RUN_DIR.mkdir(parents=True, exist_ok=True)
    with open(SHARED_RUN_DIR / "neigh-gc.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def vtep_of(node: TwinNode) -> str | None:
    """The node's VTEP address (the ``local`` of its VXLAN devices), None on spines."""
    for bridge in node.linux_plan.get("bridges", []):
        if bridge.get("vxlan"):
            return str(ipaddress.ip_address(bridge["vxlan"]["local"]))
    return None
