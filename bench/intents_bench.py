"""Time the Django side of a compile on a big fabric and print a table (part of ``make bench``)::

    DEBUG=1 python -m bench.intents_bench [--spines 64 --leaves 1024 --servers-per-leaf 2 --platform sonic --keep]

Builds a Clos (default 64 spines x 1024 leaves = 1,088 switches), a fabric intent with two tenants, two networks
and the RoCE defaults, then times each step the API and commands run: validated saves, allocation sync, the
snapshot adapter (with its query count), a full compile stored as DeviceConfig rows, a re-sync (must create
nothing), a one-device diff and the .tar.gz archive. Wall seconds include the database; CPU seconds are this
process only. Everything runs in one transaction that is rolled back
(``--keep`` commits it). A benchmark script, not a timed test.
"""

import os
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "twin.settings")
django.setup()  # a script, not an app command: the Django imports below need the app registry

from django.core.management.base import BaseCommand  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from compiler.clos import ClosParams, plan_clos  # noqa: E402
from compiler.model import Platform  # noqa: E402
from intents import services  # noqa: E402
from intents.adapters import fabric_snapshot  # noqa: E402
from inventory.models import Fabric  # noqa: E402
from inventory.services import inventory_persist  # noqa: E402

# Pools big enough for 1,088 switches and 65,536 fabric links; 4-byte private ASNs (RFC 6996).
BENCH_POOLS = {"loopback_pool": "10.0.0.0/20", "vtep_pool": "10.0.16.0/20", "p2p_pool": "10.128.0.0/14",
               "asn_first": 4200000000, "asn_last": 4200099999, "spine_asn": 4210000000}


class Rollback(Exception):
    pass


class Command(BaseCommand):
    help = "Benchmark the intents services on a large fabric (rolled back unless --keep)."

    def add_arguments(self, parser):
        parser.add_argument("--spines", type=int, default=64)
        parser.add_argument("--leaves", type=int, default=1024)
        parser.add_argument("--servers-per-leaf", type=int, default=2)
        parser.add_argument("--platform", choices=Platform.ALL, default=Platform.SONIC)
        parser.add_argument("--keep", action="store_true", help="Commit the fabric instead of rolling back")

    def handle(self, *args, **options):
        self.rows: list[tuple[str, float, float, str]] = []
        try:
            with transaction.atomic():
                self.run(options)
                if not options["keep"]:
                    raise Rollback
        except Rollback:
            pass
        width = max(len(row[0]) for row in self.rows)
        self.stdout.write(f"{'step'.ljust(width)}  {'wall s':>8}  {'cpu s':>8}  notes")
        for step, wall, cpu, notes in self.rows:
            self.stdout.write(f"{step.ljust(width)}  {wall:8.2f}  {cpu:8.2f}  {notes}")

    def timed(self, step: str, function, notes=lambda value: ""):
        # wall: elapsed, database included; cpu: this process only (stable on a busy shared machine)
        started, cpu_started = time.perf_counter(), time.process_time()
        value = function()
        self.rows.append((step, time.perf_counter() - started, time.process_time() - cpu_started, notes(value)))
        return value

    def run(self, options):
        name = f"bench{options['spines']}x{options['leaves']}"
        params = ClosParams(name=name, spines=options["spines"], leaves=options["leaves"],
                            servers_per_leaf=options["servers_per_leaf"], platform=options["platform"])
        inventory = self.timed("plan_clos", lambda: plan_clos(params),
                               lambda inv: f"{len(inv.switches)} switches, {len(inv.cables)} cables")
        self.timed("inventory_persist (inventory app)", lambda: inventory_persist(inventory=inventory))
        fabric = Fabric.objects.get(name=name)
        intent = self.timed("fabric_intent_create (validated)",
                            lambda: services.fabric_intent_create(fabric=fabric, name=name, **BENCH_POOLS))
        tenant_a = services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
        tenant_b = services.tenant_create(fabric_intent=intent, name="B", vrf="TENANT_B")
        services.network_create(tenant=tenant_a, name="net10", vlan_id=10, subnet="172.16.10.0/24",
                                gateway="172.16.10.1")
        self.timed("network_create (validated save)",
                   lambda: services.network_create(tenant=tenant_b, name="net20", vlan_id=20,
                                                   subnet="172.16.20.0/24", gateway="172.16.20.1"))
        services.roce_defaults_apply(fabric_intent=intent)
        self.timed("allocations_sync (first)", lambda: services.allocations_sync(fabric_intent=intent),
                   lambda result: f"{result.created} allocations stored")

        def snapshot_with_queries():
            with CaptureQueriesContext(connection) as queries:
                fabric_snapshot(intent)
            return len(queries)

        self.timed("fabric_snapshot", snapshot_with_queries, lambda count: f"{count} queries")
        run = self.timed("compile_run_create (own platform)",
                         lambda: services.compile_run_create(fabric_intent=intent, platforms=[options["platform"]]),
                         lambda run: f"{run.status}, {run.device_count} devices, "
                                     f"{run.device_configs.count()} DeviceConfig rows")
        self.timed("allocations_sync (again)", lambda: services.allocations_sync(fabric_intent=intent),
                   lambda result: f"{result.created} created, {result.updated} updated")
        self.timed("config_diff (one device)",
                   lambda: services.config_diff(fabric_intent=intent, device="leaf1", platform=options["platform"]),
                   lambda diffs: f"{sum(diff.changed for diff in diffs)} changed")

        def archive():
            fileobj, _name = services.compile_run_archive(run=run, kind="tar.gz")
            fileobj.seek(0, 2)
            return fileobj.tell()

        self.timed("compile_run_archive (tar.gz)", archive, lambda size: f"{size / 1e6:.1f} MB")


def main() -> None:
    Command().run_from_argv(["bench.intents_bench", "intents_bench", *sys.argv[1:]])


if __name__ == "__main__":
    main()
