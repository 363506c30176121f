"""Writes of the twins app: boot, check, break, compare and remove a fabric intent's live twin.

HackSoft style: ``twin_<action>(*, ...)`` with keyword-only arguments; views, tasks and the ``manage.py twin``
command stay thin and call these. ``twin_operation_create`` / ``twin_operation_execute`` record an operation a
user started (the UI's buttons) as a ``TwinOperation`` run record around the same calls. The work itself is labs/ (runtime, checks, fidelity); these functions pick
the compile run, record every outcome on the Twin row and turn "this machine cannot run a twin" into a clear
:class:`TwinUnavailable` (callers report it as *skipped*, never as passed).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from collections.abc import Callable, Mapping

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common.runs import RunStatus, interrupted_error, run_execute, runner_id, runner_state
from compiler.errors import FabricTwinError, FieldError, InputError, TwinError
from compiler.paths import safe_join
from compiler.render.frr import linux_ifname
from intents.deployed import deployed_on_twin, deployed_twin_boot, deployed_twin_clear, deployed_twin_record
from intents.models import CompileRun, DeviceConfig, FabricIntent
from intents.selectors import compile_run_result, device_config_twin_source
from intents.services import compile_run_create
from inventory.models import Fabric
from labs import checks, containerlab, fidelity, runtime, shell
from labs.fidelity import link_key
from labs.from_compile import topology_from_compile
from labs.frr_binaries import select_frr
from labs.node_configs import node_from_own_config
from labs.ownership import new_installation_id
from labs.runtime.state import prefix_lock
from labs.subset import subset_from_compile
from validators.context import ValidationInput
from validators.findings import CheckStatus, Finding, Report, Severity
from validators.run import validate_fabric

from .choices import (
    TWIN_RUNNING,
    InjectionKindChoices,
    TwinEngineChoices,
    TwinOperationKindChoices,
    TwinStatusChoices,
    TwinSwitchSourceChoices,
    twin_healthy,
)
from .models import Installation, Twin, TwinOperation
from .selectors import fabric_twin, twin_operation_busy

# A twin of a big fabric keeps a few hosts per leaf: enough for bridging, routing, ECMP and MTU probes; the full
# host matrix of a 1,000-leaf fabric is the static validators' job.
DEFAULT_SERVERS_PER_LEAF = 2



class TwinUnavailable(TwinError):
    """This machine cannot run the netns twin (no root, no FRR, no ``ip netns``). Reported as skipped."""


def twin_prerequisites() -> list[str]:
    return shell.twin_prerequisites()


def _require_twin_host() -> None:
    missing = twin_prerequisites()
    if missing:
        raise TwinUnavailable(f"skipped: needs root and FRR ({'; '.join(missing)})")


def installation_id() -> str:
    """This database's installation id (``Installation``, created by migration 0002_installation; created here
    on first use when the row is missing, e.g. after a test flush). Every twin of this database is owned by it."""
    row = Installation.objects.filter(pk=1).first()
    if row is None:
        row, _created = Installation.objects.get_or_create(pk=1, defaults={"installation_id": new_installation_id()})
    return row.installation_id


def twin_prefix_for(*, fabric_intent: FabricIntent, engine: str, installation: str | None = None) -> str:
    """Stable across processes (API, Celery worker, command) and unique per installation: 'tw' + the 6-hex
    installation id + 6 hex of the intent name and engine (14 characters, e.g. ``twa3f09c3fa91c``). Two
    checkouts on one host therefore never pick the same names for the same intent."""
    installation = installation or installation_id()
    return f"tw{installation}" + hashlib.sha256(f"{fabric_intent.name}/{engine}".encode()).hexdigest()[:6]


def _check_engine(engine: str) -> None:
    if engine not in TwinEngineChoices.values:
        raise InputError(FieldError("engine", engine, f"one of {', '.join(TwinEngineChoices.values)}"))


@transaction.atomic
def twin_get_or_create(*, fabric_intent: FabricIntent, engine: str = TwinEngineChoices.NETNS,
                       prefix: str | None = None, state_dir: str = "") -> Twin:
    """The Twin row of (intent, engine); created 'down' when missing. ``prefix``/``state_dir`` only apply to a
    new row (tests use their own so they can run beside other twins)."""
    _check_engine(engine)
    twin, _created = Twin.objects.select_for_update().get_or_create(
        fabric_intent=fabric_intent, engine=engine,
        defaults={"prefix": prefix or twin_prefix_for(fabric_intent=fabric_intent, engine=engine),
                  "state_dir": state_dir})
    return twin


# --------------------------------------------------------------------------------------------- compile


def compile_result_for_run(*, run: CompileRun) -> ValidationInput:
    """The validators' and the twin's one input for a stored run (``intents.selectors.compile_run_result``: exactly what the run stored),
    refused when a switch has neither its own platform's rendering nor the frr one: the twin runs each switch's
    own config (labs.node_configs), else its frr rendering."""
    result = compile_run_result(run=run)
    missing = sorted(host for host, platforms in result.rendered.items()
                     if result.structured[host]["platform"] not in platforms and "frr" not in platforms)
    if missing:
        raise TwinError(f"compile run #{run.pk} has no rendering the twin can run for {', '.join(missing[:5])}: "
                        "compile with the default platforms (own + frr)")
    return result


def _compile_run(fabric_intent: FabricIntent, compile_run: CompileRun | None) -> CompileRun:
    if compile_run is not None:
        if compile_run.fabric_intent_id != fabric_intent.pk:
            raise InputError(FieldError("compile_run", compile_run.pk,
                                                   f"belongs to another fabric intent than {fabric_intent.name}"))
        return compile_run
    run = compile_run_create(fabric_intent=fabric_intent)
    if run.status != RunStatus.SUCCEEDED:
        if run.error_fields:
            raise InputError([FieldError(field, None, "; ".join(messages))
                                         for field, messages in run.error_fields.items()])
        raise TwinError(f"compile of {fabric_intent.name} failed: {run.error}")
    return run


# --------------------------------------------------------------------------------------------- lifecycle


def _state_dir(twin: Twin) -> str | None:
    return twin.state_dir or None


def _runtime_state(twin: Twin):
    state = runtime.owned_state(twin.prefix, _state_dir(twin), installation=installation_id())
    if state is None or state.status != "up":
        raise TwinError(f"twin {twin.prefix} of {twin.fabric_intent.name} is not running: run `twin up` first")
    return state


def twin_up(*, fabric_intent: FabricIntent, engine: str = TwinEngineChoices.NETNS,
            compile_run: CompileRun | None = None, prefix: str | None = None, state_dir: str = "",
            max_servers_per_leaf: int | None = DEFAULT_SERVERS_PER_LEAF, checks: bool = True,
            failover: bool = False, subset: str = "", frr: str | None = None) -> Twin:
    """Boot the intent's twin (compiling first when no ``compile_run`` is given), wait for convergence, run the
    live checks and store the report. Safe to run twice: a healthy running twin is returned as it is.
    ``subset`` boots every spine plus the leaves it selects (labs.subset: names, leaves:N, per-pod:N, pod:P,
    rail:R, ci); what was left out is listed in the twin's limitations and report.

    Engine ``containerlab`` exports the same compile as a containerlab topology and deploys it with the
    ``containerlab`` binary (a clear TwinError where it is not installed). ``frr``: which FRR the switches run
    (``labs.frr_binaries.select_frr``: auto, 10.3, 8.4); a choice that cannot run is an InputError naming the
    path before anything is saved."""
    if engine == TwinEngineChoices.SHARDED:
        raise InputError(FieldError("engine", engine, "a sharded twin is planned and booted by twins.shards "
                                                      "(manage.py twin_shards plan|up)"))
    if engine != TwinEngineChoices.CONTAINERLAB:
        select_frr(choice=frr)
    twin = twin_get_or_create(fabric_intent=fabric_intent, engine=engine, prefix=prefix, state_dir=state_dir)
    if engine == TwinEngineChoices.CONTAINERLAB:
        return _containerlab_up(twin, fabric_intent, compile_run)
    _require_twin_host()
    if twin.status in TWIN_RUNNING and compile_run in (None, twin.compile_run):
        _require_same_subset(twin, subset)
        if runtime.status(twin.prefix, _state_dir(twin), installation=installation_id()).get("healthy"):
            return twin  # already up: nothing to do (idempotent)
    run = _compile_run(fabric_intent, compile_run)
    result = compile_result_for_run(run=run)
    topology = topology_from_compile(result, name_prefix=twin.prefix, max_servers_per_leaf=max_servers_per_leaf)
    if subset:
        topology = subset_from_compile(topology, result, subset, field="subset")
    running = runtime.TwinState.load(twin.prefix, _state_dir(twin))
    if running is not None and running.digest != topology.digest():
        # Never replace (nor mark failed) a running twin behind the operator's back.
        raise TwinError(f"twin {twin.prefix} of {fabric_intent.name} is running compile run #{twin.compile_run_id}; "
                        f"compile run #{run.pk} is a different fabric: run `twin down` first")
    with transaction.atomic():
        Twin.objects.filter(pk=twin.pk).update(status=TwinStatusChoices.BOOTING, compile_run=run, error="",
                                               runner=runner_id())  # a killed boot is reaped (common.runs)
        deployed_twin_clear(twin_id=twin.pk)  # a booting twin runs nothing yet
    twin.refresh_from_db()
    try:
        state = runtime.up(topology, _state_dir(twin), installation=installation_id(), frr=frr)
    except Exception as error:  # recorded on the row whatever it was, then raised (a bug must stay visible)
        _mark(twin, status=TwinStatusChoices.FAILED, error=f"{type(error).__name__}: {error}"
              if not isinstance(error, FabricTwinError) else str(error))
        raise
    twin.started = dt.datetime.fromtimestamp(state.created_at, tz=dt.UTC)
    twin.boot_s = state.timings.get("boot_s")
    twin.switches, twin.hosts = len(state.node_netns), len(state.host_netns)
    twin.limitations = list(topology.extra.get("limitations", []))
    deployed_twin_boot(fabric_intent_id=fabric_intent.pk, twin_id=twin.pk, run=run,
                       hostnames=[node.name for node in topology.nodes])
    if "subset" in topology.extra:
        left_out = topology.extra["subset"]["left_out_leaves"]
        twin.limitations.append(f"subset boot ({subset}): {topology.extra['subset']['switches']} switches; left out "
                                f"{len(left_out)} leaves ({', '.join(left_out[:8])}{' ...' if len(left_out) > 8 else ''})")
    twin.status = TwinStatusChoices.UP
    twin.save()
    if checks:
        _store_checks(twin, state, failover=failover)
    return twin


def _require_same_subset(twin: Twin, subset: str) -> None:
    """Up on a running twin returns it only for the same selection: another ``subset`` (or none where one
    runs) is a different twin, refused naming both, never silently answered with the one that runs."""
    running = runtime.TwinState.load(twin.prefix, _state_dir(twin))
    if running is None:
        return
    running_subset = running.topology_obj().extra.get("subset", {}).get("selection", "")
    if running_subset.strip() != subset.strip():
        def shown(selection: str) -> str:
            return f"subset {selection!r}" if selection else "the whole fabric"
        raise InputError([FieldError("subset", subset, f"twin {twin.prefix} of {twin.fabric_intent.name} runs "
                                     f"{shown(running_subset)}, not {shown(subset.strip())}: run `twin down` first")])


def _uniform_compile_run(switch_configs: Mapping[str, Mapping]) -> int | None:
    """The compile run every switch runs, or None while they differ (or one is unknown)."""
    runs = {entry.get("compile_run") for entry in switch_configs.values()}
    return runs.pop() if len(runs) == 1 else None


def twin_switch_record(*, twin: Twin, hostname: str, files: Mapping[str, str], sha256: str, source: str,
                       compile_run_id: int | None = None, rollout_id: int | None = None,
                       runtime_state: bool = True) -> Twin:
    """Record that twin switch ``hostname`` now runs ``files``: called after every SUCCESSFUL push or rollback
    (``changes.pipelines.canary``), never before nor after a failed one.

    Two records follow it: the runtime's state file (the node's ``frr_conf``/``linux_plan`` in the topology the
    live checks and fidelity derive their expectations from, and its digest; ``runtime_state=False`` leaves it
    alone for a switch whose text did not change), and the switch's ``intents.DeployedConfig`` row of the twin
    (which compile run and rollout its config came from; the Twin's ``compile_run`` is the run every switch runs,
    empty while they differ). A rollback restores the compile run the switch ran before the push it undoes. Idempotent per rollout:
    recording the same push again (a resumed rollout) changes nothing. Returns the Twin row."""
    if source not in TwinSwitchSourceChoices.values:
        raise InputError(FieldError("source", source, f"one of {', '.join(TwinSwitchSourceChoices.values)}"))
    if twin is None:
        raise TwinError(f"{hostname}: no twin to record the push on (the rollout's twin was deleted)")
    with transaction.atomic():
        twin = Twin.objects.select_for_update().get(pk=twin.pk)  # one recorder per twin at a time
        current = deployed_on_twin(twin_id=twin.pk).get(hostname) or {}
        # A resumed rollout records the same switch again: the entry it wrote before is not what the switch ran
        # before the rollout, so it keeps the first record's "previous" (and a repeated rollback its compile).
        again = rollout_id is not None and (current.get("rollout"), current.get("source")) == (rollout_id, source)
        if again and current.get("sha256") == sha256:
            return twin  # already recorded
        entry = {"compile_run": compile_run_id, "sha256": sha256, "source": source, "rollout": rollout_id,
                 "at": timezone.now().isoformat()}
        if source == TwinSwitchSourceChoices.ROLLOUT:
            entry["previous"] = current.get("previous", {}) if again else {
                key: value for key, value in current.items() if key != "previous"}
        elif source == TwinSwitchSourceChoices.ROLLBACK:
            entry["compile_run"] = current.get("compile_run") if again else (current.get("previous") or {}).get(
                "compile_run")
        if runtime_state:
            _state_record_node(twin.prefix, _state_dir(twin), hostname, files,
                               account=_own_config_account(entry["compile_run"], hostname, source))
        deployed_twin_record(fabric_intent_id=twin.fabric_intent_id, twin_id=twin.pk, hostname=hostname,
                             compile_run_id=entry["compile_run"], sha256=sha256, source=source, rollout_id=rollout_id,
                             previous=entry.get("previous"))
        twin.compile_run_id = _uniform_compile_run(deployed_on_twin(twin_id=twin.pk))
        twin.save(update_fields=["compile_run", "updated"])
        return twin


def _own_config_account(compile_run_id: int | None, hostname: str, source: str) -> dict | None:
    """What of its own config the switch now runs (labs.node_configs' account, as at boot), for the compile run
    whose files were pushed; None when that run is unknown (a bare change set) or holds no config of the switch."""
    if compile_run_id is None:
        return None
    rows = {row.platform: row for row in DeviceConfig.objects.filter(run_id=compile_run_id,
                                                                     hostname=hostname)}
    row = device_config_twin_source(rows=rows)
    if row is None:
        return None
    account = node_from_own_config(hostname=hostname, role=row.structured.get("role", ""), platform=row.platform,
                                   files=row.files, intended=row.structured).summary
    return {**account, "compile_run": compile_run_id, "source": source}


def _state_record_node(prefix: str, state_dir: str | None, hostname: str, files: Mapping[str, str], *,
                       account: dict | None = None) -> None:
    """The state file's topology node now carries what the switch runs (its digest follows), so every live check
    and the fidelity comparison expect what the switch runs, not what it booted; the per-switch account of its own
    config (``extra.device_configs``) follows too, or is dropped when the pushed files' origin is unknown."""
    with prefix_lock(prefix):
        state = runtime.TwinState.load(prefix, state_dir)
        if state is None or hostname not in state.node_netns or not {"frr.conf", "linux-plan.json"} <= set(files):
            return
        topology = state.topology_obj()
        nodes = tuple(dataclasses.replace(node, frr_conf=files["frr.conf"],
                                          linux_plan=json.loads(files["linux-plan.json"]))
                      if node.name == hostname else node for node in topology.nodes)
        device_configs = dict((topology.extra or {}).get("device_configs") or {})
        if account is not None:
            device_configs[hostname] = account
        else:
            device_configs.pop(hostname, None)
        updated = dataclasses.replace(topology, nodes=nodes, extra={**(topology.extra or {}),
                                                                    "device_configs": device_configs})
        state.topology, state.digest = updated.to_dict(), updated.digest()
        state.save()


def _containerlab_up(twin: Twin, fabric_intent: FabricIntent, compile_run: CompileRun | None) -> Twin:
    run = _compile_run(fabric_intent, compile_run)
    result = compile_result_for_run(run=run)
    out_dir = safe_join(settings.FT_OUTPUT_DIR, "containerlab", twin.prefix, fields=("containerlab", "twin.prefix"))
    topology_file = containerlab.export(result, out_dir)
    twin.compile_run = run
    twin.limitations = [f"containerlab topology exported to {topology_file}"]
    try:
        containerlab.deploy(topology_file)
    except FabricTwinError as error:
        twin.status, twin.error = TwinStatusChoices.FAILED, str(error)
        twin.save()
        raise
    twin.status, twin.error, twin.started = TwinStatusChoices.UP, "", timezone.now()
    twin.save()
    return twin


def _mark(twin: Twin, **fields) -> None:
    for name, value in fields.items():
        setattr(twin, name, value)
    twin.save(update_fields=[*fields, "updated"])  # a status that does not run clears its deployed rows (Twin.save)


def _store_checks(twin: Twin, state, *, failover: bool) -> None:
    report, measured = checks.verify(state, failover=failover)
    # What the checks compared against: what each switch runs now (state file, followed by twin_switch_record).
    twin.last_report = {**report.as_dict(), "compile_run": twin.compile_run_id,
                        "switch_compile_runs": _switch_compile_runs(twin)}
    twin.last_measured = {**measured, "kernel": state.kernel, "vrf_backend": state.vrf_backend}
    bgp = measured.get("bgp") or {}
    # A re-check of a long-running twin finds everything Established at its first look: that is only an upper
    # bound (seconds since boot), so it never replaces the convergence time measured after boot.
    fresh = twin.converge_s is None or not bgp.get("upper_bound_only")
    if bgp.get("converged_s") is not None and state.daemons_started_at and fresh:
        twin.converge_s = bgp["converged_s"]
        twin.converged = dt.datetime.fromtimestamp(state.daemons_started_at + bgp["converged_s"], tz=dt.UTC)
    twin.rss_mb = (measured.get("resources") or {}).get("rss_total_mib")
    skipped = [f"{result.name}: {result.reason}" for result in report.checks.values()
               if result.status == CheckStatus.SKIPPED]
    modelled = [item for item in twin.limitations if not item.startswith("twin.")]
    twin.limitations = modelled + skipped
    twin.status = TwinStatusChoices.UP if report.ok else TwinStatusChoices.DEGRADED
    # Never the whole row: a rollout may have recorded a push (compile_run) while the checks ran.
    twin.save(update_fields=["last_report", "last_measured", "converge_s", "converged", "rss_mb", "limitations",
                             "status", "updated"])


def twin_status(*, twin: Twin) -> dict:
    """Liveness from the runtime (namespaces present, recorded daemons alive), reconciled into the row's one
    status word (twins.choices.TwinStatusChoices): ``status`` is that word, ``healthy`` is derived from it
    (``twin_healthy``: exactly ``up``), ``reason`` says why it is not up, ``processes_alive`` is the runtime's
    liveness alone (namespaces and daemons, not the live checks), and ``compile_run`` /
    ``switch_compile_runs`` what the switches run."""
    if twin.engine != TwinEngineChoices.NETNS:
        return {"prefix": twin.prefix, "engine": twin.engine, "status": twin.status, "exists": None,
                "healthy": twin_healthy(twin.status), "reason": twin_status_reason(twin=twin),
                "detail": "status of containerlab labs: `containerlab inspect`"}
    live = runtime.status(twin.prefix, _state_dir(twin), installation=installation_id())
    if not live["exists"]:
        status = TwinStatusChoices.FAILED if live.get("orphan_namespaces") else TwinStatusChoices.DOWN
        if twin.status != TwinStatusChoices.BOOTING and twin.status != status:
            _mark(twin, status=status)
    elif live["status"] == "up" and not live["healthy"] and twin.status == TwinStatusChoices.UP:
        _mark(twin, status=TwinStatusChoices.DEGRADED, error=f"dead daemons {live['dead_daemons']}, missing "
                                                             f"namespaces {live['missing_namespaces'][:5]}")
    twin.refresh_from_db()
    state = runtime.TwinState.load(twin.prefix, _state_dir(twin)) if live["exists"] else None
    device_configs = checks.device_configs_of(state) if state is not None else {}
    runtime_view = {key: value for key, value in live.items() if key not in ("status", "healthy")}
    return {**runtime_view, "twin": twin.pk, "engine": twin.engine, "status": twin.status,
            "healthy": twin_healthy(twin.status), "reason": twin_status_reason(twin=twin),
            "status_recorded": twin.status, "runtime_status": live.get("status"),
            "processes_alive": live.get("healthy"), "compile_run": twin.compile_run_id,
            "switch_compile_runs": _switch_compile_runs(twin),
            "converge_s": twin.converge_s, "rss_mb": twin.rss_mb, "limitations": twin.limitations,
            "device_configs": device_configs}


def twin_status_reason(*, twin: Twin) -> str:
    """Why the twin is in its status, in one phrase (the CLI line, the API's ``reason``, the UI)."""
    if twin.status == TwinStatusChoices.UP:
        return "every live check passed"
    if twin.status == TwinStatusChoices.DEGRADED:
        failed = [check["name"] for check in (twin.last_report or {}).get("checks", [])
                  if check.get("status") == CheckStatus.FAILED]
        if failed:
            return f"live checks failed: {', '.join(failed)}"
        return twin.error or "running, not every part alive"
    if twin.status == TwinStatusChoices.FAILED:
        return twin.error or "boot or teardown failed"
    if twin.status == TwinStatusChoices.BOOTING:
        return "namespaces and daemons being created"
    return "not running"


def twin_runs_text(*, twin: Twin) -> str:
    """What the twin's switches run, in words: ``runs compile #12`` or ``switches run different compiles (...)``."""
    runs = _switch_compile_runs(twin)
    if not runs:
        return "runs nothing recorded" if twin.compile_run_id is None else f"booted compile #{twin.compile_run_id}"
    if twin.compile_run_id is not None:
        return f"runs compile #{twin.compile_run_id}"
    return f"switches run different compiles ({_describe_runs(runs)})"


def _switch_compile_runs(twin: Twin) -> dict[str, int | None]:
    """Hostname -> the compile run that switch of the twin runs (intents.DeployedConfig rows of the twin)."""
    return {host: entry["compile_run"] for host, entry in deployed_on_twin(twin_id=twin.pk).items()}


def twin_down(*, twin: Twin, force: bool = False) -> dict:
    """Remove the twin (exactly what it created). Idempotent: a twin that is already gone is just marked down."""
    if twin.engine == TwinEngineChoices.CONTAINERLAB:
        lab_dir = safe_join(settings.FT_OUTPUT_DIR, "containerlab", twin.prefix, fields=("containerlab", "twin.prefix"))
        topology = next(iter(lab_dir.glob("*.clab.yml")), None)
        summary = {"prefix": twin.prefix, "destroyed": False}
        if topology is not None and twin.status in TWIN_RUNNING:
            containerlab.deploy(topology, destroy=True)
            summary["destroyed"] = True
        _mark(twin, status=TwinStatusChoices.DOWN)
        return summary
    installation = installation_id()
    live = runtime.status(twin.prefix, _state_dir(twin), installation=installation)
    if not live["exists"] and not live.get("orphan_namespaces"):
        # Namespaces with this prefix that another installation owns (foreign_namespaces) are not ours to remove.
        _mark(twin, status=TwinStatusChoices.DOWN)
        foreign = live.get("foreign_namespaces")
        return {"prefix": twin.prefix, "already_down": True, **({"left_alone": foreign} if foreign else {})}
    _require_twin_host()
    try:
        # Without a state file only this installation's marked leftovers are removed (labs.ownership).
        summary = runtime.down(twin.prefix, _state_dir(twin), force=force or not live["exists"],
                               installation=installation)
    except FabricTwinError as error:
        _mark(twin, status=TwinStatusChoices.FAILED, error=f"down: {error}")
        raise
    _mark(twin, status=TwinStatusChoices.DOWN, error="")
    return summary


def twin_check(*, twin: Twin, failover: bool = False) -> Twin:
    """Run every live check again on the running twin and store the report."""
    _require_twin_host()
    twin.refresh_from_db()  # what each switch runs now (a rollout may have pushed since this row was read)
    _store_checks(twin, _runtime_state(twin), failover=failover)
    return twin


def twin_inject(*, twin: Twin, kind: str = InjectionKindChoices.LINK, target: str | None = None) -> dict:
    """Fail one link or one spine and measure. Without ``target`` the twin cuts what a continuous host-to-host
    flow uses (local/remote convergence, outage of the flow, restore: labs.checks.inject_failure); with a target
    ('leaf1:Ethernet63/1' or 'leaf1:eth63_1' for a link, 'spine2' for a spine) exactly that is cut and the ECMP
    matrix is measured after it settled, then restored."""
    if kind not in InjectionKindChoices.values:
        raise InputError(FieldError("kind", kind, f"one of {', '.join(InjectionKindChoices.values)}"))
    _require_twin_host()
    state = _runtime_state(twin)
    report = Report(f"failure injection on twin {twin.prefix}")
    if target is None:
        measured = checks.inject_failure(state, report, scope=kind)
    else:
        scenario = _scenario_for_target(state, kind, target)
        notes: list[str] = []
        measured = fidelity.inject_scenario(state, scenario, notes=notes)
        check = f"twin.inject_{kind}"
        findings = [Finding(
            check=check, severity=Severity.INFO, subject=scenario["subject"], expected=None,
            actual={"min_ecmp": measured["min_ecmp"], "unreachable_pairs": measured["unreachable_pairs"]},
            message=f"{kind} {scenario['subject']} down: minimum ECMP {measured['min_ecmp']}, "
            f"{measured['unreachable_pairs']} VTEP pairs unreachable; restored in "
            f"{measured['restored_s']}s")]
        findings += [Finding(
            check=check, severity=Severity.ERROR, subject=scenario["subject"], expected="ECMP restored", actual=None,
            message=note) for note in notes]
        report.add(check, findings)
    twin.last_injection = {"kind": kind, "target": target, "measured": measured, "report": report.as_dict(),
                           "at": timezone.now().isoformat()}
    twin.save(update_fields=["last_injection", "updated"])
    return twin.last_injection


def _scenario_for_target(state, kind: str, target: str) -> dict:
    topology = state.topology_obj()
    if kind == InjectionKindChoices.SPINE:
        if target not in state.node_netns:
            raise InputError(FieldError("target", target, f"no switch {target} in twin {state.prefix}"))
        targets = [[link.a_node, link.a_ifname] if link.a_node == target else [link.b_node, link.b_ifname]
                   for link in topology.links if target in (link.a_node, link.b_node)]
        return {"kind": kind, "subject": target, "targets": targets}
    node, _, ifname = target.partition(":")
    for candidate in {ifname, linux_ifname(ifname)}:
        for link in topology.links:
            for end_node, end_if in ((link.a_node, link.a_ifname), (link.b_node, link.b_ifname)):
                if (end_node, end_if) == (node, candidate):
                    return {"kind": kind, "subject": link_key(link.a_node, link.a_ifname, link.b_node, link.b_ifname),
                            "targets": [[end_node, end_if]]}
    raise InputError(FieldError("target", target, "no fabric link at this switch:interface in the twin "
                                                             "(use e.g. leaf1:Ethernet63/1 or leaf1:eth63_1)"))


def twin_fidelity(*, twin: Twin, n_minus_1: str = "sample") -> dict:
    """Compare the twin's measurements with the static validators' predictions for the compile its switches run
    now (booted, or rolled out to every switch: ``Twin.compile_run``; refused while they run different compiles)
    (labs.fidelity). Stores and returns the comparison; zero disagreements is the goal."""
    _require_twin_host()
    twin.refresh_from_db()  # the compile the switches run now (a rollout may have moved them since)
    state = _runtime_state(twin)
    if twin.compile_run is None:
        runs = _switch_compile_runs(twin)
        raise TwinError(f"twin {twin.prefix}: its switches run different compiles ({_describe_runs(runs)}); fidelity "
                        "compares one compile: finish or roll back the rollout, or `twin up` again")
    result = compile_result_for_run(run=twin.compile_run)
    static_report = validate_fabric(result)
    twinned = state.topology_obj()
    # A subset boot is compared on the switches it twinned (labs.subset); otherwise on every switch.
    devices = {node.name for node in twinned.nodes} if "subset" in twinned.extra else None
    policy = state.size_policy  # BFD / hold time the twin runs (labs.runtime.sizing): the model is told the same
    protocol = {"bfd": policy["bfd"], "min_hold_s": policy["min_hold_s"]} if policy else None
    prediction = fidelity.predict(static_report.context, devices=devices, twin_protocol=protocol)  # reuses its what-if run
    observation = fidelity.observe(state, prediction, n_minus_1=n_minus_1)
    compared = fidelity.compare(prediction, observation, title=f"fidelity of twin {twin.prefix} "
                                                              f"(compile run #{twin.compile_run_id})")
    twin.last_fidelity = {
        **compared.as_dict(),
        "static": {"ok": static_report.ok, "counts": static_report.counts(),
                   "failed": [name for name, check in static_report.checks.items()
                              if check.status == CheckStatus.FAILED]},
        "compile_run": twin.compile_run_id,
        "observation_seconds": observation.seconds,
        "notes": observation.notes,
        "at": timezone.now().isoformat(),
    }
    twin.save(update_fields=["last_fidelity", "updated"])
    return twin.last_fidelity


def _describe_runs(runs: Mapping[str, int | None]) -> str:
    by_run: dict[int | None, list[str]] = {}
    for host, run in runs.items():
        by_run.setdefault(run, []).append(host)
    return "; ".join(f"{'unknown' if run is None else f'#{run}'}: {', '.join(hosts[:4])}"
                     + (f" +{len(hosts) - 4}" if len(hosts) > 4 else "") for run, hosts in by_run.items()) or "none"


# --------------------------------------------------------------------------------------------- operations


def _fabric_intent_of(fabric: Fabric) -> FabricIntent:
    intent = fabric.intents.order_by("name").first()
    if intent is None:
        raise TwinError(f"fabric {fabric.name} has no fabric intent: create one (Intents) before booting its twin")
    return intent


def _twin_of(fabric: Fabric, twin: Twin | None) -> Twin:
    """The operation's twin (the API names it), else the fabric's netns twin."""
    twin = twin or fabric_twin(fabric=fabric)
    if twin is None:
        raise TwinError(f"the twin of {fabric.name} was never started: start it first")
    return twin


def _operation_up(fabric: Fabric, twin: Twin | None, params: Mapping) -> dict:
    if twin is not None:
        intent, engine = twin.fabric_intent, twin.engine
    else:
        intent, engine = _fabric_intent_of(fabric), FABRIC_TWIN_ENGINE
    twin = twin_up(fabric_intent=intent, engine=engine, failover=bool(params.get("failover")),
                   subset=params.get("subset") or "", frr=params.get("frr") or None)
    return {"status": twin.status, "switches": twin.switches, "hosts": twin.hosts, "boot_s": twin.boot_s,
            "converge_s": twin.converge_s, "rss_mb": twin.rss_mb}


def _operation_down(fabric: Fabric, twin: Twin | None, params: Mapping) -> dict:
    return twin_down(twin=_twin_of(fabric, twin), force=bool(params.get("force")))


def _operation_check(fabric: Fabric, twin: Twin | None, params: Mapping) -> dict:
    twin = twin_check(twin=_twin_of(fabric, twin), failover=bool(params.get("failover")))
    return {"status": twin.status, "ok": twin.last_report.get("ok")}


def _operation_fidelity(fabric: Fabric, twin: Twin | None, params: Mapping) -> dict:
    result = twin_fidelity(twin=_twin_of(fabric, twin), n_minus_1=params.get("n_minus_1", "sample"))
    return {"disagreements": result["disagreements"], "agreed_failures": result["agreed_failures"]}


def _operation_inject(fabric: Fabric, twin: Twin | None, params: Mapping, kind: str) -> dict:
    return twin_inject(twin=_twin_of(fabric, twin), kind=kind, target=params.get("target"))["measured"]


# The twin of a fabric is the netns twin of the fabric's first intent (by name) unless the operation names one.
FABRIC_TWIN_ENGINE = TwinEngineChoices.NETNS
OPERATIONS: dict[str, Callable[[Fabric, Twin | None, Mapping], dict]] = {
    TwinOperationKindChoices.UP: _operation_up,
    TwinOperationKindChoices.DOWN: _operation_down,
    TwinOperationKindChoices.PING: _operation_check,
    TwinOperationKindChoices.FIDELITY: _operation_fidelity,
    TwinOperationKindChoices.FAIL_LINK: lambda fabric, twin, params: _operation_inject(
        fabric, twin, params, InjectionKindChoices.LINK),
    TwinOperationKindChoices.FAIL_SPINE: lambda fabric, twin, params: _operation_inject(
        fabric, twin, params, InjectionKindChoices.SPINE),
}
# The API's actions (``/api/twins/{id}/<action>/``) as operation kinds; inject picks by its ``kind``.
INJECT_OPERATIONS = {InjectionKindChoices.LINK: TwinOperationKindChoices.FAIL_LINK,
                     InjectionKindChoices.SPINE: TwinOperationKindChoices.FAIL_SPINE}


def twin_fabric_status(*, fabric: Fabric) -> dict:
    """What the twin page shows: the runtime's liveness reconciled into the row (``twin_status``), the running
    operation and what this machine lacks to run a twin."""
    missing = twin_prerequisites()
    busy = twin_operation_busy(fabric=fabric)
    twin = fabric_twin(fabric=fabric)
    if twin is None:
        state = TwinStatusChoices.BOOTING if busy and busy.kind == TwinOperationKindChoices.UP else TwinStatusChoices.DOWN
        return {"state": state, "exists": False, "missing": missing, "busy": busy, "running": False,
                "twin": None, "prefix": "", "no_intent": not fabric.intents.exists()}
    try:
        live = twin_status(twin=twin)
    except (FabricTwinError, OSError) as error:
        # informational: a transient `ip netns` failure (other twins booting) must not take the page down
        live = {"exists": None, "status_error": f"could not read the runtime state: {error}"}
    twin.refresh_from_db()
    state = twin.status
    return {**live, "state": state, "missing": missing, "busy": busy, "twin": twin,
            "running": twin.status in TWIN_RUNNING, "prefix": twin.prefix,
            "reason": twin_status_reason(twin=twin), "runs": twin_runs_text(twin=twin)}


def twin_operation_create(*, fabric: Fabric, kind: str, user=None, twin: Twin | None = None,
                          params: Mapping | None = None) -> TwinOperation:
    """Record a requested operation, ``running`` at once: it claims the fabric's twin, and a second one is
    refused while it runs. ``twin`` (the API names it) is the twin it runs on, else the fabric's netns twin;
    ``params`` its options (``TwinOperation.params``). One whose process is gone (killed worker, restarted server) is interrupted, not
    busy (common.runs); one without a runner predates them and is left to the start-up reaper."""
    if kind not in OPERATIONS:
        raise InputError(FieldError("kind", kind, f"one of {', '.join(OPERATIONS)}"))
    busy = twin_operation_busy(fabric=fabric)
    if busy is not None and busy.runner and runner_state(busy.runner).alive is False:
        TwinOperation.objects.filter(pk=busy.pk, status=busy.status, runner=busy.runner).update(
            status=RunStatus.FAILED, finished=timezone.now(), error=interrupted_error(runner_state(busy.runner).reason))
        busy = None
    if busy is not None:
        raise TwinError(f"{busy.get_kind_display()} is still running on the twin of {fabric.name} "
                        f"(started {busy.created:%H:%M:%S})")
    prefix_of = twin or fabric_twin(fabric=fabric)
    return TwinOperation.objects.create(fabric=fabric.name, prefix=prefix_of.prefix if prefix_of else "", kind=kind,
                                        twin=twin, params=dict(params or {}), status=RunStatus.RUNNING,
                                        requested_by=user if user and user.is_authenticated else None,
                                        runner=runner_id())  # until a worker takes it: the requesting process


def twin_operation_execute(*, operation: TwinOperation) -> TwinOperation:
    """Do the work of a recorded operation and store its outcome (``common.runs.run_execute``: a domain error
    fails it with the message, a bug fails it and is raised)."""
    fabric = Fabric.objects.get(name=operation.fabric)
    with run_execute(operation, update_fields=("prefix",)):
        operation.result = OPERATIONS[operation.kind](fabric, operation.twin, operation.params)
    twin = operation.twin or fabric_twin(fabric=fabric)
    if twin is not None and twin.prefix != operation.prefix:
        operation.prefix = twin.prefix
        operation.save(update_fields=["prefix"])
    return operation
