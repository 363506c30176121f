"""Writes of the intents app (HackSoft style: ``<entity>_<action>``, keyword-only arguments).

Every save path (API, admin, commands, YAML import) goes through ``intent_object_save``: the model's own checks
(field ranges, per-intent uniqueness, naming the field), then the whole fabric is validated by the compiler
(``compiler.api.validate_intent`` + a dry allocation) inside the same transaction, so an invalid intent is never
committed and nothing is half-saved.
"""

from __future__ import annotations

import dataclasses
import io
import ipaddress
import tarfile
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import connection, transaction

from common.runs import run_execute
from compiler import api as compiler_api
from compiler import model as core
from compiler.adopt.carry import with_carried
from compiler.blast import BlastRadius, blast_radius
from compiler.diff import config_diff as text_diff
from compiler.diff import structured_diff
from compiler.errors import FieldError, InputError, IntentValidationError
from compiler.names import HOSTNAME, OBJECT_NAME, name_problem, object_name_errors, path_component
from compiler.natural import natural_key
from compiler.paths import archive_member, safe_join
from compiler.scenario import intent_from_dict
from compiler.topology import FABRIC_ASN_ROLES
from compiler.validate import check_intent
from inventory.adapters import inventory_snapshot
from inventory.models import Fabric, NicPort, Switch

from .adapters import allocation_rows, carried_blocks, fabric_snapshot, snapshot_sha256
from .choices import AllocationKindChoices, DeployedTargetChoices, DiffTargetChoices
from .constants import ROCE_DEFAULT_CLASSES
from .models import Allocation, CompileRun, DeployedConfig, DeviceConfig, FabricIntent, Network, RoceClass, Tenant
from .models.fabric import POOL_FIELDS, free_prefix, pool_prefix
from .selectors import diff_baselines, diff_missing_label

# ------------------------------------------------------------------------------------------------ validation


def intent_validate(*, fabric_intent: FabricIntent) -> tuple[core.Snapshot, core.Allocations]:
    """Validate the fabric intent as stored (in the caller's transaction); raise IntentValidationError.

    ``check_intent`` runs every field check and then the allocation on top of the stored allocations (pool too
    small, a stored value colliding after a pool or scheme change); it returns the completed allocations.
    """
    snapshot = fabric_snapshot(fabric_intent)
    return snapshot, check_intent(snapshot)


def _intent_of(instance) -> FabricIntent:
    if isinstance(instance, FabricIntent):
        return instance
    if isinstance(instance, Network) and instance.fabric_intent_id is None and instance.tenant_id:
        instance.fabric_intent_id = instance.tenant.fabric_intent_id
    return instance.fabric_intent


def _renamed_allocation_kind(instance) -> str | None:
    if isinstance(instance, Network):
        return AllocationKindChoices.L2VNI
    if isinstance(instance, Tenant):
        return AllocationKindChoices.L3VNI
    return None


def intent_object_save(*, instance, values: dict | None = None, many: dict[str, Iterable] | None = None):
    """Create or update a FabricIntent, Tenant, Network or RoceClass and validate the whole fabric intent.

    ``values``: field -> value; ``many``: many-to-many field -> objects (Network.leaves, Network.attachments).
    Raises django ValidationError (model-level, naming the field) or IntentValidationError (fabric-level);
    either way the transaction rolls back, and a refused create leaves ``instance`` unsaved (no primary key: the
    form that re-renders it is still a create, without a Delete for an id never stored).
    """
    created = instance.pk is None
    try:
        return _intent_object_save(instance=instance, values=values, many=many)
    except Exception:
        if created:
            instance.pk = None
            instance._state.adding = True
        raise


@transaction.atomic
def _intent_object_save(*, instance, values: dict | None, many: dict[str, Iterable] | None):
    old_name = None
    if instance.pk is not None and _renamed_allocation_kind(instance):
        old_name = type(instance).objects.filter(pk=instance.pk).values_list("name", flat=True).first()
    for name, value in (values or {}).items():
        setattr(instance, name, value)
    if isinstance(instance, Network) and instance.tenant_id:
        instance.fabric_intent_id = instance.tenant.fabric_intent_id
    # Composite uniqueness is checked in each model's clean() so the error names the field; the database
    # constraints stay as the backstop.
    instance.full_clean(validate_constraints=False)
    instance.save()
    for name, items in (many or {}).items():
        getattr(instance, name).set(list(items))
    fabric_intent = _intent_of(instance)
    kind = _renamed_allocation_kind(instance)
    if kind and old_name and old_name != instance.name:
        # Allocations are keyed by name: a rename keeps the VNI with the object instead of allocating a new one.
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=kind, key=old_name).update(key=instance.name)
    intent_validate(fabric_intent=fabric_intent)
    return instance


def fabric_intent_defaults(*, fabric, name: str) -> dict:
    """Pools and management network for a new intent of ``fabric``, chosen as ``fabric_intent_apply`` chooses
    them: free of other fabrics' intents, and the /16 the fabric's switches are addressed from."""
    chosen = _fabric_defaults({"name": name}, fabric)
    defaults = {f"{key}_pool": value for key, value in chosen["pools"].items()}
    if "management" in chosen:
        defaults["management_network"] = chosen["management"]["network"]
    return defaults


def fabric_intent_create(*, fabric, name: str, **values) -> FabricIntent:
    """A new fabric intent; pools and management network not given come from ``fabric_intent_defaults``, so a
    second fabric's intent is created without a pool clash (the UI's create form, issue #16)."""
    defaults = fabric_intent_defaults(fabric=fabric, name=name)
    return intent_object_save(instance=FabricIntent(fabric=fabric, name=name), values={**defaults, **values})


def fabric_intent_update(*, fabric_intent: FabricIntent, **values) -> FabricIntent:
    return intent_object_save(instance=fabric_intent, values=values)


def tenant_create(*, fabric_intent: FabricIntent, name: str, vrf: str, l3vni: int | None = None) -> Tenant:
    return intent_object_save(instance=Tenant(fabric_intent=fabric_intent), values={"name": name, "vrf": vrf,
                                                                                     "l3vni": l3vni})


def network_create(*, tenant: Tenant, name: str, vlan_id: int, subnet: str, gateway: str | None = None,
                   l2vni: int | None = None, leaves: Iterable = (), attachments: Iterable = ()) -> Network:
    return intent_object_save(
        instance=Network(tenant=tenant, fabric_intent_id=tenant.fabric_intent_id),
        values={"name": name, "vlan_id": vlan_id, "subnet": subnet, "gateway": gateway, "l2vni": l2vni},
        many={"leaves": leaves, "attachments": attachments})


def roce_class_create(*, fabric_intent: FabricIntent, **values) -> RoceClass:
    return intent_object_save(instance=RoceClass(fabric_intent=fabric_intent), values=values)


@transaction.atomic
def intent_object_delete(*, instance) -> None:
    """Delete a tenant, network or RoCE class; release the VNIs of the deleted tenant/networks, then revalidate.

    VNIs are released (unlike switch allocations, which the allocator keeps reserved) because they belong to the
    intent object, not to hardware: a network recreated later takes its VNI from its VLAN again.
    """
    fabric_intent = _intent_of(instance)
    if isinstance(instance, Tenant):
        network_names = list(instance.networks.values_list("name", flat=True))
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=AllocationKindChoices.L2VNI,
                                  key__in=network_names).delete()
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=AllocationKindChoices.L3VNI,
                                  key=instance.name).delete()
    elif isinstance(instance, Network):
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=AllocationKindChoices.L2VNI,
                                  key=instance.name).delete()
    instance.delete()
    intent_validate(fabric_intent=fabric_intent)


@transaction.atomic
def roce_defaults_apply(*, fabric_intent: FabricIntent) -> list[RoceClass]:
    """Create (or reset to the defaults) the typical RoCEv2 class(es); see ``constants.ROCE_DEFAULT_CLASSES``."""
    classes = []
    for defaults in ROCE_DEFAULT_CLASSES:
        values = dict(defaults)
        name = values.pop("name")
        instance = RoceClass.objects.filter(fabric_intent=fabric_intent, name=name).first()
        instance = instance or RoceClass(fabric_intent=fabric_intent, name=name)
        model_defaults = {field.name: field.get_default() for field in RoceClass._meta.concrete_fields
                          if field.has_default()}
        classes.append(intent_object_save(instance=instance, values={**model_defaults, **values}))
    return classes


# ------------------------------------------------------------------------------------------------ allocations


@dataclass(frozen=True)
class AllocationSyncResult:
    created: int
    updated: int
    snapshot: core.Snapshot  # as stored before the sync
    allocations: core.Allocations  # everything stored after it


def _value_group(kind: str, key: str, scheme: str, roles: dict[str, str]) -> str:
    """The uniqueness space of a value (see models/allocations.py)."""
    if kind in (AllocationKindChoices.LOOPBACK, AllocationKindChoices.VTEP, AllocationKindChoices.P2P):
        return "ipv4"
    if kind in (AllocationKindChoices.L2VNI, AllocationKindChoices.L3VNI):
        return "vni"
    if kind == AllocationKindChoices.ASN and scheme == core.AsnScheme.PER_LEAF and roles.get(key) in FABRIC_ASN_ROLES:
        return "asn"
    return ""  # spines of a plane, or the leaves of one rack in the per-rack scheme, share an ASN


@transaction.atomic
def allocations_sync(*, fabric_intent: FabricIntent) -> AllocationSyncResult:
    """Allocate what is missing and store it; never moves a stored value (``compiler.api.allocate`` is stable).

    The intent row is locked (SELECT ... FOR UPDATE on PostgreSQL) so two concurrent syncs cannot both hand
    out the same free value; the unique constraints would reject it anyway.
    Only explicit intent values may change a stored row (a network's or tenant's explicit VNI wins).
    """
    FabricIntent.objects.select_for_update().filter(pk=fabric_intent.pk).exists()
    snapshot, allocations = intent_validate(fabric_intent=fabric_intent)
    stored = allocation_rows(snapshot.allocations)
    wanted = allocation_rows(allocations)
    changed = {key: value for key, value in wanted.items() if key in stored and stored[key] != value}
    new = {key: value for key, value in wanted.items() if key not in stored}
    if changed:
        # Delete then recreate: two explicit VNIs swapping owners must not trip the unique constraint midway.
        for kind, key in changed:
            Allocation.objects.filter(fabric_intent=fabric_intent, kind=kind, key=key).delete()
    roles = {switch.hostname: switch.role for switch in snapshot.inventory.switches}
    scheme = snapshot.intent.asn_scheme
    Allocation.objects.bulk_create(
        [Allocation(fabric_intent=fabric_intent, kind=kind, key=key, value=value,
                    value_group=_value_group(kind, key, scheme, roles))
         for (kind, key), value in sorted({**new, **changed}.items())],
        batch_size=1000)
    return AllocationSyncResult(created=len(new), updated=len(changed), snapshot=snapshot, allocations=allocations)


# ------------------------------------------------------------------------------------------------ compile


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


# ------------------------------------------------------------------------------------------------ change awareness


@dataclass(frozen=True)
class DeviceDiff:
    hostname: str
    platform: str
    baseline: str  # "deployed" (device), "twin", "compiled" (the latest stored compile) or "none"
    baseline_run: int | None
    text: str  # unified diff over every file, empty when identical
    structured: list[dict]  # [{"path", "old", "new"}]
    target: str = DiffTargetChoices.AUTO  # what it was compared with: device | twin | compile
    label: str = ""  # e.g. "diff vs twin (running compile #12)" (intents.selectors.diff_baselines)

    @property
    def changed(self) -> bool:
        return bool(self.text or self.structured)

    def as_dict(self) -> dict:
        return {"hostname": self.hostname, "platform": self.platform, "baseline": self.baseline,
                "baseline_run": self.baseline_run, "target": self.target, "label": self.label,
                "changed": self.changed, "text": self.text, "structured": self.structured}


def config_diff(*, fabric_intent: FabricIntent, device: str | None = None, platform: str | None = None,
                target: str = DiffTargetChoices.AUTO) -> list[DeviceDiff]:
    """Compile the intent as it is now (in memory, nothing stored) and diff it per device and platform against
    what the ``target`` runs (intents.selectors.diff_baselines: device, twin, last compile; auto picks per
    device), each diff labelled with what it compared against."""
    snapshot = fabric_snapshot(fabric_intent)
    if device is not None and device not in snapshot.inventory.switches_by_name:
        raise InputError(FieldError("device", device, f"no switch {device} in fabric "
                                                                 f"{snapshot.inventory.fabric}"))
    if platform is not None and platform not in core.Platform.ALL:
        raise InputError(FieldError("platform", platform, f"one of {', '.join(core.Platform.ALL)}"))
    baselines = diff_baselines(fabric_intent=fabric_intent, target=target, hostnames=[device] if device else None,
                               platforms=[platform] if platform else None)
    intended, rendered, _hashes = compile_devices(snapshot, devices=[device] if device else None,
                                                   platforms=[platform] if platform else None)
    diffs = []
    for hostname in sorted(rendered, key=natural_key):
        for platform_name, files in rendered[hostname].items():
            baseline = baselines.get((hostname, platform_name))
            old = baseline.config if baseline else None
            label = baseline.label if baseline else diff_missing_label(target=target, hostname=hostname)
            kind = baseline.kind if baseline else "none"
            old_files = old.files if old else {}
            text = "".join(
                text_diff(old_files.get(name, ""), files.get(name, ""),
                          old_name=f"{hostname}/{platform_name}/{name} ({kind})",
                          new_name=f"{hostname}/{platform_name}/{name} (intended)")
                for name in sorted(set(old_files) | set(files)))
            structured = [{"path": path, "old": before, "new": after}
                          for path, before, after in structured_diff(old.structured if old else {},
                                                                     intended[hostname])]
            diffs.append(DeviceDiff(hostname=hostname, platform=platform_name, baseline=kind,
                                    baseline_run=old.run_id if old else None, text=text, structured=structured,
                                    target=baseline.target if baseline else target, label=label))
    return diffs


def blast_radius_preview(*, fabric_intent: FabricIntent, change) -> BlastRadius:
    """Which devices, tenants, networks and server ports ``change`` would touch, without keeping it.

    ``change()`` applies the proposed edit through the normal services (so it is validated like any save) inside
    a savepoint that is always rolled back; the two snapshots are compared by ``compiler.blast``.
    """
    before = fabric_snapshot(fabric_intent)
    with transaction.atomic():
        change()
        fabric_intent.refresh_from_db()
        after = fabric_snapshot(fabric_intent)
        transaction.set_rollback(True)
    fabric_intent.refresh_from_db()
    return blast_radius(before, after)


def blast_radius_as_dict(radius: BlastRadius) -> dict:
    return {
        "devices": list(radius.devices), "added_devices": list(radius.added_devices),
        "removed_devices": list(radius.removed_devices), "tenants": list(radius.tenants),
        "networks": list(radius.networks), "server_ports": list(radius.server_ports),
        "changes": {host: [{"path": path, "old": old, "new": new} for path, old, new in changes]
                    for host, changes in sorted(radius.changes.items(), key=lambda item: natural_key(item[0]))},
    }


# ------------------------------------------------------------------------------------------------ output


def _config_rows(run: CompileRun, devices: Iterable[str] | None = None, platforms: Iterable[str] | None = None):
    rows = run.device_configs.order_by("hostname", "platform")
    if devices:
        rows = rows.filter(hostname__in=list(devices))
    if platforms:
        rows = rows.filter(platform__in=list(platforms))
    return rows.values_list("hostname", "platform", "files").iterator(chunk_size=200)


def compile_run_write(*, run: CompileRun, out_dir: Path, devices: Iterable[str] | None = None,
                      platforms: Iterable[str] | None = None) -> list[Path]:
    """Write ``<out>/<fabric intent>/<device>/<platform>/<file>`` for every stored config of ``run``.

    Every name passes the grammar and every path is resolved and kept inside ``out_dir`` (compiler.paths): an
    intent named ``../x``, a hostname ``/etc`` or a symlink planted under ``out/`` is an UnsafePathError, and
    nothing is written for it."""
    intent_name = path_component(OBJECT_NAME, run.fabric_intent.name, "intent.name")
    written = []
    for hostname, platform, files in _config_rows(run, devices, platforms):
        path_component(HOSTNAME, hostname, "hostname")
        for name, text in files.items():
            path = safe_join(out_dir, intent_name, hostname, platform, name,
                             fields=("intent.name", "hostname", "platform", "file"))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            written.append(path)
    return written


ARCHIVE_KINDS = {"tar.gz": "application/gzip", "zip": "application/zip"}


def compile_run_archive(*, run: CompileRun, kind: str = "tar.gz"):
    """Every config of ``run`` as a .tar.gz or .zip (same layout as ``compile_run_write``); returns a rewound
    file object (spooled to disk past 64 MB) and the download file name."""
    if kind not in ARCHIVE_KINDS:
        raise InputError(FieldError("kind", kind, f"one of {', '.join(ARCHIVE_KINDS)}"))
    prefix = path_component(OBJECT_NAME, run.fabric_intent.name, "intent.name")
    fields = ("intent.name", "hostname", "platform", "file")
    buffer = tempfile.SpooledTemporaryFile(max_size=64 * 1024 * 1024)
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for hostname, platform, files in _config_rows(run):
                path_component(HOSTNAME, hostname, "hostname")
                for name, text in files.items():
                    archive.writestr(archive_member(prefix, hostname, platform, name, fields=fields), text)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for hostname, platform, files in _config_rows(run):
                path_component(HOSTNAME, hostname, "hostname")
                for name, text in files.items():
                    data = text.encode()
                    info = tarfile.TarInfo(archive_member(prefix, hostname, platform, name, fields=fields))
                    info.size, info.mode = len(data), 0o644
                    info.mtime = int(run.finished.timestamp()) if run.finished else 0
                    archive.addfile(info, io.BytesIO(data))
    buffer.seek(0)
    return buffer, f"{prefix}-run{run.pk}.{kind}"


# ------------------------------------------------------------------------------------------------ YAML import


FABRIC_INTENT_FIELDS = {  # compiler.model.FabricIntent / Pools / BgpPolicy attribute -> FabricIntent model field
    "underlay": "underlay", "asn_scheme": "asn_scheme", "route_target_scheme": "route_target_scheme",
    "underlay_mtu": "underlay_mtu", "host_mtu": "host_mtu", "anycast_gateway_mac": "anycast_gateway_mac",
    "evpn_overlay": "evpn_overlay", "pools.loopback": "loopback_pool", "pools.vtep": "vtep_pool", "pools.p2p": "p2p_pool",
    "pools.asn_first": "asn_first", "pools.asn_last": "asn_last", "pools.spine_asn": "spine_asn",
    "pools.l2vni_base": "l2vni_base", "pools.l3vni_first": "l3vni_first", "pools.l3vni_last": "l3vni_last",
    "bgp.maximum_paths": "bgp_maximum_paths", "bgp.keepalive_s": "bgp_keepalive_s", "bgp.hold_s": "bgp_hold_s",
    "bgp.bfd": "bgp_bfd", "bgp.bfd_interval_ms": "bgp_bfd_interval_ms", "bgp.bfd_multiplier": "bgp_bfd_multiplier",
    "management.network": "management_network", "management.gateway": "management_gateway",
    "management.vrf": "management_vrf", "management.ntp_servers": "ntp_servers",
    "management.syslog_servers": "syslog_servers", "management.dns_servers": "dns_servers",
    "management.aaa_servers": "aaa_servers", "management.aaa_secret_ref": "aaa_secret_ref",
    "ecmp_hashing.tier_hashing": "ecmp_tier_hashing", "ecmp_hashing.dest_qp_hashing": "ecmp_dest_qp_hashing",
    "ecmp_hashing.dlb": "ecmp_dlb", "ecmp_hashing.roles": "ecmp_roles", "ecmp_hashing.qps_per_connection": "nccl_qps_per_connection",
}
ROCE_CLASS_FIELDS = tuple(field for field in core.RoceClass.__dataclass_fields__ if field != "name")


def _prefixed(error, prefix: str):
    """A model ValidationError with each field renamed to ``prefix.field`` (so YAML errors point into the file)."""
    if not hasattr(error, "error_dict"):
        return ValidationError({prefix: error.messages})
    return ValidationError({f"{prefix}.{name}": messages for name, messages in error.message_dict.items()})


def _save_named(instance, values: dict, prefix: str, many: dict | None = None):
    for name, value in values.items():
        setattr(instance, name, value)
    try:
        instance.full_clean(validate_constraints=False)
    except ValidationError as error:
        raise _prefixed(error, prefix) from None
    instance.save()
    for name, items in (many or {}).items():
        getattr(instance, name).set(list(items))
    return instance


def _fabric_defaults(raw: dict, fabric) -> dict:
    """``raw`` with what the file leaves out chosen for this inventory fabric (several fabrics per inventory):
    loopback/VTEP/link pools free of other fabrics' intents (the default when it is free), and the management
    network the fabric's switch addresses come from (the builder may have picked another /16 than the default)."""
    raw = dict(raw)
    given = raw.get("pools") if isinstance(raw.get("pools"), dict) else None
    if given is not None or "pools" not in raw:
        name = raw["name"] if isinstance(raw.get("name"), str) and not name_problem(OBJECT_NAME, raw["name"]) else None
        raw["pools"] = fabric_intent_free_pools(fabric=fabric, name=name, given=dict(given or {}))
    management = raw.get("management")
    if management is None or (isinstance(management, dict) and "network" not in management):
        network = fabric_management_network(fabric=fabric)
        if network is not None:
            raw["management"] = {**(management or {}), "network": network}
    return raw


def fabric_intent_free_pools(*, fabric, name: str | None, given: dict[str, str]) -> dict[str, str]:
    """Scenario pool keys (loopback, vtep, p2p) -> prefix: ``given`` kept, each missing pool the default when no
    other fabric's intent overlaps it, else the first free prefix of its length (the one rule of the scenario
    file, the API and the UI: issue #30 point 1)."""
    pools = dict(given)
    defaults = core.Pools()
    others = FabricIntent.objects.exclude(fabric=fabric)
    if name is not None:
        others = others.exclude(name=name)
    used = [prefix for value in others.values_list(*POOL_FIELDS) for prefix in map(pool_prefix, value) if prefix is not None]
    used += [prefix for prefix in map(pool_prefix, pools.values()) if prefix is not None]
    for key in ("loopback", "vtep", "p2p"):
        if key in pools:
            continue
        default = ipaddress.IPv4Network(getattr(defaults, key))
        chosen = default if not any(default.overlaps(other) for other in used) else (
            free_prefix(default.prefixlen, used) or default)
        pools[key] = str(chosen)
        used.append(chosen)
    return pools


def fabric_management_network(*, fabric) -> str | None:
    """The /16 the fabric's switch management addresses come from, when it is not the intent's default (the
    builder may have picked a free one); None otherwise."""
    address = (Switch.objects.filter(fabric=fabric).exclude(mgmt_ip=None).order_by("id")
               .values_list("mgmt_ip", flat=True).first())
    network = ipaddress.ip_network(f"{address}/16", strict=False) if address else None
    if isinstance(network, ipaddress.IPv4Network) and str(network) != core.Management().network:
        return str(network)
    return None


@transaction.atomic
def fabric_intent_apply(*, data: dict, fabric=None) -> FabricIntent:
    """Create or update a fabric intent with its tenants, networks and RoCE classes from a scenario-shaped dict
    (``compiler.scenario``: ``{"intent": {name, pools, bgp, tenants, networks, roce_classes, ...}}``).

    Declarative: tenants, networks and RoCE classes missing from ``data`` are deleted. Everything is validated
    (model-level with the YAML path named, then the whole fabric) before the transaction commits.
    """
    raw = dict(data.get("intent", data))
    if fabric is None:
        fabric_name = raw.get("inventory_fabric") or data.get("fabric") or (data.get("clos") or {}).get("name")
        problem = name_problem(OBJECT_NAME, fabric_name) if fabric_name is not None else None
        if problem:  # before any query: PostgreSQL refuses even to compare with a NUL
            raise IntentValidationError(FieldError("intent.inventory_fabric", fabric_name, problem))
        fabric = Fabric.objects.filter(name=fabric_name).first()
        if fabric is None:
            raise IntentValidationError(FieldError("intent.inventory_fabric", fabric_name,
                                                   "no inventory fabric of this name (build it first: "
                                                   "manage.py fabric_build)"))
    raw["inventory_fabric"] = fabric.name
    if not raw.get("name"):
        raise IntentValidationError(FieldError("intent.name", raw.get("name"), "a fabric intent needs a name"))
    raw = _fabric_defaults(raw, fabric)
    intent = intent_from_dict(raw, inventory_snapshot(fabric))
    name_errors: list[FieldError] = []
    object_name_errors(intent, "intent", name_errors)  # the name grammar before any lookup by name
    if name_errors:
        raise IntentValidationError(name_errors)

    fabric_intent = FabricIntent.objects.filter(name=intent.name).first() or FabricIntent(name=intent.name)
    values = {"fabric": fabric}
    for attribute, model_field in FABRIC_INTENT_FIELDS.items():
        value = intent
        for part in attribute.split("."):
            value = getattr(value, part)
        values[model_field] = list(value) if isinstance(value, tuple) else value  # server lists: JSON fields
    _save_named(fabric_intent, values, "intent")

    # Delete what the file no longer has first, so renumbering (VLAN 10 <-> 20) does not collide midway.
    tenant_names = {tenant.name for tenant in intent.tenants}
    network_names = {network.name for network in intent.networks}
    for stale in fabric_intent.networks.exclude(name__in=network_names):
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=AllocationKindChoices.L2VNI,
                                  key=stale.name).delete()
        stale.delete()
    for stale in fabric_intent.tenants.exclude(name__in=tenant_names):
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=AllocationKindChoices.L3VNI,
                                  key=stale.name).delete()
        stale.delete()
    fabric_intent.roce_classes.exclude(name__in={roce.name for roce in intent.roce_classes}).delete()

    tenants = {tenant.name: tenant for tenant in fabric_intent.tenants.all()}
    for tenant in intent.tenants:
        instance = tenants.get(tenant.name) or Tenant(fabric_intent=fabric_intent, name=tenant.name)
        tenants[tenant.name] = _save_named(instance, {"vrf": tenant.vrf, "l3vni": tenant.l3vni},
                                           f"tenants[{tenant.name}]")
    switch_ids = dict(Switch.objects.filter(fabric=fabric).values_list("hostname", "id"))
    nic_ids = {(server, name): pk for pk, server, name in
               NicPort.objects.filter(server__fabric=fabric).values_list("id", "server__name", "name")}
    networks = {network.name: network for network in fabric_intent.networks.all()}
    for network in intent.networks:
        prefix = f"networks[{network.name}]"
        tenant = tenants.get(network.tenant)
        if tenant is None:
            raise IntentValidationError(FieldError(f"{prefix}.tenant", network.tenant, "unknown tenant"))
        leaves = _ids(network.leaves, switch_ids, f"{prefix}.leaves", "no switch of this name in the fabric")
        attachments = _ids([(nic.device, nic.interface) for nic in network.attachments], nic_ids,
                           f"{prefix}.attachments", "no server NIC port of this name in the fabric")
        instance = networks.get(network.name) or Network(name=network.name)
        _save_named(instance, {"tenant": tenant, "fabric_intent": fabric_intent, "vlan_id": network.vlan_id,
                               "subnet": network.subnet, "gateway": network.gateway, "l2vni": network.l2vni},
                    prefix, many={"leaves": leaves, "attachments": attachments})
    roce_classes = {roce.name: roce for roce in fabric_intent.roce_classes.all()}
    for roce in intent.roce_classes:
        instance = roce_classes.get(roce.name) or RoceClass(fabric_intent=fabric_intent, name=roce.name)
        values = {name: getattr(roce, name) for name in ROCE_CLASS_FIELDS}
        values["dscp"] = list(roce.dscp)
        _save_named(instance, values, f"roce_classes[{roce.name}]")
    intent_validate(fabric_intent=fabric_intent)
    return fabric_intent


def _ids(names, ids: dict, field: str, message: str) -> list[int]:
    missing = [name for name in names if name not in ids]
    if missing:
        raise IntentValidationError([FieldError(field, ":".join(name) if isinstance(name, tuple) else name, message)
                                     for name in missing])
    return [ids[name] for name in names]
