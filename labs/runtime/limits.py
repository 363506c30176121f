"""Kernel limits shared by every namespace on the host, raised while any twin runs and restored by the last.

- The ARP/ND table is one kernel table shared by every namespace, its limits settable only in the root namespace
  (default gc_thresh3=1024): beyond ~100 switches BGP unnumbered fails with "neighbor table overflow"
  (docs/twin-notes.md).
- inotify instances are counted per user, and every twin zebra runs as ``frr``: zebra opens one inotify instance
  (it watches /run/netns for VRFs), and the default ``fs.inotify.max_user_instances`` is 128, so switch 129 of
  a twin crashed at start (issue 19). Each twin adds what it needs on top of the original value.
- File descriptors: ``fs.file-max`` (every daemon is capped at ``DAEMON_FD_LIMIT`` of its own) is raised when a
  twin could exhaust it; it rarely is low.

Holders are recorded machine-wide (``SHARED_RUN_DIR/neigh-gc.json``, with what each needs) so concurrent twins do
not restore each other's raised values. A limit that cannot be raised (``/proc/sys`` read-only in a container)
stops the boot with an error naming it and the value needed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
from collections.abc import Iterator
from pathlib import Path

from compiler.errors import TwinError

from ..ownership import SHARED_RUN_DIR
from .kernel import all_namespaces

NEIGH_GC_KEYS = tuple(f"net.ipv{family}.neigh.default.gc_thresh{level}" for family in (4, 6) for level in (1, 2, 3))
INOTIFY_INSTANCES = "fs.inotify.max_user_instances"
FILE_MAX = "fs.file-max"
# Per switch: zebra's inotify instance, plus one for a daemon restarted while the old one is still exiting.
INOTIFY_PER_SWITCH = 2
# Per switch: zebra + bgpd + bfdd, each capped at DAEMON_FD_LIMIT (1024) open files.
FILES_PER_SWITCH = 3 * 1024
ADDITIVE_KEYS = (INOTIFY_INSTANCES,)  # per-user counts: each twin's need adds to the original value
LIMIT_KEYS = (*NEIGH_GC_KEYS, INOTIFY_INSTANCES, FILE_MAX)


def read_sysctl(key: str) -> int:
    return int(Path("/proc/sys", *key.split(".")).read_text().strip())


def write_sysctl(key: str, value: int) -> None:
    Path("/proc/sys", *key.split(".")).write_text(f"{value}\n")


def raise_neighbour_limits(prefix: str, interfaces: int, switches: int = 0) -> dict[str, int]:
    """Raise the host-wide limits a twin with ``interfaces`` interfaces and ``switches`` switches needs (neighbour
    tables, inotify instances, open files) and record it as a holder; returns the values now in force."""
    wanted_max = max(65536, 8 * interfaces)
    needs = {key: {1: wanted_max // 4, 2: wanted_max // 2, 3: wanted_max}[int(key[-1])] for key in NEIGH_GC_KEYS}
    needs[INOTIFY_INSTANCES] = INOTIFY_PER_SWITCH * switches
    needs[FILE_MAX] = FILES_PER_SWITCH * switches
    with shared_file_lock():
        record = _load_neighbour_record()
        if record is None:
            record = {"original": {}, "holders": [], "needs": {}}
        record.setdefault("needs", {})
        for key in LIMIT_KEYS:  # a record written before a key was managed: its original is today's value
            record["original"].setdefault(key, read_sysctl(key))
        if prefix not in record["holders"]:
            record["holders"].append(prefix)
        record["needs"][prefix] = needs
        wanted = _wanted(record)
        # Recorded first: a limit that cannot be raised fails the boot, whose teardown then restores the rest.
        _neighbour_record_path().write_text(json.dumps(record))
        for key in LIMIT_KEYS:
            current = read_sysctl(key)
            if current < wanted[key]:
                try:
                    write_sysctl(key, wanted[key])
                except OSError as exc:
                    raise TwinError(f"kernel limit {key} is {current} but the running twins need {wanted[key]} "
                                    f"({_why(key)}) and raising it failed ({exc}); ask the host's administrator to "
                                    f"run: sysctl -w {key}={wanted[key]}") from exc
        return {key: read_sysctl(key) for key in LIMIT_KEYS}


def _wanted(record: dict) -> dict[str, int]:
    """Per key what every holder together needs: the largest need for table sizes, the original value plus the
    sum of the needs for per-user counts."""
    needs = [record["needs"].get(holder, {}) for holder in record["holders"]]
    wanted = {}
    for key in LIMIT_KEYS:
        if key in ADDITIVE_KEYS:
            wanted[key] = record["original"][key] + sum(need.get(key, 0) for need in needs)
        else:
            wanted[key] = max([need.get(key, 0) for need in needs] or [0])
    return wanted


def _why(key: str) -> str:
    if key == INOTIFY_INSTANCES:
        return f"every twin zebra runs as user frr and takes one inotify instance; {INOTIFY_PER_SWITCH} per switch"
    if key == FILE_MAX:
        return f"up to {FILES_PER_SWITCH} open files per switch"
    return "one neighbour table for every namespace on the host"


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
        record["needs"] = {holder: need for holder, need in record.get("needs", {}).items()
                           if holder in record["holders"]}
        if record["holders"]:
            # Per-user counts shrink back to what the remaining twins need (never below the original).
            wanted = _wanted(record)
            for key in ADDITIVE_KEYS:
                if key in record["original"] and read_sysctl(key) > wanted[key]:
                    write_sysctl(key, wanted[key])
            _neighbour_record_path().write_text(json.dumps(record))
            return
        for key, value in record["original"].items():
            if read_sysctl(key) != value:
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
