"""A rollout's state machine and its runner's lease: the layer the services, the runner and the tasks stand on.

Every rollout state change goes through ``rollout_transition``, which checks choices.ROLLOUT_TRANSITIONS under a
row lock and writes an audit row in the same transaction. A runner (changes.pipelines.runner) holds a lease on
the rollout it works on, renewed at every step boundary; a dead runner's lease expires and another takes over.
Kept apart from changes.services so the import graph is one-way: services -> tasks -> runner -> lifecycle.
"""

from __future__ import annotations

import datetime
import os
import uuid

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from common.runs import interrupted_error, runner_id, runner_state

from .audit import audit_record
from .choices import ROLLOUT_TRANSITIONS, AuditActionChoices, RolloutStateChoices
from .errors import RolloutStateError
from .models import Rollout

State = RolloutStateChoices


def lease_seconds() -> int:
    """How long a runner's claim on a rollout lasts without renewal (renewed at every step boundary)."""
    return int(getattr(settings, "FT_ROLLOUT_LEASE_S", 0) or os.environ.get("FT_ROLLOUT_LEASE_S", 60))


def rollout_transition(*, rollout_id: int, to_state: str, user=None, message: str = "",
                       expected_from: tuple[str, ...] | None = None, **fields) -> Rollout:
    """The one place a rollout changes state: row lock, allowed-transition check, audit row."""
    with transaction.atomic():
        rollout = Rollout.objects.select_for_update().get(pk=rollout_id)
        current = rollout.state
        if expected_from is not None and current not in expected_from:
            expected = [str(state) for state in expected_from]
            raise RolloutStateError(f"rollout {rollout.pk}: state={current!r}, expected one of {expected}")
        if to_state not in ROLLOUT_TRANSITIONS.get(current, ()):
            raise RolloutStateError(f"rollout {rollout.pk}: cannot go from state={current!r} to {to_state!r} "
                                    f"(allowed: {sorted(ROLLOUT_TRANSITIONS.get(current, ())) or 'none, terminal'})")
        rollout.state = to_state
        for key, value in fields.items():
            setattr(rollout, key, value)
        if to_state == State.RUNNING and rollout.started_at is None:
            rollout.started_at = timezone.now()
        if to_state in (State.SUCCEEDED, State.FAILED, State.ROLLED_BACK, State.CANCELLED):
            rollout.finished_at = timezone.now()
        rollout.save()
        audit_record(action=AuditActionChoices.ROLLOUT, instance=rollout, user=user,
                     changes={"from": current, "to": to_state}, message=message)
    return rollout


def rollout_lease_acquire(*, rollout_id: int, owner: str) -> bool:
    now = timezone.now()
    taken = Rollout.objects.filter(pk=rollout_id).filter(
        Q(lease_owner="") | Q(lease_expires_at__lt=now) | Q(lease_owner=owner)
    ).update(lease_owner=owner, lease_expires_at=now + datetime.timedelta(seconds=lease_seconds()))
    return taken == 1


def rollout_lease_renew(*, rollout_id: int, owner: str) -> bool:
    expires = timezone.now() + datetime.timedelta(seconds=lease_seconds())
    return Rollout.objects.filter(pk=rollout_id, lease_owner=owner).update(lease_expires_at=expires) == 1


def rollout_lease_release(*, rollout_id: int, owner: str) -> None:
    Rollout.objects.filter(pk=rollout_id, lease_owner=owner).update(lease_owner="", lease_expires_at=None)


def new_runner_id() -> str:
    return uuid.uuid4().hex


def in_process_runner_id() -> str:
    """The lease owner of a rollout run in a background thread of a web process (no broker): the process as a
    runner (common.runs.runner_id, so the reaper can tell whether it is alive) plus a per-run suffix, so two
    starts in one process never share a lease."""
    return f"{runner_id()}:{uuid.uuid4().hex[:8]}"[:64]


def rollouts_reap_interrupted() -> int:
    """Pause every running rollout whose in-process runner (in_process_runner_id) provably died with its web
    process (common.runs.runner_state): ``start`` resumes it, steps left running are re-checked. Rollouts of
    Celery workers (uuid lease owners) resume by themselves when a worker starts; other hosts are left alone."""
    count = 0
    for rollout_id, owner in Rollout.objects.filter(state=State.RUNNING).values_list("pk", "lease_owner"):
        if owner.count(":") != 4:
            continue
        state = runner_state(owner.rsplit(":", 1)[0])
        if state.alive is not False:
            continue
        try:
            rollout_transition(rollout_id=rollout_id, to_state=State.PAUSED, expected_from=(State.RUNNING,),
                               message=f"{interrupted_error(state.reason)} (start resumes it)",
                               lease_owner="", lease_expires_at=None)
        except RolloutStateError:
            continue  # it moved on meanwhile
        count += 1
    return count

