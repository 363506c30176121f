"""Command line for the twin (the Django ``manage.py twin`` command wraps the same functions).

    python -m labs up --scenario fabric.yaml [--verify]      # compile a scenario, boot it (root + FRR)
    python -m labs up --topology twin.json                    # a TwinTopology as JSON
    python -m labs up --scenario big.yaml --subset ci         # every spine + 2 leaves per pod (labs.subset)
    python -m labs up --scenario fabric.yaml --frr 8.4        # which FRR runs (auto | 10.3 | 8.4; docs/twin.md)
    python -m labs status ft3fa91c
    python -m labs verify ft3fa91c [--no-failover] [--json]
    python -m labs down ft3fa91c [--force]
    python -m labs list
    python -m labs plan --hosts a:1,b:1 (--scenario fabric.yaml | --clos 64x1024) [--worst-cut] [--json]
        [--export netlab|clabernetes]                          # shard plan (labs.shards; docs/twin.md "Shards")
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from compiler.api import compile_fabric
from compiler.clos import ClosParams, plan_clos
from compiler.errors import FabricTwinError, FieldError, InputError
from compiler.scenario import snapshot_from_scenario

from . import checks, runtime
from .from_compile import topology_from_compile
from .frr_binaries import CHOICES
from .shard_export import clabernetes_topology, netlab_multiserver_plan
from .shards import HostCapacity, graph_from_inventory, parse_hosts, plan_shards
from .subset import select_leaves, subset_from_compile, subset_topology
from .topology import TwinTopology, new_prefix


def _topology(args) -> TwinTopology:
    if args.topology:
        data = json.loads(Path(args.topology).read_text())
        if args.prefix:
            data["name_prefix"] = args.prefix
        data.setdefault("name_prefix", new_prefix())
        topology = TwinTopology.from_dict(data)
        if args.subset:  # no inventory: leaf names and leaves:N / per-pod:N (one pod) only
            topology = subset_topology(topology, select_leaves(topology, args.subset, field="--subset"),
                                       selection=args.subset)
        return topology
    scenario = yaml.safe_load(Path(args.scenario).read_text())
    result = compile_fabric(snapshot_from_scenario(scenario))
    topology = topology_from_compile(result, name_prefix=args.prefix, max_servers_per_leaf=args.max_servers_per_leaf)
    return subset_from_compile(topology, result, args.subset, field="--subset") if args.subset else topology


def _print(data) -> None:
    print(json.dumps(data, indent=2, sort_keys=True, default=str))


def _verify(state, args) -> int:
    report, measured = checks.verify(state, failover=not args.no_failover)
    if args.json:
        _print({"report": report.as_dict(), "measured": measured})
    else:
        print(report.as_text())
        _print(measured)
    return 0 if report.ok else 1


def _status_or_error(prefix: str, state_dir: Path, installation: str | None) -> dict:
    try:
        return runtime.status(prefix, state_dir, installation=installation)
    except FabricTwinError as error:  # e.g. a twin of another installation: listed, not inspected
        return {"prefix": prefix, "error": str(error)}


def _plan(args) -> int:
    """Dry-run shard plan: from the scenario's inventory (no compile) or a 2-tier ``SPINESxLEAVES`` Clos."""
    hosts = parse_hosts(args.hosts)
    if args.scenario:
        inventory = snapshot_from_scenario(yaml.safe_load(Path(args.scenario).read_text())).inventory
    else:
        spines, _, leaves = args.clos.partition("x")
        if not (spines.isdigit() and leaves.isdigit() and int(spines) > 0 and int(leaves) > 0):
            raise InputError([FieldError("--clos", args.clos, "use SPINESxLEAVES, e.g. 64x1024")])
        inventory = plan_clos(ClosParams(name="plan", spines=int(spines), leaves=int(leaves), servers_per_leaf=1,
                                         platform="sonic"))
    plan = plan_shards(graph_from_inventory(inventory), hosts, worst_cut=args.worst_cut,
                       capacity=HostCapacity(cores=args.cores, memory_mib=args.memory_gib * 1024))
    if args.export == "netlab":
        print(yaml.safe_dump(netlab_multiserver_plan(plan), sort_keys=False), end="")
    elif args.export == "clabernetes":
        print(yaml.safe_dump(clabernetes_topology(plan, name=inventory.fabric), sort_keys=False), end="")
    elif args.json:
        _print(plan.as_dict())
    else:
        print(plan.as_text())
    return 0 if plan.within_budget else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m labs", description="Fabric Twin live twin (netns + FRR)")
    parser.add_argument("--state-dir", default=None, help="where twin state files live (default out/twins)")
    parser.add_argument("--installation", default=None,
                        help="owner of the twins (labs.ownership; default FT_INSTALLATION_ID or this checkout's id; "
                             "`manage.py twin` uses the database's)")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="boot a twin")
    source = up.add_mutually_exclusive_group(required=True)
    source.add_argument("--scenario", help="scenario YAML (compiler.scenario format)")
    source.add_argument("--topology", help="TwinTopology JSON")
    up.add_argument("--prefix", help="twin prefix (default: random ft<6 hex>)")
    up.add_argument("--max-servers-per-leaf", type=int, default=None)
    up.add_argument("--verify", action="store_true", help="run the live checks after boot")
    up.add_argument("--subset", help="boot every spine and super-spine plus these leaves: comma-separated leaf names, "
                    "leaves:N, per-pod:N, pod:P, rail:R, or ci (= per-pod:2, the CI-sized default); the report says "
                    "what was left out")
    up.add_argument("--frr", choices=CHOICES, default=None,
                    help="which FRR the switches run: 10.3 (extracted by scripts/frr10.sh), 8.4 (the system's) or "
                         "auto (10.3 when extracted, else 8.4; the default, or FT_TWIN_FRR)")
    for name in ("status", "down"):
        command = sub.add_parser(name)
        command.add_argument("prefix")
    sub.choices["status"].add_argument("--sessions", action="store_true", help="also count BGP sessions")
    sub.choices["down"].add_argument("--force", action="store_true",
                                     help="also remove this installation's leftovers (ownership markers)")
    verify = sub.add_parser("verify", help="run the live checks on a running twin")
    verify.add_argument("prefix")
    for command in (up, verify):
        command.add_argument("--no-failover", action="store_true", help="skip failure injection")
        command.add_argument("--json", action="store_true")
    sub.add_parser("list", help="twins with a state file")
    plan = sub.add_parser("plan", help="cut a fabric over several twin hosts (dry run; docs/twin.md Shards)")
    plan.add_argument("--hosts", required=True, help="hosts and weights: a:1,b:1,c:2")
    fabric = plan.add_mutually_exclusive_group(required=True)
    fabric.add_argument("--scenario", help="scenario YAML (its inventory; nothing is compiled)")
    fabric.add_argument("--clos", help="a 2-tier Clos SPINESxLEAVES, e.g. 64x1024 (the 1,088-switch fabric)")
    plan.add_argument("--worst-cut", action="store_true", help="spines on the first host, leaves on the others")
    plan.add_argument("--cores", type=int, default=HostCapacity().cores, help="cores per host (budget)")
    plan.add_argument("--memory-gib", type=int, default=HostCapacity().memory_mib // 1024,
                      help="memory per host in GiB (budget)")
    plan.add_argument("--export", choices=("netlab", "clabernetes"), help="print the plan in that engine's format")
    plan.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    try:
        if args.command == "plan":
            return _plan(args)
        if args.command == "up":
            state = runtime.up(_topology(args), args.state_dir, installation=args.installation, frr=args.frr)
            topology = state.topology_obj()
            _print({"prefix": state.prefix, "label": state.label, "timings": state.timings, "frr": state.frr,
                    "config_errors": state.config_errors, "state_file": str(state.state_file),
                    "size_policy": state.size_policy, "switches": len(topology.nodes),
                    **({"subset": topology.extra["subset"]} if "subset" in topology.extra else {})})
            return _verify(state, args) if args.verify else 0
        if args.command == "status":
            data = runtime.status(args.prefix, args.state_dir, sessions=args.sessions, installation=args.installation)
            loaded = runtime.TwinState.load(args.prefix, args.state_dir) if data.get("exists") else None
            if loaded is not None:
                data["device_configs"] = checks.device_configs_of(loaded)  # what each switch runs, live or static
            _print(data)
            return 0
        if args.command == "verify":
            owned = runtime.owned_state(args.prefix, args.state_dir, installation=args.installation)
            if owned is None:
                print(f"no twin {args.prefix!r}", file=sys.stderr)
                return 2
            return _verify(owned, args)
        if args.command == "down":
            _print(runtime.down(args.prefix, args.state_dir, force=args.force, installation=args.installation))
            return 0
        if args.command == "list":
            state_dir = Path(args.state_dir or runtime.default_state_dir())
            _print([_status_or_error(path.stem, state_dir, args.installation)
                    for path in sorted(state_dir.glob("*.json"))])
            return 0
    except InputError as error:
        _print({"error": "invalid input", "fields": error.as_dict()})
        return 2
    except FabricTwinError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
