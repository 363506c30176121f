"""Writes of the twins app: boot, check, break, compare and remove a fabric intent's live twin.

HackSoft style: ``twin_<action>(*, ...)`` with keyword-only arguments; views, tasks and the ``manage.py twin``
command stay thin and call these. ``twin_operation_create`` / ``twin_operation_execute`` record an operation a
user started (the UI's buttons) as a ``TwinOperation`` run record around the same calls. The work itself is labs/ (runtime, checks, fidelity); these functions pick
the compile run, record every outcome on the Twin row and turn "this machine cannot run a twin" into a clear
:class:`TwinUnavailable` (callers report it as *skipped*, never as passed).
"""

from __future__ import annotations

import datetime as dt
import hashlib

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from compiler.errors import FabricTwinError, FieldError, InputError, TwinError
from compiler.paths import safe_join
from compiler.render.frr import linux_ifname
from intents.models import CompileRun, FabricIntent
from intents.selectors import compile_run_result
from intents.services import compile_run_create
from inventory.models import Fabric
from labs import checks, containerlab, fidelity, runtime, shell
from labs.fidelity import link_key
from labs.from_compile import topology_from_compile
from labs.frr_binaries import select_frr
from labs.ownership import new_installation_id
from twin.runs import RunStatus, interrupted_error, run_execute, runner_id, runner_state
from validators.context import ValidationInput
from validators.findings import Finding, Report, Severity
from validators.run import validate_fabric

from .choices import InjectionKindChoices, TwinEngineChoices, TwinOperationKindChoices, TwinStatusChoices
from .models import Installation, Twin, TwinOperation
from .selectors import fabric_twin, twin_operation_busy

# A twin of a big fabric keeps a few hosts per leaf: enough for bridging, routing, ECMP and MTU probes; the full
# host matrix of a 1,000-leaf fabric is the static validators' job.
DEFAULT_SERVERS_PER_LEAF = 2
RUNNING = (TwinStatusChoices.UP, TwinStatusChoices.DEGRADED)


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
    refused when a switch has no frr rendering: the twin runs every switch as FRR."""
    result = compile_run_result(run=run)
    without_frr = sorted(host for host, platforms in result.rendered.items() if "frr" not in platforms)
    if without_frr:
        raise TwinError(f"compile run #{run.pk} has no frr rendering for {', '.join(without_frr[:5])}; the twin runs "
                        "every switch as FRR: compile with the default platforms (own + frr)")
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
            failover: bool = False, frr: str | None = None) -> Twin:
    """Boot the intent's twin (compiling first when no ``compile_run`` is given), wait for convergence, run the
    live checks and store the report. Safe to run twice: a healthy running twin is returned as it is.

    Engine ``containerlab`` exports the same compile as a containerlab topology and deploys it with the
    ``containerlab`` binary (a clear TwinError where it is not installed). ``frr``: which FRR the switches run
    (``labs.frr_binaries.select_frr``: auto, 10.3, 8.4); a choice that cannot run is an InputError naming the
    path before anything is saved."""
    if engine != TwinEngineChoices.CONTAINERLAB:
        select_frr(choice=frr)
    twin = twin_get_or_create(fabric_intent=fabric_intent, engine=engine, prefix=prefix, state_dir=state_dir)
    if engine == TwinEngineChoices.CONTAINERLAB:
        return _containerlab_up(twin, fabric_intent, compile_run)
    _require_twin_host()
    if twin.status in RUNNING and compile_run in (None, twin.compile_run):
        if runtime.status(twin.prefix, _state_dir(twin), installation=installation_id()).get("healthy"):
            return twin  # already up: nothing to do (idempotent)
    run = _compile_run(fabric_intent, compile_run)
    result = compile_result_for_run(run=run)
    topology = topology_from_compile(result, name_prefix=twin.prefix, max_servers_per_leaf=max_servers_per_leaf)
    running = runtime.TwinState.load(twin.prefix, _state_dir(twin))
    if running is not None and running.digest != topology.digest():
        # Never replace (nor mark failed) a running twin behind the operator's back.
        raise TwinError(f"twin {twin.prefix} of {fabric_intent.name} is running compile run #{twin.compile_run_id}; "
                        f"compile run #{run.pk} is a different fabric: run `twin down` first")
    Twin.objects.filter(pk=twin.pk).update(status=TwinStatusChoices.BOOTING, compile_run=run, error="",
                                           runner=runner_id())  # a killed boot is reaped (twin.runs)
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
    twin.status = TwinStatusChoices.UP
    twin.save()
    if checks:
        _store_checks(twin, state, failover=failover)
    return twin


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
    twin.save()


def _store_checks(twin: Twin, state, *, failover: bool) -> None:
    report, measured = checks.verify(state, failover=failover)
    twin.last_report = report.as_dict()
    twin.last_measured = {**measured, "kernel": state.kernel, "vrf_backend": state.vrf_backend}
    bgp = measured.get("bgp") or {}
    # A re-check of a long-running twin finds everything Established at its first look: that is only an upper
    # bound (seconds since boot), so it never replaces the convergence time measured after boot.
    fresh = twin.converge_s is None or not bgp.get("upper_bound_only")
    if bgp.get("converged_s") is not None and state.daemons_started_at and fresh:
        twin.converge_s = bgp["converged_s"]
        twin.converged = dt.datetime.fromtimestamp(state.daemons_started_at + bgp["converged_s"], tz=dt.UTC)
    twin.rss_mb = (measured.get("resources") or {}).get("rss_total_mib")
    skipped = [f"{result.name}: {result.reason}" for result in report.checks.values() if result.status == "skipped"]
    modelled = [item for item in twin.limitations if not item.startswith("twin.")]
    twin.limitations = modelled + skipped
    twin.status = TwinStatusChoices.UP if report.ok else TwinStatusChoices.DEGRADED
    twin.save()


def twin_status(*, twin: Twin) -> dict:
    """Liveness from the runtime (namespaces present, recorded daemons alive), reconciled into the row."""
    if twin.engine != TwinEngineChoices.NETNS:
        return {"prefix": twin.prefix, "engine": twin.engine, "status": twin.status, "exists": None,
                "detail": "status of containerlab labs: `containerlab inspect`"}
    live = runtime.status(twin.prefix, _state_dir(twin), installation=installation_id())
    if not live["exists"]:
        status = TwinStatusChoices.FAILED if live.get("orphan_namespaces") else TwinStatusChoices.DOWN
        if twin.status != TwinStatusChoices.BOOTING and twin.status != status:
            _mark(twin, status=status)
    elif live["status"] == "up" and not live["healthy"] and twin.status == TwinStatusChoices.UP:
        _mark(twin, status=TwinStatusChoices.DEGRADED, error=f"dead daemons {live['dead_daemons']}, missing "
                                                             f"namespaces {live['missing_namespaces'][:5]}")
    return {**live, "twin": twin.pk, "engine": twin.engine, "status_recorded": twin.status,
            "converge_s": twin.converge_s, "rss_mb": twin.rss_mb, "limitations": twin.limitations}


def twin_down(*, twin: Twin, force: bool = False) -> dict:
    """Remove the twin (exactly what it created). Idempotent: a twin that is already gone is just marked down."""
    if twin.engine == TwinEngineChoices.CONTAINERLAB:
        lab_dir = safe_join(settings.FT_OUTPUT_DIR, "containerlab", twin.prefix, fields=("containerlab", "twin.prefix"))
        topology = next(iter(lab_dir.glob("*.clab.yml")), None)
        summary = {"prefix": twin.prefix, "destroyed": False}
        if topology is not None and twin.status in RUNNING:
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
    """Compare the twin's measurements with the static validators' predictions for the compile it booted
    (labs.fidelity). Stores and returns the comparison; zero disagreements is the goal."""
    _require_twin_host()
    state = _runtime_state(twin)
    if twin.compile_run is None:
        raise TwinError(f"twin {twin.prefix} has no recorded compile run; run `twin up` again")
    result = compile_result_for_run(run=twin.compile_run)
    static_report = validate_fabric(result)
    prediction = fidelity.predict(static_report.context)  # reuses its what-if run
    observation = fidelity.observe(state, prediction, n_minus_1=n_minus_1)
    compared = fidelity.compare(prediction, observation, title=f"fidelity of twin {twin.prefix} "
                                                              f"(compile run #{twin.compile_run_id})")
    twin.last_fidelity = {
        **compared.as_dict(),
        "static": {"ok": static_report.ok, "counts": static_report.counts(),
                   "failed": [name for name, check in static_report.checks.items() if check.status == "failed"]},
        "observation_seconds": observation.seconds,
        "notes": observation.notes,
        "at": timezone.now().isoformat(),
    }
    twin.save(update_fields=["last_fidelity", "updated"])
    return twin.last_fidelity


# --------------------------------------------------------------------------------------------- operations


def _fabric_intent_of(fabric: Fabric) -> FabricIntent:
    intent = fabric.intents.order_by("name").first()
    if intent is None:
        raise TwinError(f"fabric {fabric.name} has no fabric intent: create one (Intents) before booting its twin")
    return intent


def _twin_of(fabric: Fabric) -> Twin:
    twin = fabric_twin(fabric=fabric)
    if twin is None:
        raise TwinError(f"the twin of {fabric.name} was never started: start it first")
    return twin


def _operation_up(fabric: Fabric) -> dict:
    twin = twin_up(fabric_intent=_fabric_intent_of(fabric), engine=FABRIC_TWIN_ENGINE)
    return {"status": twin.status, "switches": twin.switches, "hosts": twin.hosts, "boot_s": twin.boot_s,
            "converge_s": twin.converge_s}


def _operation_down(fabric: Fabric) -> dict:
    return twin_down(twin=_twin_of(fabric))


def _operation_check(fabric: Fabric) -> dict:
    twin = twin_check(twin=_twin_of(fabric))
    return {"status": twin.status, "ok": twin.last_report.get("ok")}


def _operation_fidelity(fabric: Fabric) -> dict:
    result = twin_fidelity(twin=_twin_of(fabric))
    return {"disagreements": result["disagreements"], "agreed_failures": result["agreed_failures"]}


def _operation_inject(fabric: Fabric, kind: str) -> dict:
    return twin_inject(twin=_twin_of(fabric), kind=kind)["measured"]


# The twin of a fabric is the netns twin of the fabric's first intent (by name).
FABRIC_TWIN_ENGINE = TwinEngineChoices.NETNS
OPERATIONS = {
    TwinOperationKindChoices.UP: _operation_up,
    TwinOperationKindChoices.DOWN: _operation_down,
    TwinOperationKindChoices.PING: _operation_check,
    TwinOperationKindChoices.FIDELITY: _operation_fidelity,
    TwinOperationKindChoices.FAIL_LINK: lambda fabric: _operation_inject(fabric, InjectionKindChoices.LINK),
    TwinOperationKindChoices.FAIL_SPINE: lambda fabric: _operation_inject(fabric, InjectionKindChoices.SPINE),
}


def twin_fabric_status(*, fabric: Fabric) -> dict:
    """What the twin page shows: the runtime's liveness reconciled into the row (``twin_status``), the running
    operation and what this machine lacks to run a twin."""
    missing = twin_prerequisites()
    busy = twin_operation_busy(fabric=fabric)
    twin = fabric_twin(fabric=fabric)
    if twin is None:
        state = "booting" if busy and busy.kind == TwinOperationKindChoices.UP else "stopped"
        return {"state": state, "exists": False, "missing": missing, "busy": busy, "running": False,
                "twin": None, "prefix": "", "no_intent": not fabric.intents.exists()}
    try:
        live = twin_status(twin=twin)
    except (FabricTwinError, OSError) as error:
        # informational: a transient `ip netns` failure (other twins booting) must not take the page down
        live = {"exists": None, "status_error": f"could not read the runtime state: {error}"}
    twin.refresh_from_db()
    state = "stopped" if twin.status == TwinStatusChoices.DOWN else twin.status
    return {**live, "state": state, "missing": missing, "busy": busy, "twin": twin,
            "running": twin.status in RUNNING, "prefix": twin.prefix}


def twin_operation_create(*, fabric: Fabric, kind: str, user=None) -> TwinOperation:
    """Record a requested operation, ``running`` at once: it claims the fabric's twin, and a second one is
    refused while it runs. One whose process is gone (killed worker, restarted server) is interrupted, not
    busy (twin.runs); one without a runner predates them and is left to the start-up reaper."""
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
    twin = fabric_twin(fabric=fabric)
    return TwinOperation.objects.create(fabric=fabric.name, prefix=twin.prefix if twin else "", kind=kind,
                                        status=RunStatus.RUNNING,
                                        requested_by=user if user and user.is_authenticated else None,
                                        runner=runner_id())  # until a worker takes it: the requesting process


def twin_operation_execute(*, operation: TwinOperation) -> TwinOperation:
    """Do the work of a recorded operation and store its outcome (``twin.runs.run_execute``: a domain error
    fails it with the message, a bug fails it and is raised)."""
    fabric = Fabric.objects.get(name=operation.fabric)
    with run_execute(operation, update_fields=("prefix",)):
        operation.result = OPERATIONS[operation.kind](fabric)
    twin = fabric_twin(fabric=fabric)
    if twin is not None and twin.prefix != operation.prefix:
        operation.prefix = twin.prefix
        operation.save(update_fields=["prefix"])
    return operation
