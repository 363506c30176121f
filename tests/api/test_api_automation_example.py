"""examples/automation.py, the documented end-to-end automation example, runs against a live server: build ->
intent -> compile -> validate, and the twin rollout step answers "skipped: <reason>" without a running twin."""

import ipaddress
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import Group

from common.tokens import token_issue
from compiler.errors import TwinError
from twins import services as twin_services

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "automation.py"


@pytest.fixture
def operator_token(transactional_db, django_user_model):
    user = django_user_model.objects.create_user(username="robot", password="not-used")
    user.groups.add(Group.objects.get(name="operator"))
    return token_issue(user=user)[0]


def _run(url: str, token: str | None, *options: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "FT_API_TOKEN"}
    if token:
        env["FT_API_TOKEN"] = token
    return subprocess.run([sys.executable, str(SCRIPT), "--url", url, "--fabric", "auto1", *options], env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_automation_example_builds_compiles_validates_and_reaches_the_rollout(live_server, operator_token,
                                                                                  in_background, monkeypatch):
    # as deployed without a broker: the build answers 202 and runs in a background thread; the script polls
    result = _run(live_server.url, operator_token)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "build     fabric auto1: 4 switches, 4 servers, worst oversubscription 1.00:1"
    assert lines[1] == "intent    auto1: tenant A, network a-train (VLAN 10), RoCEv2 defaults"
    assert lines[2].startswith("compile   run #") and "succeeded: 4 devices" in lines[2]
    assert "succeeded: ok=True" in lines[3] and " 0 failed" in lines[3]
    assert lines[4] == "rollout   skipped: no running twin of intent auto1 (manage.py twin up --fabric auto1)"
    # idempotent: a second run finds the fabric, intent, tenant and network and goes through again, here with
    # --twin-up: the twin API answers 202 and the script polls the operation; the boot is faked at the service
    # boundary to fail (no twin boots in this test), so the script reports why and exits non-zero
    def refused(**_):
        raise TwinError("fake boot refused by the test")

    monkeypatch.setattr(twin_services, "twin_prerequisites", lambda: [])
    monkeypatch.setattr(twin_services, "twin_up", refused)
    again = _run(live_server.url, operator_token, "--twin-up")
    assert again.returncode == 1 and again.stdout.splitlines()[4] == "twin      up failed: fake boot refused by the test"


def test_the_example_fails_without_a_token_or_with_a_bad_one(live_server, transactional_db):
    assert "set FT_API_TOKEN" in _run(live_server.url, None).stderr
    refused = _run(live_server.url, "not-a-token")
    assert refused.returncode != 0 and "HTTP 401" in refused.stderr


def test_the_example_runs_unchanged_on_the_demo_database(live_server, operator_token, tmp_path, settings):
    """Issue #30 point 1: on the database `make demo` leaves (reference + frontend fabrics, no twin) the README's
    example hit a name clash, then pool overlap, then the wrong management network. The demo's own command
    fills the database here; the example then runs as documented, and its fabric gets free management and
    intent pools."""
    from django.core.management import call_command

    from intents.models import FabricIntent
    from inventory.models import Switch

    settings.FT_OUTPUT_DIR = tmp_path
    call_command("demo", "--no-twin", "--out", str(tmp_path / "demo"), stdout=open(os.devnull, "w"))
    result = _run(live_server.url, operator_token)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == "build     fabric auto1: 4 switches, 4 servers, worst oversubscription 1.00:1"
    assert " 0 failed" in result.stdout.splitlines()[3]
    ours = FabricIntent.objects.get(name="auto1")
    pools = {(i.loopback_pool, i.vtep_pool, i.p2p_pool) for i in FabricIntent.objects.exclude(name="auto1")}
    assert all(not set(p) & {ours.loopback_pool, ours.vtep_pool, ours.p2p_pool} for p in pools)
    address = Switch.objects.filter(fabric__name="auto1").values_list("mgmt_ip", flat=True).first()
    assert ipaddress.ip_address(address) in ipaddress.ip_network(ours.management_network)
    assert set(Switch.objects.filter(fabric__name="auto1").values_list("hostname", flat=True)) == {
        "auto1-leaf1", "auto1-leaf2", "auto1-spine1", "auto1-spine2"}
