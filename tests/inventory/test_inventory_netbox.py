"""NetBox import from REST API JSON: what maps, what is skipped (with the reason), and that it is idempotent."""

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from inventory.adapters import inventory_snapshot
from inventory.models import Cable, Interface, NetboxSync, Optic, Rack, Server, Switch, SwitchModel
from inventory.netbox import load_dump, netbox_to_inventory
from inventory.netbox_sync import netbox_sync_from_dump
from validators.physical import physical_report

FIXTURE = Path(__file__).parent / "fixtures" / "netbox"


def test_mapping_is_pure_and_reports_every_skip():
    result = netbox_to_inventory(load_dump(FIXTURE), fabric="nb")
    inventory = result.inventory
    assert [s.hostname for s in inventory.switches] == ["spine1", "spine2", "leaf1", "leaf2"]
    assert [s.name for s in inventory.servers] == ["gpu0001", "gpu0002"]
    assert len(inventory.cables) == 6
    skipped = dict(result.skipped)
    assert "role 'oob-management'" in skipped["device oob1"]
    assert skipped["interface spine1:Management1"] == "virtual or management-only interface"
    assert skipped["interface leaf1:Vlan10"] == "virtual or management-only interface"
    assert skipped["cable OOB-S1"] == "not a fabric link: no end traces to an imported switch port"
    assert skipped["inventory item leaf1:PSU1"] == "not installed in an imported interface"
    assert skipped["inventory item oob1:optic Ethernet1"] == "not installed in an imported interface"
    leaf1 = inventory.switches_by_name["leaf1"]
    assert (leaf1.platform, leaf1.role, leaf1.mgmt_ip, leaf1.os_version) == ("eos", "leaf", "172.16.1.1", "4.32.2F")
    assert leaf1.interfaces_by_name["Ethernet63/1"].optic.media == "400G-DR4"
    assert inventory.models_by_name["DCS-7060DX5-64S"].buffer_mb == 113.0  # catalogue spec used when known
    assert inventory.models_by_name["DCS-7280CR3-32P4"].form_factor == "QSFP-DD"  # derived from interface types
    feet = next(c for c in inventory.cables if c.label == "L2-S1")
    assert feet.length_m == 30.0 and feet.cable_type == "smf"
    assert any(c.label == "netbox-cable-6" for c in inventory.cables)
    assert inventory.servers_by_name["gpu0002"].nics[0].optic.media == "400G-DR4"  # from custom_fields.media
    report = physical_report(inventory)
    assert report.ok, report.as_text()


@pytest.mark.django_db
def test_import_persists_and_is_idempotent():
    result = netbox_sync_from_dump(directory=FIXTURE, fabric="nb")
    assert result.persisted.created["Switch"] == 4
    assert (Switch.objects.count(), Server.objects.count(), Cable.objects.count()) == (4, 2, 6)
    assert Optic.objects.count() == 12
    assert Rack.objects.get(name="R-001").power_budget_kw == 30.0
    assert SwitchModel.objects.filter(name="DCS-7280CR3-32P4").exists()
    assert Interface.objects.get(switch__hostname="spine1", name="Ethernet1/1").cable.label == "L1-S1"
    assert inventory_snapshot("nb") == result.inventory
    again = netbox_sync_from_dump(directory=FIXTURE, fabric="nb")
    assert not again.persisted.changed


@pytest.mark.django_db
def test_command_prints_what_was_skipped():
    out = io.StringIO()
    call_command("netbox_import", str(FIXTURE), "--fabric", "nb", stdout=out)
    text = out.getvalue()
    assert "imported 4 switches, 2 servers, 6 cables into fabric nb" in text
    assert "skipped device oob1: role 'oob-management' is not a fabric switch or a server" in text


@pytest.mark.django_db
def test_broken_dump_is_a_clear_error(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "nb")
    (tmp_path / "nb" / "cables.json").write_text("{not json")
    with pytest.raises(CommandError, match="cables.json"):
        call_command("netbox_import", str(tmp_path / "nb"), "--fabric", "nb", stdout=io.StringIO())
    assert Switch.objects.count() == 0


@pytest.mark.django_db
def test_a_link_that_cannot_be_imported_stops_the_import_with_its_reason(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "nb")
    cables = json.loads((tmp_path / "nb" / "cables.json").read_text())
    cables[0]["a_terminations"][0]["object_id"] = 99999
    cables[1]["length"] = None
    (tmp_path / "nb" / "cables.json").write_text(json.dumps(cables))
    with pytest.raises(CommandError) as refused:
        call_command("netbox_import", str(tmp_path / "nb"), "--fabric", "nb", stdout=io.StringIO())
    text = str(refused.value)
    assert "cables.json: cable L1-S1: 'netbox cable L1-S1 (id 1)': its far end interface 99999 is not imported" in text
    assert "cable L1-S2: 'netbox cable L1-S2 (id 2)': length None m of cable L1-S2 cannot be read in metres" in text
    assert Switch.objects.count() == 0
    assert NetboxSync.objects.get().status == "failed"  # recorded, nothing applied

    # --allow-missing-links: the rest is imported, and the physical checks report each lost link until it is cabled
    err = io.StringIO()
    call_command("netbox_import", str(tmp_path / "nb"), "--fabric", "nb", "--allow-missing-links",
                 stdout=io.StringIO(), stderr=err)
    assert "MISSING LINK spine1:Ethernet1/1: netbox cable L1-S1 (id 1)" in err.getvalue()
    assert Cable.objects.count() == 4
    inventory = inventory_snapshot("nb")
    assert {str(m.endpoint) for m in inventory.missing_links} == {"spine1:Ethernet1/1", "spine2:Ethernet1/1"}
    report = physical_report(inventory)
    missing = [f for f in report.findings if f.check == "physical.missing_link"]
    assert sorted(f.subject for f in missing) == ["spine1:Ethernet1/1", "spine2:Ethernet1/1"]
    assert all(f.severity == "error" for f in missing) and not report.ok


def test_breakout_parents_come_from_the_platform_data():
    dump = load_dump(FIXTURE)
    leaf_port = next(i for i in dump["interfaces"] if i["device"]["name"] == "leaf1" and i["name"] == "Ethernet63/1")
    dump["interfaces"].append({**leaf_port, "id": 99999, "name": "Ethernet63/5"})
    leaf1 = netbox_to_inventory(dump, fabric="nb").inventory.switches_by_name["leaf1"]
    assert (leaf1.interfaces_by_name["Ethernet63/1"].breakout_parent, leaf1.interfaces_by_name["Ethernet63/1"].lane) \
        == ("Ethernet63", 1)
    assert leaf1.interfaces_by_name["Ethernet63/5"].lane == 2
    unbroken = netbox_to_inventory(load_dump(FIXTURE), fabric="nb").inventory.switches_by_name["leaf1"]
    assert unbroken.interfaces_by_name["Ethernet63/1"].breakout_parent is None
