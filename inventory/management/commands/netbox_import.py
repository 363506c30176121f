"""manage.py netbox_import: create a fabric inventory from NetBox REST API JSON files."""

from functools import partial

from django.core.management.base import BaseCommand, CommandError

from compiler.errors import FabricTwinError, InputError

from ...netbox import ENDPOINTS, netbox_import, source_file


class Command(BaseCommand):
    help = (f"Import from a directory of NetBox API JSON ({', '.join(e + '.json' for e in ENDPOINTS)}); "
            "prints what was skipped and why. Errors are printed as 'file: field: value: reason' and nothing is "
            "saved.")

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument("--fabric", required=True, help="name of the inventory fabric to create or update")

    def handle(self, *args, **options):
        try:
            result = netbox_import(options["directory"], fabric=options["fabric"])
        except InputError as error:
            raise CommandError("\n".join(error.report_lines(partial(source_file, directory=options["directory"])))) from None
        except FabricTwinError as error:
            raise CommandError(f"{options['directory']}: {error}") from None
        inventory = result.inventory
        self.stdout.write(f"imported {len(inventory.switches)} switches, {len(inventory.servers)} servers, "
                          f"{len(inventory.cables)} cables into fabric {inventory.fabric}")
        self.stdout.write(result.skipped_text())
