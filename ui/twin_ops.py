"""Twin operations started from the UI, as services over the labs runtime (``labs.runtime``, ``labs.checks``).

Each operation is recorded as a ``TwinOperation`` row ('running' first, then ok/failed with what was measured),
so the page can show progress and the last result even when a Celery worker did the work. The twin of a fabric
boots the FRR rendering of the fabric's intent (``labs.from_compile``); its namespace prefix is derived from
the fabric name so every process finds the same twin.
"""

from __future__ import annotations

import hashlib
import ipaddress
import itertools
import traceback

from django.utils import timezone

from compiler.errors import FabricTwinError, TwinError
from validators.findings import Report

from .models import TwinOperation

# Keep UI-started twins small enough for a laptop: a couple of hosts per leaf exercise bridging, routing and
# ECMP; the full host matrix of a big fabric is the static validators' job.
SERVERS_PER_LEAF = 2
PING_MAX_PAIRS = 400


def twin_prefix(fabric_name: str) -> str:
    """'ft' + 6 hex digits of the fabric name: valid for labs (^[a-z][a-z0-9]{2,11}$) and stable across processes."""
    return "ft" + hashlib.sha256(fabric_name.encode()).hexdigest()[:6]


def twin_prerequisites() -> list[str]:
    from labs.shell import twin_prerequisites as missing

    return missing()


def twin_status(*, fabric) -> dict:
    """labs.runtime.status of the fabric's twin plus a display state: up | degraded | booting | stopped | failed."""
    from labs import runtime

    missing = twin_prerequisites()
    prefix = twin_prefix(fabric.name)
    status = runtime.status(prefix)
    running_op = TwinOperation.objects.filter(fabric=fabric.name, status=TwinOperation.Status.RUNNING).first()
    if not status["exists"]:
        state = "booting" if running_op and running_op.kind == TwinOperation.Kind.UP else "stopped"
    elif status["status"] == "up":
        state = "up" if status["healthy"] else "degraded"
    else:
        state = status["status"]
    return {**status, "state": state, "prefix": prefix, "missing": missing, "busy": running_op,
            "running": state in ("up", "degraded")}


def _fabric_intent(fabric):
    intent = fabric.intents.order_by("name").first()
    if intent is None:
        raise TwinError(f"fabric {fabric.name} has no fabric intent: create one (Intents) before booting its twin")
    return intent


def _topology(fabric):
    from compiler.api import compile_fabric
    from intents.adapters import fabric_snapshot
    from intents.services import allocations_sync
    from labs.from_compile import topology_from_compile

    intent = _fabric_intent(fabric)
    allocations_sync(fabric_intent=intent)
    result = compile_fabric(fabric_snapshot(intent))
    return topology_from_compile(result, name_prefix=twin_prefix(fabric.name),
                                 max_servers_per_leaf=SERVERS_PER_LEAF)


def _state(fabric):
    from labs.runtime import TwinState

    state = TwinState.load(twin_prefix(fabric.name))
    if state is None or state.status != "up":
        raise TwinError(f"the twin of {fabric.name} is not running: start it first")
    return state


def _up(fabric) -> dict:
    from labs import runtime

    missing = twin_prerequisites()
    if missing:
        raise TwinError("the twin cannot run on this machine: " + "; ".join(missing))
    state = runtime.up(_topology(fabric))
    return {"switches": len(state.node_netns), "hosts": len(state.host_netns), "timings": state.timings,
            "config_errors": state.config_errors}


def _down(fabric) -> dict:
    from labs import runtime

    return runtime.down(twin_prefix(fabric.name), force=True)


def _ping(fabric) -> dict:
    """The ping matrix as a heat map: every host pair the labs check pings, with its outcome."""
    from labs.checks import (
        check_bgp_sessions,
        check_evpn_flood_lists,
        check_ping_matrix,
        classify_pair,
        host_ports,
        svi_networks,
    )

    state = _state(fabric)
    report = Report(f"ping matrix {fabric.name}")
    # Ping only once the control plane has converged (the checks poll until then or time out); right after a
    # boot or a rollout, cross-leaf pairs would otherwise fail for a few seconds and say nothing about the intent.
    check_bgp_sessions(state, report)
    check_evpn_flood_lists(state, report)
    summary = check_ping_matrix(state, report, max_pairs=PING_MAX_PAIRS)
    topology = state.topology_obj()
    ports = host_ports(topology)
    svis = svi_networks(topology)
    vrf_devices = state.kernel.get("vrf", False)
    failed = {finding.subject for finding in report.findings if finding.severity == "error"}
    hosts = sorted({port.host for port in ports})
    cells: dict[str, dict[str, dict]] = {host: {} for host in hosts}
    for source, destination in itertools.permutations(ports, 2):
        if source.host == destination.host:
            continue
        kind = classify_pair(source, destination, vrf_devices,
                             any(ipaddress.ip_address(destination.address) in subnet
                                 for subnet in svis.get(source.leaf, [])))
        subject = f"{source.host}->{destination.host}"
        if kind == "static_only":
            css, text = "na", "–"
        elif kind in ("isolated", "unreachable"):
            css, text = ("bad", "leak") if subject in failed else ("ok", "iso")
        else:
            css, text = ("bad", "✗") if subject in failed else ("ok", "✓")
        cells[source.host][destination.host] = {"css": css, "text": text, "title": f"{subject}: {kind}"}
    return {"hosts": hosts, "cells": cells, "summary": summary, "report": report.as_dict()}


def _fidelity(fabric) -> dict:
    """Live checks vs. what the compiled model predicts (sessions, EVPN flood lists, ECMP widths, pings, MTU)."""
    from labs.checks import verify

    report, measured = verify(_state(fabric), failover=False)
    return {"report": report.as_dict(), "measured": measured}


def _fail(fabric, scope: str) -> dict:
    from labs.checks import inject_failure

    report = Report(f"failure injection {fabric.name}")
    measured = inject_failure(_state(fabric), report, scope=scope)
    return {"measured": measured, "report": report.as_dict()}


OPERATIONS = {
    TwinOperation.Kind.UP: _up,
    TwinOperation.Kind.DOWN: _down,
    TwinOperation.Kind.PING: _ping,
    TwinOperation.Kind.FIDELITY: _fidelity,
    TwinOperation.Kind.FAIL_LINK: lambda fabric: _fail(fabric, "link"),
    TwinOperation.Kind.FAIL_SPINE: lambda fabric: _fail(fabric, "spine"),
}


def twin_operation_create(*, fabric, kind: str, user=None) -> TwinOperation:
    """Record a requested operation (refused while another one runs on the same fabric's twin)."""
    if kind not in OPERATIONS:
        raise TwinError(f"kind={kind!r}: use one of {', '.join(OPERATIONS)}")
    busy = TwinOperation.objects.filter(fabric=fabric.name, status=TwinOperation.Status.RUNNING).first()
    if busy is not None:
        raise TwinError(f"{busy.get_kind_display()} is still running on the twin of {fabric.name} "
                        f"(started {busy.created:%H:%M:%S})")
    return TwinOperation.objects.create(fabric=fabric.name, prefix=twin_prefix(fabric.name), kind=kind,
                                        started_by=user if user and user.is_authenticated else None)


def twin_operation_execute(*, operation: TwinOperation) -> TwinOperation:
    """Do the work of a recorded operation and store the outcome; domain errors mark it failed."""
    from inventory.models import Fabric

    fabric = Fabric.objects.get(name=operation.fabric)
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
    operation.finished = timezone.now()
    operation.save()
    return operation


def twin_latest(*, fabric, kind: str) -> TwinOperation | None:
    return TwinOperation.objects.filter(fabric=fabric.name, kind=kind).first()
