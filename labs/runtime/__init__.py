"""Boot, inspect and tear down a twin: one netns per switch/host, veth cables, the Linux plan, zebra+bgpd.

Recipe and pitfalls: docs/twin-notes.md (measured on this machine kind). The public API is three
functions the ``manage.py twin`` command wraps:

    up(topology, state_dir=None) -> TwinState     # idempotent for the same topology
    status(prefix, state_dir=None) -> dict
    down(prefix, state_dir=None, force=False) -> dict

plus what a change on a running twin needs (``twins.switch.TwinSwitch`` wraps these for the twin device driver):
``node_namespace``, ``apply_plan_delta``, ``reload_frr_config``, ``write_frr_file``, ``restart_daemons``,
``record_daemon_pids``, ``stop_daemon``.

One module per sub-system: ``state`` (the state file, names, ownership checks, locks), ``kernel`` (feature
detection, namespaces), ``vrf`` (tenant VRF backends and views), ``linux_plan`` (cables, the Linux plan at boot
and as a delta), ``frr_files`` (the frr.conf a twin runs, its files, reloads), ``daemons`` (FRR processes),
``limits`` (host-wide kernel limits) and ``lifecycle`` (``up``/``status``/``down``). Import from
``labs.runtime``; patch a name in the module that uses it.

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

from ..shell import run  # labs.shell.run, kept reachable as labs.runtime.run (callers and tests use it)
from .daemons import (
    DAEMON_ENV,
    DAEMON_FD_LIMIT,
    FRR_CRASH_DIR,
    daemons_for,
    frr_daemons_in,
    is_our_daemon,
    process_alive,
    record_daemon_pids,
    remove_frr_crash_dirs,
    restart_daemons,
    start_daemon,
    stop_daemon,
)
from .frr_files import (
    ETC_FRR,
    RUN_FRR,
    ZEBRA_NHG_WORKAROUND,
    reload_frr_config,
    strip_twin_lines,
    twin_frr_conf,
    vtysh_load,
    write_frr_file,
)
from .kernel import ROUTER_SYSCTLS, all_namespaces, detect_kernel_features, kernel_probe_netns, namespaces_with_prefix
from .lifecycle import down, status, up
from .limits import NEIGH_GC_KEYS, neighbour_limits_record, raise_neighbour_limits, release_neighbour_limits
from .linux_plan import (
    LinuxBatches,
    apply_plan_delta,
    bridge_commands,
    cabled_ports,
    device_locations,
    vtep_of,
    vxlan_add_command,
)
from .sizing import SizePolicy, recorded_policy, size_policy
from .state import TwinState, default_state_dir, node_namespace, owned_state
from .vrf import (
    VRF_BACKENDS,
    VRF_VIEWS_DIR,
    add_netns_vrf,
    add_vrf_view,
    choose_vrf_backend,
    plan_vrfs,
    remove_netns_vrf,
    vrf_netns_name,
)

__all__ = [
    "DAEMON_ENV", "DAEMON_FD_LIMIT", "ETC_FRR", "FRR_CRASH_DIR", "NEIGH_GC_KEYS", "ROUTER_SYSCTLS", "RUN_FRR",
    "VRF_BACKENDS", "VRF_VIEWS_DIR", "ZEBRA_NHG_WORKAROUND",
    "LinuxBatches", "SizePolicy", "TwinState",
    "add_netns_vrf", "add_vrf_view", "all_namespaces", "apply_plan_delta", "bridge_commands", "cabled_ports",
    "choose_vrf_backend", "daemons_for", "default_state_dir", "detect_kernel_features", "device_locations", "down",
    "frr_daemons_in", "is_our_daemon", "kernel_probe_netns", "namespaces_with_prefix", "neighbour_limits_record",
    "node_namespace", "owned_state", "plan_vrfs", "process_alive", "raise_neighbour_limits", "record_daemon_pids",
    "release_neighbour_limits", "reload_frr_config", "remove_frr_crash_dirs", "remove_netns_vrf", "restart_daemons",
    "run", "start_daemon", "status", "stop_daemon", "strip_twin_lines", "twin_frr_conf", "up", "vrf_netns_name",
    "vtep_of", "vtysh_load", "vxlan_add_command", "write_frr_file", "recorded_policy", "size_policy",
]
