"""Drift with its remediation where users see it: ``manage.py drift``, the drift API and the UI drift page. A device
whose running config lost its PFC line shows the difference and the EOS commands that restore it; a device in
sync shows none; bad options exit non-zero naming the option."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from changes_memory_fabric import MemoryFabric
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.test import Client

from changes import drift
from changes.drivers.napalm_eos import NapalmEosDriver

pytestmark = pytest.mark.django_db

RENDERED = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected" / "rendered"
PFC_LINE = "   priority-flow-control priority 3 no-drop\n"


@pytest.fixture
def records():
    intended = {host: {path.name: path.read_text() for path in (RENDERED / host / "eos").iterdir()}
                for host in ("leaf1", "leaf3")}
    fabric = MemoryFabric(["leaf1", "leaf3"])
    fabric.configs = {"leaf1": {"startup-config": intended["leaf1"]["startup-config"].replace(PFC_LINE, "")},
                      "leaf3": dict(intended["leaf3"])}
    return drift.drift_check(hostnames_drivers={host: (lambda host=host: fabric.driver(host)) for host in intended},
                             intended=intended)


def test_drift_records_carry_the_remediation(records):
    by_host = {record.hostname: record for record in records}
    assert by_host["leaf3"].differences == [] and by_host["leaf3"].remediation == {}
    assert by_host["leaf1"].remediation["platform"] == "eos"
    assert by_host["leaf1"].remediation["cli"] == ["qos profile FT_ROCE", PFC_LINE.rstrip("\n"), "exit"]


def test_drift_command_shows_differences_and_remediation(records):
    out = StringIO()
    call_command("drift", stdout=out)
    text = out.getvalue()
    assert "leaf1: drifted" in text and "leaf3: in sync" in text
    assert "leaf1 Ethernet1/1: PFC priorities [3] intended, [] running" in text
    assert "  remediation:\n    EOS CLI (configure session):\n    qos profile FT_ROCE\n" \
        "       priority-flow-control priority 3 no-drop\n    exit\nleaf3: in sync" in text
    with pytest.raises(CommandError, match="drift: leaf1"):
        call_command("drift", "--fail-on-drift", stdout=StringIO())
    call_command("drift", "--fail-on-drift", "--host", "leaf3", stdout=StringIO())  # in sync: exit 0
    with pytest.raises(CommandError, match="--host='nope'"):
        call_command("drift", "--host", "nope", stdout=StringIO())


def test_drift_api_and_ui_show_the_remediation(records, api_client):
    rows = {row["hostname"]: row for row in api_client.get("/api/drift/").json()}
    assert rows["leaf1"]["remediation"]["cli"][1].strip() == "priority-flow-control priority 3 no-drop"
    assert rows["leaf3"]["remediation"] == {}
    user = User.objects.create_user("watcher")
    user.groups.set([Group.objects.get(name="viewer")])
    client = Client()
    client.force_login(user)
    page = client.get("/drift/?host=leaf1").content.decode()
    assert "Remediation" in page and "priority-flow-control priority 3 no-drop" in page and "leaf3" not in page
    assert Client().get("/drift/").status_code == 302  # login required


class EosRunning(NapalmEosDriver):
    """The EOS driver's own logic (what a push carries) on a fixed running config (no connection)."""

    def __init__(self, running: str):
        super().__init__("leaf1", "192.0.2.11", "admin", "x")
        self.running = running

    def open(self) -> None:
        return None

    def get_running_config(self):
        return {"startup-config": self.running}


def test_remediation_keeps_what_a_push_carries_and_says_what_the_guard_would_refuse():
    """A drained EOS leaf with a hand-added login user and a lost PFC line: the remediation restores PFC, leaves
    the drain (``maintenance``: device state a push carries) alone, and says that removing the user would be
    refused by the pre-push guard. A ``no ...`` line only the device has is not turned into its opposite."""
    intended = {"startup-config": (RENDERED / "leaf1" / "eos" / "startup-config").read_text()}
    running = intended["startup-config"].replace(PFC_LINE, "").replace(
        "\nend", "\nmaintenance\n   unit System\n      quiesce\n!\nusername ops privilege 15 nopassword\n!\n"
                 "no aaa root\n!\nend")
    [record] = drift.drift_check(hostnames_drivers={"leaf1": lambda: EosRunning(running)},
                                 intended={"leaf1": intended})
    cli = record.remediation["cli"]
    assert "   priority-flow-control priority 3 no-drop" in cli
    assert not any("maintenance" in line or "quiesce" in line for line in cli)
    assert "no username ops privilege 15 nopassword" in cli and "aaa root" not in cli
    assert any("not safe to apply as is" in note and "username" in note for note in record.remediation["notes"])
