"""manage.py fabric_build: plan a leaf-spine Clos (compiler.clos) and persist it (idempotent, growable)."""

from django.core.management.base import BaseCommand, CommandError

from compiler.clos import ClosParams
from compiler.errors import FabricTwinError
from compiler.pods import PodsParams
from validators.physical import physical_report

from ...builder import fabric_build_command, oversubscription_table


def _platform_list(value: str) -> tuple[str, ...]:
    """'eos,sonic' -> ('eos', 'sonic'); the planner names a bad platform (leaf_platforms=...)."""
    return tuple(part.strip() for part in value.split(",") if part.strip())


class Command(BaseCommand):
    help = "Build (or grow) a fabric inventory from Clos parameters. Running it twice changes nothing."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="inventory fabric name")
        parser.add_argument("--site", default="dc1", help="site name (created when new)")
        parser.add_argument("--spines", type=int, required=True, help="number of spines")
        parser.add_argument("--leaves", type=int, required=True, help="number of leaves")
        parser.add_argument("--servers-per-leaf", type=int, default=2,
                            help="GPU servers per rail group (per leaf with one rail)")
        parser.add_argument("--rails", type=int, default=1, help="NICs per server, one leaf per rail")
        parser.add_argument("--uplinks-per-spine", type=int, default=1,
                            help="parallel links from each leaf to each spine (leaf uplinks = spines x this)")
        parser.add_argument("--planes", type=int, default=1,
                            help="spine planes; spine i is in plane (i-1) x planes / spines (each plane its ASN)")
        parser.add_argument("--uplink-speed", type=int, default=400, help="leaf-spine link speed, Gb/s")
        parser.add_argument("--downlink-speed", type=int, default=400, help="leaf-server link speed, Gb/s")
        parser.add_argument("--model", default=None, help="leaf switch model (default: picked per platform)")
        parser.add_argument("--spine-model", default=None, help="spine switch model (default: picked per platform)")
        parser.add_argument("--platform", default="eos", choices=["eos", "sonic", "frr"],
                            help="leaf platform (and spine platform unless --spine-platform)")
        parser.add_argument("--spine-platform", default=None, choices=["eos", "sonic", "frr"],
                            help="spine platform (default: --platform)")
        parser.add_argument("--leaf-platforms", default="", type=_platform_list,
                            help="comma-separated platforms cycled over the leaves for a mixed fabric, "
                                 "e.g. eos,sonic (overrides --platform for leaves)")
        parser.add_argument("--server-gpus", type=int, default=ClosParams.server_gpus, help="GPUs per server")
        parser.add_argument("--server-power-w", type=float, default=ClosParams.server_power_w,
                            help="maximum power per server in W (packs racks by power)")
        parser.add_argument("--rack-power-budget-kw", type=float, default=40.0,
                            help="power budget per rack in kW (0: none)")
        parser.add_argument("--name-prefix", default="", help="prefix for switch, server and rack names "
                            "(another fabric in the same inventory, e.g. 'b-')")
        parser.add_argument("--mgmt-pool", default=ClosParams.mgmt_pool,
                            help="switch management /16 (left at the default and used by another fabric: the first "
                                 "free /16 of 172.16.0.0/12 is picked and reported)")
        parser.add_argument("--server-mgmt-pool", default=ClosParams.server_mgmt_pool,
                            help="server management /16 (picked like --mgmt-pool)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        # 5-stage Clos (compiler.pods): --spines/--leaves/... then describe ONE pod
        parser.add_argument("--pods", type=int, default=0, help="5-stage Clos: this many pods under super-spine "
                            "planes (0: a two-tier fabric)")
        parser.add_argument("--super-spines-per-plane", type=int, default=1, help="with --pods; planes = spines")
        parser.add_argument("--super-spine-links", type=int, default=1, help="with --pods: parallel links "
                            "between a spine and each super-spine of its plane")
        parser.add_argument("--super-spine-model", default=None, help="with --pods: super-spine model (default: "
                            "picked by the ports the pods need)")
        parser.add_argument("--super-spine-platform", default=None, choices=["eos", "sonic", "frr"],
                            help="with --pods: super-spine platform (default: the spines')")

    def handle(self, *args, **options):
        params = ClosParams(
            name=options["name"], site=options["site"], spines=options["spines"], leaves=options["leaves"],
            servers_per_leaf=options["servers_per_leaf"], rails_per_server=options["rails"],
            uplinks_per_spine=options["uplinks_per_spine"], planes=options["planes"],
            leaf_platforms=options["leaf_platforms"], server_gpus=options["server_gpus"],
            server_power_w=options["server_power_w"],
            uplink_speed_gbps=options["uplink_speed"], downlink_speed_gbps=options["downlink_speed"],
            leaf_model=options["model"], spine_model=options["spine_model"], platform=options["platform"],
            spine_platform=options["spine_platform"], rack_power_budget_kw=options["rack_power_budget_kw"],
            name_prefix=options["name_prefix"], mgmt_pool=options["mgmt_pool"],
            server_mgmt_pool=options["server_mgmt_pool"],
        )
        if options["pods"]:
            recorded: ClosParams | PodsParams = PodsParams(
                name=options["name"], pods=options["pods"], pod=params,
                super_spines_per_plane=options["super_spines_per_plane"],
                super_spine_links=options["super_spine_links"],
                super_spine_model=options["super_spine_model"],
                super_spine_platform=options["super_spine_platform"])
        else:
            recorded = params
        try:
            build, result = fabric_build_command(params=recorded, progress=not options["no_progress"])
        except FabricTwinError as error:  # refused before the record exists (the params themselves)
            raise CommandError(str(error)) from None
        if result is None:
            fields = "".join(f"\n  {field}: {'; '.join(messages)}" for field, messages in build.error_fields.items())
            raise CommandError(f"build #{build.pk} of {build.fabric_name} failed: {build.error}{fields}")
        self.stdout.write(f"build #{build.pk} recorded ({build.duration_s:.2f} s)")
        inventory = result.inventory
        self.stdout.write(f"fabric {inventory.fabric}: {len(inventory.switches)} switches, "
                          f"{len(inventory.servers)} servers, {len(inventory.cables)} cables")
        created = ", ".join(f"{count} {name}" for name, count in result.persisted.created.items() if count)
        updated = ", ".join(f"{count} {name}" for name, count in result.persisted.updated.items() if count)
        self.stdout.write(f"created: {created or 'nothing'}; updated: {updated or 'nothing'}")
        for note in result.notes:
            self.stdout.write(f"picked {note}")
        self.stdout.write("oversubscription per leaf (downlink / uplink capacity):")
        self.stdout.write(oversubscription_table(result.capacities))
        if result.tiers is not None:
            tier_ratios = result.tiers
            for tier in ("plane", "rail"):
                self.stdout.write(f"oversubscription per {tier}: " + ", ".join(
                    f"{key} {value:.2f}:1" for key, value in tier_ratios[tier].items()))
        ratios = [capacity.ratio for capacity in result.capacities]
        if ratios:
            self.stdout.write(f"oversubscription: worst {max(ratios):.2f}:1, best {min(ratios):.2f}:1 "
                              f"over {len(ratios)} leaves (1.00:1 is non-blocking)")
        report = physical_report(inventory)
        counts = report.counts()
        self.stdout.write(f"physical checks: {counts['passed']} passed, {counts['failed']} failed")
        if not report.ok:
            self.stdout.write(report.as_text())
