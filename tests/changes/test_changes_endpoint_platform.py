"""An endpoint whose driver cannot take its switch's config is refused when it is created or changed, naming the
driver, the switch and its platform (issue #30 point 2): before, it was accepted and failed at the first push."""

import re

import pytest
from django.contrib.auth.models import Group
from rest_framework.test import APIClient
from twin_rows import twin_row

from changes import services
from common.roles import ADMIN, roles_ensure
from compiler.clos import ClosParams
from compiler.errors import InputError
from inventory.builder import fabric_build

pytestmark = pytest.mark.django_db


@pytest.fixture
def eos_and_sonic_leaves():
    fabric_build(params=ClosParams(name="ep", spines=1, leaves=2, servers_per_leaf=1, platform="eos",
                                   leaf_platforms=("eos", "sonic")))


def test_a_sonic_driver_for_an_eos_switch_is_refused_naming_both(eos_and_sonic_leaves):
    with pytest.raises(InputError) as refused:
        services.endpoint_create(hostname="leaf1", driver="netmiko_sonic", address="192.0.2.1")
    assert refused.value.errors[0].field == "driver"
    assert "leaf1 (platform eos in the inventory)" in str(refused.value) and "use napalm_eos" in str(refused.value)
    assert services.endpoint_create(hostname="leaf1", driver="napalm_eos", address="192.0.2.1").pk
    assert services.endpoint_create(hostname="leaf2", driver="netmiko_sonic", address="192.0.2.2").pk
    assert services.endpoint_create(hostname="spine1", driver="twin", address="tw-spine1",  # the twin runs any
                                    optional_args={"twin": twin_row().pk}).pk
    assert services.endpoint_create(hostname="not-in-inventory", driver="napalm_eos", address="192.0.2.9").pk


@pytest.mark.parametrize("options, message", [
    ({}, "optional_args.twin (the Twin id, an integer) is required"),
    ({"twin": "ftx"}, "optional_args.twin (the Twin id, an integer) is required for the twin driver, got 'ftx'"),
    ({"twin": 424242}, "optional_args.twin 424242: no twin with this id"),
    ({"twin_prefix": "ftx"}, "optional_args.twin_prefix is no longer taken: name the twin by optional_args.twin"),
])
def test_a_twin_endpoint_names_its_twin_by_the_twin_id(db, options, message):
    """Issue #28 point 3: the Twin row is the handle of a twin-driven endpoint too, never a prefix or path."""
    with pytest.raises(InputError, match=re.escape(message)) as refused:
        services.endpoint_create(hostname="leaf1", driver="twin", address="tw-leaf1", optional_args=options)
    assert refused.value.errors[0].field == "optional_args"


def test_changing_the_driver_is_checked_too_and_the_api_answers_400(eos_and_sonic_leaves):
    endpoint = services.endpoint_create(hostname="leaf2", driver="netmiko_sonic", address="192.0.2.2")
    with pytest.raises(InputError, match=r"leaf2 \(platform sonic in the inventory\)"):
        services.endpoint_update(endpoint=endpoint, values={"driver": "napalm_eos"})
    roles_ensure()
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("ada")
    user.groups.add(Group.objects.get(name=ADMIN))
    client = APIClient()
    client.force_authenticate(user)
    answer = client.post("/api/device-endpoints/", {"hostname": "leaf1", "driver": "netmiko_sonic",
                                                    "address": "192.0.2.1"}, format="json")
    assert answer.status_code == 400 and "driver" in answer.json(), answer.content
