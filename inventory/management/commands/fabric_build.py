"""manage.py fabric_build: plan a leaf-spine Clos (compiler.clos) and persist it (idempotent, growable)."""

from django.core.management.base import BaseCommand, CommandError

from compiler.clos import ClosParams
from compiler.errors import FabricTwinError
from compiler.pods import PodsParams, tier_oversubscription
from validators.physical import physical_report

from ...builder import fabric_build, fabric_build_pods, oversubscription_table


class Command(BaseCommand):
    help = "Build (or grow) a fabric inventory from Clos parameters. Running it twice changes nothing."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="inventory fabric name")
        parser.add_argument("--site", default="dc1")
        parser.add_argument("--spines", type=int, required=True)
        parser.add_argument("--leaves", type=int, required=True)
        parser.add_argument("--servers-per-leaf", type=int, default=2)
        parser.add_argument("--rails", type=int, default=1, help="NICs per server, one leaf per rail")
        parser.add_argument("--uplink-speed", type=int, default=400, help="Gb/s")
        parser.add_argument("--downlink-speed", type=int, default=400, help="Gb/s")
        parser.add_argument("--model", default=None, help="leaf switch model (default: picked per platform)")
        parser.add_argument("--spine-model", default=None)
        parser.add_argument("--platform", default="eos", choices=["eos", "sonic", "frr"])
        parser.add_argument("--spine-platform", default=None, choices=["eos", "sonic", "frr"])
        parser.add_argument("--rack-power-budget-kw", type=float, default=40.0)
        parser.add_argument("--name-prefix", default="", help="prefix for switch, server and rack names "
                            "(another fabric in the same inventory, e.g. 'b-')")
        parser.add_argument("--mgmt-pool", default="172.16.0.0/16", help="switch management /16")
        parser.add_argument("--server-mgmt-pool", default="172.20.0.0/16", help="server management /16")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        # 5-stage Clos (compiler.pods): --spines/--leaves/... then describe ONE pod
        parser.add_argument("--pods", type=int, default=0, help="5-stage Clos: this many pods under super-spine "
                            "planes (0: a two-tier fabric)")
        parser.add_argument("--super-spines-per-plane", type=int, default=1, help="with --pods; planes = spines")
        parser.add_argument("--super-spine-links", type=int, default=1, help="with --pods: parallel links "
                            "between a spine and each super-spine of its plane")

    def handle(self, *args, **options):
        params = ClosParams(
            name=options["name"], site=options["site"], spines=options["spines"], leaves=options["leaves"],
            servers_per_leaf=options["servers_per_leaf"], rails_per_server=options["rails"],
            uplink_speed_gbps=options["uplink_speed"], downlink_speed_gbps=options["downlink_speed"],
            leaf_model=options["model"], spine_model=options["spine_model"], platform=options["platform"],
            spine_platform=options["spine_platform"], rack_power_budget_kw=options["rack_power_budget_kw"],
            name_prefix=options["name_prefix"], mgmt_pool=options["mgmt_pool"],
            server_mgmt_pool=options["server_mgmt_pool"],
        )
        try:
            if options["pods"]:
                result = fabric_build_pods(params=PodsParams(
                    name=options["name"], pods=options["pods"], pod=params,
                    super_spines_per_plane=options["super_spines_per_plane"],
                    super_spine_links=options["super_spine_links"]), progress=not options["no_progress"])
            else:
                result = fabric_build(params=params, progress=not options["no_progress"])
        except FabricTwinError as error:
            raise CommandError(str(error)) from None
        inventory = result.inventory
        self.stdout.write(f"fabric {inventory.fabric}: {len(inventory.switches)} switches, "
                          f"{len(inventory.servers)} servers, {len(inventory.cables)} cables")
        created = ", ".join(f"{count} {name}" for name, count in result.persisted.created.items() if count)
        updated = ", ".join(f"{count} {name}" for name, count in result.persisted.updated.items() if count)
        self.stdout.write(f"created: {created or 'nothing'}; updated: {updated or 'nothing'}")
        self.stdout.write("oversubscription per leaf (downlink / uplink capacity):")
        self.stdout.write(oversubscription_table(result.capacities))
        if options["pods"]:
            ratios = tier_oversubscription(inventory)
            for tier in ("plane", "rail"):
                self.stdout.write(f"oversubscription per {tier}: " + ", ".join(
                    f"{key} {value:.2f}:1" for key, value in ratios[tier].items()))
        report = physical_report(inventory)
        counts = report.counts()
        self.stdout.write(f"physical checks: {counts['passed']} passed, {counts['failed']} failed")
        if not report.ok:
            self.stdout.write(report.as_text())
