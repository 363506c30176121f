"""manage.py fabric_export: write a fabric's whole inventory as YAML (stdout or --output)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...io_yaml import fabric_export_yaml
from ...models import Fabric


class Command(BaseCommand):
    help = "Export one fabric's inventory as YAML (re-importable with fabric_import)."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="fabric name")
        parser.add_argument("--output", "-o", default="-", help="file path, or - for stdout")

    def handle(self, *args, **options):
        try:
            text = fabric_export_yaml(options["name"])
        except Fabric.DoesNotExist:
            raise CommandError(f"fabric {options['name']!r} does not exist") from None
        if options["output"] == "-":
            self.stdout.write(text, ending="")
        else:
            Path(options["output"]).write_text(text)
            self.stdout.write(f"wrote {options['output']}")
