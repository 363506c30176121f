"""Writes of the change pipelines (HackSoft style: keyword-only, named <entity>_<action>).

Every rollout state change goes through ``rollout_transition`` (changes.lifecycle), which checks
choices.ROLLOUT_TRANSITIONS under a row lock and writes an audit row in the same transaction. Tasks, views and the
management command only call these functions. Imports run one way: services -> tasks (enqueue) -> runner ->
lifecycle; nothing below imports the services.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from common.policy import APPROVE_PRODUCTION, user_has
from common.redaction import config_secrets_shown
from compiler.errors import DriverError, FieldError, InputError
from compiler.model import Role
from intents.models import CompileRun, DeviceConfig
from intents.selectors import device_config_twin_source
from inventory.models import Switch
from twins.checks import twin_node_files_for, twin_topology_roles_links
from twins.models import Twin

from .audit import audit_record
from .choices import (
    AuditActionChoices,
    DriverChoices,
    RolloutKindChoices,
    RolloutStateChoices,
    RolloutTargetChoices,
)
from .credentials import (
    config_refs_compared,
    endpoint_set_password,
    options_keep_redacted,
    running_files_seal,
)
from .drift import READ_PARALLELISM
from .drivers import DeviceDriver, config_hash, driver_for_twin, endpoint_driver_factories, endpoint_twin
from .drivers.netmiko_sonic import NetmikoSonicDriver
from .errors import RolloutStateError
from .lifecycle import rollout_transition
from .models import ChangeSet, ChangeSetDevice, DeviceEndpoint, Rollout
from .pipelines.upgrade import plan_upgrade
from .policy import RolloutPolicy
from .tasks import rollout_enqueue

logger = logging.getLogger(__name__)
State = RolloutStateChoices



# --------------------------------------------------------------------------------------------- change sets


def changeset_create(*, name: str, intended: Mapping[str, Mapping], driver_for: Callable[[str], DeviceDriver],
                     fabric_name: str = "", compile_run_id: int | None = None, twin: Twin | None = None,
                     user=None) -> ChangeSet:
    """``intended``: hostname -> {"files": {name: text}, "platform", "role", "rack", "driver", "structured"};
    ``twin``: the twin the running configs are read from (a twin change set), None for production.

    Reads every device's running config through its driver (concurrently), diffs it against the intended files
    and stores both; devices without a diff are kept (has_diff False, no rollback copy) and skipped by the
    pipelines. Nothing is saved unless every device could be read."""
    if not intended:
        raise InputError(FieldError("intended", {}, "a change set needs at least one device"))

    # Our references resolved here, in the caller's thread (the credential store), for the comparison only.
    comparable = {host: config_refs_compared(dict(spec["files"]), device=host) for host, spec in intended.items()}

    def read(hostname: str) -> tuple[str, dict, str]:
        driver = driver_for(hostname)
        try:
            with driver:
                running = driver.normalize(driver.get_running_config())
                wanted = driver.normalize(dict(intended[hostname]["files"]))
                # what the push would send (SONiC: merged tables kept), every secret as its keyed marker (issue 29)
                diff = driver.planned_diff(config_secrets_shown(running),
                                           config_secrets_shown(driver.normalize(comparable[hostname])))
        except DriverError as exc:
            return hostname, {}, str(exc)
        return hostname, {"running": running, "intended": wanted, "diff": diff}, ""

    with ThreadPoolExecutor(max_workers=min(READ_PARALLELISM, len(intended))) as pool:
        results = list(pool.map(read, sorted(intended)))
    errors = [FieldError(f"devices[{hostname}]", hostname, error) for hostname, _, error in results if error]
    if errors:
        raise InputError(errors)
    rows = []
    for hostname, configs, _ in results:
        spec = intended[hostname]
        running, wanted, diff = configs["running"], configs["intended"], configs["diff"]
        rows.append(ChangeSetDevice(
            hostname=hostname, role=spec.get("role", ""), rack=spec.get("rack", ""), platform=spec.get("platform", ""),
            driver=spec.get("driver", DriverChoices.TWIN), intended_files=wanted,
            intended_hash=config_hash(wanted), running_files=running_files_seal(running) if diff else {},
            running_hash=config_hash(running), diff=diff, has_diff=bool(diff),
            structured=spec.get("structured") or {}))
    with transaction.atomic():
        change_set = ChangeSet.objects.create(name=name, fabric_name=fabric_name, compile_run_id=compile_run_id,
                                              twin=twin, created_by=user)
        for row in rows:
            row.change_set = change_set
        ChangeSetDevice.objects.bulk_create(rows)
        audit_record(action=AuditActionChoices.CREATE, instance=change_set, user=user,
                     changes={"devices": len(rows), "with_diff": sum(row.has_diff for row in rows)})
    return change_set


def changeset_create_for_twin(*, name: str, twin: Twin, intended_files: Mapping[str, Mapping[str, str]],
                              roles: Mapping[str, str] | None = None, user=None) -> ChangeSet:
    roles = roles or {}
    intended = {host: {"files": files, "platform": "frr", "role": roles.get(host, ""), "driver": DriverChoices.TWIN}
                for host, files in intended_files.items()}
    return changeset_create(name=name, intended=intended, user=user, twin=twin,
                            driver_for=lambda host: driver_for_twin(twin, host))


def changeset_create_from_compile_run(*, compile_run_id: int, target: str, name: str = "", twin: Twin | None = None,
                                      user=None) -> ChangeSet:
    """The intents app's compile run -> change set. Twin target (``twin``, the handle): per device what the twin
    runs for its own platform's files (twins.checks.twin_node_files_for: frr.conf + Linux plan; its frr rendering
    when the run has no own-platform files), read from the twin; production: each device's own platform, read
    through its DeviceEndpoint."""
    run = CompileRun.objects.select_related("fabric_intent").filter(pk=compile_run_id).first()
    if run is None:
        raise InputError(FieldError("compile_run", compile_run_id, "no such compile run"))
    if target != RolloutTargetChoices.TWIN and twin is not None:
        raise InputError(FieldError("twin", twin.pk, f"a {target} change set reads no twin"))
    configs = list(run.device_configs.all())
    intended: dict[str, dict] = {}
    if target == RolloutTargetChoices.TWIN:
        if twin is None:
            raise InputError(FieldError("twin", None, "a twin change set names its twin (a Twin id, or the "
                                                      "fabric_intent whose running twin it is)"))
        rows_by_host: dict[str, dict[str, DeviceConfig]] = {}
        for config in configs:
            rows_by_host.setdefault(config.hostname, {})[config.platform] = config
        for hostname, rows in rows_by_host.items():
            source = device_config_twin_source(rows=rows)
            if source is None:
                continue
            role = source.structured.get("role", "")
            files = twin_node_files_for(hostname=hostname, role=role, platform=source.platform, files=source.files,
                                    intended=source.structured)
            intended[hostname] = {"files": files, "platform": "frr", "driver": DriverChoices.TWIN, "role": role,
                                  "structured": source.structured}
        driver_for = lambda host: driver_for_twin(twin, host)  # noqa: E731
    else:
        endpoints = {endpoint.hostname: endpoint for endpoint in DeviceEndpoint.objects.all()}
        for config in configs:
            if config.platform == "frr" or config.platform != config.structured.get("platform", config.platform):
                continue
            endpoint = endpoints.get(config.hostname)
            if endpoint is None:
                raise InputError(FieldError(f"devices[{config.hostname}]", config.hostname,
                                                       "no DeviceEndpoint: how to reach this device is unknown"))
            intended[config.hostname] = {"files": config.files, "platform": config.platform, "driver": endpoint.driver,
                                         "role": config.structured.get("role", ""), "structured": config.structured}
        factories = endpoint_driver_factories(endpoints[host] for host in intended)
        driver_for = lambda host: factories[host]()  # noqa: E731
    return changeset_create(name=name or f"compile run {run.pk}", intended=intended, driver_for=driver_for,
                            fabric_name=str(run.fabric_intent), compile_run_id=run.pk, twin=twin, user=user)


# --------------------------------------------------------------------------------------------- rollouts


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


def _canary_plan(change_set: ChangeSet, policy: RolloutPolicy) -> dict:
    devices = list(change_set.devices.filter(has_diff=True).order_by("hostname").values("hostname", "role", "rack"))
    names = [device["hostname"] for device in devices]
    if policy.canary_devices:
        unknown = [name for name in policy.canary_devices if name not in names]
        if unknown:
            raise InputError(FieldError("policy.canary.devices", unknown,
                                                   "not devices with a diff in this change set"))
        canary = list(policy.canary_devices)
    elif policy.canary_rack:
        canary = [device["hostname"] for device in devices if device["rack"] == policy.canary_rack]
        if not canary:
            raise InputError(FieldError("policy.canary.rack", policy.canary_rack,
                                                   "no device with a diff in this rack"))
    else:
        leaves = [device["hostname"] for device in devices if device["role"] == Role.LEAF]
        canary = (leaves or names)[:1]
    rest = [name for name in names if name not in canary]
    size = policy.wave_size
    waves = [canary] + [rest[index:index + size] for index in range(0, len(rest), size)] if names else []
    skipped = list(change_set.devices.filter(has_diff=False).values_list("hostname", flat=True))
    return {"waves": waves, "unchanged": skipped}


def _rollout_twin(target: str, twin: Twin | None, change_set: ChangeSet | None) -> tuple[Twin | None,
                                                                                          list[FieldError]]:
    """The twin a rollout pushes to: ``twin``, or the twin its change set was read from; errors name ``twin``."""
    if target != RolloutTargetChoices.TWIN:
        return None, [FieldError("twin", twin.pk, f"a {target} rollout has no twin")] if twin is not None else []
    from_change_set = change_set.twin if change_set is not None else None
    if twin is None and from_change_set is None:
        return None, [FieldError("twin", None, "a twin rollout names its twin (a Twin id, or the fabric_intent "
                                               "whose running twin it is)")]
    if twin is not None and from_change_set is not None and twin.pk != from_change_set.pk:
        return None, [FieldError("twin", twin.pk, f"change set {change_set.pk} was read from twin "
                                                  f"{from_change_set.pk} ({from_change_set.prefix}), not this one")]
    return twin or from_change_set, []


def rollout_create(*, name: str, kind: str, target: str, policy: dict | None = None, change_set: ChangeSet | None = None,
                   topology: dict | None = None, twin: Twin | None = None, user=None) -> Rollout:
    """Validate the policy, fix the plan (the waves that will run, what approval approves) and save.

    Production rollouts start in awaiting_approval; twin rollouts in pending. A twin rollout pushes to ``twin``
    (the handle; default: the twin its change set was read from). For a rolling upgrade, ``topology`` =
    {"roles": {device: role}, "links": [[a, b], ...]} (derived from the twin when omitted)."""
    errors = []
    if kind not in RolloutKindChoices.values:
        errors.append(FieldError("kind", kind, f"must be one of {RolloutKindChoices.values}"))
    if target not in RolloutTargetChoices.values:
        errors.append(FieldError("target", target, f"must be one of {RolloutTargetChoices.values}"))
    if policy is not None and not isinstance(policy, dict):
        errors.append(FieldError("policy", policy, "must be an object"))
        policy = {}
    merged = RolloutPolicy.merged_json(policy or {})
    errors += RolloutPolicy.field_errors(policy or {}, kind=kind)
    if kind == RolloutKindChoices.CANARY_PUSH and change_set is None:
        errors.append(FieldError("change_set", None, "a canary push needs a change set"))
    twin, twin_errors = _rollout_twin(target, twin, change_set)
    errors += twin_errors
    if errors:
        raise InputError(errors)
    checked = RolloutPolicy.from_json(policy or {}, kind=kind)
    if kind == RolloutKindChoices.CANARY_PUSH:
        plan = _canary_plan(change_set, checked)
    else:
        if topology is None and target == RolloutTargetChoices.TWIN:
            topology = twin_topology_roles_links(twin=twin)
        if not topology:
            raise InputError(FieldError("topology", topology, "a rolling upgrade needs roles and links"))
        topology_errors = _topology_errors(topology)
        if topology_errors:
            raise InputError(topology_errors)
        plan = plan_upgrade(roles=topology["roles"], links=[tuple(link) for link in topology["links"]],
                            devices=list(checked.devices), max_spines_drained=checked.max_spines_drained,
                            wave_size=checked.wave_size, redundant_pairs=[tuple(p) for p in checked.redundant_pairs],
                            max_spine_fraction=checked.max_spine_fraction)
    initial = State.AWAITING_APPROVAL if target == RolloutTargetChoices.PRODUCTION else State.PENDING
    with transaction.atomic():
        # started_by is the creator (never changed later): rollout_approve refuses the creator as approver.
        rollout = Rollout.objects.create(name=name, kind=kind, target=target, policy=merged, plan=plan,
                                         change_set=change_set, twin=twin, state=initial, started_by=user)
        audit_record(action=AuditActionChoices.ROLLOUT, instance=rollout, user=user,
                     changes={"state": initial, "plan": plan}, message="created")
    return rollout


def rollout_approve(*, rollout: Rollout, user) -> Rollout:
    """A second person approves: the approver holds the production capability (common.policy) and is not the user
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
        # the same rule as the API and UI (common.policy.ROLLOUT_ACTIONS), so `manage.py rollout start --user` obeys it
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


def rollout_pause(*, rollout: Rollout, user=None) -> Rollout:
    """Takes effect at the next step boundary (the runner re-reads the state before each step)."""
    return rollout_transition(rollout_id=rollout.pk, to_state=State.PAUSED, user=user, message="pause requested",
                              expected_from=(State.RUNNING,))


def rollout_cancel(*, rollout: Rollout, user=None) -> Rollout:
    """Cancelled before a step boundary: devices already changed keep the new config (no automatic rollback)."""
    return rollout_transition(rollout_id=rollout.pk, to_state=State.CANCELLED, user=user, message="cancelled")


# --------------------------------------------------------------------------------------------- leases


# --------------------------------------------------------------------------------------------- drift


def endpoint_create(*, hostname: str, driver: str, address: str, username: str = "", password: str = "",
                    **extra) -> DeviceEndpoint:
    if driver not in DriverChoices.values:
        raise InputError(FieldError("driver", driver, f"must be one of {DriverChoices.values}"))
    endpoint = DeviceEndpoint(hostname=hostname, driver=driver, address=address, username=username, **extra)
    _endpoint_check_platform(endpoint)
    _endpoint_check_options(endpoint)
    endpoint_set_password(endpoint, password)
    endpoint.full_clean()
    endpoint.save()
    return endpoint


@transaction.atomic
def endpoint_update(*, endpoint: DeviceEndpoint, values: Mapping, password: str | None = None) -> DeviceEndpoint:
    """Change an endpoint. ``password=None`` keeps the stored one ("" clears it); secrets in ``optional_args``
    sent back as ``***`` (as the API shows them) keep their stored values."""
    if "driver" in values and values["driver"] not in DriverChoices.values:
        raise InputError(FieldError("driver", values["driver"], f"must be one of {DriverChoices.values}"))
    for name, value in values.items():
        if name == "optional_args":
            value = options_keep_redacted(value or {}, endpoint.optional_args)
        setattr(endpoint, name, value)
    if password is not None:
        endpoint_set_password(endpoint, password)
    _endpoint_check_platform(endpoint)
    _endpoint_check_options(endpoint)
    endpoint.full_clean()
    endpoint.save()
    return endpoint


# Which switch platforms each driver can configure (the files it takes: napalm_eos an EOS startup-config,
# netmiko_sonic config_db.json + frr.conf). The twin runs any platform's config (labs.node_configs); the mock
# replays recorded answers for tests of any platform.
DRIVER_PLATFORMS: dict[str, frozenset[str] | None] = {
    DriverChoices.NAPALM_EOS: frozenset({"eos"}), DriverChoices.NETMIKO_SONIC: frozenset({"sonic"}),
    DriverChoices.TWIN: None, DriverChoices.NAPALM_MOCK: None,
}


def _endpoint_check_platform(endpoint: DeviceEndpoint) -> None:
    """An endpoint whose driver cannot take its switch's config is refused when it is saved, naming both, not at
    the first push (issue #30 point 2). Hostnames the inventory does not know (twin nodes) are not checked."""
    platforms = DRIVER_PLATFORMS.get(endpoint.driver)
    platform = (Switch.objects.filter(hostname=endpoint.hostname).values_list("platform__slug", flat=True).first()
                if platforms is not None else None)
    if platform is not None and platform not in platforms:
        raise InputError(FieldError("driver", endpoint.driver,
                                    f"cannot configure {endpoint.hostname} (platform {platform} in the inventory) "
                                    f"(this driver takes {', '.join(sorted(platforms))}); use "
                                    + " or ".join(sorted(driver for driver, takes in DRIVER_PLATFORMS.items()
                                                         if takes and platform in takes) or ["another platform"])))


def _endpoint_check_options(endpoint: DeviceEndpoint) -> None:
    """The drivers validate their own optional_args when built (no connection is made): refuse bad ones now, by
    field and value, instead of at the first rollout step."""
    from .drivers.napalm_eos import NapalmEosDriver  # lazy: napalm is heavy (~1 s, pulls pyeapi) and EOS-only

    options = endpoint.optional_args or {}
    if not isinstance(options, dict):
        raise InputError(FieldError("optional_args", options, "must be a JSON object"))
    try:
        if endpoint.driver == DriverChoices.NETMIKO_SONIC:
            NetmikoSonicDriver(endpoint.hostname, endpoint.address, endpoint.username, optional_args=options)
        elif endpoint.driver in (DriverChoices.NAPALM_EOS, DriverChoices.NAPALM_MOCK):
            NapalmEosDriver(endpoint.hostname, endpoint.address, endpoint.username, "", optional_args=options)
        elif endpoint.driver == DriverChoices.TWIN:
            endpoint_twin(endpoint.hostname, options)
    except DriverError as exc:
        raise InputError(FieldError("optional_args", options, str(exc))) from exc
