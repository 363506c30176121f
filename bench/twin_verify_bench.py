"""Boot, verify and tear down compiled FRR fabrics of several sizes; one table row per size (root + FRR).

    python -m bench.twin_verify_bench --sizes 2x2,2x4,4x16 [--underlay unnumbered] [--state-dir DIR] [--frr 10.3]

Each row: switches, hosts, boot and BGP-convergence seconds, RSS per switch, link failover (local/remote
convergence, outage) and spine outage from the live checks (labs.checks.verify), and the check counts. The
exit status is 1 when any size had a failing check. bench/twin_bench.py measures boot-to-converged and memory
without failure injection (``make bench``). ``--frr`` picks the FRR (labs.frr_binaries; default auto); each row
names the FRR version that ran (read from its zebra) and the L3VNI next hops lost after the failures, and
whether the `clear bgp *` workaround was applied (only for FRR 8.4).
"""

from __future__ import annotations

import argparse
import sys

from compiler.api import compile_fabric
from compiler.scenario import snapshot_from_scenario
from labs import checks, runtime
from labs.from_compile import topology_from_compile
from labs.frr_binaries import CHOICES
from labs.shell import twin_prerequisites


def run(args) -> int:
    header = ("fabric", "frr", "switches", "hosts", "boot_s", "bgp_converged_s", "rss_per_switch_mib", "link_local_s",
              "link_remote_s", "link_outage_ms", "spine_outage_ms", "l3vni_lost", "workaround", "checks")
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
        state = runtime.up(topology, args.state_dir, frr=args.frr)
        try:
            report, measured = checks.verify(state)
        finally:
            runtime.down(state.prefix, args.state_dir, force=True)
        counts = report.counts()
        worst = max(worst, 0 if report.ok else 1)
        link, spine = measured.get("failover_link", {}), measured.get("failover_spine", {})
        lost = [entry.get("l3vni_next_hops_resynced") or {} for entry in (link, spine)]
        row = (size, measured["frr"]["version"], len(topology.nodes), len(topology.hosts), state.timings.get("boot_s"),
               measured["bgp"].get("converged_s"), measured["resources"]["rss_per_switch_mib"],
               link.get("local_converged_s"), link.get("remote_converged_s"),
               round(link.get("outage_s", 0) * 1000), round(spine.get("outage_s", 0) * 1000),
               sum(len(vteps) for entry in lost for vteps in entry.get("lost", {}).values()),
               "applied" if any(entry.get("workaround_applied") for entry in lost) else
               ("off" if not measured["frr"]["l3vni_workaround"] else "not needed"),
               f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
        print(" | ".join(str(value) for value in row), flush=True)
    return worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.twin_verify_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2x2,2x4", help="SPINESxLEAVES list, e.g. 2x2,4x16")
    parser.add_argument("--underlay", default="numbered", choices=["numbered", "unnumbered"])
    parser.add_argument("--state-dir", default=None, help="where twin state files live (default out/twins)")
    parser.add_argument("--frr", choices=CHOICES, default=None,
                        help="which FRR the switches run (default auto: 10.3 when extracted, else 8.4)")
    args = parser.parse_args(argv)
    missing = twin_prerequisites()
    if missing:
        print(f"skipped: {'; '.join(missing)}")
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
