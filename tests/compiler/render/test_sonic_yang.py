"""Every config_db.json the compiler produces passes SONiC's own YANG models (tests/compiler/render/sonic_yang.py).

Goldens, randomly generated fabrics (sizes, leaf models, breakouts, RoCE classes, tenants, underlay, management
services) and deliberately broken configs that must fail: a port without lanes, a leafref to nothing, a field
no model knows, a value outside its pattern. Needs Debian's yanglint (scripts/ensure-system.sh installs
libyang2-tools); without it these tests skip with that reason, never pass.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from render_structured_fixtures import leaf_structured, spine_structured
from sonic_yang import table_schemas, validate_config_db, validate_many, yanglint_path

from compiler.api import compile_fabric
from compiler.errors import InputError
from compiler.render.sonic import render_config_db
from compiler.scenario import snapshot_from_scenario

pytestmark = pytest.mark.skipif(yanglint_path() is None,
                                reason="yanglint not installed (Debian libyang2-tools; scripts/ensure-system.sh)")

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
GOLDEN_CONFIGS = sorted(GOLDEN.glob("*/expected/rendered/*/sonic/config_db.json"))
ROCE_CLASSES = [
    {"name": "roce", "dscp": [26], "priority": 3, "traffic_class": 3, "lossless": True,
     "ecn_min_kb": 150, "ecn_max_kb": 1500, "ecn_mark_probability": 10, "cnp_dscp": 48, "cnp_priority": 6},
    {"name": "bulk", "dscp": [10], "priority": 1, "traffic_class": 1, "lossless": False},
]
TENANCY = {
    "tenants": [{"name": "A", "vrf": "TENANT_A"}],
    "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/24", "gateway": "10.10.0.1",
                  "attachments": "all"}],
}


def test_the_translation_knows_every_table_we_render():
    schemas = table_schemas()
    assert len(schemas) > 200  # 146 modules, ~250 tables
    database = json.loads(render_config_db(leaf_structured("sonic")))
    assert set(database) <= set(schemas), set(database) - set(schemas)


@pytest.mark.parametrize("path", GOLDEN_CONFIGS, ids=[str(p.relative_to(GOLDEN)) for p in GOLDEN_CONFIGS])
def test_golden_config_db_passes_sonic_yang(path):
    report = validate_config_db(json.loads(path.read_text()))
    assert report.errors == [] and report.tables_without_yang == []


def test_there_are_sonic_goldens_to_check():
    assert len(GOLDEN_CONFIGS) >= 8


@pytest.mark.parametrize("make", [leaf_structured, spine_structured])
def test_hand_built_fixtures_pass_sonic_yang(make):
    assert validate_config_db(json.loads(render_config_db(make("sonic")))).errors == []


AAA = {"tacacs_servers": ["192.0.2.5", "2001:db8::5"], "secret_ref": "vault:secret/fabric/tacacs"}


def _with_aaa(vrf: str | None = "mgmt") -> dict:
    structured = leaf_structured("sonic")
    structured["management"].update(aaa=copy.deepcopy(AAA), vrf=vrf)
    return json.loads(render_config_db(structured))


@pytest.mark.parametrize("vrf", ["mgmt", None], ids=["mgmt-vrf", "default-vrf"])
def test_tacacs_aaa_tables_pass_sonic_yang(vrf):
    database = _with_aaa(vrf)
    assert {"TACPLUS", "TACPLUS_SERVER", "AAA"} <= set(database)  # sonic-system-tacacs / sonic-system-aaa checked
    report = validate_config_db(database)
    assert report.errors == [] and report.tables_without_yang == []


def test_tacacs_login_without_a_passkey_fails():
    errors = _broken(_with_aaa(), lambda db: db["TACPLUS"]["global"].pop("passkey"))
    assert any("not allowed when passkey not exists" in error for error in errors), errors


def test_a_passkey_with_a_blank_fails():
    errors = _broken(_with_aaa(), lambda db: db["TACPLUS"]["global"].update(passkey="two words"))
    assert any("passkey" in error or "TACACS shared secret" in error for error in errors), errors


def test_a_tacacs_server_in_a_tenant_vrf_fails():
    errors = _broken(_with_aaa(), lambda db: db["TACPLUS_SERVER"]["192.0.2.5"].update(vrf="Vrf_TENANT_A"))
    assert any("Invalid VRF name" in error or "vrf" in error for error in errors), errors


# ------------------------------------------------------------------------------------- must fail


@pytest.fixture(scope="module")
def leaf_db() -> dict:
    return json.loads(render_config_db(leaf_structured("sonic")))


def _broken(database: dict, change) -> list[str]:
    broken = copy.deepcopy(database)
    change(broken)
    return validate_config_db(broken).errors


def test_a_port_without_lanes_fails(leaf_db):
    errors = _broken(leaf_db, lambda db: db["PORT"]["Ethernet0"].pop("lanes"))
    assert len(errors) == 1 and 'Mandatory node "lanes"' in errors[0]


def test_a_leafref_to_nothing_fails(leaf_db):
    errors = _broken(leaf_db, lambda db: db["QUEUE"]["Ethernet0|3"].update(scheduler="scheduler.missing"))
    assert any('Invalid leafref value "scheduler.missing"' in error for error in errors), errors


def test_a_buffer_pg_on_a_port_that_does_not_exist_fails(leaf_db):
    errors = _broken(leaf_db, lambda db: db["BUFFER_PG"].update({"Ethernet999|3": db["BUFFER_PG"]["Ethernet0|3"]}))
    assert any("Ethernet999" in error for error in errors), errors


def test_a_field_no_model_knows_fails(leaf_db):
    errors = _broken(leaf_db, lambda db: db["PORT"]["Ethernet0"].update(speed_mode="fast"))
    assert any("PORT: key 'Ethernet0' matches no list" in error for error in errors), errors


def test_a_value_outside_its_pattern_fails(leaf_db):
    errors = _broken(leaf_db, lambda db: db["DEVICE_METADATA"]["localhost"].update(
        docker_routing_config_mode="bgpcfgd"))
    assert any("docker_routing_config_mode" in error for error in errors), errors


def test_a_management_address_without_its_port_fails(leaf_db):
    errors = _broken(leaf_db, lambda db: db.pop("MGMT_PORT"))
    assert any("MGMT_INTERFACE" in error or "eth0" in error for error in errors), errors


# ------------------------------------------------------------------------------------- generated fabrics


@st.composite
def fabrics(draw) -> dict:
    leaf_model = draw(st.sampled_from([None, "SN5600", "Z9664F-ON", "DCS-7060DX5-64S", "DCS-7060X6-64PE"]))
    clos = {
        "name": "gen", "spines": draw(st.integers(1, 3)), "leaves": draw(st.integers(1, 4)),
        "servers_per_leaf": draw(st.integers(0, 3)), "platform": "sonic",
        "downlink_speed_gbps": draw(st.sampled_from([100, 400, 800])),
        "uplink_speed_gbps": draw(st.sampled_from([400, 800])),
        "leaf_platforms": draw(st.sampled_from([[], ["sonic", "eos"]])),
    }
    if leaf_model:
        clos["leaf_model"] = leaf_model
    intent = {"name": "gen", "underlay": draw(st.sampled_from(["numbered", "unnumbered"]))}
    if clos["leaf_platforms"] and intent["underlay"] == "unnumbered":
        intent["underlay"] = "numbered"  # EOS has no unnumbered underlay (a refusal tested elsewhere)
    if draw(st.booleans()):
        intent["roce_classes"] = draw(st.sampled_from([ROCE_CLASSES, ROCE_CLASSES[:1]]))
    if draw(st.booleans()):
        intent.update(copy.deepcopy(TENANCY))
    if draw(st.booleans()):
        intent["management"] = {"ntp_servers": ["192.0.2.10"], "syslog_servers": ["192.0.2.20", "2001:db8::20"],
                                "dns_servers": ["192.0.2.53"]}
        if draw(st.booleans()):
            intent["management"].update(aaa_servers=["192.0.2.5", "2001:db8::5"],
                                        aaa_secret_ref="vault:secret/fabric/tacacs")
    return {"clos": clos, "intent": intent}


def _sonic_configs(scenario: dict) -> list[dict]:
    try:
        snapshot = snapshot_from_scenario(scenario)
        result = compile_fabric(snapshot)
    except InputError:
        assume(False)  # a combination the planner refuses (no model gives those ports): not a config to check
        raise
    return [json.loads(files["sonic"]["config_db.json"]) for files in result.rendered.values() if "sonic" in files]


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=fabrics())
def test_generated_fabrics_pass_sonic_yang(scenario):
    configs = _sonic_configs(scenario)
    reports = validate_many(configs)
    violations = [error for report in reports for error in report.errors]
    assert violations == [], (scenario, violations[:5])
    assert all(report.tables_without_yang == [] for report in reports)


@pytest.mark.parametrize("roce", [False, True], ids=["no-roce", "roce"])
def test_every_leaf_model_and_breakout_passes_sonic_yang(roce):
    """A fixed sweep (the measured number in docs/renderers.md): every SONiC leaf model x downlink speed."""
    configs, fabrics_built = [], 0
    for leaf_model in ("SN5600", "Z9664F-ON", "DCS-7060DX5-64S", "DCS-7060X6-64PE"):
        for downlink in (100, 400, 800):
            scenario = {"clos": {"name": "sweep", "spines": 1, "leaves": 2, "servers_per_leaf": 2, "platform": "sonic",
                                 "leaf_model": leaf_model, "downlink_speed_gbps": downlink},
                        "intent": {"name": "sweep", **({"roce_classes": ROCE_CLASSES} if roce else {}), **TENANCY}}
            try:
                result = compile_fabric(snapshot_from_scenario(copy.deepcopy(scenario)))
            except InputError:
                continue  # the model has no breakout for that speed (platform data): refused, not rendered
            fabrics_built += 1
            configs += [json.loads(files["sonic"]["config_db.json"]) for files in result.rendered.values()]
    reports = validate_many(configs)
    violations = [error for report in reports for error in report.errors]
    print(f"\nSONiC YANG sweep ({'with' if roce else 'without'} RoCE): {len(configs)} config_db.json from "
          f"{fabrics_built} fabrics, {len(violations)} violations")
    assert fabrics_built >= 8 and len(configs) >= 3 * fabrics_built
    assert violations == [], violations[:5]


def test_the_derived_chassis_port_map_passes_sonic_yang_without_claiming_a_hwsku():
    scenario = {"clos": {"name": "chassis", "spines": 1, "leaves": 2, "servers_per_leaf": 1, "platform": "sonic",
                         "spine_model": "DCS-7816R4"},
                "intent": {"name": "chassis", "roce_classes": ROCE_CLASSES}}
    result = compile_fabric(snapshot_from_scenario(scenario))
    spine = json.loads(result.rendered["spine1"]["sonic"]["config_db.json"])
    assert len(spine["PORT"]) == 1152  # 576 OSFP ports, 2 x 400G each
    assert "hwsku" not in spine["DEVICE_METADATA"]["localhost"]  # no SONiC platform exists for the 7800R4
    assert validate_config_db(spine).errors == []


def _hashed_spine_db() -> dict:
    """A compiled Spectrum fabric asking for a distinct ECMP hash function per tier (compiler.structured.ecmp_hashing)."""
    snapshot = snapshot_from_scenario({
        "clos": {"name": "hash", "spines": 1, "leaves": 2, "servers_per_leaf": 2, "platform": "sonic",
                 "leaf_model": "SN5600", "spine_model": "SN5600"},
        "intent": {"name": "hash", "ecmp_hashing": {"tier_hashing": "distinct_functions"}}})
    return json.loads(compile_fabric(snapshot).rendered["spine1"]["sonic"]["config_db.json"])


def test_switch_hash_per_tier_passes_sonic_yang():
    database = _hashed_spine_db()
    assert database["SWITCH_HASH"]["GLOBAL"]["ecmp_hash_algorithm"] == "CRC_32HI"
    report = validate_config_db(database)
    assert report.errors == [] and report.tables_without_yang == []


@pytest.mark.parametrize(("field", "value"), [("ecmp_hash_algorithm", "CRC64"),
                                              ("ecmp_hash", ["SRC_IP", "RDMA_BTH_DEST_QP"])])
def test_a_hash_sonic_yang_does_not_know_fails(field, value):
    """The destination QP is no SWITCH_HASH field in the vendored sonic-hash.yang: why the intent refuses it."""
    database = _hashed_spine_db()
    database["SWITCH_HASH"]["GLOBAL"][field] = value
    assert validate_config_db(database).errors != []
