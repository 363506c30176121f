"""Running the few host tools the twin needs (ip, bridge, vtysh, ping) with clear errors.

Every command is an argument list (never a shell string built from input), and every failure raises
``TwinError`` naming the command and what it printed, so a broken twin says why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from compiler.errors import InputError, TwinError

from .frr_binaries import SYSTEM_BIN_DIR, active_frr

FRR_BIN_DIR = SYSTEM_BIN_DIR  # Debian's FRR; which FRR the twin runs: labs.frr_binaries
REQUIRED_TOOLS = ("ip", "bridge", "vtysh", "unshare", "nsenter", "ping", "sysctl")
NETNS_DIR = "/run/netns"  # where ``ip netns`` mounts named namespaces (iproute2)
# Subprocess-bound work: threads overlap the fork/exec and netlink waits; 2 cores still help.
PARALLELISM = 8


def run(args: Sequence[str], *, input: str | None = None, check: bool = True, timeout: float = 60.0
        ) -> subprocess.CompletedProcess:
    try:
        result = subprocess.run(list(args), input=input, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as exc:
        raise TwinError(f"{args[0]}: not installed ({exc})") from exc
    except subprocess.TimeoutExpired as exc:
        raise TwinError(f"{' '.join(args)}: timed out after {timeout}s") from exc
    if check and result.returncode != 0:
        raise TwinError(f"{' '.join(args)} failed (rc={result.returncode}): {(result.stderr or result.stdout).strip()}")
    return result


def ip_batch(commands: list[str], *, netns: str | None = None, tool: str = "ip") -> None:
    """Run many ``ip``/``bridge`` commands in one process (fork/exec per command dominates big twins)."""
    if not commands:
        return
    args = [tool] + (["-n", netns] if netns else []) + ["-batch", "-"]
    run(args, input="\n".join(commands) + "\n", timeout=300)


def ns_enter_args(netns: str) -> list[str]:
    """The prefix that runs a command in a named network namespace and nothing else. Not ``ip netns exec``:
    that also gives every command a private mount namespace (a copy of the host's mount table, which holds one
    nsfs mount per namespace on the host, remounting /sys), and every later ``ip netns add``/``del`` on the
    host then propagates into each such copy a daemon keeps alive: cost growing with switches x namespaces
    (docs/twin-notes.md, 256 switches). /proc/sys/net and netlink follow the network namespace alone; /sys
    does not (read interface counters with ``ip -s``)."""
    return ["nsenter", f"--net={NETNS_DIR}/{netns}", "--"]


def ns_exec(netns: str, args: Sequence[str], **kwargs) -> subprocess.CompletedProcess:
    return run([*ns_enter_args(netns), *args], **kwargs)


def parallel(function, items, workers: int = PARALLELISM) -> list:
    """Map over items with threads; the first exception is re-raised after all work finished."""
    items = list(items)
    if not items:
        return []
    with ThreadPoolExecutor(max_workers=min(workers, len(items))) as pool:
        futures = [pool.submit(function, item) for item in items]
        results, first_error = [], None
        for future in futures:
            try:
                results.append(future.result())
            except Exception as exc:  # collected and re-raised below
                results.append(None)
                first_error = first_error or exc
    if first_error:
        raise first_error
    return results


def twin_prerequisites() -> list[str]:
    """Reasons the twin cannot run on this machine (empty list: it can)."""
    missing = []
    if os.geteuid() != 0:
        missing.append("needs root (network namespaces, veth, FRR daemons)")
    try:
        active_frr()  # the chosen FRR (labs.frr_binaries): its zebra and bgpd exist and run
    except InputError as error:
        missing.append(f"FRR: {error} (apt-get install frr; FRR 10.3: scripts/frr10.sh)")
    for tool in REQUIRED_TOOLS:
        if shutil.which(tool) is None:
            missing.append(f"'{tool}' not on PATH")
    if not missing:
        probe = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
        if probe.returncode != 0:
            missing.append(f"'ip netns' does not work: {probe.stderr.strip()}")
    return missing
