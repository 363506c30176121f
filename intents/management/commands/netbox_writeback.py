"""manage.py netbox_writeback: write a fabric intent's allocations (ASNs, loopbacks, VTEPs, p2p /31s, VNIs,
VLANs) to NetBox; a dry run by default (lists what would change), --apply writes. Idempotent."""

import os

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from compiler.errors import FabricTwinError
from intents import selectors
from intents.services import intent_validate
from inventory.netbox_client import NetboxClient
from inventory.netbox_writeback import netbox_writeback

from ._common import command_errors


class Command(BaseCommand):
    help = ("Write the allocations of a fabric intent to NetBox (device custom fields asn/loopback/vtep, IPAM "
            "addresses, VLANs, VRFs). Token from $FT_NETBOX_TOKEN. Without --apply: a dry run listing each write.")

    def add_arguments(self, parser):
        parser.add_argument("--fabric", help="Fabric intent name; default: the only fabric intent")
        parser.add_argument("--url", help="NetBox URL (default: $FT_NETBOX_URL)")
        parser.add_argument("--apply", action="store_true", help="write; without it nothing is written")

    def handle(self, *args, **options):
        url, token = options["url"] or os.environ.get("FT_NETBOX_URL", ""), os.environ.get("FT_NETBOX_TOKEN", "")
        if not url or not token:
            raise CommandError("give --url (or set FT_NETBOX_URL) and set FT_NETBOX_TOKEN")
        with command_errors("netbox_writeback"):
            fabric_intent = selectors.fabric_intent_resolve(options["fabric"])
            with transaction.atomic():
                snapshot, allocations = intent_validate(fabric_intent=fabric_intent)
                transaction.set_rollback(True)  # validation only: the write-back changes nothing here
        try:
            result = netbox_writeback(client=NetboxClient(url, token), snapshot=snapshot, allocations=allocations,
                                      dry_run=not options["apply"])
        except FabricTwinError as error:
            raise CommandError(f"{url}: {error}") from None
        self.stdout.write(result.text())
