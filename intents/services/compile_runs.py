"""Compile runs: the run record, compiling a fabric (or some of its devices), the stored DeviceConfig rows and
which of them are deployed."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from django.db import connection, transaction

from common.runs import run_execute
from compiler import api as compiler_api
from compiler import model as core
from compiler.adopt.carry import with_carried
from compiler.errors import FieldError, InputError
from compiler.natural import natural_key
from compiler.validate import check_intent
from inventory.models import Switch

from ..adapters import carried_blocks, snapshot_sha256
from ..choices import DeployedTargetChoices
from ..models import CompileRun, DeployedConfig, DeviceConfig, FabricIntent
from .allocations import allocations_sync


def compile_run_create(*, fabric_intent: FabricIntent, platforms: Iterable[str] | None = None,
                       devices: Iterable[str] | None = None) -> CompileRun:
    """Compile now, in this process: store the run and every device's configs; returns the finished run."""
    run = compile_run_prepare(fabric_intent=fabric_intent, platforms=platforms, devices=devices)
    return compile_run_execute(run=run)


def compile_run_prepare(*, fabric_intent: FabricIntent, platforms: Iterable[str] | None = None,
                        devices: Iterable[str] | None = None, requested_by=None) -> CompileRun:
    """A pending run record (the API hands its id back before a Celery worker executes it). A request naming an
    unknown platform or device is refused here, before any row exists: bad input leaves no failed run behind."""
    platforms = list(dict.fromkeys(platforms or ()))
    unknown = [platform for platform in platforms if platform not in core.Platform.ALL]
    if unknown:
        raise InputError([FieldError("platforms", platform, f"unknown platform; one of "
                                                                       f"{', '.join(core.Platform.ALL)}")
                                     for platform in unknown])
    devices = list(dict.fromkeys(devices or ()))
    known = set(Switch.objects.filter(fabric_id=fabric_intent.fabric_id, hostname__in=devices)
                .values_list("hostname", flat=True))
    missing = sorted(set(devices) - known, key=natural_key)
    if missing:
        raise InputError([FieldError("devices", name, f"no switch {name} in fabric "
                                                                 f"{fabric_intent.fabric.name}") for name in missing])
    requested_by = requested_by if requested_by is not None and requested_by.is_authenticated else None
    return CompileRun.objects.create(fabric_intent=fabric_intent, platforms=platforms, devices=devices,
                                     requested_by=requested_by)


def compile_run_execute(*, run: CompileRun) -> CompileRun:
    """Run a prepared compile: sync allocations, compile, store DeviceConfig rows; failures are recorded.

    ``common.runs.run_execute`` owns the lifecycle: domain errors (invalid intent, exhausted pool, unknown device)
    mark the run failed with the field errors; anything else also marks it failed and is re-raised (a bug must
    be visible, not swallowed).
    """
    with run_execute(run, update_fields=("device_count", "snapshot_sha256")):
        configs = _compile_device_configs(run)
        with transaction.atomic():
            DeviceConfig.objects.bulk_create(configs, batch_size=_device_config_batch_size())
            run.device_count = len({config.hostname for config in configs})
    return run


def _device_config_batch_size() -> int:
    """Rows per INSERT of DeviceConfig. On PostgreSQL, Django 5.2 inserts multi-row batches through UNNEST of
    arrays, and psycopg escapes every element of a text array with a regex: for megabytes of config text that
    took ~80 % of a compile (measured, 272 devices). Single-row INSERTs send each JSON document as a plain
    parameter instead."""
    return 1 if connection.vendor == "postgresql" else 500


def _compile_device_configs(run: CompileRun) -> list[DeviceConfig]:
    synced = allocations_sync(fabric_intent=run.fabric_intent)
    # The synced allocations are exactly what is stored now: no second read of the database.
    snapshot = dataclasses.replace(synced.snapshot, allocations=synced.allocations)
    run.snapshot_sha256 = snapshot_sha256(snapshot)
    structured, rendered, hashes = compile_devices(snapshot, devices=run.devices, platforms=run.platforms)
    # An adopted fabric's carried lines go back into each device's own platform rendering (compiler.adopt).
    for hostname, blocks in carried_blocks(run.fabric_intent).items():
        own = structured.get(hostname, {}).get("platform")
        if own in rendered.get(hostname, {}):
            files = with_carried(dict(rendered[hostname][own]), blocks)
            rendered[hostname] = {**rendered[hostname], own: files}
            hashes[hostname] = {**hashes[hostname], own: compiler_api.files_sha256(files)}
    return [DeviceConfig(run=run, hostname=hostname, platform=platform, files=dict(files),
                         structured=structured[hostname], sha256=hashes[hostname][platform])
            for hostname, per_platform in rendered.items() for platform, files in per_platform.items()]


def compile_devices(snapshot: core.Snapshot, *, devices: Iterable[str] | None = None,
                    platforms: Iterable[str] | None = None) -> tuple[dict, dict, dict]:
    """(structured, rendered, hashes) of ``devices`` (default all) for ``platforms`` (default own + frr).

    The whole fabric is compiled with ``compiler.api.compile_fabric``; for a subset, facts and structured configs
    are still built for the fabric (a device's config depends on its peers) but only the subset is rendered.
    """
    devices, platforms = list(devices or ()), list(platforms or ()) or None
    unknown = sorted(set(devices) - set(snapshot.inventory.switches_by_name), key=natural_key)
    if unknown:
        raise InputError([FieldError("devices", name, f"no switch {name} in fabric "
                                                                 f"{snapshot.inventory.fabric}") for name in unknown])
    if not devices:
        result = compiler_api.compile_fabric(snapshot, platforms=platforms)
        return dict(result.structured), dict(result.rendered), dict(result.hashes)
    with compiler_api.gc_paused():
        facts = compiler_api.build_facts(snapshot, check_intent(snapshot))
        structured = compiler_api.structured_configs(snapshot, facts)
        rendered, hashes = {}, {}
        for hostname in devices:
            rendered[hostname], hashes[hostname] = {}, {}
            for platform in compiler_api.platforms_for(structured[hostname]["platform"], platforms):
                files = compiler_api.render_device(structured[hostname], platform)
                rendered[hostname][platform] = files
                hashes[hostname][platform] = compiler_api.files_sha256(files)
    return {hostname: structured[hostname] for hostname in devices}, rendered, hashes


@transaction.atomic
def device_configs_mark_deployed(*, run: CompileRun, devices: Iterable[str] | None = None,
                                 rollout_id: int | None = None) -> int:
    """Record that ``run``'s configs (of ``devices``, default all) are live on the devices, pushed by production
    rollout ``rollout_id`` (None: marked by hand): the "diff vs device" baseline of later diffs."""
    configs = run.device_configs.all()
    if devices is not None:
        configs = configs.filter(hostname__in=list(devices))
    count = 0
    for config in configs.only("id", "hostname", "platform"):
        DeployedConfig.objects.update_or_create(
            fabric_intent_id=run.fabric_intent_id, target=DeployedTargetChoices.DEVICE, hostname=config.hostname,
            platform=config.platform, defaults={"device_config": config, "deployed_by_rollout": rollout_id})
        count += 1
    return count
