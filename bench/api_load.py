"""Read load as issue 29's audit measured it: gunicorn with DEBUG off on PostgreSQL, 8 concurrent clients on the
list pages of fabrics, switches, rollouts and findings and on the topology page; p50/p95/p99, requests/s, and the
server's CPU time per request.

Setup (in this process, timed apart): a fresh PostgreSQL database (``--db-name``, dropped and created), migrated;
a 4-spine x 24-leaf fabric with 8 servers per leaf, its intent (one tenant, one network), a compile and a
validation run (findings), 60 rollouts of a change set (a third of them with no recorded creator or approver)
and a viewer with an API token and a session. gunicorn then serves ``twin.wsgi`` as the Dockerfile runs it
(``--workers 3``, sync workers, an access log) with ``DEBUG=0``, ``FT_HTTPS=0`` (plain HTTP on loopback) and the
API throttle lifted (it would cap the rate being measured).

Measured:
- **mixed load**: ``--clients`` threads (8) each walk the endpoint list in turn for ``--rounds`` rounds; latency
  percentiles per endpoint and over all requests, and requests/s over the whole phase;
- **CPU per request**: user+system CPU of gunicorn's processes (``/proc/<pid>/stat``) over the mixed phase divided
  by its requests, and per endpoint over ``--cpu-requests`` sequential requests. Wall-clock latency on a machine
  other jobs share moves with their load; the server's own CPU time per request does not, so it is the number to
  compare between runs;
- **queries per request** of each endpoint, in-process (CaptureQueriesContext).

Run: ``python -m bench.api_load [--db-name ft_api_load] [--clients 8] [--rounds 40] [--json out.json]
[--markdown bench/results/api_load.md]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import django
import psycopg

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _fresh_database(name: str) -> str:
    with psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def _prepare(spines: int, leaves: int, servers_per_leaf: int, rollouts: int) -> dict:
    """Build the data the pages show; returns the viewer's credentials and the endpoint paths."""
    django.setup()
    # lazy: the app imports need django.setup(), run only after the bench database was chosen
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.test import Client

    from changes.models import ChangeSet, Rollout
    from compiler.clos import ClosParams
    from intents import services
    from inventory.builder import fabric_build
    from inventory.models import Fabric, NicPort, Switch
    from validation.models import ValidationFinding
    from validation.services import validation_run_create

    call_command("migrate", verbosity=0, interactive=False)
    fabric_build(params=ClosParams(name="load", spines=spines, leaves=leaves, servers_per_leaf=servers_per_leaf))
    intent = services.fabric_intent_create(fabric=Fabric.objects.get(name="load"), name="load-intent")
    tenant = services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    network = services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/20",
                                      gateway="10.10.0.1")
    network.attachments.set(NicPort.objects.filter(server__fabric__name="load")[:32])
    run = services.compile_run_create(fabric_intent=intent)
    if run.status != "succeeded":
        raise RuntimeError(f"compile failed: {run.error}")
    validation = validation_run_create(fabric_intent=intent)
    user_model = get_user_model()
    submitter = user_model.objects.create_user(username="load-operator", password=None)
    change_set = ChangeSet.objects.create(name="load")
    plan = {"waves": [["leaf1"], ["leaf2", "leaf3"]], "unchanged": []}
    for number in range(rollouts):
        recorded = number % 3 != 0  # a third from the shell: no creator, no approver (null in the API)
        Rollout.objects.create(name=f"rollout-{number}", kind="canary_push", target="twin", state="succeeded",
                               change_set=change_set, plan=plan, policy={}, report={"waves": 2},
                               started_by=submitter if recorded else None,
                               approved_by=submitter if recorded else None)
    viewer = user_model.objects.create_user(username="load-viewer", password=None)
    viewer.groups.add(Group.objects.get(name="viewer"))
    token = _token(viewer)
    client = Client()
    client.force_login(viewer)  # a database session: the gunicorn workers read the same row
    return {
        "token": token, "session": client.cookies["sessionid"].value,
        "sizes": {"switches": Switch.objects.count(), "rollouts": Rollout.objects.count(),
                  "findings": ValidationFinding.objects.filter(run=validation).count()},
        "endpoints": [
            ("api", "/api/fabrics/"),
            ("api", "/api/switches/"),
            ("api", "/api/rollouts/"),
            ("api", f"/api/validation-runs/{validation.pk}/findings/"),
            ("ui", "/fabrics/"),
            ("ui", "/inventory/switches/"),
            ("ui", "/rollouts/"),
            ("ui", "/validation/load/"),
            ("ui", "/fabrics/load/topology/"),
        ],
    }


def _token(user) -> str:
    try:
        from common.tokens import token_issue  # lazy: absent before hashed tokens (--lenient runs of older trees)
    except ImportError:
        from rest_framework.authtoken.models import Token

        return Token.objects.create(user=user).key
    return token_issue(user=user)[0]


def _headers(kind: str, prepared: dict) -> dict:
    if kind == "api":
        return {"Authorization": f"Token {prepared['token']}"}
    return {"Cookie": f"sessionid={prepared['session']}"}


def _query_counts(prepared: dict, lenient: bool) -> dict[str, int]:
    # lazy: needs django.setup(), done by _prepare in this process
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    counts = {}
    for kind, path in prepared["endpoints"]:
        client = Client(**{f"HTTP_{key.upper()}": value for key, value in _headers(kind, prepared).items()})
        client.get(path)  # warm: first-use caches (content types, permissions) are not the steady state
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        if response.status_code != 200:
            if not lenient:
                raise RuntimeError(f"{path}: HTTP {response.status_code}")
            print(f"left out: {path}: HTTP {response.status_code}", file=sys.stderr)
            continue
        counts[path] = len(captured.captured_queries)
    prepared["endpoints"] = [(kind, path) for kind, path in prepared["endpoints"] if path in counts]
    return counts


def _connection_cost(db_name: str, prepared: dict, repeats: int = 40) -> dict:
    """CPU of one request's SQL (``/api/fabrics/``, as captured) on a new connection each time (DB_CONN_MAX_AGE=0)
    and on a kept one: client CPU (this process) and the backend's own CPU (``/proc/<backend pid>/stat``, read
    before it exits), neither of which grows with the machine's load as wall time does."""
    # lazy: needs django.setup(), done by _prepare in this process
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_AUTHORIZATION=f"Token {prepared['token']}")
    with CaptureQueriesContext(connection) as captured:
        client.get("/api/fabrics/")
    statements = [query["sql"] for query in captured.captured_queries]
    dsn = f"postgresql://postgres@127.0.0.1:5432/{db_name}"

    def backend_cpu(conn) -> float:
        fields = Path(f"/proc/{conn.info.backend_pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    client_cpu, server_cpu = time.process_time(), 0.0
    for _ in range(repeats):
        with psycopg.connect(dsn) as conn:
            for sql in statements:
                conn.execute(sql).fetchall()
            server_cpu += backend_cpu(conn)
    fresh = ((time.process_time() - client_cpu) * 1000 / repeats, server_cpu * 1000 / repeats)
    with psycopg.connect(dsn) as conn:
        for sql in statements:  # warm the backend's catalog caches, as a kept connection's are
            conn.execute(sql).fetchall()
        client_cpu, before = time.process_time(), backend_cpu(conn)
        for _ in range(repeats):
            for sql in statements:
                conn.execute(sql).fetchall()
        kept = ((time.process_time() - client_cpu) * 1000 / repeats, (backend_cpu(conn) - before) * 1000 / repeats)
    return {"statements": len(statements), "fresh_client_ms": round(fresh[0], 2),
            "fresh_backend_ms": round(fresh[1], 2), "kept_client_ms": round(kept[0], 2),
            "kept_backend_ms": round(kept[1], 2)}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _process_tree(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    found = [pid]
    if children.exists():
        for child in children.read_text().split():
            found += _process_tree(int(child))
    return found


def _cpu_seconds(root_pid: int) -> float:
    """User + system CPU of a process and its children (gunicorn's master and workers), in seconds."""
    total = 0
    for pid in _process_tree(root_pid):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))
    return total / CLOCK_TICKS


def _postgres_cpu_seconds(db_name: str) -> float | None:
    """CPU of PostgreSQL's backends serving ``db_name`` so far: the ones alive (``/proc``), plus every backend the
    postmaster has reaped (its children's CPU: a connection per request ends its backend each time). The reaped part
    includes other databases' backends on a shared server, so it is an upper bound; None when not readable."""
    pid_files = sorted(Path("/var/run/postgresql").glob("*.pid"))
    if not pid_files:
        return None
    try:
        postmaster = int(pid_files[0].read_text().split()[0])
        fields = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            backends = [row[0] for row in conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s", (db_name,))]
    except (OSError, ValueError, psycopg.Error):
        return None
    total = int(fields[13]) + int(fields[14])  # cutime, cstime: reaped children (fields 16 and 17 of proc(5))
    for pid in backends:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(stat[11]) + int(stat[12])
    return total / CLOCK_TICKS


def _get(base: str, path: str, headers: dict) -> float:
    request = urllib.request.Request(base + path, headers=headers)
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()
        if response.status != 200:
            raise RuntimeError(f"{path}: HTTP {response.status}")
    return (time.perf_counter() - started) * 1000


def _percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (the smallest value with at least ``fraction`` of the values at or below it)."""
    index = max(0, min(len(sorted_values) - 1, -(-int(len(sorted_values) * fraction * 1000) // 1000) - 1))
    return round(sorted_values[index], 1)


def _stats(latencies: list[float]) -> dict:
    ordered = sorted(latencies)
    return {"requests": len(ordered), "p50_ms": round(statistics.median(ordered), 1),
            "p95_ms": _percentile(ordered, 0.95), "p99_ms": _percentile(ordered, 0.99),
            "max_ms": round(ordered[-1], 1)}


def _mixed_load(base: str, prepared: dict, clients: int, rounds: int, server_pid: int, db_name: str) -> dict:
    latencies: dict[str, list[float]] = {path: [] for _, path in prepared["endpoints"]}
    errors: list[str] = []
    lock = threading.Lock()

    def client(offset: int) -> None:
        endpoints = prepared["endpoints"]
        for step in range(rounds * len(endpoints)):
            kind, path = endpoints[(step + offset) % len(endpoints)]  # clients start at different pages
            try:
                elapsed = _get(base, path, _headers(kind, prepared))
            except Exception as error:  # counted and reported, the run goes on
                with lock:
                    errors.append(f"{path}: {error}")
                continue
            with lock:
                latencies[path].append(elapsed)

    threads = [threading.Thread(target=client, args=(number,)) for number in range(clients)]
    pg_before = _postgres_cpu_seconds(db_name)
    cpu_before, started = _cpu_seconds(server_pid), time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds, cpu = time.perf_counter() - started, _cpu_seconds(server_pid) - cpu_before
    pg_after = _postgres_cpu_seconds(db_name)
    every = [value for values in latencies.values() for value in values]
    pg_ms = (round((pg_after - pg_before) * 1000 / max(1, len(every)), 1)
             if pg_before is not None and pg_after is not None else None)
    return {"seconds": round(seconds, 1), "requests_per_s": round(len(every) / seconds, 1),
            "server_cpu_ms_per_request": round(cpu * 1000 / max(1, len(every)), 1),
            "postgres_cpu_ms_per_request": pg_ms,
            "all": _stats(every), "by_endpoint": {path: _stats(values) for path, values in latencies.items()},
            "errors": errors[:10], "error_count": len(errors)}


def _cpu_per_endpoint(base: str, prepared: dict, requests: int, server_pid: int,
                      db_name: str) -> dict[str, tuple[float, float | None]]:
    """Per endpoint alone, one client: (gunicorn CPU ms, PostgreSQL CPU ms) per request. CPU time does not grow
    when other jobs share the machine, as latency does."""
    out = {}
    for kind, path in prepared["endpoints"]:
        headers = _headers(kind, prepared)
        _get(base, path, headers)
        before, pg_before = _cpu_seconds(server_pid), _postgres_cpu_seconds(db_name)
        for _ in range(requests):
            _get(base, path, headers)
        pg_after = _postgres_cpu_seconds(db_name)
        out[path] = (round((_cpu_seconds(server_pid) - before) * 1000 / requests, 1),
                     round((pg_after - pg_before) * 1000 / requests, 1)
                     if pg_before is not None and pg_after is not None else None)
    return out


def run(db_name: str, clients: int, rounds: int, cpu_requests: int, spines: int, leaves: int,
        servers_per_leaf: int, rollouts: int, lenient: bool = False, conn_max_age: str | None = None) -> dict:
    os.environ["DATABASE_URL"] = _fresh_database(db_name)
    os.environ["DJANGO_SETTINGS_MODULE"] = "twin.settings"
    os.environ["DEBUG"] = "0"
    os.environ["FT_HTTPS"] = "0"  # plain HTTP on loopback: no redirect to https://
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ["FT_API_THROTTLE_USER"] = "100000000/minute"
    if conn_max_age is not None:  # else what twin/settings.py chooses for a plain `gunicorn twin.wsgi`
        os.environ["DB_CONN_MAX_AGE"] = conn_max_age
    else:
        os.environ.pop("DB_CONN_MAX_AGE", None)
    os.environ.pop("CELERY_BROKER_URL", None)  # compile and validation run in-process
    os.environ.setdefault("FT_DATA_DIR", str(ROOT / "out" / "bench-api-load"))
    Path(os.environ["FT_DATA_DIR"]).mkdir(parents=True, exist_ok=True, mode=0o700)
    sys.path.insert(0, str(ROOT))
    started = time.perf_counter()
    prepared = _prepare(spines, leaves, servers_per_leaf, rollouts)
    setup_s = time.perf_counter() - started
    queries = _query_counts(prepared, lenient)
    connection_cost = _connection_cost(db_name, prepared)

    port = _free_port()
    log = ROOT / "out" / "bench-api-load-access.log"
    gunicorn = Path(sys.executable).with_name("gunicorn")
    server = subprocess.Popen([str(gunicorn), "twin.wsgi:application", "--bind", f"127.0.0.1:{port}",
                               "--workers", "3", "--timeout", "120", "--access-logfile", str(log)],
                              cwd=ROOT, env=dict(os.environ))
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                _get(base, "/api/fabrics/", _headers("api", prepared))
                break
            except OSError:
                time.sleep(0.2)
        for kind, path in prepared["endpoints"] * 3:  # warm every worker
            _get(base, path, _headers(kind, prepared))
        mixed = _mixed_load(base, prepared, clients, rounds, server.pid, db_name)
        per_endpoint_cpu = _cpu_per_endpoint(base, prepared, cpu_requests, server.pid, db_name)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {"database": f"postgresql ({db_name})", "sizes": prepared["sizes"], "setup_s": round(setup_s, 1),
            "clients": clients, "rounds": rounds, "cpus": os.cpu_count(), "load_average": os.getloadavg(),
            "python": platform.python_version(), "mixed": mixed, "cpu_ms_per_request": per_endpoint_cpu,
            "queries": queries, "connection_cost": connection_cost, "target_p95_ms": 200, "conn_max_age": os.environ.get("DB_CONN_MAX_AGE", "(default)"), "target_met": mixed["all"]["p95_ms"] < 200}


def table(result: dict) -> str:
    mixed = result["mixed"]
    lines = [
        f"API/UI read load: gunicorn 3 sync workers, DEBUG off, {result['database']}, {result['clients']} clients, "
        f"{result['sizes']['switches']} switches, {result['sizes']['rollouts']} rollouts, "
        f"{result['sizes']['findings']} findings, DB_CONN_MAX_AGE {result['conn_max_age']}; {result['cpus']} CPUs, "
        f"load average at the end "
        f"{' '.join(f'{value:.1f}' for value in result['load_average'])}",
        "",
        "| endpoint | requests | p50 ms | p95 ms | p99 ms | gunicorn CPU ms/request | PostgreSQL CPU ms/request "
        "| queries |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for path, row in mixed["by_endpoint"].items():
        web_cpu, db_cpu = result["cpu_ms_per_request"][path]
        lines.append(f"| `{path}` | {row['requests']} | {row['p50_ms']} | {row['p95_ms']} | {row['p99_ms']} | "
                     f"{web_cpu} | {db_cpu if db_cpu is not None else '-'} | {result['queries'][path]} |")
    every = mixed["all"]
    lines += [
        f"| **all** | {every['requests']} | {every['p50_ms']} | **{every['p95_ms']}** | {every['p99_ms']} | "
        f"{mixed['server_cpu_ms_per_request']} | {mixed['postgres_cpu_ms_per_request']} | |",
        "",
        "CPU per endpoint: one client, sequential requests; on the **all** row: over the mixed phase. PostgreSQL CPU "
        "includes every backend the postmaster reaped meanwhile (other databases' too on a shared server).",
        "",
        f"{mixed['requests_per_s']} requests/s over {mixed['seconds']} s; {mixed['error_count']} errors. "
        f"Target p95 < {result['target_p95_ms']} ms: {'met' if result['target_met'] else 'MISSED'}.",
    ]
    cost = result["connection_cost"]
    lines += [
        "",
        f"The SQL of one `/api/fabrics/` request ({cost['statements']} statements), CPU ms: on a new connection each "
        f"time (DB_CONN_MAX_AGE=0) {cost['fresh_client_ms']} client + {cost['fresh_backend_ms']} PostgreSQL backend; "
        f"on a kept connection {cost['kept_client_ms']} + {cost['kept_backend_ms']}.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db-name", default="ft_api_load")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=40, help="times each client walks the endpoint list")
    parser.add_argument("--cpu-requests", type=int, default=40)
    parser.add_argument("--spines", type=int, default=4)
    parser.add_argument("--leaves", type=int, default=24)
    parser.add_argument("--servers-per-leaf", type=int, default=8)
    parser.add_argument("--rollouts", type=int, default=60)
    parser.add_argument("--conn-max-age", help="DB_CONN_MAX_AGE for gunicorn (default: unset, as a plain "
                                               "`gunicorn twin.wsgi` runs; the Dockerfile sets 60)")
    parser.add_argument("--lenient", action="store_true",
                        help="leave out endpoints an older tree does not have (comparing commits), instead of failing")
    parser.add_argument("--json", help="write the result as JSON to this file")
    parser.add_argument("--markdown", help="write the table to this file")
    args = parser.parse_args()
    result = run(args.db_name, args.clients, args.rounds, args.cpu_requests, args.spines, args.leaves,
                 args.servers_per_leaf, args.rollouts, args.lenient, args.conn_max_age)
    print(table(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    if args.markdown:
        Path(args.markdown).write_text(table(result) + "\n")


if __name__ == "__main__":
    main()
