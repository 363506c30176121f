"""manage.py collective: predict how one collective's flows hash onto a fabric's links, before the job runs.

    manage.py collective --fabric F --gpus 1024 --collective ring-allreduce --qps 16 [--format json]

Reads the fabric's inventory (servers, NICs, rails, cables), places the job on its first fully cabled servers
(or ``--servers``), simulates the flows (validators/collective; docs/collective.md says what the model assumes)
and prints the per-tier table, the ``collective.bottleneck`` check and its recommendations. Nothing is stored.
Exits with status 1 when the predicted p95 bottleneck factor exceeds ``--limit``, so CI can gate on it.
"""

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from intents.management.commands._common import command_errors
from inventory.adapters import inventory_snapshot
from inventory.models import Fabric
from validators.collective import COLLECTIVES, HashConfig, HashFields, HashFunction, HashPolicy, Job, Scenario
from validators.collective.check import DEFAULT_LIMIT, check_collective, prediction_table
from validators.collective.simulate import ENCAPSULATIONS, SPORT_MODES


class Command(BaseCommand):
    help = "Predict ECMP collisions and polarization of a collective on a fabric (flow-level, before the job runs)."

    def add_arguments(self, parser):
        parser.add_argument("--fabric", required=True, help="inventory fabric name")
        parser.add_argument("--gpus", type=int, default=0, help="GPUs of the job (first fully cabled servers)")
        parser.add_argument("--servers", help="comma-separated servers in rank order (instead of --gpus)")
        parser.add_argument("--collective", choices=COLLECTIVES, default="ring-allreduce",
                            help="the collective: %(choices)s (default %(default)s)")
        parser.add_argument("--qps", type=int, default=1, help="QPs per connection (NCCL_IB_QPS_PER_CONNECTION)")
        parser.add_argument("--channels", type=int, default=0, help="rings/trees (default: one per NIC rail)")
        parser.add_argument("--sport", choices=SPORT_MODES, default="kernel", help="RoCE UDP source-port model")
        parser.add_argument("--pinned-sports", help="comma-separated source ports (with --sport pinned)")
        parser.add_argument("--hash-function", choices=HashFunction.ALL, default=HashFunction.CRC16_CCITT,
                            help="every switch's ECMP hash: %(choices)s (default %(default)s)")
        parser.add_argument("--hash-fields", choices=HashFields.ALL, default=HashFields.FIVE_TUPLE,
                            help="header fields hashed: %(choices)s (default %(default)s)")
        parser.add_argument("--hash-seed", type=int, default=0, help="hash seed 0..2^32-1 (default 0)")
        parser.add_argument("--distinct-seeds", action="store_true", help="seed XOR CRC-32(hostname) per switch")
        parser.add_argument("--dlb", action="store_true", help="dynamic load balancing on every switch")
        parser.add_argument("--encapsulation", choices=ENCAPSULATIONS, default="none",
                            help="vxlan: leaves are VTEPs (outer source port from the inner headers)")
        parser.add_argument("--trials", type=int, default=16, help="random QP-number draws simulated (default 16)")
        parser.add_argument("--limit", type=float, default=DEFAULT_LIMIT, help="max p95 bottleneck factor")
        parser.add_argument("--n-minus-1", action="store_true",
                            help="also fail each spine/super-spine the job crosses, one at a time (a warning above --limit)")
        parser.add_argument("--format", choices=("text", "json"), default="text", help="output: %(choices)s")

    def handle(self, *args, **options):
        if not Fabric.objects.filter(name=options["fabric"]).exists():
            raise CommandError(f"fabric {options['fabric']!r} does not exist")
        with command_errors("collective"):
            inventory = inventory_snapshot(options["fabric"])
            servers = tuple(name.strip() for name in (options["servers"] or "").split(",") if name.strip())
            pinned = tuple(_port(value) for value in (options["pinned_sports"] or "").split(",") if value.strip())
            config = HashConfig(function=options["hash_function"], fields=options["hash_fields"],
                                seed=options["hash_seed"], dlb=options["dlb"])
            scenario = Scenario(job=Job(gpus=options["gpus"], servers=servers), collective=options["collective"],
                                qps=options["qps"], channels=options["channels"], sport=options["sport"],
                                pinned_sports=pinned, encapsulation=options["encapsulation"], trials=options["trials"],
                                hashing=HashPolicy(default=config, distinct_seeds=options["distinct_seeds"]))
            result = check_collective(inventory, scenario, limit=options["limit"], n_minus_1=options["n_minus_1"])
        if options["format"] == "json":
            self.stdout.write(json.dumps(result.as_dict(), indent=2, default=str))
        else:
            self.stdout.write(prediction_table(result.prediction))
            self.stdout.write(result.report.as_text())
            for line in result.recommendations:
                self.stdout.write(f"  recommendation: {line}")
            for row in result.n_minus_1:
                self.stdout.write(f"  N-1 {row['switch']}: " + (row["error"] if "error" in row else
                                                               f"p95 {row['p95']:.2f}x the intact ideal"))
        if not result.report.ok:
            self.stderr.write("collective: predicted bottleneck above the limit")
            sys.exit(1)


def _port(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise CommandError(f"--pinned-sports: {value!r} is not a port number") from None
