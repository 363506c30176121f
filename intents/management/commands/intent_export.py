"""manage.py intent_export: a fabric intent as YAML in the shape intent_apply reads (a round trip is lossless)."""

from pathlib import Path

import yaml
from django.core.management.base import BaseCommand

from intents import selectors

from ._common import command_errors


class Command(BaseCommand):
    help = "Export a fabric intent as YAML (stdout, or --out FILE)."

    def add_arguments(self, parser):
        parser.add_argument("--fabric", help="Fabric intent name; default: the only fabric intent")
        parser.add_argument("--out", help="Write to this file instead of stdout")

    def handle(self, *args, **options):
        with command_errors("intent_export"):
            fabric_intent = selectors.fabric_intent_resolve(options["fabric"])
        text = yaml.safe_dump(selectors.fabric_intent_export(fabric_intent=fabric_intent), sort_keys=False)
        if options["out"]:
            Path(options["out"]).write_text(text)
            self.stderr.write(f"wrote {options['out']}")
        else:
            self.stdout.write(text, ending="")
