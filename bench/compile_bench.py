"""Compile benchmark: fabrics of growing size through every compiler stage, printed as a table.

    python -m bench.compile_bench                     # 2x4 .. 64x1024 spines x leaves, 2 servers per leaf
    python -m bench.compile_bench --sizes 8x64 --profile   # cProfile the slowest stages of one size

Stages: validate (check_intent: every intent check plus the allocation it needs), allocate (the allocator
alone, for information: already inside validate), facts, structured, then render of EVERY device for each platform (eos, sonic, frr), and the
total compile time (validate + facts + structured + renders). Stage times are CPU seconds of this process
(time.process_time: stable on a shared machine); "wall s" is the elapsed time of the same work. Peak RSS is the process high-water mark
(resource.getrusage), so each row shows the peak up to and including that size. Not a timed test.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import resource
import sys
import time

from compiler.allocate import allocate
from compiler.api import build_facts, gc_paused, render_device, structured_configs
from compiler.clos import ClosParams, plan_clos
from compiler.model import FabricIntent, Network, Pools, RoceClass, Snapshot, Tenant
from compiler.render import supported_platforms
from compiler.validate import check_intent

DEFAULT_SIZES = ("2x4", "4x16", "8x64", "16x256", "64x1024")
# Leaves on a Broadcom Tomahawk 5 model that runs both EOS and SONiC, so every platform can be rendered for every
# device: SONiC's default leaf at 64+ uplinks is an NVIDIA Spectrum SN5600, which has no EOS image, and the EOS
# renderer refuses RoCE queues for it (compiler.hardware).
BENCH_LEAF_MODEL = "DCS-7060X6-64PE"
# Pools big enough for 1,088 switches and 65,536 fabric links; 4-byte private ASNs (RFC 6996).
BENCH_POOLS = Pools(loopback="10.0.0.0/20", vtep="10.0.16.0/20", p2p="10.128.0.0/14",
                    asn_first=4200000000, asn_last=4200099999, spine_asn=4210000000)


def bench_intent(name: str) -> FabricIntent:
    return FabricIntent(
        name=name, inventory_fabric=name, pools=BENCH_POOLS,
        tenants=(Tenant("A", "TENANT_A"), Tenant("B", "TENANT_B")),
        networks=(Network("net10", "A", 10, "172.16.10.0/24", "172.16.10.1"),
                  Network("net20", "B", 20, "172.16.20.0/24", "172.16.20.1")),
        roce_classes=(RoceClass("roce", (26,), 3, 3, True, 150, 1500, 10, cnp_dscp=48, cnp_priority=6),
                      RoceClass("bulk", (10,), 1, 1, False)),
    )


def _timed(function, *args):
    # CPU time of this process: other jobs on a shared 2-core machine inflate wall time, not this.
    start = time.process_time()
    value = function(*args)
    return value, time.process_time() - start


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def run_size(spines: int, leaves: int, servers_per_leaf: int, platforms: tuple[str, ...],
             fabric_platform: str = "sonic") -> dict:
    name = f"bench{spines}x{leaves}"
    inventory, plan_s = _timed(plan_clos, ClosParams(name=name, spines=spines, leaves=leaves,
                                                     servers_per_leaf=servers_per_leaf, platform=fabric_platform,
                                                     leaf_model=BENCH_LEAF_MODEL))
    snapshot = Snapshot(inventory, bench_intent(name))
    wall_start = time.perf_counter()
    allocations, validate_s = _timed(check_intent, snapshot)  # validation + allocation, as compile_fabric
    _allocations, allocate_s = _timed(allocate, inventory, snapshot.intent, snapshot.allocations)  # alone, info
    facts, facts_s = _timed(build_facts, snapshot, allocations)
    configs, structured_s = _timed(structured_configs, snapshot, facts)
    render_s = {}
    output_bytes = 0
    for platform in platforms:
        start = time.process_time()
        for config in configs.values():
            for text in render_device(config, platform).values():
                output_bytes += len(text)
        render_s[platform] = time.process_time() - start
    wall_s = time.perf_counter() - wall_start
    devices = len(inventory.switches)
    compile_s = validate_s + facts_s + structured_s + sum(render_s.values())
    row = {"size": f"{spines}x{leaves}", "devices": devices, "links": len(facts.links), "plan_s": plan_s,
           "validate_s": validate_s, "allocate_s": allocate_s, "facts_s": facts_s, "structured_s": structured_s,
           "render_s": render_s, "compile_s": compile_s, "per_device_ms": 1000 * compile_s / devices,
           "wall_s": wall_s,
           "output_mb": output_bytes / 1e6, "peak_rss_mb": _peak_rss_mb()}
    del configs, facts, snapshot, inventory
    gc.collect()
    return row


def print_table(rows: list[dict], platforms: tuple[str, ...]) -> None:
    headers = ["spines x leaves", "devices", "links", "validate s", "allocate s", "facts s", "structured s",
               *[f"render {p} s" for p in platforms], "compile CPU s", "wall s", "ms/device", "output MB", "peak RSS MB"]
    print("| " + " | ".join(headers) + " |")
    print("|" + "|".join("---" for _ in headers) + "|")
    for row in rows:
        cells = [row["size"], row["devices"], row["links"], f"{row['validate_s']:.2f}", f"{row['allocate_s']:.2f}",
                 f"{row['facts_s']:.2f}", f"{row['structured_s']:.2f}",
                 *[f"{row['render_s'][p]:.2f}" for p in platforms], f"{row['compile_s']:.2f}",
                 f"{row['wall_s']:.2f}", f"{row['per_device_ms']:.2f}", f"{row['output_mb']:.1f}", f"{row['peak_rss_mb']:.0f}"]
        print("| " + " | ".join(str(cell) for cell in cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=list(DEFAULT_SIZES), help="SPINESxLEAVES, e.g. 8x64")
    parser.add_argument("--servers-per-leaf", type=int, default=2)
    parser.add_argument("--platforms", nargs="+", default=None, help="default: every supported platform")
    parser.add_argument("--profile", action="store_true", help="cProfile the run and print the top functions")
    args = parser.parse_args(argv)
    platforms = tuple(args.platforms or supported_platforms())
    profiler = cProfile.Profile() if args.profile else None
    rows = []
    for size in args.sizes:
        spines, leaves = (int(part) for part in size.lower().split("x"))
        if profiler:
            profiler.enable()
        with gc_paused():  # as compile_fabric does
            rows.append(run_size(spines, leaves, args.servers_per_leaf, platforms))
        if profiler:
            profiler.disable()
        print(f"done {size}: {rows[-1]['compile_s']:.2f} s", file=sys.stderr, flush=True)
    print(f"Compile benchmark, {args.servers_per_leaf} servers per leaf, platforms: {', '.join(platforms)}")
    print_table(rows, platforms)
    if profiler:
        stream = io.StringIO()
        pstats.Stats(profiler, stream=stream).sort_stats("cumulative").print_stats(35)
        print(stream.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
