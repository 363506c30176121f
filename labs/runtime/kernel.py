"""Kernel features and network namespaces: what the kernel can do (feature-detected, never assumed), which
namespaces exist, and creating the twin's namespaces with the sysctls every router needs."""

from __future__ import annotations

from .. import ownership
from ..shell import ip_batch, ns_exec, parallel, run
from .state import TwinState, claim

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


def all_namespaces() -> list[str]:
    """Every named network namespace on the host (``ip netns list``)."""
    listing = run(["ip", "netns", "list"], check=False).stdout
    return [line.split()[0] for line in listing.splitlines() if line.strip()]


def namespaces_with_prefix(prefix: str) -> list[str]:
    """Namespaces named ``<prefix>-…``: by name only, so ownership decides what may be touched."""
    return sorted(name for name in all_namespaces() if name.startswith(f"{prefix}-"))


def kernel_probe_netns(prefix: str) -> str:
    return f"{prefix}-.kernelprobe"  # node names start with a letter or digit: never collides


def detect_kernel_features(prefix: str, state: TwinState) -> dict[str, bool]:
    """Feature-detect in a scratch namespace (never assume): VRF devices decide whether tenant VRFs are real.
    The scratch namespace is marked as the twin's before it exists, so a crash here is cleaned up too."""
    scratch = kernel_probe_netns(prefix)
    claim(state, [scratch])
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
        if scratch not in all_namespaces():
            ownership.release([scratch], state.installation)


def set_router_sysctls(namespace: str) -> None:
    ns_exec(namespace, ["sysctl", "-qw", *(f"{key}={value}" for key, value in ROUTER_SYSCTLS.items())])


def create_namespaces(state: TwinState) -> None:
    """Create every namespace the state records (already claimed) and bind their ownership markers. A netns VRF
    routes like the switch it belongs to."""
    ip_batch([f"netns add {ns}" for ns in state.namespaces])
    ownership.bind(state.namespaces, state.installation)
    # Per-namespace sysctls need one exec per namespace; sysctl takes them all in one call.
    routers = [*state.node_netns.values(), *(ns for vrfs in state.vrf_netns.values() for ns in vrfs.values())]
    parallel(set_router_sysctls, routers)
