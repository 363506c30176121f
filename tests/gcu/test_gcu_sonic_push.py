"""Every SONiC push the product emits, run through SONiC's own Generic Config Updater (dry run), on every catalogue
SONiC platform, from the factory CONFIG_DB SONiC's own first-boot code builds for that HwSKU (tests/gcu/README.md).

The changes, each planned exactly as the Netmiko SONiC driver plans it (changes.drivers.sonic_gcu.plan_push, then
changes.drivers.config_db.config_db_patch): the first push (QoS/buffer tables by ``config load`` after the patch),
a new VLAN with its VNI, an ECN threshold, a drift remediation, a rollback of a day-2 change. For each: real GCU
accepts the patch, and the driver's own transcription of GCU's rules (gcu_refusals) agrees. Deliberately illegal
changes (a PFC watchdog field on an HwSKU GCU's ASIC table does not list, a buffer pool size) are refused by real
GCU and by the driver first. Without the GCU environment (scripts/gcu-env.sh) every test skips with the reason.
"""

from __future__ import annotations

import copy
import json
import os
from functools import cache

import pytest
from harness import DEVICE_DIR, SonicSwitch, factory_config_db, gcu_dry_run, gcu_unavailable

from changes.drivers.config_db import apply_config_db_patch, config_db_patch
from changes.drivers.sonic_gcu import SonicRelease, gcu_asic, gcu_refusals, merge_loaded, plan_push
from compiler.api import compile_fabric
from compiler.platforms import known_models, model_platforms
from compiler.scenario import snapshot_from_scenario

REASON = gcu_unavailable()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(REASON is not None, reason=f"GCU cannot run here: {REASON}")]

# A release with no 8-digit branch date (SONiC's 2025-05 release naming): GCU's per-ASIC rules apply without the
# minimum-date check. The base MAC is the switch's own (a documentation-style locally administered address).
BUILD_VERSION = "SONiC.202505.01"
BASE_MAC = "0e:00:5e:00:53:01"
ROCE = {"name": "roce", "dscp": [26], "priority": 3, "traffic_class": 3, "lossless": True, "ecn_min_kb": 150,
        "ecn_max_kb": 1500, "ecn_mark_probability": 10, "cnp_dscp": 48, "cnp_priority": 6}
NET10 = {"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/24", "gateway": "10.10.0.1",
         "attachments": "all"}
NET20 = {"name": "net20", "tenant": "A", "vlan_id": 20, "subnet": "10.20.0.0/24", "gateway": "10.20.0.1",
         "attachments": "all"}


def _catalogue_switches() -> dict[str, SonicSwitch]:
    switches = {}
    for model in known_models():
        sonic = model_platforms(model).sonic
        if sonic is None or sonic.hwsku is None:
            continue  # a derived port map (DCS-7816R4): SONiC has no platform for it, nothing boots it
        asic_type = (DEVICE_DIR / sonic.platform / "platform_asic").read_text().strip()
        switches[model] = SonicSwitch(sonic.platform, sonic.hwsku, asic_type, BUILD_VERSION, BASE_MAC)
    return switches


SWITCHES = _catalogue_switches()
MODELS = sorted(SWITCHES)


def _leaf(model: str, *, networks: tuple[dict, ...] = (NET10,), ecn_min_kb: int = 150) -> dict:
    scenario = {"clos": {"name": "gcu", "spines": 1, "leaves": 2, "servers_per_leaf": 2, "platform": "sonic",
                         "leaf_model": model},
                "intent": {"name": "gcu", "roce_classes": [{**ROCE, "ecn_min_kb": ecn_min_kb}],
                           "tenants": [{"name": "A", "vrf": "TENANT_A"}], "networks": [dict(n) for n in networks]}}
    return json.loads(compile_fabric(snapshot_from_scenario(scenario)).rendered["leaf1"]["sonic"]["config_db.json"])


def _release(model: str) -> SonicRelease:
    switch = SWITCHES[model]
    return SonicRelease(asic_type=switch.asic_type, build_version=switch.build_version, hwsku=switch.hwsku)


def _push(model: str, running: dict, candidate: dict, *, rollback: bool = False) -> tuple[dict, list[dict], dict]:
    """(state GCU starts from, the patch, the CONFIG_DB afterwards) as the driver plans it."""
    plan = plan_push(running, candidate, rollback=rollback)
    patch = config_db_patch(plan.base, plan.patch_target, owned_only=not rollback)
    return plan.base, patch, merge_loaded(apply_config_db_patch(plan.base, patch), plan.load)


@cache
def _factory(model: str) -> dict:
    return factory_config_db(SWITCHES[model])


@cache
def _ready(model: str) -> dict:
    """The factory switch after the operator's one-time step the driver names (docs/changes.md): the factory runs
    ``separated`` (no docker_routing_config_mode), our frr.conf needs ``split-unified``; the driver refuses a push
    that changes the mode (tests/changes/test_changes_sonic_patch.py), so the operator sets it and restarts bgp."""
    ready = copy.deepcopy(_factory(model))
    ready["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] = "split-unified"
    return ready


@cache
def _first_pushed(model: str) -> dict:
    base, patch, after = _push(model, _ready(model), _leaf(model))
    return after


def _change(model: str, change: str) -> tuple[dict, list[dict]]:
    """(running, patch) of one product change on a switch that took the first push."""
    if change == "first push":
        base, patch, _ = _push(model, _ready(model), _leaf(model))
        return base, patch
    pushed = _first_pushed(model)
    if change == "add VLAN/VNI":
        base, patch, _ = _push(model, pushed, _leaf(model, networks=(NET10, NET20)))
    elif change == "ECN threshold":
        base, patch, _ = _push(model, pushed, _leaf(model, ecn_min_kb=300))
    elif change == "drift remediation":
        drifted = copy.deepcopy(pushed)  # an operator's hand edits the intent puts back
        drifted["VLAN_MEMBER"].pop(sorted(drifted["VLAN_MEMBER"])[0])
        profile = sorted(drifted["WRED_PROFILE"])[0]
        drifted["WRED_PROFILE"][profile]["green_min_threshold"] = "1048576"
        drifted["DEVICE_METADATA"]["localhost"]["hostname"] = "sonic"
        base, patch, _ = _push(model, drifted, _leaf(model))
    elif change == "rollback":
        _, _, with_vlan = _push(model, pushed, _leaf(model, networks=(NET10, NET20)))
        base, patch, after = _push(model, with_vlan, pushed, rollback=True)
        assert after == pushed  # the rollback's plan lands exactly on the saved config
    else:
        raise AssertionError(change)
    return base, patch


CHANGES = ["first push", "add VLAN/VNI", "ECN threshold", "drift remediation", "rollback"]
FULL_DAY2_MODELS = ("SN5600", "Z9664F-ON")  # day-2 changes under real GCU in make test (see the test)


def test_every_catalogue_sonic_hwsku_has_its_device_files():
    assert set(MODELS) == {"DCS-7060DX5-64S", "DCS-7060X6-64PE", "SN5600", "Z9664F-ON"}
    for switch in SWITCHES.values():
        assert (DEVICE_DIR / switch.platform / switch.hwsku / "port_config.ini").is_file()


@pytest.mark.parametrize("model", MODELS)
def test_the_factory_config_db_is_sonics_own(model):
    factory = _factory(model)
    localhost = factory["DEVICE_METADATA"]["localhost"]
    assert (localhost["hwsku"], localhost["platform"], localhost["mac"]) == (
        SWITCHES[model].hwsku, SWITCHES[model].platform, BASE_MAC)
    assert localhost["type"] == "LeafRouter" and localhost["hostname"] == "sonic"  # config_samples t1 preset
    assert "Loopback0|10.1.0.1/32" in factory["LOOPBACK_INTERFACE"] and factory["BGP_NEIGHBOR"]
    assert factory["FEATURE"]["swss"]["state"] == "enabled"  # init_cfg.json (bgp's state is a template hostcfgd renders)
    assert not any(table.startswith("BUFFER_") for table in factory)  # no QoS until someone installs it
    assert all(factory.values()) and "DEVICE_NEIGHBOR" not in factory  # Redis holds no empty table


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize("model", MODELS)
def test_gcu_accepts_every_push_the_product_emits(model, change):
    running, patch = _change(model, change)
    assert patch, "a change with nothing to apply tests nothing"
    target = apply_config_db_patch(running, patch)
    assert gcu_refusals(running, target, _release(model)) == []  # the driver would send it
    if change != "first push" and model not in FULL_DAY2_MODELS and not os.environ.get("FT_GCU_FULL"):
        # make test's 40-minute budget: real GCU runs every first push, and every day-2 change on one listed ASIC
        # (SN5600) and on the catalogue's default leaf (Z9664F, unlisted); FT_GCU_FULL=1 runs the whole matrix
        # (all accepted in the last full run, docs/changes.md).
        pytest.skip(f"skipped: real GCU for {change} on {model} runs with FT_GCU_FULL=1 (the driver's check ran)")
    result = gcu_dry_run(SWITCHES[model], running, patch)
    print(f"\nGCU dry run | {model} ({SWITCHES[model].hwsku}, GCU ASIC {gcu_asic(_release(model))}) | {change} | "
          f"{len(patch)} operations | {'accepted' if result.accepted else 'REFUSED'}")
    assert result.accepted, result.error


@pytest.mark.parametrize("model", MODELS)
def test_rolling_back_the_first_push_goes_where_gcu_goes(model):
    """Back to the factory: ``config qos clear``, then a patch that also removes PFC_WD, which GCU allows only on a
    listed ASIC: there real GCU accepts it; elsewhere both refuse it, the driver first (it names ``pfcwd``)."""
    base, patch, after = _push(model, _first_pushed(model), _ready(model), rollback=True)
    assert after == _ready(model) and "BUFFER_POOL" not in base and "PFC_WD" in base  # qos clear keeps PFC_WD
    refusals = gcu_refusals(base, apply_config_db_patch(base, patch), _release(model))
    if gcu_asic(_release(model)) != "unknown" and not os.environ.get("FT_GCU_FULL"):
        # GCU's patch sorter takes 2-4 minutes per first-push removal on a listed ASIC (measured: 117 s and 226 s
        # under load): the driver's own check ran above; the real GCU run is opt-in to keep make test in budget.
        assert refusals == [], refusals
        pytest.skip("skipped: real GCU on the first-push rollback of a listed ASIC takes minutes; FT_GCU_FULL=1 runs it")
    result = gcu_dry_run(SWITCHES[model], base, patch)
    print(f"\nGCU dry run | {model} ({SWITCHES[model].hwsku}, GCU ASIC {gcu_asic(_release(model))}) | rollback of the "
          f"first push | {len(patch)} operations | {'accepted' if result.accepted else 'REFUSED'}")
    assert result.accepted == (refusals == []), (result.error, refusals)
    if gcu_asic(_release(model)) != "unknown":
        assert result.accepted, result.error
    else:
        assert [refusal.split(":")[0] for refusal in refusals] == ["remove /PFC_WD"] and "PFC_WD" in result.error


def test_the_first_push_with_qos_in_one_patch_is_refused_by_gcu_and_by_the_driver():
    """Why QoS goes by ``config load``: the same first push as one patch is what GCU refuses (issue 27)."""
    model = "Z9664F-ON"
    factory, candidate = _ready(model), _leaf(model)
    patch = config_db_patch(factory, candidate)
    refusals = gcu_refusals(factory, apply_config_db_patch(factory, patch), _release(model))
    assert any(refusal.startswith("add /BUFFER_POOL") for refusal in refusals), refusals
    result = gcu_dry_run(SWITCHES[model], factory, patch)
    assert not result.accepted and "BUFFER_POOL" in result.error, result.error


def _pfc_wd_change(model: str) -> tuple[dict, list[dict]]:
    pushed = _first_pushed(model)
    port = next(key for key in sorted(pushed["PFC_WD"]) if key != "GLOBAL")
    return pushed, [{"op": "replace", "path": f"/PFC_WD/{port}/detection_time", "value": "300"}]


@pytest.mark.parametrize("model", MODELS)
def test_a_pfc_watchdog_change_is_refused_first_where_gcu_refuses_it(model):
    running, patch = _pfc_wd_change(model)
    refusals = gcu_refusals(running, apply_config_db_patch(running, patch), _release(model))
    result = gcu_dry_run(SWITCHES[model], running, patch)
    listed = gcu_asic(_release(model)) != "unknown"
    print(f"\nPFC_WD detection_time on {model}: GCU ASIC {gcu_asic(_release(model))}, real GCU "
          f"{'accepted' if result.accepted else 'refused'}, driver {'refuses' if refusals else 'sends'}")
    assert result.accepted == listed and (refusals == []) == listed, (result.error, refusals)
    if refusals:
        assert "pfcwd" in refusals[0] and "PFC_WD" in result.error


@pytest.mark.parametrize("model", MODELS)
def test_a_buffer_pool_size_change_is_refused_by_gcu_and_by_the_driver_first(model):
    running = _first_pushed(model)
    pool = sorted(running["BUFFER_POOL"])[0]
    patch = [{"op": "replace", "path": f"/BUFFER_POOL/{pool}/size", "value": "1024"}]
    refusals = gcu_refusals(running, apply_config_db_patch(running, patch), _release(model))
    assert refusals and "config qos reload" in refusals[0]
    result = gcu_dry_run(SWITCHES[model], running, patch)
    assert not result.accepted and "BUFFER_POOL" in result.error, result.error
