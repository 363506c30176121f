"""The UI build form builds 5-stage fabrics as the API does (issue #30 point 4): pods, super-spines per plane and
their links, the super-spine platform; the name prefix reaches the super-spines; management pools taken by another
fabric are replaced by free ones and named after the build; bad values are field errors, nothing half-saved."""

from __future__ import annotations

from inventory.models import Fabric, Switch

FORM = {"site": "dc9", "spines": 2, "leaves": 2, "servers_per_leaf": 1, "rails_per_server": 1,
        "uplinks_per_spine": 1, "uplink_speed_gbps": 400, "downlink_speed_gbps": 400, "platform": "eos",
        "rack_power_budget_kw": 40, "mgmt_pool": "172.16.0.0/16", "server_mgmt_pool": "172.20.0.0/16",
        "pods": 0, "super_spines_per_plane": 1, "super_spine_links": 1}


def _build(client, **fields):
    return client.post("/fabrics/build/", {**FORM, **fields}, follow=True)


def _messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_the_form_builds_a_five_stage_fabric(admin, db):
    page = admin.get("/fabrics/build/").content.decode()
    for field in ("pods", "super_spines_per_plane", "super_spine_links", "super_spine_platform", "super_spine_model"):
        assert f'id="id_{field}"' in page
    response = _build(admin, name="five", pods=2, super_spines_per_plane=2, super_spine_links=1,
                      super_spine_platform="sonic")
    assert response.redirect_chain[-1][0] == "/fabrics/five/"
    # 2 pods x (2 spines + 2 leaves) + 2 planes x 2 super-spines
    assert any("Built fabric five: 12 switches" in text for text in _messages(response))
    supers = Switch.objects.filter(fabric__name="five", role="super-spine")
    assert supers.count() == 4 and set(supers.values_list("platform__slug", flat=True)) == {"sonic"}
    assert set(Switch.objects.filter(fabric__name="five", role="leaf").values_list("platform__slug", flat=True)) \
        == {"eos"}
    assert set(Switch.objects.filter(fabric__name="five", role="spine").values_list("pod", flat=True)) == {1, 2}


def test_a_second_five_stage_fabric_takes_its_prefix_and_free_pools(admin, db):
    assert _build(admin, name="one", pods=2).redirect_chain[-1][0] == "/fabrics/one/"
    response = _build(admin, name="two", pods=2, name_prefix="b-")
    assert response.redirect_chain[-1][0] == "/fabrics/two/", response.context["form"].errors
    texts = _messages(response)
    # the defaults are taken by fabric one: free /16s are picked and said
    assert any("Management pool picked: mgmt_pool 172.17.0.0/16" in text and "fabric one" in text for text in texts)
    assert any("server_mgmt_pool" in text for text in texts)
    names = set(Switch.objects.filter(fabric__name="two").values_list("hostname", flat=True))
    # every name carries the prefix (pod switches as pod1-b-leaf1), super-spines included
    assert {"b-superspine1", "pod1-b-leaf1"} <= names and all("b-" in name for name in names)
    addresses = set(Switch.objects.filter(fabric__name="two").values_list("mgmt_ip", flat=True))
    assert all(str(address).startswith("172.17.") for address in addresses)


def test_an_explicit_taken_pool_is_a_field_error(admin, db):
    _build(admin, name="one", pods=2)
    response = _build(admin, name="two", pods=2, name_prefix="b-", mgmt_pool="172.16.0.0/16",
                      server_mgmt_pool="172.21.0.0/16")
    # the default value given again counts as the default: picked, not refused; a non-default taken one is refused
    assert response.redirect_chain[-1][0] == "/fabrics/two/"
    response = _build(admin, name="three", pods=2, name_prefix="c-", mgmt_pool="172.17.0.0/16")
    errors = response.context["form"].errors
    assert "mgmt_pool" in errors and "two" in errors["mgmt_pool"][0] and not Fabric.objects.filter(name="three").exists()


def test_bad_pod_values_are_field_errors(admin, db):
    response = _build(admin, name="big", pods=63, spines=64, leaves=200)
    assert "pods" in response.context["form"].errors and "at most 10000" in response.context["form"].errors["pods"][0]
    response = _build(admin, name="neg", pods=-1)
    assert "pods" in response.context["form"].errors
    response = _build(admin, name="model", pods=2, super_spine_model="no-such-switch")
    assert "super_spine_model" in response.context["form"].errors
    assert not Fabric.objects.filter(name__in=["big", "neg", "model"]).exists()
