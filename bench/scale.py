"""One scaling measurement in its own process: plan, compile for every platform, full validation with N-1.

``python -m bench.scale 8x64 --repeats 3`` prints one JSON object: min and median wall seconds per stage over
the repeats and the process's peak RSS (its own high-water mark, so each size is measured alone). bench/run.py
runs one process per size and fits the growth exponent.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time

from compiler.api import compile_fabric
from compiler.clos import ClosParams, plan_clos
from compiler.model import Snapshot
from compiler.render import supported_platforms
from validators.context import ValidationInput
from validators.findings import CheckStatus
from validators.run import validate_fabric

from .compile_bench import BENCH_LEAF_MODEL, bench_intent


def measure(spines: int, leaves: int, servers_per_leaf: int, repeats: int) -> dict:
    name = f"scale{spines}x{leaves}"
    platforms = tuple(supported_platforms())
    samples: dict[str, list[float]] = {"build_s": [], "compile_s": [], "compile_cpu_s": [], "validate_s": [],
                                       "validate_cpu_s": []}
    devices = links = 0
    validation_summary = None
    for _ in range(repeats):
        started = time.perf_counter()
        inventory = plan_clos(ClosParams(name=name, spines=spines, leaves=leaves, servers_per_leaf=servers_per_leaf,
                                         platform="sonic", leaf_model=BENCH_LEAF_MODEL))
        samples["build_s"].append(time.perf_counter() - started)
        started, cpu_started = time.perf_counter(), time.process_time()
        result = compile_fabric(Snapshot(inventory, bench_intent(name)), platforms=platforms)
        samples["compile_s"].append(time.perf_counter() - started)
        samples["compile_cpu_s"].append(time.process_time() - cpu_started)
        devices, links = len(inventory.switches), len(inventory.cables)
        started, cpu_started = time.perf_counter(), time.process_time()
        report = validate_fabric(ValidationInput.from_compile(result))  # full static validation, N-1 what-ifs
        samples["validate_s"].append(time.perf_counter() - started)
        samples["validate_cpu_s"].append(time.process_time() - cpu_started)
        validation_summary = _summary(report)
        del result, inventory
    return {
        "size": f"{spines}x{leaves}", "spines": spines, "leaves": leaves, "devices": devices, "cables": links,
        "platforms": list(platforms), "repeats": repeats,
        **{f"{stage}_min": min(values) for stage, values in samples.items()},
        **{f"{stage}_median": statistics.median(values) for stage, values in samples.items()},
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "validation": validation_summary,
    }


def _summary(report) -> dict:
    """Pass/fail per check, not the findings (they can be many on a big fabric)."""
    data = report.as_dict()
    return {"ok": data["ok"], "counts": data["counts"],
            "checks": {check["name"]: check["status"] for check in data["checks"]},
            "failed": {check["name"]: [f["message"] for f in check["findings"][:3]]
                       for check in data["checks"] if check["status"] == CheckStatus.FAILED}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("size", help="SPINESxLEAVES")
    parser.add_argument("--servers-per-leaf", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    spines, leaves = (int(part) for part in args.size.lower().split("x"))
    print(json.dumps(measure(spines, leaves, args.servers_per_leaf, args.repeats), default=str))


if __name__ == "__main__":
    main()
