"""Adoption benchmark: ``python -m bench.adopt_bench [--write] [--only NAME]``.

Adopts public multi-device fabrics (tests/data/corpus: configs this project did not write; SOURCES.md there) and
the fabrics this project builds (tests/golden scenarios, examples/), then runs the adoption proof
(compiler.adopt.adoption_proof: compile the adopted fabric, carried lines back, parse, semantic diff on modelled
fields). Per fabric: devices adopted, lines recognised (%), cables inferred, carried lines (and whether each came
back byte for byte), refusals, the semantic diff and its residual fields grouped by field (record keys removed),
or the refusal that stopped the adoption (an AdoptionError or an intent the compiler refuses, with its message).
``--write`` stores bench/results/adopt.md and adopt.json. A benchmark, not a test: tests/compiler/test_adopt*.py
hold the invariants.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

from compiler.adopt import AdoptionProof, adoption_plan, adoption_proof
from compiler.api import compile_fabric
from compiler.errors import FabricTwinError
from compiler.parse.files import configs_from_directory
from compiler.scenario import snapshot_from_scenario

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
RESULTS = ROOT / "bench" / "results"

# (name, kind, directory): public multi-device fabrics (EVPN L3LS eBGP, IGP underlays, SONiC, FRR, L2, small
# BGP snapshots).
PUBLIC = (
    ("avd/single-dc-l3ls", "EVPN L3LS eBGP", "avd/single-dc-l3ls"),
    ("avd/dual-dc-l3ls", "EVPN L3LS eBGP", "avd/dual-dc-l3ls"),
    ("avd/cv_deploy", "EVPN L3LS eBGP", "avd/cv_deploy"),
    ("avd/cv_workflow", "EVPN L3LS eBGP", "avd/cv_workflow"),
    ("avd/eos_config_deploy_cvp", "EVPN L3LS eBGP", "avd/eos_config_deploy_cvp"),
    ("avd/evpn_underlay_ebgp_overlay_ebgp", "EVPN L3LS eBGP", "avd/evpn_underlay_ebgp_overlay_ebgp"),
    ("avd/evpn_underlay_rfc5549_overlay_ebgp", "EVPN L3LS eBGP (RFC 5549)", "avd/evpn_underlay_rfc5549_overlay_ebgp"),
    ("avd/eos_designs-twodc-5stage-clos", "EVPN 5-stage eBGP", "avd/eos_designs-twodc-5stage-clos"),
    ("avd/evpn_underlay_isis_overlay_ibgp", "EVPN IGP underlay + iBGP overlay", "avd/evpn_underlay_isis_overlay_ibgp"),
    ("avd/evpn_underlay_ospf_overlay_ebgp", "EVPN IGP underlay + eBGP overlay", "avd/evpn_underlay_ospf_overlay_ebgp"),
    ("avd/isis-ldp-ipvpn", "IGP underlay + iBGP (MPLS)", "avd/isis-ldp-ipvpn"),
    ("avd/eos_designs-mpls-isis-sr-ldp", "IGP underlay + iBGP (MPLS)", "avd/eos_designs-mpls-isis-sr-ldp"),
    ("avd/eos_designs-l2ls", "L2 leaf-spine", "avd/eos_designs-l2ls"),
    ("avd/l2ls-fabric", "L2 leaf-spine", "avd/l2ls-fabric"),
    ("avd/campus-fabric", "L2 campus", "avd/campus-fabric"),
    ("batfish/snapshot-arista-bgp-local-as", "eBGP pair", "batfish/snapshot-arista-bgp-local-as"),
    ("batfish/snapshot-bgp-local-preference", "eBGP triangle", "batfish/snapshot-bgp-local-preference"),
    ("sonic-mgmt/7nodes-cisco", "SONiC", "sonic-mgmt/7nodes-cisco"),
    ("sonic-mgmt/7nodes-force10", "SONiC", "sonic-mgmt/7nodes-force10"),
    ("containerlab/frr01", "FRR", "containerlab/frr01"),
)
# Fabrics this project builds: scenario files (compiler.scenario), compiled on each device's own platform.
OWN = (
    ("golden/single_tenant_2x4", "tests/golden/single_tenant_2x4/scenario.yaml"),
    ("golden/multi_tenant_l3vni", "tests/golden/multi_tenant_l3vni/scenario.yaml"),
    ("golden/mixed_eos_sonic", "tests/golden/mixed_eos_sonic/scenario.yaml"),
    ("golden/roce_lossless", "tests/golden/roce_lossless/scenario.yaml"),
    ("golden/grown_fabric", "tests/golden/grown_fabric/scenario.yaml"),
    ("golden/five_stage_2pods", "tests/golden/five_stage_2pods/scenario.yaml"),
    ("examples/reference-fabric (demo)", "examples/reference-fabric.yaml"),
    ("examples/frontend-fabric", "examples/frontend-fabric.yaml"),
    ("examples/pods-5stage", "examples/pods-5stage.yaml"),
)
# Built here from parameters (no RoCE: FRR/Linux configs state no port speed, which PFC headroom needs).
BUILT = (
    ("built/frr-2x4", {"clos": {"name": "frr24", "spines": 2, "leaves": 4, "servers_per_leaf": 2, "platform": "frr"},
                       "intent": {"name": "frr24", "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                                  "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10,
                                                "subnet": "10.10.0.0/24", "gateway": "10.10.0.1",
                                                "attachments": "all"}]}}),
    ("built/sonic-2x4", {"clos": {"name": "sonic24", "spines": 2, "leaves": 4, "servers_per_leaf": 2,
                                  "platform": "sonic"},
                         "intent": {"name": "sonic24", "tenants": [{"name": "A", "vrf": "TENANT_A"}],
                                    "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10,
                                                  "subnet": "10.10.0.0/24", "gateway": "10.10.0.1",
                                                  "attachments": "all"}],
                                    "roce_classes": [{"name": "roce", "dscp": [26], "priority": 3,
                                                      "traffic_class": 3, "lossless": True, "ecn_min_kb": 150,
                                                      "ecn_max_kb": 1500, "ecn_mark_probability": 10}]}}),
)
_RECORD = re.compile(r"\[[^\]]*\]")


def own_configs(scenario: Path | dict) -> dict[str, dict[str, str]]:
    """A scenario compiled, each device on its own platform, as a config set ({device: {file: text}})."""
    data = scenario if isinstance(scenario, dict) else yaml.safe_load(scenario.read_text())
    snapshot = snapshot_from_scenario(data)
    result = compile_fabric(snapshot)
    platform_of = {switch.hostname: switch.platform for switch in snapshot.inventory.switches}
    return {host: dict(result.rendered[host][platform_of[host]]) for host in result.rendered}


def residual_fields(proof: AdoptionProof) -> dict[str, int]:
    fields: Counter[str] = Counter()
    for device in proof.devices.values():
        for path, _, _ in device.diff:
            fields[_RECORD.sub("[]", path)] += 1
    return dict(fields.most_common())


def run_one(name: str, kind: str, configs: dict[str, dict[str, str]]) -> dict:
    started = time.process_time()
    row: dict = {"fabric": name, "kind": kind, "config_devices": len(configs)}
    try:
        plan = adoption_plan(configs, name=re.sub(r"[^A-Za-z0-9_-]", "-", name)[:60])
        proof = adoption_proof(plan)
    except FabricTwinError as error:
        row.update(status="refused", error=f"{type(error).__name__}: {error}"[:600])
        return row
    except Exception as error:  # a benchmark reports a crash as a row, the tests fail on it
        row.update(status="refused", error=f"CRASH {type(error).__name__}: {error}"[:600])
        return row
    row.update(status="adopted", devices=len(proof.devices), recognised_percent=round(proof.recognised_percent, 1),
               cables_inferred=len(plan.cables), carried_lines=proof.carried_lines,
               carried_intact=proof.carried_intact, refused=len(plan.refused), semantic_diff=proof.semantic_diff,
               residual=residual_fields(proof), recognised=plan.recognised,
               refusals=[str(item) for item in plan.refused][:20], cpu_s=round(time.process_time() - started, 2))
    return row


def run(only: str | None = None) -> list[dict]:
    rows = []
    for name, kind, directory in PUBLIC:
        if only and only != name:
            continue
        rows.append(run_one(name, kind, configs_from_directory(CORPUS / directory)))
    for name, scenario in OWN:
        if only and only != name:
            continue
        rows.append(run_one(name, "built here", own_configs(ROOT / scenario)))
    for name, data in BUILT:
        if only and only != name:
            continue
        rows.append(run_one(name, "built here", own_configs(data)))
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| fabric | kind | devices | recognised % | inferred cables | carried lines (intact) | refused | "
             "semantic diff |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if row["status"] != "adopted":
            lines.append(f"| {row['fabric']} | {row['kind']} | 0 of {row['config_devices']} | - | - | - | all | "
                         f"refused: {row['error'][:160].replace('|', '/')} |")
            continue
        lines.append(f"| {row['fabric']} | {row['kind']} | {row['devices']} of {row['config_devices']} | "
                     f"{row['recognised_percent']} | {row['cables_inferred']} | {row['carried_lines']} "
                     f"({'yes' if row['carried_intact'] else 'NO'}) | {row['refused']} | {row['semantic_diff']} |")
    return "\n".join(lines)


def residual_section(rows: list[dict]) -> str:
    out = []
    for row in rows:
        if row["status"] == "adopted" and row["residual"]:
            fields = ", ".join(f"`{path}` x{count}" for path, count in list(row["residual"].items())[:12])
            more = len(row["residual"]) - 12
            out.append(f"- **{row['fabric']}**: {fields}" + (f" (+{more} more fields)" if more > 0 else ""))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="store bench/results/adopt.md and adopt.json")
    parser.add_argument("--only", help="one fabric by name")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory():
        rows = run(options.only)
    text = (f"# Adoption: adopt -> compile -> parse, semantic diff on modelled fields\n\n"
            f"`python -m bench.adopt_bench --write` ({time.strftime('%Y-%m-%d', time.gmtime())}). "
            "Recognised % = original config lines (config_db.json: fields) the compiled rendering states verbatim; "
            "carried lines come back byte for byte when `intact` says yes; semantic diff = modelled fields that "
            "differ between the adopted configs and the compiled ones, plus fields a carried line would change.\n\n"
            + table(rows) + "\n\n## Residual fields (semantic diff by field)\n\n" + (residual_section(rows) or "none")
            + "\n")
    print(text)
    if options.write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "adopt.md").write_text(text)
        (RESULTS / "adopt.json").write_text(json.dumps(rows, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
