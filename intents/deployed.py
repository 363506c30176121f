"""What each switch of a running twin runs, as ``DeployedConfig`` rows with target ``twin`` (issue #28 point 4):
the same record of deployed configs as production devices have, so a diff reads one table and intents never
imports the twins app. The twins app writes them (at boot, after every push or rollback on the twin) and clears
them when the twin stops running, so a twin's rows exist exactly while it runs.

A row's entry, as the twins app and its API show it per switch: ``{compile_run, sha256, source (boot | rollout |
rollback), rollout, at}``, plus ``previous`` (what it ran before) after a rollout's push.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.db import transaction

from .choices import DeployedSourceChoices, DeployedTargetChoices
from .models import CompileRun, DeployedConfig, DeviceConfig
from .selectors import device_config_twin_source

TWIN = DeployedTargetChoices.TWIN


def _twin_sources(*, run_ids: Iterable[int], hostnames: Iterable[str]) -> dict[tuple[int, str], DeviceConfig]:
    """(compile run, hostname) -> the stored config the twin runs for it (``device_config_twin_source``)."""
    by_switch: dict[tuple[int, str], dict[str, DeviceConfig]] = {}
    for row in DeviceConfig.objects.filter(run_id__in=set(run_ids), hostname__in=set(hostnames)).defer("files"):
        by_switch.setdefault((row.run_id, row.hostname), {})[row.platform] = row
    return {key: source for key, rows in by_switch.items() if (source := device_config_twin_source(rows=rows))}


def deployed_twin_boot(*, fabric_intent_id: int, twin_id: int, run: CompileRun, hostnames: Iterable[str]) -> None:
    """Every booted switch of the twin runs ``run``'s config (sha256: its frr rendering's, as the compile stored
    it); rows of an earlier boot of the twin are replaced."""
    hostnames = sorted(set(hostnames))
    sources = _twin_sources(run_ids={run.pk}, hostnames=hostnames)
    hashes = dict(DeviceConfig.objects.filter(run=run, platform="frr", hostname__in=hostnames)
                  .values_list("hostname", "sha256"))
    with transaction.atomic():
        DeployedConfig.objects.filter(target=TWIN, twin=twin_id).delete()
        DeployedConfig.objects.bulk_create([
            DeployedConfig(fabric_intent_id=fabric_intent_id, target=TWIN, twin=twin_id, hostname=host,
                           platform=source.platform if (source := sources.get((run.pk, host))) else "frr",
                           device_config=source, sha256=hashes.get(host, ""), source=DeployedSourceChoices.BOOT)
            for host in hostnames])


def deployed_twin_record(*, fabric_intent_id: int, twin_id: int, hostname: str, compile_run_id: int | None,
                         sha256: str, source: str, rollout_id: int | None,
                         previous: Mapping | None = None) -> DeployedConfig:
    """Switch ``hostname`` of the twin now runs ``compile_run_id``'s config (None: files from no compile run)."""
    config = (_twin_sources(run_ids={compile_run_id}, hostnames={hostname}).get((compile_run_id, hostname))
              if compile_run_id is not None else None)
    row, _ = DeployedConfig.objects.update_or_create(
        target=TWIN, twin=twin_id, hostname=hostname,
        defaults={"fabric_intent_id": fabric_intent_id, "platform": config.platform if config else "frr",
                  "device_config": config, "sha256": sha256, "source": source, "deployed_by_rollout": rollout_id,
                  "previous": dict(previous or {})})
    return row


def deployed_twin_clear(*, twin_id: int) -> int:
    """The twin stopped running: its switches run nothing any more."""
    deleted, _ = DeployedConfig.objects.filter(target=TWIN, twin=twin_id).delete()
    return deleted


def deployed_on_twins(*, twin_ids: Iterable[int]) -> dict[int, dict[str, dict]]:
    """Twin id -> hostname -> what that switch runs (the entry described above), in one query."""
    out: dict[int, dict[str, dict]] = {}
    rows = (DeployedConfig.objects.filter(target=TWIN, twin__in=set(twin_ids))
            .order_by("twin", "hostname")
            .values_list("twin", "hostname", "device_config__run_id", "sha256", "source", "deployed_by_rollout",
                         "deployed", "previous"))
    for twin_id, hostname, run_id, sha256, source, rollout_id, at, previous in rows:
        entry = {"compile_run": run_id, "sha256": sha256, "source": source, "rollout": rollout_id,
                 "at": at.isoformat()}
        if source == DeployedSourceChoices.ROLLOUT:
            entry["previous"] = previous
        out.setdefault(twin_id, {})[hostname] = entry
    return out


def deployed_on_twin(*, twin_id: int) -> dict[str, dict]:
    """Hostname -> what that switch of the twin runs (empty: the twin is not running)."""
    return deployed_on_twins(twin_ids=[twin_id]).get(twin_id, {})
