"""`manage.py drift [--check] [--host HOST ...] [--json] [--fail-on-drift]`: what each device runs against what it
should run, with the remediation. `manage.py drift --configs DIR [--against DIR2 | --fabric F]`: the same for
config sets on disk, no device needed.

Shows the newest drift check per device (changes.drift): the field-level differences ("leaf3 Ethernet12/1: PFC
priorities [3] intended, [] running"), the errors the static checks raise on the running state, and the commands
that bring the device back (EOS CLI for a configure session; SONiC: the RFC 6902 JSON Patch for ``config
apply-patch`` and vtysh lines for frr.conf; FRR: vtysh lines). ``--check`` reads the devices first (every device
with an endpoint and a deployed config, or the ``--host`` ones), as the scheduled check does.

``--configs DIR`` holds the configs the devices run (any layout ``validate --configs`` reads: <device>/<files>,
one file per device, compile --out's tree); they are compared with ``--against DIR2`` (another set: what they
should run) or, without it, with the fabric intent's configs compiled now (``--fabric``, default the only intent;
nothing is stored). Devices are matched by the hostname their configs state; a device in one set only is listed.

``--hosts DIR`` holds GPU servers' collected states (``scripts/collect-host-state.sh`` output, one directory per
server, or DIR itself for one server; rendered host files are read too): each is compared with the host config the
intent (``--fabric``) derives for that server, NIC field by field ("gpu0001 nic eth0: PFC priorities [3]
intended, [4] running"), with the fields the state does not hold listed as not read and the ``hosts.*`` errors the
collected state raises against the switch ports.

Examples:
  manage.py drift                         # the last check of every device
  manage.py drift --check --host leaf3    # read leaf3 now, then show it
  manage.py drift --json --fail-on-drift  # for scripts: exit 1 when a device has semantic drift
  manage.py drift --configs pulled/ --against golden/   # two config sets
  manage.py drift --configs pulled/ --fabric dc1        # a config set against the intent
  manage.py drift --hosts collected/ --fabric dc1       # GPU servers' collected NIC states against the intent
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from compiler.parse import ParseError, detect_platform
from compiler.parse.files import configs_from_directory
from intents import selectors as intent_selectors
from intents.hosts import host_drift_report
from intents.management.commands._common import command_errors

from ... import selectors
from ...api.serializers import DriftRecordSerializer
from ...drift import drift_between_sets, drift_detect_all, intent_config_set, remediation_text

HOST_STATES = ("drifted", "not in the inventory", "in sync")
STATES = ("drifted", "platforms differ", "only intended", "only running", "text differs only", "in sync")


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
        parser.add_argument("--configs", metavar="DIR",
                            help="compare the config set in DIR (what the devices run) instead of recorded checks")
        parser.add_argument("--against", metavar="DIR2",
                            help="with --configs: the config set they should run (default: the intent's configs)")
        parser.add_argument("--fabric", help="with --configs and no --against, or with --hosts: the fabric intent "
                                             "(default: the only fabric intent)")
        parser.add_argument("--hosts", metavar="DIR",
                            help="compare GPU servers' collected NIC states in DIR (scripts/collect-host-state.sh) "
                                 "with the intent's host configs")

    def handle(self, *args, **options):
        if options["hosts"]:
            return self._hosts(options)
        if options["configs"]:
            return self._config_sets(options)
        for option in ("against", "fabric"):
            if options[option]:
                raise CommandError(f"--{option}={options[option]!r}: only with --configs DIR")
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

    def _config_sets(self, options) -> None:
        if options["check"]:
            raise CommandError("--check: reads devices; --configs compares config sets (use one or the other)")
        if options["against"] and options["fabric"]:
            raise CommandError(f"--fabric={options['fabric']!r}: --configs is compared with --against DIR2 or with "
                               "the intent, not both")
        with command_errors("drift --configs"):
            set_aside: list[str] = []
            running = configs_from_directory(options["configs"], set_aside=set_aside)
            if options["against"]:
                intended = configs_from_directory(options["against"], set_aside=set_aside)
                reference = options["against"]
            else:
                fabric_intent = intent_selectors.fabric_intent_resolve(options["fabric"])
                # Each device compared on the platform its configs are for (a set of the twin's FRR renderings
                # against the intent's FRR rendering), matched by directory or file name.
                platforms = {key: _platform(files) for key, files in running.items()}
                intended = intent_config_set(fabric_intent=fabric_intent, platforms=platforms)
                reference = f"intent {fabric_intent.name} (compiled now)"
            records = drift_between_sets(intended=intended, running=running)
        hosts = options["host"]
        missing = sorted(set(hosts) - {record["hostname"] for record in records})
        if missing:
            raise CommandError(f"--host={missing[0]!r}: in neither config set")
        records = [record for record in records if not hosts or record["hostname"] in hosts]
        if options["json"]:
            self.stdout.write(json.dumps({"configs": options["configs"], "against": reference, "devices": records,
                                          "set_aside": set_aside}, indent=2, default=str))
        else:
            self.stdout.write(f"{options['configs']} against {reference}: " + ", ".join(
                f"{sum(record['state'] == state for record in records)} {state}" for state in STATES
                if any(record["state"] == state for record in records)))
            for record in records:
                self._show_set_record(record)
            for note in set_aside:
                self.stdout.write(f"set aside: {note}")
        drifted = [record["hostname"] for record in records if record["state"] not in ("in sync", "text differs only")]
        if options["fail_on_drift"] and drifted:
            raise CommandError("drift: " + ", ".join(drifted))

    def _hosts(self, options) -> None:
        for option in ("configs", "against"):
            if options[option]:
                raise CommandError(f"--{option}={options[option]!r}: --hosts compares host states with the intent, "
                                   "not config sets")
        if options["check"]:
            raise CommandError("--check: reads switches through their endpoints; --hosts reads collected host states")
        with command_errors("drift --hosts"):
            fabric_intent = intent_selectors.fabric_intent_resolve(options["fabric"])
            report = host_drift_report(fabric_intent=fabric_intent, directory=options["hosts"])
        hosts = options["host"]
        missing = sorted(set(hosts) - {record["server"] for record in report["servers"]})
        if missing:
            raise CommandError(f"--host={missing[0]!r}: no collected state of this server in {options['hosts']}")
        records = [record for record in report["servers"] if not hosts or record["server"] in hosts]
        if options["json"]:
            self.stdout.write(json.dumps({**report, "servers": records}, indent=2, default=str))
        else:
            self.stdout.write(f"{options['hosts']} against intent {report['fabric_intent']}: " + ", ".join(
                f"{sum(record['state'] == state for record in records)} {state}" for state in HOST_STATES
                if any(record["state"] == state for record in records))
                + (f"; {len(report['not_collected'])} server(s) of the intent not collected"
                   if report["not_collected"] and not hosts else ""))
            for record in records:
                self.stdout.write(f"{record['server']}: {record['state']}")
                for item in record["differences"]:
                    self.stdout.write(f"  {item['message']}")
                if record["not_read"]:
                    self.stdout.write(f"  not read (not in the collected state): {', '.join(record['not_read'])}")
                for finding in record["running_errors"]:
                    self.stdout.write(f"  running-state error: {finding['message']}")
                for file, line, text in record["unmodelled"]:
                    self.stdout.write(f"  unmodelled {file}:{line}: {text}")
        drifted = [record["server"] for record in records if record["state"] != "in sync" or record["running_errors"]]
        if options["fail_on_drift"] and drifted:
            raise CommandError("drift: " + ", ".join(drifted))

    def _show_set_record(self, record: dict) -> None:
        self.stdout.write(f"{record['hostname']}: {record['state']}")
        for item in record["differences"]:
            self.stdout.write(f"  {item['message']}")
        for finding in record["running_errors"]:
            self.stdout.write(f"  running-state error: {finding.get('message', finding)}")
        if record["remediation"]:
            self.stdout.write("  remediation:")
            for line in remediation_text(record["remediation"]).splitlines():
                self.stdout.write(f"    {line}")

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


def _platform(files: dict[str, str]) -> str | None:
    """The platform a device's files are for; None when undetectable (drift_between_sets then refuses the file
    naming the device)."""
    try:
        return detect_platform(files)
    except ParseError:
        return None
