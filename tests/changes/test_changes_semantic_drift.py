"""Semantic drift (issue #15 item 5): drift parses the running config and says what changed in the model's words,
and the static checks run on the running state, so drift that breaks losslessness raises roce.pfc. A device
whose running config equals the intended one has no difference and no running-state error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from changes import drift
from changes.drivers.base import DeviceDriver

GOLDEN = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected"


def _intended() -> dict[str, dict[str, str]]:
    out = {}
    for structured in sorted((GOLDEN / "structured").glob("*.json")):
        platform = json.loads(structured.read_text())["platform"]
        directory = GOLDEN / "rendered" / structured.stem / platform
        out[structured.stem] = {path.name: path.read_text() for path in sorted(directory.iterdir())}
    return out


class FakeDriver(DeviceDriver):
    """A device that runs the given files (no connection)."""

    def __init__(self, hostname: str, running: dict[str, str]) -> None:
        self.hostname, self.running = hostname, running

    def get_running_config(self):
        return dict(self.running)

    def load_candidate(self, config):
        raise NotImplementedError

    def compare(self):
        raise NotImplementedError

    def commit(self, *args, **kwargs):
        raise NotImplementedError

    def discard(self):
        raise NotImplementedError

    def rollback(self, *args, **kwargs):
        raise NotImplementedError

    def health(self, *args, **kwargs):
        raise NotImplementedError

    def drain(self):
        raise NotImplementedError

    def undrain(self):
        raise NotImplementedError

    def is_drained(self):
        raise NotImplementedError

    def install_image(self, version):
        raise NotImplementedError

    def reboot(self):
        raise NotImplementedError


@pytest.mark.django_db
def test_drift_reports_field_differences_and_running_state_errors():
    intended = _intended()
    running = {host: dict(files) for host, files in intended.items()}
    running["leaf1"]["startup-config"] = running["leaf1"]["startup-config"].replace(
        "   spanning-tree portfast\n   service-profile FT_ROCE\n", "   spanning-tree portfast\n")
    db = json.loads(running["leaf2"]["config_db.json"])
    del db["PORT_QOS_MAP"]["Ethernet248"]["pfc_enable"]
    running["leaf2"]["config_db.json"] = json.dumps(db, indent=4, sort_keys=True)
    read = ("leaf1", "leaf2", "spine1")
    records = drift.drift_check(
        hostnames_drivers={host: (lambda host=host: FakeDriver(host, running[host])) for host in read},
        intended={host: intended[host] for host in read}, fabric_intended=intended)
    by_host = {record.hostname: record for record in records}
    messages = [item["message"] for item in by_host["leaf1"].differences]
    assert "leaf1 Ethernet1/1: PFC priorities [3] intended, [] running" in messages
    assert "leaf2 Ethernet248: PFC priorities [3] intended, [] running" in [
        item["message"] for item in by_host["leaf2"].differences]
    assert by_host["leaf1"].drifted and by_host["leaf2"].drifted
    assert any(f["check"] == "roce.pfc" and f["subject"] == "leaf1:Ethernet1/1"
               for f in by_host["leaf1"].running_errors)
    assert any(f["check"] == "roce.pfc" and f["subject"].startswith("leaf2:Ethernet248")
               for f in by_host["leaf2"].running_errors)
    # spine1 runs what it should: no text drift, no field drift; the broken link to leaf2 is named on both ends
    assert not by_host["spine1"].drifted and by_host["spine1"].differences == []
    assert all("leaf2" in f["subject"] for f in by_host["spine1"].running_errors)


@pytest.mark.django_db
def test_drift_of_an_unparseable_running_config_is_said_not_hidden():
    intended = _intended()
    broken = {"config_db.json": "{not json", "frr.conf": intended["leaf2"]["frr.conf"]}
    records = drift.drift_check(hostnames_drivers={"leaf2": lambda: FakeDriver("leaf2", broken)},
                                   intended={"leaf2": intended["leaf2"]}, fabric_intended=intended)
    assert records[0].drifted and records[0].running_errors == []
    assert [item["message"][:41] for item in records[0].differences] == ["leaf2: running config not parsed: config_"]
