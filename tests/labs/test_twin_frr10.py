"""FRR 10.3 (extracted by scripts/frr10.sh) runs the twin and keeps its L3VNI next hops through a failure.

The fabric is the golden three-tenant SONiC 2x4 (tests/golden/multi_tenant_l3vni): on it Debian's FRR 8.4.4 loses
a remote VTEP's router MAC after the uplink cut (measured: docs/twin-notes.md "FRR 10.3"), which the twin repairs
with `clear bgp *` only for 8.4. Here 10.3 runs without that workaround, so a lost next hop is an error.
Skipped with the reason when the twin cannot run or FRR 10.3 is not extracted.
"""

from pathlib import Path

import pytest
import yaml

from compiler.api import compile_fabric
from compiler.errors import InputError
from compiler.scenario import snapshot_from_scenario
from labs import checks, frr_binaries, runtime
from labs.from_compile import topology_from_compile
from labs.topology import new_prefix
from validators.findings import CheckStatus, Report

pytestmark = [pytest.mark.twin, pytest.mark.usefixtures("twin_required")]

SCENARIO = Path(__file__).parents[1] / "golden" / "multi_tenant_l3vni" / "scenario.yaml"


def test_frr_10_3_boots_and_keeps_l3vni_next_hops_after_a_link_failure(tmp_path):
    try:
        frr_binaries.extracted_frr()
    except InputError as error:
        pytest.skip(f"FRR 10.3 is not extracted (scripts/frr10.sh): {error}")
    result = compile_fabric(snapshot_from_scenario(yaml.safe_load(SCENARIO.read_text())))
    topology = topology_from_compile(result, name_prefix=new_prefix())
    state = runtime.up(topology, tmp_path, frr="10.3")
    try:
        zebra = runtime.run([f"{state.frr['bin_dir']}/zebra", "--version"]).stdout
        assert state.frr["version"] == "10.3" and "zebra version 10.3" in zebra  # read from the binary that ran
        assert state.config_errors == {}
        report = Report()
        checks.check_bgp_sessions(state, report, timeout_s=90)
        checks.check_l3vni_vrfs(state, report)
        measured = checks.check_failover(state, report, scope="link")
        assert checks.frr_record(state)["l3vni_workaround"] is False  # no `clear bgp *` for 10.3
        for name in ("twin.bgp_sessions", "twin.l3vni_vrfs", "twin.failover_link", "twin.l3vni_next_hops"):
            assert report.checks[name].status == CheckStatus.PASSED, report.as_text()
        assert "l3vni_next_hops_resynced" not in measured  # nothing was lost, nothing re-learned
    finally:
        runtime.down(state.prefix, tmp_path, force=True)
