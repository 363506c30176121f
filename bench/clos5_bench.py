"""5-stage Clos benchmark: ``python -m bench.clos5_bench [--shape avd|small] [--json]``.

``avd``: the largest fabric Arista AVD reports compiling, about 5,000 devices -- 12 super-spines and 18 pods of
12 spines + 265 leaves (4,998 switches; AVD's published time: 16 min 37 s, 9 min 14 s after their optimisation, on
a laptop). Built with compiler.pods.plan_pods, compiled (intent checks + allocation, facts, structured config,
then EVERY device rendered for eos, sonic and frr), then validated with every static check, including
clos5.n_minus_1 (every super-spine, pod spine, leaf-spine and spine-super-spine link failed one at a time).
Rendering runs in ``--workers`` forked processes (compiler.api.render_configs; default 2, the target's cores),
everything else in this process; the peak memory printed is this process's peak RSS or, if higher, the sampled
peak of this process and its workers together while rendering (PssSampler). CPU seconds (this process + the workers) are
steadier than wall time on a shared 2-core machine; both are printed. Target: < 60 s and < 4 GB. Not a timed test.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import threading
import time
from dataclasses import replace

from compiler.api import build_facts, render_configs, structured_configs
from compiler.clos import ClosParams
from compiler.model import FabricIntent, Network, Pools, RoceClass, Snapshot, Tenant
from compiler.pods import PodsParams, plan_pods, tier_oversubscription
from compiler.validate import check_intent
from validators.context import ValidationInput
from validators.findings import CheckStatus
from validators.run import validate_fabric

from .compile_bench import BENCH_LEAF_MODEL
from .run import growth_exponent

AVD_PUBLISHED_S = 9 * 60 + 14  # AVD's reported best for ~5,000 devices (16 min 37 s before its optimisation)
TARGET_S = 60.0
TARGET_RSS_MB = 4096.0
PLATFORMS = ("eos", "sonic", "frr")
SHAPES = {
    # 12 super-spines (12 planes x 1), 18 pods x (12 spines + 265 leaves): 4,998 switches
    "avd": PodsParams(name="avd5k", pods=18, super_spines_per_plane=1,
                      pod=ClosParams(spines=12, leaves=265, servers_per_leaf=0, platform="sonic",
                                     leaf_model=BENCH_LEAF_MODEL)),
    # 102,400 GPUs rail-optimised: 25 pods of 16 SUs x 8 rail leaves (32 eight-GPU servers per SU), 16 spines per
    # pod (2 x 400G from every leaf: 1:1), 16 planes x 4 super-spines, 8 links each (8:1 above, near Meta's 7:1)
    "gpu100k": PodsParams(name="gpu100k", pods=25, super_spines_per_plane=4, super_spine_links=8,
                          pod=ClosParams(spines=16, leaves=128, rails_per_server=8, servers_per_leaf=32,
                                         uplinks_per_spine=2, platform="sonic", leaf_model=BENCH_LEAF_MODEL,
                                         spine_model="DCS-7816R4", rack_power_budget_kw=0)),
    "small": PodsParams(name="small5", pods=3, super_spines_per_plane=2,
                        pod=ClosParams(spines=4, leaves=16, servers_per_leaf=2, platform="sonic",
                                       leaf_model=BENCH_LEAF_MODEL)),
}
# --growth: the AVD shape with fewer pods (pods of 12 spines + 265 leaves under the same 12 planes)
GROWTH_PODS = (2, 4, 8, 18)
GROWTH_STAGES = ("structured_s", "render_s", "validate_s", "total_cpu_s", "total_wall_s")
# ~5,000 loopbacks and VTEPs, ~57,500 /31s, 4-byte private ASNs (RFC 6996) for 4,770 leaves.
POOLS = Pools(loopback="10.0.0.0/19", vtep="10.0.32.0/19", p2p="10.128.0.0/14",
              asn_first=4200000000, asn_last=4200099999, spine_asn=4210000000)


def intent(name: str) -> FabricIntent:
    return FabricIntent(
        name=name, inventory_fabric=name, pools=POOLS,
        tenants=(Tenant("A", "TENANT_A"), Tenant("B", "TENANT_B")),
        networks=(Network("net10", "A", 10, "172.16.10.0/24", "172.16.10.1"),
                  Network("net20", "B", 20, "172.16.20.0/24", "172.16.20.1")),
        roce_classes=(RoceClass("roce", (26,), 3, 3, True, 150, 1500, 10, cnp_dscp=48, cnp_priority=6),
                      RoceClass("bulk", (10,), 1, 1, False)),
    )


def _peak_rss_mb(sampled_mb: float = 0.0) -> float:
    """This process's peak RSS, or the sampled peak of it together with its render workers if higher."""
    return max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, sampled_mb)  # Linux reports KiB


class PssSampler(threading.Thread):
    """Peak memory of this process plus its forked workers, sampled every ``interval`` s while rendering: the sum
    of their proportional set sizes (Linux /proc/<pid>/smaps_rollup ``Pss``), which counts a page a worker still
    shares with this process once, where adding RSS would count it in every process. A peak shorter than the
    interval can be missed."""

    def __init__(self, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.peak_mb = 0.0
        self.halt = threading.Event()

    @staticmethod
    def _pss_kib(pid: int) -> int:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as rollup:
                return next((int(line.split()[1]) for line in rollup if line.startswith("Pss:")), 0)
        except OSError:  # the worker has just exited
            return 0

    @staticmethod
    def _children(parent: int) -> list[int]:
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as stat:
                        fields = stat.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == parent:  # field 4 of proc(5) stat: the parent's pid
                    found.append(int(entry))
        return found

    def run(self) -> None:
        me = os.getpid()
        while not self.halt.wait(self.interval):
            total = sum(self._pss_kib(pid) for pid in (me, *self._children(me)))
            self.peak_mb = max(self.peak_mb, total / 1024)

    def stop(self) -> float:
        self.halt.set()
        self.join()
        return self.peak_mb


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(shape: str, validate: bool = True, workers: int = 2, params: PodsParams | None = None) -> dict:
    params = params or SHAPES[shape]
    gc.disable()  # millions of small objects; the cyclic GC would rescan them for nothing (as compile_fabric)
    load_started = os.getloadavg()[0]
    wall_started, cpu_started = time.perf_counter(), time.process_time()
    inventory = plan_pods(params)
    build_s = time.process_time() - cpu_started
    snapshot = Snapshot(inventory, intent(params.name))
    started = time.process_time()
    allocations = check_intent(snapshot)
    facts = build_facts(snapshot, allocations)
    configs = structured_configs(snapshot, facts)
    structured_s = time.process_time() - started
    # Every device for all three platforms, texts and hashes kept as compile_fabric keeps them (render_configs:
    # one line-break guard per device for the three; ``workers`` forked processes). CPU = this process + workers.
    started, children_started = time.process_time(), _children_cpu_s()
    sampler = PssSampler()
    sampler.start()
    rendered, _hashes = render_configs(configs, PLATFORMS, workers=workers)
    render_peak_mb = sampler.stop()
    output_bytes = sum(len(text) for platforms in rendered.values() for files in platforms.values()
                       for text in files.values())
    render_s = time.process_time() - started + _children_cpu_s() - children_started
    compile_s = structured_s + render_s
    compile_wall_s = time.perf_counter() - wall_started
    ratios = tier_oversubscription(inventory)
    gpus = sum(server.gpu_count for server in inventory.servers)
    if not validate:
        gc.enable()
        return {"shape": shape, "switches": len(inventory.switches), "servers": len(inventory.servers), "gpus": gpus,
                "cables": len(inventory.cables), "fabric_links": len(facts.links), "pods": params.pods,
                "planes": params.pod.spines, "build_s": build_s, "structured_s": structured_s, "render_s": render_s,
                "compile_s": compile_s, "compile_wall_s": compile_wall_s, "output_mb": output_bytes / 1e6,
                "workers": workers, "peak_rss_mb": _peak_rss_mb(render_peak_mb), "ratios": {tier: sorted(set(values.values()))
                                                          for tier, values in ratios.items()}}
    started, wall_validate = time.process_time(), time.perf_counter()
    report = validate_fabric(ValidationInput(configs, snapshot))
    validate_s = time.process_time() - started
    validate_wall_s = time.perf_counter() - wall_validate
    total_wall_s = time.perf_counter() - wall_started
    gc.enable()
    n1 = report.checks["clos5.n_minus_1"]
    counts = report.counts()
    row = {
        "shape": shape, "switches": len(inventory.switches), "cables": len(inventory.cables),
        "fabric_links": len(facts.links), "pods": params.pods, "planes": params.pod.spines,
        "build_s": build_s, "structured_s": structured_s, "render_s": render_s, "compile_s": compile_s,
        "compile_wall_s": compile_wall_s, "validate_s": validate_s, "validate_wall_s": validate_wall_s,
        "total_cpu_s": build_s + compile_s + validate_s, "total_wall_s": total_wall_s,
        "output_mb": output_bytes / 1e6, "workers": workers, "peak_rss_mb": _peak_rss_mb(render_peak_mb),
        "checks": counts, "failed": [name for name, r in report.checks.items() if r.status == CheckStatus.FAILED],
        "skipped": {name: r.reason for name, r in report.checks.items() if r.status == CheckStatus.SKIPPED},
        "n_minus_1": n1.findings[-1].message if n1.findings else n1.reason,
        "worst_plane_ratio": max(ratios["plane"].values()) if ratios["plane"] else None,
        "slowest_checks": sorted(((name, round(s, 2)) for name, s in report.cpu_timings.items()),
                                 key=lambda item: -item[1])[:5],
        "avd_published_s": AVD_PUBLISHED_S,
        "load_average": [round(load_started, 1), round(os.getloadavg()[0], 1)],  # 1-minute, at start and end
    }
    row["target_met"] = row["total_wall_s"] < TARGET_S and row["peak_rss_mb"] < TARGET_RSS_MB
    return row


def growth(workers: int = 2) -> dict:
    """The AVD shape at GROWTH_PODS pods, each compiled and validated (every N-1) in this process, and the
    exponent k of time ∝ fabric links^k per stage (least squares over log-log, bench.run.growth_exponent)."""
    rows = []
    for pods in GROWTH_PODS:
        params = replace(SHAPES["avd"], name=f"avd{pods}p", pods=pods)
        row = run("avd", workers=workers, params=params)
        row["devices"] = row["switches"]
        rows.append(row)
    # CPU stages only: wall time on the shared machine follows its load more than the fabric's size
    exponents = {stage: growth_exponent(rows, stage, size="fabric_links") for stage in GROWTH_STAGES
                 if stage != "total_wall_s"}
    return {"rows": [{key: row[key] for key in ("pods", "switches", "fabric_links", "build_s", *GROWTH_STAGES,
                                                "peak_rss_mb")} for row in rows],
            "exponents": exponents, "workers": workers}


def growth_table(result: dict) -> str:
    lines = ["| pods | switches | fabric links | build CPU s | structured CPU s | render CPU s | validate+N-1 CPU s "
             "| total CPU s | total wall s | peak RSS MB |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in result["rows"]:
        lines.append(f"| {row['pods']} | {row['switches']} | {row['fabric_links']} | {row['build_s']:.1f} | "
                     + " | ".join(f"{row[stage]:.1f}" for stage in GROWTH_STAGES) + f" | {row['peak_rss_mb']:.0f} |")
    exponents = result["exponents"]
    lines.append("")
    lines.append("Growth exponent k (CPU time ∝ fabric links^k): " + ", ".join(
        f"{stage.removesuffix('_s').replace('_', ' ')} {k}" for stage, k in exponents.items()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="avd")
    parser.add_argument("--json", action="store_true", help="print the row as one JSON line at the end")
    parser.add_argument("--no-validate", action="store_true", help="build and compile only (the 100k-GPU shape)")
    parser.add_argument("--growth", action="store_true", help=f"the AVD shape at {', '.join(map(str, GROWTH_PODS))} "
                        "pods and the growth exponent against fabric links")
    parser.add_argument("--workers", type=int, default=2, help="forked render processes (compiler.api."
                        "render_configs; default 2 = the target's 2 cores; 1 = this process only)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers={args.workers}: must be >= 1")
    if args.growth:
        result = growth(args.workers)
        result["table"] = growth_table(result)
        print(result["table"])
        if args.json:
            print(json.dumps(result))
        return 0
    row = run(args.shape, validate=not args.no_validate, workers=args.workers)
    if args.no_validate:
        print(f"5-stage {row['shape']}: {row['switches']} switches, {row['servers']} servers, {row['gpus']} GPUs, "
              f"{row['cables']} cables; build {row['build_s']:.1f} s CPU, compile {row['compile_s']:.1f} s CPU "
              f"(render {row['render_s']:.1f} for {'+'.join(PLATFORMS)}, {row['workers']} worker(s)), {row['compile_wall_s']:.1f}"
              f" s wall, peak RSS {row['peak_rss_mb']:.0f} MB; ratios {row['ratios']}")
        if args.json:
            print(json.dumps(row))
        return 0
    print(f"5-stage {row['shape']}: {row['switches']} switches ({row['pods']} pods, {row['planes']} planes), "
          f"{row['fabric_links']} fabric links")
    print(f"  build {row['build_s']:.1f} s CPU; compile {row['compile_s']:.1f} s CPU (structured "
          f"{row['structured_s']:.1f}, render {row['render_s']:.1f} for {'+'.join(PLATFORMS)} in {row['workers']} "
          f"worker(s)), "
          f"{row['output_mb']:.0f} MB of configs")
    print(f"  validate {row['validate_s']:.1f} s CPU: {row['checks']}; {row['n_minus_1']}")
    print(f"  total {row['total_wall_s']:.1f} s wall ({row['total_cpu_s']:.1f} s CPU), peak RSS "
          f"{row['peak_rss_mb']:.0f} MB (load average {row['load_average'][0]} -> {row['load_average'][1]} on "
          f"{os.cpu_count()} cores) -- target < {TARGET_S:.0f} s and < {TARGET_RSS_MB / 1024:.0f} GB: "
          f"{'met' if row['target_met'] else 'NOT met'}; Arista AVD published {AVD_PUBLISHED_S // 60} min "
          f"{AVD_PUBLISHED_S % 60} s")
    if args.json:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
