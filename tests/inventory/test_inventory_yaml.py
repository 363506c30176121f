"""YAML export/import: exact round trip through an empty database, strict field errors, nothing half-saved."""

import io

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from compiler.clos import ClosParams
from compiler.errors import InputError
from inventory.builder import fabric_build
from inventory.io_yaml import fabric_export_yaml, fabric_import_yaml
from inventory.models import Cable, Fabric, Interface, NicPort, Optic, Rack, Server, Site, Switch, SwitchModel

pytestmark = pytest.mark.django_db

ALL_MODELS = (Optic, Cable, Interface, NicPort, Switch, Server, Rack, Fabric, SwitchModel, Site)


def _empty_database():
    for model in ALL_MODELS:
        model.objects.all().delete()


def test_export_import_export_is_identical(tmp_path):
    fabric_build(params=ClosParams(name="rt", spines=2, leaves=4, servers_per_leaf=2, rails_per_server=2,
                                   leaf_model="DCS-7060X6-64PE", uplink_speed_gbps=400, downlink_speed_gbps=400))
    Fabric.objects.filter(name="rt").update(description="round trip")
    first = fabric_export_yaml("rt")
    _empty_database()
    assert Switch.objects.count() == 0
    fabric_import_yaml(first)
    second = fabric_export_yaml("rt")
    assert second == first
    assert yaml.safe_load(first)["fabric"] == {"name": "rt", "site": "dc1", "description": "round trip"}
    assert any(i["breakout_parent"] for s in yaml.safe_load(first)["switches"] for i in s["interfaces"])


def test_import_is_idempotent():
    fabric_build(params=ClosParams(name="rt", spines=2, leaves=2, servers_per_leaf=1))
    text = fabric_export_yaml("rt")
    _, result = fabric_import_yaml(text)
    assert not result.changed


def test_commands_round_trip(tmp_path):
    fabric_build(params=ClosParams(name="rt", spines=2, leaves=2, servers_per_leaf=1))
    path = tmp_path / "rt.yaml"
    call_command("fabric_export", "--name", "rt", "--output", str(path), stdout=io.StringIO())
    _empty_database()
    out = io.StringIO()
    call_command("fabric_import", str(path), "--strict", stdout=out)
    assert "imported fabric rt" in out.getvalue()
    assert Switch.objects.count() == 4
    with pytest.raises(CommandError, match="does not exist"):
        call_command("fabric_export", "--name", "nope", stdout=io.StringIO())


def test_bad_documents_name_every_field_and_save_nothing():
    fabric_build(params=ClosParams(name="rt", spines=2, leaves=2, servers_per_leaf=1))
    data = yaml.safe_load(fabric_export_yaml("rt"))
    _empty_database()
    data["switches"][0]["role"] = "router"
    data["switches"][1]["interfaces"][0]["speed_gbps"] = "fast"
    del data["cables"][0]["length_m"]
    with pytest.raises(InputError) as error:
        fabric_import_yaml(yaml.safe_dump(data))
    fields = error.value.as_dict()
    assert "switches[spine1].role" in fields
    assert "switches[spine2].interfaces[0].speed_gbps" in fields
    assert any(name.endswith(".length_m") and name.startswith("cables[") for name in fields)
    assert Switch.objects.count() == 0 and Fabric.objects.count() == 0


def test_a_database_error_midway_rolls_everything_back():
    fabric_build(params=ClosParams(name="rt", spines=2, leaves=2, servers_per_leaf=1))
    data = yaml.safe_load(fabric_export_yaml("rt"))
    _empty_database()
    # A cable end that names no port: detected after switches, interfaces and cables were written.
    data["cables"][-1]["b"]["interface"] = "Ethernet999"
    with pytest.raises(InputError, match="cable end is not a port"):
        fabric_import_yaml(yaml.safe_dump(data))
    assert Switch.objects.count() == 0 and Cable.objects.count() == 0 and Fabric.objects.count() == 0


def test_invalid_yaml_and_wrong_format_are_field_errors():
    with pytest.raises(InputError, match="not valid YAML"):
        fabric_import_yaml("switches: [unclosed")
    with pytest.raises(InputError, match="format"):
        fabric_import_yaml(yaml.safe_dump({"format": "other", "fabric": {"name": "x"}}))


def test_server_model_round_trips_and_survives_a_rebuild():
    """Issue 31: a server's model (it picks the NIC family) goes through YAML, a rebuild from the plan (which names
    no model) keeps it, and an unknown model is a field error naming the server."""
    params = ClosParams(name="sm", spines=2, leaves=2, servers_per_leaf=1)
    fabric_build(params=params)
    Server.objects.filter(name="gpu0001").update(model="XE9680-Thor2")
    text = fabric_export_yaml("sm")
    assert "model: XE9680-Thor2" in text and text.count("model: XE9680-Thor2") == 1
    fabric_build(params=params)  # the plan again: no model named, the stored one stays
    assert Server.objects.get(name="gpu0001").model == "XE9680-Thor2"
    _empty_database()
    fabric_import_yaml(text)
    assert Server.objects.get(name="gpu0001").model == "XE9680-Thor2"
    assert fabric_export_yaml("sm") == text
    _empty_database()
    with pytest.raises(InputError) as raised:
        fabric_import_yaml(text.replace("model: XE9680-Thor2", "model: DGX-9000"))
    assert [(error.field, error.value) for error in raised.value.errors] == [("servers[gpu0001].model", "DGX-9000")]
    assert not Server.objects.exists()
