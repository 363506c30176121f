"""Which FRR the twin runs (labs.frr_binaries), without booting anything: the selection, its clear errors, the
daemon set per release, the L3VNI workaround per release and FRR 10.3's JSON. Fake binary sets are tiny shell
scripts that print what the real ``zebra --version`` prints."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from twin_sample_fabric import sample_fabric

from compiler.errors import InputError, TwinError
from labs import collectors, frr_binaries, measure, runtime
from labs.checks.l3vni import relearn_findings
from labs.frr_binaries import FrrBinaries, select_frr
from labs.runtime import daemons as daemons_module
from labs.runtime import daemons_for
from validators.findings import Severity

DATA = Path(__file__).parent / "data"


def _fake_frr(root: Path, version: str) -> Path:
    """A binary set laid out like scripts/frr10.sh's extraction (root/usr/lib/frr, root/usr/bin/vtysh)."""
    bin_dir = root / "root" / "usr" / "lib" / "frr"
    bin_dir.mkdir(parents=True)
    for daemon in ("zebra", "bgpd"):
        (bin_dir / daemon).write_text(f"#!/bin/sh\necho '{daemon} version {version}'\n")
        (bin_dir / daemon).chmod(0o755)
    vtysh = root / "root" / "usr" / "bin" / "vtysh"
    vtysh.parent.mkdir(parents=True)
    vtysh.write_text("#!/bin/sh\n")
    vtysh.chmod(0o755)
    return bin_dir


@pytest.fixture(autouse=True)
def _no_active_frr(monkeypatch):
    monkeypatch.setattr(frr_binaries, "_active", None)  # every test chooses for itself
    monkeypatch.delenv("FT_TWIN_FRR", raising=False)
    monkeypatch.delenv("FT_TWIN_L3VNI_RELEARN", raising=False)


def test_extracted_set_is_chosen_and_its_version_is_read_from_the_binary(tmp_path):
    bin_dir = _fake_frr(tmp_path, "10.3")
    chosen = select_frr(choice="10.3", directory=tmp_path)
    assert (chosen.release, chosen.version, chosen.bin_dir) == ("10.3", "10.3", str(bin_dir))
    assert chosen.vtysh == str(tmp_path / "root" / "usr" / "bin" / "vtysh")
    assert chosen.needs_mgmtd and not chosen.relearns_l3vni
    assert FrrBinaries.from_dict(json.loads(json.dumps(chosen.as_dict()))) == chosen  # as recorded in the state


def test_missing_extraction_names_the_path(tmp_path):
    with pytest.raises(InputError) as error:
        select_frr(choice="10.3", directory=tmp_path / "nothing")
    assert error.value.errors[0].field == "FT_FRR10_DIR"
    assert error.value.errors[0].value == str(tmp_path / "nothing" / "root" / "usr" / "lib" / "frr" / "zebra")
    assert "not found" in str(error.value)


def test_a_binary_that_is_not_frr_10_3_is_refused(tmp_path):
    _fake_frr(tmp_path, "9.1")
    with pytest.raises(InputError, match=r"reports FRR 9\.1, not 10\.3"):
        select_frr(choice="10.3", directory=tmp_path)


def test_a_binary_that_does_not_run_is_refused(tmp_path):
    bin_dir = _fake_frr(tmp_path, "10.3")
    (bin_dir / "zebra").write_text("#!/bin/sh\necho 'error while loading shared libraries: libyang.so.3' >&2\n")
    with pytest.raises(InputError, match="does not run.*libyang"):
        select_frr(choice="10.3", directory=tmp_path)


def test_an_unknown_choice_names_the_field_and_value(monkeypatch):
    with pytest.raises(InputError) as error:
        select_frr(choice="9.0")
    assert (error.value.errors[0].field, error.value.errors[0].value) == ("frr", "9.0")
    monkeypatch.setenv("FT_TWIN_FRR", "latest")
    with pytest.raises(InputError) as error:
        select_frr()
    assert (error.value.errors[0].field, error.value.errors[0].value) == ("FT_TWIN_FRR", "latest")


def test_auto_falls_back_to_the_system_frr_and_says_why(tmp_path, monkeypatch):
    system = _fake_frr(tmp_path / "system", "8.4.4")
    monkeypatch.setattr(frr_binaries, "SYSTEM_BIN_DIR", str(system))
    chosen = select_frr(directory=tmp_path / "not-extracted")
    assert (chosen.release, chosen.version) == ("8.4", "8.4.4")
    assert "FRR 10.3 not usable" in chosen.reason and str(tmp_path / "not-extracted") in chosen.reason
    assert chosen.relearns_l3vni and not chosen.needs_mgmtd
    _fake_frr(tmp_path / "extracted", "10.3")
    assert select_frr(directory=tmp_path / "extracted").release == "10.3"  # auto prefers 10.3 when it runs


def _use(release: str, version: str) -> None:
    frr_binaries.use_frr(FrrBinaries(release, "/x/lib/frr", "/x/bin/vtysh", "", version, "test"))


def test_daemon_set_per_release():
    _use("8.4", "8.4.4")
    assert daemons_for("", netns_vrfs=True) == [("zebra", ["-s", "16777216", "-n"]), ("bgpd", [])]
    _use("10.3", "10.3")
    # FRR 10: mgmtd first, and the netns VRF backend is a library option every daemon gets
    assert daemons_for(" neighbor X bfd\n", netns_vrfs=True) == [
        ("mgmtd", ["-w"]), ("zebra", ["-s", "16777216", "-w"]), ("bgpd", ["-w"]), ("bfdd", ["-w"])]
    assert [daemon for daemon, _ in daemons_for("", netns_vrfs=False)] == ["mgmtd", "zebra", "bgpd"]
    assert frr_binaries.active_frr().pathspace_dirs[-1] == "/var/lib/frr"


def test_frr_10_3_names_the_l3vni_vrf_tenantvrf():
    vnis = collectors.parse_l3vnis(json.loads((DATA / "leaf1_evpn_vni_detail_frr103.json").read_text()))
    assert {vni: info.vrf for vni, info in vnis.items()} == {50001: "GREEN", 50002: "RED"}
    assert vnis[50002].l2_vnis == (10110,) and vnis[50002].state == "Up"


def _lost_next_hop(monkeypatch) -> tuple[runtime.TwinState, list[list[str]]]:
    """leaf1 lost the router MAC of VTEP 10.0.4.2 (what FRR 8.4 leaves after a best-path change)."""
    topology = sample_fabric()
    topology.nodes_by_name["leaf1"].linux_plan["vrfs"] = [{"name": "TENANT_A", "table": 1001, "l3vni": 50001,
                                                           "bridge": {"name": "br3001"}}]
    state = runtime.TwinState(prefix="ftl3", label="", digest="", state_dir="/nonexistent", status="up",
                              created_at=0, node_netns={node.name: f"ftl3-{node.name}" for node in topology.nodes},
                              host_netns={}, frr_dirs=[], topology=topology.to_dict(), vrf_backend="netns",
                              vrf_netns={"leaf1": {"TENANT_A": "ftl3-leaf1+TENANT_A"}})
    neighbours = [entry if entry["dst"] != "10.0.4.2" else {"dst": "10.0.4.2", "state": ["FAILED"]}
                  for entry in json.loads((DATA / "leaf1_tenant_a_l3vni_neigh.json").read_text())]
    calls: list[list[str]] = []

    def fake_run(args, **_kwargs):
        calls.append(list(args))
        text = (DATA / "leaf1_tenant_a_routes.json").read_text() if "route" in args else json.dumps(neighbours)
        return subprocess.CompletedProcess(args, 0, stdout=text, stderr="")

    monkeypatch.setattr(measure, "run", fake_run)
    return state, calls


def test_no_clear_bgp_for_frr_10_3_and_a_loss_is_an_error(monkeypatch):
    _use("10.3", "10.3")
    state, calls = _lost_next_hop(monkeypatch)
    relearn = measure.relearn_l3vni_next_hops(state, settle_s=0)
    assert not any("clear bgp *" in call for call in calls)  # the workaround did not run
    assert relearn.as_measured() == {"lost": {"leaf1": ["10.0.4.2"]}, "resynced_s": None,
                                     "still_missing": {"leaf1": ["10.0.4.2"]}, "workaround_applied": False,
                                     "frr": "10.3"}
    findings = relearn_findings(relearn)
    assert [finding.severity for finding in findings] == [Severity.ERROR]
    assert "FRR 10.3 lost the L3VNI next hops" in findings[0].message and "Not re-learned" in findings[0].message


def test_frr_8_4_keeps_the_clear_bgp_workaround(monkeypatch):
    _use("8.4", "8.4.4")
    assert measure.l3vni_relearn_enabled()
    monkeypatch.setenv("FT_TWIN_L3VNI_RELEARN", "0")  # measure 8.4 as it is
    assert not measure.l3vni_relearn_enabled()
    _use("10.3", "10.3")
    monkeypatch.setenv("FT_TWIN_L3VNI_RELEARN", "1")
    assert measure.l3vni_relearn_enabled()


def test_loading_a_twin_state_selects_the_frr_it_runs(tmp_path):
    state = runtime.TwinState(prefix="ftfrr1", label="", digest="", state_dir=str(tmp_path), status="up",
                              created_at=0, node_netns={}, host_netns={}, frr_dirs=[])
    state.save()  # a state file from before the FRR choice (no "frr"): booted with the system's 8.4
    _use("10.3", "10.3")
    runtime.TwinState.load("ftfrr1", tmp_path)
    assert frr_binaries.active_frr() == frr_binaries.LEGACY_FRR and not frr_binaries.active_frr().needs_mgmtd
    recorded = FrrBinaries("10.3", "/x/lib/frr", "/x/bin/vtysh", "/x", "10.3", "test")
    state.frr = recorded.as_dict()
    state.save()
    runtime.TwinState.load("ftfrr1", tmp_path)
    assert frr_binaries.active_frr() == recorded  # its vtysh and frr-reload.py are the ones used from now on


@pytest.mark.skipif(os.geteuid() != 0, reason="skipped: unshare --uts (the daemon wrapper) needs root")
def test_one_wrapper_starts_the_chosen_frr_and_a_failed_start_quotes_what_it_printed(tmp_path, monkeypatch):
    """The per-switch wrapper (labs.runtime.daemons.start_daemons) starts the active FRR's binaries in order, each
    with its stdout/stderr in its own .stdio file; a daemon that fails names what it printed. Fake daemons run
    on the host (no namespace): the good one prints and writes its PID file, the broken one prints and exits 1."""
    run_dir, log_dir = tmp_path / "run", tmp_path / "log"
    (run_dir / "ftx-leaf1").mkdir(parents=True)
    log_dir.mkdir()
    bin_dir = _fake_frr(tmp_path / "frr", "10.3")
    for daemon, body in (("mgmtd", 'echo "$$" > "{run}/$ns/mgmtd.pid"'),
                         ("zebra", 'echo "zebra says hello"; echo "$$" > "{run}/$ns/zebra.pid"'),
                         ("bgpd", 'echo "bgpd: cannot bind, giving up" >&2; exit 1')):
        script = '#!/bin/bash\nwhile [ $# -gt 0 ]; do [ "$1" = -N ] && ns=$2; shift; done\n' + body.format(run=run_dir)
        (bin_dir / daemon).write_text(script + "\n")
        (bin_dir / daemon).chmod(0o755)
    monkeypatch.setattr(frr_binaries, "_active", FrrBinaries("10.3", str(bin_dir), "", "", "10.3", "test"))
    monkeypatch.setattr(daemons_module, "RUN_FRR", run_dir)
    monkeypatch.setattr(daemons_module, "ns_enter_args", lambda netns: [])

    pids = daemons_module.start_daemons("ftx-leaf1", "leaf1", [("mgmtd", []), ("zebra", ["-w"])], log_dir, False)
    assert set(pids) == {"mgmtd", "zebra"} and all(pid > 0 for pid in pids.values())
    assert (log_dir / "leaf1.zebra.stdio").read_text().strip() == "zebra says hello"

    with pytest.raises(TwinError) as failed:
        daemons_module.start_daemons("ftx-leaf1", "leaf1", [("zebra", []), ("bgpd", [])], log_dir, False)
    assert "bgpd printed: bgpd: cannot bind, giving up" in str(failed.value)
