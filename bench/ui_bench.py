"""UI page times at real sizes: the main pages of a 16x64 fabric and an 18-pod 5-stage fabric, server side.

Builds, in its own SQLite file (out/bench-ui.sqlite3, fresh each run), a 16-spine x 64-leaf fabric with 16
servers per leaf (1,024 servers, 2,048 cables), its intent (one tenant, one network on 64 NIC ports), a compile
and a validation run, plus an 18-pod 5-stage fabric (2 spines x 8 leaves per pod, 2 super-spines per plane).
Each page is then rendered in-process by Django's test client as a logged-in viewer (operator for forms):
one warm-up, then ``--repeats`` timed renders; min and median wall time, database queries (CaptureQueriesContext)
and response size. Server-side time only: the browser's layout of a large SVG comes on top (the browser test
takes screenshots at both sizes).

Run: ``DEBUG=1 python -m bench.ui_bench [--repeats 5] [--json]`` (``make bench`` runs it and adds the table).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATABASE = ROOT / "out" / "bench-ui.sqlite3"


def _setup() -> None:
    DATABASE.parent.mkdir(parents=True, exist_ok=True)
    DATABASE.unlink(missing_ok=True)
    os.environ["DATABASE_URL"] = f"sqlite:///{DATABASE}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings")
    os.environ.setdefault("DEBUG", "1")
    os.environ.pop("CELERY_BROKER_URL", None)  # validation runs in-process
    import django

    django.setup()


def _prepare() -> dict:
    """Fabrics, intent, compile, validation; returns what the page URLs need. Timed as 'setup'."""
    # lazy: the app imports need django.setup(), done after the bench database was chosen
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from compiler.clos import ClosParams
    from compiler.pods import PodsParams
    from intents import services
    from inventory.builder import fabric_build, fabric_build_pods
    from inventory.models import Cable, Fabric, NicPort, Rack, Server, Switch
    from validation.services import validation_run_create

    call_command("migrate", verbosity=0, interactive=False)
    started = time.perf_counter()
    fabric_build(params=ClosParams(name="big", spines=16, leaves=64, servers_per_leaf=16))
    fabric_build_pods(params=PodsParams(name="pods18", pods=18, super_spines_per_plane=2, pod=ClosParams(
        spines=2, leaves=8, servers_per_leaf=1, mgmt_pool="10.240.0.0/16", server_mgmt_pool="10.241.0.0/16")))
    intent = services.fabric_intent_create(fabric=Fabric.objects.get(name="big"), name="big-intent")
    tenant = services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    network = services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/20",
                                      gateway="10.10.0.1")
    network.attachments.set(NicPort.objects.filter(server__fabric__name="big", server__name__endswith="1")[:64])
    run = services.compile_run_create(fabric_intent=intent)
    if run.status != "succeeded":
        raise RuntimeError(f"compile failed: {run.error}")
    validation_run_create(fabric_intent=intent)
    user_model = get_user_model()
    users = {}
    for role in ("viewer", "operator"):
        user = user_model.objects.create_user(username=f"bench-{role}", password=None)
        user.groups.add(Group.objects.get(name=role))
        users[role] = user
    rack = Rack.objects.filter(fabric__name="big", switches__hostname="leaf1").first()
    sizes = {name: {"switches": Switch.objects.filter(fabric__name=name).count(),
                    "servers": Server.objects.filter(fabric__name=name).count(),
                    "cables": Cable.objects.filter(interfaces__switch__fabric__name=name).distinct().count()}
             for name in ("big", "pods18")}
    return {"users": users, "setup_s": time.perf_counter() - started, "row": (rack.site.name, rack.row),
            "sizes": sizes}


def pages(context: dict) -> list[tuple[str, str, str]]:
    """(label, url, role) of the pages measured."""
    site, row = context["row"]
    return [
        ("dashboard", "/", "viewer"),
        ("topology 16x64", "/fabrics/big/topology/", "viewer"),
        ("topology link detail (HTMX)", "/fabrics/big/topology/link/?a=leaf1&b=spine1", "viewer"),
        ("topology 18 pods (one box per pod)", "/fabrics/pods18/topology/", "viewer"),
        ("topology 18 pods, one pod", "/fabrics/pods18/topology/?pod=7", "viewer"),
        ("rack row (all racks of row, one fabric)", f"/inventory/rows/{site}/{row}/?fabric=big", "viewer"),
        ("switches list (100 per page)", "/inventory/switches/?fabric=big", "viewer"),
        ("interfaces list (100 per page)", "/inventory/interfaces/?fabric=big", "viewer"),
        ("switch detail (leaf1: ports, two states)", "/inventory/switches/leaf1/", "viewer"),
        ("intent detail (allocated numbers)", "/intents/big-intent/", "viewer"),
        ("network form (port picker, 1,024 ports)", "/intents/big-intent/networks/new/", "operator"),
        ("configs list", "/configs/big-intent/", "viewer"),
        ("config detail (leaf1, native)", "/configs/big-intent/leaf1/", "viewer"),
        ("validation report", "/validation/big/", "viewer"),
    ]


def measure(context: dict, repeats: int) -> list[dict]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    clients = {}
    for role, user in context["users"].items():
        clients[role] = Client()
        clients[role].force_login(user)
    rows = []
    for label, url, role in pages(context):
        client = clients[role]
        response = client.get(url)  # warm-up (template and URL caches)
        if response.status_code != 200:
            rows.append({"page": label, "url": url, "error": f"HTTP {response.status_code}"})
            continue
        times = []
        for _ in range(repeats):
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                response = client.get(url)
                times.append(time.perf_counter() - started)
        rows.append({"page": label, "url": url, "min_ms": min(times) * 1000,
                     "median_ms": statistics.median(times) * 1000, "queries": len(queries),
                     "kib": len(response.content) / 1024})
    return rows


def table(result: dict) -> str:
    big, pods = result["sizes"]["big"], result["sizes"]["pods18"]
    lines = [f"16x64: {big['switches']} switches, {big['servers']:,} servers, {big['cables']:,} cables; 18 pods: "
             f"{pods['switches']} switches, {pods['cables']:,} cables; setup {result['setup_s']:.1f} s; "
             f"{result['repeats']} renders per page, Django test client, SQLite",
             f"{'page':44} {'min ms':>8} {'median ms':>10} {'queries':>8} {'KiB':>7}"]
    for row in result["rows"]:
        if "error" in row:
            lines.append(f"{row['page']:44} {row['error']}")
        else:
            lines.append(f"{row['page']:44} {row['min_ms']:8.0f} {row['median_ms']:10.0f} {row['queries']:8d} "
                         f"{row['kib']:7.0f}")
    return "\n".join(lines)


def run(repeats: int = 5) -> dict:
    _setup()
    context = _prepare()
    return {"setup_s": context["setup_s"], "sizes": context["sizes"], "repeats": repeats,
            "rows": measure(context, repeats)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed renders per page after one warm-up")
    parser.add_argument("--json", action="store_true", help="print one JSON line instead of the table")
    options = parser.parse_args(argv)
    result = run(options.repeats)
    print(json.dumps(result) if options.json else table(result))
    return 0 if all("error" not in row for row in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
