"""manage.py validate --configs DIR: mixed EOS/SONiC configs from a directory; the issue #15 text-only faults
fail the command with file:line; unsafe archives are refused naming the member."""

from __future__ import annotations

import io
import json
import re
import shutil
import tarfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from compiler.errors import UnsafePathError
from compiler.parse import ParseError
from compiler.parse.files import configs_from_archive

GOLDEN = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected"


def _write_configs(root: Path) -> Path:
    for structured in (GOLDEN / "structured").glob("*.json"):
        host = structured.stem
        platform = json.loads(structured.read_text())["platform"]
        shutil.copytree(GOLDEN / "rendered" / host / platform, root / host)
    return root


def test_validate_configs_clean_directory(tmp_path, capsys):
    call_command("validate", "--configs", str(_write_configs(tmp_path)))
    out = capsys.readouterr().out
    assert "validation of 6 device configs" in out and " 0 failed" in out
    assert "devices: 4 eos, 2 sonic" in out and "unmodelled lines/keys: 0" in out


def test_validate_configs_text_faults_exit_non_zero_with_file_and_line(tmp_path, capsys):
    root = _write_configs(tmp_path)
    eos = root / "leaf1" / "startup-config"
    eos.write_text(eos.read_text().replace("   spanning-tree portfast\n   service-profile FT_ROCE\n",
                                           "   spanning-tree portfast\n"))
    sonic = root / "leaf4" / "config_db.json"
    db = json.loads(sonic.read_text())
    del db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]
    sonic.write_text(json.dumps(db, indent=4, sort_keys=True))
    with pytest.raises(SystemExit) as exit_info:
        call_command("validate", "--configs", str(root), "--format", "json")
    assert exit_info.value.code == 1
    report = json.loads(capsys.readouterr().out)
    pfc = {finding["subject"]: finding["locations"] for check in report["checks"] if check["name"] == "roce.pfc"
           for finding in check["findings"] if finding["severity"] == "error"}
    assert pfc["leaf1:Ethernet1/1"][0].startswith("leaf1/startup-config:")
    assert pfc["leaf4:Ethernet0"][0].startswith("leaf4/config_db.json:")


def test_validate_configs_refuses_a_missing_directory(tmp_path):
    with pytest.raises(CommandError, match="not a directory"):
        call_command("validate", "--configs", str(tmp_path / "nope"))


def _tar(members: dict[str, bytes], symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        if symlink:
            info = tarfile.TarInfo(symlink)
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            archive.addfile(info)
    return buffer.getvalue()


def test_archive_layout_and_unsafe_members():
    text = (GOLDEN / "rendered" / "leaf1" / "eos" / "startup-config").read_bytes()
    assert configs_from_archive(_tar({"fabric/leaf1/startup-config": text})) == {
        "leaf1": {"startup-config": text.decode()}}
    with pytest.raises(UnsafePathError, match=r"\.\./x"):
        configs_from_archive(_tar({"../x": text}))
    with pytest.raises(UnsafePathError, match="not a regular file"):
        configs_from_archive(_tar({"leaf1.cfg": text}, symlink="leaf2.cfg"))


def test_validate_configs_accepts_compile_out_layout(tmp_path, capsys):
    """compile --out DIR writes DIR/<fabric>/<device>/<platform>/<file> (own platform + the twin's frr): validated on
    each device's own platform, the twin renderings set aside and said so."""
    shutil.copytree(GOLDEN / "rendered", tmp_path / "mixed" / "fabric1")
    for root in (tmp_path / "mixed", tmp_path / "mixed" / "fabric1"):  # DIR, or DIR/<fabric>
        call_command("validate", "--configs", str(root), "--format", "json")
        report = json.loads(capsys.readouterr().out)
        assert {host: device["platform"] for host, device in report["devices"].items()} == {
            "leaf1": "eos", "leaf2": "sonic", "leaf3": "eos", "leaf4": "sonic", "spine1": "eos", "spine2": "eos"}
        assert report["devices"]["leaf2"]["files"] == ["config_db.json", "frr.conf"]
        assert len(report["set_aside"]) == 6 and report["set_aside"][0].startswith(
            "leaf1/frr/: the twin's frr rendering of leaf1, not validated")
        assert all(check["status"] != "failed" for check in report["checks"])
    call_command("validate", "--configs", str(tmp_path / "mixed"))
    assert "set aside: spine2/frr/" in capsys.readouterr().out


def test_validate_configs_refuses_other_deep_layouts_naming_the_path(tmp_path):
    shutil.copytree(GOLDEN / "rendered", tmp_path / "fabric1")
    (tmp_path / "fabric1" / "leaf1" / "eos").rename(tmp_path / "fabric1" / "leaf1" / "arista")  # not a platform
    with pytest.raises(CommandError, match=r"configs='fabric1/leaf1/arista/startup-config': configs are "
                                           r"<device>/<file>, <file> or compile --out's"):
        call_command("validate", "--configs", str(tmp_path))
    shutil.copytree(GOLDEN / "rendered", tmp_path / "two" / "a")
    shutil.copytree(GOLDEN / "rendered", tmp_path / "two" / "b")
    with pytest.raises(CommandError, match=r"configs of 2 fabrics \(a, b\): give one fabric's directory"):
        call_command("validate", "--configs", str(tmp_path / "two"))


def test_compile_archive_layout_without_a_note_list_is_refused_not_dropped():
    text = (GOLDEN / "rendered" / "leaf1" / "eos" / "startup-config").read_bytes()
    frr = (GOLDEN / "rendered" / "leaf1" / "frr" / "frr.conf").read_bytes()
    members = {"fabric1/leaf1/eos/startup-config": text, "fabric1/leaf1/frr/frr.conf": frr}
    set_aside: list[str] = []
    assert configs_from_archive(_tar(members), set_aside=set_aside) == {"leaf1": {"startup-config": text.decode()}}
    assert set_aside == ["leaf1/frr/: the twin's frr rendering of leaf1, not validated (leaf1 is validated on its "
                         "own platform, eos)"]
    with pytest.raises(ParseError, match=r"rendered for eos and frr: give one platform's files"):
        configs_from_archive(_tar(members))


def test_validate_configs_refuses_a_duplicate_hostname_naming_both(tmp_path, capsys):
    root = _write_configs(tmp_path)
    shutil.copytree(root / "leaf1", root / "leaf1-old")
    with pytest.raises(CommandError, match=r"hostname 'leaf1' is claimed twice: by leaf1/startup-config and by "
                                           r"leaf1-old/startup-config"):
        call_command("validate", "--configs", str(root))


def test_validate_frr_roce_configs_with_the_fabric(db, tmp_path, capsys):
    """FRR leaves carrying RoCE, compiled with `compile --out`, validated as text with --fabric: the headroom check
    crashed with a TypeError (FRR text states no port speed); now it uses the inventory's ports and the run
    passes with 0 errors (FRR/Linux capability gaps are warnings), and a short dcb buffer fails it (issue #27)."""
    from compiler.clos import ClosParams, plan_clos
    from intents import services as intent_services
    from inventory.models import Fabric
    from inventory.services import inventory_persist

    inventory_persist(inventory=plan_clos(ClosParams(name="frrroce", spines=2, leaves=2, servers_per_leaf=1,
                                                     platform="frr", leaf_model="SN5600", spine_model="SN5600")))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="frrroce"), name="frrroce")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    intent_services.roce_defaults_apply(fabric_intent=intent)
    call_command("compile", "--fabric", "frrroce", "--platform", "frr", "--out", str(tmp_path / "out"))
    root = tmp_path / "configs"
    for host in (tmp_path / "out" / "frrroce").iterdir():
        shutil.copytree(host / "frr", root / host.name)
    capsys.readouterr()
    call_command("validate", "--configs", str(root), "--fabric", "frrroce", "--format", "json")
    report = json.loads(capsys.readouterr().out)
    checks = {check["name"]: check for check in report["checks"]}
    assert report["inventory"] == "used" and checks["roce.headroom"]["status"] == "passed"
    assert {f["severity"] for check in report["checks"] for f in check["findings"]} <= {"warning", "info"}
    assert any("Linux has no PFC watchdog" in f["message"] for f in checks["roce.platform"]["findings"])
    plan = root / "leaf1" / "linux-plan.json"
    text = plan.read_text()
    plan.write_text(re.sub(r"buffer-size (\d+):\d+", r"buffer-size \1:1024", text))  # dcb buffer ... buffer-size P:N
    assert plan.read_text() != text
    with pytest.raises(SystemExit) as exit_info:
        call_command("validate", "--configs", str(root), "--fabric", "frrroce")
    assert exit_info.value.code == 1 and "roce.headroom" in capsys.readouterr().out


WAN_NEIGHBOR = "   neighbor 192.0.2.1 remote-as 65535\n"


def _with_external_peer(root: Path) -> Path:
    """leaf1 (EOS) gains a BGP neighbor no device of the set owns: an external peer."""
    eos = root / "leaf1" / "startup-config"
    text = eos.read_text()
    head, bgp, tail = text.partition("router bgp ")
    first_line, _, rest = tail.partition("\n")
    eos.write_text(f"{head}{bgp}{first_line}\n{WAN_NEIGHBOR}{rest}")
    return root


def test_validate_configs_reports_examined_counts_and_external_peers(tmp_path, capsys):
    root = _with_external_peer(_write_configs(tmp_path))
    call_command("validate", "--configs", str(root))
    out = capsys.readouterr().out
    assert "[PASSED ] bgp.sessions: examined " in out and "1 external peers" in out
    assert "info    external peers: 1 BGP neighbor(s) outside this config set" in out
    call_command("validate", "--configs", str(root), "--format", "json", "--external-peers", "warning")
    sessions = next(c for c in json.loads(capsys.readouterr().out)["checks"] if c["name"] == "bgp.sessions")
    assert sessions["examined"]["external peers"] == 1 and sessions["status"] == "passed"
    assert [f["severity"] for f in sessions["findings"] if f["subject"] == "external peers"] == ["warning"]
    with pytest.raises(SystemExit) as exit_info:
        call_command("validate", "--configs", str(root), "--external-peers", "error")
    assert exit_info.value.code == 1
    assert "leaf1: BGP neighbor 192.0.2.1 (AS 65535) is external" in capsys.readouterr().out
    with pytest.raises(CommandError, match="external.peers"):
        call_command("validate", "--configs", str(root), "--external-peers", "loud")


def test_validate_configs_says_which_checks_are_incomplete(tmp_path, capsys):
    root = _write_configs(tmp_path)
    eos = root / "leaf1" / "startup-config"
    eos.write_text(eos.read_text() + "ip route 192.0.2.0/24 Null0\n")  # a static route: a line the model does not read
    call_command("validate", "--configs", str(root), "--checks", "routing", "mtu.svi")
    out = capsys.readouterr().out
    assert "incomplete" in out.splitlines()[0]
    assert "[INCOMPLETE] routing.vtep_reachability (leaf1: IGP/static routing not fully read " \
           "(leaf1/startup-config:" in out
    assert "[PASSED ] mtu.svi: examined " in out  # an MTU check does not depend on the static route
