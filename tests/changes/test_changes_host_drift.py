"""`manage.py drift --hosts DIR` (issue 31 item 2, "drift covers hosts"): GPU servers' collected states against
the host configs the intent derives; in sync when collected from servers in the intended state, every drifted NIC
field named (server, NIC, intended, running) with the hosts.* errors it causes at the switch port; bad input is a
non-zero exit naming the option or the path."""

from __future__ import annotations

import dataclasses
import json
import shutil
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from host_state import write_snapshot

from compiler.clos import ClosParams, plan_clos
from compiler.host_config import build_host_configs
from intents import services as intent_services
from intents.adapters import fabric_snapshot
from inventory.models import Fabric
from inventory.services import inventory_persist


@pytest.fixture
def host_intent(db):
    inventory_persist(inventory=plan_clos(ClosParams(name="hdr", spines=2, leaves=2, servers_per_leaf=2)))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="hdr"), name="hdr-intent")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    intent_services.roce_defaults_apply(fabric_intent=intent)
    return intent


def _run(*args) -> str:
    out = StringIO()
    call_command("drift", *args, stdout=out)
    return out.getvalue()


def test_collected_hosts_in_sync_then_drifted(host_intent, tmp_path):
    intended = build_host_configs(fabric_snapshot(host_intent))
    assert len(intended) == 4 and all(config.nccl_env for config in intended.values())
    for server, config in intended.items():
        write_snapshot(tmp_path / server, config)
    output = _run("--hosts", str(tmp_path), "--fabric", "hdr-intent")
    assert output.startswith(f"{tmp_path} against intent hdr-intent: 4 in sync\n"), output
    assert "running-state error" not in output and "not read" not in output
    _run("--hosts", str(tmp_path), "--fail-on-drift")  # the only intent; exits 0

    server = sorted(intended)[0]
    config = intended[server]
    nic = config.nics[0]
    broken = dataclasses.replace(config, nics=(dataclasses.replace(nic, pfc_priorities=(4,), trust="pcp"),)
                                 + config.nics[1:])
    write_snapshot(tmp_path / "replaced", broken)
    shutil.rmtree(tmp_path / server)
    output = _run("--hosts", str(tmp_path), "--fabric", "hdr-intent")
    assert "1 drifted, 3 in sync" in output
    assert f"{server}: drifted\n" in output
    assert f"  {server} nic {nic.name}: QoS trust 'dscp' intended, 'pcp' running" in output
    assert f"  {server} nic {nic.name}: PFC priorities [3] intended, [4] running" in output
    # the drift breaks the wire: the hosts.* checks on the collected state name the switch port
    assert f"running-state error: {server} NIC {nic.name}" in output and f"on {nic.leaf}:{nic.leaf_interface}" in output
    with pytest.raises(CommandError, match=rf"drift: {server}$"):
        _run("--hosts", str(tmp_path), "--fail-on-drift")
    data = json.loads(_run("--hosts", str(tmp_path), "--json", "--host", server))
    assert [record["server"] for record in data["servers"]] == [server]
    record = data["servers"][0]
    assert record["state"] == "drifted" and {item["path"] for item in record["differences"]} == {
        f"nics[{nic.name}].trust", f"nics[{nic.name}].pfc_priorities"}
    assert {finding["check"] for finding in record["running_errors"]} == {"hosts.trust", "hosts.pfc"}


def test_bad_input_is_a_clear_error(host_intent, tmp_path):
    with pytest.raises(CommandError, match=r"not a directory"):
        _run("--hosts", str(tmp_path / "nope"))
    (tmp_path / "notes").mkdir()
    with pytest.raises(CommandError, match=r"notes: neither a collected host state"):
        _run("--hosts", str(tmp_path))
    with pytest.raises(CommandError, match=r"--configs='x': --hosts compares host states"):
        _run("--hosts", str(tmp_path), "--configs", "x")
    with pytest.raises(CommandError, match=r"--check"):
        _run("--hosts", str(tmp_path), "--check")
    intended = build_host_configs(fabric_snapshot(host_intent))
    server = sorted(intended)[0]
    write_snapshot(tmp_path / "one" / server, intended[server])
    (tmp_path / "one" / server / "nics" / intended[server].nics[0].name / "mtu").write_text("jumbo\n")
    with pytest.raises(CommandError, match=r"mtu: expected an integer, got 'jumbo'"):
        _run("--hosts", str(tmp_path / "one"))
    (tmp_path / "one" / server / "nics" / intended[server].nics[0].name / "mtu").write_text("9000\n")
    with pytest.raises(CommandError, match=r"--host='gpu9999': no collected state"):
        _run("--hosts", str(tmp_path / "one"), "--host", "gpu9999")
