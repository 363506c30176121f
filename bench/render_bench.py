"""Render-speed measurement for the EOS and SONiC renderers (a script that prints a table, not a timed test).

    python -m bench.render_bench [devices]      # default 1000 (part of make bench)

Renders ``devices`` synthetic copies of the hand-built leaf and spine (half each), widened to 64 RoCE-enabled
400G ports per switch (leaf: 2 tenants, 2 lossless classes), and prints the best of three wall times per platform. The first device is rendered before timing so template
compilation (once per process) is reported separately.
"""

from __future__ import annotations

import sys
import time

from compiler.render import eos, sonic
from tests.compiler.render.render_structured_fixtures import leaf_structured, synthetic_fleet


def measure(name: str, function, fleet: list[dict], repeats: int = 3) -> tuple[str, int, float, int]:
    """Best of ``repeats`` runs over the fleet (the machine is shared, so the minimum is the honest number)."""
    best_s = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        total_bytes = 0
        for device in fleet:
            total_bytes += sum(len(text) for text in function(device).values())
        best_s = min(best_s, time.perf_counter() - started)
    return name, len(fleet), best_s, total_bytes


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    started = time.perf_counter()
    eos.render(leaf_structured("eos"))
    warmup_s = time.perf_counter() - started
    rows = [
        measure("eos startup-config", eos.render, synthetic_fleet(count, "eos")),
        measure("sonic config_db.json", lambda d: {"config_db.json": sonic.render_config_db(d)},
                synthetic_fleet(count, "sonic")),
    ]
    rows.append(measure("sonic config_db.json + frr.conf", sonic.render, synthetic_fleet(count, "sonic")))
    print(f"template compile + first EOS device: {warmup_s * 1000:.1f} ms")
    print(f"{'renderer':34} {'devices':>8} {'seconds':>8} {'ms/device':>10} {'MB out':>8}")
    for name, devices, seconds, total_bytes in rows:
        print(f"{name:34} {devices:>8} {seconds:>8.2f} {seconds / devices * 1000:>10.2f} {total_bytes / 1e6:>8.1f}")


if __name__ == "__main__":
    main()
