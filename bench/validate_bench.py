"""Static validation benchmark: ``python -m bench.validate_bench [SPINESxLEAVES ...] [--platform sonic]``.

Builds the fabric with compiler.clos.plan_clos, compiles its structured configs (not timed here: that is
bench.compile_bench), then runs validators.run.validate_fabric with every check including all N-1 what-ifs and
prints one table per size: wall and CPU seconds per check (CPU time is steadier on a shared 2-core machine),
the routing engine used, the number of N-1 scenarios, and the process's peak RSS. Default size: 64x1024
(1,088 switches, 65,536 fabric links), the target being < 10 s and < 2 GB.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import time

from compiler.api import build_facts, structured_configs
from compiler.clos import ClosParams, plan_clos
from compiler.model import Snapshot
from validators.context import ValidationInput
from validators.findings import CheckStatus
from validators.run import validate_fabric

from .compile_bench import bench_intent

TARGET_SECONDS = 10.0
TARGET_RSS_MB = 2048.0


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def inject_faults(structured: dict) -> None:
    """Two classic faults: leaf7 loses its uplink to spine3 (shut), leaf9 is renumbered into leaf8's ASN."""
    for port in structured["leaf7"]["interfaces"]:
        if port["peer_device"] == "spine3":
            structured["leaf7"]["interfaces"] = [dict(p, enabled=False) if p is port else p
                                                 for p in structured["leaf7"]["interfaces"]]
            break
    asn = structured["leaf8"]["asn"]
    structured["leaf9"] = dict(structured["leaf9"], asn=asn, bgp=dict(structured["leaf9"]["bgp"], asn=asn))
    for host, config in structured.items():
        if any(n["peer_device"] == "leaf9" for n in config["bgp"]["neighbors"]):
            neighbors = [dict(n, remote_as=asn) if n["peer_device"] == "leaf9" else n
                         for n in config["bgp"]["neighbors"]]
            structured[host] = dict(config, bgp=dict(config["bgp"], neighbors=neighbors))


def run(spines: int, leaves: int, platform: str, servers_per_leaf: int = 2, faults: bool = False) -> dict:
    name = f"vbench{spines}x{leaves}"
    started = time.perf_counter()
    inventory = plan_clos(ClosParams(name=name, spines=spines, leaves=leaves, servers_per_leaf=servers_per_leaf,
                                     platform=platform))
    snapshot = Snapshot(inventory, bench_intent(name))
    facts = build_facts(snapshot)
    structured = structured_configs(snapshot, facts)
    compile_s = time.perf_counter() - started
    if faults:
        inject_faults(structured)
    gc.collect()
    rss_before = peak_rss_mb()
    started, cpu_started = time.perf_counter(), time.process_time()
    report = validate_fabric(ValidationInput(structured=structured, snapshot=snapshot))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    whatif = getattr(report.context, "whatif_result", None)
    matrix = report.context.leaf_pairs
    return {"size": f"{spines}x{leaves}" + (" with faults" if faults else ""), "devices": len(inventory.switches),
            "fabric_links": sum(1 for c in inventory.cables if c.a.device in inventory.switches_by_name
                                and c.b.device in inventory.switches_by_name),
            "compile_s": compile_s, "validate_wall_s": wall, "validate_cpu_s": cpu,
            "timings": report.timings, "cpu_timings": report.cpu_timings,
            "engine": matrix.mode, "leaf_classes": len(matrix.members),
            "scenarios": len(whatif.single()) if whatif else 0, "pairs": len(whatif.double()) if whatif else 0,
            "worst": whatif.worst() if whatif else None,
            "counts": report.counts(), "failed": [n for n, r in report.checks.items() if r.status == CheckStatus.FAILED],
            "rss_before_mb": rss_before, "peak_rss_mb": peak_rss_mb(),
            "load": os.getloadavg()[0]}


def print_table(row: dict) -> None:
    print(f"\n## {row['size']}: {row['devices']} switches, {row['fabric_links']} fabric links "
          f"(structured configs built in {row['compile_s']:.1f} s, not counted)")
    print(f"{'check':34} {'wall s':>8} {'cpu s':>8}")
    for name, wall in row["timings"].items():
        print(f"{name:34} {wall:8.3f} {row['cpu_timings'][name]:8.3f}")
    print(f"{'TOTAL validate_fabric':34} {row['validate_wall_s']:8.3f} {row['validate_cpu_s']:8.3f}")
    n1 = row["timings"].get("whatif.n_minus_1", 0.0)
    print(f"N-1 what-ifs: {row['scenarios']} scenarios + N-2: {row['pairs']} spine pairs, in {n1:.3f} s "
          f"({row['engine']} engine, {row['leaf_classes']} leaf class(es))")
    if row["worst"] is not None:
        worst = row["worst"]
        print(f"worst single failure: {worst.kind} {worst.subject} -> min ECMP {worst.min_ecmp}, "
              f"{worst.capacity_lost_fraction:.2%} capacity lost")
    print(f"checks: {row['counts']}" + (f", failed: {', '.join(row['failed'])}" if row["failed"] else ""))
    print(f"peak RSS: {row['peak_rss_mb']:.0f} MB (before validation: {row['rss_before_mb']:.0f} MB)")
    # validate_fabric is single-threaded: on an idle machine wall ~= CPU; on a loaded one wall is inflated.
    verdict = "OK" if row["validate_cpu_s"] < TARGET_SECONDS and row["peak_rss_mb"] < TARGET_RSS_MB else "OVER"
    print(f"target < {TARGET_SECONDS:.0f} s CPU and < {TARGET_RSS_MB:.0f} MB: {verdict} "
          f"(load average during the run: {row['load']:.1f} on {os.cpu_count()} cores)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", default=["64x1024"], help="SPINESxLEAVES, e.g. 4x16 64x1024")
    parser.add_argument("--platform", default="sonic", choices=("eos", "sonic", "frr"))
    parser.add_argument("--faults", action="store_true",
                        help="shut leaf7's uplink to spine3 and put leaf9 in leaf8's ASN (needs >= 3 spines, 9 leaves)")
    args = parser.parse_args()
    for size in args.sizes:
        spines, leaves = (int(part) for part in size.lower().split("x"))
        print_table(run(spines, leaves, args.platform, faults=args.faults))


if __name__ == "__main__":
    main()
