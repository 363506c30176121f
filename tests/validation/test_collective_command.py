"""manage.py collective: the per-tier table and collective.bottleneck from a stored inventory; exit status 1
when the prediction exceeds the limit, a clear error for an unknown fabric or bad input."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from compiler.clos import ClosParams, plan_clos
from inventory.services import inventory_persist


@pytest.fixture
def stored_fabric(db):
    inventory_persist(inventory=plan_clos(ClosParams(name="coll", spines=4, leaves=8, servers_per_leaf=4)))
    return "coll"


RING = ",".join(f"gpu{leaf * 4 + slot + 1:04d}" for slot in range(4) for leaf in range(8))


def test_a_job_within_the_limit_passes_and_prints_the_table(stored_fabric, capsys):
    call_command("collective", "--fabric", stored_fabric, "--servers", RING, "--channels", "1", "--dlb",
                 "--n-minus-1", "--trials", "4")
    out = capsys.readouterr().out
    assert "| leaf->spine | 32 |" in out and "[PASSED ] collective.bottleneck" in out
    assert "N-1 spine1: p95 2.00x the intact ideal" in out


def test_a_colliding_job_fails_with_exit_status_1_and_json(stored_fabric, capsys):
    with pytest.raises(SystemExit) as exited:
        call_command("collective", "--fabric", stored_fabric, "--servers", RING, "--channels", "1",
                     "--trials", "32", "--limit", "1.5", "--format", "json")
    assert exited.value.code == 1
    data = json.loads(capsys.readouterr().out)
    assert data["report"]["checks"][0]["status"] == "failed"
    assert data["prediction"]["bottleneck_p95"] >= 2 and data["qps_needed"] > 1


def test_unknown_fabric_and_bad_input_are_clear_errors(stored_fabric):
    with pytest.raises(CommandError, match="'nope' does not exist"):
        call_command("collective", "--fabric", "nope", "--gpus", "8")
    with pytest.raises(CommandError, match="job.gpus"):
        call_command("collective", "--fabric", stored_fabric, "--gpus", "100000")
    with pytest.raises(CommandError, match="qps"):
        call_command("collective", "--fabric", stored_fabric, "--gpus", "64", "--qps", "0")
    with pytest.raises(CommandError, match="not a port number"):
        call_command("collective", "--fabric", stored_fabric, "--gpus", "64", "--sport", "pinned",
                     "--pinned-sports", "x")
