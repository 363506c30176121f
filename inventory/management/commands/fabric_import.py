"""manage.py fabric_import: load a YAML inventory written by fabric_export (idempotent upsert)."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from compiler.errors import FabricTwinError, InputError
from validators.physical import physical_report

from ...io_yaml import fabric_import_yaml, parse_inventory_yaml


class Command(BaseCommand):
    help = ("Import a fabric inventory from YAML (one transaction; nothing is saved if anything is wrong). "
            "Errors are printed as 'file: field: value: reason', one per line.")

    def add_arguments(self, parser):
        parser.add_argument("path", help="YAML file, or - for stdin")
        parser.add_argument("--strict", action="store_true", help="refuse inventories that fail physical checks")

    def handle(self, *args, **options):
        source = "<stdin>" if options["path"] == "-" else options["path"]
        try:
            text = sys.stdin.read() if options["path"] == "-" else Path(options["path"]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"{source}: cannot read: {error}") from None
        try:
            if options["strict"]:
                report = physical_report(parse_inventory_yaml(text)[0])
                if not report.ok:
                    raise CommandError("physical checks failed:\n" + report.as_text())
            inventory, result = fabric_import_yaml(text)
        except InputError as error:
            raise CommandError("\n".join(error.report_lines(source))) from None
        except FabricTwinError as error:
            raise CommandError(f"{source}: {error}") from None
        created = ", ".join(f"{count} {name}" for name, count in result.created.items() if count)
        self.stdout.write(f"imported fabric {inventory.fabric}: created {created or 'nothing'}")
