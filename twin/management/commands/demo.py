"""`manage.py demo`: the main job on the reference fabric, step by step, with what each step measured.

Builds the reference inventory (examples/reference-fabric.yaml), applies its intent, compiles every device for
its own platform and FRR, and writes the configs under out/. Later steps (validation, the live twin, a canary
rollout) run when their parts are present and say "skipped: <reason>" when the machine cannot run them.
`make demo` then serves the web UI and API on 127.0.0.1:8000.
"""

from __future__ import annotations

import time
from io import StringIO
from pathlib import Path

import yaml
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from changes import services as change_services
from changes.choices import (
    RolloutKindChoices,
    RolloutStateChoices,
    RolloutTargetChoices,
    StepPhaseChoices,
    StepResultChoices,
)
from changes.models import Step
from changes.pipelines.runner import rollout_execute
from common.runs import RunStatus
from compiler.errors import FabricTwinError
from compiler.scenario import clos_params
from intents.models import Tenant
from intents.services import compile_run_create, compile_run_write, fabric_intent_apply, network_create
from inventory.builder import fabric_build
from twins.selectors import twin_list_up
from twins.services import (
    TwinUnavailable,
    twin_check,
    twin_down,
    twin_fidelity,
    twin_runs_text,
    twin_status_reason,
    twin_up,
)
from validation.services import validation_run_create
from validators.findings import CheckStatus

DEFAULT_SCENARIO = Path(settings.BASE_DIR) / "examples" / "reference-fabric.yaml"
# The second fabric of the same inventory: the frontend/storage fabric of the reference GPU servers.
FRONTEND_SCENARIO = Path(settings.BASE_DIR) / "examples" / "frontend-fabric.yaml"


class Command(BaseCommand):
    help = "Build, compile, validate and twin the reference fabric, then print where everything is."

    def add_arguments(self, parser):
        parser.add_argument("--scenario", default=str(DEFAULT_SCENARIO), help="scenario YAML (clos + intent)")
        parser.add_argument("--out", default=str(settings.FT_OUTPUT_DIR), help="where configs and reports go")
        parser.add_argument("--no-twin", action="store_true", help="skip the live twin steps")
        parser.add_argument("--frontend", default=str(FRONTEND_SCENARIO),
                            help="scenario YAML of the second (frontend) fabric built beside the first; '' skips it")

    def handle(self, *args, **options):
        self.out_dir = Path(options["out"])
        data = yaml.safe_load(Path(options["scenario"]).read_text())
        self.context: dict = {"data": data, "no_twin": options["no_twin"], "frontend": options["frontend"]}
        steps = [
            ("inventory", self.step_inventory),
            ("intent", self.step_intent),
            ("compile", self.step_compile),
            ("validate", self.step_validate),
            ("frontend", self.step_frontend),
            ("twin", self.step_twin),
            ("fidelity", self.step_fidelity),
            ("rollout", self.step_rollout),
            ("login", self.step_login),
        ]
        self.stdout.write(self.style.MIGRATE_HEADING(f"Fabric Twin demo — {options['scenario']}"))
        for name, step in steps:
            started = time.perf_counter()
            try:
                summary = step()
            except FabricTwinError as error:
                raise CommandError(f"{name}: {error}") from error
            elapsed = time.perf_counter() - started
            self.stdout.write(f"  {self.style.SUCCESS('✔')} {name:<10} {elapsed:6.2f}s  {summary}")

    # ------------------------------------------------------------------------------------------------ steps

    def step_inventory(self) -> str:
        result = fabric_build(params=clos_params(self.context["data"]["clos"]))
        inventory = result.inventory
        self.context["fabric_name"] = inventory.fabric
        worst = max((capacity.ratio for capacity in result.capacities), default=0)
        return (f"fabric {inventory.fabric}: {len(inventory.switches)} switches, {len(inventory.servers)} servers, "
                f"{len(inventory.cables)} cables (worst leaf oversubscription {worst:.2f}:1)")

    def step_intent(self) -> str:
        fabric_intent = fabric_intent_apply(data=self.context["data"])
        self.context["fabric_intent"] = fabric_intent
        return (f"intent {fabric_intent.name}: {fabric_intent.tenants.count()} tenants, "
                f"{fabric_intent.networks.count()} networks, {fabric_intent.roce_classes.count()} RoCE classes")

    def step_compile(self) -> str:
        run = compile_run_create(fabric_intent=self.context["fabric_intent"])
        if run.status != RunStatus.SUCCEEDED:
            raise CommandError(f"compile failed: {run.error}")
        self.context["compile_run"] = run
        target = self.out_dir / "configs"
        compile_run_write(run=run, out_dir=target)
        return f"{run.device_count} devices compiled in {run.duration_s:.2f}s; configs in {target}/{run.fabric_intent.name}/"

    def step_validate(self) -> str:
        """Every static check on the stored configs of the compile step (BGP, routing/ECMP, overlay, MTU, RoCE,
        headroom, physical, N-1/N-2 what-ifs; Batfish only when BATFISH_HOST is set), stored as a validation run."""

        run = validation_run_create(fabric_intent=self.context["fabric_intent"],
                                    compile_run=self.context.get("compile_run"))
        skipped = [name + (f" ({check['reason']})" if check.get("reason") else "")
                   for name, check in run.summary.get("checks", {}).items() if check.get("status") == CheckStatus.SKIPPED]
        verdict = "all checks passed" if run.ok else f"{run.checks_failed} checks FAILED"
        return (f"{verdict}: {run.checks_passed} passed, {run.checks_failed} failed, {run.checks_skipped} skipped"
                f"{': ' + '; '.join(skipped) if skipped else ''}; {run.error_count} errors, "
                f"{run.warning_count} warnings (run #{run.pk}, `manage.py validate --fabric "
                f"{run.fabric_intent.name}` for the full report)")

    def step_frontend(self) -> str:
        """The second fabric of the inventory (backend GPU + frontend/storage): built, intent applied, compiled and
        validated beside the first; names are prefixed, pools picked free of the first fabric."""
        from intents.services import compile_run_create, compile_run_write, fabric_intent_apply
        from inventory.builder import fabric_build
        from validation.services import validation_run_create

        if not self.context["frontend"]:
            return "skipped: --frontend ''"
        data = yaml.safe_load(Path(self.context["frontend"]).read_text())
        built = fabric_build(params=clos_params(data["clos"]))
        fabric_intent = fabric_intent_apply(data=data)
        run = compile_run_create(fabric_intent=fabric_intent)
        if run.status != RunStatus.SUCCEEDED:
            raise CommandError(f"frontend compile failed: {run.error}")
        compile_run_write(run=run, out_dir=self.out_dir / "configs")
        validation = validation_run_create(fabric_intent=fabric_intent)
        verdict = "all checks passed" if validation.ok else f"{validation.checks_failed} checks FAILED"
        return (f"fabric {built.inventory.fabric}: {len(built.inventory.switches)} switches, "
                f"{len(built.inventory.servers)} servers; pools loopback {fabric_intent.loopback_pool}, VTEP "
                f"{fabric_intent.vtep_pool}, links {fabric_intent.p2p_pool}, management "
                f"{fabric_intent.management_network}; {run.device_count} devices compiled; {verdict} "
                f"({validation.checks_passed} passed, {validation.checks_failed} failed)")

    def step_twin(self) -> str:
        """Boot the live twin of the compiled intent (netns + FRR) and run every live check; it keeps running
        for the web UI until `manage.py twin down`."""

        if self.context["no_twin"]:
            return "skipped: --no-twin"

        # A twin left running by an earlier demo runs an older compile (and the demo's canary change): replace it.
        for running in twin_list_up(fabric_intent=self.context["fabric_intent"]):
            twin_down(twin=running, force=True)
        try:
            twin = twin_up(fabric_intent=self.context["fabric_intent"], compile_run=self.context.get("compile_run"))
        except TwinUnavailable as unavailable:
            return str(unavailable)
        self.context["twin"] = twin
        counts = (twin.last_report or {}).get("counts", {})
        return (f"twin {twin.prefix} {twin.status}: {twin.switches} switches, {twin.hosts} hosts, boot {twin.boot_s}s, "
                f"BGP converged {twin.converge_s}s after daemon start, FRR RSS {twin.rss_mb} MiB; live checks "
                f"{counts.get('passed', 0)} passed, {counts.get('failed', 0)} failed, {counts.get('skipped', 0)} "
                f"skipped (static only); `manage.py twin down --fabric {twin.fabric_intent.name}` removes it")

    def step_fidelity(self) -> str:
        """The twin's measurements against the static validators' predictions for the same compile."""
        twin = self.context.get("twin")
        if twin is None:
            return "skipped: no live twin"
        result = twin_fidelity(twin=twin)
        items = sum(count["items"] for count in result["compared"].values())
        static_only = sum(count["static_only"] for count in result["compared"].values())
        return (f"{items} items compared (sessions, flood lists, ECMP, host matrix, link/host MTU, N-1): "
                f"{result['disagreements']} disagreements, {static_only} static only")

    def step_rollout(self) -> str:
        """A canary push on the twin: add a network (new VNI) to the intent, compile, turn the compile into a change
        set and roll it out canary-first with the static validators as pre-check and live checks after each wave."""

        twin = self.context.get("twin")
        if twin is None:
            return "skipped: no live twin"
        fabric_intent = self.context["fabric_intent"]
        network = network_create(tenant=Tenant.objects.get(fabric_intent=fabric_intent, name="A"), name="a-eval",
                                 vlan_id=40, subnet="10.40.0.0/24", gateway="10.40.0.1")
        run = compile_run_create(fabric_intent=fabric_intent)
        if run.status != RunStatus.SUCCEEDED:
            raise CommandError(f"compile of the change failed: {run.error}")
        change_set = change_services.changeset_create_from_compile_run(
            compile_run_id=run.pk, target=RolloutTargetChoices.TWIN, name=f"demo: add network {network.name} (VLAN 40)",
            twin=twin)
        rollout = change_services.rollout_create(
            name=f"demo canary: {network.name}", kind=RolloutKindChoices.CANARY_PUSH, target=RolloutTargetChoices.TWIN, change_set=change_set,
            twin=twin, policy={"soak_s": 2, "wave_size": 2, "checks": ["static", "bgp", "evpn", "ping"]})
        change_services.rollout_start(rollout=rollout, enqueue=False)
        state = rollout_execute(rollout_id=rollout.pk, owner="demo")
        rollout.refresh_from_db()
        waves = [", ".join(wave) for wave in rollout.plan.get("waves", [])]
        pushed = Step.objects.filter(rollout=rollout, phase=StepPhaseChoices.PUSH, result=StepResultChoices.OK).count()
        summary = (f"rollout #{rollout.pk} {state}: waves [{'] ['.join(waves)}] (canary first), {pushed} devices "
                   f"pushed, unchanged: {', '.join(rollout.plan.get('unchanged', [])) or 'none'}; "
                   f"`manage.py rollout status {rollout.pk} --steps` for every step")
        if state != RolloutStateChoices.SUCCEEDED:
            raise CommandError(f"{summary}\n{rollout.error}")
        # The twin followed the rollout: its live checks now compare with what each switch runs.
        twin = twin_check(twin=twin)
        return (f"{summary}; the twin {twin_runs_text(twin=twin)}, live checks again: {twin.status} "
                f"({twin_status_reason(twin=twin)})")

    def step_login(self) -> str:
        """Users admin / operator / viewer in their role groups; the password is printed once, here."""
        out = StringIO()
        call_command("demo_user", stdout=out)
        return f"log in at http://127.0.0.1:8000/login/ — {out.getvalue().strip()}"
