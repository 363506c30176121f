"""Drift detection: read each device's running config through its driver and record how it differs from the
config deployed last (Celery beat runs ``drift_detect_all``: changes.tasks.drift_detect)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor

from compiler.errors import DriverError

from .drivers import DeviceDriver, config_hash, driver_for_endpoint
from .models import ChangeSet, DeviceEndpoint, DriftRecord
from .selectors import intended_configs_latest

READ_PARALLELISM = 16  # devices read concurrently when building a change set or checking drift (I/O bound)


def drift_check(*, hostnames_drivers: Mapping[str, Callable[[], DeviceDriver]], intended: Mapping[str, Mapping[str, str]],
                change_set: ChangeSet | None = None) -> list[DriftRecord]:
    """Read each device's running config through its driver and record drift against the intended files."""

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
        return DriftRecord(hostname=hostname, intended_hash=config_hash(wanted), running_hash=config_hash(running),
                           drifted=bool(diff), diff=diff, change_set=change_set)

    names = sorted(intended)
    if not names:
        return []
    with ThreadPoolExecutor(max_workers=min(READ_PARALLELISM, len(names))) as pool:
        records = list(pool.map(check, names))
    return DriftRecord.objects.bulk_create(records)



def drift_detect_all() -> list[DriftRecord]:
    """Beat entry: for every device that has an endpoint, compare the config deployed by the last successful
    rollout (or the last change set) with what the device runs now."""
    intended = intended_configs_latest()
    endpoints = {endpoint.hostname: endpoint for endpoint in DeviceEndpoint.objects.filter(hostname__in=list(intended))}
    drivers = {host: (lambda endpoint=endpoint: driver_for_endpoint(endpoint)) for host, endpoint in endpoints.items()}
    return drift_check(hostnames_drivers=drivers, intended={host: intended[host][1] for host in endpoints})

