"""What a running twin consists of (its JSON state file), how its names are formed, and who may act on it.

Everything the twin creates is recorded here *before* it is created, so ``down`` removes exactly that, also
after a crash. Ownership (``labs.ownership``): the state file records the installation that booted the twin; an
operation by another installation is refused, never "cleaned up".
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from compiler.errors import TwinError

from .. import ownership
from ..frr_binaries import LEGACY_FRR, FrrBinaries, use_frr
from ..ownership import SHARED_RUN_DIR
from ..topology import NAME_PREFIX, NODE_NAME, TwinTopology

REPO_ROOT = Path(__file__).resolve().parents[2]


def default_state_dir() -> Path:
    return Path(os.environ.get("FT_TWIN_STATE_DIR", REPO_ROOT / "out" / "twins"))


def node_namespace(prefix: str, node_name: str) -> str:
    """The namespace (and FRR pathspace) of a twin node, ``<prefix>-<node>``, after checking both are plain names
    (they become paths under /etc/frr written as root). TwinError names the bad value."""
    if not NAME_PREFIX.fullmatch(prefix or "") or not NODE_NAME.fullmatch(node_name or ""):
        raise TwinError(f"prefix={prefix!r} / node={node_name!r} are not plain names")
    return TwinTopology(prefix).netns(node_name)


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
    size_policy: dict = field(default_factory=dict)  # labs.runtime.sizing.SizePolicy as booted ({} before it existed)
    # Which FRR the switches run (labs.frr_binaries.FrrBinaries.as_dict: release, paths, the version read from
    # the binary, why it was chosen); {} in state files from before the choice existed (system FRR 8.4).
    frr: dict = field(default_factory=dict)

    @property
    def state_file(self) -> Path:
        return Path(self.state_dir) / f"{self.prefix}.json"

    @property
    def log_dir(self) -> Path:
        """Where the twin's FRR daemons write their logs (boot and restarts alike)."""
        return Path(self.state_dir) / self.prefix / "logs"

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
        state = cls(**json.loads(path.read_text()))
        # Talk to the twin with the FRR it runs (its vtysh, its frr-reload.py); a state file from before the
        # choice existed was booted with the system's FRR 8.4.
        use_frr(FrrBinaries.from_dict(state.frr) if state.frr else LEGACY_FRR)
        return state


def owned_state(prefix: str, state_dir: Path | str | None = None, installation: str | None = None
                ) -> TwinState | None:
    """The twin's state file if it exists, refused (TwinError) when another installation booted the twin: what
    every operation on a running twin (checks, failure injection, changes) starts from."""
    state = TwinState.load(prefix, state_dir)
    if state is not None:
        require_owner(state, resolve_installation(installation))
    return state


def resolve_installation(installation: str | None) -> str:
    """The given installation id (checked) or this process's default one."""
    return ownership.check_installation(installation) if installation else ownership.default_installation()


def require_owner(state: TwinState, installation: str) -> None:
    """Refuse to act on a twin another installation booted (its state file says so)."""
    if state.installation != installation:
        owner = state.installation or "unknown (state file from before installation ids)"
        raise TwinError(f"twin {state.prefix!r} ({state.state_file}) belongs to installation {owner}, not to this "
                        f"installation ({installation}); nothing was touched")


def claim(state: TwinState, namespaces: Iterable[str]) -> None:
    """Mark namespaces as this twin's before they exist (refused if someone else's)."""
    ownership.claim(namespaces, installation=state.installation, prefix=state.prefix,
                    state_file=str(state.state_file))


@contextlib.contextmanager
def prefix_lock(prefix: str) -> Iterator[None]:
    """Machine-wide lock of one twin prefix: boot and teardown of the same twin never overlap."""
    SHARED_RUN_DIR.mkdir(parents=True, exist_ok=True)
    with open(SHARED_RUN_DIR / f"{prefix}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
