"""`manage.py rollout create|approve|start|status|pause|cancel|list ...` with a live progress display.

Examples:
  manage.py rollout create --name add-net30 --kind canary_push --target twin --change-set 3 \
      --policy '{"soak_s": 10}'                       # the twin the change set was read from
  manage.py rollout create --name add-net30 --kind canary_push --target twin --compile-run 12 \
      --twin 4                                        # change set built from the compile run first
  manage.py rollout approve 7 --user alice        # production only; alice is an admin and not the creator
  manage.py rollout start 7 --user bob --follow   # --follow: live progress until it ends (Ctrl-C only stops watching)
  manage.py rollout status 7 --steps
"""

from __future__ import annotations

import json
import time

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError

from compiler.errors import FabricTwinError, InputError
from twins.models import Twin

from ... import selectors, services
from ...audit import audit_actor
from ...choices import RolloutKindChoices, RolloutStateChoices, RolloutTargetChoices, wave_label
from ...lifecycle import new_runner_id
from ...models import ChangeSet, Rollout
from ...pipelines.runner import rollout_execute


class Command(BaseCommand):
    help = "Create, approve, start, pause, cancel and watch rollouts."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a rollout from a change set or a compile run")
        create.add_argument("--name", required=True, help="the rollout's name (shown in lists and the UI)")
        create.add_argument("--kind", required=True, choices=RolloutKindChoices.values,
                            help="pipeline: %(choices)s")
        create.add_argument("--target", required=True, choices=RolloutTargetChoices.values,
                            help="where it pushes: %(choices)s (production needs an admin's approval)")
        create.add_argument("--change-set", type=int, help="id of an existing change set to roll out")
        create.add_argument("--compile-run", type=int, help="build the change set from this intents compile run")
        create.add_argument("--twin", type=int, help="twin target: the Twin id (default with --change-set: the "
                            "twin it was read from)")
        create.add_argument("--policy", default="{}", help="JSON object (see docs/changes.md)")
        create.add_argument("--topology", default="", help='rolling upgrade outside the twin: JSON '
                            '{"roles": {device: role}, "links": [[a, b], ...]}')
        create.add_argument("--user", default="", help="username recorded as the creator (audit log)")
        for name in ("approve", "start", "pause", "cancel"):
            action = sub.add_parser(name, help=f"{name} a rollout")
            action.add_argument("rollout", type=int, help="rollout id")
            action.add_argument("--user", default="", help=f"username who does the {name} (audit log; role checked)")
            if name == "start":
                action.add_argument("--follow", action="store_true",
                                    help="print live progress until it ends (Ctrl-C only stops watching)")
                action.add_argument("--inline", action="store_true",
                                    help="run in this process instead of on a Celery worker")
        status = sub.add_parser("status", help="state, waves and checks of a rollout")
        status.add_argument("rollout", type=int, help="rollout id")
        status.add_argument("--steps", action="store_true", help="also list every step")
        status.add_argument("--follow", action="store_true", help="refresh until the rollout ends")
        sub.add_parser("list", help="the 50 newest rollouts")
        anta = sub.add_parser("anta-catalog", help="the RoCE gate's post-push checks of the rollout's EOS devices "
                                                   "as an ANTA catalogue (YAML)")
        anta.add_argument("rollout", type=int, help="rollout id")
        anta.add_argument("--output", default="", help="write the catalogue to this file (default: stdout)")

    def handle(self, *args, **options):
        user = self._user(options.get("user", ""))
        try:
            with audit_actor(user):
                getattr(self, f"do_{options['action'].replace('-', '_')}")(options, user)
        except InputError as exc:
            raise CommandError("; ".join(str(error) for error in exc.errors)) from exc
        except (FabricTwinError, PermissionError) as exc:
            raise CommandError(str(exc)) from exc
        except Rollout.DoesNotExist as exc:
            raise CommandError(f"rollout {options.get('rollout')} does not exist") from exc

    def _user(self, username: str):
        if not username:
            return None
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"--user {username!r}: no such user")
        return user

    def _rollout(self, options) -> Rollout:
        return Rollout.objects.get(pk=options["rollout"])

    def do_create(self, options, user):
        try:
            policy = json.loads(options["policy"])
            topology = json.loads(options["topology"]) if options["topology"] else None
        except ValueError as exc:
            raise CommandError(f"--policy/--topology is not JSON: {exc}") from exc
        change_set = twin = None
        if options.get("twin") is not None:
            twin = Twin.objects.filter(pk=options["twin"]).first()
            if twin is None:
                raise CommandError(f"--twin {options['twin']}: no twin with this id (manage.py twin status lists them)")
        if options.get("compile_run"):
            change_set = services.changeset_create_from_compile_run(
                compile_run_id=options["compile_run"], target=options["target"], user=user, twin=twin)
            self.stdout.write(f"change set {change_set.pk}: {change_set.devices.filter(has_diff=True).count()} of "
                              f"{change_set.devices.count()} devices differ")
        elif options.get("change_set"):
            change_set = ChangeSet.objects.filter(pk=options["change_set"]).first()
            if change_set is None:
                raise CommandError(f"--change-set {options['change_set']}: no such change set")
        rollout = services.rollout_create(name=options["name"], kind=options["kind"], target=options["target"],
                                          change_set=change_set, policy=policy, topology=topology, twin=twin,
                                          user=user)
        self.stdout.write(f"rollout {rollout.pk} created: state {rollout.state}, {len(rollout.plan['waves'])} waves")
        for index, wave in enumerate(rollout.plan["waves"], start=1):
            self.stdout.write(f"  {wave_label(index, rollout.kind)}: {', '.join(wave)}")

    def do_approve(self, options, user):
        try:
            rollout = services.rollout_approve(rollout=self._rollout(options), user=user)
        except PermissionDenied as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"rollout {rollout.pk} approved by {user}: state {rollout.state}")

    def do_start(self, options, user):
        try:
            rollout = services.rollout_start(rollout=self._rollout(options), user=user, enqueue=not options["inline"])
        except PermissionDenied as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"rollout {rollout.pk} {rollout.state}")
        if options["inline"]:
            rollout_execute(rollout_id=rollout.pk, owner=new_runner_id())
            self._status(rollout.pk, steps=True)
        elif options["follow"]:
            self._follow(rollout.pk)

    def do_pause(self, options, user):
        rollout = services.rollout_pause(rollout=self._rollout(options), user=user)
        self.stdout.write(f"rollout {rollout.pk} {rollout.state} (takes effect at the next step boundary)")

    def do_cancel(self, options, user):
        rollout = services.rollout_cancel(rollout=self._rollout(options), user=user)
        self.stdout.write(f"rollout {rollout.pk} {rollout.state}")

    def do_status(self, options, user):
        if options["follow"]:
            self._follow(options["rollout"])
        else:
            self._status(options["rollout"], steps=options["steps"])

    def do_list(self, options, user):
        for rollout in selectors.rollout_list()[:50]:
            self.stdout.write(f"{rollout.pk:>5}  {rollout.state:<17} {rollout.kind:<16} {rollout.target:<10} "
                              f"{rollout.name}")

    def _status(self, rollout_id: int, steps: bool) -> None:
        rollout = selectors.rollout_get(rollout_id=rollout_id)
        progress = selectors.rollout_progress(rollout=rollout)
        self.stdout.write(f"rollout {rollout.pk} '{rollout.name}' ({rollout.kind}, {rollout.target}): {rollout.state}; "
                          f"{progress['devices_done']}/{progress['devices_total']} devices done")
        if rollout.error:
            self.stdout.write(f"  error: {rollout.error.splitlines()[0][:300]}")
        if steps:
            for step in selectors.step_list(rollout=rollout):
                self.stdout.write(f"  w{step.wave:<4} {step.device or '*':<12} {step.phase:<10} {step.result:<11} "
                                  f"{(step.output.splitlines() or [''])[0][:80]}")
        for device, outcome in sorted(rollout.report.get("outcome", {}).items()):
            self.stdout.write(f"  {device:<12} {outcome['outcome']}")
        gate = selectors.rollout_roce_gate(rollout=rollout)
        if gate is not None:  # the canary's RoCE gate (changes.pipelines.rocegate), as the rollout page shows it
            self.stdout.write(f"  RoCE gate: {gate['result']}"
                              + (f" at poll {gate['decided_at_poll']}" if gate["decided_at_poll"] else "")
                              + f"; control peers {', '.join(gate['peers']) or 'none'}")
            if gate["synthetic"]:
                self.stdout.write(f"    synthetic (modelled, not measured): {', '.join(gate['synthetic'])}")
            for line in gate["failures"]:
                self.stdout.write(f"    {line}")
            for item in gate["devices"]:
                for row in item["rows"]:
                    if row["failed"]:
                        peers = "-" if row["peers_per_s"] is None else f"{row['peers_per_s']:.4g}/s"
                        self.stdout.write(f"    {item['device']} {row['counter']}: before {row['pre_per_s']:.4g}/s, "
                                          f"after {row['post_per_s']:.4g}/s, control peer {peers}")

    def do_anta_catalog(self, options, user) -> None:
        """The RoCE gate as an ANTA catalogue (changes.rocegate.anta): run it with ``anta nrfu --catalog``."""
        text = selectors.rollout_anta_catalog(rollout=selectors.rollout_get(rollout_id=options["rollout"]))["yaml"]
        if not options["output"]:
            self.stdout.write(text, ending="")
            return
        try:
            with open(options["output"], "w") as handle:
                handle.write(text)
        except OSError as exc:
            raise CommandError(f"--output={options['output']!r}: {exc.strerror}") from exc
        self.stdout.write(f"wrote {options['output']}")

    def _follow(self, rollout_id: int) -> None:
        """Live progress: one line per change, until the rollout stops (pause/terminal)."""
        last = None
        while True:
            rollout = selectors.rollout_get(rollout_id=rollout_id)
            progress = selectors.rollout_progress(rollout=rollout)
            current = progress["current"]
            line = (f"[{rollout.state}] {progress['devices_done']}/{progress['devices_total']} devices"
                    + (f" | {wave_label(current['wave'], rollout.kind)} {current['device'] or 'fabric'} {current['phase']}"
                       if current else ""))
            if line != last:
                self.stdout.write(line)
                self.stdout.flush()
                last = line
            if progress["finished"] or rollout.state == RolloutStateChoices.PAUSED:
                self._status(rollout_id, steps=False)
                return
            time.sleep(0.5)
