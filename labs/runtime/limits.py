"""Kernel limits shared by every namespace on the host, raised while any twin runs and restored by the last.

The ARP/ND table is one kernel table shared by every namespace, its limits settable only in the root namespace
(default gc_thresh3=1024): beyond ~100 switches BGP unnumbered fails with "neighbor table overflow"
(docs/twin-notes.md). Holders are recorded machine-wide (``SHARED_RUN_DIR/neigh-gc.json``) so concurrent twins do
not restore each other's raised values.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
from collections.abc import Iterator
from pathlib import Path

from ..ownership import SHARED_RUN_DIR
from .kernel import all_namespaces

NEIGH_GC_KEYS = tuple(f"net.ipv{family}.neigh.default.gc_thresh{level}" for family in (4, 6) for level in (1, 2, 3))


def read_sysctl(key: str) -> int:
    return int(Path("/proc/sys", *key.split(".")).read_text().strip())


def write_sysctl(key: str, value: int) -> None:
    Path("/proc/sys", *key.split(".")).write_text(f"{value}\n")


def raise_neighbour_limits(prefix: str, interfaces: int) -> None:
    """Raise the neighbour-table limits for a twin with ``interfaces`` interfaces and record it as a holder."""
    wanted_max = max(65536, 8 * interfaces)
    wanted = {1: wanted_max // 4, 2: wanted_max // 2, 3: wanted_max}
    with shared_file_lock():
        record = _load_neighbour_record()
        if record is None:
            record = {"original": {key: read_sysctl(key) for key in NEIGH_GC_KEYS}, "holders": []}
        if prefix not in record["holders"]:
            record["holders"].append(prefix)
        for key in NEIGH_GC_KEYS:
            value = wanted[int(key[-1])]
            if read_sysctl(key) < value:
                write_sysctl(key, value)
        _neighbour_record_path().write_text(json.dumps(record))


def release_neighbour_limits(prefix: str) -> None:
    """Drop this twin as a holder; the last holder down restores the original limits."""
    with shared_file_lock():
        record = _load_neighbour_record()
        if record is None:
            return
        live = set(all_namespaces())
        # Drop this twin and any holder that crashed without tearing down (none of its namespaces remain).
        record["holders"] = [holder for holder in record["holders"]
                             if holder != prefix and any(ns.startswith(f"{holder}-") for ns in live)]
        if record["holders"]:
            _neighbour_record_path().write_text(json.dumps(record))
            return
        for key, value in record["original"].items():
            write_sysctl(key, value)
        _neighbour_record_path().unlink()


def neighbour_limits_record() -> dict | None:
    """The machine-wide record (originals + holders), for status and tests."""
    return _load_neighbour_record()


def _neighbour_record_path() -> Path:
    return SHARED_RUN_DIR / "neigh-gc.json"


def _load_neighbour_record() -> dict | None:
    path = _neighbour_record_path()
    return json.loads(path.read_text()) if path.exists() else None


@contextlib.contextmanager
def shared_file_lock() -> Iterator[None]:
    """Machine-wide lock for files every twin on the host shares (this record, the VRF views root)."""
    SHARED_RUN_DIR.mkdir(parents=True, exist_ok=True)
    with open(SHARED_RUN_DIR / "neigh-gc.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
