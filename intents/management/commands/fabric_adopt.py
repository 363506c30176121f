"""manage.py fabric_adopt: adopt a running fabric from its configs (issue 26; intents/adopt.py).

``fabric_adopt --configs DIR [--netbox-url URL [--netbox-token-env VAR] [--netbox-site SLUG] | --netbox-dump DIR]
[--name F] [--dry-run] [--format text|json]`` reads the config set ``validate --configs`` reads (EOS, SONiC, FRR in
any mix), builds the inventory, the intent, the pinned allocations and the carried lines, joins them with NetBox
when one is given (live: every page of its dcim endpoints, the token from $FT_NETBOX_TOKEN or the variable
``--netbox-token-env`` names; or saved REST answers), proves the round trip (compile, carried lines back, parse,
semantic diff on modelled fields) and saves it all in one transaction (``--dry-run``: the report only, nothing
saved). A hostile or partial set, or NetBox contradicting the configs, is an error naming file and line (or both
sources), and nothing is saved.
"""

import json
import os

from django.core.management.base import BaseCommand, CommandError

from compiler.parse.files import configs_from_directory
from intents.adopt import AdoptionOutcome, fabric_adopt
from intents.management.commands._common import command_errors
from inventory.netbox import load_dump
from inventory.netbox_client import NetboxClient


def outcome_text(outcome: AdoptionOutcome) -> str:
    proof = outcome.proof
    plan = proof.plan
    documented = sum(1 for cable in plan.cables if not cable.inferred)  # NetBox holds them too
    lines = [f"fabric {plan.name}: {len(proof.devices)} devices adopted, {len(plan.cables) - documented} cables "
             f"inferred{f', {documented} documented in NetBox' if documented else ''}, "
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
    if outcome.netbox:
        agreed = outcome.netbox.agreed
        lines.append(f"NetBox: {agreed['switches']} of {agreed['netbox_switches']} switches and {agreed['cables']} of "
                     f"{agreed['netbox_cables']} cables agree with the configs; taken from NetBox: {agreed['models']} "
                     f"models, {agreed['racks']} racks, {agreed['optics']} optics; site "
                     f"{', '.join(outcome.netbox.sites) or '-'}, "
                     f"{len(outcome.netbox.disagreements)} disagreements (warned)")
        for item in outcome.netbox.disagreements:
            lines.append(f"  disagreement {item}")
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
        netbox = parser.add_mutually_exclusive_group()
        netbox.add_argument("--netbox-url", metavar="URL", help="NetBox to join: devices, roles, device types, "
                                                                "cabling, the asn/loopback/vtep custom fields")
        netbox.add_argument("--netbox-dump", metavar="DIR", help="The same from saved REST answers "
                                                                 "(GET /api/dcim/<endpoint>/ pages, as netbox_import)")
        parser.add_argument("--netbox-token-env", metavar="VAR", default="FT_NETBOX_TOKEN",
                            help="The environment variable holding the NetBox API token (default %(default)s)")
        parser.add_argument("--netbox-site", metavar="SLUG", help="Read only this NetBox site's devices and cables")
        parser.add_argument("--dry-run", action="store_true", help="Report only; save nothing")
        parser.add_argument("--format", choices=("text", "json"), default="text",
                            help="text: the report for a reader (default); json: the same report for tools")

    def handle(self, *args, **options):
        with command_errors("fabric_adopt"):
            device_files = configs_from_directory(options["configs"])
            outcome = fabric_adopt(device_files=device_files, name=options["name"],
                                   netbox_data=self._netbox(options), dry_run=options["dry_run"])
        if options["format"] == "json":
            self.stdout.write(json.dumps(outcome.as_dict(), indent=2, default=str))
        else:
            self.stdout.write(outcome_text(outcome))

    def _netbox(self, options) -> dict[str, list[dict]] | None:
        filters = {"site": options["netbox_site"]} if options["netbox_site"] else {}
        if options["netbox_dump"]:
            data = load_dump(options["netbox_dump"])
            if filters:
                raise CommandError("--netbox-site filters a live NetBox only: a saved dump is read as it is")
            return data
        if not options["netbox_url"]:
            return None
        variable = options["netbox_token_env"]
        token = os.environ.get(variable, "")
        if not token:
            raise CommandError(f"--netbox-token-env={variable}: the variable is not set; set it to a NetBox API token "
                               "(read: dcim)")
        return NetboxClient(options["netbox_url"], token).dump(**filters)
