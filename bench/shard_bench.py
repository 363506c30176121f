"""A compiled fabric on one machine, then the same fabric sharded over K emulated hosts with the worst cut (spines on
the first host, leaves on the others: every leaf-spine cable a VXLAN link), both through ``labs.runtime.up`` and
``labs.checks.verify`` (root + FRR). Issue 35's acceptance shape, at the size given.

    python -m bench.shard_bench --sizes 2x4 --hosts 2          # a quick row
    python -m bench.shard_bench --sizes 4x60 --hosts 4         # 4 hosts, 64 switches (the issue's 4 x 64 is 256)

Each row: switches, hosts, cross-host cables, boot and BGP-converged seconds single vs sharded and their ratio
(the goal is <= 1.15), whether BGP session counts and VTEP-to-VTEP ECMP widths are identical, the sharded run's
check counts, and how long ``labs.stitch.partition_report`` took to report the last host lost after its underlay
interface was deleted (goal <= 10 s) with the switches it named. Failure injection is off unless ``--failover``
(not yet validated on stitched cables). Exit status 1 when a row is not green or the answers differ.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from compiler.api import compile_fabric
from compiler.scenario import snapshot_from_scenario
from labs import checks, expect, measure, runtime
from labs.from_compile import topology_from_compile
from labs.shards import ShardHost, graph_from_topology, plan_shards
from labs.shell import twin_prerequisites
from labs.stitch import emulate_hosts, partition_report, remove_emulated_hosts, stitch_plan, stitched_topology
from labs.topology import TwinTopology, new_prefix

from .twin_verify_bench import scenario

HEADER = ("fabric", "switches", "hosts", "cross cables", "boot s single / sharded", "converged s single / sharded",
          "converged ratio", "answers identical", "sharded checks", "partition reported s", "lost switches")


def _run(topology: TwinTopology, failover: bool, state_dir: str) -> tuple[dict, object, dict, runtime.TwinState]:
    """Boot and verify; the twin stays up for the caller to break and remove (removed here if a check raises)."""
    state = runtime.up(topology, state_dir)
    try:
        report, measured = checks.verify(state, failover=failover)
        answers = {"sessions": measure.bgp_session_counts(state),
                   "ecmp": measure.ecmp_widths(state, expect.vteps(state.topology_obj()))}
    except BaseException:
        runtime.down(state.prefix, state_dir, force=True)
        raise
    return answers, report, measured, state


def measure_size(size: str, hosts: int, failover: bool) -> dict:
    state_dir = tempfile.mkdtemp(prefix="shard-bench-")
    spines, leaves = (int(part) for part in size.lower().split("x"))
    result = compile_fabric(snapshot_from_scenario(scenario(spines, leaves, "numbered")))
    base = topology_from_compile(result, name_prefix=new_prefix(), max_servers_per_leaf=1)
    single_answers, _, single_measured, state = _run(base, failover, state_dir)
    single_boot = state.timings["boot_s"]
    runtime.down(state.prefix, state_dir, force=True)

    topology = topology_from_compile(result, name_prefix=new_prefix(), max_servers_per_leaf=1)
    shard_hosts = tuple(ShardHost(f"h{index}", 1) for index in range(1, hosts + 1))
    plan = plan_shards(graph_from_topology(topology), shard_hosts, worst_cut=True)
    underlay = emulate_hosts(topology.name_prefix, [host.name for host in shard_hosts])
    try:
        stitch = stitch_plan(topology, plan.assignment, underlay)
        answers, report, measured, state = _run(stitched_topology(topology, stitch), failover, state_dir)
        try:
            last = stitch.hosts[shard_hosts[-1].name]
            started = time.monotonic()
            runtime.run(["ip", "-n", last.netns, "link", "del", last.ifname])
            partition = partition_report(stitch)
            reported_s = round(time.monotonic() - started, 2)
        finally:
            runtime.down(state.prefix, state_dir, force=True)
    finally:
        remove_emulated_hosts(topology.name_prefix, underlay)
    single_converged, sharded_converged = single_measured["bgp"].get("converged_s"), measured["bgp"].get("converged_s")
    counts = report.counts()
    return {
        "fabric": size, "switches": len(topology.nodes), "hosts": hosts, "cross": len(stitch.links),
        "boot": f"{single_boot} / {state.timings['boot_s']}",
        "converged": f"{single_converged} / {sharded_converged}",
        "ratio": round(sharded_converged / single_converged, 2) if single_converged and sharded_converged else None,
        "identical": answers == single_answers,
        "checks": f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped",
        "partition_s": reported_s if partition["partitioned"] else "not reported",
        "lost": len(partition["lost_switches"]), "green": report.ok,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.shard_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2x4", help="comma-separated SPINESxLEAVES")
    parser.add_argument("--hosts", type=int, default=2, help="emulated hosts (2 or more)")
    parser.add_argument("--failover", action="store_true", help="also inject link and spine failures")
    args = parser.parse_args(argv)
    missing = twin_prerequisites()
    if missing:
        print(f"skipped: {'; '.join(missing)}")
        return 0
    print("| " + " | ".join(HEADER) + " |\n|" + "---|" * len(HEADER))
    ok = True
    for size in args.sizes.split(","):
        row = measure_size(size, args.hosts, args.failover)
        ok = ok and row["green"] and row["identical"]
        print("| " + " | ".join(str(row[key]) for key in ("fabric", "switches", "hosts", "cross", "boot", "converged",
                                                          "ratio", "identical", "checks", "partition_s", "lost")) + " |",
              flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
