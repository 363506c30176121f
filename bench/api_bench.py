"""API latency benchmark: p50/p95 of the main list and detail endpoints under a small concurrent load.

Builds a fabric with a few thousand interfaces in its own database (PostgreSQL database ``ft_bench`` when the
server is reachable, otherwise a SQLite file, said in the output), serves the API with gunicorn on a free
loopback port, and drives it from a thread pool (loopback only, bounded request count). The query count per
request is measured in-process with Django's CaptureQueriesContext at two page sizes, which shows whether it
is constant. Run: ``python -m bench.api_bench`` (part of ``make bench``).
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import django
import psycopg

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"
PG_BENCH_URL = "postgres://postgres@127.0.0.1:5432/ft_bench"


def _database_url() -> tuple[str, str]:
    try:
        with psycopg.connect(PG_ADMIN_URL.replace("postgres://", "postgresql://"), autocommit=True,
                             connect_timeout=3) as conn:
            conn.execute("DROP DATABASE IF EXISTS ft_bench WITH (FORCE)")
            conn.execute("CREATE DATABASE ft_bench")
        return PG_BENCH_URL, "postgresql"
    except Exception as error:  # any failure means: fall back and say so
        path = ROOT / "out" / "bench-api.sqlite3"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        return f"sqlite:///{path}", f"sqlite (PostgreSQL unreachable: {error.__class__.__name__})"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _prepare(spines: int, leaves: int) -> dict:
    """Migrate, build the fabric, make a token; returns ids to hit. Runs in this process."""
    django.setup()
    # lazy, here: the Django and app imports need the settings, set up only after the bench database was chosen
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from common.tokens import token_issue
    from compiler.clos import ClosParams
    from inventory.builder import fabric_build
    from inventory.models import Cable, Interface, Switch

    call_command("migrate", verbosity=0, interactive=False)
    fabric_build(params=ClosParams(name="bench", spines=spines, leaves=leaves, servers_per_leaf=4))
    user, _ = get_user_model().objects.get_or_create(username="bench", defaults={"is_staff": True})
    user.groups.add(Group.objects.get(name="viewer"))  # the API checks roles (common/policy.py); the bench only reads
    token, _ = token_issue(user=user)
    return {
        "token": token,
        "interfaces": Interface.objects.count(),
        "switch_id": Switch.objects.order_by("id").values_list("id", flat=True).last(),
        "interface_id": Interface.objects.order_by("id").values_list("id", flat=True).last(),
        "cable_id": Cable.objects.order_by("id").values_list("id", flat=True).last(),
    }


def _query_counts(token: str, paths: list[str]) -> dict[str, tuple[int, int]]:
    """Queries per request at limit=10 and limit=500 (equal numbers mean the endpoint is constant)."""
    # lazy: needs django.setup() (run by _prepare in this process) before the app registry is importable
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    counts = {}
    for path in paths:
        per_size = []
        for limit in (10, 500):
            separator = "&" if "?" in path else "?"
            with CaptureQueriesContext(connection) as captured:
                response = client.get(f"{path}{separator}limit={limit}")
            if response.status_code != 200:
                raise RuntimeError(f"{path}: HTTP {response.status_code}")
            per_size.append(len(captured.captured_queries))
        counts[path] = (per_size[0], per_size[1])
    return counts


def _load(base: str, token: str, path: str, requests: int, concurrency: int) -> dict:
    def one(_: int) -> float:
        request = urllib.request.Request(base + path, headers={"Authorization": f"Token {token}"})
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            if response.status != 200:
                raise RuntimeError(f"{path}: HTTP {response.status}")
        return (time.perf_counter() - started) * 1000

    for _ in range(5):  # warm-up
        one(0)
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        latencies = sorted(pool.map(one, range(requests)))
    return {
        "p50_ms": round(statistics.median(latencies), 1),
        "p95_ms": round(latencies[int(len(latencies) * 0.95) - 1], 1),
        "max_ms": round(latencies[-1], 1),
        "requests": requests,
    }


def run(spines: int = 8, leaves: int = 48, requests: int = 200, concurrency: int = 4) -> dict:
    database_url, database_label = _database_url()
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings")
    os.environ.pop("CELERY_BROKER_URL", None)
    # A development server for measuring throughput: DEBUG on, and no per-user API throttle (it would cap the
    # measured rate at FT_API_THROTTLE_USER).
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("FT_API_THROTTLE_USER", "100000000/minute")
    os.environ.setdefault("DB_CONN_MAX_AGE", "60")  # gunicorn, as in production
    sys.path.insert(0, str(ROOT))
    prepared = _prepare(spines, leaves)
    lists = ["/api/switches/", "/api/interfaces/", "/api/cables/", "/api/optics/", "/api/servers/"]
    details = [
        f"/api/switches/{prepared['switch_id']}/",
        f"/api/interfaces/{prepared['interface_id']}/",
        f"/api/cables/{prepared['cable_id']}/",
    ]
    counts = _query_counts(prepared["token"], lists)

    port = _free_port()
    gunicorn = Path(sys.executable).with_name("gunicorn")
    server = subprocess.Popen(
        [str(gunicorn), "twin.wsgi", "-b", f"127.0.0.1:{port}", "-w", "2", "--threads", "2", "--log-level", "warning"],
        cwd=ROOT, env={**os.environ, "DEBUG": "1"},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/api/schema/", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        rows = []
        for path in lists + details:
            measured = _load(base, prepared["token"], path, requests, concurrency)
            queries = counts.get(path)
            rows.append({
                "endpoint": path, **measured,
                "queries_limit10": queries[0] if queries else None,
                "queries_limit500": queries[1] if queries else None,
            })
    finally:
        server.terminate()
        server.wait(timeout=20)
    return {
        "database": database_label, "interfaces": prepared["interfaces"], "concurrency": concurrency,
        "rows": rows, "target_p95_ms": 200,
        "target_met": all(row["p95_ms"] < 200 for row in rows if row["endpoint"] in lists)
        and all(row["queries_limit10"] == row["queries_limit500"] for row in rows if row["queries_limit10"]),
    }


def table(result: dict) -> str:
    lines = [
        f"API latency — {result['interfaces']} interfaces, {result['database']}, concurrency {result['concurrency']}",
        f"{'endpoint':<28} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'queries@10':>11} {'queries@500':>12}",
    ]
    for row in result["rows"]:
        lines.append(
            f"{row['endpoint']:<28} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['max_ms']:>8} "
            f"{row['queries_limit10'] if row['queries_limit10'] is not None else '-':>11} "
            f"{row['queries_limit500'] if row['queries_limit500'] is not None else '-':>12}"
        )
    lines.append(f"target: list p95 < 200 ms with a constant query count — {'met' if result['target_met'] else 'MISSED'}")
    return "\n".join(lines)


if __name__ == "__main__":
    outcome = run()
    print(table(outcome))
    if "--json" in sys.argv:
        print(json.dumps(outcome, indent=2))
