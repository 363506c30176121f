"""Command line for the twin (the Django ``manage.py twin`` command wraps the same functions).

    python -m labs up --scenario fabric.yaml [--verify]      # compile a scenario, boot it (root + FRR)
    python -m labs up --topology twin.json                    # a TwinTopology as JSON
    python -m labs status ft3fa91c
    python -m labs verify ft3fa91c [--no-failover] [--json]
    python -m labs down ft3fa91c [--force]
    python -m labs list
    python -m labs bench --sizes 2x2,2x4,4x16                # boot, verify, tear down; print a table
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from compiler.errors import FabricTwinError, IntentValidationError

from . import checks, runtime
from .topology import TwinTopology, new_prefix


def _topology(args) -> TwinTopology:
    if args.topology:
        data = json.loads(Path(args.topology).read_text())
        if args.prefix:
            data["name_prefix"] = args.prefix
        data.setdefault("name_prefix", new_prefix())
        return TwinTopology.from_dict(data)
    from compiler.api import compile_fabric
    from compiler.scenario import snapshot_from_scenario

    from .from_compile import topology_from_compile

    scenario = yaml.safe_load(Path(args.scenario).read_text())
    result = compile_fabric(snapshot_from_scenario(scenario))
    return topology_from_compile(result, name_prefix=args.prefix, max_servers_per_leaf=args.max_servers_per_leaf)


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


def _bench(args) -> int:
    from compiler.api import compile_fabric
    from compiler.scenario import snapshot_from_scenario

    from .from_compile import topology_from_compile

    header = ("fabric", "switches", "hosts", "boot_s", "bgp_converged_s", "rss_per_switch_mib", "link_local_s",
              "link_remote_s", "link_outage_ms", "spine_outage_ms", "checks")
    print(" | ".join(header))
    worst = 0
    for size in args.sizes.split(","):
        spines, leaves = (int(part) for part in size.lower().split("x"))
        scenario = {"clos": {"spines": spines, "leaves": leaves, "servers_per_leaf": 1, "platform": "frr"},
                    "intent": {"name": f"bench{size}", "underlay": args.underlay,
                               "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                               "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/22",
                                             "gateway": "10.10.0.1", "attachments": "all"}]}}
        topology = topology_from_compile(compile_fabric(snapshot_from_scenario(scenario)))
        state = runtime.up(topology, args.state_dir)
        try:
            report, measured = checks.verify(state)
        finally:
            runtime.down(state.prefix, args.state_dir, force=True)
        counts = report.counts()
        worst = max(worst, 0 if report.ok else 1)
        link, spine = measured.get("failover_link", {}), measured.get("failover_spine", {})
        row = (size, len(topology.nodes), len(topology.hosts), state.timings.get("boot_s"),
               measured["bgp"].get("converged_s"), measured["resources"]["rss_per_switch_mib"],
               link.get("local_converged_s"), link.get("remote_converged_s"),
               round(link.get("outage_s", 0) * 1000), round(spine.get("outage_s", 0) * 1000),
               f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
        print(" | ".join(str(value) for value in row), flush=True)
    return worst


def _status_or_error(prefix: str, state_dir: Path, installation: str | None) -> dict:
    try:
        return runtime.status(prefix, state_dir, installation=installation)
    except FabricTwinError as error:  # e.g. a twin of another installation: listed, not inspected
        return {"prefix": prefix, "error": str(error)}


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
    bench = sub.add_parser("bench", help="boot/verify/tear down compiled FRR fabrics of several sizes")
    bench.add_argument("--sizes", default="2x2,2x4", help="SPINESxLEAVES list, e.g. 2x2,4x16")
    bench.add_argument("--underlay", default="numbered", choices=["numbered", "unnumbered"])
    args = parser.parse_args(argv)

    try:
        if args.command == "up":
            state = runtime.up(_topology(args), args.state_dir, installation=args.installation)
            _print({"prefix": state.prefix, "label": state.label, "timings": state.timings,
                    "config_errors": state.config_errors, "state_file": str(state.state_file)})
            return _verify(state, args) if args.verify else 0
        if args.command == "status":
            _print(runtime.status(args.prefix, args.state_dir, sessions=args.sessions, installation=args.installation))
            return 0
        if args.command == "verify":
            state = runtime.owned_state(args.prefix, args.state_dir, installation=args.installation)
            if state is None:
                print(f"no twin {args.prefix!r}", file=sys.stderr)
                return 2
            return _verify(state, args)
        if args.command == "down":
            _print(runtime.down(args.prefix, args.state_dir, force=args.force, installation=args.installation))
            return 0
        if args.command == "bench":
            return _bench(args)
        if args.command == "list":
            state_dir = Path(args.state_dir or runtime.default_state_dir())
            _print([_status_or_error(path.stem, state_dir, args.installation)
                    for path in sorted(state_dir.glob("*.json"))])
            return 0
    except IntentValidationError as error:
        _print({"error": "invalid input", "fields": error.as_dict()})
        return 2
    except FabricTwinError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
