"""Does an FRR lose L3VNI next hops after failures? One table row per FRR (root + FRR; FRR 10.3 via scripts/frr10.sh).

    python -m bench.l3vni_failover_bench [--frr 8.4,10.3] [--rounds 5] [--scenario FILE] [--state-dir DIR]

Boots a scenario (default the golden three-tenant SONiC 2x4, tests/golden/multi_tenant_l3vni: netns VRFs, BFD;
``--scenario examples/reference-fabric.yaml`` is `make demo`'s) once per FRR and repeats, ``--rounds`` times, the
link and the spine failover of the live checks (labs.checks.check_failover) and then a cut of every spine in turn
(all its links, labs.measure.inject: cut, measure, restore, look for lost next hops).
Each row: the FRR version that ran (read from its zebra), failures injected, how many of them left a leaf without
a remote VTEP's router MAC (the FRR 8.4 defect, docs/twin.md), whether the `clear bgp *` workaround was applied,
and the largest ping outage. Nothing is repaired silently: with the workaround off a loss stays an error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from compiler.api import compile_fabric
from compiler.model import Role
from compiler.scenario import snapshot_from_scenario
from labs import checks, measure, runtime
from labs.from_compile import topology_from_compile
from labs.shell import twin_prerequisites
from validators.findings import Report

SCENARIO = Path(__file__).resolve().parents[1] / "tests" / "golden" / "multi_tenant_l3vni" / "scenario.yaml"


def run(args) -> int:
    print(" | ".join(("frr", "failures_injected", "with_l3vni_loss", "vteps_lost", "workaround", "max_outage_ms",
                      "checks_failed")))
    scenario = yaml.safe_load(Path(args.scenario).read_text())
    for choice in args.frr.split(","):
        topology = topology_from_compile(compile_fabric(snapshot_from_scenario(scenario)), max_servers_per_leaf=2)
        state = runtime.up(topology, args.state_dir, frr=choice)
        injected = with_loss = vteps = failed = 0
        outage = 0.0
        try:
            report = Report()
            checks.check_bgp_sessions(state, report, timeout_s=90)
            for _round in range(args.rounds):
                for scope in ("link", "spine"):
                    measured = checks.check_failover(state, report, scope=scope)
                    injected += 1
                    lost = (measured.get("l3vni_next_hops_resynced") or {}).get("lost", {})
                    with_loss += bool(lost)
                    vteps += sum(len(addresses) for addresses in lost.values())
                    outage = max(outage, measured.get("outage_s", 0.0))
                for spine in sorted(node.name for node in topology.nodes if node.role == Role.SPINE):
                    cut = [(link.a_node, link.a_ifname) for link in topology.links if link.a_node == spine]
                    cut += [(link.b_node, link.b_ifname) for link in topology.links if link.b_node == spine]
                    injection = measure.inject(state, cut)
                    injected += 1
                    with_loss += bool(injection.relearn.lost)
                    vteps += sum(len(addresses) for addresses in injection.relearn.lost.values())
            failed = report.counts()["failed"]
            workaround = "applied" if checks.frr_record(state)["l3vni_workaround"] else "off"
            print(" | ".join(str(value) for value in (state.frr["version"], injected, with_loss, vteps, workaround,
                                                      round(outage * 1000), failed)), flush=True)
        finally:
            runtime.down(state.prefix, args.state_dir, force=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.l3vni_failover_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--frr", default="8.4,10.3", help="comma-separated FRR choices (labs.frr_binaries)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of failovers per FRR")
    parser.add_argument("--scenario", default=str(SCENARIO), help="scenario YAML (compiler.scenario format)")
    parser.add_argument("--state-dir", default=None, help="where twin state files live (default out/twins)")
    args = parser.parse_args(argv)
    missing = twin_prerequisites()
    if missing:
        print(f"skipped: {'; '.join(missing)}")
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
