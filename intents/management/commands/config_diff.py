"""manage.py config_diff: what a compile of the current intent would change, per device, against what the target
runs: the device (deployed by a production rollout), the running twin (the compile each twin switch runs) or the
last compile; ``--target auto`` (default) picks per device in that order. Each device's header says which."""

from collections import Counter

from django.core.management.base import BaseCommand

from compiler.model import Platform
from intents import selectors, services
from intents.choices import DiffTargetChoices

from ._common import command_errors

# DeviceDiff.baseline -> the words of the summary line (what the target runs)
WORDS = {"deployed": "device", "twin": "twin", "compiled": "last compile", "none": "nothing (whole file new)"}


class Command(BaseCommand):
    help = ("Unified diff (and optionally the structured diff) of the intended configs against what the target runs "
            "(device, twin or last compile); each device's header says what it compared against.")

    def add_arguments(self, parser):
        parser.add_argument("--fabric", help="Fabric intent name; default: the only fabric intent")
        parser.add_argument("--device", help="Only this switch")
        parser.add_argument("--platform", choices=Platform.ALL, help="Only this platform")
        parser.add_argument("--structured", action="store_true", help="Also print the structured (path) diff")
        parser.add_argument("--target", choices=DiffTargetChoices.values, default=DiffTargetChoices.AUTO,
                            help="What to compare with: " + "; ".join(f"{value}: {label}" for value, label
                                                                      in DiffTargetChoices.choices))

    def handle(self, *args, **options):
        with command_errors("config_diff"):
            fabric_intent = selectors.fabric_intent_resolve(options["fabric"])
            diffs = services.config_diff(fabric_intent=fabric_intent, device=options["device"],
                                         platform=options["platform"], target=options["target"])
        changed = [diff for diff in diffs if diff.changed]
        for diff in changed:
            self.stdout.write(self.style.MIGRATE_HEADING(f"== {diff.hostname} {diff.platform}: {diff.label}"))
            self.stdout.write(diff.text, ending="")
            if options["structured"]:
                for change in diff.structured:
                    self.stdout.write(f"  {change['path']}: {change['old']!r} -> {change['new']!r}")
        against = Counter(WORDS[diff.baseline] for diff in diffs)
        self.stdout.write(f"{len(changed)} of {len(diffs)} device configs change (compared with "
                          f"{', '.join(f'{word}: {count}' for word, count in sorted(against.items())) or 'nothing'})")
