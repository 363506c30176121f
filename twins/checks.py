"""What the other apps measure on a twin, through the twins app (issue #28: twins/ is the only Django door to
the engine labs/): the change rehearsal on a scratch twin (recorded as a ``TwinOperation`` of kind
``rehearsal``), the live checks of a rollout on a running twin, the roles and links of a running twin's
topology, and the files a twin node runs for a device's config. changes/ calls these; it imports no labs/.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import uuid
from collections.abc import Callable, Mapping

from common.runs import run_execute
from compiler.errors import FabricTwinError, FieldError, InputError, TwinError
from intents.models import CompileRun
from labs import checks as live
from labs import runtime
from labs.from_compile import topology_from_compile
from labs.node_configs import twin_node_files
from labs.shell import twin_prerequisites
from labs.topology import TwinNode
from validators.findings import CheckStatus, Report

from .choices import TwinOperationKindChoices
from .models import Twin, TwinOperation
from .services import compile_result_for_run, installation_id

# The live checks a rollout on the twin may name (changes.policy), each one or more labs.checks functions.
TWIN_CHECKS = ("bgp", "evpn", "ping", "mtu")
REHEARSAL_PREFIX = "ftr"  # scratch twins: "ftr" + 8 hex, never a twin row's "tw" + installation prefix


def twin_rehearsal(*, compile_run_id: int, timeout_s: float, change_set_id: int | None = None) -> Report | str:
    """Boot a scratch twin with a compile run's configs, run every live check on it and tear it down. Returns
    the live report, or the reason it could not run (this machine cannot run the twin): nothing recorded then.
    Otherwise the rehearsal is a ``TwinOperation`` (kind ``rehearsal``, the run's fabric, the scratch prefix),
    so the reaper fails it if its process dies; a domain error (the twin cannot boot) fails the record and is
    raised to the caller as before, unchanged."""
    missing = twin_prerequisites()
    if missing:
        return f"skipped: the twin cannot run here ({'; '.join(missing)})"
    run = CompileRun.objects.select_related("fabric_intent__fabric").get(pk=compile_run_id)
    prefix = REHEARSAL_PREFIX + uuid.uuid4().hex[:8]
    operation = TwinOperation.objects.create(
        kind=TwinOperationKindChoices.REHEARSAL, fabric=run.fabric_intent.fabric.name, prefix=prefix,
        params={"compile_run": run.pk, "change_set": change_set_id})
    # run_execute records a domain error on the row and swallows it; the rollout must still see it, as before.
    raised: FabricTwinError | None = None
    with run_execute(operation):
        try:
            rehearsal = _rehearse(run, prefix, timeout_s)
        except FabricTwinError as error:
            raised = error
            raise
        operation.summary = {"checks": len(rehearsal.checks), "failed": sum(
            1 for result in rehearsal.checks.values() if result.status == CheckStatus.FAILED)}
    if raised is not None:
        raise raised
    return rehearsal


def _rehearse(run: CompileRun, prefix: str, timeout_s: float):
    with tempfile.TemporaryDirectory(prefix="ft-rehearsal-") as state_dir:
        try:
            topology = topology_from_compile(compile_result_for_run(run=run), name_prefix=prefix,
                                             max_servers_per_leaf=2)
            state = runtime.up(topology, state_dir=state_dir, installation=installation_id())
            rehearsal, _measured = live.verify(state, failover=False, converge_timeout_s=timeout_s)
        finally:
            runtime.down(prefix, state_dir=state_dir, force=True, installation=installation_id())
    return rehearsal


def twin_live_checks(*, twin: Twin | None, running: Callable[[str], Mapping[str, str]],
                     names: list[str], report: Report, timeout_s: float) -> None:
    """The live checks ``names`` (of ``TWIN_CHECKS``) on the running ``twin``, expecting what each node runs NOW
    (``running(hostname)``: its frr.conf and linux-plan.json, read through the rollout's driver), so a network
    added by the change is expected too."""
    if twin is None:
        raise TwinError("no twin to check (the rollout's twin was deleted)")
    state = runtime.TwinState.load(twin.prefix, twin.state_dir or None)
    if state is None:
        raise TwinError(f"twin {twin.prefix!r} is not running")
    topology = state.topology_obj()
    nodes = []
    for node in topology.nodes:
        files = running(node.name)
        nodes.append(TwinNode(node.name, files["frr.conf"], json.loads(files["linux-plan.json"]), node.role,
                              node.kind))
    current = dataclasses.replace(state, topology=dataclasses.replace(topology, nodes=tuple(nodes)).to_dict())
    if "bgp" in names:
        live.check_bgp_sessions(current, report, timeout_s=timeout_s)
    if "evpn" in names:
        live.check_evpn_flood_lists(current, report, timeout_s=timeout_s)
    if "ping" in names:
        live.check_ping_matrix(current, report)
    if "mtu" in names:
        # Expected link MTUs are the cables' underlay MTU from the twin's boot topology (the physical intent).
        live.check_link_mtu(current, report)
        live.check_host_mtu(current, report)
        live.check_host_roce_mtu(current, report)  # host to host at the RoCE frame and the hosts' netplan MTU


def twin_topology_roles_links(*, twin: Twin) -> dict:
    """Roles and links of a running twin's topology (what a rolling upgrade plans its waves over)."""
    state = runtime.TwinState.load(twin.prefix, twin.state_dir or None)
    if state is None:
        raise InputError(FieldError("twin", twin.pk, f"twin {twin.prefix} is not running: no topology to plan over"))
    topology = state.topology_obj()
    return {"roles": {node.name: node.role for node in topology.nodes},
            "links": [[link.a_node, link.b_node] for link in topology.links]}


def twin_node_files_for(*, hostname: str, role: str, platform: str, files: Mapping[str, str],
                        intended: Mapping) -> dict[str, str]:
    """What a twin node runs for a device's own platform's config (``labs.node_configs``: frr.conf + Linux
    plan), the files a twin change set pushes."""
    return twin_node_files(hostname=hostname, role=role, platform=platform, files=files, intended=intended)
