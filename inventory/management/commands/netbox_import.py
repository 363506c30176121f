"""manage.py netbox_import: import / re-sync a fabric from NetBox, live (--url, token from FT_NETBOX_TOKEN) or from
a directory of REST JSON pages; --dry-run shows the diff without applying it."""

import os
from functools import partial

from django.core.management.base import BaseCommand, CommandError

from compiler.errors import FabricTwinError, InputError

from ...netbox import ENDPOINTS, source_file
from ...netbox_client import NetboxClient
from ...netbox_sync import netbox_sync_from_dump, netbox_sync_live


class Command(BaseCommand):
    help = (f"Import or re-sync a fabric from NetBox: live with --url (token from $FT_NETBOX_TOKEN, never an "
            f"argument: it would show in the process list), or from a directory of NetBox API JSON "
            f"({', '.join(e + '.json' for e in ENDPOINTS)}; further pages as <endpoint>.2.json ...). Prints the diff "
            "against the last sync (create / update / delete / re-patch) and what was skipped and why. A link that "
            "cannot be imported stops the import unless --allow-missing-links. Errors are printed as "
            "'file: field: value: reason' and nothing is saved.")

    def add_arguments(self, parser):
        parser.add_argument("directory", nargs="?", help="a directory of NetBox REST JSON (or use --url)")
        parser.add_argument("--url", help="the NetBox to read live, e.g. https://netbox.example.com")
        parser.add_argument("--site", help="only this NetBox site (slug) when reading live")
        parser.add_argument("--fabric", required=True, help="name of the inventory fabric to create or update")
        parser.add_argument("--dry-run", action="store_true", help="show the diff and the rows it would write; "
                                                                   "apply nothing")
        parser.add_argument("--allow-missing-links", action="store_true",
                            help="import the rest when a link cannot be imported; each one is then a physical-check "
                                 "error (physical.missing_link) until the port is cabled")

    def handle(self, *args, **options):
        if bool(options["directory"]) == bool(options["url"]):
            raise CommandError("give a dump directory or --url (one of them)")
        sync_options = {"fabric": options["fabric"], "dry_run": options["dry_run"],
                        "allow_missing_links": options["allow_missing_links"]}
        where = options["directory"] or options["url"]
        try:
            if options["url"]:
                token = os.environ.get("FT_NETBOX_TOKEN", "")
                if not token:
                    raise CommandError("set FT_NETBOX_TOKEN to a NetBox API token (read: dcim; write-back: ipam)")
                client = NetboxClient(options["url"], token)
                result = netbox_sync_live(client=client, filters={"site": options["site"]} if options["site"] else {},
                                          **sync_options)
            else:
                result = netbox_sync_from_dump(directory=options["directory"], **sync_options)
        except InputError as error:
            locate = partial(source_file, directory=where) if options["directory"] else (lambda field: where)
            raise CommandError("\n".join(error.report_lines(locate))) from None
        except FabricTwinError as error:
            raise CommandError(f"{where}: {error}") from None
        inventory = result.inventory
        verb = "would import" if options["dry_run"] else "imported"
        self.stdout.write(f"{verb} {len(inventory.switches)} switches, {len(inventory.servers)} servers, "
                          f"{len(inventory.cables)} cables into fabric {inventory.fabric} (sync {result.record.id}: "
                          f"{result.record.summary_text})")
        self.stdout.write(result.diff_text())
        self.stdout.write(result.mapped.skipped_text())
        for missing in inventory.missing_links:
            self.stderr.write(f"MISSING LINK {missing.endpoint}: {missing.source}: {missing.reason}")
