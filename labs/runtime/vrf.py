"""Tenant VRF backends: kernel VRF devices, or FRR's network-namespace VRF backend (one namespace per switch VRF,
seen by the switch's daemons through a per-switch view of /run/netns).

The view is a host directory (``VRF_VIEWS_DIR/<pathspace>/<VRF>`` bind-mounted to the VRF's namespace) that
``labs.runtime.daemons`` mounts over /run/netns for the switch's daemons: zebra's netns VRF backend treats every
entry of /run/netns as a VRF named after the entry, so a switch must see exactly its own VRFs.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from compiler.errors import TwinError
from compiler.paths import safe_join

from .. import ownership
from ..ownership import SHARED_RUN_DIR
from ..shell import ip_batch, run
from ..topology import TwinNode, TwinTopology
from .kernel import all_namespaces, set_router_sysctls
from .limits import shared_file_lock
from .state import TwinState, claim

VRF_BACKENDS = ("", "kernel", "netns", "none")  # FT_TWIN_VRF_BACKEND values ("": feature-detected)
VRF_VIEWS_DIR = SHARED_RUN_DIR / "vrf-views"


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
    claim(state, [namespace])
    run(["ip", "netns", "add", namespace])
    ownership.bind([namespace], state.installation)
    set_router_sysctls(namespace)
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
    if is_mountpoint(view):
        run(["umount", "-l", str(view)], check=False)
    with contextlib.suppress(OSError):
        view.unlink()
    run(["ip", "netns", "del", namespace], check=False)
    if namespace not in all_namespaces():
        ownership.release([namespace], state.installation)
    del state.vrf_netns[node_name][vrf]
    state.save()


def add_vrf_view(pathspace: str, vrf: str, namespace: str) -> None:
    """Make the VRF namespace visible as ``/run/netns/<vrf>`` to the daemons of switch ``pathspace``."""
    _ensure_views_root()
    view = VRF_VIEWS_DIR / pathspace
    view.mkdir(exist_ok=True)
    entry = safe_join(view, vrf, fields=("vrf",))  # bind-mounted as root: a VRF name never leaves the views dir
    if is_mountpoint(entry):
        return
    entry.touch()
    run(["mount", "--bind", f"/run/netns/{namespace}", str(entry)])


def remove_vrf_views(pathspaces: set[str]) -> None:
    """Unmount and delete the VRF views of these switches (they pin the VRF namespaces)."""
    if not VRF_VIEWS_DIR.is_dir():
        return
    for pathspace in sorted(pathspaces):
        view = VRF_VIEWS_DIR / pathspace
        if not view.is_dir():
            continue
        for entry in view.iterdir():
            if is_mountpoint(entry):
                run(["umount", "-l", str(entry)], check=False)
            with contextlib.suppress(OSError):
                entry.unlink()
        with contextlib.suppress(OSError):
            view.rmdir()


def _ensure_views_root() -> None:
    with shared_file_lock():
        VRF_VIEWS_DIR.mkdir(parents=True, exist_ok=True)
        if not is_mountpoint(VRF_VIEWS_DIR):
            # Like /run/netns itself: a bind mount onto itself that can be made shared.
            run(["mount", "--bind", str(VRF_VIEWS_DIR), str(VRF_VIEWS_DIR)])
        run(["mount", "--make-shared", str(VRF_VIEWS_DIR)])


def is_mountpoint(path: Path) -> bool:
    target = str(path)
    with open("/proc/self/mountinfo") as handle:
        return any(line.split()[4] == target for line in handle)
