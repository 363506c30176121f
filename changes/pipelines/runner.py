"""The durable runner every rollout goes through (Nautobot Jobs style: one run record, a row per action).

``rollout_execute`` is what the Celery task calls. It takes a lease on the rollout (only one runner at a time,
a dead runner's lease expires), marks steps a crash left "running" as interrupted, and hands a
``RolloutContext`` to the pipeline of the rollout's kind. Pipelines do everything through ``ctx.step(...)``:

- the Step row is written BEFORE the action (result running) and updated AFTER it (ok/failed/skipped);
- every step starts at a boundary that renews the lease and re-reads the rollout state, so pause and cancel take
  effect there (RolloutStopped);
- ``ctx.completed(...)`` tells a resumed run which steps already finished, so it continues where it stopped.
"""

from __future__ import annotations

import contextlib
import logging
import time
import traceback

from django.utils import timezone

from common.redaction import config_text_shown, redact_text
from compiler.errors import DriverError

from ..choices import RolloutKindChoices, RolloutStateChoices, RolloutTargetChoices, StepResultChoices
from ..drivers import DeviceDriver, driver_for_endpoint, driver_for_twin
from ..errors import RolloutStopped
from ..lifecycle import rollout_lease_acquire, rollout_lease_release, rollout_lease_renew, rollout_transition
from ..models import ChangeSetDevice, DeviceEndpoint, Rollout, Step
from .canary import CanaryPipeline
from .upgrade import UpgradePipeline

logger = logging.getLogger(__name__)
State = RolloutStateChoices
Result = StepResultChoices
OUTPUT_LIMIT = 20_000


class RolloutContext:
    def __init__(self, rollout: Rollout, owner: str, driver_factory=None):
        self.rollout = rollout
        self.owner = owner
        self._driver_factory = driver_factory or self._default_driver
        self._drivers: dict[str, DeviceDriver] = {}
        self._change_set_devices: dict[str, ChangeSetDevice] | None = None

    # --------------------------------------------------------------------------------------------- devices

    def _default_driver(self, hostname: str) -> DeviceDriver:
        if self.rollout.target == RolloutTargetChoices.TWIN:
            return driver_for_twin(self.rollout.twin, hostname)
        endpoint = DeviceEndpoint.objects.filter(hostname=hostname).first()
        if endpoint is None:
            raise DriverError(f"{hostname}: no DeviceEndpoint (address/credentials) for this production device")
        return driver_for_endpoint(endpoint)

    def driver(self, hostname: str) -> DeviceDriver:
        if hostname not in self._drivers:
            driver = self._driver_factory(hostname)
            driver.open()
            self._drivers[hostname] = driver
        return self._drivers[hostname]

    def change_set_device(self, hostname: str) -> ChangeSetDevice:
        if self._change_set_devices is None:
            self._change_set_devices = {row.hostname: row for row in self.rollout.change_set.devices.all()}
        return self._change_set_devices[hostname]

    def close(self) -> None:
        for driver in self._drivers.values():
            with contextlib.suppress(Exception):
                driver.close()
        self._drivers.clear()

    # --------------------------------------------------------------------------------------------- boundaries

    def checkpoint(self) -> None:
        """A step boundary: renew the lease, re-read the state; stop if paused, cancelled or taken over."""
        if not rollout_lease_renew(rollout_id=self.rollout.pk, owner=self.owner):
            raise RolloutStopped("another runner holds the rollout now")
        state = Rollout.objects.values_list("state", flat=True).get(pk=self.rollout.pk)
        if state != State.RUNNING:
            raise RolloutStopped(state)

    def sleep(self, seconds: float) -> None:
        """Wait with a boundary every second, so pause/cancel during a soak act within a second."""
        deadline = time.monotonic() + seconds
        while True:
            self.checkpoint()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            time.sleep(min(1.0, remaining))

    def completed(self, phase: str, device: str = "", wave: int | None = None) -> Step | None:
        rows = Step.objects.filter(rollout=self.rollout, phase=phase, device=device,
                                   result__in=[Result.OK, Result.SKIPPED])
        if wave is not None:
            rows = rows.filter(wave=wave)
        return rows.order_by("-id").first()

    @contextlib.contextmanager
    def step(self, phase: str, device: str = "", wave: int = 0, config_hash: str = ""):
        self.checkpoint()
        step = Step.objects.create(rollout=self.rollout, device=device, wave=wave, phase=phase,
                                   config_hash=config_hash, result=Result.RUNNING)
        try:
            yield step
        except RolloutStopped as stop:
            _finish(step, Result.INTERRUPTED, f"{step.output}\nstopped: {stop.reason}".strip())
            raise
        except Exception as exc:
            _finish(step, Result.FAILED, f"{step.output}\n{type(exc).__name__}: {exc}".strip())
            raise
        else:
            _finish(step, Result.OK if step.result == Result.RUNNING else step.result, step.output)

    def report_update(self, **values) -> None:
        self.rollout.report = {**self.rollout.report, **values}
        Rollout.objects.filter(pk=self.rollout.pk).update(report=self.rollout.report)

    def finish(self, state: str, *, error: str = "", **report) -> None:
        self.report_update(**report)
        # device errors may echo a credential or quote a config line; the rollout is readable by viewers
        error = redact_text(config_text_shown(error))
        rollout_transition(rollout_id=self.rollout.pk, to_state=state, message=error or state, error=error,
                           report=self.rollout.report, expected_from=(State.RUNNING,))


def _finish(step: Step, result: str, output: str) -> None:
    step.result = result
    # Step rows are readable by viewers: no echoed secret, no device secret quoted from a diff (issue 29). Only the
    # tail is kept, so only the tail (from a line start, a secret is never cut in half) is scanned.
    if len(output) > 2 * OUTPUT_LIMIT:
        output = output[-2 * OUTPUT_LIMIT:].partition("\n")[2]
    step.output = redact_text(config_text_shown(output))[-OUTPUT_LIMIT:]
    step.finished_at = timezone.now()
    step.save(update_fields=["result", "output", "finished_at", "detail", "config_hash"])


def recover_interrupted_steps(rollout: Rollout, owner: str) -> int:
    """Steps a dead runner left 'running': their outcome is unknown; the pipeline re-checks the device."""
    return Step.objects.filter(rollout=rollout, result=Result.RUNNING).update(
        result=Result.INTERRUPTED, finished_at=timezone.now(),
        output=f"the runner stopped during this step (crash or worker loss); resumed by runner {owner[:8]}")


def rollout_execute(*, rollout_id: int, owner: str, driver_factory=None) -> str:
    """Run (or resume) a rollout to a terminal state or the next pause. Returns the state it left it in."""
    if not rollout_lease_acquire(rollout_id=rollout_id, owner=owner):
        logger.info("rollout %s: another runner holds the lease; not starting a second one", rollout_id)
        return "busy"
    context = None
    try:
        rollout = Rollout.objects.select_related("change_set", "twin").get(pk=rollout_id)
        if rollout.state != State.RUNNING:
            return rollout.state
        recover_interrupted_steps(rollout, owner)
        context = RolloutContext(rollout, owner, driver_factory)
        pipeline = CanaryPipeline if rollout.kind == RolloutKindChoices.CANARY_PUSH else UpgradePipeline
        pipeline(context).run()
    except RolloutStopped as stop:
        logger.info("rollout %s stopped at a step boundary: %s", rollout_id, stop.reason)
    except Exception as exc:  # any unexpected failure ends the rollout as failed, with the trace
        logger.exception("rollout %s failed", rollout_id)
        with contextlib.suppress(Exception):
            rollout_transition(rollout_id=rollout_id, to_state=State.FAILED, expected_from=(State.RUNNING,),
                               message=f"runner error: {exc}", error=redact_text(traceback.format_exc())[-4000:])
    finally:
        if context is not None:
            context.close()
        rollout_lease_release(rollout_id=rollout_id, owner=owner)
    return Rollout.objects.values_list("state", flat=True).get(pk=rollout_id)
