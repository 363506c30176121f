"""Choices of the twins app (NetBox style: one class per field)."""

from django.db import models

from intents.choices import DeployedSourceChoices


class TwinEngineChoices(models.TextChoices):
    NETNS = "netns", "Linux network namespaces + FRR (this machine)"
    CONTAINERLAB = "containerlab", "containerlab (needs the binary and Docker)"
    # Shards on several twin hosts, one Celery worker per host (twins.shards; manage.py twin_shards).
    SHARDED = "sharded", "Linux network namespaces + FRR, sharded over twin hosts"


class TwinStatusChoices(models.TextChoices):
    """The twin's one status vocabulary (model, API, ``manage.py twin``, UI). ``healthy`` is derived from it
    (``twin_healthy``), never measured separately, so the two can never contradict each other."""

    DOWN = "down", "Down (not running)"
    BOOTING = "booting", "Booting"
    UP = "up", "Up (running, every live check passed)"
    DEGRADED = "degraded", "Degraded (running, a live check failed or a daemon died)"
    FAILED = "failed", "Failed (boot or teardown failed; leftovers may remain)"


# Statuses in which the twin's namespaces and daemons exist (it can be checked, pushed to, compared).
TWIN_RUNNING = frozenset({TwinStatusChoices.UP, TwinStatusChoices.DEGRADED})


def twin_healthy(status: str) -> bool:
    """Healthy means exactly ``up``: running and every live check of the last report passed."""
    return status == TwinStatusChoices.UP


# How a twin switch came to run its config: the ``source`` of its intents.DeployedConfig row (one vocabulary).
TwinSwitchSourceChoices = DeployedSourceChoices


class InjectionKindChoices(models.TextChoices):
    LINK = "link", "One fabric link"
    SPINE = "spine", "A whole spine"


class TwinOperationKindChoices(models.TextChoices):
    UP = "up", "Start twin"
    DOWN = "down", "Stop twin"
    PING = "ping", "Live checks + ping matrix"
    FIDELITY = "fidelity", "Fidelity"
    FAIL_LINK = "fail_link", "Fail a leaf uplink"
    FAIL_SPINE = "fail_spine", "Fail a spine"
    # A change set's configs booted on a scratch twin, checked and torn down before production (twins.checks);
    # it runs on no Twin row, so it never claims the fabric's twin (twin_operation_busy skips it).
    REHEARSAL = "rehearsal", "Change rehearsal (scratch twin)"
    # A sharded twin's coordinator runs (twins.shards): one record, the outcome of every shard in its result.
    SHARDS_UP = "shards_up", "Start a sharded twin"
    SHARDS_CHECK = "shards_check", "Check a sharded twin"
    SHARDS_DOWN = "shards_down", "Stop a sharded twin"


class TwinShardStateChoices(models.TextChoices):
    """One shard of a sharded twin (``TwinShard.state``)."""

    DOWN = "down", "Down"
    PENDING = "pending", "Sent to its host's worker, not answered yet"
    BOOTED = "booted", "Booted on its host, not verified yet (the other shards may still boot)"
    UP = "up", "Up (its live checks passed)"
    DEGRADED = "degraded", "Up, a live check failed"
    FAILED = "failed", "The task failed on its host (boot, check or teardown)"
    LOST = "lost", "Lost: its worker did not answer in time, or its host left the underlay"


# A shard in one of these has answered (the coordinator stops waiting for it).
SHARD_ANSWERED = frozenset({TwinShardStateChoices.DOWN, TwinShardStateChoices.BOOTED, TwinShardStateChoices.UP,
                            TwinShardStateChoices.DEGRADED, TwinShardStateChoices.FAILED})
