"""`manage.py twin_shards plan|up|status|check|down`: a fabric intent's twin sharded over twin hosts (issue 35).

    manage.py twin_shards plan --fabric ref --hosts a:1,b:1 --underlay a=10.0.0.1@eth1:9216,b=10.0.0.2@eth1:9216
    manage.py twin_shards plan --fabric ref --hosts a:1,b:1 --emulate [--worst-cut]   # emulated hosts, this machine
    manage.py twin_shards up --fabric ref [--wait 600]     # one task per shard on queue twin-shard.<host>
    manage.py twin_shards status --fabric ref --format json
    manage.py twin_shards check --fabric ref               # exit 1 unless every shard is up and nothing is lost
    manage.py twin_shards down --fabric ref

Each twin host runs a worker on its own queue: ``celery -A twin worker -Q twin-shard.<host>`` (docs/twin.md).
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from common.runs import RunStatus
from compiler.errors import FabricTwinError, InputError
from intents.selectors import fabric_intent_resolve
from twins import shards
from twins.choices import TwinEngineChoices, TwinStatusChoices
from twins.selectors import twin_of

ACTIONS = ("plan", "up", "status", "check", "down")


class Command(BaseCommand):
    help = "Plan, boot, check and remove a fabric intent's twin sharded over several twin hosts (one worker each)."

    def add_arguments(self, parser):
        parser.add_argument("action", choices=ACTIONS, help="what to do: %(choices)s")
        parser.add_argument("--fabric", help="fabric intent name (or inventory fabric with one intent)")
        parser.add_argument("--hosts", default="", help="plan: twin hosts with weights, e.g. a:1,b:1")
        parser.add_argument("--underlay", default="",
                            help="plan: each real host's underlay, host=IPv4@interface:mtu,... (UDP 8472 between them)")
        parser.add_argument("--emulate", action="store_true",
                            help="plan: emulated hosts on this machine (a namespace each on one lab bridge)")
        parser.add_argument("--worst-cut", dest="worst_cut", action="store_true",
                            help="plan: spines on the first host, leaves on the others (every leaf-spine cable crosses)")
        parser.add_argument("--wait", type=float, default=shards.DEFAULT_WAIT_S,
                            help="up/check/down: seconds to wait for every shard's worker (default %(default)s)")
        parser.add_argument("--format", choices=("text", "json"), default="text",
                            help="text (default) or json: the plan, run or status as one JSON document")

    def handle(self, *args, **options):
        if options["wait"] <= 0:
            raise CommandError(f"invalid input: --wait {options['wait']}: must be > 0")
        try:
            fabric_intent = fabric_intent_resolve(options["fabric"])
            if options["action"] == "plan":
                twin = shards.twin_shards_plan(fabric_intent=fabric_intent, hosts=options["hosts"],
                                               underlay=options["underlay"], emulate=options["emulate"],
                                               worst_cut=options["worst_cut"])
                ok = True
            else:
                twin = twin_of(fabric_intent=fabric_intent, engine=TwinEngineChoices.SHARDED)
                if twin is None:
                    raise FabricTwinError(f"{fabric_intent.name} has no sharded twin: run `twin_shards plan` first")
                action = options["action"]
                if action in ("up", "check", "down"):
                    service = {"up": shards.twin_shards_up, "check": shards.twin_shards_check,
                               "down": shards.twin_shards_down}[action]
                    operation = service(twin=twin, wait_s=options["wait"])
                    if operation.status != RunStatus.SUCCEEDED:
                        raise FabricTwinError(f"twin_shards {action}: {operation.error}")
                    twin.refresh_from_db()
                    wanted = TwinStatusChoices.DOWN if action == "down" else TwinStatusChoices.UP
                    ok = twin.status == wanted
                else:
                    ok = True
        except InputError as error:
            raise CommandError(f"invalid input: {error}") from error
        except FabricTwinError as error:
            raise CommandError(str(error)) from error
        status = shards.twin_shards_status(twin=twin)
        if options["format"] == "json":
            self.stdout.write(json.dumps(status, indent=2, sort_keys=True, default=str))
        else:
            self.stdout.write(_text(status))
        if not ok:
            raise CommandError(f"twin_shards {options['action']}: sharded twin is {twin.status}: {twin.error}")


def _text(status: dict) -> str:
    lines = [f"sharded twin {status['prefix']}: {status['status']}" + (f" ({status['error']})" if status["error"] else "")]
    for shard in status["shards"]:
        where = shard["underlay"].get("netns") or "real host"
        lines.append(f"  {shard['host']:>8} [{shard['state']:8}] queue {shard['queue']}, {len(shard['switches'])} "
                     f"switches, {shard['stitched_cables']} stitched cable ends, underlay {shard['underlay']['address']}"
                     f" ({where}, MTU {shard['underlay']['mtu']}){', worker ' + shard['worker'] if shard['worker'] else ''}"
                     f"{': ' + shard['error'] if shard['error'] else ''}")
    partition = status.get("partition")
    if partition and partition.get("partitioned"):
        lines.append(f"  {partition['message']}")
    return "\n".join(lines)
