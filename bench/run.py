"""`make bench`: every benchmark, one Markdown + JSON report (bench/results/latest.md and latest.json).

- Scaling: fabrics 2x4 .. 64x1024 (spines x leaves, 2 servers per leaf), each size in its own process
  (bench/scale.py): plan, compile for every platform, full validation including N-1 what-ifs; min and median of
  several runs, peak RSS; the growth exponent k of time ∝ devices^k fitted on the sizes with >= 20 devices.
- Side by side with Arista AVD (pyavd, bench-only dependency): bench/avd_compare.py.
- The live twin: boot-to-converged and memory (bench/twin_bench.py; needs root + FRR).
- The API: p50/p95 latency and query counts (bench/api_bench.py).
- The UI: server-side page times and query counts at 16x64 and 18 pods (bench/ui_bench.py, own process).
- Render speed of the EOS and SONiC renderers over 1,000 synthetic devices (bench/render_bench.py).
Deeper single benchmarks, run by hand: bench/compile_bench.py, bench/validate_bench.py (per-check profile),
bench/intents_bench.py (the Django side of a compile: saves, allocation sync, DeviceConfig rows; needs a
database), bench/twin_verify_bench.py (boot + every live check with failure injection per size, `--frr 8.4|10.3`;
root + FRR), bench/l3vni_failover_bench.py (repeated failovers per FRR: L3VNI next hops lost, 8.4 vs 10.3;
results in bench/results/frr10.md).
- 5-stage Clos of Arista AVD's largest reported shape (4,998 switches), compiled for every platform (rendering in
  2 forked workers) and validated with every N-1, beside AVD's published time; the 100,000-GPU rail-optimised
  fabric built and compiled; the growth exponent against fabric links (bench/clos5_bench.py, own processes).
- The public corpus (tests/data/corpus: 1,008 configs from 8 repositories nobody here wrote) through exactly what
  `validate --configs` runs, per set (bench/corpus_bench.py, own process; also bench/results/corpus.md).
Each part that cannot run here says "skipped: <reason>" in the report. Benchmarks are not timed tests.
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from bench.corpus_bench import table as corpus_table
from bench.parse_bench import table as parse_table
from bench.ui_bench import table as ui_table

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SIZES = (("2x4", 5), ("4x16", 5), ("8x64", 3), ("16x256", 3), ("64x1024", 2))  # (size, repeats)
TARGETS = {
    "compile_1088_s": 10.0,
    "validate_1088_s": 10.0,
    "validate_1088_rss_mb": 2048.0,
    "eos_vs_pyavd_ratio": 20.0,
    "twin_4x64_converged_s": 60.0,
    "api_list_p95_ms": 200.0,
    "parse_validate_1088_s": 20.0,
    "parse_validate_1088_rss_mb": 3072.0,
    "corpus_lines_per_cpu_s": 100_000,  # issue 25's targets on the public corpus
    "corpus_unmodelled_percent": 10.0,
}


def machine() -> dict:
    cpu = ""
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(memory_gib, 1),
            "python": platform.python_version(), "kernel": platform.release(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def scaling() -> list[dict]:
    rows = []
    for size, repeats in SIZES:
        completed = subprocess.run(
            [sys.executable, "-m", "bench.scale", size, "--repeats", str(repeats)],
            cwd=ROOT, capture_output=True, text=True, timeout=3600,
        )
        if completed.returncode != 0:
            rows.append({"size": size, "error": completed.stderr.strip()[-500:]})
        else:
            rows.append(json.loads(completed.stdout.strip().splitlines()[-1]))
        print(f"  scale {size}: done", file=sys.stderr, flush=True)
    return rows


def growth_exponent(rows: list[dict], key: str, size: str = "devices") -> float | None:
    """Least-squares slope of log(time) over log(size), sizes with >= 20 devices. In a Clos where both tiers
    grow, links (spines x leaves) grow faster than devices, so the exponent is reported against both."""
    points = [(math.log(row[size]), math.log(row[key])) for row in rows
              if "error" not in row and row["devices"] >= 20 and row.get(key) and row[key] == row[key] and row[key] > 0]
    if len(points) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    numerator = sum((x - mean_x) * (y - mean_y) for x, y in points)
    denominator = sum((x - mean_x) ** 2 for x, _ in points)
    return round(numerator / denominator, 2) if denominator else None


def scaling_table(rows: list[dict], exponents: dict) -> str:
    lines = [
        "| spines x leaves | devices | cables | build s (min) | compile s min / median | "
        "validate+N-1 s min / median | peak RSS MB |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['size']} | error: {row['error'][:80]} | | | | | |")
            continue
        validate = ("skipped" if row["validate_s_min"] != row["validate_s_min"]
                    else f"{row['validate_s_min']:.2f} / {row['validate_s_median']:.2f}")
        lines.append(
            f"| {row['size']} | {row['devices']} | {row['cables']} | {row['build_s_min']:.2f} | "
            f"{row['compile_s_min']:.2f} / {row['compile_s_median']:.2f} | {validate} | {row['peak_rss_mb']:.0f} |"
        )
    lines.append("")
    lines.append(f"Growth exponent, sizes >= 20 devices: time ∝ devices^k gives compile k = {exponents['compile']}, "
                 f"validation k = {exponents['validate']}; time ∝ cables^k (cables = spines x leaves + servers) "
                 f"gives compile k = {exponents['compile_per_cable']}, validation k = {exponents['validate_per_cable']}")
    return "\n".join(lines)


def five_stage(shape: str = "avd", *extra: str) -> dict:
    completed = subprocess.run([sys.executable, "-m", "bench.clos5_bench", "--shape", shape, "--json", *extra],
                               cwd=ROOT, capture_output=True, text=True, timeout=3600)
    if completed.returncode != 0:
        return {"error": completed.stderr.strip()[-500:]}
    return json.loads(completed.stdout.strip().splitlines()[-1])


def five_stage_table(row: dict) -> str:
    if "error" in row:
        return f"error: {row['error']}"
    avd = row["avd_published_s"]
    return "\n".join([
        "| fabric | switches | fabric links | build CPU s | compile CPU s (eos+sonic+frr) | validate+N-1 CPU s | "
        "total CPU s | total wall s | peak RSS MB | target < 60 s and < 4 GB | Arista AVD published |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        f"| 12 super-spines, {row['pods']} pods x (12 spines + 265 leaves) | {row['switches']} | "
        f"{row['fabric_links']} | {row['build_s']:.1f} | {row['compile_s']:.1f} (render in "
        f"{row.get('workers', 1)} worker(s)) | {row['validate_s']:.1f} | {row['total_cpu_s']:.1f} | "
        f"{row['total_wall_s']:.1f} | {row['peak_rss_mb']:.0f} | {'met' if row['target_met'] else 'NOT met'} | "
        f"{avd // 60} min {avd % 60} s (16 min 37 s before their optimisation; compile only, laptop) |",
        "",
        f"Checks: {row['checks']}; N-1: {row['n_minus_1']}. Slowest checks (CPU s): {row['slowest_checks']}. "
        f"Load average (1 min) at start and end: {row.get('load_average')}: wall time on a shared machine is the "
        "CPU time divided by this process's share of the cores.",
    ])


def gpu100k_line(row: dict) -> str:
    if "error" in row:
        return f"100k-GPU rail-optimised fabric: error: {row['error']}"
    return (f"100k-GPU rail-optimised fabric ({row['pods']} pods of 16 SUs x 8 rail leaves, {row['planes']} planes): "
            f"{row['switches']} switches, {row['servers']} servers, {row['gpus']} GPUs, {row['cables']} cables; build "
            f"{row['build_s']:.1f} s CPU, compile for eos+sonic+frr {row['compile_s']:.1f} s CPU "
            f"({row['compile_wall_s']:.1f} s wall), peak RSS {row['peak_rss_mb']:.0f} MB; oversubscription {row['ratios']}")


def optional(module: str, call: str = "run"):
    """Run bench.<module>.run(); a skip reason when it cannot run here."""
    try:
        imported = __import__(f"bench.{module}", fromlist=[call])
    except ImportError as error:
        return None, f"skipped: {error}"
    try:
        result = getattr(imported, call)()
    except Exception as error:  # report any failure of an optional part, keep benchmarking
        return None, f"skipped: {error.__class__.__name__}: {error}"
    return (imported, result), None


def parse_configs_row() -> dict:
    """bench.parse_bench at 64x1024 in its own process (its peak RSS is its own)."""
    completed = subprocess.run([sys.executable, "-m", "bench.parse_bench", "64x1024", "--json"], cwd=ROOT,
                               capture_output=True, text=True, timeout=3600)
    if completed.returncode != 0:
        return {"error": completed.stderr.strip()[-500:]}
    return json.loads(completed.stdout.strip().splitlines()[-1])


def corpus_result() -> dict:
    """bench.corpus_bench in its own process (it also writes bench/results/corpus.md and corpus.json)."""
    completed = subprocess.run([sys.executable, "-m", "bench.corpus_bench", "--write", "--json"], cwd=ROOT,
                               capture_output=True, text=True, timeout=3600)
    if completed.returncode != 0:
        return {"error": completed.stderr.strip()[-500:]}
    return json.loads(completed.stdout.strip().splitlines()[-1])


def ui_pages() -> dict:
    """bench.ui_bench (16x64 and 18-pod pages) in its own process: it sets up Django on its own SQLite file."""
    completed = subprocess.run([sys.executable, "-m", "bench.ui_bench", "--json"], cwd=ROOT, capture_output=True,
                               text=True, timeout=3600)
    if completed.returncode != 0 and not completed.stdout.strip():
        return {"error": completed.stderr.strip()[-500:]}
    return json.loads(completed.stdout.strip().splitlines()[-1])


def targets(scale_rows: list[dict], avd_rows, twin_rows, api_result, parse_row: dict | None = None,
            clos5_row: dict | None = None, corpus: dict | None = None) -> list[tuple[str, str, str, str]]:
    big = next((row for row in scale_rows if row.get("size") == "64x1024" and "error" not in row), None)
    out = []

    def add(name, target, measured, met):
        out.append((name, target, measured, "met" if met else ("MISSED" if met is not None else "not measured")))

    if big:
        add("1,088-switch fabric compiles for all platforms", "< 10 s", f"{big['compile_s_min']:.2f} s",
            big["compile_s_min"] < TARGETS["compile_1088_s"])
        validated = big["validate_s_min"] == big["validate_s_min"]
        add("full validation with N-1 on 1,088 switches", "< 10 s and < 2 GB",
            f"{big['validate_s_min']:.2f} s, peak RSS {big['peak_rss_mb']:.0f} MB" if validated else "skipped",
            (big["validate_s_min"] < TARGETS["validate_1088_s"] and big["peak_rss_mb"] < TARGETS["validate_1088_rss_mb"])
            if validated else None)
    if clos5_row and "error" not in clos5_row:
        add("5-stage 4,998 switches (AVD shape): compile all platforms + validate with every N-1",
            "< 60 s and < 4 GB on 2 cores",
            f"{clos5_row['total_wall_s']:.1f} s wall at load average {clos5_row.get('load_average')} "
            f"({clos5_row['total_cpu_s']:.1f} s CPU), peak RSS {clos5_row['peak_rss_mb']:.0f} MB; AVD 9 min 14 s",
            clos5_row["target_met"])
    if avd_rows and "skipped" not in avd_rows[0]:
        worst = min(row["ratio"] for row in avd_rows)
        add("EOS per device faster than pyavd", ">= 20x", f"{worst}x (worst size)", worst >= TARGETS["eos_vs_pyavd_ratio"])
    else:
        add("EOS per device faster than pyavd", ">= 20x", "skipped", None)
    row_4x64 = next((row for row in (twin_rows or []) if row.get("fabric") == "4x64" and row.get("converged_s")), None)
    add("twin 4x64 converged", "< 60 s", f"{row_4x64['converged_s']:.1f} s" if row_4x64 else "skipped",
        row_4x64["converged_s"] < TARGETS["twin_4x64_converged_s"] if row_4x64 else None)
    if api_result:
        list_rows = [row for row in api_result["rows"] if row["queries_limit10"] is not None]
        worst = max(row["p95_ms"] for row in list_rows)
        constant = all(row["queries_limit10"] == row["queries_limit500"] for row in list_rows)
        add("API list endpoints", "p95 < 200 ms, constant queries",
            f"worst p95 {worst} ms, queries {'constant' if constant else 'NOT constant'}",
            worst < TARGETS["api_list_p95_ms"] and constant)
    if parse_row and "error" not in parse_row:
        cpu = parse_row["parse_cpu_s"] + parse_row["validate_cpu_s"]
        add("1,088 switches' configs (EOS+SONiC+FRR) parsed + validated as text", "< 20 s and < 3 GB",
            f"{parse_row['total_wall_s']:.2f} s wall ({cpu:.2f} s CPU), peak RSS {parse_row['peak_rss_mb']:.0f} MB",
            parse_row["total_wall_s"] < TARGETS["parse_validate_1088_s"]
            and parse_row["peak_rss_mb"] < TARGETS["parse_validate_1088_rss_mb"])
    else:
        add("1,088 switches' configs parsed + validated as text", "< 20 s and < 3 GB", "skipped", None)
    if corpus and "error" not in corpus:
        total = corpus["totals"]
        add("public corpus: tracebacks, devices silently dropped", "0 and 0",
            f"{total['sets_traceback']} of {total['sets']} sets, {total['devices_dropped']} devices",
            total["sets_traceback"] == 0 and total["devices_dropped"] == 0)
        add("public corpus: devices not read", "0", f"{total['devices_refused'] + total['devices_crashed']} of "
            f"{total['devices']}", total["devices_refused"] + total["devices_crashed"] == 0)
        fabric = corpus["fabric"]
        percent = 100 * fabric["unmodelled"] / max(fabric["in_scope"], 1)
        add("public corpus: unmodelled lines on fabric devices (access-port features out of scope)", "<= 10 %",
            f"{percent:.0f} % (" + ", ".join(
                f"{platform} {100 * counts['unmodelled'] / max(counts['in_scope'], 1):.0f} %"
                for platform, counts in sorted(fabric["platforms"].items())) + ")",
            percent <= TARGETS["corpus_unmodelled_percent"])
        add("public corpus: errors on the known-good fabrics (each a false error until judged)", "0",
            str(total["errors_known_good"]), total["errors_known_good"] == 0)
        add("public corpus: config lines per CPU second, end to end", ">= 100k", f"{total['lines_per_cpu_s']:,}",
            (total["lines_per_cpu_s"] or 0) >= TARGETS["corpus_lines_per_cpu_s"])
    else:
        add("public corpus: tracebacks, devices silently dropped", "0 and 0", "skipped", None)
    return out


def main() -> int:
    RESULTS.mkdir(parents=True, exist_ok=True)
    report: dict = {"machine": machine()}
    sections = [f"# Fabric Twin benchmarks\n\nMachine: {report['machine']['cores']} cores, "
                f"{report['machine']['memory_gib']} GiB, {report['machine']['cpu']}, Python "
                f"{report['machine']['python']}, {report['machine']['date']}.\n"]

    print("scaling ...", file=sys.stderr, flush=True)
    scale_rows = scaling()
    exponents = {"compile": growth_exponent(scale_rows, "compile_s_min"),
                 "validate": growth_exponent(scale_rows, "validate_s_min"),
                 "compile_per_cable": growth_exponent(scale_rows, "compile_s_min", "cables"),
                 "validate_per_cable": growth_exponent(scale_rows, "validate_s_min", "cables")}
    report["scaling"] = {"rows": scale_rows, "growth_exponent": exponents}
    sections.append("## Scaling (build, compile for eos+sonic+frr, validation with N-1)\n\n"
                    + scaling_table(scale_rows, exponents))

    print("pyavd side by side ...", file=sys.stderr, flush=True)
    avd, skip = optional("avd_compare")
    avd_rows = avd[1] if avd else [{"skipped": skip}]
    report["avd"] = avd_rows
    if avd and "skipped" not in avd_rows[0]:
        sections.append("## Side by side with Arista AVD (pyavd)\n\n```\n" + avd[0].table(avd_rows) + "\n```")
    else:
        sections.append(f"## Side by side with Arista AVD (pyavd)\n\n{avd_rows[0]['skipped']}")

    print("twin ...", file=sys.stderr, flush=True)
    twin, skip = optional("twin_bench")
    twin_rows = twin[1] if twin else None
    report["twin"] = twin_rows if twin else skip
    sections.append("## Live twin (netns + FRR)\n\n" + ("```\n" + twin[0].table(twin_rows) + "\n```" if twin else skip))
    verified = RESULTS / "twin_verify.md"
    if verified.exists():  # recorded by `python -m bench.twin_verify_bench --record` (minutes per size: not run here)
        sections.append("### Every live check per size (recorded rows)\n\n" + verified.read_text().split("\n", 2)[2])

    print("api ...", file=sys.stderr, flush=True)
    api, skip = optional("api_bench")
    api_result = api[1] if api else None
    report["api"] = api_result if api else skip
    sections.append("## API latency\n\n" + ("```\n" + api[0].table(api_result) + "\n```" if api else skip))

    print("ui ...", file=sys.stderr, flush=True)
    ui_result = ui_pages()
    report["ui"] = ui_result
    sections.append("## UI page times (server side)\n\n" + (f"skipped: {ui_result['error']}" if "error" in ui_result
                                                             else "```\n" + ui_table(ui_result) + "\n```"))

    print("render ...", file=sys.stderr, flush=True)
    render = subprocess.run([sys.executable, "-m", "bench.render_bench", "1000"], cwd=ROOT, capture_output=True,
                            text=True, timeout=1800)
    render_text = render.stdout.strip() if render.returncode == 0 else f"failed: {render.stderr.strip()[-500:]}"
    report["render"] = render_text
    sections.append("## Render speed (1,000 synthetic devices)\n\n```\n" + render_text + "\n```")

    print("configs as text ...", file=sys.stderr, flush=True)
    parse_row = parse_configs_row()
    report["parse_configs"] = parse_row
    if "error" in parse_row:
        sections.append(f"## Configs as text (validate --configs)\n\nskipped: {parse_row['error']}")
    else:
        sections.append("## Configs as text (validate --configs)\n\n" + parse_table(parse_row))

    print("5-stage Clos ...", file=sys.stderr, flush=True)
    clos5_row = five_stage()
    report["five_stage"] = clos5_row
    gpu_row = five_stage("gpu100k", "--no-validate")
    report["five_stage_100k_gpus"] = gpu_row
    growth_row = five_stage("avd", "--growth")
    report["five_stage_growth"] = growth_row
    sections.append("## 5-stage Clos, Arista AVD's largest reported shape\n\n" + five_stage_table(clos5_row)
                    + "\n\n" + gpu100k_line(gpu_row) + "\n\n### Growth against fabric links (the AVD shape, fewer "
                    "pods)\n\n" + growth_row.get("table", f"error: {growth_row.get('error')}"))

    print("public corpus ...", file=sys.stderr, flush=True)
    corpus = corpus_result()
    report["corpus"] = corpus
    sections.append("## Public corpus (validate --configs on configs nobody here wrote)\n\n"
                    + (f"skipped: {corpus['error']}" if "error" in corpus
                       else corpus_table(corpus) + "\n\nDetails: bench/results/corpus.md."))

    target_rows = targets(scale_rows, avd_rows, twin_rows, api_result, parse_row, clos5_row, corpus)
    report["targets"] = [dict(zip(("target", "goal", "measured", "status"), row, strict=True)) for row in target_rows]
    sections.append("## Targets\n\n| target | goal | measured | status |\n|---|---|---|---|\n" + "\n".join(
        f"| {name} | {goal} | {measured} | {status} |" for name, goal, measured, status in target_rows))

    markdown = "\n\n".join(sections) + "\n"
    (RESULTS / "latest.md").write_text(markdown)
    (RESULTS / "latest.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(markdown)
    print(f"written: {RESULTS / 'latest.md'} and {RESULTS / 'latest.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
