"""``DeviceDriver.counters()`` (issue 34): EOS through NAPALM's real eos driver on the recorded eAPI node, SONiC
through the Netmiko driver on the recorded switch (COUNTERS_DB by sonic-db-dump), the twin from its synthetic
counter plane; a driver without counters refuses, it never returns an empty poll."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pyeapi.client
import pytest
from changes_fabric import fabric
from changes_memory_fabric import MemoryFabric
from eos_recorded_device import COUNTER_FILES, RecordedEosNode
from sonic_recorded_device import RecordedSonicConnection

from changes.drivers import twin as twin_driver
from changes.drivers.base import DeviceDriver
from changes.drivers.napalm_eos import NapalmEosDriver
from changes.drivers.netmiko_sonic import NetmikoSonicDriver
from changes.drivers.twin import ROCE_FAULT, ROCE_FAULT_ARMED, TwinDriver
from changes.rocegate import adapters
from changes.rocegate.schema import Key, rates
from compiler.errors import DriverError
from labs import collectors
from twins import switch as twin_switch
from twins.switch import TwinSwitch

DATA = Path(__file__).parent / "data" / "rocegate"
LABS_DATA = Path(__file__).parents[1] / "labs" / "data"  # ip -s -j link of a real 2x2 twin's leaf1


def test_eos_counters_through_napalm_eapi_json(monkeypatch):
    node = RecordedEosNode()
    monkeypatch.setattr(pyeapi.client, "Node", lambda connection, **kwargs: node)
    driver = NapalmEosDriver("leaf1", "192.0.2.11", "admin", "s3cret-Pa55")
    poll = driver.counters(lossless_queues=[3])
    assert [command for command in node.commands if command in COUNTER_FILES] == list(adapters.EOS_COMMANDS)
    values = poll.values
    assert values[Key("leaf1", "Ethernet1/1", 3, "pfc_rx")] == 1204
    assert values[Key("leaf1", "Ethernet1/1", 3, "pause_us")] == 48210
    assert values[Key("leaf1", "Ethernet1/1", 3, "wd_storms")] == 1
    assert values[Key("leaf1", "Ethernet1/1", 3, "ecn_marked")] == 90551
    assert values[Key("leaf1", "Ethernet2/1", 3, "lossless_drops")] == 5
    assert Key("leaf1", "Ethernet1/1", 1, "lossless_drops") not in values  # TC1 is lossy
    assert values[Key("leaf1", "Ethernet1/1", 1, "wred_drops")] == 96
    assert values[Key("leaf1", "Ethernet1/1", -1, "no_buffer_discards")] == 3
    assert poll.time > 0


def test_eos_counters_a_refused_command_names_the_device_and_command(monkeypatch):
    node = RecordedEosNode()
    monkeypatch.setattr(pyeapi.client, "Node", lambda connection, **kwargs: node)
    # a switch without ECN counters enabled answers that command with an error (eAPI CommandError)
    monkeypatch.delitem(COUNTER_FILES, "show qos interfaces ecn counters queue")
    driver = NapalmEosDriver("leaf1", "192.0.2.11", "admin", "s3cret-Pa55")
    with pytest.raises(DriverError, match="leaf1: RoCE counters .eAPI. failed: .*show qos interfaces ecn counters"):
        driver.counters(lossless_queues=[3])


def test_sonic_counters_from_counters_db_over_ssh():
    switch = RecordedSonicConnection("split-unified")
    driver = NetmikoSonicDriver("leaf2", "192.0.2.12", "admin", "s3cret-Pa55")
    driver._connection = switch
    poll = driver.counters(lossless_queues=[3, 4])
    assert "sonic-db-dump -n COUNTERS_DB -y" in switch.commands
    flat = json.loads((DATA / "sonic_counters_db.json").read_text())
    assert poll.values == adapters.sonic_counters_db("leaf2", flat, poll.time, [3, 4]).values
    assert poll.values[Key("leaf2", "Ethernet0", 3, "pfc_rx")] == 203


def test_sonic_counters_that_are_not_a_dump_fail_with_the_device():
    switch = RecordedSonicConnection("split-unified")
    driver = NetmikoSonicDriver("leaf2", "192.0.2.12", "admin", "s3cret-Pa55",
                                optional_args={"counters_command": "sudo TSC"})  # prints text, not JSON
    driver._connection = switch
    with pytest.raises(DriverError, match="leaf2: RoCE counters: sonic-db-dump output is not JSON"):
        driver.counters(lossless_queues=[3])


def test_sonic_db_dump_keeps_hashes_only():
    text = json.dumps({"COUNTERS:oid:0x1": {"type": "hash", "value": {"A": "1"}},
                       "SOME_LIST": {"type": "list", "value": ["x"]}})
    assert adapters.sonic_db_dump(text) == {"COUNTERS:oid:0x1": {"A": "1"}}
    with pytest.raises(ValueError, match="not a JSON object"):
        adapters.sonic_db_dump("[]")


class _RecordedTwin:
    """A 2x2 changes twin's state for the driver (its topology), and leaf1's link counters as recorded
    (tests/labs/data), the host port's advancing by ``sent`` packets of 3,042 bytes per read, one second apart."""

    def __init__(self, sent: int):
        self.topology = fabric("rgtest")[0]
        self.reads, self.sent = 0, sent

    def topology_obj(self):
        return self.topology

    def link_counters(self, state, node):
        assert node == "leaf1"
        out = {}
        for name in ("leaf1_link_stats.json", "leaf1_tenant_link_stats.json"):
            out.update(collectors.parse_link_counters(json.loads((LABS_DATA / name).read_text())))
        eth3, more = out["eth3"], self.reads * self.sent
        out["eth3"] = replace(eth3, tx_packets=eth3.tx_packets + more, tx_bytes=eth3.tx_bytes + more * 3042)
        self.reads += 1
        return out

    def monotonic(self):
        return float(self.reads)


def test_twin_counters_come_from_its_synthetic_plane_with_the_injected_fault(tmp_path, monkeypatch):
    driver = TwinDriver("rgtest", "leaf1")
    driver.etc = tmp_path
    recorded = _RecordedTwin(sent=300)
    monkeypatch.setattr(TwinSwitch, "state", lambda self: recorded)  # a recorded twin, not a running one
    monkeypatch.setattr(twin_switch.measure, "link_counters", recorded.link_counters)
    monkeypatch.setattr(twin_driver, "time", recorded)
    monkeypatch.setattr(TwinDriver, "_write_etc", lambda self, name, text: (tmp_path / name).write_text(text))
    first = driver.counters(lossless_queues=[3])
    assert {key.device for key in first.values} == {"leaf1", "h1"}  # the twin's host behind Ethernet3 is its NIC
    assert driver.port_names()["eth3"] == "Ethernet3"  # reported by the switch's port names
    assert {key.port for key in first.values if key.device == "leaf1"} == {"Ethernet1", "Ethernet2", "Ethernet3"}
    healthy = driver.counters(lossless_queues=[3])
    traffic = rates(first, healthy).values
    assert traffic[Key("leaf1", "Ethernet3", -1, "tx_packets")] == 300  # what the veth sent, per second
    assert traffic[Key("leaf1", "Ethernet3", -1, "tx_bytes")] == 300 * 3042
    assert traffic[Key("leaf1", "Ethernet1", -1, "tx_packets")] == 0  # recorded counters that did not move
    assert not any(key.counter == "lossless_drops" and value for key, value in healthy.values.items())
    assert driver.counter_sources()["tx_packets"] == "measured"
    assert driver.counter_sources()["pfc_rx"] == "synthetic"
    driver.roce_fault_inject("pfc_wrong_priority")
    assert (tmp_path / ROCE_FAULT_ARMED).read_text() == "pfc_wrong_priority"
    assert not (tmp_path / ROCE_FAULT).exists()  # armed: shows from the next commit
    (tmp_path / ROCE_FAULT).write_text("pfc_wrong_priority")  # what commit() does with an armed fault
    faulty = driver.counters(lossless_queues=[3])
    drops = [value - healthy.values[key] for key, value in faulty.values.items() if key.counter == "lossless_drops"]
    assert sum(drops) > 0 and faulty.time > healthy.time
    with pytest.raises(DriverError, match="not one of"):
        driver.roce_fault_inject("gremlins")
    (tmp_path / ROCE_FAULT).write_text("gremlins")
    with pytest.raises(DriverError, match="not a fault model"):
        driver.counters(lossless_queues=[3])


def test_a_driver_without_counters_refuses():
    class NoCounters(MemoryFabric(["leaf1"]).driver("leaf1").__class__):
        counters = DeviceDriver.counters

    with pytest.raises(DriverError, match="leaf1: NoCounters cannot read RoCE counters"):
        NoCounters(MemoryFabric(["leaf1"]), "leaf1").counters(lossless_queues=[3])
