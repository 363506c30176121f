"""Reads of the twins app: twins, the operations on a fabric's twin, and the ping-matrix heat map."""

from __future__ import annotations

import ipaddress
import itertools

from django.db.models import F, QuerySet

from common.runs import ACTIVE
from intents.models import FabricIntent
from inventory.models import Fabric
from labs.checks import classify_pair, host_ports, svi_networks
from labs.fidelity import ASPECT_ITEMS
from labs.runtime import TwinState
from validators.findings import CheckStatus

from .choices import TWIN_RUNNING, TwinEngineChoices, TwinOperationKindChoices, TwinStatusChoices
from .models import Twin, TwinOperation


def twin_list() -> QuerySet[Twin]:
    return Twin.objects.select_related("fabric_intent", "compile_run")


def twin_of(*, fabric_intent: FabricIntent, engine: str | None = TwinEngineChoices.NETNS,
            running: bool = False) -> Twin | None:
    """The one rule for "the twin of" a fabric intent: its twin on ``engine`` (None: on any engine, the most
    recently started first), only a running one (up or degraded) when ``running``; None when there is none.
    A fabric intent has at most one twin per engine (Twin's unique constraint)."""
    twins = twin_list().filter(fabric_intent=fabric_intent)
    if engine is not None:
        twins = twins.filter(engine=engine)
    else:  # a sharded twin (twins.shards) takes no rollout, check or fidelity yet: only when asked for by engine
        twins = twins.exclude(engine=TwinEngineChoices.SHARDED)
    if running:
        twins = twins.filter(status__in=TWIN_RUNNING)
    return twins.order_by(F("started").desc(nulls_last=True), "-id").first()


def twin_list_up(*, fabric_intent: FabricIntent) -> QuerySet[Twin]:
    """The twins of a fabric intent on any engine that are not down (running, booting or failed with leftovers)."""
    return twin_list().filter(fabric_intent=fabric_intent).exclude(status=TwinStatusChoices.DOWN)


def fabric_twin(*, fabric: Fabric) -> Twin | None:
    """The twin of a fabric: the netns twin of its first intent (by name); None without an intent or twin."""
    intent = fabric.intents.order_by("name").first()
    return None if intent is None else twin_of(fabric_intent=intent)


def fidelity_aspect_items() -> dict[str, str]:
    """What one compared item of each fidelity aspect is (labs.fidelity), so pages say what a count counts."""
    return dict(ASPECT_ITEMS)


def twin_operation_list(*, fabric: Fabric) -> QuerySet[TwinOperation]:
    return TwinOperation.objects.filter(fabric=fabric.name).select_related("requested_by")


def twin_operation_busy(*, fabric: Fabric) -> TwinOperation | None:
    """The operation still pending or running on the fabric's twin, if any (a change rehearsal boots a scratch
    twin of its own and does not hold the fabric's)."""
    return TwinOperation.objects.filter(fabric=fabric.name, status__in=ACTIVE).exclude(
        kind=TwinOperationKindChoices.REHEARSAL).first()


def twin_ping_matrix(*, twin: Twin) -> dict | None:
    """Host × host cells from the twin's last ping matrix: ✓/✗ where it pinged, 'iso'/'leak' for pairs the intent
    isolates, '–' where it did not ping (static only on this kernel, or outside the sample). None when not
    running. ``labs.checks.classify_pair`` decides what the intent expects of a pair the matrix did not ping."""
    state = TwinState.load(twin.prefix, twin.state_dir or None)
    if state is None or not twin.last_report:
        return None
    topology = state.topology_obj()
    ports = host_ports(topology)
    svis = svi_networks(topology)
    vrf_devices = state.tenant_vrfs_built
    checks = {check["name"]: check for check in twin.last_report.get("checks", [])}
    ran = [name for name in ("twin.ping_bridged", "twin.ping_routed") if checks.get(name, {}).get("status")
           in (CheckStatus.PASSED, CheckStatus.FAILED)]
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
