"""GCU's field-operation rules in the SONiC driver (changes/drivers/sonic_gcu.py) and how each table reaches the
switch, against the recorded SONiC switch (sonic_recorded_device.py). That real GCU agrees with these rules on every
catalogue platform is tests/gcu/test_gcu_sonic_push.py; here: the rules themselves and the driver's commands.
"""

from __future__ import annotations

import copy
import json

import pytest
from sonic_recorded_device import RecordedSonicConnection

from changes.drivers.config_db import apply_config_db_patch
from changes.drivers.netmiko_sonic import NetmikoSonicDriver
from changes.drivers.sonic_gcu import SonicRelease, gcu_asic, gcu_refusals, is_qos_first_push, plan_push
from compiler.errors import DriverError

SPC4 = SonicRelease(asic_type="mellanox", build_version="SONiC.202505.01", hwsku="ACS-SN5600")
DELL = SonicRelease(asic_type="broadcom", build_version="SONiC.202505.01", hwsku="DellEMC-Z9664f-O64")
# A QoS set as the renderer writes it (names from compiler/render/sonic; values are only data here).
QOS = {
    "BUFFER_POOL": {"ingress_lossless_pool": {"mode": "dynamic", "size": "33554432", "type": "ingress"},
                    "egress_lossless_pool": {"mode": "dynamic", "size": "33554432", "type": "egress"}},
    "BUFFER_PROFILE": {"ingress_lossy_profile": {"dynamic_th": "3", "pool": "ingress_lossless_pool", "size": "0"}},
    "BUFFER_PG": {"Ethernet0|0": {"profile": "ingress_lossy_profile"}},
    "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100"},
               "Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"}},
    "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold": "153600",
                                        "green_max_threshold": "1536000", "green_drop_probability": "10",
                                        "wred_green_enable": "true"}},
}


def _with(database: dict, **tables) -> dict:
    out = copy.deepcopy(database)
    out.update(copy.deepcopy(tables))
    return out


def _refusals(running: dict, patch: list[dict], release: SonicRelease) -> list[str]:
    return gcu_refusals(running, apply_config_db_patch(running, patch), release)


@pytest.mark.parametrize(("hwsku", "asic_type", "generation"), [
    ("ACS-SN5600", "mellanox", "spc4"), ("Arista-7060X6-64PE", "broadcom", "th5"),
    ("DellEMC-Z9664f-O64", "broadcom", "unknown"), ("Arista-7060DX5-64S", "broadcom", "unknown"),
    ("Mellanox-SN5600-C256", "mellanox", "unknown"),  # GCU matches Mellanox HwSKUs exactly: C256S1 is listed
])
def test_the_asic_generation_is_gcus_own_lookup(hwsku, asic_type, generation):
    assert gcu_asic(SonicRelease(asic_type=asic_type, build_version="SONiC.202505.01", hwsku=hwsku)) == generation


def test_a_pfc_watchdog_field_is_allowed_only_on_a_listed_asic():
    running = _with({}, **QOS)
    patch = [{"op": "replace", "path": "/PFC_WD/Ethernet0/detection_time", "value": "300"}]
    assert _refusals(running, patch, SPC4) == []
    [refusal] = _refusals(running, patch, DELL)
    assert refusal.startswith("replace /PFC_WD/Ethernet0/detection_time") and "'unknown'" in refusal
    assert "pfcwd start" in refusal  # what to do instead


def test_an_old_release_below_the_asics_date_is_refused():
    running = _with({}, **QOS)
    patch = [{"op": "replace", "path": "/PFC_WD/Ethernet0/detection_time", "value": "300"}]
    old = SonicRelease(asic_type="mellanox", build_version="SONiC.20220531.10", hwsku="ACS-SN5600")
    assert old.branch_date == "20220531" and _refusals(running, patch, old)  # spc4 needs 20221100
    new = SonicRelease(asic_type="mellanox", build_version="SONiC.20231130.10", hwsku="ACS-SN5600")
    assert _refusals(running, patch, new) == []


def test_buffer_pools_are_refused_on_every_asic():
    running = _with({}, **QOS)
    patch = [{"op": "replace", "path": "/BUFFER_POOL/ingress_lossless_pool/size", "value": "1024"}]
    for release in (SPC4, DELL):
        [refusal] = _refusals(running, patch, release)
        assert "BUFFER_POOL" in refusal and "config qos reload" in refusal


def test_buffer_profiles_take_whole_profiles_and_listed_fields_only():
    running = _with({}, **QOS)
    new_profile = [{"op": "add", "path": "/BUFFER_PROFILE/pg_lossless_1_2_3",
                    "value": {"pool": "ingress_lossless_pool", "size": "3", "xoff": "1", "xon": "2"}}]
    assert _refusals(running, new_profile, DELL) == []  # whole-profile add: allowed everywhere
    dynamic_th = [{"op": "replace", "path": "/BUFFER_PROFILE/ingress_lossy_profile/dynamic_th", "value": "1"}]
    assert _refusals(running, dynamic_th, SPC4) == [] and _refusals(running, dynamic_th, DELL)
    size = [{"op": "replace", "path": "/BUFFER_PROFILE/ingress_lossy_profile/size", "value": "1"}]
    assert _refusals(running, size, SPC4)  # no scenario lists "size"
    create_table = [{"op": "add", "path": "/BUFFER_PROFILE", "value": QOS["BUFFER_PROFILE"]}]
    assert _refusals({}, create_table, SPC4)  # GCU reads the new table's profiles as fields


def test_loopback0_and_pfc_wd_global_removals_and_empty_tables_are_refused():
    running = _with({"LOOPBACK_INTERFACE": {"Loopback0": {}}, "VLAN": {"Vlan10": {"vlanid": "10"}}}, **QOS)
    assert _refusals(running, [{"op": "remove", "path": "/LOOPBACK_INTERFACE/Loopback0"}], SPC4)
    assert _refusals(running, [{"op": "remove", "path": "/PFC_WD/GLOBAL"}], SPC4)
    [empty] = _refusals(running, [{"op": "remove", "path": "/VLAN/Vlan10"}], SPC4)
    assert "VLAN would be left empty" in empty
    assert _refusals(running, [{"op": "remove", "path": "/VLAN"}], SPC4) == []


def test_the_qos_tables_go_by_config_load_only_on_the_first_push():
    candidate = _with({"VLAN": {"Vlan10": {"vlanid": "10"}}}, **QOS)
    first = plan_push({}, candidate)
    assert is_qos_first_push({}, candidate) and set(first.load) == set(QOS)
    assert first.patch_target == {"VLAN": {"Vlan10": {"vlanid": "10"}}}
    day2 = plan_push(candidate, _with(candidate, PFC_WD={"GLOBAL": {"POLL_INTERVAL": "200"}}))
    assert day2.load == {} and not day2.qos_clear and "PFC_WD" in day2.patch_target
    back = plan_push(candidate, {"VLAN": {"Vlan10": {"vlanid": "10"}}}, rollback=True)
    assert back.qos_clear and "BUFFER_POOL" not in back.base and "PFC_WD" in back.base  # qos clear keeps PFC_WD


# ------------------------------------------------------------------------------------- the driver's commands


def _switch(hwsku: str) -> RecordedSonicConnection:
    switch = RecordedSonicConnection("split-unified")
    switch.config_db["DEVICE_METADATA"]["localhost"]["hwsku"] = hwsku
    return switch


def _driver(switch: RecordedSonicConnection) -> NetmikoSonicDriver:
    driver = NetmikoSonicDriver("leaf2", "192.0.2.12", "admin", "s3cret-Pa55")
    driver._connection = switch
    return driver


def _files(database: dict, switch: RecordedSonicConnection) -> dict:
    return {"config_db.json": json.dumps(database), "frr.conf": switch.files["/etc/sonic/frr/frr.conf"]}


def _candidate(switch: RecordedSonicConnection, **tables) -> dict:
    return _with({"VLAN": {"Vlan10": {"vlanid": "10"}, "Vlan30": {"vlanid": "30"}}}, **tables)


def test_a_first_push_loads_the_qos_tables_after_the_patch_and_saves_once():
    switch = _switch("ACS-SN5600")
    diff = _driver(switch).push(_files(_candidate(switch, **QOS), switch))
    assert "config load BUFFER_POOL: 2 entries" in diff and '"/VLAN/Vlan30"' in diff
    order = [c.split()[2] for c in switch.commands if c.startswith("sudo config ")]
    assert order == ["apply-patch", "load", "save"], switch.commands
    assert all("BUFFER" not in json.dumps(patch) for patch in switch.patches)
    assert {table: switch.config_db[table] for table in QOS} == QOS


def test_a_day2_pfc_watchdog_change_gcu_would_refuse_is_refused_before_any_write():
    switch = _switch("DellEMC-Z9664f-O64")
    switch.config_db.update(copy.deepcopy(QOS))
    changed = copy.deepcopy(QOS["PFC_WD"])
    changed["Ethernet0"]["detection_time"] = "400"
    with pytest.raises(DriverError, match=r"GCU\) would refuse.*replace /PFC_WD/Ethernet0/detection_time.*pfcwd"):
        _driver(switch).push(_files(_candidate(switch, **{**QOS, "PFC_WD": changed}), switch))
    assert not any(c.startswith(("printf", "sudo config", "sudo cp", "sudo docker")) for c in switch.commands)


def test_the_same_pfc_watchdog_change_goes_through_gcu_on_a_listed_asic():
    switch = _switch("ACS-SN5600")
    switch.config_db.update(copy.deepcopy(QOS))
    changed = copy.deepcopy(QOS["PFC_WD"])
    changed["Ethernet0"]["detection_time"] = "400"
    _driver(switch).push(_files(_candidate(switch, **{**QOS, "PFC_WD": changed}), switch))
    [patch] = switch.patches
    assert {"op": "replace", "path": "/PFC_WD/Ethernet0/detection_time", "value": "400"} in patch
    assert not switch.loads and switch.config_db["PFC_WD"] == changed


def test_rolling_back_a_first_push_clears_qos_then_patches_back_byte_identical():
    switch = _switch("ACS-SN5600")
    driver = _driver(switch)
    saved = driver.get_running_config()
    driver.push(_files(_candidate(switch, **QOS), switch))
    driver.rollback(saved)
    assert "sudo config qos clear" in switch.commands
    assert driver.normalize(driver.get_running_config()) == driver.normalize(saved)


def test_rolling_back_a_first_push_with_a_pfc_watchdog_gcu_cannot_remove_is_refused():
    switch = _switch("DellEMC-Z9664f-O64")
    driver = _driver(switch)
    saved = driver.get_running_config()
    driver.push(_files(_candidate(switch, **QOS), switch))
    before = list(switch.commands)
    with pytest.raises(DriverError, match=r"remove /PFC_WD.*pfcwd"):
        driver.rollback(saved)
    assert not any(c.startswith(("printf", "sudo config")) for c in switch.commands[len(before):])


def test_the_planned_diff_of_a_first_push_is_what_the_push_sends():
    switch = _switch("ACS-SN5600")
    driver = _driver(switch)
    intended = _files(_candidate(switch, **QOS), switch)
    planned = driver.planned_diff(driver.get_running_config(), intended)
    assert planned == driver.push(intended)
    assert planned.startswith("config load BUFFER_PG: 1 entries\n") and "BUFFER_POOL/" not in planned
