"""Collective-traffic simulator benchmark: ``python -m bench.collective_bench [--shape 1k|16k|all] [--ladder]``.

Shapes (the fabric generators of the other benches; GPUs are 8-GPU/8-NIC servers, rail-optimised):

* ``1k`` -- the 1,088-switch fabric of bench/scale.py and the README (64 spines x 1,024 leaves), built with
  8 rails and 8 servers per rail group; a 1,024-GPU (128-server) ring all-reduce, 64 rings x 16 QPs = 131,072
  flows. Target < 5 s.
* ``16k`` -- the 4,998-switch 5-stage fabric of bench/clos5_bench.py ("avd": 12 super-spines, 18 pods of 12
  spines + 265 leaves), with 8 rails and 4 servers per rail group; a 16,384-GPU (2,048-server) ring all-reduce,
  16 rings x 16 QPs = 524,288 flows. Target < 60 s and < 4 GB.

Timed: the fabric graph from the inventory (links, host links), the routes (BFS distances to every destination
leaf, ECMP members), placement, connections, the hashing of every flow at every hop for ``--trials`` trials, the
fluid ideal and the report -- everything after the inventory exists (building the inventory itself is the
fabric builder's cost, printed apart). CPU seconds are steadier than wall time on the shared 2-core machine;
both are printed. Peak RSS is the process's (inventory included). ``--ladder`` prints the validation ladder's
figures (docs/collective.md). Writes bench/results/collective.md with ``--write``.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import resource
import time
from pathlib import Path

from compiler.clos import ClosParams, plan_clos
from compiler.pods import PodsParams, plan_pods
from validators.collective import FabricGraph, HashConfig, HashPolicy, Job, Scenario, simulate
from validators.collective.closed_form import collision_probability, expected_max_load

from .compile_bench import BENCH_LEAF_MODEL

RESULTS = Path(__file__).resolve().parent / "results" / "collective.md"
SHAPES = {
    "1k": dict(target_s=5.0, gpus=1024, channels=64, qps=16, build=lambda: plan_clos(ClosParams(
        name="coll1k", spines=64, leaves=1024, rails_per_server=8, servers_per_leaf=8, platform="sonic",
        leaf_model=BENCH_LEAF_MODEL))),
    "16k": dict(target_s=60.0, gpus=16384, channels=16, qps=16, build=lambda: plan_pods(PodsParams(
        name="coll16k", pods=18, super_spines_per_plane=1,
        pod=ClosParams(spines=12, leaves=265, rails_per_server=8, servers_per_leaf=4, platform="sonic",
                       leaf_model=BENCH_LEAF_MODEL)))),
}
TARGET_RSS_MB = 4096.0
FLOWS, MEMBERS = 6, 8  # rung (i): as tests/validators/test_collective_ladder.py


def run(shape: str, trials: int) -> dict:
    spec = SHAPES[shape]
    gc.disable()  # as the other benches: millions of small objects in the inventory
    started = time.process_time()
    inventory = spec["build"]()
    build_s = time.process_time() - started
    load = os.getloadavg()[0]
    cpu, wall = time.process_time(), time.perf_counter()
    graph = FabricGraph(inventory)
    scenario = Scenario(job=Job(gpus=spec["gpus"]), collective="ring-allreduce", qps=spec["qps"],
                        channels=spec["channels"], trials=trials)
    prediction = simulate(inventory, scenario, graph=graph)
    cpu_s, wall_s = time.process_time() - cpu, time.perf_counter() - wall
    gc.enable()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tiers = {tier.tier: {"links": tier.links, "flows": tier.flows, "p95": round(tier.bottleneck_p95, 2),
                         "idle": round(tier.idle_links, 1)} for tier in prediction.tiers}
    return {"shape": shape, "switches": graph.switch_count, "links": graph.link_count, "gpus": prediction.gpus,
            "servers": prediction.servers, "flows": prediction.flows, "connections": prediction.connections,
            "trials": trials, "build_s": build_s, "simulate_cpu_s": cpu_s, "simulate_wall_s": wall_s,
            "peak_rss_mb": rss, "target_s": spec["target_s"], "load_average": round(load, 1),
            "bottleneck_p50": prediction.percentile(50), "bottleneck_p95": prediction.percentile(95),
            "tiers": tiers, "met": cpu_s < spec["target_s"] and rss < TARGET_RSS_MB}


def ladder() -> list[str]:
    """The figures docs/collective.md quotes, recomputed (small fabrics, a few seconds)."""
    lines = ["| rung | case | predicted | reference |", "|---|---|---|---|"]
    inventory = plan_clos(ClosParams(name="hop", spines=MEMBERS, leaves=2, servers_per_leaf=FLOWS))
    graph = FabricGraph(inventory)
    order = tuple(f"gpu{n:04d}" for pair in zip(range(1, FLOWS + 1), range(FLOWS + 1, 2 * FLOWS + 1), strict=True)
                  for n in pair)
    uplinks = [link for link in range(graph.switch_links) if graph.names[graph.tail[link]] == "leaf1"]
    exact_max, exact_p = float(expected_max_load(FLOWS, MEMBERS)), float(collision_probability(FLOWS, MEMBERS))
    for function, sport in (("random", "random"), ("crc16-ccitt", "kernel"), ("crc32-hi", "kernel")):
        prediction = simulate(inventory, Scenario(job=Job(servers=order), channels=1, trials=10_000, seed=7,
                                                  sport=sport, hashing=HashPolicy(default=HashConfig(function=function),
                                                                                  distinct_seeds=True)), graph=graph)
        maximum = prediction.link_flows[:, uplinks].max(axis=1)
        lines.append(f"| (i) | {FLOWS} flows into {MEMBERS} uplinks, {function}, {sport} ports, 10,000 trials: "
                     f"E[max flows] / P(collision) | {maximum.mean():.3f} / {(maximum >= 2).mean():.4f} | "
                     f"{exact_max:.3f} / {exact_p:.4f} (exact) |")
    spread = plan_clos(ClosParams(name="qp", spines=4, leaves=8, servers_per_leaf=4))
    ring = Job(servers=tuple(f"gpu{leaf * 4 + slot + 1:04d}" for slot in range(4) for leaf in range(8)))
    spread_graph = FabricGraph(spread)
    p95 = {qps: simulate(spread, Scenario(job=ring, channels=1, qps=qps, trials=64), graph=spread_graph).percentile(95)
           for qps in (1, 4, 16, 64)}
    lines.append("| (iv) | ring, 32 servers on 8 leaves x 4 spines, QPs 1 / 4 / 16 / 64: p95 bottleneck | "
                 + " / ".join(f"{value:.2f}" for value in p95.values()) + " | decreasing (Meta, SIGCOMM 2024) |")
    pods = plan_pods(PodsParams(name="pol", pods=2, super_spines_per_plane=4,
                                pod=ClosParams(spines=4, leaves=8, servers_per_leaf=4)))
    pods_graph = FabricGraph(pods)
    crc = "crc16-ccitt"
    cases = (("keyed hash, equal seeds", HashPolicy(default=HashConfig(function="random", seed=7))),
             ("keyed hash, distinct seeds", HashPolicy(default=HashConfig(function="random", seed=7),
                                                      distinct_seeds=True)),
             ("CRC16, seed 1 on leaves, 2 on spines", HashPolicy(default=HashConfig(function=crc, seed=1),
                                                                 by_role={"spine": HashConfig(function=crc, seed=2)})),
             ("CRC16, spine offset 5", HashPolicy(default=HashConfig(function=crc, seed=1),
                                                  by_role={"spine": HashConfig(function=crc, seed=1, offset=5)})))
    for name, policy in cases:
        prediction = simulate(pods, Scenario(job=Job(gpus=512), collective="alltoall-pxn", qps=4, trials=4,
                                             hashing=policy), graph=pods_graph)
        up = next(tier for tier in prediction.tiers if tier.tier == "spine->super-spine")
        lines.append(f"| (iv) | 5-stage, all-to-all PXN, {name}: spine->super-spine polarization, idle links, p50 "
                     f"bottleneck | {up.polarization:.2f}, {up.idle_links:.0f} of {up.links}, "
                     f"{prediction.percentile(50):.2f} | equal seeds polarize, distinct do not |")
    single = plan_pods(PodsParams(name="single", pods=2, super_spines_per_plane=1,
                                  pod=ClosParams(spines=16, leaves=8, servers_per_leaf=4)))
    prediction = simulate(single, Scenario(job=Job(gpus=512), collective="alltoall-pxn", qps=4, trials=4,
                                           hashing=HashPolicy(default=HashConfig(function=crc))))
    up = next(tier for tier in prediction.tiers if tier.tier == "spine->super-spine")
    lines.append(f"| (iv) | same 16 super-spines as 16 single-choice planes, CRC16 equal seeds | polarization "
                 f"{'none (no choice)' if up.polarization is None else f'{up.polarization:.2f}'}, "
                 f"{up.idle_links:.0f} of {up.links} idle, p50 {prediction.percentile(50):.2f} | no second-tier "
                 "polarization (Alibaba HPN dual-plane) |")
    return lines


def table(rows: list[dict]) -> list[str]:
    lines = ["| shape | switches | links | GPUs (servers) | flows | trials | build CPU s | simulate CPU s | "
             "simulate wall s | peak RSS MB | target | p50 / p95 bottleneck |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['shape']} | {row['switches']:,} | {row['links']:,} | {row['gpus']:,} ({row['servers']:,}) "
                     f"| {row['flows']:,} | {row['trials']} | {row['build_s']:.1f} | **{row['simulate_cpu_s']:.2f}** | "
                     f"{row['simulate_wall_s']:.2f} | {row['peak_rss_mb']:.0f} | < {row['target_s']:.0f} s"
                     f"{' and < 4 GB' if row['shape'] == '16k' else ''}: {'met' if row['met'] else 'NOT met'} | "
                     f"{row['bottleneck_p50']:.2f} / {row['bottleneck_p95']:.2f} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=(*SHAPES, "all"), default="1k", help="fabric and job size")
    parser.add_argument("--trials", type=int, default=1, help="QP-number draws per run (default 1)")
    parser.add_argument("--ladder", action="store_true", help="print the validation ladder's figures")
    parser.add_argument("--write", action="store_true", help=f"write {RESULTS.relative_to(RESULTS.parents[2])}")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    args = parser.parse_args(argv)
    shapes = list(SHAPES) if args.shape == "all" else [args.shape]
    rows = [run(shape, args.trials) for shape in shapes]
    lines = table(rows)
    for row in rows:
        lines.append(f"\n{row['shape']}: per tier (links, flow crossings, p95 bottleneck, idle links): "
                     + "; ".join(f"{name} {t['links']:,}/{t['flows']:,}/{t['p95']}/{t['idle']}"
                                 for name, t in row["tiers"].items())
                     + f" (load average {row['load_average']} on {os.cpu_count()} cores)")
    if args.ladder:
        lines += ["", *ladder()]
    text = "\n".join(lines)
    print(text)
    if args.json:
        print(json.dumps(rows, default=lambda value: None if isinstance(value, float) and math.isnan(value) else str(value)))
    if args.write:
        RESULTS.write_text("# Collective simulator benchmark\n\nGenerated by `python -m bench.collective_bench "
                           f"--shape {args.shape} --trials {args.trials}{' --ladder' if args.ladder else ''} --write`"
                           " (see the module docstring for the shapes).\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
