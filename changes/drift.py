"""Drift detection: read each device's running config through its driver and record how it differs from the
config deployed last (Celery beat runs ``drift_detect_all``: changes.tasks.drift_detect): the text diff, the
field-level differences (compiler.parse.drift) and the errors the static checks raise on the running state."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor

from compiler.errors import DriverError, FabricTwinError
from compiler.parse import ParsedDevice, parse_device
from compiler.parse.drift import field_drift
from validators.configs import running_state_errors

from .drivers import DeviceDriver, config_hash, driver_for_endpoint
from .models import ChangeSet, DeviceEndpoint, DriftRecord
from .selectors import intended_configs_latest

logger = logging.getLogger(__name__)
READ_PARALLELISM = 16  # devices read concurrently when building a change set or checking drift (I/O bound)


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
    intended = intended_configs_latest()
    endpoints = {endpoint.hostname: endpoint for endpoint in DeviceEndpoint.objects.filter(hostname__in=list(intended))}
    drivers = {host: (lambda endpoint=endpoint: driver_for_endpoint(endpoint)) for host, endpoint in endpoints.items()}
    return drift_check(hostnames_drivers=drivers, intended={host: intended[host][1] for host in endpoints},
                       fabric_intended={host: files for host, (_, files) in intended.items()})
