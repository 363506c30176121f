"""manage.py netbox_import: create a fabric inventory from NetBox REST API JSON files."""

from django.core.management.base import BaseCommand, CommandError

from compiler.errors import FabricTwinError

from ...netbox import ENDPOINTS, netbox_import


class Command(BaseCommand):
    help = (f"Import from a directory of NetBox API JSON ({', '.join(e + '.json' for e in ENDPOINTS)}); "
            "prints what was skipped and why.")

    def add_arguments(self, parser):
        parser.add_argument("directory")
        parser.add_argument("--fabric", required=True, help="name of the inventory fabric to create or update")

    def handle(self, *args, **options):
        try:
            result = netbox_import(options["directory"], fabric=options["fabric"])
        except FabricTwinError as error:
            raise CommandError(str(error)) from None
        inventory = result.inventory
        self.stdout.write(f"imported {len(inventory.switches)} switches, {len(inventory.servers)} servers, "
                          f"{len(inventory.cables)} cables into fabric {inventory.fabric}")
        self.stdout.write(result.skipped_text())
