"""Several fabrics in one inventory (issue #16): names, management pools and identities never collide silently;
every clash is a field error naming the holder and the fix (a 400 from the API), never an IntegrityError."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from compiler.clos import ClosParams, plan_clos
from compiler.errors import InputError
from inventory.builder import fabric_build
from inventory.models import Fabric, Server, Switch
from inventory.services import inventory_persist

pytestmark = pytest.mark.django_db

BACKEND = ClosParams(name="be", spines=2, leaves=2, servers_per_leaf=2)
FRONTEND = ClosParams(name="fe", spines=2, leaves=2, servers_per_leaf=2, name_prefix="fe-")


def test_a_second_fabric_with_a_prefix_gets_free_management_pools():
    fabric_build(params=BACKEND)
    result = fabric_build(params=FRONTEND)
    assert result.notes == ("mgmt_pool 172.17.0.0/16 (172.16.0.0/16 is used by fabric be)",
                            "server_mgmt_pool 172.21.0.0/16 (172.20.0.0/16 is used by fabric be)")
    assert set(Switch.objects.filter(fabric__name="fe").values_list("mgmt_ip", flat=True)) == {
        "172.17.0.1", "172.17.0.2", "172.17.1.1", "172.17.1.2"}
    assert Server.objects.filter(fabric__name="fe", mgmt_ip__startswith="172.21.").count() == 4
    # a rebuild with the same defaults keeps the pools it was given: nothing changes, nothing is picked again
    again = fabric_build(params=FRONTEND)
    assert not again.persisted.changed and again.notes == ()


def test_an_explicit_pool_another_fabric_uses_is_refused_naming_a_free_one():
    fabric_build(params=ClosParams(name="be", spines=2, leaves=2, mgmt_pool="10.10.0.0/16"))
    clash = ClosParams(name="fe", spines=2, leaves=2, name_prefix="fe-", mgmt_pool="10.10.0.0/16",
                       server_mgmt_pool="10.99.0.0/16")
    with pytest.raises(InputError) as error:
        fabric_build(params=clash)
    assert list(error.value.as_dict()) == ["mgmt_pool"]
    # the suggestion is the first free /16 of 172.16.0.0/12 (the default pool is still free here)
    assert "overlaps management addresses of fabric be: use a free /16 such as 172.16.0.0/16" in str(error.value)
    assert not Fabric.objects.filter(name="fe").exists()


def test_persisting_a_taken_management_ip_names_device_holder_and_fix():
    fabric_build(params=BACKEND)
    # an importer (YAML, NetBox) does not go through the pool picker: the persist check still refuses by field
    inventory = plan_clos(ClosParams(name="fe", spines=2, leaves=2, name_prefix="fe-"))
    with pytest.raises(InputError) as error:
        inventory_persist(inventory=inventory)
    fields = error.value.as_dict()
    assert "switches[fe-spine1].mgmt_ip" in fields and "servers[fe-gpu0001].mgmt_ip" in fields
    assert "already used by spine1 of fabric be" in " ".join(fields["switches[fe-spine1].mgmt_ip"])
    assert "--mgmt-pool" in " ".join(fields["switches[fe-spine1].mgmt_ip"])
    assert not Fabric.objects.filter(name="fe").exists()


def test_same_names_in_a_second_fabric_are_refused_naming_the_prefix_fix():
    fabric_build(params=BACKEND)
    with pytest.raises(InputError) as error:
        fabric_build(params=ClosParams(name="fe", spines=2, leaves=2, servers_per_leaf=2))
    assert "already belongs to another fabric (be): give this fabric's names a prefix" in str(error.value)


def test_api_builds_a_second_fabric_and_answers_a_clash_with_400(api_client):
    url = reverse("fabric-build")
    assert api_client.post(url, {"name": "be", "spines": 2, "leaves": 2, "server_mgmt_pool": "10.20.0.0/16"},
                           format="json").status_code == 202
    response = api_client.post(url, {"name": "fe", "spines": 2, "leaves": 2}, format="json")
    assert response.status_code == 400 and "name_prefix" in str(response.json())
    response = api_client.post(url, {"name": "fe", "spines": 2, "leaves": 2, "name_prefix": "fe-",
                                     "mgmt_pool": "10.20.0.0/16"}, format="json")
    assert response.status_code == 400 and "mgmt_pool" in response.json(), response.json()
    response = api_client.post(url, {"name": "fe", "spines": 2, "leaves": 2, "name_prefix": "fe-",
                                     "uplinks_per_spine": 2, "leaf_platforms": ["eos", "sonic"]}, format="json")
    assert response.status_code == 202, response.json()
    assert response.json()["result"]["notes"][0].startswith("mgmt_pool 172.17.0.0/16")
    assert set(Switch.objects.filter(fabric__name="fe", role="leaf").values_list("platform__slug", flat=True)) == {
        "eos", "sonic"}


def test_the_32_server_example_builds_with_one_command():
    # docs/inventory.md "Two fabrics for the same GPU servers": 32 servers x 8 rails, 8 rail leaves, 4 spines,
    # 8 parallel 400G uplinks from each leaf to each spine: 32 x 400G down = 32 x 400G up, non-blocking.
    out = io.StringIO()
    call_command("fabric_build", "--name", "be32", "--spines", "4", "--leaves", "8", "--rails", "8",
                 "--servers-per-leaf", "32", "--uplinks-per-spine", "8", "--no-progress", stdout=out)
    text = out.getvalue()
    assert "fabric be32: 12 switches, 32 servers, 512 cables" in text, text
    assert "oversubscription: worst 1.00:1, best 1.00:1 over 8 leaves" in text
    assert "physical checks: 10 passed, 0 failed" in text


def test_command_exposes_planes_and_mixed_leaf_platforms():
    out = io.StringIO()
    call_command("fabric_build", "--name", "mix", "--spines", "4", "--leaves", "4", "--planes", "2",
                 "--leaf-platforms", "eos,sonic", "--servers-per-leaf", "1", "--no-progress", stdout=out)
    leaves = dict(Switch.objects.filter(role="leaf").values_list("hostname", "platform__slug"))
    assert leaves == {"leaf1": "eos", "leaf2": "sonic", "leaf3": "eos", "leaf4": "sonic"}
    assert sorted(Switch.objects.filter(role="spine").values_list("plane", flat=True)) == [0, 0, 1, 1]
    with pytest.raises(CommandError, match="leaf_platforms='junos': must be one of"):
        call_command("fabric_build", "--name", "bad", "--spines", "2", "--leaves", "2",
                     "--leaf-platforms", "eos,junos", "--no-progress", stdout=io.StringIO())
