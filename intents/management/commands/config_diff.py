"""manage.py config_diff: what a compile of the current intent would change, per device, against what is deployed
(or the latest stored compile when nothing is recorded as deployed)."""

from django.core.management.base import BaseCommand

from compiler.model import Platform
from intents import selectors, services

from ._common import command_errors


class Command(BaseCommand):
    help = "Unified diff (and optionally the structured diff) of the intended configs against the deployed ones."

    def add_arguments(self, parser):
        parser.add_argument("--fabric", help="Fabric intent name; default: the only fabric intent")
        parser.add_argument("--device", help="Only this switch")
        parser.add_argument("--platform", choices=Platform.ALL, help="Only this platform")
        parser.add_argument("--structured", action="store_true", help="Also print the structured (path) diff")

    def handle(self, *args, **options):
        with command_errors("config_diff"):
            fabric_intent = selectors.fabric_intent_resolve(options["fabric"])
            diffs = services.config_diff(fabric_intent=fabric_intent, device=options["device"],
                                         platform=options["platform"])
        changed = [diff for diff in diffs if diff.changed]
        for diff in changed:
            self.stdout.write(self.style.MIGRATE_HEADING(
                f"== {diff.hostname} {diff.platform} (against {diff.baseline}"
                + (f" run {diff.baseline_run})" if diff.baseline_run else ")")))
            self.stdout.write(diff.text, ending="")
            if options["structured"]:
                for change in diff.structured:
                    self.stdout.write(f"  {change['path']}: {change['old']!r} -> {change['new']!r}")
        self.stdout.write(f"{len(changed)} of {len(diffs)} device configs change")
