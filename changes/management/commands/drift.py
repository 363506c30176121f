"""`manage.py drift [--check] [--host HOST ...] [--json] [--fail-on-drift]`: what each device runs against what it
should run, with the remediation.

Shows the newest drift check per device (changes.drift): the field-level differences ("leaf3 Ethernet12/1: PFC
priorities [3] intended, [] running"), the errors the static checks raise on the running state, and the commands
that bring the device back (EOS CLI for a configure session; SONiC: the RFC 6902 JSON Patch for ``config
apply-patch`` and vtysh lines for frr.conf; FRR: vtysh lines). ``--check`` reads the devices first (every device
with an endpoint and a deployed config, or the ``--host`` ones), as the scheduled check does.

Examples:
  manage.py drift                         # the last check of every device
  manage.py drift --check --host leaf3    # read leaf3 now, then show it
  manage.py drift --json --fail-on-drift  # for scripts: exit 1 when a device has semantic drift
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from ... import selectors
from ...api.serializers import DriftRecordSerializer
from ...drift import drift_detect_all, remediation_text


class Command(BaseCommand):
    help = ("Show each device's drift (field-level differences, errors on the running state) and the remediation "
            "commands per platform; --check reads the devices first.")

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true",
                            help="read the devices now (through their endpoints) before showing the result")
        parser.add_argument("--host", action="append", default=[], metavar="HOST",
                            help="only this device (repeatable)")
        parser.add_argument("--json", action="store_true", help="print the records as the API returns them")
        parser.add_argument("--fail-on-drift", action="store_true",
                            help="exit with status 1 when a device has semantic drift or could not be read")

    def handle(self, *args, **options):
        hosts = options["host"]
        if options["check"]:
            checked = drift_detect_all(hostnames=hosts or None)
            missing = sorted(set(hosts) - {record.hostname for record in checked})
            if missing:
                raise CommandError(f"--host={missing[0]!r}: no device endpoint with a deployed config of this name")
        records = [record for record in selectors.drift_latest() if not hosts or record.hostname in hosts]
        missing = sorted(set(hosts) - {record.hostname for record in records})
        if missing:
            raise CommandError(f"--host={missing[0]!r}: no drift check recorded for this device (try --check)")
        if options["json"]:
            self.stdout.write(json.dumps(DriftRecordSerializer(records, many=True).data, indent=2, default=str))
        else:
            for record in records:
                self._show(record)
            if not records:
                self.stdout.write("no drift check recorded yet (run with --check)")
        if options["fail_on_drift"] and any(record.differences or record.error for record in records):
            raise CommandError("drift: " + ", ".join(record.hostname for record in records
                                                     if record.differences or record.error))

    def _show(self, record) -> None:
        state = "not read" if record.error else "drifted" if record.differences else \
            "text differs only" if record.drifted else "in sync"
        self.stdout.write(f"{record.hostname}: {state} (checked {record.checked_at:%Y-%m-%d %H:%M:%S} UTC)")
        if record.error:
            self.stdout.write(f"  error: {record.error}")
        for item in record.differences:
            self.stdout.write(f"  {item['message']}")
        for finding in record.running_errors:
            self.stdout.write(f"  running-state error: {finding.get('message', finding)}")
        if record.remediation:
            self.stdout.write("  remediation:")
            for line in remediation_text(record.remediation).splitlines():
                self.stdout.write(f"    {line}")
