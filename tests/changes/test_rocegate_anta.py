"""The RoCE gate exported as an ANTA catalogue (issue 34, item 5): its shape checked against ANTA's own test names
and input fields (tests/changes/data/rocegate/anta_interfaces_tests.json, copied from aristanetworks/anta), its
thresholds against the gate's policy, on the EOS leaf of the mixed_eos_sonic golden scenario; and the command."""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path

import pytest
import yaml
from changes_memory_fabric import MemoryFabric
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from twin_rows import twin_row

from changes import services
from changes.models import Rollout
from changes.rocegate.anta import MODULE, AntaDevice, anta_catalog, catalog_yaml
from changes.rocegate.settings import GateSettings

DATA = Path(__file__).parent / "data" / "rocegate"
GOLDEN = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected" / "structured"
ANTA = json.loads((DATA / "anta_interfaces_tests.json").read_text())


def _leaf1() -> dict:
    return json.loads((GOLDEN / "leaf1.json").read_text())


def assert_anta_shape(catalog: dict) -> None:
    """Every test is one ANTA has, with only inputs its Input model accepts (they forbid extra keys)."""
    assert list(catalog) == [ANTA["module"]]
    ethernet = re.compile(ANTA["ethernet_interface"])
    for item in catalog[ANTA["module"]]:
        ((name, inputs),) = item.items()
        assert name in ANTA["tests"], name
        allowed = set(ANTA["tests"][name]["inputs"]) | set(ANTA["base_inputs"])
        assert set(inputs) <= allowed, (name, set(inputs) - allowed)
        assert set(inputs.get("filters") or {}) <= set(ANTA["filters"])
        assert set(inputs.get("result_overwrite") or {}) <= set(ANTA["result_overwrite"])
        assert inputs["interfaces"] and all(ethernet.match(port) for port in inputs["interfaces"]), inputs
        for key in ("counters_threshold", "packet_drop_threshold"):
            if key in inputs:
                assert isinstance(inputs[key], int) and inputs[key] >= 0  # PositiveInteger: ge=0
        assert set(inputs.get("queue_types", [])) <= set(ANTA["tests"][name].get("queue_types", []))
        assert all(re.fullmatch(r"TC\d", tc) for tc in inputs.get("traffic_classes", []))


def test_the_catalogue_of_an_eos_leaf_has_anta_names_and_the_gates_thresholds():
    settings = GateSettings.from_json({"enabled": True, "post_s": 20, "polls": 2, "quiet_pfc_per_s": 5})
    catalog = anta_catalog([AntaDevice("leaf1", _leaf1())], settings, origin="rollout 7")
    assert_anta_shape(catalog)
    tests = {name: inputs for item in catalog[MODULE] for name, inputs in item.items()}
    ports = ["Ethernet1/1", "Ethernet63/1", "Ethernet64/1"]  # the used ports, all with PFC and ECN on queue 3
    assert tests["VerifyInterfacesEgressQueueDrops"] == {
        "interfaces": ports, "traffic_classes": ["TC3"], "queue_types": ["unicast"], "packet_drop_threshold": 0,
        "filters": {"tags": ["leaf1"]},
        "result_overwrite": {"custom_field": "rollout 7: hard gate lossless_drops (any drop fails)"}}
    assert tests["VerifyInterfacesPFCCounters"]["counters_threshold"] == 100  # 5 frames/s over the 20 s window
    assert tests["VerifyInterfacesPFCCounters"]["interfaces"] == ports
    assert "VerifyInterfacesECNCounters" not in tests  # every used port has ECN: no absolute bound to give


def test_ports_without_pfc_or_ecn_get_zero_thresholds_and_a_device_without_roce_none():
    structured = _leaf1()
    border = next(port for port in structured["interfaces"] if port["name"] == "Ethernet64/1")
    border["qos"] = {**border["qos"], "ecn": {}, "pfc_priorities": []}  # the intent gives this port neither
    no_roce = copy.deepcopy(structured)
    no_roce["qos"] = {}
    settings = GateSettings.from_json({"enabled": True, "quiet_pfc_per_s": 2.5, "post_s": 3})
    catalog = anta_catalog([AntaDevice("leaf1", structured), AntaDevice("leaf9", no_roce)], settings, origin="r")
    assert_anta_shape(catalog)
    found = [(name, inputs["interfaces"], inputs.get("counters_threshold"), inputs["filters"]["tags"])
             for item in catalog[MODULE] for name, inputs in item.items()]
    assert found == [
        ("VerifyInterfacesEgressQueueDrops", ["Ethernet1/1", "Ethernet63/1"], None, ["leaf1"]),
        ("VerifyInterfacesPFCCounters", ["Ethernet1/1", "Ethernet63/1"], 8, ["leaf1"]),  # ceil(2.5 x 3)
        ("VerifyInterfacesPFCCounters", ["Ethernet64/1"], 0, ["leaf1"]),
        ("VerifyInterfacesECNCounters", ["Ethernet64/1"], 0, ["leaf1"]),
    ]
    assert anta_catalog([AntaDevice("leaf9", no_roce)], settings, origin="r") == {}


def test_the_policy_s_lossless_queues_choose_the_traffic_classes():
    structured = _leaf1()
    structured["qos"]["tc_to_queue"] = {"0": 0, "3": 4}

    def classes(policy: dict) -> list[str]:
        catalog = anta_catalog([AntaDevice("leaf1", structured)], GateSettings.from_json(policy), origin="r")
        assert_anta_shape(catalog)
        return [item["VerifyInterfacesEgressQueueDrops"]["traffic_classes"] for item in catalog[MODULE]
                if "VerifyInterfacesEgressQueueDrops" in item][0]

    assert classes({}) == ["TC3"]  # the intent's lossless priority 3
    assert classes({"lossless_queues": [4]}) == ["TC3"]  # TC 3 is what queue 4 carries
    assert classes({"lossless_queues": [0]}) == ["TC0"]


def test_the_shape_check_catches_a_name_anta_does_not_have():
    catalog = anta_catalog([AntaDevice("leaf1", _leaf1())], GateSettings(), origin="r")
    broken = copy.deepcopy(catalog)
    broken[MODULE][0] = {"VerifyPfcCounters": next(iter(broken[MODULE][0].values()))}
    with pytest.raises(AssertionError):
        assert_anta_shape(broken)
    broken = copy.deepcopy(catalog)
    next(iter(broken[MODULE][1].values()))["threshold"] = 0  # not an input of VerifyInterfacesPFCCounters
    with pytest.raises(AssertionError):
        assert_anta_shape(broken)


def test_the_yaml_is_the_catalogue_after_its_header():
    catalog = anta_catalog([AntaDevice("leaf1", _leaf1())], GateSettings(), origin="r")
    text = catalog_yaml(catalog, header="line one\nline two")
    assert text.startswith("# line one\n# line two\n---\nanta.tests.interfaces:\n")
    assert yaml.safe_load(text) == catalog


def _rollout_with_an_eos_leaf():
    fabric = MemoryFabric(["leaf1", "leaf2"])
    intended = {host: {"files": dict(config), "role": "leaf", "driver": "twin"} for host, config in fabric.configs.items()}
    intended["leaf1"].update(platform="eos", structured=_leaf1())
    intended["leaf2"].update(platform="sonic", structured=_leaf1())  # not EOS: not in an ANTA catalogue
    user = User.objects.get_or_create(username="operator")[0]
    change_set = services.changeset_create(name="t", intended=intended, driver_for=fabric.driver)
    rollout = services.rollout_create(name="r", kind="canary_push", target="twin", change_set=change_set, user=user,
                                      twin=twin_row(prefix="rgtest"),
                                      policy={"roce_gate": {"enabled": True, "post_s": 4}})
    return change_set, rollout


@pytest.mark.django_db
def test_rollout_anta_catalog_command(tmp_path):
    change_set, rollout = _rollout_with_an_eos_leaf()
    out = io.StringIO()
    call_command("rollout", "anta-catalog", str(rollout.pk), stdout=out)
    text = out.getvalue()
    assert f"# ANTA catalogue of the RoCE gate of rollout {rollout.pk} (r)" in text
    catalog = yaml.safe_load(text)
    assert_anta_shape(catalog)
    assert {tag for item in catalog[MODULE] for inputs in item.values() for tag in inputs["filters"]["tags"]} == \
        {"leaf1"}
    pfc = next(item["VerifyInterfacesPFCCounters"] for item in catalog[MODULE] if "VerifyInterfacesPFCCounters" in item)
    assert pfc["counters_threshold"] == 20  # the policy's post_s 4 x the default 5 frames/s
    call_command("rollout", "anta-catalog", str(rollout.pk), "--output", str(tmp_path / "anta.yaml"), stdout=out)
    assert yaml.safe_load((tmp_path / "anta.yaml").read_text()) == catalog
    with pytest.raises(CommandError, match="no EOS device of change set"):
        change_set.devices.filter(hostname="leaf1").update(platform="sonic")
        call_command("rollout", "anta-catalog", str(rollout.pk), stdout=io.StringIO())
    with pytest.raises(CommandError, match="does not exist"):
        call_command("rollout", "anta-catalog", "999999", stdout=io.StringIO())
    with pytest.raises(CommandError, match="--output="):
        change_set.devices.filter(hostname="leaf1").update(platform="eos")
        call_command("rollout", "anta-catalog", str(rollout.pk), "--output", str(tmp_path / "missing" / "x.yaml"),
                     stdout=io.StringIO())


@pytest.mark.django_db
def test_rollout_anta_catalog_api(api_client):
    change_set, rollout = _rollout_with_an_eos_leaf()
    answer = api_client.get(f"/api/rollouts/{rollout.pk}/anta-catalog/")
    assert answer.status_code == 200, answer.content
    assert_anta_shape(answer.json()["catalog"])
    assert yaml.safe_load(answer.json()["yaml"]) == answer.json()["catalog"]
    change_set.devices.update(platform="sonic")
    answer = api_client.get(f"/api/rollouts/{rollout.pk}/anta-catalog/")
    assert answer.status_code == 400 and "no EOS device" in json.dumps(answer.json())
    assert api_client.get("/api/rollouts/999999/anta-catalog/").status_code == 404


@pytest.mark.django_db
def test_a_rollout_without_a_change_set_has_no_catalogue(api_client):
    rollout = Rollout.objects.create(name="upgrade", kind="rolling_upgrade", target="twin", change_set=None,
                                     policy={"target_version": "frr-9"})
    answer = api_client.get(f"/api/rollouts/{rollout.pk}/anta-catalog/")
    assert answer.status_code == 400 and "has no change set" in json.dumps(answer.json())
