"""manage.py fabric_adopt: adopt a running fabric from its configs (issue 26; intents/adopt.py).

``fabric_adopt --configs DIR [--name F] [--dry-run] [--format text|json]`` reads the config set ``validate
--configs`` reads (EOS, SONiC, FRR in any mix), builds the inventory, the intent, the pinned allocations and the
carried lines, proves the round trip (compile, carried lines back, parse, semantic diff on modelled fields) and
saves it all in one transaction (``--dry-run``: the report only, nothing saved). A hostile or partial set is an
error naming file and line, and nothing is saved. ``--netbox-url`` is refused: the NetBox join is not built.
"""

import json

from django.core.management.base import BaseCommand

from compiler.parse.files import configs_from_directory
from intents.adopt import AdoptionOutcome, fabric_adopt
from intents.management.commands._common import command_errors


def outcome_text(outcome: AdoptionOutcome) -> str:
    proof = outcome.proof
    plan = proof.plan
    lines = [f"fabric {plan.name}: {len(proof.devices)} devices adopted, {len(plan.cables)} cables inferred, "
             f"{proof.carried_lines} carried lines ({'all back byte for byte' if proof.carried_intact else 'SOME LOST'}), "
             f"{len(plan.refused)} refused, recognised {proof.recognised_percent:.1f}%, "
             f"semantic diff {proof.semantic_diff}",
             "recognised: " + ", ".join(f"{key} {value}" for key, value in plan.recognised.items())]
    for host, device in sorted(proof.devices.items()):
        kinds = ", ".join(f"{kind} {count}" for kind, count in device.carried_by_kind().items()) or "none"
        lines.append(f"  {host} ({device.platform}, model {plan.model_source[host]}): recognised "
                     f"{device.recognised_percent:.1f}%, carried {device.carried_count} ({kinds}), "
                     f"semantic diff {len(device.diff)}")
        for path, adopted, compiled in device.diff:
            lines.append(f"      diff {path}: {adopted!r} adopted, {compiled!r} compiled")
    for cable in plan.cables:
        lines.append(f"  cable {cable.a} -- {cable.b}: inferred from {cable.evidence}")
    for item in plan.refused:
        lines.append(f"  refused {item}")
    for note in plan.assumed:
        lines.append(f"  assumed {note}")
    if outcome.dry_run:
        lines.append("dry run: nothing saved")
    else:
        lines.append(f"saved: fabric intent {plan.name} (id {outcome.fabric_intent.pk if outcome.fabric_intent else '?'}), "
                     f"{outcome.pinned} allocations pinned, {outcome.allocated} allocated")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Adopt a running fabric: configs in, inventory + intent + pinned allocations + carried lines saved."

    def add_arguments(self, parser):
        parser.add_argument("--configs", metavar="DIR", required=True,
                            help="The config set (<device>/<files> or one file per device, as validate --configs)")
        parser.add_argument("--name", default="adopted", help="Fabric and intent name (default %(default)s)")
        parser.add_argument("--netbox-url", help="NetBox to join for racks and cabling (not built yet: refused)")
        parser.add_argument("--dry-run", action="store_true", help="Report only; save nothing")
        parser.add_argument("--format", choices=("text", "json"), default="text",
                            help="text: the report for a reader (default); json: the same report for tools")

    def handle(self, *args, **options):
        with command_errors("fabric_adopt"):
            device_files = configs_from_directory(options["configs"])
            outcome = fabric_adopt(device_files=device_files, name=options["name"],
                                   netbox_url=options["netbox_url"], dry_run=options["dry_run"])
        if options["format"] == "json":
            self.stdout.write(json.dumps(outcome.as_dict(), indent=2, default=str))
        else:
            self.stdout.write(outcome_text(outcome))
