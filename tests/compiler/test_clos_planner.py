"""The pure Clos planner: deterministic, growable, media by distance, clear errors."""

import pytest

from compiler.catalog import MEDIA, media_for, standard_length
from compiler.clos import ClosParams, oversubscription, plan_clos
from compiler.errors import InputError
from compiler.model import CableType, Role


def test_reference_fabric_shape():
    inventory = plan_clos(ClosParams())
    assert len(inventory.switches_with_role(Role.SPINE)) == 2
    assert len(inventory.switches_with_role(Role.LEAF)) == 4
    assert len(inventory.servers) == 8
    assert len(inventory.cables) == 2 * 4 + 8
    # every cabled interface has an optic whose media matches its cable type
    for cable in inventory.cables:
        for end in (cable.a, cable.b):
            switch = inventory.switches_by_name.get(end.device)
            optic = (switch.interfaces_by_name[end.interface] if switch else
                     inventory.servers_by_name[end.device].nics_by_name[end.interface]).optic
            assert optic is not None and MEDIA[optic.media].cable_type == cable.cable_type
            assert cable.length_m <= optic.reach_m


def test_planner_is_deterministic():
    assert plan_clos(ClosParams()) == plan_clos(ClosParams())


def test_growing_leaves_adds_only_new_objects():
    small, grown = plan_clos(ClosParams(leaves=4)), plan_clos(ClosParams(leaves=6))
    assert set(small.cables) <= set(grown.cables)
    assert {s.hostname for s in small.switches} <= {s.hostname for s in grown.switches}
    spine_small = small.switches_by_name["spine1"]
    spine_grown = grown.switches_by_name["spine1"]
    assert [i.name for i in spine_small.interfaces] == [i.name for i in spine_grown.interfaces]


def test_oversubscription_reported_per_leaf():
    inventory = plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=4))
    assert oversubscription(inventory) == {"leaf1": 2.0, "leaf2": 2.0}


def test_rail_optimised_groups_and_platform_names():
    inventory = plan_clos(ClosParams(spines=2, leaves=4, rails_per_server=2, servers_per_leaf=2, platform="sonic"))
    server = inventory.servers_by_name["gpu0001"]
    peers = sorted(inventory.cable_at[(c := next(x for x in inventory.cable_at if x.device == server.name
                                                    and x.interface == nic.name))].other_end(c).device
                   for nic in server.nics)
    assert peers == ["leaf1", "leaf2"]
    assert inventory.switches_by_name["leaf1"].interfaces[0].name == "Ethernet0"


def test_breakout_when_link_slower_than_port():
    inventory = plan_clos(ClosParams(spines=2, leaves=2, leaf_model="DCS-7060X6-64PE", spine_model="DCS-7060X6-64PE"))
    interface = inventory.switches_by_name["spine1"].interfaces[1]
    assert (interface.name, interface.breakout_parent, interface.lane, interface.speed_gbps) == (
        "Ethernet1/5", "Ethernet1", 2, 400)


def test_media_choice_by_distance():
    assert media_for(400, 2).cable_type == CableType.DAC
    assert media_for(400, 15).cable_type == CableType.AOC
    assert media_for(400, 80).name == "400G-SR8"
    assert media_for(400, 400).name == "400G-DR4"
    assert media_for(400, 1500).name == "400G-FR4"
    assert standard_length(CableType.AOC, 12.3) == 15.0
    with pytest.raises(ValueError, match="no optic"):
        media_for(400, 5000)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        (ClosParams(spines=0), "spines"),
        (ClosParams(uplink_speed_gbps=300), "uplink_speed_gbps"),
        (ClosParams(platform="junos"), "platform"),
        (ClosParams(servers_per_leaf=80, leaf_model="DCS-7060DX5-64S"), "leaf_model"),
        (ClosParams(leaf_model="nope"), "leaf_model"),
    ],
)
def test_bad_parameters_name_the_field(params, field):
    with pytest.raises(InputError) as error:
        plan_clos(params)
    assert error.value.errors[0].field == field


def test_chassis_spines_get_a_rack_each_and_fit_the_power_budget():
    from validators.physical import check_physical

    inventory = plan_clos(ClosParams(spines=2, leaves=200, servers_per_leaf=1))
    spines = inventory.switches_with_role(Role.SPINE)
    assert spines[0].model == "DCS-7816R4" and spines[0].rack != spines[1].rack
    assert not [f for f in check_physical(inventory) if f.check == "physical.rack_power"]


def test_sonic_breakout_lanes_are_not_mistaken_for_their_cage():
    from validators.physical import check_physical

    inventory = plan_clos(ClosParams(spines=2, leaves=2, platform="sonic", spine_model="SN5600", leaf_model="SN5600"))
    lane = inventory.switches_by_name["spine1"].interfaces[0]
    assert (lane.name, lane.breakout_parent) == ("Ethernet0", "Ethernet0")
    assert [f for f in check_physical(inventory) if f.check == "physical.optic_port"] == []


def test_servers_are_packed_by_power_as_well_as_rack_units():
    from validators.physical import check_physical

    inventory = plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=4))  # 4 x 10.2 kW > a 40 kW rack
    racks = {server.rack for server in inventory.servers}
    assert racks == {"dc1-r001", "dc1-r001-2", "dc1-r002", "dc1-r002-2"}
    assert [f for f in check_physical(inventory) if f.check == "physical.rack_power"] == []
    with pytest.raises(InputError, match="rack_power_budget_kw"):
        plan_clos(ClosParams(rack_power_budget_kw=5.0))


def test_prefixed_fabrics_share_one_inventory_without_collisions():
    first = plan_clos(ClosParams())
    second = plan_clos(ClosParams(name="b", name_prefix="b-", mgmt_pool="172.17.0.0/16",
                                  server_mgmt_pool="172.21.0.0/16"))
    for attribute in ("hostname", "mgmt_ip", "serial"):
        assert not {getattr(s, attribute) for s in first.switches} & {getattr(s, attribute) for s in second.switches}
    assert not {s.name for s in first.servers} & {s.name for s in second.servers}
    assert not {r.name for r in first.racks} & {r.name for r in second.racks}


def test_intent_errors_survive_a_round_trip_through_their_message():
    import pickle

    from compiler.errors import FieldError

    error = InputError([FieldError("vlan_id", 0, "must be 1..4094")])
    assert pickle.loads(pickle.dumps(error)).errors == error.errors
    rebuilt = InputError(str(error))  # what Celery's JSON transport hands back
    assert rebuilt.errors[0].message == "vlan_id=0: must be 1..4094"


def test_200g_links_build_with_200g_media_on_every_cable():
    inventory = plan_clos(ClosParams(spines=2, leaves=2, uplink_speed_gbps=200, downlink_speed_gbps=200))
    assert {cable.cable_type for cable in inventory.cables} == {CableType.DAC, CableType.AOC}
    optics = [i.optic for s in inventory.switches for i in s.interfaces if i.optic is not None]
    assert optics and {optic.speed_gbps for optic in optics} == {200}
    assert {optic.media for optic in optics} <= {"200G-DAC", "200G-AOC"}


def test_a_speed_without_catalogued_media_names_the_speed_field(monkeypatch):
    # Broken case: without 200G media (the catalogue before 200G was added) the planner must not raise
    # ValueError (an HTTP 500) but a field error naming the speed and the catalogue.
    for name in [name for name, media in MEDIA.items() if media.speed_gbps == 200]:
        monkeypatch.delitem(MEDIA, name)
    with pytest.raises(InputError) as error:
        plan_clos(ClosParams(spines=2, leaves=2, uplink_speed_gbps=200))
    assert (error.value.errors[0].field, error.value.errors[0].value) == ("uplink_speed_gbps", 200)
    assert "catalogued speeds: 100, 400, 800" in str(error.value)


def test_sn5600_leaves_break_800g_cages_out_for_100g_downlinks():
    # sonic-buildimage device/mellanox/x86_64-nvidia_sn5600-r0/platform.json: no 8x100G mode, but
    # "4x200G[100G,50G,25G,10G]" runs four 100G sub-ports per OSFP cage.
    inventory = plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=8, platform="sonic", leaf_model="SN5600",
                                     downlink_speed_gbps=100))
    leaf = inventory.switches_by_name["leaf1"]
    down = [i for i in leaf.interfaces if i.speed_gbps == 100]
    assert len(down) == 8 and [i.name for i in down[:4]] == ["Ethernet0", "Ethernet2", "Ethernet4", "Ethernet6"]
    assert {i.breakout_parent for i in down[:4]} == {"Ethernet0"} and [i.lane for i in down[:4]] == [1, 2, 3, 4]
    with pytest.raises(InputError) as error:  # under EOS the model has no platform data: the field and the fix
        plan_clos(ClosParams(spines=2, leaves=2, leaf_model="SN5600", downlink_speed_gbps=100))
    assert error.value.errors[0].field == "leaf_model" and "it runs sonic" in str(error.value)
