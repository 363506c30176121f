"""Which FRR the twin runs: Debian bookworm's FRR 8.4 (the system package) or FRR 10.3 (the FRR generation SONiC
ships) extracted from Debian trixie by ``scripts/frr10.sh`` beside it, never installed into the system.

The choice: ``python -m labs up --frr auto|10.3|8.4`` (``manage.py twin up --frr``), else ``FT_TWIN_FRR``, else
``auto`` (10.3 when extracted and runnable, otherwise 8.4 with the reason stated). ``FT_FRR10_DIR`` moves the
extraction (default ``<repo>/out/frr/10.3``, the default of scripts/frr10.sh too). The version recorded in the twin
state and report is read from the binary (``zebra --version``), never assumed from the choice.

One process talks to one FRR: ``use_frr`` makes a set the active one (``runtime.up`` and loading a running twin's
state do it), and everything that runs an FRR tool (daemons, ``vtysh``, ``frr-reload.py``) asks ``active_frr``.
"""

from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from compiler.errors import FieldError, InputError

REPO_ROOT = Path(__file__).resolve().parents[1]
SYSTEM_RELEASE = "8.4"  # Debian bookworm's frr package (8.4.4)
EXTRACTED_RELEASE = "10.3"  # Debian trixie's frr package, extracted by scripts/frr10.sh
CHOICES = ("auto", EXTRACTED_RELEASE, SYSTEM_RELEASE)
SYSTEM_BIN_DIR = "/usr/lib/frr"  # Debian's daemon directory (zebra, bgpd, bfdd, frr-reload.py)
SYSTEM_VTYSH = "/usr/bin/vtysh"
REQUIRED_DAEMONS = ("zebra", "bgpd")
ETC_FRR, RUN_FRR, LIB_FRR = "/etc/frr", "/var/run/frr", "/var/lib/frr"  # Debian's sysconf, run and state dirs
# FRR releases whose zebra drops an L3VNI remote VTEP's router MAC when bgpd re-announces a route after a
# failure (docs/twin-notes.md, "L3VNI next hops"): the twin re-learns them with `clear bgp *` (labs/measure.py).
# Measured on this machine with the L3VNI failover twin test: 8.4.4 loses them, 10.3 does not.
L3VNI_RELEARN_RELEASES = (SYSTEM_RELEASE,)


@dataclass(frozen=True)
class FrrBinaries:
    """One FRR binary set: where its daemons and vtysh are, and what it says it is."""

    release: str  # "8.4" (system) or "10.3" (extracted): which set was chosen
    bin_dir: str  # zebra, bgpd, bfdd, frr-reload.py
    vtysh: str
    root: str  # "" for the system set; the extraction root (its own loader and libraries) otherwise
    version: str  # read from `zebra --version` of this set
    reason: str  # why this set runs (the choice, or why `auto` fell back to 8.4)

    def daemon(self, name: str) -> str:
        return f"{self.bin_dir}/{name}"

    @property
    def frr_reload(self) -> str:
        return f"{self.bin_dir}/frr-reload.py"

    @property
    def needs_mgmtd(self) -> bool:
        """FRR 10 routes configuration through its management daemon: zebra and bgpd are mgmtd back-end clients
        and mgmtd must run first (FRR user guide, "MGMTd (Management Daemon)"); FRR 8.4 has no mgmtd."""
        return not self.version.startswith(SYSTEM_RELEASE)

    @property
    def pathspace_dirs(self) -> tuple[str, ...]:
        """The per-pathspace directories this FRR uses: config and runtime, plus FRR 10's state directory
        (/var/lib/frr/<pathspace>, where it keeps persistent state; without it every daemon logs a mkdir error)."""
        return (ETC_FRR, RUN_FRR, *((LIB_FRR,) if self.needs_mgmtd else ()))

    @property
    def relearns_l3vni(self) -> bool:
        """True when this FRR needs the twin's automatic `clear bgp *` after an L3VNI next-hop loss."""
        return self.release in L3VNI_RELEARN_RELEASES

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> FrrBinaries:
        return cls(**{key: str(data.get(key, "")) for key in cls.__dataclass_fields__})


# What a twin state file from before the FRR choice ran: the system's FRR 8.4 (its version was not recorded).
LEGACY_FRR = FrrBinaries(SYSTEM_RELEASE, SYSTEM_BIN_DIR, SYSTEM_VTYSH, "", "8.4 (not recorded)",
                         "state file from before the FRR choice: the system FRR")


def frr10_dir() -> Path:
    """Where scripts/frr10.sh extracts FRR 10.3 (``FT_FRR10_DIR`` or ``<repo>/out/frr/10.3``)."""
    return Path(os.environ.get("FT_FRR10_DIR") or REPO_ROOT / "out" / "frr" / EXTRACTED_RELEASE)


def system_frr() -> FrrBinaries:
    """Debian's FRR 8.4; InputError naming the path when it is not installed."""
    version = read_version(SYSTEM_BIN_DIR, field="frr")
    return FrrBinaries(SYSTEM_RELEASE, SYSTEM_BIN_DIR, SYSTEM_VTYSH, "", version, "system FRR (Debian bookworm)")


def extracted_frr(directory: Path | None = None) -> FrrBinaries:
    """FRR 10.3 extracted by scripts/frr10.sh; InputError naming the missing or broken path otherwise."""
    root = (directory or frr10_dir()) / "root"
    bin_dir = root / "usr" / "lib" / "frr"
    vtysh = root / "usr" / "bin" / "vtysh"
    version = read_version(str(bin_dir), field="FT_FRR10_DIR")
    if not version.startswith(EXTRACTED_RELEASE):
        raise InputError(FieldError("FT_FRR10_DIR", str(bin_dir / "zebra"),
                                    f"reports FRR {version}, not {EXTRACTED_RELEASE}; re-run scripts/frr10.sh"))
    if not os.access(vtysh, os.X_OK):
        raise InputError(FieldError("FT_FRR10_DIR", str(vtysh), "not found or not executable; run scripts/frr10.sh"))
    return FrrBinaries(EXTRACTED_RELEASE, str(bin_dir), str(vtysh), str(root), version,
                       f"extracted from Debian trixie into {root.parent}")


def select_frr(*, choice: str | None = None, directory: Path | None = None) -> FrrBinaries:
    """The FRR set for ``choice`` (``auto``, ``10.3`` or ``8.4``; default ``FT_TWIN_FRR`` or ``auto``).

    An explicit choice that cannot run is an InputError naming the path; ``auto`` prefers 10.3 and falls back
    to 8.4 with the reason in ``reason``."""
    chosen = (choice or os.environ.get("FT_TWIN_FRR") or "auto").strip()
    field = "frr" if choice else "FT_TWIN_FRR"
    if chosen not in CHOICES:
        raise InputError(FieldError(field, chosen, f"must be one of {', '.join(CHOICES)}"))
    if chosen == SYSTEM_RELEASE:
        return system_frr()
    if chosen == EXTRACTED_RELEASE:
        return extracted_frr(directory)
    try:
        return extracted_frr(directory)
    except InputError as missing:
        fallback = system_frr()
        reason = f"FRR {EXTRACTED_RELEASE} not usable ({missing}); running the system FRR {fallback.version}"
        return FrrBinaries(**{**fallback.as_dict(), "reason": reason})


def read_version(bin_dir: str, *, field: str) -> str:
    """The version ``<bin_dir>/zebra --version`` prints (e.g. ``10.3``); InputError naming the path when a
    required daemon is missing or zebra does not run."""
    for daemon in REQUIRED_DAEMONS:
        path = f"{bin_dir}/{daemon}"
        if not os.access(path, os.X_OK):
            raise InputError(FieldError(field, path, "not found or not executable"))
    return _zebra_version(f"{bin_dir}/zebra", field)


@functools.lru_cache(maxsize=8)
def _zebra_version(zebra: str, field: str) -> str:
    try:
        result = subprocess.run([zebra, "--version"], capture_output=True, text=True, timeout=20)
    except OSError as exc:
        raise InputError(FieldError(field, zebra, f"does not run: {exc}")) from exc
    for line in result.stdout.splitlines():
        if line.startswith("zebra version "):
            return line.removeprefix("zebra version ").strip()
    raise InputError(FieldError(field, zebra, f"does not run: `--version` printed "
                                              f"{(result.stdout + result.stderr).strip()[:200]!r}"))


_active: FrrBinaries | None = None


def use_frr(binaries: FrrBinaries) -> None:
    """Make ``binaries`` the FRR this process runs and talks to (the twin it boots or acts on)."""
    global _active
    _active = binaries


def active_frr() -> FrrBinaries:
    """The FRR this process uses: the one ``use_frr`` set, else ``select_frr()`` (env/auto) on first use."""
    global _active
    if _active is None:
        _active = select_frr()
    return _active


def frr_daemon_dirs() -> tuple[str, ...]:
    """Directories FRR daemons of this project run from (the system's and the active set's)."""
    dirs = {SYSTEM_BIN_DIR}
    if _active is not None:
        dirs.add(_active.bin_dir)
    dirs.add(str(frr10_dir() / "root" / "usr" / "lib" / "frr"))
    return tuple(sorted(dirs))
