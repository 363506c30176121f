"""Canary push: pre-checks, the canary wave, post-checks, soak, then the remaining waves.

With ``policy.roce_gate`` enabled, the canary wave is also judged on its RoCE counters against its own pre-push
window and its control peers (changes.pipelines.rocegate); a failed gate rolls back like a failed check.

After each push the device's running config is read back, parsed and compared field by field with the files
pushed (post-push verification, changes.drift.push_verify): a difference fails that device's verify step. Any
failed check, push or verification rolls back every device this rollout already pushed (in reverse order, to the config it
ran before, kept in the change set) and the rollout ends rolled back; the checks run again after the rollback
and the report says whether the fabric is green again. Resumable at any point: a push step that finished ok is
never redone, and before every push the device's running config is compared with the intended one (the crash
may have happened between the commit and the step row update).
"""

from __future__ import annotations

from compiler.errors import DriverError, FabricTwinError
from compiler.parse import PARSERS
from intents.models import CompileRun
from intents.services import device_configs_mark_deployed
from twins.choices import TwinSwitchSourceChoices
from twins.services import twin_switch_record
from validators.findings import CheckStatus

from ..choices import RolloutStateChoices, RolloutTargetChoices, StepPhaseChoices, StepResultChoices
from ..credentials import running_files_open
from ..drift import push_verify
from ..errors import CheckFailed, PushVerifyFailed, RolloutStopped
from ..selectors import pushed_devices
from .checks import fabric_checks
from .rocegate import RoceGate

Phase = StepPhaseChoices
Result = StepResultChoices
ROLLBACK_WAVE = 9999  # steps of the rollback phase sort after every wave


class CanaryPipeline:
    def __init__(self, context):
        self.ctx = context
        self.rollout = context.rollout

    def run(self) -> None:
        reason = self.rollout.report.get("rolling_back")
        if reason:  # a previous runner decided to roll back and died doing it
            self.rollback(reason)
            return
        waves = self.rollout.plan.get("waves", [])
        try:
            self.check(Phase.PRE_CHECK, 0, "pre-checks (baseline before any push)", include_static=True,
                       devices=self.done_devices(waves))
        except CheckFailed as exc:
            self.ctx.finish(RolloutStateChoices.FAILED, error=f"pre-checks failed, nothing pushed: {exc}",
                            outcome=self.outcomes())
            return
        roce_gate = RoceGate(self.ctx)
        if roce_gate.enabled and waves:
            try:
                roce_gate.pre_window(waves[0])
            except CheckFailed as exc:
                self.ctx.finish(RolloutStateChoices.FAILED, error=f"RoCE gate pre window failed, nothing pushed: "
                                f"{exc}", outcome=self.outcomes())
                return
        for index, wave in enumerate(waves, start=1):
            try:
                for device in wave:
                    self.push(index, device)
                    self.verify_push(index, device)
                self.check(Phase.VERIFY, index, f"post-checks after wave {index} ({', '.join(wave)})",
                           devices=self.done_devices(waves[:index]))
                if roce_gate.enabled and index == 1:
                    roce_gate.judge(wave)  # the canary wave on its RoCE counters (changes.pipelines.rocegate)
                soak_s = self.rollout.policy.get("soak_s", 0)
                if soak_s and not self.ctx.completed(Phase.SOAK, "", index):
                    with self.ctx.step(Phase.SOAK, wave=index) as step:
                        self.ctx.sleep(soak_s)
                        step.output = f"soaked {soak_s}s"
                    self.check(Phase.VERIFY, index, f"post-soak checks after wave {index}", tag="soak",
                               devices=self.done_devices(waves[:index]))
            except RolloutStopped:
                raise  # paused or cancelled at a step boundary: not a failure, nothing to undo
            except Exception as exc:  # any failure after a push must roll back, bugs included
                reason = f"wave {index} ({', '.join(wave)}): {type(exc).__name__}: {exc}"
                self.ctx.report_update(rolling_back=reason)
                self.rollback(reason)
                return
        self.mark_deployed()
        self.ctx.finish(RolloutStateChoices.SUCCEEDED, outcome=self.outcomes())

    def mark_deployed(self) -> None:
        """Production: the compile run's configs are now what the devices run (the intents app's diff baseline).
        A twin rollout changes the twin, not the record of what production runs: there the switches the change
        set left unchanged are recorded as running the new compile too (their text is the same), so the twin
        runs one compile again (the pushed ones were recorded at each push; recording them again is a no-op)."""
        change_set = self.rollout.change_set
        if self.rollout.target == RolloutTargetChoices.TWIN:
            # every device: a push whose record a crash skipped is recorded now (a recorded one is a no-op)
            for row in change_set.devices.all():
                self.record_twin(row.hostname, row.intended_files, row.intended_hash, TwinSwitchSourceChoices.ROLLOUT,
                                 runtime_state=row.has_diff)
            return
        if not change_set.compile_run_id:
            return
        run = CompileRun.objects.filter(pk=change_set.compile_run_id).first()
        if run is not None:
            device_configs_mark_deployed(run=run, devices=list(change_set.devices.values_list("hostname", flat=True)),
                                         rollout_id=self.rollout.pk)

    def record_twin(self, device: str, files: dict, sha256: str, source: str, runtime_state: bool = True) -> None:
        """Twin target only: the twin's record of what ``device`` runs follows the push (or rollback) that just
        succeeded (twins.services.twin_switch_record); a push that raised never gets here."""
        if self.rollout.target != RolloutTargetChoices.TWIN:
            return
        twin_switch_record(twin=self.rollout.twin, hostname=device,
                           files=files, sha256=sha256, source=source, rollout_id=self.rollout.pk,
                           compile_run_id=self.rollout.change_set.compile_run_id, runtime_state=runtime_state)

    # --------------------------------------------------------------------------------------------- steps

    def done_devices(self, waves: list[list[str]]) -> list[str]:
        return [device for wave in waves for device in wave]

    def push(self, wave: int, device: str) -> None:
        if self.ctx.completed(Phase.PUSH, device):
            return  # a push that finished is never redone
        row = self.ctx.change_set_device(device)
        with self.ctx.step(Phase.PUSH, device, wave, config_hash=row.intended_hash) as step:
            driver = self.ctx.driver(device)
            if driver.is_at(row.intended_files):
                step.result = Result.SKIPPED
                step.output = f"already runs the intended config (sha256 {row.intended_hash[:12]}); not pushed again"
            else:
                diff = driver.push(row.intended_files)
                step.output = diff or "no difference reported by the device"
                step.detail = {"pushed": True}
        # After the step is recorded ok: a failure to record is then rolled back like any failure after a push.
        self.record_twin(device, row.intended_files, row.intended_hash, TwinSwitchSourceChoices.ROLLOUT)

    def verify_push(self, wave: int, device: str) -> None:
        """Post-push verification: what the device runs now, parsed, against the files pushed; a difference fails
        the step (field-level differences in its output) and so rolls the rollout back."""
        if self.ctx.completed(Phase.VERIFY, device, wave):
            return  # verified before a resume
        row = self.ctx.change_set_device(device)
        with self.ctx.step(Phase.VERIFY, device, wave, config_hash=row.intended_hash) as step:
            if row.platform not in PARSERS:
                step.result = Result.SKIPPED
                step.output = f"skipped: no parser for platform {row.platform!r} ({', '.join(PARSERS)})"
                return
            differences, unmodelled = push_verify(hostname=device, driver=self.ctx.driver(device),
                                                  pushed=row.intended_files, platform=row.platform)
            step.detail = {"differences": [item.as_dict() for item in differences],
                           "running_lines_not_modelled": unmodelled}
            if differences:
                step.output = "post-push verification: the running config, parsed, differs from the pushed one:\n" \
                    + "\n".join(item.message for item in differences)
                raise PushVerifyFailed(device, [item.message for item in differences])
            step.output = (f"post-push verification: the running config, parsed, equals the pushed one in every "
                           f"field the {row.platform} files carry ({unmodelled} running lines not modelled, not "
                           f"compared)")

    def check(self, phase: str, wave: int, title: str, *, include_static: bool = False, tag: str = "",
              devices: list[str] | None = None) -> None:
        if self.rollout.steps.filter(phase=phase, wave=wave, device="", result=Result.OK, detail__tag=tag).exists():
            return  # this check already passed before a resume
        with self.ctx.step(phase, wave=wave) as step:
            report = fabric_checks(self.ctx, title=title, include_static=include_static, devices=devices)
            step.detail = {"tag": tag, "report": report.as_dict()}
            step.output = report.as_text()
            if not report.ok:
                step.result = Result.FAILED
        if not report.ok:
            failed = [name for name, result in report.checks.items() if result.status == CheckStatus.FAILED]
            raise CheckFailed(f"{title}: failed checks {failed}", report.as_dict())

    def rollback(self, reason: str) -> None:
        errors = []
        for device in reversed(pushed_devices(rollout=self.rollout)):
            if self.ctx.completed(Phase.ROLLBACK, device):
                continue
            row = self.ctx.change_set_device(device)
            try:
                with self.ctx.step(Phase.ROLLBACK, device, ROLLBACK_WAVE, config_hash=row.running_hash) as step:
                    driver = self.ctx.driver(device)
                    previous = running_files_open(row.running_files)  # sealed at rest (device secrets inside)
                    if driver.runs_exactly(previous):
                        step.result = Result.SKIPPED
                        step.output = "already back on the previous config"
                    else:
                        driver.rollback(previous)
                        step.output = f"restored the previous config (sha256 {row.running_hash[:12]})"
                self.record_twin(device, running_files_open(row.running_files), row.running_hash,
                                 TwinSwitchSourceChoices.ROLLBACK)
            except (DriverError, FabricTwinError) as exc:
                errors.append(f"{device}: {exc}")
        green = False
        if not errors:
            try:
                self.check(Phase.VERIFY, ROLLBACK_WAVE, "checks after rollback", tag="after_rollback")
                green = True
            except CheckFailed as exc:
                errors.append(str(exc))
        outcome = self.outcomes()
        if errors:
            self.ctx.finish(RolloutStateChoices.FAILED, error=f"rolling back after: {reason}; rollback problems: "
                            f"{'; '.join(errors)}", outcome=outcome, green_after_rollback=green)
        else:
            self.ctx.finish(RolloutStateChoices.ROLLED_BACK, error=reason, outcome=outcome, green_after_rollback=True)

    def outcomes(self) -> dict:
        """Per device: unchanged | pushed | already_at_intended | rolled_back | rollback_failed | not_reached."""
        steps = {}
        for step in self.rollout.steps.filter(phase__in=[Phase.PUSH, Phase.ROLLBACK]).order_by("id"):
            steps.setdefault(step.device, {})[step.phase] = step
        out = {}
        for row in self.rollout.change_set.devices.all():
            device_steps = steps.get(row.hostname, {})
            push, rollback = device_steps.get(Phase.PUSH), device_steps.get(Phase.ROLLBACK)
            if not row.has_diff:
                outcome = "unchanged"
            elif rollback is not None:
                outcome = "rolled_back" if rollback.result in (Result.OK, Result.SKIPPED) else "rollback_failed"
            elif push is None:
                outcome = "not_reached"
            elif push.result == Result.OK:
                outcome = "pushed"
            elif push.result == Result.SKIPPED:
                outcome = "already_at_intended"
            else:
                outcome = f"push_{push.result}"
            out[row.hostname] = {"outcome": outcome, "intended_sha256": row.intended_hash,
                                 "previous_sha256": row.running_hash}
        return out

