"""Drift detection: read each device's running config through its driver and record how it differs from the
config deployed last (Celery beat runs ``drift_detect_all``: changes.tasks.drift_detect): the text diff, the
field-level differences (compiler.parse.drift), the errors the static checks raise on the running state and the
remediation that brings the device back (``remediation_build``: EOS CLI, SONiC JSON Patch + vtysh, FRR vtysh)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor

from common.redaction import config_secrets_shown, redact_text
from compiler.errors import DriverError, FabricTwinError, FieldError, InputError
from compiler.natural import natural_key
from compiler.parse import ParsedDevice, is_daemons_file, parse_device
from compiler.parse.drift import FieldDrift, field_drift
from compiler.parse.remediate import cli_remediation
from intents.adapters import fabric_snapshot
from intents.services import compile_devices
from validators.configs import parse_configs, running_state_errors

from .credentials import config_refs_compared, config_secrets_compared
from .drivers import DeviceDriver, config_hash, endpoint_driver_factories
from .drivers.config_db import config_db_patch, parse_config_db
from .errors import PushRefused
from .guard import push_guard
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
    names = sorted(intended)
    # Our references resolved here, in the caller's thread (the credential store), for the comparison only.
    resolved = {host: config_refs_compared(dict(intended[host]), device=host) for host in names}

    def check(hostname: str) -> DriftRecord:
        wanted = intended[hostname]
        try:
            with hostnames_drivers[hostname]() as driver:
                # Both sides in the device's comparable form (FRR prints its running config unlike the file it
                # was given): only real changes are diffs, drift items and remediation lines.
                running = driver.comparable(driver.get_running_config())
                hashes = {"intended_hash": config_hash(driver.comparable(dict(wanted))),
                          "running_hash": config_hash(running)}
                wanted = driver.comparable(resolved[hostname])
                # What a push of the intended files would leave (SONiC keeps what its patch merges, EOS its AAA and
                # drain state): the remediation's target, so it never removes what a push keeps.
                target = driver.comparable(driver.effective_after_push(running, wanted))
                # From here on only markers: the device's secrets never reach the record, the diff or the remediation
                # (issue 29); keyed hashes on both sides, so a changed secret is still drift.
                running, wanted, target = (config_secrets_shown(files) for files in (running, wanted, target))
                diff = driver.planned_diff(running, wanted)
        except DriverError as exc:
            return DriftRecord(hostname=hostname, intended_hash=config_hash(dict(intended[hostname])), error=str(exc),
                               change_set=change_set)
        remediation: dict = {}
        try:
            fields, parsed_running[hostname] = field_drift(hostname, dict(wanted), dict(running))
            differences = [item.as_dict() for item in fields]
            if fields:  # only semantic drift is remediated (a reordered or reformatted config is none)
                platform = parsed_running[hostname].platform
                remediation = remediation_build(platform=platform, intended=target, running=running)
                remediation["notes"] += _guard_notes(hostname, platform, running, target)
        except FabricTwinError as exc:  # a running config no parser reads: said, not hidden
            differences = [{"path": "", "intended": None, "running": None,
                            "message": f"{hostname}: running config not parsed: {exc}"}]
        return DriftRecord(hostname=hostname, **hashes, drifted=bool(diff), diff=diff, differences=differences, remediation=remediation,
                           change_set=change_set)

    if not names:
        return []
    with ThreadPoolExecutor(max_workers=min(READ_PARALLELISM, len(names))) as pool:
        records = list(pool.map(check, names))
    errors = _running_state_errors(fabric_intended or intended, parsed_running)
    for record in records:
        record.running_errors = errors.get(record.hostname, [])
    return DriftRecord.objects.bulk_create(records)


def _guard_notes(hostname: str, platform: str, running: Mapping[str, str], target: Mapping[str, str]) -> list[str]:
    """The pre-push guard's verdict on the remediation's target: what applying it would cut (management path, AAA,
    drain state) is said next to the commands, as a push of it would be refused."""
    try:
        push_guard(device=hostname, platform=platform, running=dict(running), effective=dict(target))
    except PushRefused as exc:
        return [f"not safe to apply as is (a push would be refused): {exc}"]
    return []


def _split_files(files: Mapping[str, str]) -> tuple[str, str]:
    """(CLI text, JSON text) of one device's files, told apart by content as the parsers do (names are a hint)."""
    # "\n": FRR's per-daemon files are one text (compiler.parse merges them the same way)
    text = "\n".join(body for body in files.values() if not body.lstrip().startswith("{"))
    document = "".join(body for body in files.values() if body.lstrip().startswith("{"))
    return text, document


def remediation_build(*, platform: str, intended: Mapping[str, str], running: Mapping[str, str]) -> dict:
    """What brings a device running ``running`` back to ``intended``, per platform:

    - ``eos``: ``cli``, EOS commands for a configure session (compiler.parse.remediate);
    - ``sonic``: ``config_db_patch``, the RFC 6902 JSON Patch ``config apply-patch`` takes (the push's own patch,
      changes.drivers.config_db: owned tables made equal, others merged; secrets as keyed markers), and ``cli``,
      the vtysh commands for frr.conf;
    - ``frr``: ``cli``, vtysh commands for frr.conf; ``notes`` says when the Linux plan differs (the twin applies
      the whole plan on a push: it is re-pushed, not patched).

    InputError (field ``platform``) for a platform with no remediation."""
    if platform not in ("eos", "sonic", "frr"):
        raise InputError(FieldError("platform", platform, "no remediation for this platform (eos, sonic, frr)"))
    intended_text, intended_json = _split_files(config_secrets_shown(intended))
    running_text, running_json = _split_files(config_secrets_shown(running))
    out: dict = {"platform": platform, "cli": [], "config_db_patch": [], "notes": []}
    if platform == "eos":
        out["cli"] = cli_remediation(intended_text, running_text, platform="eos")
    else:
        out["cli"] = cli_remediation(intended_text, running_text, platform="frr")
        if platform == "sonic":
            out["config_db_patch"] = config_db_patch(parse_config_db(running_json, what="running config_db.json"),
                                                     parse_config_db(intended_json, what="intended config_db.json"))
        elif json.loads(intended_json or "{}") != json.loads(running_json or "{}"):
            out["notes"].append("linux-plan.json differs: push the intended plan (the twin applies it whole)")
    out["cli"] = [redact_text(line) for line in out["cli"]]  # a remembered secret is never shown
    return out


def push_verify(*, hostname: str, driver: DeviceDriver, pushed: Mapping[str, str],
                platform: str | None = None) -> tuple[list[FieldDrift], int]:
    """After a push: read what the device now runs through its driver, parse it and compare it field by field with
    what the push should have left (``driver.effective_after_push``: the files pushed, plus what a merging push
    keeps; compiler.parse.drift.field_drift, secrets as keyed markers on both sides). Returns the differences in
    what the platform's files carry (a non-empty list fails the push's verification) and how many running lines
    the parser does not model (listed by drift, not compared here: a device prints defaults and carries state the
    push keeps, e.g. platform data, that no rendering states). ParseError when the running config is no config of
    the platform; DriverError when it cannot be read."""
    running = driver.normalize(driver.get_running_config())
    wanted = driver.normalize(driver.effective_after_push(running, dict(pushed)))
    platform = platform or parse_device(dict(wanted), hostname_hint=hostname).platform
    fields, parsed = field_drift(hostname, config_secrets_compared(wanted, device=hostname),
                                 config_secrets_compared(running, device=hostname), platform=platform)
    compared = [item for item in fields if not item.path.startswith("unmodelled ")]
    return compared, len(parsed.unmodelled)


def remediation_text(remediation: Mapping) -> str:
    """The remediation for people (drift command, UI): each part under the tool that applies it."""
    parts = []
    if remediation.get("config_db_patch"):
        parts.append("config apply-patch (RFC 6902 JSON Patch):\n"
                     + json.dumps(remediation["config_db_patch"], indent=2, sort_keys=True))
    if remediation.get("cli"):
        tool = "EOS CLI (configure session)" if remediation.get("platform") == "eos" else "vtysh (configure)"
        parts.append(f"{tool}:\n" + "\n".join(remediation["cli"]))
    parts += list(remediation.get("notes") or [])
    return "\n".join(parts)


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


def drift_between_sets(*, intended: Mapping[str, Mapping[str, str]],
                       running: Mapping[str, Mapping[str, str]]) -> list[dict]:
    """Two config sets compared device by device, without a device or a database: each set is ``{device key: {file:
    text}}`` (compiler.parse.files), matched by the hostname its configs state. Per device: ``state`` (in sync,
    drifted, text differs only, platforms differ, only intended, only running), the field-level ``differences``
    (compiler.parse.drift), the ``remediation`` that takes the running files to the intended ones
    (:func:`remediation_build`) and the errors the static checks raise on the running set and not on the intended
    one. ParseError naming the device and file when a set holds a file no parser reads or a hostname twice."""
    # Both sets as the product may hold them: every secret a keyed marker (a changed one still differs; issue 29).
    intended = {device: config_secrets_shown(files) for device, files in intended.items()}
    running = {device: config_secrets_shown(files) for device, files in running.items()}
    intended_devices, running_devices = parse_configs(dict(intended)), parse_configs(dict(running))
    errors = running_state_errors(intended_devices, running_devices) if running_devices else {}
    out = []
    for host in sorted(set(intended_devices) | set(running_devices), key=natural_key):
        want, have = intended_devices.get(host), running_devices.get(host)
        record: dict = {"hostname": host, "differences": [], "remediation": {}, "running_errors": errors.get(host, []),
                        "intended_files": _listed(want), "running_files": _listed(have)}
        if want is None or have is None:
            record["state"] = "only running" if want is None else "only intended"
        elif want.platform != have.platform:
            record["state"] = "platforms differ"
            record["differences"] = [{"path": "platform", "intended": want.platform, "running": have.platform,
                                      "message": f"{host}: platform {want.platform} intended, {have.platform} running "
                                                 "(no remediation across platforms)"}]
        else:
            wanted, current = _config_files(intended[want.source]), _config_files(running[have.source])
            fields, _ = field_drift(host, wanted, current, platform=have.platform)
            record["differences"] = [item.as_dict() for item in fields]
            same_text = _texts(wanted) == _texts(current)
            record["state"] = "drifted" if fields else "in sync" if same_text else "text differs only"
            if fields:
                record["remediation"] = remediation_build(platform=have.platform, intended=wanted, running=current)
                if _daemons(intended[want.source]) != _daemons(running[have.source]):
                    record["remediation"]["notes"].append("FRR's daemons file differs: copy the intended one and "
                                                          "restart FRR (it is read at start)")
        out.append(record)
    return out


def _listed(device: ParsedDevice | None) -> list[str]:
    return [f"{device.source}/{name}" for name in device.files] if device is not None else []


def _config_files(files: Mapping[str, str]) -> dict[str, str]:
    """The files a remediation compares: FRR's daemons file (shell variables, read when FRR starts) is no CLI."""
    return {name: text for name, text in files.items() if not is_daemons_file(text)}


def _daemons(files: Mapping[str, str]) -> list[str]:
    return sorted(text for text in files.values() if is_daemons_file(text))


def _texts(files: Mapping[str, str]) -> list[str]:
    return sorted(text.strip() for text in files.values())


def intent_config_set(*, fabric_intent, platforms: Mapping[str, str | None] | None = None) -> dict[str, dict[str, str]]:
    """The intent's configs, compiled now and not stored (intents.services.compile_devices): ``{hostname: files}``
    of each device's own platform, or of ``platforms[hostname]`` when the device was compiled for it too (a set
    of twin FRR renderings is compared with the intent's FRR rendering)."""
    structured, rendered, _ = compile_devices(fabric_snapshot(fabric_intent))
    out = {}
    for host, per_platform in rendered.items():
        wanted = (platforms or {}).get(host)
        out[host] = dict(per_platform[wanted if wanted in per_platform else structured[host]["platform"]])
    return out


def drift_detect_all(*, hostnames: list[str] | None = None) -> list[DriftRecord]:
    """Beat entry: for every device that has an endpoint (or those of ``hostnames``), compare the config deployed
    by the last successful rollout (or the last change set) with what the device runs now."""
    intended = intended_configs_latest()
    wanted = [host for host in intended if hostnames is None or host in hostnames]
    endpoints = {endpoint.hostname: endpoint for endpoint in DeviceEndpoint.objects.filter(hostname__in=wanted)}
    drivers = endpoint_driver_factories(endpoints.values())
    return drift_check(hostnames_drivers=drivers, intended={host: intended[host][1] for host in endpoints},
                       fabric_intended={host: files for host, (_, files) in intended.items()})
