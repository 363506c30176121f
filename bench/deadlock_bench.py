"""PFC deadlock analysis (validators/deadlock.py) at scale: ``python -m bench.deadlock_bench [--write]``.

Rows:
* the 1,088-switch 2-tier fabric (64 spines x 1,024 leaves) and AVD's 4,998-switch 5-stage shape, as the project
  compiles them (one spine ASN per tier group, the valley-free policy on 5-stage): the AS-path rule proves the
  certificate for every failure set -- baseline, every N-1, every N-2 and beyond -- and ``roce.deadlock`` runs as
  ``validate`` runs it;
* the same 1,088-switch fabric with one ASN per spine (the rule fails): the enumeration engine within its work
  limit, stopping at the smallest failure-set size that shows a cycle;
* explicit enumeration without the rule (``enumerate_always``) on fabrics small enough for every scenario, to
  show the engine's own speed and that it agrees with the rule.
CPU seconds of this process (steady on a shared machine) and peak RSS. Results: bench/results/deadlock.md.
"""

from __future__ import annotations

import argparse
import copy
import resource
import sys
import time
from pathlib import Path

from compiler.api import compile_fabric
from compiler.clos import ClosParams, plan_clos
from compiler.model import Role, Snapshot
from compiler.pods import plan_pods
from validators import deadlock
from validators.context import FabricContext
from validators.findings import Severity
from validators.run import validate_fabric

from .clos5_bench import SHAPES
from .clos5_bench import intent as clos5_intent
from .compile_bench import BENCH_LEAF_MODEL, bench_intent

RESULTS = Path(__file__).resolve().parent / "results" / "deadlock.md"


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _two_tier(spines: int, leaves: int):
    name = f"dl{spines}x{leaves}"
    inventory = plan_clos(ClosParams(name=name, spines=spines, leaves=leaves, servers_per_leaf=0, platform="sonic",
                                     leaf_model=BENCH_LEAF_MODEL))
    return compile_fabric(Snapshot(inventory, bench_intent(name)), platforms=("sonic",))


def _five_stage():
    params = SHAPES["avd"]
    inventory = plan_pods(params)
    return compile_fabric(Snapshot(inventory, clos5_intent(params.name)), platforms=("sonic",))


def _unique_spines(structured) -> dict:
    structured = {host: copy.deepcopy(config) if config["role"] in (Role.SPINE, Role.LEAF) else config
                  for host, config in structured.items()}
    spines = sorted(host for host, config in structured.items() if config["role"] == Role.SPINE)
    for number, host in enumerate(spines):
        structured[host]["bgp"]["asn"] = structured[host]["asn"] = 4210000000 + number
    for config in structured.values():
        for neighbor in config["bgp"]["neighbors"]:
            peer = structured.get(neighbor["peer_device"])
            if peer is not None:
                neighbor["remote_as"] = peer["bgp"]["asn"]
    return structured


def row(label: str, structured, snapshot=None, **options) -> dict:
    ctx = FabricContext(structured, snapshot)
    started = time.process_time()
    if options.pop("check", False):
        report = validate_fabric(ctx, checks=[deadlock.CHECK])
        result = report.checks[deadlock.CHECK]
        elapsed = time.process_time() - started
        return {"case": label, "switches": len(structured), "method": "roce.deadlock check",
                "scenarios": "every failure set (rule)" if "certificate: no PFC" in " ".join(
                    f.message for f in result.findings) else str(result.examined.get("failure scenarios")),
                "cycles": sum(1 for f in result.findings if f.severity == Severity.ERROR), "verdict": result.status,
                "cpu_s": elapsed, "rss_mb": _rss_mb()}
    analysis = deadlock.analyse(ctx, **options)
    elapsed = time.process_time() - started
    scenarios = ("every failure set (rule)" if analysis.method == "proof" else
                 f"{analysis.scenarios_examined:,} of {analysis.scenarios_total:,}")
    return {"case": label, "switches": len(structured), "method": analysis.method, "scenarios": scenarios,
            "cycles": len(analysis.cycles), "verdict": "; ".join(analysis.notes) or
            ("certificate" if not analysis.cycles else "cycles"), "cpu_s": elapsed, "rss_mb": _rss_mb()}


def run(quick: bool = False) -> list[dict]:
    rows = []
    for spines, leaves in ((4, 16), (8, 32)):
        result = _two_tier(spines, leaves)
        rows.append(row(f"{spines}x{leaves} explicit (rule skipped)", result.structured, result.snapshot,
                        enumerate_always=True, sample=2_000))
    result = _two_tier(4, 16)
    rows.append(row("4x16, one ASN per spine", _unique_spines(result.structured), result.snapshot))
    if not quick:
        result = _two_tier(64, 1024)
        rows.append(row("64x1024 (1,088 switches)", result.structured, result.snapshot, check=True))
        rows.append(row("64x1024, one ASN per spine", _unique_spines(result.structured), result.snapshot))
        del result
        result = _five_stage()
        rows.append(row("AVD 5-stage (4,998 switches)", result.structured, result.snapshot, check=True))
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| case | switches | method | failure scenarios | cycles | verdict / notes | CPU s | peak RSS MB |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['switches']:,} | {r['method']} | {r['scenarios']} | {r['cycles']} | "
                     f"{r['verdict']} | {r['cpu_s']:.2f} | {r['rss_mb']:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write bench/results/deadlock.md")
    parser.add_argument("--quick", action="store_true", help="small fabrics only")
    args = parser.parse_args(argv)
    text = ("# PFC deadlock analysis at scale\n\n"
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; `python -m bench.deadlock_bench --write`. "
            "CPU seconds of the analysis alone (compile not counted); peak RSS of the process (includes the "
            "compiled fabric). Targets (issue 33): 1,088 switches, baseline + every N-1 + every spine-pair N-2, "
            "< 30 s and < 2 GB; 4,998 switches, every N-1, < 120 s and < 4 GB.\n\n" + table(run(args.quick)) + "\n")
    print(text)
    if args.write:
        RESULTS.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
