"""Host-side benchmark: ``python -m bench.hosts_bench [--servers N] [--write]``.

Builds a rail-optimised fabric of N GPU servers x 8 NICs (default 2,048 servers = 16,384 NICs: 512 leaves in 64
rail groups of 8, 32 servers per group, 4 modular spines), every NIC attached to one /16 GPU network, one lossless
RoCE class with ECN and CNP plus a lossy class. The switch compile (plan, facts, structured configs) is a
prerequisite and reported apart; then it times what issue 31 asks: the host configs derived
(compiler.host_config), every server's files rendered (compiler.render.hosts) and every hosts.* check run on every
server link (validators.hosts through validators.run). Target: < 10 s and < 2 GB peak RSS for the host part.
``--write`` stores the table in bench/results/hosts.md.
"""

from __future__ import annotations

import argparse
import gc
import resource
import time
from pathlib import Path

from compiler.api import build_facts, structured_configs
from compiler.clos import ClosParams, plan_clos
from compiler.host_config import build_host_configs
from compiler.model import Endpoint, FabricIntent, Network, RoceClass, Snapshot, Tenant
from compiler.render.hosts import render_host
from validators.context import ValidationInput
from validators.findings import Severity
from validators.run import validate_fabric

from .compile_bench import BENCH_POOLS

TARGET_SECONDS = 10.0
TARGET_RSS_MB = 2048.0
RAILS = 8
SERVERS_PER_GROUP = 32
RESULTS = Path(__file__).resolve().parent / "results"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def snapshot_for(servers: int) -> Snapshot:
    groups = -(-servers // SERVERS_PER_GROUP)
    name = f"hbench{servers}"
    inventory = plan_clos(ClosParams(name=name, spines=4, leaves=groups * RAILS, servers_per_leaf=SERVERS_PER_GROUP,
                                     rails_per_server=RAILS, spine_model="DCS-7816R4", platform="sonic"))
    attachments = tuple(Endpoint(server.name, nic.name) for server in inventory.servers for nic in server.nics)
    intent = FabricIntent(
        name=name, inventory_fabric=name, pools=BENCH_POOLS, tenants=(Tenant("A", "TENANT_A"),),
        networks=(Network("gpu", "A", 100, "10.64.0.0/16", "10.64.0.1", attachments=attachments),),
        roce_classes=(RoceClass("roce", (26,), 3, 3, True, 150, 1500, 10, cnp_dscp=48, cnp_priority=6),
                      RoceClass("bulk", (10,), 1, 1, False)))
    return Snapshot(inventory, intent)


def run(servers: int = 2048) -> dict:
    started = time.perf_counter()
    snapshot = snapshot_for(servers)
    structured = structured_configs(snapshot, build_facts(snapshot))
    switch_s = time.perf_counter() - started
    nics = sum(len(server.nics) for server in snapshot.inventory.servers)
    gc.collect()
    timings = {}
    started, cpu_started = time.perf_counter(), time.process_time()
    hosts = build_host_configs(snapshot)
    timings["derive"] = time.perf_counter() - started
    mark = time.perf_counter()
    rendered = {server: render_host(config) for server, config in hosts.items()}
    timings["render"] = time.perf_counter() - mark
    mark = time.perf_counter()
    report = validate_fabric(ValidationInput(structured=structured, snapshot=snapshot, hosts=hosts), checks=["hosts"])
    timings["check"] = time.perf_counter() - mark
    total = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    errors = [finding for finding in report.findings if finding.severity == Severity.ERROR]
    return {"servers": len(hosts), "nics": nics, "switches": len(structured), "switch_compile_s": round(switch_s, 2),
            "derive_s": round(timings["derive"], 2), "render_s": round(timings["render"], 2),
            "check_s": round(timings["check"], 2), "host_total_s": round(total, 2), "host_cpu_s": round(cpu, 2),
            "files": sum(len(files) for files in rendered.values()),
            "megabytes": round(sum(len(t) for files in rendered.values() for t in files.values()) / 1e6, 1),
            "links_checked": report.checks["hosts.pfc"].examined.get("server NIC links", 0),
            "checks": len(report.checks), "errors": len(errors), "peak_rss_mb": round(peak_rss_mb())}


def table(row: dict) -> str:
    ok = row["host_total_s"] < TARGET_SECONDS and row["peak_rss_mb"] < TARGET_RSS_MB
    return "\n".join([
        "# Host configs and host<->switch checks at scale (bench/hosts_bench.py)",
        "",
        f"Target (issue 31): render and check {row['servers']:,} servers x {RAILS} NICs in < {TARGET_SECONDS:g} s and "
        f"< {TARGET_RSS_MB:,.0f} MB peak RSS: **{'met' if ok else 'NOT met'}**.",
        "",
        "| servers | NICs | switches | switch compile s (prerequisite) | derive s | render s | check s | host total s "
        "| host CPU s | files | MB | NIC links checked | checks | errors | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        f"| {row['servers']:,} | {row['nics']:,} | {row['switches']} | {row['switch_compile_s']} | {row['derive_s']} | "
        f"{row['render_s']} | {row['check_s']} | {row['host_total_s']} | {row['host_cpu_s']} | {row['files']:,} | "
        f"{row['megabytes']} | {row['links_checked']:,} | {row['checks']} | {row['errors']} | {row['peak_rss_mb']:,} |",
        "",
        "Peak RSS is the whole process (switch compile included). Measured on the shared 2-core build machine; "
        "wall times include other jobs' load.",
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=2048)
    parser.add_argument("--write", action="store_true", help="store the table in bench/results/hosts.md")
    args = parser.parse_args()
    text = table(run(args.servers))
    print(text)
    if args.write:
        (RESULTS / "hosts.md").write_text(text)


if __name__ == "__main__":
    main()
