"""Writes of the change pipelines (HackSoft style: keyword-only, named <entity>_<action>).

Every rollout state change goes through ``rollout_transition``, which checks choices.ROLLOUT_TRANSITIONS under a
row lock and writes an audit row in the same transaction. Tasks, views and the management command only call
these functions.
"""

from __future__ import annotations

import datetime
import logging
import os
import re
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from compiler.errors import DriverError, FabricTwinError, FieldError, IntentValidationError
from compiler.names import HOSTNAME, VERSION, name_problem
from compiler.parse import ParsedDevice, parse_device
from compiler.parse.drift import field_drift
from twin.policy import APPROVE_PRODUCTION, user_has
from validators.configs import running_state_errors

from .audit import audit_record
from .choices import (
    ROLLOUT_TRANSITIONS,
    AuditActionChoices,
    DriverChoices,
    RolloutKindChoices,
    RolloutStateChoices,
    RolloutTargetChoices,
)
from .drivers import DeviceDriver, config_hash
from .errors import RolloutStateError
from .models import ChangeSet, ChangeSetDevice, DeviceEndpoint, DriftRecord, Rollout

logger = logging.getLogger(__name__)
State = RolloutStateChoices
READ_PARALLELISM = 16  # devices read concurrently when building a change set or checking drift (I/O bound)

DEFAULT_POLICY = {
    "canary": {"devices": []},  # empty: the first leaf with a diff; or {"rack": "rack1"}
    "wave_size": 4,
    "max_spines_drained": 1,
    "max_spine_fraction": None,  # e.g. 0.25: never more than a quarter of the spines drained at once
    "soak_s": 5,
    "converge_timeout_s": 60,
    "checks": ["static", "rehearsal", "bgp", "evpn", "ping", "mtu"],
    "redundant_pairs": [],
    "target_version": "",
    "devices": [],  # rolling upgrade: which devices (empty: every spine)
}
TWIN_PREFIX = re.compile(r"[a-z][a-z0-9]{2,15}")  # as labs.topology: it becomes part of paths and netns names
KNOWN_CHECKS = {"static", "rehearsal", "bgp", "evpn", "ping", "mtu", "health"}


def lease_seconds() -> int:
    """How long a runner's claim on a rollout lasts without renewal (renewed at every step boundary)."""
    return int(getattr(settings, "FT_ROLLOUT_LEASE_S", 0) or os.environ.get("FT_ROLLOUT_LEASE_S", 60))


# --------------------------------------------------------------------------------------------- change sets


def changeset_create(*, name: str, intended: Mapping[str, Mapping], driver_for: Callable[[str], DeviceDriver],
                     fabric_name: str = "", compile_run_id: int | None = None, user=None) -> ChangeSet:
    """``intended``: hostname -> {"files": {name: text}, "platform", "role", "rack", "driver", "structured"}.

    Reads every device's running config through its driver (concurrently), diffs it against the intended files
    and stores both; devices without a diff are kept (has_diff False, no rollback copy) and skipped by the
    pipelines. Nothing is saved unless every device could be read."""
    if not intended:
        raise IntentValidationError(FieldError("intended", {}, "a change set needs at least one device"))

    def read(hostname: str) -> tuple[str, dict, str]:
        driver = driver_for(hostname)
        try:
            with driver:
                running = driver.normalize(driver.get_running_config())
                wanted = driver.normalize(dict(intended[hostname]["files"]))
                diff = driver.planned_diff(running, wanted)  # what the push would send (SONiC: merged tables kept)
        except DriverError as exc:
            return hostname, {}, str(exc)
        return hostname, {"running": running, "intended": wanted, "diff": diff}, ""

    with ThreadPoolExecutor(max_workers=min(READ_PARALLELISM, len(intended))) as pool:
        results = list(pool.map(read, sorted(intended)))
    errors = [FieldError(f"devices[{hostname}]", hostname, error) for hostname, _, error in results if error]
    if errors:
        raise IntentValidationError(errors)
    rows = []
    for hostname, configs, _ in results:
        spec = intended[hostname]
        running, wanted, diff = configs["running"], configs["intended"], configs["diff"]
        rows.append(ChangeSetDevice(
            hostname=hostname, role=spec.get("role", ""), rack=spec.get("rack", ""), platform=spec.get("platform", ""),
            driver=spec.get("driver", DriverChoices.TWIN), intended_files=wanted,
            intended_hash=config_hash(wanted), running_files=running if diff else {},
            running_hash=config_hash(running), diff=diff, has_diff=bool(diff),
            structured=spec.get("structured") or {}))
    with transaction.atomic():
        change_set = ChangeSet.objects.create(name=name, fabric_name=fabric_name, compile_run_id=compile_run_id,
                                              created_by=user)
        for row in rows:
            row.change_set = change_set
        ChangeSetDevice.objects.bulk_create(rows)
        audit_record(action=AuditActionChoices.CREATE, instance=change_set, user=user,
                     changes={"devices": len(rows), "with_diff": sum(row.has_diff for row in rows)})
    return change_set


def changeset_create_for_twin(*, name: str, prefix: str, intended_files: Mapping[str, Mapping[str, str]],
                              roles: Mapping[str, str] | None = None, state_dir: str | None = None,
                              user=None) -> ChangeSet:
    from .drivers import driver_for_twin

    roles = roles or {}
    intended = {host: {"files": files, "platform": "frr", "role": roles.get(host, ""), "driver": DriverChoices.TWIN}
                for host, files in intended_files.items()}
    return changeset_create(name=name, intended=intended, user=user,
                            driver_for=lambda host: driver_for_twin(prefix, host, state_dir))


def changeset_create_from_compile_run(*, compile_run_id: int, target: str, name: str = "",
                                      twin_prefix: str = "", twin_state_dir: str | None = None,
                                      user=None) -> ChangeSet:
    """The intents app's compile run -> change set. Twin target: the FRR platform files of every device, read
    from the twin; production: each device's own platform, read through its DeviceEndpoint."""
    from intents.models import CompileRun

    from .drivers import driver_for_endpoint, driver_for_twin

    run = CompileRun.objects.select_related("fabric_intent").filter(pk=compile_run_id).first()
    if run is None:
        raise IntentValidationError(FieldError("compile_run", compile_run_id, "no such compile run"))
    configs = list(run.device_configs.all())
    intended: dict[str, dict] = {}
    if target == RolloutTargetChoices.TWIN:
        if not twin_prefix:
            raise IntentValidationError(FieldError("twin_prefix", twin_prefix, "required for a twin change set"))
        for config in configs:
            if config.platform == "frr":
                intended[config.hostname] = {"files": config.files, "platform": "frr", "driver": DriverChoices.TWIN,
                                             "role": config.structured.get("role", ""),
                                             "structured": config.structured}
        driver_for = lambda host: driver_for_twin(twin_prefix, host, twin_state_dir)  # noqa: E731
    else:
        endpoints = {endpoint.hostname: endpoint for endpoint in DeviceEndpoint.objects.all()}
        for config in configs:
            if config.platform == "frr" or config.platform != config.structured.get("platform", config.platform):
                continue
            endpoint = endpoints.get(config.hostname)
            if endpoint is None:
                raise IntentValidationError(FieldError(f"devices[{config.hostname}]", config.hostname,
                                                       "no DeviceEndpoint: how to reach this device is unknown"))
            intended[config.hostname] = {"files": config.files, "platform": config.platform, "driver": endpoint.driver,
                                         "role": config.structured.get("role", ""), "structured": config.structured}
        driver_for = lambda host: driver_for_endpoint(endpoints[host])  # noqa: E731
    return changeset_create(name=name or f"compile run {run.pk}", intended=intended, driver_for=driver_for,
                            fabric_name=str(run.fabric_intent), compile_run_id=run.pk, user=user)


# --------------------------------------------------------------------------------------------- rollouts


def _policy_errors(policy: dict, kind: str) -> list[FieldError]:
    errors = []
    for key in policy:
        if key not in DEFAULT_POLICY and key not in ("twin_prefix", "twin_state_dir"):
            errors.append(FieldError(f"policy.{key}", policy[key], f"unknown policy key; known: {sorted(DEFAULT_POLICY)}"))
    for key, low in (("wave_size", 1), ("max_spines_drained", 1), ("soak_s", 0), ("converge_timeout_s", 1)):
        value = policy.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            errors.append(FieldError(f"policy.{key}", value, f"must be an integer >= {low}"))
    checks = policy.get("checks")
    if not isinstance(checks, list) or any(not isinstance(check, str) or check not in KNOWN_CHECKS for check in checks):
        errors.append(FieldError("policy.checks", checks, f"must be a list drawn from {sorted(KNOWN_CHECKS)}"))
    canary = policy.get("canary")
    if not isinstance(canary, dict) or set(canary) - {"devices", "rack"}:
        errors.append(FieldError("policy.canary", canary, 'use {"devices": [...]} or {"rack": "<rack>"}'))
    elif not _string_list(canary.get("devices", [])) or not isinstance(canary.get("rack", ""), str):
        errors.append(FieldError("policy.canary", canary, "devices must be a list of hostnames, rack a name"))
    pairs = policy.get("redundant_pairs")
    if not isinstance(pairs, list) or any(not _string_list(pair) or len(pair) != 2 for pair in pairs):
        errors.append(FieldError("policy.redundant_pairs", pairs, "must be a list of [device, device] pairs"))
    if not _string_list(policy.get("devices")):
        errors.append(FieldError("policy.devices", policy.get("devices"), "must be a list of hostnames"))
    for key in ("target_version", "twin_prefix", "twin_state_dir"):
        if key in policy and policy[key] is not None and not isinstance(policy[key], str):
            errors.append(FieldError(f"policy.{key}", policy[key], "must be a string"))
    fraction = policy.get("max_spine_fraction")
    if fraction is not None and (isinstance(fraction, bool) or not isinstance(fraction, (int, float))
                                 or not 0 < fraction <= 1):
        errors.append(FieldError("policy.max_spine_fraction", fraction, "must be a number in (0, 1]"))
    prefix = policy.get("twin_prefix")
    if isinstance(prefix, str) and prefix and not TWIN_PREFIX.fullmatch(prefix):
        errors.append(FieldError("policy.twin_prefix", prefix, "a twin prefix is 3-16 lowercase letters/digits"))
    version = policy.get("target_version")
    problem = name_problem(VERSION, version, blank=True) if isinstance(version, str) else None
    if problem:  # compiler.names: "4.1\nreload now" is not a version (it would reach a device's install command)
        errors.append(FieldError("policy.target_version", version, problem))
    canary_policy = policy.get("canary") if isinstance(policy.get("canary"), dict) else {}
    for field, hosts in (("policy.devices", policy.get("devices")), ("policy.canary.devices", canary_policy.get("devices"))):
        for host in hosts if _string_list(hosts) else ():  # the hostname grammar, as in the inventory
            problem = name_problem(HOSTNAME, host)
            if problem:
                errors.append(FieldError(field, host, problem))
    if kind == RolloutKindChoices.ROLLING_UPGRADE and not policy.get("target_version"):
        errors.append(FieldError("policy.target_version", policy.get("target_version"),
                                 "a rolling upgrade needs the version to install"))
    return errors


def _string_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _topology_errors(topology) -> list[FieldError]:
    if not isinstance(topology, dict) or not isinstance(topology.get("roles"), dict):
        return [FieldError("topology", topology, 'expected {"roles": {device: role}, "links": [[a, b], ...]}')]
    roles, links = topology["roles"], topology.get("links")
    errors = [FieldError(f"topology.roles.{name}", role, "role must be a string")
              for name, role in roles.items() if not isinstance(role, str)]
    if not isinstance(links, list) or any(not _string_list(link) or len(link) != 2 for link in links):
        return errors + [FieldError("topology.links", links, "must be a list of [device, device] pairs")]
    unknown = sorted({name for link in links for name in link if name not in roles})
    if unknown:
        errors.append(FieldError("topology.links", unknown[:10], "devices missing from topology.roles"))
    return errors


def _canary_plan(change_set: ChangeSet, policy: dict) -> dict:
    devices = list(change_set.devices.filter(has_diff=True).order_by("hostname").values("hostname", "role", "rack"))
    names = [device["hostname"] for device in devices]
    canary_spec = policy["canary"]
    if canary_spec.get("devices"):
        unknown = [name for name in canary_spec["devices"] if name not in names]
        if unknown:
            raise IntentValidationError(FieldError("policy.canary.devices", unknown,
                                                   "not devices with a diff in this change set"))
        canary = list(canary_spec["devices"])
    elif canary_spec.get("rack"):
        canary = [device["hostname"] for device in devices if device["rack"] == canary_spec["rack"]]
        if not canary:
            raise IntentValidationError(FieldError("policy.canary.rack", canary_spec["rack"],
                                                   "no device with a diff in this rack"))
    else:
        leaves = [device["hostname"] for device in devices if device["role"] == "leaf"]
        canary = (leaves or names)[:1]
    rest = [name for name in names if name not in canary]
    size = policy["wave_size"]
    waves = [canary] + [rest[index:index + size] for index in range(0, len(rest), size)] if names else []
    skipped = list(change_set.devices.filter(has_diff=False).values_list("hostname", flat=True))
    return {"waves": waves, "unchanged": skipped}


def rollout_create(*, name: str, kind: str, target: str, policy: dict | None = None, change_set: ChangeSet | None = None,
                   topology: dict | None = None, user=None) -> Rollout:
    """Validate the policy, fix the plan (the waves that will run, what approval approves) and save.

    Production rollouts start in awaiting_approval; twin rollouts in pending. For a rolling upgrade,
    ``topology`` = {"roles": {device: role}, "links": [[a, b], ...]} (derived from the twin when omitted)."""
    errors = []
    if kind not in RolloutKindChoices.values:
        errors.append(FieldError("kind", kind, f"must be one of {RolloutKindChoices.values}"))
    if target not in RolloutTargetChoices.values:
        errors.append(FieldError("target", target, f"must be one of {RolloutTargetChoices.values}"))
    if policy is not None and not isinstance(policy, dict):
        errors.append(FieldError("policy", policy, "must be an object"))
        policy = {}
    merged = {**DEFAULT_POLICY, **(policy or {})}
    errors += _policy_errors(merged, kind)
    if kind == RolloutKindChoices.CANARY_PUSH and change_set is None:
        errors.append(FieldError("change_set", None, "a canary push needs a change set"))
    if target == RolloutTargetChoices.TWIN and not merged.get("twin_prefix"):
        errors.append(FieldError("policy.twin_prefix", merged.get("twin_prefix"), "a twin rollout names its twin"))
    if errors:
        raise IntentValidationError(errors)
    if kind == RolloutKindChoices.CANARY_PUSH:
        plan = _canary_plan(change_set, merged)
    else:
        from .pipelines.upgrade import plan_upgrade

        if topology is None and target == RolloutTargetChoices.TWIN:
            topology = twin_topology_roles_links(merged["twin_prefix"], merged.get("twin_state_dir"))
        if not topology:
            raise IntentValidationError(FieldError("topology", topology, "a rolling upgrade needs roles and links"))
        topology_errors = _topology_errors(topology)
        if topology_errors:
            raise IntentValidationError(topology_errors)
        plan = plan_upgrade(roles=topology["roles"], links=[tuple(link) for link in topology["links"]],
                            devices=merged["devices"], max_spines_drained=merged["max_spines_drained"],
                            wave_size=merged["wave_size"], redundant_pairs=[tuple(p) for p in merged["redundant_pairs"]],
                            max_spine_fraction=merged["max_spine_fraction"])
    initial = State.AWAITING_APPROVAL if target == RolloutTargetChoices.PRODUCTION else State.PENDING
    with transaction.atomic():
        # started_by is the creator (never changed later): rollout_approve refuses the creator as approver.
        rollout = Rollout.objects.create(name=name, kind=kind, target=target, policy=merged, plan=plan,
                                         change_set=change_set, state=initial, started_by=user)
        audit_record(action=AuditActionChoices.ROLLOUT, instance=rollout, user=user,
                     changes={"state": initial, "plan": plan}, message="created")
    return rollout


def twin_topology_roles_links(prefix: str, state_dir: str | None = None) -> dict:
    from labs.runtime import TwinState

    state = TwinState.load(prefix, state_dir)
    if state is None:
        raise IntentValidationError(FieldError("policy.twin_prefix", prefix, "no running twin with this prefix"))
    topology = state.topology_obj()
    return {"roles": {node.name: node.role for node in topology.nodes},
            "links": [[link.a_node, link.b_node] for link in topology.links]}


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


def rollout_approve(*, rollout: Rollout, user) -> Rollout:
    """A second person approves: the approver holds the production capability (twin.policy) and is not the user
    who created the rollout (``started_by`` is set at creation and never changed; see rollout_create)."""
    if not user_has(user, APPROVE_PRODUCTION):
        raise PermissionDenied(f"approving rollout {rollout.pk} needs the {APPROVE_PRODUCTION!r} permission "
                               f"(the admin role)")
    if rollout.started_by_id is None:
        raise PermissionDenied(f"rollout {rollout.pk} has no recorded creator, so no second person can approve it: "
                               f"create it again naming its creator (API/UI log-in, or --user)")
    if rollout.started_by_id == user.pk:
        raise PermissionDenied(f"rollout {rollout.pk} was created by {user}: a second person must approve it")
    return rollout_transition(rollout_id=rollout.pk, to_state=State.PENDING, user=user, message="approved",
                              expected_from=(State.AWAITING_APPROVAL,), approved_by=user, approved_at=timezone.now())


def rollout_start(*, rollout: Rollout, user=None, enqueue: bool = True) -> Rollout:
    """Start (pending) or resume (paused). Production needs an approval (by a second person) first. Enqueues the
    Celery task."""
    rollout.refresh_from_db()
    if rollout.target == RolloutTargetChoices.PRODUCTION and user is not None \
            and not user_has(user, APPROVE_PRODUCTION):
        # the same rule as the API and UI (twin.policy.ROLLOUT_ACTIONS), so `manage.py rollout start --user` obeys it
        raise PermissionDenied(f"starting production rollout {rollout.pk} needs the {APPROVE_PRODUCTION!r} "
                               f"permission (the admin role)")
    if rollout.target == RolloutTargetChoices.PRODUCTION and rollout.approved_by_id is None:
        raise RolloutStateError(f"rollout {rollout.pk}: production rollouts must be approved by an admin before start")
    rollout = rollout_transition(rollout_id=rollout.pk, to_state=State.RUNNING, user=user,
                                 message="resumed" if rollout.state == State.PAUSED else "started",
                                 expected_from=(State.PENDING, State.PAUSED))
    if enqueue:
        rollout_enqueue(rollout=rollout)
    return rollout


def task_options() -> dict:
    """FT_CHANGES_QUEUE routes rollout tasks to a dedicated queue (a worker started with ``-Q <queue>``)."""
    queue = os.environ.get("FT_CHANGES_QUEUE", "")
    return {"queue": queue} if queue else {}


def rollout_enqueue(*, rollout: Rollout, countdown: float = 0) -> None:
    from .tasks import rollout_run

    # After commit: the worker must see the running state (and never a rollback of it).
    transaction.on_commit(lambda: rollout_run.apply_async(args=[rollout.pk], countdown=countdown, **task_options()))


def rollout_pause(*, rollout: Rollout, user=None) -> Rollout:
    """Takes effect at the next step boundary (the runner re-reads the state before each step)."""
    return rollout_transition(rollout_id=rollout.pk, to_state=State.PAUSED, user=user, message="pause requested",
                              expected_from=(State.RUNNING,))


def rollout_cancel(*, rollout: Rollout, user=None) -> Rollout:
    """Cancelled before a step boundary: devices already changed keep the new config (no automatic rollback)."""
    return rollout_transition(rollout_id=rollout.pk, to_state=State.CANCELLED, user=user, message="cancelled")


# --------------------------------------------------------------------------------------------- leases


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


def rollouts_resume_stalled() -> list[int]:
    """Re-enqueue running rollouts whose runner died (lease expired or about to): called when a worker starts and
    by beat. A duplicate enqueue is harmless: the lease lets only one runner work on a rollout."""
    resumed = []
    now = timezone.now()
    for rollout in Rollout.objects.filter(state=State.RUNNING):
        remaining = (rollout.lease_expires_at - now).total_seconds() if rollout.lease_expires_at else 0
        rollout_enqueue_now(rollout_id=rollout.pk, countdown=max(0.0, remaining) + 0.5)
        resumed.append(rollout.pk)
    return resumed


def rollout_enqueue_now(*, rollout_id: int, countdown: float = 0) -> None:
    from .tasks import rollout_run

    rollout_run.apply_async(args=[rollout_id], countdown=countdown, **task_options())


def new_runner_id() -> str:
    return uuid.uuid4().hex


# --------------------------------------------------------------------------------------------- drift


def drift_check(*, hostnames_drivers: Mapping[str, Callable[[], DeviceDriver]], intended: Mapping[str, Mapping[str, str]],
                change_set: ChangeSet | None = None,
                fabric_intended: Mapping[str, Mapping[str, str]] | None = None) -> list[DriftRecord]:
    """Read each device's running config through its driver and record drift against the intended files: the text
    diff, the field-level differences (compiler.parse.drift) and the errors the static checks raise on the running
    state and not on the intended one. ``fabric_intended`` (every device's intended files, default ``intended``)
    stands in for the devices not read, so the running-state checks see a whole fabric."""

    parsed_running: dict[str, ParsedDevice] = {}

    def check(hostname: str) -> DriftRecord:
        wanted = intended[hostname]
        try:
            with hostnames_drivers[hostname]() as driver:
                running = driver.normalize(driver.get_running_config())
                wanted = driver.normalize(dict(wanted))
                diff = driver.planned_diff(running, wanted)
        except DriverError as exc:
            return DriftRecord(hostname=hostname, intended_hash=config_hash(dict(wanted)), error=str(exc),
                               change_set=change_set)
        try:
            fields, parsed_running[hostname] = field_drift(hostname, dict(wanted), dict(running))
            differences = [item.as_dict() for item in fields]
        except FabricTwinError as exc:  # a running config no parser reads: said, not hidden
            differences = [{"path": "", "intended": None, "running": None,
                            "message": f"{hostname}: running config not parsed: {exc}"}]
        return DriftRecord(hostname=hostname, intended_hash=config_hash(wanted), running_hash=config_hash(running),
                           drifted=bool(diff), diff=diff, differences=differences, change_set=change_set)

    names = sorted(intended)
    if not names:
        return []
    with ThreadPoolExecutor(max_workers=min(READ_PARALLELISM, len(names))) as pool:
        records = list(pool.map(check, names))
    errors = _running_state_errors(fabric_intended or intended, parsed_running)
    for record in records:
        record.running_errors = errors.get(record.hostname, [])
    return DriftRecord.objects.bulk_create(records)


def _running_state_errors(fabric_intended: Mapping[str, Mapping[str, str]],
                          parsed_running: dict[str, ParsedDevice]) -> dict[str, list[dict]]:
    """The static checks on the fabric as it runs (validators.configs.running_state_errors); configs that do not
    parse leave the running-state checks out rather than failing the drift check."""
    if not parsed_running:
        return {}
    try:
        intended_devices = {host: parse_device(dict(files), hostname_hint=host)
                            for host, files in fabric_intended.items()}
        return running_state_errors(intended_devices, parsed_running)
    except FabricTwinError as exc:
        logger.warning("drift: running-state checks skipped: %s", exc)
        return {}


def drift_detect_all() -> list[DriftRecord]:
    """Beat entry: for every device that has an endpoint, compare the config deployed by the last successful
    rollout (or the last change set) with what the device runs now."""
    from .drivers import driver_for_endpoint
    from .selectors import intended_configs_latest

    intended = intended_configs_latest()
    endpoints = {endpoint.hostname: endpoint for endpoint in DeviceEndpoint.objects.filter(hostname__in=list(intended))}
    drivers = {host: (lambda endpoint=endpoint: driver_for_endpoint(endpoint)) for host, endpoint in endpoints.items()}
    return drift_check(hostnames_drivers=drivers, intended={host: intended[host][1] for host in endpoints},
                       fabric_intended={host: files for host, (_, files) in intended.items()})


def endpoint_create(*, hostname: str, driver: str, address: str, username: str = "", password: str = "",
                    **extra) -> DeviceEndpoint:
    from .credentials import endpoint_set_password

    if driver not in DriverChoices.values:
        raise IntentValidationError(FieldError("driver", driver, f"must be one of {DriverChoices.values}"))
    endpoint = DeviceEndpoint(hostname=hostname, driver=driver, address=address, username=username, **extra)
    _endpoint_check_options(endpoint)
    endpoint_set_password(endpoint, password)
    endpoint.full_clean()
    endpoint.save()
    return endpoint


@transaction.atomic
def endpoint_update(*, endpoint: DeviceEndpoint, values: Mapping, password: str | None = None) -> DeviceEndpoint:
    """Change an endpoint. ``password=None`` keeps the stored one ("" clears it); secrets in ``optional_args``
    sent back as ``***`` (as the API shows them) keep their stored values."""
    from .credentials import endpoint_set_password, options_keep_redacted

    if "driver" in values and values["driver"] not in DriverChoices.values:
        raise IntentValidationError(FieldError("driver", values["driver"], f"must be one of {DriverChoices.values}"))
    for name, value in values.items():
        if name == "optional_args":
            value = options_keep_redacted(value or {}, endpoint.optional_args)
        setattr(endpoint, name, value)
    if password is not None:
        endpoint_set_password(endpoint, password)
    _endpoint_check_options(endpoint)
    endpoint.full_clean()
    endpoint.save()
    return endpoint


def _endpoint_check_options(endpoint: DeviceEndpoint) -> None:
    """The drivers validate their own optional_args when built (no connection is made): refuse bad ones now, by
    field and value, instead of at the first rollout step."""
    from .drivers.napalm_eos import NapalmEosDriver
    from .drivers.netmiko_sonic import NetmikoSonicDriver

    options = endpoint.optional_args or {}
    if not isinstance(options, dict):
        raise IntentValidationError(FieldError("optional_args", options, "must be a JSON object"))
    try:
        if endpoint.driver == DriverChoices.NETMIKO_SONIC:
            NetmikoSonicDriver(endpoint.hostname, endpoint.address, endpoint.username, optional_args=options)
        elif endpoint.driver in (DriverChoices.NAPALM_EOS, DriverChoices.NAPALM_MOCK):
            NapalmEosDriver(endpoint.hostname, endpoint.address, endpoint.username, "", optional_args=options)
    except DriverError as exc:
        raise IntentValidationError(FieldError("optional_args", options, str(exc))) from exc
