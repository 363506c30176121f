"""Twin benchmark: boot-to-converged time and FRR memory of compiled fabrics on this machine.

    python -m bench.twin_bench                 # 2x4, 4x16, 4x64 (root + FRR; otherwise prints why it skipped)
    python -m bench.twin_bench --sizes 2x4     # a subset

For each size a Clos (FRR platform, one tenant, one network with every server attached, numbered eBGP with BFD
as the compiler's defaults) is compiled, booted with labs.runtime, and measured:

- boot_s: namespaces, veth cables, Linux plans and daemons started (labs.runtime.up)
- converged_s: ``up()`` called -> every BGP session Established (labs.checks.check_bgp_sessions, polled)
- evpn_s: ``up()`` called -> every VTEP's EVPN flood lists complete
- checks_s / green: the 2x4 fabric also runs every live check (no failure injection): time until all are done
  and whether all passed (target: up and all checks green < 30 s)
- rss_total_mib / rss_per_switch_mib: sum of the RSS of the twin's FRR daemons (zebra, bgpd, bfdd)

``run()`` returns the rows and ``table(rows)`` formats them (bench/run.py imports both). Targets: 2x4 green in
< 30 s, 4x64 converged in < 60 s, ~30 MB RSS per switch.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import uuid

from compiler.api import compile_fabric
from compiler.scenario import snapshot_from_scenario
from labs import checks, runtime
from labs.from_compile import topology_from_compile
from labs.shell import twin_prerequisites
from validators.findings import CheckStatus, Report

DEFAULT_SIZES = ("2x4", "4x16", "4x64")
TARGETS = {"2x4": "green < 30 s", "4x16": "", "4x64": "converged < 60 s"}


def scenario(spines: int, leaves: int, bfd: bool = True) -> dict:
    return {"clos": {"name": f"bench{spines}x{leaves}", "spines": spines, "leaves": leaves, "servers_per_leaf": 1,
                     "platform": "frr"},
            "intent": {"name": f"bench{spines}x{leaves}", "bgp": {"bfd": bfd},
                       "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                       "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/22",
                                     "gateway": "10.10.0.1", "attachments": "all"}]}}


def measure(size: str, *, full_checks: bool | None = None, bfd: bool = True) -> dict:
    spines, leaves = (int(part) for part in size.split("x"))
    full_checks = size == "2x4" if full_checks is None else full_checks
    compiled_at = time.perf_counter()
    result = compile_fabric(snapshot_from_scenario(scenario(spines, leaves, bfd)))
    topology = topology_from_compile(result, name_prefix="tb" + uuid.uuid4().hex[:6], max_servers_per_leaf=1)
    row = {"fabric": size, "switches": len(topology.nodes), "hosts": len(topology.hosts),
           "compile_s": round(time.perf_counter() - compiled_at, 2),
           # The machine may be shared (CI, colleagues' tests): the 1-minute load average says how busy it was.
           "load_1m": round(os.getloadavg()[0], 1)}
    with tempfile.TemporaryDirectory(prefix="twin-bench-") as state_dir:
        called = time.time()
        state = runtime.up(topology, state_dir)
        try:
            row["boot_s"] = state.timings.get("boot_s")
            row["topology_s"] = state.timings.get("topology_s")  # namespaces, cables, Linux plans
            row["daemons_s"] = state.timings.get("daemons_s")  # FRR daemons started and configs loaded
            report = Report(f"bench {size}")
            bgp = checks.check_bgp_sessions(state, report, timeout_s=120.0)
            if bgp.get("converged_s") is not None:
                row["converged_s"] = round(state.daemons_started_at + bgp["converged_s"] - called, 2)
            else:
                row["converged_s"] = None
            checks.check_evpn_flood_lists(state, report, timeout_s=60.0)
            row["evpn_s"] = round(time.time() - called, 2)
            if full_checks:
                full, _measured = checks.verify(state, failover=False)
                row["checks_s"] = round(time.time() - called, 2)
                row["green"] = full.ok
                row["failed"] = [name for name, check in full.checks.items() if check.status == CheckStatus.FAILED]
            else:
                row["green"] = report.ok
                row["failed"] = [name for name, check in report.checks.items()
                                 if check.status == CheckStatus.FAILED]
            resources = checks.measure_resources(state)
            row["rss_total_mib"] = resources["rss_total_mib"]
            row["rss_per_switch_mib"] = resources["rss_per_switch_mib"]
            row["bfd"] = any("bfdd" in daemons for daemons in state.pids.values())
        finally:
            down_started = time.perf_counter()
            runtime.down(state.prefix, state_dir, force=True)
            row["down_s"] = round(time.perf_counter() - down_started, 2)
    return row


def run(sizes=DEFAULT_SIZES, *, bfd: bool = True) -> list[dict]:
    """One row per fabric size; a single row with ``skipped`` when the machine cannot run the twin."""
    missing = twin_prerequisites()
    if missing:
        return [{"fabric": ", ".join(sizes), "skipped": "needs root and FRR (" + "; ".join(missing) + ")"}]
    return [measure(size, bfd=bfd) for size in sizes]


def table(rows: list[dict]) -> str:
    if rows and "skipped" in rows[0]:
        return f"twin bench {rows[0]['fabric']}: skipped: {rows[0]['skipped']}"
    header = ("fabric", "switches", "hosts", "boot s (topology + daemons)", "converged s", "evpn s", "checks s", "green", "RSS MiB",
              "MiB/switch", "BFD", "down s", "load 1m", "target")
    lines = [" | ".join(header), " | ".join("---" for _ in header)]
    for row in rows:
        lines.append(" | ".join(str(value) for value in (
            row["fabric"], row["switches"], row["hosts"], f"{row['boot_s']} ({row['topology_s']} + {row['daemons_s']})",
            row["converged_s"], row["evpn_s"],
            row.get("checks_s", "-"), "yes" if row["green"] else f"NO ({', '.join(row['failed'])})",
            row["rss_total_mib"], row["rss_per_switch_mib"], "on" if row["bfd"] else "off", row["down_s"],
            row["load_1m"], TARGETS.get(row["fabric"], ""))))
    lines.append("converged/evpn/checks: seconds from the up() call; RSS: zebra + bgpd (+ bfdd, BFD on) per switch")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.twin_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=list(DEFAULT_SIZES), help="SPINESxLEAVES, e.g. 2x4 4x16")
    parser.add_argument("--no-bfd", action="store_true", help="compile without BFD (zebra + bgpd only)")
    args = parser.parse_args(argv)
    print(table(run(tuple(args.sizes), bfd=not args.no_bfd)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
