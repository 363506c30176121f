"""Choices of the change pipelines, and the ONE table of allowed rollout state transitions."""

from django.db import models

# What a rollout is aimed at decides the capability it needs, so it lives in the kernel's authorisation.
from common.choices import RolloutTargetChoices as RolloutTargetChoices  # re-exported with the others


class RolloutKindChoices(models.TextChoices):
    CANARY_PUSH = "canary_push", "Canary push"
    ROLLING_UPGRADE = "rolling_upgrade", "Rolling hitless upgrade"


class RolloutStateChoices(models.TextChoices):
    PENDING = "pending", "Pending"
    AWAITING_APPROVAL = "awaiting_approval", "Awaiting approval"
    RUNNING = "running", "Running"
    PAUSED = "paused", "Paused"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    ROLLED_BACK = "rolled_back", "Rolled back"
    CANCELLED = "cancelled", "Cancelled"


S = RolloutStateChoices
# The only place that says which state may follow which. lifecycle.rollout_transition enforces it atomically.
# pending -> awaiting_approval: production rollouts are submitted for approval; twin rollouts go pending -> running.
# running -> pending is not allowed: a rollout never forgets it ran. paused -> running resumes at the next step.
ROLLOUT_TRANSITIONS: dict[str, frozenset[str]] = {
    S.PENDING: frozenset({S.AWAITING_APPROVAL, S.RUNNING, S.CANCELLED}),
    S.AWAITING_APPROVAL: frozenset({S.PENDING, S.CANCELLED}),  # approval returns it to pending (startable)
    S.RUNNING: frozenset({S.PAUSED, S.SUCCEEDED, S.FAILED, S.ROLLED_BACK, S.CANCELLED}),
    S.PAUSED: frozenset({S.RUNNING, S.CANCELLED}),
    S.SUCCEEDED: frozenset(),
    S.FAILED: frozenset(),
    S.ROLLED_BACK: frozenset(),
    S.CANCELLED: frozenset(),
}
TERMINAL_STATES = frozenset(state for state, following in ROLLOUT_TRANSITIONS.items() if not following)


def wave_label(number: int, kind: str) -> str:
    """The one name of a rollout wave on every surface (pages, commands, step output): numbered from 1 as the
    pipelines number them; a canary push's first wave is its canary (issue #30 point 7: the page said "Canary,
    Wave 1" for what the pipeline and the command called "wave 1, wave 2")."""
    return f"wave {number} (canary)" if number == 1 and kind == RolloutKindChoices.CANARY_PUSH else f"wave {number}"


class StepPhaseChoices(models.TextChoices):
    PRE_CHECK = "pre_check", "Pre-check"
    DRAIN = "drain", "Drain"
    PUSH = "push", "Push"
    VERIFY = "verify", "Verify"
    SOAK = "soak", "Soak"
    UPGRADE = "upgrade", "Upgrade"
    UNDRAIN = "undrain", "Undrain"
    ROLLBACK = "rollback", "Rollback"


class StepResultChoices(models.TextChoices):
    RUNNING = "running", "Running"  # written before the action: a crash leaves this, meaning "outcome unknown"
    OK = "ok", "OK"
    FAILED = "failed", "Failed"
    SKIPPED = "skipped", "Skipped"  # e.g. the device already runs the intended config
    INTERRUPTED = "interrupted", "Interrupted"  # found "running" after a crash; the resume re-checked the device


class DriverChoices(models.TextChoices):
    NAPALM_EOS = "napalm_eos", "NAPALM EOS"
    NAPALM_MOCK = "napalm_mock", "NAPALM mock (recorded responses)"
    NETMIKO_SONIC = "netmiko_sonic", "Netmiko SONiC (linux)"
    TWIN = "twin", "Live twin (netns + FRR)"


class AuditActionChoices(models.TextChoices):
    CREATE = "create", "Create"
    UPDATE = "update", "Update"
    DELETE = "delete", "Delete"
    ROLLOUT = "rollout", "Rollout action"
