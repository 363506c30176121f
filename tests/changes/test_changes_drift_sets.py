"""`manage.py drift --configs DIR --against DIR2` and `manage.py drift --configs DIR [--fabric F]` (issue #25 item 5):
two config sets, or one set against the intent compiled now, compared device by device with the remediation; bad
input is a non-zero exit naming the option or the file."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from compiler.clos import ClosParams, plan_clos
from compiler.parse import parse_device
from intents import services as intent_services
from inventory.models import Fabric
from inventory.services import inventory_persist

GOLDEN = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected"


def _config_set(root: Path) -> Path:
    """The golden mixed EOS/SONiC fabric as <device>/<files>, each device on its own platform."""
    for structured in (GOLDEN / "structured").glob("*.json"):
        platform = json.loads(structured.read_text())["platform"]
        shutil.copytree(GOLDEN / "rendered" / structured.stem / platform, root / structured.stem)
    return root


def _run(*args) -> str:
    out = StringIO()
    call_command("drift", *args, stdout=out)
    return out.getvalue()


def test_two_identical_sets_are_in_sync(tmp_path):
    golden, pulled = _config_set(tmp_path / "golden"), _config_set(tmp_path / "pulled")
    output = _run("--configs", str(pulled), "--against", str(golden))
    assert ": 6 in sync" in output and "drifted" not in output


def test_drift_between_two_sets_prints_differences_and_remediation(tmp_path):
    golden, pulled = _config_set(tmp_path / "golden"), _config_set(tmp_path / "pulled")
    eos = pulled / "leaf1" / "startup-config"
    eos.write_text(eos.read_text().replace("   mtu 9214\n", "   mtu 1500\n", 1))
    db_path = pulled / "leaf2" / "config_db.json"
    db = json.loads(db_path.read_text())
    del db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]
    db_path.write_text(json.dumps(db, indent=4, sort_keys=True))
    shutil.rmtree(pulled / "spine2")
    with pytest.raises(CommandError, match=r"drift: leaf1, leaf2, spine2"):
        _run("--configs", str(pulled), "--against", str(golden), "--fail-on-drift")
    output = _run("--configs", str(pulled), "--against", str(golden))
    assert "2 drifted, 1 only intended, 3 in sync" in output
    assert "leaf1: drifted" in output and "MTU 9214 intended, 1500 running" in output
    assert "EOS CLI (configure session):" in output and "   mtu 9214" in output
    assert "leaf2: drifted" in output and "config apply-patch (RFC 6902 JSON Patch):" in output
    assert "spine2: only intended" in output
    # JSON for scripts: the same records, and applying the EOS remediation gives the intended model back.
    report = json.loads(_run("--configs", str(pulled), "--against", str(golden), "--json", "--host", "leaf1"))
    (leaf1,) = report["devices"]
    assert leaf1["state"] == "drifted" and leaf1["running_files"] == ["leaf1/startup-config"]
    assert any(line.strip() == "mtu 9214" for line in leaf1["remediation"]["cli"])


def test_frr_per_daemon_set_against_an_frr_conf_set(tmp_path):
    """A device read as zebra.conf + bgpd.conf compares with the same device as one frr.conf: in sync; a neighbor
    removed from bgpd.conf is drift with a vtysh remediation."""
    conf = (GOLDEN / "rendered" / "leaf1" / "frr" / "frr.conf").read_text()
    plan = (GOLDEN / "rendered" / "leaf1" / "frr" / "linux-plan.json").read_text()
    cut = conf.index("router bgp")
    (tmp_path / "want" / "leaf1").mkdir(parents=True)
    (tmp_path / "want" / "leaf1" / "frr.conf").write_text(conf)
    (tmp_path / "want" / "leaf1" / "linux-plan.json").write_text(plan)
    have = tmp_path / "have" / "leaf1"
    have.mkdir(parents=True)
    (have / "zebra.conf").write_text(conf[:cut])
    (have / "bgpd.conf").write_text(conf[cut:])
    (have / "linux-plan.json").write_text(plan)
    (have / "daemons").write_text("zebra=yes\nbgpd=yes\n")
    # Same lines in other files: no semantic drift, nothing to remediate.
    assert "leaf1: text differs only" in _run("--configs", str(tmp_path / "have"), "--against", str(tmp_path / "want"))
    neighbor = next(line for line in conf[cut:].splitlines() if line.startswith(" neighbor ") and "remote-as" in line)
    (have / "bgpd.conf").write_text(conf[cut:].replace(neighbor + "\n", ""))
    output = _run("--configs", str(tmp_path / "have"), "--against", str(tmp_path / "want"))
    assert "leaf1: drifted" in output and "vtysh (configure):" in output and neighbor in output


def test_bad_input_is_a_clear_error(tmp_path):
    golden = _config_set(tmp_path / "golden")
    with pytest.raises(CommandError, match=r"configs='.*nope': not a directory"):
        _run("--configs", str(tmp_path / "nope"), "--against", str(golden))
    with pytest.raises(CommandError, match=r"--against='x': only with --configs DIR"):
        _run("--against", "x")
    with pytest.raises(CommandError, match=r"--check: reads devices"):
        _run("--configs", str(golden), "--against", str(golden), "--check")
    with pytest.raises(CommandError, match=r"--host='leaf9': in neither config set"):
        _run("--configs", str(golden), "--against", str(golden), "--host", "leaf9")
    broken = _config_set(tmp_path / "broken")
    (broken / "leaf1" / "notes.txt").write_text("hello\n")
    with pytest.raises(CommandError, match=r"device 'leaf1': notes\.txt: neither an EOS nor an FRR"):
        _run("--configs", str(broken), "--against", str(golden))


@pytest.fixture
def drift_intent(db):
    inventory_persist(inventory=plan_clos(ClosParams(name="dref", spines=2, leaves=2)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="dref"), name="dref-intent")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    return intent


def test_a_set_against_the_intent_compiled_now(drift_intent, tmp_path):
    out = tmp_path / "out"
    call_command("compile", "--fabric", "dref-intent", "--out", str(out), stdout=StringIO())
    # compile --out's own layout, read as is: in sync with the intent.
    output = _run("--configs", str(out), "--fabric", "dref-intent")
    assert "against intent dref-intent (compiled now): 4 in sync" in output
    leaf = next(path for path in (out / "dref-intent").glob("*leaf*/*/startup-config"))
    host = leaf.parent.parent.name
    text = leaf.read_text()
    line = next(item for item in text.splitlines() if item.startswith("   neighbor ") and "remote-as" in item)
    leaf.write_text(text.replace(line + "\n", "", 1))
    assert parse_device({"startup-config": leaf.read_text()}).platform == "eos"
    output = _run("--configs", str(out), "--fabric", "dref-intent")
    assert f"{host}: drifted" in output and line.strip() in output
    # A set of the twin's FRR renderings is compared with the intent's FRR rendering, not its EOS one.
    twin = tmp_path / "twin"
    for rendering in (out / "dref-intent").glob("*/frr"):
        shutil.copytree(rendering, twin / rendering.parent.name)
    assert "against intent dref-intent (compiled now): 4 in sync" in _run("--configs", str(twin), "--fabric",
                                                                            "dref-intent")
    with pytest.raises(CommandError, match=r"--fabric='dref-intent': --configs is compared with --against DIR2 or "
                                           r"with the intent, not both"):
        _run("--configs", str(out), "--fabric", "dref-intent", "--against", str(out))
    with pytest.raises(CommandError, match=r"nope"):
        _run("--configs", str(out), "--fabric", "nope")
    (twin / "notes.txt").write_text("hello\n")
    with pytest.raises(CommandError, match=r"device 'notes': notes\.txt: neither an EOS nor an FRR"):
        _run("--configs", str(twin), "--fabric", "dref-intent")
