"""The device's own identity (issue #27 item 3): each switch's base MAC in the inventory -- settable through the
API, the inventory YAML and NetBox import, validated as a MAC, kept when the builder rebuilds -- reaches SONiC's
DEVICE_METADATA.mac; without one, no MAC is rendered."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from django.urls import reverse

from compiler.api import build_facts as facts_of
from compiler.api import render_device, structured_configs
from compiler.clos import ClosParams, plan_clos
from compiler.errors import InputError
from compiler.model import FabricIntent, Snapshot
from inventory.adapters import inventory_snapshot
from inventory.io_yaml import inventory_from_dict, inventory_to_dict
from inventory.models import Switch
from inventory.netbox import check_dump, load_dump, netbox_to_inventory
from inventory.services import inventory_persist

NETBOX = Path(__file__).parent / "fixtures" / "netbox"
MAC = "1c:34:da:5e:00:02"


def _persist_sonic():
    inventory_persist(inventory=plan_clos(ClosParams(name="macs", spines=2, leaves=2, platform="sonic",
                                                     leaf_model="SN5600", spine_model="SN5600")))


def _device_metadata(inventory, hostname: str) -> dict:
    snapshot = Snapshot(inventory, FabricIntent(name="macs", inventory_fabric="macs"))
    config = structured_configs(snapshot, facts_of(snapshot))[hostname]
    return json.loads(render_device(config, "sonic")["config_db.json"])["DEVICE_METADATA"]["localhost"]


@pytest.mark.django_db
def test_api_sets_the_base_mac_and_the_render_carries_it(api_client):
    _persist_sonic()
    leaf1 = Switch.objects.get(hostname="leaf1")
    url = reverse("switch-detail", args=[leaf1.pk])
    assert "mac" not in _device_metadata(inventory_snapshot("macs"), "leaf1")  # unknown: never invented
    response = api_client.patch(url, {"base_mac": MAC.upper(), "version": leaf1.version}, format="json")
    assert response.status_code == 200, response.data
    assert response.data["base_mac"] == MAC and Switch.objects.get(pk=leaf1.pk).base_mac == MAC
    assert _device_metadata(inventory_snapshot("macs"), "leaf1")["mac"] == MAC
    # a rebuild from the builder's plan (no MACs) keeps it
    _persist_sonic()
    assert Switch.objects.get(pk=leaf1.pk).base_mac == MAC


@pytest.mark.django_db
@pytest.mark.parametrize("bad", ["1c:34:da:5e:00", "01:00:5e:00:00:01", "00:00:00:00:00:00", "zz:34:da:5e:00:02"])
def test_api_refuses_a_bad_base_mac_with_400_naming_the_field(api_client, bad):
    _persist_sonic()
    leaf1 = Switch.objects.get(hostname="leaf1")
    response = api_client.patch(reverse("switch-detail", args=[leaf1.pk]),
                                {"base_mac": bad, "version": leaf1.version}, format="json")
    assert response.status_code == 400 and "base_mac" in response.data
    assert Switch.objects.get(pk=leaf1.pk).base_mac is None


@pytest.mark.django_db
def test_api_refuses_a_base_mac_another_switch_has(api_client):
    _persist_sonic()
    Switch.objects.filter(hostname="leaf2").update(base_mac=MAC)
    leaf1 = Switch.objects.get(hostname="leaf1")
    response = api_client.patch(reverse("switch-detail", args=[leaf1.pk]),
                                {"base_mac": MAC.upper(), "version": leaf1.version}, format="json")
    assert response.status_code == 400 and "base_mac" in response.data


def test_yaml_round_trip_and_a_bad_mac_named():
    inventory = plan_clos(ClosParams(name="macs", spines=1, leaves=1, platform="sonic", leaf_model="SN5600",
                                     spine_model="SN5600"))
    data = inventory_to_dict(inventory)
    data["switches"][0]["base_mac"] = MAC.upper()
    loaded, _meta = inventory_from_dict(yaml.safe_load(yaml.safe_dump(data)))
    assert loaded.switches[0].base_mac == MAC
    assert inventory_to_dict(loaded)["switches"][0]["base_mac"] == MAC
    data["switches"][0]["base_mac"] = "not-a-mac"
    with pytest.raises(InputError) as error:
        inventory_from_dict(data)
    assert any(item.field.endswith(".base_mac") and item.value == "not-a-mac" for item in error.value.errors)


def _netbox_with(tmp_path, value) -> Path:
    directory = tmp_path / "nb"
    shutil.copytree(NETBOX, directory)
    path = directory / "devices.json"
    devices = json.loads(path.read_text())
    leaf1 = next(d for d in devices["results"] if d["name"] == "leaf1")
    leaf1.setdefault("custom_fields", {})["base_mac"] = value
    path.write_text(json.dumps(devices))
    return directory


def test_netbox_import_reads_the_base_mac_custom_field(tmp_path):
    inventory = netbox_to_inventory(load_dump(_netbox_with(tmp_path, MAC.upper())), fabric="nb").inventory
    assert inventory.switches_by_name["leaf1"].base_mac == MAC
    assert inventory.switches_by_name["leaf2"].base_mac is None  # NetBox has none for it: left out
    errors = check_dump(load_dump(_netbox_with(tmp_path / "bad", "01:00:5e:00:00:01")))
    bad = [e for e in errors if "base_mac" in e.field]
    assert len(bad) == 1 and bad[0].value == "01:00:5e:00:00:01" and "multicast" in bad[0].message
    assert bad[0].field.startswith("devices.json[") and bad[0].field.endswith("].custom_fields.base_mac")
