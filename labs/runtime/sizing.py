"""How a twin is sized to this machine: start waves and timeouts that scale with the fabric, and the protocol
settings (BFD, BGP timers) a twin of this size runs, chosen once per boot and recorded in the state file.

Measured on a 2-core / 24 GiB machine (issue 19, docs/twin-notes.md): with BFD on, 128 switches idle FRR at 1.7
of 2 cores (bfdd's 300 ms x 3 sessions on every link) and bgpd then misses hold timers (3,698 expiries); 68
switches with BFD on converge and pass. So BFD runs while a twin has at most ``BFD_SWITCHES_PER_CORE`` switches
per core and is switched off above (the report says so and the failover limit follows: BGP hold time instead
of the BFD detection time). Link cuts are still seen at once: a veth whose peer goes down loses carrier, and
FRR's ``datacenter`` defaults tear the session down on it (fast external failover), with or without BFD.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass

from compiler.errors import FieldError, InputError

# 68 switches with BFD on were green on 2 cores, 128 were not (issue 19): 48 per core keeps 96 on 2 cores.
BFD_SWITCHES_PER_CORE = 48
# Above the BFD limit the twin's BGP timers are at least RFC 4271's suggested ones scaled down to a data
# center: keepalive one third of hold (RFC 4271 section 10: hold 90 s, keepalive 30 s); a hold time of 30 s
# rides out a cold start that keeps bgpd off the CPU for seconds (hold 9 s did not: issue 19).
LARGE_TWIN_HOLD_S = 30
# Per switch being started at once: FRR daemons (~40 MiB) plus the start's own processes; a wave never asks
# for more memory than is available.
START_MIB_PER_SWITCH = 64
STARTS_PER_CORE = 4  # daemon starts are CPU-bound with fork/exec and netlink waits between them
# From this many switches the fabric's cables come up only once every switch's daemons run: started in waves with
# the cables up, each new leaf made every running switch recompute and reinstall routes while daemons were still
# starting (at 256 switches the leaves' bgpd used 1.4 s of CPU each and zebra 0.6 s). Plugged in at once, each
# switch learns the fabric in a few large updates.
LATE_CABLING_SWITCHES = 64
# Convergence: every switch's bgpd has to run its best-path and zebra its installs on shared cores.
CONVERGE_BASE_S = 60.0
CONVERGE_S_PER_SWITCH = 0.5
BFD_OVERRIDE = "FT_TWIN_BFD"  # "on", "off" or unset/"auto" (size policy)
BFD_NEIGHBOR_LINE = re.compile(r"^\s*neighbor \S+ bfd\b.*$")
BGP_TIMERS_LINE = re.compile(r"^(\s*)timers bgp (\d+) (\d+)\s*$")
# FRR's BFD defaults (bfdd: receive/transmit interval 300 ms, detect multiplier 3), used when the config sets
# no BFD profile of its own.
FRR_BFD_INTERVAL_MS = 300
FRR_BFD_MULTIPLIER = 3


@dataclass(frozen=True, slots=True)
class SizePolicy:
    """What a twin of ``switches`` switches runs on a machine with ``cpus`` cores and ``memory_mib`` available."""

    switches: int
    cpus: int
    memory_mib: int
    bfd: bool  # False: ``neighbor … bfd`` lines are left out of the twin's frr.conf and no bfdd runs
    min_hold_s: int  # 0: the config's BGP timers as they are; otherwise hold raised to at least this
    wave: int  # switches whose daemons start at the same time
    start_timeout_s: float  # one switch's daemon start and config load
    converge_timeout_s: float  # every BGP session Established
    reason: str
    late_cabling: bool = False  # fabric cables held down until every switch's daemons run (LATE_CABLING_SWITCHES)

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> SizePolicy:
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})


def available_memory_mib() -> int:
    """MemAvailable of /proc/meminfo (what can be used without swapping), in MiB."""
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return 0


def size_policy(switches: int, *, cpus: int | None = None, memory_mib: int | None = None,
                bfd_override: str | None = None) -> SizePolicy:
    """The policy for a twin of ``switches`` switches on this machine (or the given ``cpus``/``memory_mib``).
    ``bfd_override`` (default ``FT_TWIN_BFD``): "on"/"off" force it, "auto" or empty choose by size."""
    cpus = cpus or os.cpu_count() or 1
    memory_mib = available_memory_mib() if memory_mib is None else memory_mib
    override = (os.environ.get(BFD_OVERRIDE, "") if bfd_override is None else bfd_override).strip().lower()
    if override not in ("", "auto", "on", "off"):
        raise InputError([FieldError(BFD_OVERRIDE, override, "use on, off or auto")])
    bfd_limit = BFD_SWITCHES_PER_CORE * cpus
    if override in ("on", "off"):
        bfd = override == "on"
        reason = f"BFD {override} ({BFD_OVERRIDE}={override})"
    else:
        bfd = switches <= bfd_limit
        reason = (f"BFD as configured: {switches} switches <= {bfd_limit} ({BFD_SWITCHES_PER_CORE} per core x {cpus})"
                  if bfd else f"BFD off: {switches} switches > {bfd_limit} ({BFD_SWITCHES_PER_CORE} per core x {cpus} "
                  "cores; bfdd would keep the cores busy and BGP would miss hold timers)")
    min_hold_s = 0 if bfd or switches <= bfd_limit else LARGE_TWIN_HOLD_S
    if min_hold_s:
        reason += f"; BGP hold time at least {min_hold_s} s"
    wave = max(1, min(switches, STARTS_PER_CORE * cpus, max(1, memory_mib // START_MIB_PER_SWITCH)))
    # Each start runs next to wave-1 others on ``cpus`` cores, and next to the daemons already running.
    start_timeout_s = round(max(30.0, 6.0 * wave / cpus + 0.25 * switches), 1)
    converge_timeout_s = round(CONVERGE_BASE_S + CONVERGE_S_PER_SWITCH * switches, 1)
    late_cabling = switches >= LATE_CABLING_SWITCHES
    if late_cabling:
        reason += "; fabric cables up once every switch runs"
    return SizePolicy(switches=switches, cpus=cpus, memory_mib=memory_mib, bfd=bfd, min_hold_s=min_hold_s, wave=wave,
                      start_timeout_s=start_timeout_s, converge_timeout_s=converge_timeout_s, reason=reason,
                      late_cabling=late_cabling)


def policy_frr_conf(frr_conf: str, policy: SizePolicy | None) -> str:
    """``frr_conf`` as a twin under ``policy`` runs it: without BFD lines when BFD is off, with the BGP hold
    time raised to ``min_hold_s`` (keepalive a third of it) where it is lower. Unchanged without a policy."""
    if policy is None or (policy.bfd and not policy.min_hold_s):
        return frr_conf
    out = []
    for line in frr_conf.splitlines():
        if not policy.bfd and BFD_NEIGHBOR_LINE.match(line):
            continue
        timers = BGP_TIMERS_LINE.match(line)
        if timers and policy.min_hold_s and int(timers.group(3)) < policy.min_hold_s:
            line = f"{timers.group(1)}timers bgp {policy.min_hold_s // 3} {policy.min_hold_s}"
        out.append(line)
    return "\n".join(out) + ("\n" if frr_conf.endswith("\n") else "")


def recorded_policy(size_policy: dict) -> SizePolicy | None:
    """The policy a twin was booted with (``TwinState.size_policy``); None for a twin booted before it existed."""
    return SizePolicy.from_dict(size_policy) if size_policy else None
