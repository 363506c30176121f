"""Issue 26 against what real NetBox 4.4, 4.5 and 4.6 returned (tests/inventory/fixtures/netbox-recorded*/, each
recorded by scripts/netbox_populate.py; 4.5/4.6 on scripts/netbox-run.sh): the 4.5+ exports hold cables with a
NetBox cable profile (breakout-1c2p-2c1p: one 800G leaf port -> two GPU NICs; breakout-1c4p-4c1p: one 800G port ->
four NICs). Every lane becomes a link on a breakout child port named by the platform's table, nothing compiles
shut, live import / re-sync / write-back behave alike on all three, and a profile whose positions do not pair is
refused naming the cable and the field."""

import copy
import io
import json
import os
import re
from pathlib import Path
from unittest import mock

import pytest
from django.core.management import call_command
from fake_netbox import FakeNetbox

from compiler.api import compile_fabric
from compiler.errors import InputError
from compiler.model import FabricIntent, Snapshot
from intents.services import fabric_intent_create
from inventory.models import Fabric, Interface
from inventory.netbox import _Mapper, load_dump, netbox_to_inventory
from inventory.netbox_client import NetboxClient
from inventory.netbox_sync import netbox_sync_live
from validators.physical import physical_report

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = {"4.4": FIXTURES / "netbox-recorded", "4.5": FIXTURES / "netbox-recorded-4.5",
            "4.6": FIXTURES / "netbox-recorded-4.6"}
PROFILED = ("4.5", "4.6")
TOKEN = "0123456789abcdef"
BASE_LINKS = {"BO-1/1", "BO-1/2", "G1-L1", "G2-L1", "L1-S2", "L2-S1", "L2-S2"}
PROFILED_LINKS = {"BO-800G-2/1", "BO-800G-2/2", "BO-800G-4/1", "BO-800G-4/2", "BO-800G-4/3", "BO-800G-4/4"}


def _cable(data: dict, label: str) -> dict:
    return next(c for c in data["cables"] if c.get("label") == label)


@pytest.mark.parametrize("version", list(RECORDED))
def test_recorded_export_imports_every_link_and_lane(version):
    result = netbox_to_inventory(load_dump(RECORDED[version]), fabric="ai")
    inventory = result.inventory
    labels = {c.label for c in inventory.cables}
    assert BASE_LINKS < labels and any("TR-1" in label for label in labels)
    assert len(labels) == 8 + (6 if version in PROFILED else 0)
    assert physical_report(inventory).ok, physical_report(inventory).as_text()
    if version not in PROFILED:
        return
    assert PROFILED_LINKS < labels
    switches = inventory.switches_by_name
    # the 800G port is split into the lanes the DCS-7060X6-64PE's EOS breakout table names (8 lanes per cage:
    # 2x400G on lanes 1 and 5, 4x200G on 1, 3, 5, 7); NetBox's single interface Ethernet1/1 is the cage Ethernet1
    leaf3 = {i.name: i for i in switches["leaf3"].interfaces if i.breakout_parent}
    assert {(n, i.speed_gbps, i.breakout_parent, i.lane) for n, i in leaf3.items()} == {
        ("Ethernet1/1", 400, "Ethernet1", 1), ("Ethernet1/5", 400, "Ethernet1", 2)}
    leaf4 = {i.name: i for i in switches["leaf4"].interfaces if i.breakout_parent}
    assert {(n, i.speed_gbps, i.lane) for n, i in leaf4.items()} == {
        ("Ethernet1/1", 200, 1), ("Ethernet1/3", 200, 2), ("Ethernet1/5", 200, 3), ("Ethernet1/7", 200, 4)}
    by_label = {c.label: c for c in inventory.cables}
    # NetBox's pairing: A connector 1 position k <-> B connector k (the k-th NIC listed on the B end)
    assert [(str(by_label[f"BO-800G-2/{k}"].a), str(by_label[f"BO-800G-2/{k}"].b)) for k in (1, 2)] == [
        ("leaf3:Ethernet1/1", "gpu3:eth0"), ("leaf3:Ethernet1/5", "gpu4:eth0")]
    assert [str(by_label[f"BO-800G-4/{k}"].b) for k in (1, 2, 3, 4)] == [
        "gpu3:eth1", "gpu4:eth1", "gpu5:eth1", "gpu6:eth1"]
    servers = inventory.servers_by_name
    assert [(n.name, n.rail, n.speed_gbps) for n in servers["gpu3"].nics] == [("eth0", 4, 400), ("eth1", 5, 200)]
    assert [(n.name, n.rail) for n in servers["gpu6"].nics] == [("eth1", 5)]


@pytest.mark.parametrize("version", list(RECORDED))
def test_recorded_export_compiles_with_every_cabled_port_enabled(version):
    inventory = netbox_to_inventory(load_dump(RECORDED[version]), fabric="ai").inventory
    result = compile_fabric(Snapshot(inventory, FabricIntent(name="ai", inventory_fabric="ai")), ["eos"])
    checked = 0
    for cable in inventory.cables:
        for end in (cable.a, cable.b):
            if end.device in result.rendered:
                config = "".join(result.rendered[end.device]["eos"].values())
                block = re.search(rf"^interface {re.escape(end.interface)}\n(.*?)(?=^!)", config, re.S | re.M)
                assert block and "   no shutdown" in block.group(1), f"{end} is shut"
                checked += 1
    assert checked == (12 if version == "4.4" else 18)  # the switch end of every link


@pytest.mark.parametrize("version", PROFILED)
def test_positions_are_the_ones_netbox_gave_each_termination(version):
    """The importer derives connector/positions from the order of a_/b_terminations (NetBox's
    Cable.update_terminations); NetBox's own /api/dcim/cable-terminations/ answer, recorded alongside, agrees."""
    data = load_dump(RECORDED[version])
    recorded = json.loads((RECORDED[version] / "cable-terminations.json").read_text())["results"]
    mapper = _Mapper(data, "ai")
    profiled = [t for t in recorded if t["connector"] is not None]
    assert len(profiled) == 3 + 5
    for termination in profiled:
        cable = termination["cable"]
        key = (cable["id"] if isinstance(cable, dict) else cable, termination["cable_end"].lower(),
               (termination["termination_type"], termination["termination_id"]))
        ends = mapper.ends[key]
        assert (ends.connector, list(ends.positions)) == (termination["connector"], termination["positions"])
    assert not mapper.profile_problem


@pytest.mark.django_db
@pytest.mark.parametrize("version", list(RECORDED))
def test_live_import_resync_and_writeback(version):
    with FakeNetbox(load_dump(RECORDED[version])) as fake, mock.patch.dict(os.environ, {"FT_NETBOX_TOKEN": TOKEN}):
        first = netbox_sync_live(client=NetboxClient(fake.url, TOKEN), fabric="ai")
        assert first.record.status == "succeeded"
        assert netbox_sync_live(client=NetboxClient(fake.url, TOKEN), fabric="ai").diff == []  # nothing changed
        if version in PROFILED:
            lane = Interface.objects.get(switch__hostname="leaf3", name="Ethernet1/5")
            assert lane.cable.label == "BO-800G-2/2" and lane.breakout_parent == "Ethernet1" and lane.enabled
        # re-sync after an edit in NetBox: the 50 ft cable relabelled
        _cable({"cables": fake.data["dcim/cables"]}, "L1-S2")["label"] = "L1-S2-new"
        edited = netbox_sync_live(client=NetboxClient(fake.url, TOKEN), fabric="ai", dry_run=True)
        assert [c["action"] for c in edited.diff] == ["update"]
        fabric_intent_create(fabric=Fabric.objects.get(name="ai"), name="ai")

        def writeback(*extra) -> str:
            out = io.StringIO()
            call_command("netbox_writeback", "--fabric", "ai", "--url", fake.url, *extra, stdout=out)
            return out.getvalue()

        dry = writeback()
        assert fake.writes == [] and dry.count("would write") > 0
        applied = writeback("--apply")
        assert applied.count("wrote ") == dry.count("would write") == len(fake.writes)
        assert writeback() == "NetBox already holds every allocation: nothing to write\n"


@pytest.mark.parametrize("version", PROFILED)
def test_profile_whose_positions_do_not_pair_is_refused(version):
    data = load_dump(RECORDED[version])
    broken = copy.deepcopy(data)
    _cable(broken, "BO-800G-2")["a_terminations"][0].update(connector=1, positions=[1, 3])
    with pytest.raises(InputError, match=r"cable BO-800G-2\.a_terminations\[0\] connector 1 positions \[1, 3\] "
                                         r"do not pair under profile breakout-1c2p-2c1p"):
        netbox_to_inventory(broken, fabric="ai")
    # a profile with more lanes than the cable has terminations: lanes 3 and 4 pair with nothing
    broken = copy.deepcopy(data)
    _cable(broken, "BO-800G-2")["profile"] = {"value": "breakout-1c4p-4c1p", "label": "1C4P:4C1P breakout"}
    with pytest.raises(InputError, match=r"cable BO-800G-2\.a_terminations connector 1 position 3 maps under "
                                         r"profile breakout-1c4p-4c1p to connector 3 position 1, which no B "
                                         "termination holds"):
        netbox_to_inventory(broken, fabric="ai")
    broken = copy.deepcopy(data)
    _cable(broken, "BO-800G-4")["profile"] = "breakout-1c3p-3c1p"
    with pytest.raises(InputError, match=r"cable BO-800G-4\.profile 'breakout-1c3p-3c1p' is not a NetBox cable"):
        netbox_to_inventory(broken, fabric="ai")
    # the same cable without its profile is the pre-4.5 shape: 1 termination against 2 cannot be paired
    broken = copy.deepcopy(data)
    _cable(broken, "BO-800G-2")["profile"] = None
    with pytest.raises(InputError, match="has 1 terminations on one end and 2 on the other"):
        netbox_to_inventory(broken, fabric="ai")
    # lanes the platform's breakout table does not have: a 100G port cannot be split 2x50G on a DCS-7060X6-64PE
    broken = copy.deepcopy(data)
    port = _cable(broken, "BO-800G-2")["a_terminations"][0]["object_id"]
    next(i for i in broken["interfaces"] if i["id"] == port)["speed"] = 100_000_000
    with pytest.raises(InputError, match=r"cable BO-800G-2: leaf3:Ethernet1/1 cannot be split into 2 lanes: "
                                         r"DCS-7060X6-64PE has no 2x50G breakout mode"):
        netbox_to_inventory(broken, fabric="ai")
    netbox_to_inventory(data, fabric="ai")  # and the recorded one is accepted


@pytest.mark.parametrize("version", PROFILED)
def test_trunk_and_single_profiles_pair_like_the_unprofiled_cables(version):
    """The same recorded fabric with every other cable given the profile NetBox would offer for it: single-1c1p on
    the patch-panel run's three cables (traced through front and rear ports) and trunk-2c1p on the 2-by-2 DAC
    BO-1 (connector i <-> connector i). The links are the same; a 2c4p shuffle on BO-1 would split its 200G ports 4 ways: refused."""
    data = load_dump(RECORDED[version])
    plain = netbox_to_inventory(data, fabric="ai").inventory
    profiled = copy.deepcopy(data)
    for label in ("PP-L1", "TR-1", "PP-S1", "L1-S2"):
        _cable(profiled, label)["profile"] = {"value": "single-1c1p", "label": "1C1P"}
    _cable(profiled, "BO-1")["profile"] = {"value": "trunk-2c1p", "label": "2C1P trunk"}
    again = netbox_to_inventory(profiled, fabric="ai").inventory
    assert sorted(map(str, again.cables)) == sorted(map(str, plain.cables))
    assert {c.label for c in again.cables} == {c.label for c in plain.cables}
    _cable(profiled, "BO-1")["profile"] = {"value": "trunk-2c4p-shuffle", "label": "2C4P trunk (shuffle)"}
    # (each 200G port would hold 4 positions: 4x50G lanes the DCS-7060DX5-64S's breakout table does not have)
    with pytest.raises(InputError, match=r"cable BO-1: leaf2:Ethernet3/1 cannot be split into 4 lanes: "
                                         "DCS-7060DX5-64S has no 4x50G breakout mode"):
        netbox_to_inventory(profiled, fabric="ai")
