"""``manage.py config_secret set|delete|list``: the secrets rendered configs name by reference.

A config never holds the TACACS+ key itself, only ``FT-SECRET[<reference>]`` where ``<reference>`` is the intent's
``management.aaa_secret_ref`` (e.g. ``vault:secret/fabric/tacacs``). Register the secret behind a reference here;
the push drivers resolve it from the encrypted store just before a push and refuse the push while it is missing.

    manage.py config_secret set vault:secret/fabric/tacacs < key.txt     # first line of stdin
    manage.py config_secret set vault:secret/fabric/tacacs --from-env TACACS_KEY
    manage.py config_secret list                                         # references only, never values
    manage.py config_secret delete vault:secret/fabric/tacacs

The value is never taken from the command line (it would land in the shell history and the process list).
"""

import os
import sys

from django.core.management.base import BaseCommand, CommandError

from changes.credentials import config_secret_delete, config_secret_set
from changes.models import ConfigSecret
from compiler.errors import InputError


class Command(BaseCommand):
    help = "Register, delete or list the secrets rendered configs name by reference (the TACACS+ key)."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        setter = sub.add_parser("set", help="register or replace a secret (value from stdin or --from-env)")
        setter.add_argument("reference", help="the secret's name as config templates refer to it")
        setter.add_argument("--from-env", metavar="VAR", help="read the value from this environment variable")
        deleter = sub.add_parser("delete", help="forget a secret")
        deleter.add_argument("reference", help="the secret's name to forget")
        sub.add_parser("list", help="the registered references (never the values)")

    def handle(self, *args, **options):
        action = options["action"]
        if action == "list":
            for secret in ConfigSecret.objects.all():
                self.stdout.write(f"{secret.reference}  (updated {secret.updated_at:%Y-%m-%d %H:%M:%S} UTC)")
            return
        reference = options["reference"]
        if action == "delete":
            if not config_secret_delete(reference=reference):
                raise CommandError(f"reference={reference!r}: not registered")
            self.stdout.write(f"deleted {reference}")
            return
        variable = options.get("from_env")
        if variable:
            if variable not in os.environ:
                raise CommandError(f"--from-env={variable!r}: environment variable is not set")
            clear = os.environ[variable]
        else:
            lines = sys.stdin.read().splitlines()
            clear = lines[0] if lines else ""
        try:
            created = config_secret_set(reference=reference, clear=clear)
        except InputError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{'registered' if created else 'replaced'} {reference} (encrypted; value not shown)")
