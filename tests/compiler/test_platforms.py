"""Platform data (compiler/platforms): transcribed vendor port maps, breakout naming, and the inventory port check."""

from __future__ import annotations

from dataclasses import replace

import pytest

from compiler import platforms
from compiler.catalog import SWITCH_MODELS
from compiler.clos import ClosParams, plan_clos
from compiler.errors import InputError, IntentValidationError
from compiler.model import FabricIntent, Snapshot
from compiler.validate import validate_intent
from validators.physical import PORT_EXISTS, check_port_exists, physical_report


def test_every_catalogue_model_has_platform_data_with_a_source():
    assert set(platforms.known_models()) == set(SWITCH_MODELS)
    for model in SWITCH_MODELS:
        data = platforms.model_platforms(model)
        assert data.front_panel_ports == SWITCH_MODELS[model].port_count
        if data.sonic and not data.sonic.derived:
            assert data.sonic.source["repository"] == "sonic-net/sonic-buildimage"
            assert len(data.sonic.source["commit"]) == 40
            assert any(path.endswith("port_config.ini") for path in data.sonic.source["files"])
            assert data.sonic.hwsku and data.sonic.platform
        if data.vendor == "Arista":
            assert data.eos is not None and "Arista" in data.eos.source
        else:
            assert data.eos is None  # EOS runs on Arista hardware only


def test_transcribed_rows_match_the_vendor_files():
    # device/dell/x86_64-dell_z9664f-r0/DellEMC-Z9664f-O64/port_config.ini: 4 lanes per port, irregular lane map
    dell = platforms.sonic_platform("Z9664F-ON")
    assert dell.hwsku == "DellEMC-Z9664f-O64" and dell.platform == "x86_64-dell_z9664f-r0"
    assert dell.port("Ethernet0").lanes == (5, 6, 7, 8) and dell.port("Ethernet0").index == 1
    assert dell.port("Ethernet132").lanes == (1, 2, 3, 4) and dell.port("Ethernet132").alias == "fourhundredGigE1/34"
    assert not dell.breakout_table and platforms.sonic_platform("SN5600").breakout_table
    # device/arista/x86_64-arista_7060x6_64pe/Arista-7060X6-64PE/port_config.ini
    arista = platforms.sonic_platform("DCS-7060X6-64PE")
    assert arista.port("Ethernet8").lanes == tuple(range(1, 9)) and arista.port("Ethernet8").fec == "rs"
    assert platforms.sonic_platform("SN5600").hwsku == "ACS-SN5600"
    assert platforms.sonic_platform("DCS-7816R4").derived  # no SONiC platform for the 7800R4: said, not hidden


def test_sonic_breakout_follows_the_breakoutcfg_rule():
    port = platforms.sonic_platform("SN5600").port("Ethernet8")
    mode = platforms.sonic_breakout_mode(port, 2, 400)
    assert mode == "2x400G[200G,100G,50G,40G,25G,10G]"
    halves = platforms.sonic_logical_ports(port, mode)
    assert [(p.name, p.lanes, p.alias, p.index) for p in halves] == [
        ("Ethernet8", (8, 9, 10, 11), "etp2a", 2), ("Ethernet12", (12, 13, 14, 15), "etp2b", 2)]
    # A 100G sub-port rides the 4x200G[100G,...] mode: four ports, two lanes each.
    assert platforms.breakout_count("SN5600", "sonic", 100, 800, ()) == 4
    assert platforms.sonic_breakout_mode(port, 3, 400) is None
    with pytest.raises(platforms.PlatformDataError, match="8x100G"):
        platforms.sonic_logical_ports(port, "8x100G")


def test_builder_names_ports_from_the_platform_data():
    sonic = plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=2, platform="sonic"))
    leaf = sonic.switches_by_name["leaf1"]
    assert leaf.model == "Z9664F-ON"
    assert [i.name for i in leaf.interfaces[:3]] == ["Ethernet0", "Ethernet4", "Ethernet8"]  # 4-lane ports
    sonic_100g = plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=2, platform="sonic",
                                      downlink_speed_gbps=100))
    leaf = sonic_100g.switches_by_name["leaf1"]
    assert leaf.model == "SN5600"  # the Z9664F-O64 HWSKU has no breakout table
    assert [(i.name, i.breakout_parent, i.lane) for i in leaf.interfaces[:2]] == [
        ("Ethernet0", "Ethernet0", 1), ("Ethernet2", "Ethernet0", 2)]
    chassis = plan_clos(ClosParams(spines=2, leaves=300, servers_per_leaf=2, platform="eos"))
    spine = chassis.switches_by_name["spine1"]
    assert spine.model == "DCS-7816R4"
    assert spine.interfaces[0].name == "Ethernet3/1/1" and spine.interfaces[-1].name == "Ethernet18/36/5"


def test_builder_refuses_a_speed_the_hwsku_cannot_break_out_to():
    with pytest.raises(InputError, match="Z9664F-ON under sonic has no port mode for 100G"):
        plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=2, platform="sonic", leaf_model="Z9664F-ON",
                             downlink_speed_gbps=100))
    # the same speed on a model whose platform.json offers it
    plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=2, platform="sonic", leaf_model="SN5600",
                         downlink_speed_gbps=100))


def test_builder_refuses_an_os_the_model_does_not_run():
    with pytest.raises(InputError, match="leaf_model.*SN5600 has no eos platform data"):
        plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=2, platform="eos", leaf_model="SN5600"))


def _with_interface(inventory, hostname, index, **changes):
    switch = inventory.switches_by_name[hostname]
    interfaces = list(switch.interfaces)
    interfaces[index] = replace(interfaces[index], **changes)
    switches = tuple(replace(s, interfaces=tuple(interfaces)) if s.hostname == hostname else s
                     for s in inventory.switches)
    return replace(inventory, switches=switches)


@pytest.mark.parametrize("platform", ["sonic", "eos", "frr"])
def test_planned_ports_pass_the_inventory_check(platform):
    inventory = plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=2, platform=platform))
    validate_intent(Snapshot(inventory, FabricIntent(name="t", inventory_fabric="t")))


@pytest.mark.parametrize(("platform", "bad_name", "message"), [
    ("sonic", "Ethernet2", "Z9664F-ON has no port Ethernet2 under sonic"),
    ("eos", "Ethernet65/1", "DCS-7060DX5-64S has no port Ethernet65/1 under eos"),
    ("frr", "swp65", "FRR/Linux ports are swp1..swp64"),
])
def test_a_port_the_model_does_not_have_is_an_error(platform, bad_name, message):
    inventory = plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=2, platform=platform))
    leaf = inventory.switches_by_name["leaf1"]
    unused = len(leaf.interfaces) - 5  # a middle port, not cabled
    broken = _with_interface(inventory, "leaf1", unused, name=bad_name)
    with pytest.raises(IntentValidationError) as caught:
        validate_intent(Snapshot(broken, FabricIntent(name="t", inventory_fabric="t")))
    errors = [e for e in caught.value.errors if e.field == "switches[leaf1].interfaces"]
    assert len(errors) == 1 and errors[0].value == bad_name and message in errors[0].message


def test_a_sub_port_under_the_wrong_parent_is_an_error():
    inventory = plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=2, platform="sonic",
                                     downlink_speed_gbps=100))
    broken = _with_interface(inventory, "leaf1", 1, breakout_parent="Ethernet8")  # Ethernet2 lies on Ethernet0
    with pytest.raises(IntentValidationError, match="Ethernet2 is a sub-port of Ethernet0"):
        validate_intent(Snapshot(broken, FabricIntent(name="t", inventory_fabric="t")))


def test_netbox_names_get_their_breakout_parent_from_the_platform_data():
    found = platforms.breakout_parents("SN5600", "sonic", 64, ["Ethernet0", "Ethernet2", "Ethernet4", "Ethernet6",
                                                                 "Ethernet8", "Ethernet99"])
    assert found["Ethernet0"] == ("Ethernet0", 1) and found["Ethernet6"] == ("Ethernet0", 4)
    assert found["Ethernet8"] is None  # alone on its port: not broken out
    assert "Ethernet99" not in found  # unknown: left for the inventory check
    eos = platforms.breakout_parents("DCS-7060DX5-64S", "eos", 64, ["Ethernet1/1", "Ethernet1/5", "Ethernet2/1"])
    assert eos == {"Ethernet1/1": ("Ethernet1", 1), "Ethernet1/5": ("Ethernet1", 2), "Ethernet2/1": None}



def test_the_physical_report_shows_the_same_rule():
    inventory = plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=2, platform="sonic"))
    assert check_port_exists(inventory) == []
    broken = _with_interface(inventory, "leaf1", len(inventory.switches_by_name["leaf1"].interfaces) - 5,
                             name="Ethernet2")
    findings = check_port_exists(broken)
    assert [(f.check, f.subject, f.actual) for f in findings] == [(PORT_EXISTS, "leaf1:Ethernet2", "Ethernet2")]
    assert not physical_report(broken).ok
