"""manage.py validate: compile a fabric intent, run the static checks, print the report, store the run.

``validate --configs DIR`` validates device configs as text instead (any platform mix, detected by content;
compiler.parse + validators.configs): findings cite file:line, unmodelled lines are listed, and with ``--fabric``
the inventory is used for the checks that need it when the hostnames match (otherwise they say why they were
skipped). Every check says what it examined; checks depending on lines the parser did not model are
``incomplete`` (device, feature, file:line); BGP neighbors outside the configs are external peers, reported at
the ``--external-peers`` severity (info by default). Nothing is stored.

Exits with status 1 when any finding has error severity (or the run could not complete), 0 otherwise, so CI
can gate on it.
"""

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from common.runs import RunStatus
from compiler.parse.files import configs_from_directory
from intents import selectors as intent_selectors
from intents.management.commands._common import command_errors
from validators.findings import Severity
from validators.run import check_names

from ... import selectors, services


class Command(BaseCommand):
    help = "Statically validate a fabric intent (BGP, routing/ECMP, N-1, overlay, MTU, RoCE, headroom, physical)."

    def add_arguments(self, parser):
        parser.add_argument("--fabric", help="Fabric intent name (or inventory fabric with one intent); "
                                             "default: the only fabric intent")
        parser.add_argument("--checks", nargs="+", metavar="CHECK",
                            help=f"Check names or prefixes (default: all): {', '.join(check_names())}")
        parser.add_argument("--format", choices=("text", "json"), default="text",
                            help="output: %(choices)s (default %(default)s)")
        parser.add_argument("--severity", choices=("error", "warning", "info"), help="Only show these findings")
        parser.add_argument("--configs", metavar="DIR",
                            help="Validate the device configs in DIR (<device>/<files> or one file per device: EOS "
                                 "startup/running-config, SONiC config_db.json + frr.conf, FRR frr.conf + "
                                 "linux-plan.json or FRR's per-daemon files, or compile --out's <fabric>/<device>/<platform>/"
                                 "<file>) instead of compiling an intent")
        parser.add_argument("--external-peers", choices=("info", "warning", "error"), default="info",
                            help="with --configs: how BGP neighbors outside the configs are reported "
                                 "(default %(default)s; error fails the run)")

    def handle(self, *args, **options):
        if options["configs"]:
            return self._configs(options)
        with command_errors("validate"):
            fabric_intent = intent_selectors.fabric_intent_resolve(options["fabric"])
            run = services.validation_run_create(fabric_intent=fabric_intent, checks=options["checks"])
        report = selectors.validation_report(run=run, severity=options["severity"])
        if options["format"] == "json":
            self.stdout.write(json.dumps(report, indent=2, default=str))
        else:
            self.stdout.write(selectors.validation_report_text(report))
        if run.status == RunStatus.FAILED:
            detail = "\n".join(f"  {field}: {' '.join(messages)}" for field, messages in run.error_fields.items())
            raise CommandError(f"validation run {run.pk} could not complete:\n{detail or '  ' + run.error}")
        if run.error_count:
            self.stderr.write(f"validation run {run.pk}: {run.error_count} error finding(s)")
            sys.exit(1)

    def _configs(self, options):
        with command_errors("validate --configs"):
            set_aside: list[str] = []
            device_files = configs_from_directory(options["configs"], set_aside=set_aside)
            fabric_intent = intent_selectors.fabric_intent_resolve(options["fabric"]) if options["fabric"] else None
            result = services.validation_configs_run(device_files=device_files, fabric_intent=fabric_intent,
                                                     checks=options["checks"], external_peers=options["external_peers"])
        if options["format"] == "json":
            data = result.as_dict()
            data["set_aside"] = set_aside
            if options["severity"]:
                for check in data["checks"]:
                    check["findings"] = [f for f in check["findings"] if f["severity"] == options["severity"]]
            self.stdout.write(json.dumps(data, indent=2, default=str))
        else:
            self.stdout.write(result.as_text())
            for note in set_aside:
                self.stdout.write(f"  set aside: {note}")
        errors = sum(1 for finding in result.report.findings if finding.severity == Severity.ERROR)
        if errors:
            self.stderr.write(f"validate --configs: {errors} error finding(s)")
            sys.exit(1)
