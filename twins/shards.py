"""A sharded twin: one Twin (engine ``sharded``) whose switches run on several twin hosts, one Celery worker per
host (issue 35). The work is labs/ (``labs.shards`` plans, ``labs.stitch`` stitches and reports partitions,
``labs.shard_run`` boots and verifies one shard); this module records it.

- ``twin_shards_plan``: compile, cut (``labs.shards.plan_shards``), check the underlay carries the stitched
  cables (``labs.stitch.stitch_plan``: MTU), and save the Twin with one ``TwinShard`` row per host.
- ``twin_shard_run``: what ONE host does (the task ``twins.shard`` on queue ``twin-shard.<host>``): rebuild the
  fabric's topology from the compile run, keep its shard, ``up`` / ``verify`` / ``down``, record the outcome.
- ``twin_shards_up|check|down``: the coordinator. It sends one task per shard to that shard's host queue, waits
  for every shard row to answer (never ``result.get()`` inside a task: the rows are the outcome), stitches
  nothing itself (each host creates its own ends). ``up`` is two rounds: every shard boots, then every shard
  verifies (a shard verified before its peers booted would wait for sessions that cannot come yet). It merges: a shard that failed, did not answer in time, or
  whose host left the underlay is a partition naming its switches; the twin is ``up`` only when every shard
  is up, none is lost and no host is cut off. One ``TwinOperation`` records the run with every shard's outcome.

Emulated hosts (tests, one machine): a shard whose underlay has a ``netns`` lives on the coordinator's machine
(``labs.stitch.emulate_hosts``), so the coordinator can also probe the underlay (``labs.stitch.partition_report``).
On real hosts the coordinator cannot: a lost host shows as its shard's task failing or not answering.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Mapping

from django.db import transaction
from django.utils import timezone

from common.runs import RunStatus, run_execute, runner_id
from compiler.errors import FieldError, InputError, TwinError
from intents.models import CompileRun, FabricIntent
from labs import runtime
from labs.from_compile import topology_from_compile
from labs.shard_run import shard_prefix, shard_topology, shard_verify
from labs.shards import graph_from_topology, parse_hosts, plan_shards
from labs.stitch import (
    EMULATED_UNDERLAY,
    UNDERLAY_IFNAME,
    StitchPlan,
    UnderlayHost,
    emulate_hosts,
    host_netns,
    lab_netns,
    partition_report,
    remove_emulated_hosts,
    stitch_plan,
)
from labs.topology import TwinTopology
from validators.findings import CheckStatus

from .choices import (
    SHARD_ANSWERED,
    TWIN_RUNNING,
    TwinEngineChoices,
    TwinOperationKindChoices,
    TwinShardStateChoices,
    TwinStatusChoices,
)
from .models import Twin, TwinOperation, TwinShard
from .selectors import twin_operation_busy
from .services import (
    DEFAULT_SERVERS_PER_LEAF,
    _compile_run,
    _require_twin_host,
    compile_result_for_run,
    installation_id,
    twin_get_or_create,
)

QUEUE_PREFIX = "twin-shard."
DEFAULT_WAIT_S = 600.0  # a shard of a few hundred switches boots and converges within minutes (bench/results/shards.md)
POLL_S = 0.5


def shard_queue(host: str) -> str:
    """The Celery queue of a twin host: its worker runs ``celery -A twin worker -Q twin-shard.<host>``."""
    return f"{QUEUE_PREFIX}{host}"


def parse_underlay(text: str, hosts: list[str], *, field: str = "--underlay") -> dict[str, UnderlayHost]:
    """``a=10.0.0.1@eth1:9216,b=10.0.0.2@eth1:9216`` -> each host's underlay (address, interface, MTU). Every
    host of the plan must be named; errors name ``field`` and the item."""
    errors: list[FieldError] = []
    underlay: dict[str, UnderlayHost] = {}
    for item in [part.strip() for part in (text or "").split(",") if part.strip()]:
        name, _, rest = item.partition("=")
        address, _, interface = rest.partition("@")
        ifname, _, mtu = interface.partition(":")
        try:
            ipaddress.IPv4Address(address)
            mtu_value = int(mtu)
        except ValueError:
            errors.append(FieldError(field, item, "use host=IPv4@interface:mtu, e.g. a=10.0.0.1@eth1:9216"))
            continue
        if name not in hosts:
            errors.append(FieldError(field, item, f"unknown host {name!r} (hosts: {', '.join(hosts)})"))
            continue
        if not ifname:
            errors.append(FieldError(field, item, "name the underlay interface, e.g. a=10.0.0.1@eth1:9216"))
            continue
        underlay[name] = UnderlayHost(name=name, address=address, ifname=ifname, mtu=mtu_value, netns=None)
    missing = [host for host in hosts if host not in underlay]
    if missing and not errors:
        errors.append(FieldError(field, text, f"no underlay for host(s) {', '.join(missing)}"))
    if errors:
        raise InputError(errors)
    return underlay


def emulated_underlay(prefix: str, hosts: list[str]) -> dict[str, UnderlayHost]:
    """The underlay ``labs.stitch.emulate_hosts(prefix, hosts)`` creates (same addresses, same namespaces)."""
    addresses = list(EMULATED_UNDERLAY.hosts())
    return {host: UnderlayHost(name=host, address=str(addresses[index]), ifname=UNDERLAY_IFNAME,
                               netns=host_netns(prefix, host)) for index, host in enumerate(hosts)}


def _fabric_topology(twin: Twin) -> TwinTopology:
    result = compile_result_for_run(run=twin.compile_run)
    return topology_from_compile(result, name_prefix=twin.prefix, max_servers_per_leaf=DEFAULT_SERVERS_PER_LEAF)


def _stitch_of(twin: Twin, topology: TwinTopology, shards: list[TwinShard]) -> StitchPlan:
    """The stitch plan from the shard rows (deterministic: every host computes the same VNIs)."""
    assignment = {switch: shard.host for shard in shards for switch in shard.switches}
    hosts = {shard.host: UnderlayHost(**shard.underlay) for shard in shards}
    return stitch_plan(topology, assignment, hosts)


# --------------------------------------------------------------------------------------------- plan


@transaction.atomic
def twin_shards_plan(*, fabric_intent: FabricIntent, hosts: str, underlay: str = "", emulate: bool = False,
                     worst_cut: bool = False, compile_run: CompileRun | None = None, prefix: str | None = None,
                     state_dir: str = "") -> Twin:
    """Plan the sharded twin of ``fabric_intent`` over ``hosts`` (``a:1,b:1``) and save its shard rows.
    ``underlay``: each real host's address, interface and MTU (``parse_underlay``); ``emulate``: emulated hosts
    on this machine instead. Refused while the twin runs; nothing is saved when the plan is invalid."""
    shard_hosts = parse_hosts(hosts, field="hosts")
    names = [host.name for host in shard_hosts]
    if emulate == bool(underlay):
        raise InputError(FieldError("underlay", underlay, "give each host's underlay (a=10.0.0.1@eth1:9216,...) "
                                                          "or choose emulated hosts, exactly one of the two"))
    twin = twin_get_or_create(fabric_intent=fabric_intent, engine=TwinEngineChoices.SHARDED, prefix=prefix,
                              state_dir=state_dir)
    for index in range(len(names)):
        shard_prefix(twin.prefix, index)  # InputError before anything is saved
    if twin.status not in (TwinStatusChoices.DOWN, TwinStatusChoices.FAILED) or twin.shards.exclude(
            state=TwinShardStateChoices.DOWN).exists():
        raise TwinError(f"sharded twin {twin.prefix} of {fabric_intent.name} is {twin.status} with shards not down: "
                        "run `twin_shards down` before planning it again")
    run = _compile_run(fabric_intent, compile_run)
    twin.compile_run = run
    topology = _fabric_topology(twin)
    plan = plan_shards(graph_from_topology(topology), shard_hosts, worst_cut=worst_cut)
    hosts_underlay = emulated_underlay(twin.prefix, names) if emulate else parse_underlay(underlay, names)
    stitch = stitch_plan(topology, plan.assignment, hosts_underlay)  # MTU and VNI checked here
    twin.shards.all().delete()
    for index, host in enumerate(shard_hosts):
        ends = [{"vni": link.vni, "local": f"{node}:{ifname}", "remote": f"{peer}:{peer_if}", "remote_host": other}
                for link in stitch.links
                for node, ifname, mine, peer, peer_if, other in (
                    (link.a_node, link.a_ifname, link.a_host, link.b_node, link.b_ifname, link.b_host),
                    (link.b_node, link.b_ifname, link.b_host, link.a_node, link.a_ifname, link.a_host))
                if mine == host.name]
        TwinShard.objects.create(twin=twin, index=index, host=host.name, weight=host.weight,
                                 prefix=shard_prefix(twin.prefix, index), switches=plan.switches_of(host.name),
                                 underlay=_as_dict(hosts_underlay[host.name]),
                                 stitch_endpoints=ends)
    twin.switches, twin.hosts = len(plan.assignment), len(topology.hosts)
    twin.limitations = [f"sharded over {len(names)} hosts ({plan.method}): {len(plan.cross_cables)} cross-host "
                        "cables stitched as VXLAN"]
    twin.status, twin.error = TwinStatusChoices.DOWN, ""
    twin.save()
    return twin


def _as_dict(host: UnderlayHost) -> dict:
    return {"name": host.name, "address": host.address, "ifname": host.ifname, "mtu": host.mtu, "netns": host.netns}


# --------------------------------------------------------------------------------------------- one shard (its host)


def _worker_name(worker: str | None) -> str:
    return worker or f"in-process@{socket.gethostname()}"


def twin_shard_run(*, shard: TwinShard, action: str, worker: str | None = None,
                   converge_timeout_s: float | None = None) -> dict:
    """Do ``action`` (up | verify | down) for ``shard`` on this host and record the answer on its row. A domain
    error (FRR cannot start, the underlay is gone) is the shard's answer (``failed``), not raised; a bug is
    recorded and raised."""
    if action not in ("up", "verify", "down"):
        raise InputError(FieldError("action", action, "one of up, verify, down"))
    twin = shard.twin
    state_dir = twin.state_dir or None
    started = time.monotonic()
    try:
        if action == "down":
            if runtime.TwinState.load(shard.prefix, state_dir) is None:
                outcome = {"state": TwinShardStateChoices.DOWN, "result": {"already_down": True}}
            else:
                _require_twin_host()
                summary = runtime.down(shard.prefix, state_dir, installation=installation_id())
                outcome = {"state": TwinShardStateChoices.DOWN, "result": summary}
        else:
            _require_twin_host()
            topology = _fabric_topology(twin)
            shards = list(twin.shards.order_by("index"))
            stitch = _stitch_of(twin, topology, shards)
            if action == "up":  # boot only: the coordinator verifies once every shard booted
                part = shard_topology(topology, stitch, shard.host, prefix=shard.prefix)
                state = runtime.up(part, state_dir, installation=installation_id())
                outcome = {"state": TwinShardStateChoices.BOOTED,
                           "result": {"boot_s": state.timings.get("boot_s"), "switches": len(state.node_netns),
                                      "servers": len(state.host_netns)}}
            else:
                state = runtime.owned_state(shard.prefix, state_dir, installation=installation_id())
                if state is None or state.status != "up":
                    raise TwinError(f"shard {shard.host} ({shard.prefix}) is not running on this host")
                report, measured = shard_verify(state, topology, timeout_s=converge_timeout_s)
                outcome = {"state": TwinShardStateChoices.UP if report.ok else TwinShardStateChoices.DEGRADED,
                           "result": {"report": report.as_dict(), **measured, "boot_s": state.timings.get("boot_s"),
                                      "switches": len(state.node_netns), "servers": len(state.host_netns)}}
    except TwinError as error:
        outcome = {"state": TwinShardStateChoices.FAILED, "result": {}, "error": str(error)}
    except InputError as error:
        outcome = {"state": TwinShardStateChoices.FAILED, "result": {}, "error": str(error)}
    except Exception as error:
        _record(shard, {"state": TwinShardStateChoices.FAILED, "result": {},
                        "error": f"internal error: {type(error).__name__}: {error}"}, worker, action, started)
        raise
    return _record(shard, outcome, worker, action, started)


def _record(shard: TwinShard, outcome: Mapping, worker: str | None, action: str, started: float) -> dict:
    result = {**outcome["result"], "action": action, "seconds": round(time.monotonic() - started, 2),
              "at": timezone.now().isoformat()}
    TwinShard.objects.filter(pk=shard.pk).update(state=outcome["state"], worker=_worker_name(worker),
                                                 last_result=result, error=outcome.get("error", ""),
                                                 updated=timezone.now())
    return {"shard": shard.pk, "host": shard.host, "state": outcome["state"], "error": outcome.get("error", ""),
            "worker": _worker_name(worker)}


# --------------------------------------------------------------------------------------------- coordinator


def _dispatch(shards: list[TwinShard], action: str, converge_timeout_s: float | None,
              wait_s: float) -> dict[int, str]:
    """One task per shard on its host's queue, expiring when the coordinator stops waiting (a worker started
    later must not boot a shard nobody waits for). Returns the shards the broker refused (shard -> why)."""
    from .tasks import twin_shard_task  # here: tasks import this module

    TwinShard.objects.filter(pk__in=[shard.pk for shard in shards]).update(state=TwinShardStateChoices.PENDING,
                                                                          error="")
    refused: dict[int, str] = {}
    for shard in shards:
        try:
            twin_shard_task.apply_async(args=(shard.pk, action, converge_timeout_s), queue=shard_queue(shard.host),
                                          expires=wait_s)
        except Exception as error:  # broker down, or a bug raised by an eager task: the shard's outcome
            refused[shard.pk] = f"{type(error).__name__}: {error}"
    return refused


def _wait(shards: list[TwinShard], refused: Mapping[int, str], wait_s: float) -> list[TwinShard]:
    """Poll the rows until every shard answered or ``wait_s`` passed; the silent ones become ``lost``."""
    deadline = time.monotonic() + wait_s
    ids = [shard.pk for shard in shards]
    while True:
        rows = list(TwinShard.objects.filter(pk__in=ids).order_by("index"))
        silent = [row for row in rows if row.state not in SHARD_ANSWERED and row.pk not in refused]
        if not silent or time.monotonic() >= deadline:
            break
        time.sleep(POLL_S)
    for row in rows:
        if row.pk in refused and row.state not in SHARD_ANSWERED:
            row.state, row.error = TwinShardStateChoices.FAILED, f"not sent to {shard_queue(row.host)}: {refused[row.pk]}"
        elif row.state not in SHARD_ANSWERED:
            row.state, row.error = TwinShardStateChoices.LOST, (f"no answer from the worker on {shard_queue(row.host)} "
                                                                f"within {wait_s:.0f} s")
        else:
            continue
        TwinShard.objects.filter(pk=row.pk).update(state=row.state, error=row.error, updated=timezone.now())
    return rows


def _partition(twin: Twin, rows: list[TwinShard], expect_running: bool) -> dict:
    """Lost hosts: shards that failed or did not answer, plus (emulated hosts, whose underlay this machine can
    see) hosts cut off the underlay (``labs.stitch.partition_report``). Each lost switch is named."""
    lost = {row.host: row.error or row.state for row in rows
            if row.state in (TwinShardStateChoices.FAILED, TwinShardStateChoices.LOST)}
    underlay = None
    if expect_running and rows and all(row.underlay.get("netns") for row in rows):
        assignment = {switch: row.host for row in rows for switch in row.switches}
        plan = StitchPlan(port=0, links=(), hosts={row.host: UnderlayHost(**row.underlay) for row in rows},
                          assignment=assignment)
        underlay = partition_report(plan)
        for host in underlay["lost_hosts"]:
            lost.setdefault(host, "its underlay is down or unreachable from the other hosts")
    lost_switches = sorted(switch for row in rows if row.host in lost for switch in row.switches)
    return {"partitioned": bool(lost), "lost_hosts": sorted(lost), "why": lost, "lost_switches": lost_switches,
            "underlay": underlay,
            "message": (f"partition: host(s) {', '.join(sorted(lost))} lost with switches {', '.join(lost_switches)}"
                        if lost else "every shard answered and every host reaches the others")}


def _coordinate(*, twin: Twin, kind: str, action: str, wait_s: float, converge_timeout_s: float | None = None,
                user=None) -> TwinOperation:
    fabric = twin.fabric_intent.fabric
    busy = twin_operation_busy(fabric=fabric)
    if busy is not None:
        raise TwinError(f"{busy.get_kind_display()} is still running on the twin of {fabric.name}")
    shards = list(twin.shards.order_by("index"))
    if not shards:
        raise TwinError(f"sharded twin {twin.prefix} has no shards: run `twin_shards plan` first")
    operation = TwinOperation.objects.create(fabric=fabric.name, prefix=twin.prefix, kind=kind, twin=twin,
                                             params={"wait_s": wait_s, "converge_timeout_s": converge_timeout_s}, status=RunStatus.RUNNING,
                                             requested_by=user if user and user.is_authenticated else None,
                                             runner=runner_id())
    with run_execute(operation):
        operation.result = _coordinated(twin, shards, action, wait_s, converge_timeout_s)
        operation.summary = {"shards": len(shards), "up": sum(1 for shard in operation.result["shards"].values()
                                                              if shard["state"] == TwinShardStateChoices.UP),
                             "partitioned": operation.result["partition"]["partitioned"],
                             "status": operation.result["status"]}
    return operation


def _coordinated(twin: Twin, shards: list[TwinShard], action: str, wait_s: float,
                 converge_timeout_s: float | None) -> dict:
    emulated = all(shard.underlay.get("netns") for shard in shards)
    if action == "up":
        Twin.objects.filter(pk=twin.pk).update(status=TwinStatusChoices.BOOTING, error="", runner=runner_id())
        if emulated:
            _require_twin_host()
            existing = set(runtime.run(["ip", "netns", "list"], check=False).stdout.split())
            if lab_netns(twin.prefix) not in existing:
                emulate_hosts(twin.prefix, [shard.host for shard in shards])
    rows = _wait(shards, _dispatch(shards, action, converge_timeout_s, wait_s), wait_s)
    if action == "up":  # every shard booted (its stitched ends too): now each verifies against the whole fabric
        booted = [row for row in rows if row.state == TwinShardStateChoices.BOOTED]
        refused = _dispatch(booted, "verify", converge_timeout_s, wait_s)
        verified = {row.pk: row for row in _wait(booted, refused, wait_s)}
        rows = [verified.get(row.pk, row) for row in rows]
    running = action != "down"
    partition = _partition(twin, rows, running)
    if not running and emulated:
        remove_emulated_hosts(twin.prefix, {row.host: UnderlayHost(**row.underlay) for row in rows})
    outcomes = {row.host: {"state": row.state, "switches": row.switches, "worker": row.worker, "error": row.error,
                           "queue": shard_queue(row.host), "ok": (row.last_result.get("report") or {}).get("ok"),
                           "converged_s": row.last_result.get("converged_s"),
                           "failed_checks": [check["name"] for check in (row.last_result.get("report") or {})
                                             .get("checks", []) if check.get("status") == CheckStatus.FAILED]}
                for row in rows}
    if running:
        all_up = all(row.state == TwinShardStateChoices.UP for row in rows)
        status = TwinStatusChoices.UP if all_up and not partition["partitioned"] else (
            TwinStatusChoices.FAILED if all(row.state in (TwinShardStateChoices.FAILED, TwinShardStateChoices.LOST)
                                            for row in rows) else TwinStatusChoices.DEGRADED)
        answers = {"sessions": {}, "ecmp": {}}
        for row in rows:
            for key in answers:
                answers[key].update(((row.last_result.get("answers") or {}).get(key)) or {})
        converged = [row.last_result.get("converged_s") for row in rows]
        fields = {"status": status, "error": partition["message"] if partition["partitioned"] else (
            "" if all_up else "live checks failed on shard(s) " + ", ".join(
                row.host for row in rows if row.state != TwinShardStateChoices.UP)),
            "last_report": {"ok": status == TwinStatusChoices.UP, "shards": outcomes, "partition": partition},
            "last_measured": {"answers": answers},
            "converge_s": max(converged) if converged and None not in converged else None}
        if action == "up":
            fields["started"] = timezone.now()
            fields["boot_s"] = max((row.last_result.get("boot_s") or 0.0) for row in rows)
    else:
        answers = {}
        status = TwinStatusChoices.DOWN if all(row.state == TwinShardStateChoices.DOWN for row in rows) else (
            TwinStatusChoices.FAILED)
        fields = {"status": status, "error": "" if status == TwinStatusChoices.DOWN else "teardown failed on shard(s) "
                  + ", ".join(row.host for row in rows if row.state != TwinShardStateChoices.DOWN)}
    Twin.objects.filter(pk=twin.pk).update(**fields, updated=timezone.now())
    return {"status": status, "shards": outcomes, "partition": partition, "answers": answers}


def twin_shards_up(*, twin: Twin, wait_s: float = DEFAULT_WAIT_S, converge_timeout_s: float | None = None,
                   user=None) -> TwinOperation:
    """Boot every shard on its host's worker, verify each against the whole fabric, record one run.
    ``converge_timeout_s``: how long each shard waits for its BGP sessions (default: its size policy's)."""
    return _coordinate(twin=twin, kind=TwinOperationKindChoices.SHARDS_UP, action="up", wait_s=wait_s,
                       converge_timeout_s=converge_timeout_s, user=user)


def twin_shards_check(*, twin: Twin, wait_s: float = DEFAULT_WAIT_S, converge_timeout_s: float | None = None,
                      user=None) -> TwinOperation:
    """Verify every running shard again (and the underlay, on emulated hosts); a lost host is a partition."""
    if twin.status not in TWIN_RUNNING:
        raise TwinError(f"sharded twin {twin.prefix} is {twin.status}: run `twin_shards up` first")
    return _coordinate(twin=twin, kind=TwinOperationKindChoices.SHARDS_CHECK, action="verify", wait_s=wait_s,
                       converge_timeout_s=converge_timeout_s, user=user)


def twin_shards_down(*, twin: Twin, wait_s: float = DEFAULT_WAIT_S, user=None) -> TwinOperation:
    """Stop every shard on its host (idempotent) and remove emulated hosts."""
    return _coordinate(twin=twin, kind=TwinOperationKindChoices.SHARDS_DOWN, action="down", wait_s=wait_s,
                       user=user)


def twin_shards_status(*, twin: Twin) -> dict:
    """The twin's recorded status and each shard's last answer (no task is sent)."""
    return {"twin": twin.pk, "prefix": twin.prefix, "status": twin.status, "error": twin.error,
            "partition": (twin.last_report or {}).get("partition"),
            "shards": [{"index": shard.index, "host": shard.host, "queue": shard_queue(shard.host),
                        "prefix": shard.prefix, "state": shard.state, "switches": shard.switches,
                        "underlay": shard.underlay, "stitched_cables": len(shard.stitch_endpoints),
                        "worker": shard.worker, "error": shard.error, "updated": shard.updated.isoformat()}
                       for shard in twin.shards.order_by("index")]}
