"""manage.py compile: compile a fabric intent, store the run and write <out>/<intent>/<device>/<platform>/<file>."""

import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from common.runs import RunStatus
from compiler.model import Platform
from intents import selectors, services

from ._common import command_errors


class Command(BaseCommand):
    help = "Compile a fabric intent to device configs (stored as a compile run and written to --out)."

    def add_arguments(self, parser):
        parser.add_argument("--fabric", help="Fabric intent name (or inventory fabric with one intent); "
                                             "default: the only fabric intent")
        parser.add_argument("--device", action="append", help="Only this switch (repeatable)")
        parser.add_argument("--platform", action="append", choices=Platform.ALL,
                            help="Render for this platform (repeatable); default: each device's own plus frr")
        parser.add_argument("--out", default=str(settings.FT_OUTPUT_DIR / "configs"),
                            help="Output directory (default: %(default)s)")

    def handle(self, *args, **options):
        with command_errors("compile"):
            fabric_intent = selectors.fabric_intent_resolve(options["fabric"])
            started = time.perf_counter()
            run = services.compile_run_create(fabric_intent=fabric_intent, platforms=options["platform"],
                                              devices=options["device"])
        if run.status != RunStatus.SUCCEEDED:
            raise CommandError(f"compile run {run.pk} of {fabric_intent.name} failed:\n"
                               + (error_lines_from(run) or f"  {run.error}"))
        written = services.compile_run_write(run=run, out_dir=Path(options["out"]))
        root = Path(options["out"]) / fabric_intent.name
        for path in written:
            self.stdout.write(str(path))
        self.stdout.write(self.style.SUCCESS(
            f"compile run {run.pk}: {run.device_count} devices, {len(written)} files in {root} "
            f"({time.perf_counter() - started:.2f} s)"))


def error_lines_from(run) -> str:
    return "\n".join(f"  {field}: {' '.join(messages)}" for field, messages in (run.error_fields or {}).items())

