"""Boot, verify and tear down compiled FRR fabrics of several sizes; one table row per size (root + FRR).

    python -m bench.twin_verify_bench --sizes 2x2,2x4,4x16 [--underlay unnumbered] [--state-dir DIR] [--frr 10.3]
    python -m bench.twin_verify_bench --sizes 4x64,8x120,8x248 --record      # rows kept in bench/results
    python -m bench.twin_verify_bench --sizes 64x1024 --subset ci --record   # every spine + 2 leaves (labs.subset)

Each row: switches, hosts, the FRR version that ran (read from its zebra; ``--frr`` picks it, labs.frr_binaries,
default auto), the size policy's BFD choice, boot (topology + daemons), every BGP session Established and every
EVPN flood list complete (seconds after the first daemon start), FRR RSS per switch, the FRR daemons' idle CPU
(cores, over 10 s after the checks), link and spine failover (outage measured against the limit the running
timers allow), the L3VNI next hops lost after the failures and whether the `clear bgp *` workaround was applied
(only for FRR 8.4), the check counts and the names of failed checks, and the machine's 1-minute load average at
start and end (the machine is shared). ``--record`` appends the rows to bench/results/twin_verify.json and
rewrites bench/results/twin_verify.md (every recorded row). The exit status is 1 when any size had a failing
check. bench/twin_bench.py measures boot-to-converged and memory without failure injection (``make bench``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path

from compiler.api import compile_fabric
from compiler.scenario import snapshot_from_scenario
from labs import checks, runtime
from labs.from_compile import topology_from_compile
from labs.frr_binaries import CHOICES
from labs.measure import measure_idle_cpu
from labs.shell import twin_prerequisites
from labs.subset import subset_from_compile
from labs.topology import new_prefix
from validators.findings import CheckStatus, Severity

RESULTS = Path(__file__).resolve().parent / "results"
HEADER = ("fabric", "subset", "FRR", "switches", "hosts", "BFD", "boot s (topology + daemons)", "converged s", "EVPN ready s",
          "MiB/switch", "idle FRR cores", "link outage ms (limit)", "spine outage ms (limit)", "L3VNI next hops lost (workaround)", "checks", "failed",
          "load 1m start/end", "measured at")


# Above 256 leaves the default pools (/22 loopbacks, 400 private 2-byte ASNs) are too small: bench.compile_bench's
# pools, the ones bench/scale.py compiles the 1,088-switch fabric with.
BIG_POOLS = {"loopback": "10.0.0.0/20", "vtep": "10.0.16.0/20", "p2p": "10.128.0.0/14", "asn_first": 4200000000,
             "asn_last": 4200099999, "spine_asn": 4210000000}


def scenario(spines: int, leaves: int, underlay: str) -> dict:
    return {"clos": {"spines": spines, "leaves": leaves, "servers_per_leaf": 1, "platform": "frr"},
            "intent": {"name": f"bench{spines}x{leaves}", "underlay": underlay,
                       **({"pools": BIG_POOLS} if leaves > 256 else {}),
                       "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                       "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/16",
                                     "gateway": "10.10.0.1", "attachments": "all"}]}}


def measure_size(size: str, args) -> dict:
    spines, leaves = (int(part) for part in size.lower().split("x"))
    load_start = round(os.getloadavg()[0], 1)
    result = compile_fabric(snapshot_from_scenario(scenario(spines, leaves, args.underlay)))
    topology = topology_from_compile(result, name_prefix=new_prefix(), max_servers_per_leaf=1)
    if args.subset:
        topology = subset_from_compile(topology, result, args.subset, field="--subset")
    del result
    state = runtime.up(topology, args.state_dir, frr=args.frr)
    try:
        report, measured = checks.verify(state, failover=not args.no_failover)
        idle = measure_idle_cpu(state, seconds=10.0)
    finally:
        runtime.down(state.prefix, args.state_dir, force=True)
    counts = report.counts()
    link, spine = measured.get("failover_link", {}), measured.get("failover_spine", {})

    def outage(row: dict) -> str:
        return f"{round(row['outage_s'] * 1000)} ({round(row['outage_limit_s'] * 1000)})" if row else "-"

    lost = [entry.get("l3vni_next_hops_resynced") or {} for entry in (link, spine)]
    return {
        "fabric": size, "subset": args.subset or "", "frr": measured["frr"]["version"], "switches": len(topology.nodes), "hosts": len(topology.hosts),
        "bfd": state.size_policy.get("bfd"), "policy": state.size_policy.get("reason"),
        "boot_s": state.timings.get("boot_s"), "topology_s": state.timings.get("topology_s"),
        "daemons_s": state.timings.get("daemons_s"), "converged_s": measured["bgp"].get("converged_s"),
        "evpn_ready_s": measured.get("evpn", {}).get("ready_s"),
        "rss_per_switch_mib": measured["resources"]["rss_per_switch_mib"], "idle_frr_cores": idle["frr_cores"],
        "link_outage": outage(link), "spine_outage": outage(spine), "detection": link.get("detection"),
        "l3vni_lost": sum(len(vteps) for entry in lost for vteps in entry.get("lost", {}).values()),
        "l3vni_workaround": "applied" if any(entry.get("workaround_applied") for entry in lost) else
        ("off" if not measured["frr"]["l3vni_workaround"] else "not needed"),
        "checks": f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped",
        "failed": [name for name, check in report.checks.items() if check.status == CheckStatus.FAILED],
        # What stopped a failed check (its first error findings), kept in the JSON record, not in the table.
        "failed_detail": {name: [finding.message for finding in check.findings if finding.severity == Severity.ERROR][:3]
                          for name, check in report.checks.items() if check.status == CheckStatus.FAILED},
        "green": report.ok, "load_start": load_start, "load_end": idle["load_1m"],
        "at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def table_line(row: dict) -> str:
    return " | ".join(str(value) for value in (
        row["fabric"], row["subset"] or "-", row.get("frr", "8.4 (not recorded)"), row["switches"], row["hosts"], "on" if row["bfd"] else "off",
        f"{row['boot_s']} ({row['topology_s']} + {row['daemons_s']})", row["converged_s"], row["evpn_ready_s"],
        row["rss_per_switch_mib"], row["idle_frr_cores"], row["link_outage"], row["spine_outage"],
        f"{row['l3vni_lost']} ({row['l3vni_workaround']})" if "l3vni_lost" in row else "-", row["checks"],
        ", ".join(row["failed"]) or "-", f"{row['load_start']} / {row['load_end']}", row["at"]))


def record(rows: list[dict]) -> None:
    """Append to bench/results/twin_verify.json and rewrite twin_verify.md from every recorded row."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "twin_verify.json"
    recorded = json.loads(path.read_text()) if path.exists() else []
    recorded += rows
    path.write_text(json.dumps(recorded, indent=1) + "\n")
    lines = ["# Live twin: boot + every live check per size (bench/twin_verify_bench.py)", "",
             "Written by `python -m bench.twin_verify_bench --record`; rows are appended, newest last. Seconds are "
             "from the first daemon start (converged: every BGP session Established; EVPN ready: every flood list "
             "complete). Outage limits come from the timers the twin runs (docs/twin.md). The machine is shared "
             "with other work: the load average is beside each row.", "",
             " | ".join(HEADER), " | ".join("---" for _ in HEADER)]
    lines += [table_line(row) for row in recorded]
    (RESULTS / "twin_verify.md").write_text("\n".join(lines) + "\n")


def run(args) -> int:
    print(" | ".join(HEADER), flush=True)
    rows = []
    for size in args.sizes.split(","):
        started = time.monotonic()
        row = measure_size(size, args)
        row["wall_s"] = round(time.monotonic() - started, 1)
        rows.append(row)
        print(table_line(row), flush=True)
        if args.record:
            record([row])
    return 0 if all(row["green"] for row in rows) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.twin_verify_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2x2,2x4", help="SPINESxLEAVES list, e.g. 2x2,4x16")
    parser.add_argument("--underlay", default="numbered", choices=["numbered", "unnumbered"])
    parser.add_argument("--subset", default="", help="boot every spine plus these leaves (labs.subset), e.g. ci")
    parser.add_argument("--no-failover", action="store_true", help="skip failure injection")
    parser.add_argument("--record", action="store_true", help="append the rows to bench/results/twin_verify.*")
    parser.add_argument("--state-dir", default=None, help="where twin state files live (default out/twins)")
    parser.add_argument("--frr", choices=CHOICES, default=None,
                        help="which FRR the switches run (default auto: 10.3 when extracted, else 8.4)")
    args = parser.parse_args(argv)
    missing = twin_prerequisites()
    if missing:
        print(f"skipped: {'; '.join(missing)}")
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
