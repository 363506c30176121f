"""Reads of the intents app: querysets shaped so API lists cost a constant number of queries."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.db.models import Prefetch, QuerySet

from common.runs import RunStatus
from compiler import model as core
from compiler.allocate import allocate
from compiler.errors import FieldError, InputError
from compiler.natural import natural_key
from inventory.models import NicPort, Server, Switch
from validators.context import ValidationInput

from .adapters import allocation_rows, fabric_snapshot, intent_snapshot
from .choices import AllocationKindChoices, DeployedTargetChoices, DiffTargetChoices
from .models import Allocation, CompileRun, DeployedConfig, DeviceConfig, FabricIntent, Network, RoceClass, Tenant


def fabric_intent_list() -> QuerySet[FabricIntent]:
    return FabricIntent.objects.select_related("fabric")


def fabric_intent_choices() -> QuerySet[FabricIntent]:
    """(pk, name) of every fabric intent by name, for a page's intent picker."""
    return FabricIntent.objects.order_by("name").values_list("pk", "name")


def fabric_intent_by_pk(*, pk: int) -> FabricIntent | None:
    return FabricIntent.objects.filter(pk=pk).first()


def device_config_files(*, pks: list[int]) -> dict[int, dict]:
    """pk -> files of these device configs (one query, files only)."""
    return dict(DeviceConfig.objects.filter(pk__in=pks).values_list("pk", "files"))


def fabric_intent_resolve(name: str | None) -> FabricIntent:
    """A fabric intent by its name, or the only intent of the inventory fabric of that name (or the only one)."""
    intents = fabric_intent_list()
    if name is None:
        found = list(intents[:2])
        if len(found) == 1:
            return found[0]
        raise InputError(FieldError("fabric", None, f"{len(found) or 'no'} fabric intents exist: "
                                                               "name one"))
    match = intents.filter(name=name).first()
    if match is not None:
        return match
    by_fabric = list(intents.filter(fabric__name=name)[:2])
    if len(by_fabric) == 1:
        return by_fabric[0]
    known = ", ".join(intents.values_list("name", flat=True)[:20]) or "none"
    raise InputError(FieldError("fabric", name, f"no fabric intent or inventory fabric with a single "
                                                           f"intent of this name (fabric intents: {known})"))


def tenant_list() -> QuerySet[Tenant]:
    return Tenant.objects.select_related("fabric_intent")


def tenant_choices(*, fabric_intent: FabricIntent) -> QuerySet[Tenant]:
    """The tenants a network of this intent may belong to (the network form)."""
    return Tenant.objects.filter(fabric_intent=fabric_intent)


def network_list() -> QuerySet[Network]:
    return Network.objects.select_related("tenant", "fabric_intent").prefetch_related(
        "leaves", Prefetch("attachments", queryset=NicPort.objects.select_related("server")))


def roce_class_list() -> QuerySet[RoceClass]:
    return RoceClass.objects.select_related("fabric_intent")


def allocation_list() -> QuerySet[Allocation]:
    return Allocation.objects.select_related("fabric_intent")


@dataclass(frozen=True)
class AllocationPreview:
    """The numbers a fabric intent runs with: what is stored, completed by what the next compile will allocate."""

    allocations: core.Allocations
    pending: frozenset[tuple[str, str]]  # (kind, key) not stored yet: allocated at the next compile
    error: str  # the allocator's refusal (a pool too small, ...); then only the stored values are shown


def allocation_preview(*, fabric_intent: FabricIntent) -> AllocationPreview:
    """Stored allocations plus the allocator's answer for everything without one (compiler.allocate is stable:
    a stored value never moves, new objects get the lowest free value), without saving anything."""
    snapshot = fabric_snapshot(fabric_intent)
    try:
        complete = allocate(snapshot.inventory, snapshot.intent, snapshot.allocations)
    except InputError as error:
        return AllocationPreview(snapshot.allocations, frozenset(), str(error))
    pending = frozenset(allocation_rows(complete).keys() - allocation_rows(snapshot.allocations).keys())
    return AllocationPreview(complete, pending, "")


def compile_run_list() -> QuerySet[CompileRun]:
    return CompileRun.objects.select_related("fabric_intent")


def compile_run_latest(*, fabric_intent: FabricIntent) -> CompileRun | None:
    return fabric_intent.compile_runs.filter(status=RunStatus.SUCCEEDED).order_by("-created", "-id").first()


def device_config_list() -> QuerySet[DeviceConfig]:
    return DeviceConfig.objects.select_related("run")


@dataclass(frozen=True)
class DiffBaseline:
    """What one device x platform is compared with, and the words every diff shows for it (API, CLI, UI)."""

    config: DeviceConfig | None  # None: nothing to compare with (the whole file is new)
    target: str  # DiffTargetChoices: device | twin | compile
    label: str  # e.g. "diff vs twin (running compile #12)"

    @property
    def kind(self) -> str:
        """The API's ``baseline`` word: deployed | twin | compiled | none."""
        if self.config is None:
            return "none"
        return {DiffTargetChoices.DEVICE: "deployed", DiffTargetChoices.TWIN: "twin"}.get(self.target, "compiled")


def device_config_twin_source(*, rows: dict[str, DeviceConfig]) -> DeviceConfig | None:
    """Of one switch's stored configs (by platform), the one the twin runs: its own platform's rendering, else its
    ``frr`` rendering (labs.node_configs turns either into what the twin's FRR runs)."""
    own = next((row for platform, row in rows.items() if platform == row.structured.get("platform")), None)
    return own or rows.get("frr")


def diff_baselines(*, fabric_intent: FabricIntent, target: str = DiffTargetChoices.AUTO, hostnames=None,
                   platforms=None) -> dict[tuple[str, str], DiffBaseline]:
    """(hostname, platform) -> what a config is compared with: what the TARGET runs, labelled so.

    ``device``: the config a production rollout deployed (``DeployedConfig`` rows of target device); ``twin``: the
    compile run each switch of the intent's running twin runs now (its ``DeployedConfig`` rows of target twin,
    intents/deployed.py: they exist while the twin runs and follow every push; the twin runs that run's frr
    rendering, other platforms show that run's file); ``compile``: the last
    successful compile; ``auto`` (default): device where one was deployed, else twin, else last compile.
    Keys absent from the result have nothing to compare with. Four queries whatever the fabric size."""
    if target not in DiffTargetChoices.values:
        raise InputError(FieldError("target", target, f"one of {', '.join(DiffTargetChoices.values)}"))
    # hostname -> the compile run that switch of the running twin runs (None: files from no compile run)
    twin_runs = (dict(DeployedConfig.objects.filter(fabric_intent=fabric_intent, target=DeployedTargetChoices.TWIN)
                      .values_list("hostname", "device_config__run_id"))
                 if target in (DiffTargetChoices.AUTO, DiffTargetChoices.TWIN) else {})
    if target == DiffTargetChoices.TWIN and not twin_runs:
        raise InputError(FieldError("target", target, f"no running twin of {fabric_intent.name}: start it, or "
                                                      "compare with device or compile"))

    def narrowed(rows):
        if hostnames:
            rows = rows.filter(hostname__in=hostnames)
        if platforms:
            rows = rows.filter(platform__in=platforms)
        return rows

    baselines: dict[tuple[str, str], DiffBaseline] = {}
    if target in (DiffTargetChoices.AUTO, DiffTargetChoices.COMPILE):
        latest = compile_run_latest(fabric_intent=fabric_intent)
        for config in narrowed(DeviceConfig.objects.filter(run=latest) if latest else DeviceConfig.objects.none()):
            baselines[(config.hostname, config.platform)] = DiffBaseline(
                config, DiffTargetChoices.COMPILE, f"diff vs last compile (#{config.run_id})")
    if twin_runs:
        rows = narrowed(DeviceConfig.objects.filter(run_id__in={run for run in twin_runs.values() if run},
                                                    hostname__in=list(twin_runs)))
        for config in rows:
            if twin_runs.get(config.hostname) != config.run_id:
                continue
            runs_as = "" if config.platform == "frr" else "; the twin runs its frr rendering"
            baselines[(config.hostname, config.platform)] = DiffBaseline(
                config, DiffTargetChoices.TWIN, f"diff vs twin (running compile #{config.run_id}{runs_as})")
    if target in (DiffTargetChoices.AUTO, DiffTargetChoices.DEVICE):
        deployed = narrowed(DeployedConfig.objects.filter(
            fabric_intent=fabric_intent, target=DeployedTargetChoices.DEVICE)).select_related("device_config")
        for row in deployed:
            by = f"rollout #{row.deployed_by_rollout}" if row.deployed_by_rollout else "hand (mark deployed)"
            baselines[(row.hostname, row.platform)] = DiffBaseline(
                row.device_config, DiffTargetChoices.DEVICE,
                f"diff vs device {row.hostname} (deployed by {by} on {row.deployed:%Y-%m-%d %H:%M}, "
                f"compile #{row.device_config.run_id})")
    return baselines


def diff_missing_label(*, target: str, hostname: str) -> str:
    """The words for a device x platform with nothing to compare with under ``target``."""
    where = {DiffTargetChoices.DEVICE: f"nothing deployed on device {hostname}",
             DiffTargetChoices.TWIN: f"{hostname} runs no recorded compile in the twin",
             DiffTargetChoices.COMPILE: "no earlier compile"}.get(target, "nothing deployed, in the twin or compiled")
    return f"{where}: the whole file is new"


def fabric_intent_export(*, fabric_intent: FabricIntent) -> dict:
    """The fabric intent in the scenario shape ``manage.py intent_apply`` reads (compiler.scenario)."""
    intent = intent_snapshot(fabric_intent)
    data = _plain(asdict(intent))
    data["networks"] = [
        {**network, "attachments": [str(nic) for nic in source.attachments]}
        for network, source in zip(data["networks"], intent.networks, strict=True)
    ]
    return {"intent": data}


def _plain(value):
    """Tuples -> lists, recursively (YAML and JSON friendly)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def compile_run_result(*, run: CompileRun) -> ValidationInput:
    """The validators' one input (``ValidationInput``) for a stored, succeeded compile of the whole fabric: exactly
    the structured configs and renderings that run stored (the twin boots and the validators check what the run
    says, even when a row was edited on purpose), with the fabric's snapshot. Refused (naming ``compile_run``) when
    the run did not succeed or no longer covers the fabric's switches."""
    if run.status != RunStatus.SUCCEEDED:
        raise InputError(FieldError("compile_run", run.pk, f"is {run.status}, not succeeded: "
                                                                      f"{run.error or 'no error recorded'}"))
    snapshot = fabric_snapshot(run.fabric_intent)
    structured: dict[str, dict] = {}
    rendered: dict[str, dict[str, dict[str, str]]] = {}
    for row in run.device_configs.all().only("hostname", "platform", "files", "structured"):
        structured[row.hostname] = row.structured
        rendered.setdefault(row.hostname, {})[row.platform] = row.files
    switches = set(snapshot.inventory.switches_by_name)
    if set(structured) != switches:
        stale = sorted(switches ^ set(structured), key=natural_key)
        what = "compiled only some devices" if run.devices else "does not match the fabric's switches any more"
        raise InputError(FieldError("compile_run", run.pk, f"{what} ({', '.join(stale[:5])}"
                                                                      f"{' ...' if len(stale) > 5 else ''}); "
                                                                      "compile the whole fabric again"))
    return ValidationInput(structured=structured, snapshot=snapshot, rendered=rendered)
_ADDRESS_KINDS = {AllocationKindChoices.LOOPBACK: "loopback", AllocationKindChoices.VTEP: "VTEP",
                  AllocationKindChoices.P2P: "link address"}


def fabric_identities() -> dict[str, dict[str, str]]:
    """Every inventory fabric's addresses and what holds each: switch and server management IPs, and the
    router-id/VTEP loopbacks and link addresses allocated by its intents (several intents of one fabric are
    alternative designs of the same devices and may repeat an address). Input of
    ``validators.physical.check_cross_fabric_identity``."""
    identities: dict[str, dict[str, str]] = {}
    for model, name_field in ((Switch, "hostname"), (Server, "name")):
        for fabric, name, address in (model.objects.exclude(mgmt_ip=None).order_by("fabric__name", name_field)
                                      .values_list("fabric__name", name_field, "mgmt_ip")):
            identities.setdefault(fabric, {}).setdefault(address, f"{name} management")
    rows = (Allocation.objects.filter(kind__in=list(_ADDRESS_KINDS)).order_by("fabric_intent__fabric__name", "id")
            .values_list("fabric_intent__fabric__name", "fabric_intent__name", "kind", "key", "value"))
    for fabric, intent, kind, key, value in rows:
        identities.setdefault(fabric, {}).setdefault(value, f"{_ADDRESS_KINDS[kind]} {key} of intent {intent}")
    return identities
