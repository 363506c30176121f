"""Twin actions started from the UI, over the twins app's services (``twins.services``: twin_up, twin_check,
twin_inject, twin_fidelity, twin_down — the same calls as the API and ``manage.py twin``).

The UI adds two things only: a ``TwinOperation`` row per button press ('running' first, then ok/failed with the
error), so the page can poll while a Celery worker does the work and refuse a second action meanwhile; and the
ping-matrix heat map, derived from the live-check report the twins app stores (which host pairs were pinged,
with ``labs.checks.classify_pair`` deciding what the intent expects of each pair).

The twin of a fabric is the netns twin of the fabric's first intent (by name).
"""

from __future__ import annotations

import ipaddress
import itertools
import traceback

from django.utils import timezone

from compiler.errors import FabricTwinError, TwinError
from twin.runs import interrupted_error, runner_id, runner_state

from .models import TwinOperation

ENGINE = "netns"


def twin_prerequisites() -> list[str]:
    from twins.services import twin_prerequisites as missing

    return missing()


def fabric_intent_of(fabric):
    intent = fabric.intents.order_by("name").first()
    if intent is None:
        raise TwinError(f"fabric {fabric.name} has no fabric intent: create one (Intents) before booting its twin")
    return intent


def twin_row(fabric, *, create: bool = False):
    """The Twin row of the fabric (None when the fabric has no intent, or no twin yet and not ``create``)."""
    from twins import selectors, services

    intent = fabric.intents.order_by("name").first()
    if intent is None:
        return None
    twin = selectors.twin_for(fabric_intent=intent, engine=ENGINE)
    if twin is None and create:
        twin = services.twin_get_or_create(fabric_intent=intent, engine=ENGINE)
    return twin


def twin_prefix(fabric) -> str:
    """The namespace prefix of the fabric's twin (what twin rollouts target)."""
    twin = twin_row(fabric)
    if twin is None:
        raise TwinError(f"fabric {fabric.name} has no twin yet: start it on the Twin page")
    return twin.prefix


def twin_status(*, fabric) -> dict:
    """The twins app's status (runtime liveness reconciled into the row) plus what the page needs."""
    from twins import services

    missing = twin_prerequisites()
    running_op = TwinOperation.objects.filter(fabric=fabric.name, status=TwinOperation.Status.RUNNING).first()
    twin = twin_row(fabric)
    if twin is None:
        state = "booting" if running_op and running_op.kind == TwinOperation.Kind.UP else "stopped"
        return {"state": state, "exists": False, "missing": missing, "busy": running_op, "running": False,
                "twin": None, "prefix": "", "no_intent": not fabric.intents.exists()}
    try:
        live = services.twin_status(twin=twin)
    except (FabricTwinError, OSError) as error:
        # informational: a transient `ip netns` failure (other twins booting) must not take the page down
        live = {"exists": None, "status_error": f"could not read the runtime state: {error}"}
    twin.refresh_from_db()
    state = "stopped" if twin.status == "down" else twin.status
    return {**live, "state": state, "missing": missing, "busy": running_op, "twin": twin,
            "running": twin.status in ("up", "degraded"), "prefix": twin.prefix}


# --------------------------------------------------------------------------------------------- heat map


def ping_matrix(twin) -> dict | None:
    """Host × host cells from the twin's last ping matrix: ✓/✗ where it pinged, 'iso'/'leak' for pairs the intent
    isolates, '–' where it did not ping (static only on this kernel, or outside the sample). None when not
    running."""
    from labs.checks import classify_pair, host_ports, svi_networks
    from labs.runtime import TwinState

    state = TwinState.load(twin.prefix, twin.state_dir or None)
    if state is None or not twin.last_report:
        return None
    topology = state.topology_obj()
    ports = host_ports(topology)
    svis = svi_networks(topology)
    vrf_devices = state.tenant_vrfs_built
    checks = {check["name"]: check for check in twin.last_report.get("checks", [])}
    ran = [name for name in ("twin.ping_bridged", "twin.ping_routed") if checks.get(name, {}).get("status")
           in ("passed", "failed")]
    # Per-pair results of the last ping matrix; a pair it did not ping is "not measured", never a pass.
    outcomes = ((twin.last_measured or {}).get("ping") or {}).get("outcomes") or {}
    hosts = sorted({port.host for port in ports})
    cells: dict[str, dict[str, dict]] = {host: {} for host in hosts}
    counts = {"ok": 0, "bad": 0, "na": 0}
    for source, destination in itertools.permutations(ports, 2):
        if source.host == destination.host:
            continue
        subject = f"{source.host}->{destination.host}"
        outcome = outcomes.get(subject)
        kind = outcome["kind"] if outcome else classify_pair(
            source, destination, vrf_devices,
            any(ipaddress.ip_address(destination.address) in subnet for subnet in svis.get(source.leaf, [])))
        replied = outcome["replied"] if outcome else None
        if replied is None:
            css, text = "na", "–"
            note = "static only" if kind == "static_only" else "not measured"
        elif kind in ("isolated", "unreachable"):
            css, text = ("bad", "leak") if replied else ("ok", "iso")
            note = kind
        else:
            css, text = ("ok", "✓") if replied else ("bad", "✗")
            note = kind
        counts[css] += 1
        cells[source.host][destination.host] = {"css": css, "text": text, "title": f"{subject}: {note}"}
    return {"hosts": hosts, "cells": cells, "counts": counts, "checks_ran": ran}


# --------------------------------------------------------------------------------------------- operations


def _up(fabric) -> dict:
    from twins import services

    twin = services.twin_up(fabric_intent=fabric_intent_of(fabric), engine=ENGINE)
    return {"status": twin.status, "switches": twin.switches, "hosts": twin.hosts, "boot_s": twin.boot_s,
            "converge_s": twin.converge_s}


def _require_twin(fabric):
    twin = twin_row(fabric)
    if twin is None:
        raise TwinError(f"the twin of {fabric.name} was never started: start it first")
    return twin


def _down(fabric) -> dict:
    from twins import services

    return services.twin_down(twin=_require_twin(fabric))


def _check(fabric) -> dict:
    from twins import services

    twin = services.twin_check(twin=_require_twin(fabric))
    return {"status": twin.status, "ok": twin.last_report.get("ok")}


def _fidelity(fabric) -> dict:
    from twins import services

    result = services.twin_fidelity(twin=_require_twin(fabric))
    return {"disagreements": result["disagreements"], "agreed_failures": result["agreed_failures"]}


def _inject(fabric, kind: str) -> dict:
    from twins import services

    return services.twin_inject(twin=_require_twin(fabric), kind=kind)["measured"]


OPERATIONS = {
    TwinOperation.Kind.UP: _up,
    TwinOperation.Kind.DOWN: _down,
    TwinOperation.Kind.PING: _check,
    TwinOperation.Kind.FIDELITY: _fidelity,
    TwinOperation.Kind.FAIL_LINK: lambda fabric: _inject(fabric, "link"),
    TwinOperation.Kind.FAIL_SPINE: lambda fabric: _inject(fabric, "spine"),
}


def twin_operation_create(*, fabric, kind: str, user=None) -> TwinOperation:
    """Record a requested operation (refused while another one runs on the same fabric's twin)."""
    if kind not in OPERATIONS:
        raise TwinError(f"kind={kind!r}: use one of {', '.join(OPERATIONS)}")
    busy = TwinOperation.objects.filter(fabric=fabric.name, status=TwinOperation.Status.RUNNING).first()
    if busy is not None and busy.runner and runner_state(busy.runner).alive is False:
        # Its process is gone (killed worker, restarted server): interrupted, not busy (twin.runs). A row without
        # a runner predates them: left to the start-up reaper.
        TwinOperation.objects.filter(pk=busy.pk, status=TwinOperation.Status.RUNNING, runner=busy.runner).update(
            status=TwinOperation.Status.FAILED, finished=timezone.now(),
            error=interrupted_error(runner_state(busy.runner).reason))
        busy = None
    if busy is not None:
        raise TwinError(f"{busy.get_kind_display()} is still running on the twin of {fabric.name} "
                        f"(started {busy.created:%H:%M:%S})")
    twin = twin_row(fabric)
    return TwinOperation.objects.create(fabric=fabric.name, prefix=twin.prefix if twin else "", kind=kind,
                                        started_by=user if user and user.is_authenticated else None,
                                        runner=runner_id())  # until a worker takes it: the requesting process


def twin_operation_execute(*, operation: TwinOperation) -> TwinOperation:
    """Do the work of a recorded operation and store the outcome; domain errors mark it failed."""
    from inventory.models import Fabric

    fabric = Fabric.objects.get(name=operation.fabric)
    operation.runner = runner_id()
    TwinOperation.objects.filter(pk=operation.pk).update(runner=operation.runner)
    try:
        operation.result = OPERATIONS[operation.kind](fabric)
        operation.status = TwinOperation.Status.OK
    except FabricTwinError as error:
        operation.status, operation.error = TwinOperation.Status.FAILED, str(error)
    except Exception as error:
        operation.status = TwinOperation.Status.FAILED
        operation.error = f"internal error: {type(error).__name__}: {error}\n{traceback.format_exc(limit=5)}"
        operation.finished = timezone.now()
        operation.save()
        raise
    twin = twin_row(fabric)
    operation.prefix = twin.prefix if twin else operation.prefix
    operation.finished = timezone.now()
    operation.save()
    return operation
