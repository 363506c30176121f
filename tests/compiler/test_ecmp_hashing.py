"""RoCE-aware hashing as intent (issue #32 item 4): what each platform can express (compiler.hardware
HASHING_CAPABILITIES), the field-named refusals, what the structured config and the host NCCL environment carry,
and the collective simulator's verdict on the per-tier function assignment we render."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from compiler.api import build_facts, compile_fabric, structured_configs
from compiler.clos import ClosParams
from compiler.errors import IntentValidationError, RenderError
from compiler.host_config import build_host_configs
from compiler.pods import PodsParams, plan_pods
from compiler.render import eos
from compiler.render.frr import HASH_SEED_SYSCTL
from compiler.render.sonic import render_config_db
from compiler.scenario import snapshot_from_scenario
from compiler.structured.ecmp_hashing import TIER_HASH_FUNCTION
from compiler.validate import validate_intent
from validators.collective import HashConfig, HashPolicy, Job, Scenario, simulate

ROCE = {"name": "roce", "dscp": [26], "priority": 3, "traffic_class": 3, "lossless": True,
        "ecn_min_kb": 150, "ecn_max_kb": 1500, "ecn_mark_probability": 10}


def _snapshot(platform: str, hashing: dict, **clos):
    return snapshot_from_scenario({
        "clos": {"name": "hash", "spines": 2, "leaves": 2, "servers_per_leaf": 2, "platform": platform, **clos},
        "intent": {"name": "hash", "roce_classes": [ROCE], "ecmp_hashing": hashing}})


def _refusal(snapshot) -> list[tuple[str, object, str]]:
    with pytest.raises(IntentValidationError) as caught:
        validate_intent(snapshot)
    return [(error.field, error.value, error.message) for error in caught.value.errors]


# ------------------------------------------------------------------------------------------------ passing


def test_sonic_spectrum_gets_a_distinct_hash_function_per_tier():
    snapshot = _snapshot("sonic", {"tier_hashing": "distinct_functions"}, leaf_model="SN5600", spine_model="SN5600")
    configs = structured_configs(snapshot, build_facts(snapshot))
    assert configs["leaf1"]["load_balance"]["ecmp_hash_function"] == "CRC_32LO"
    assert configs["spine1"]["load_balance"]["ecmp_hash_function"] == "CRC_32HI"
    assert configs["leaf1"]["load_balance"]["udp_payload_hash"] is None


def test_eos_jericho_gets_destination_qp_hashing():
    snapshot = _snapshot("eos", {"dest_qp_hashing": True}, leaf_model="DCS-7816R4", spine_model="DCS-7816R4")
    result = compile_fabric(snapshot)
    text = result.rendered["leaf1"]["eos"]["startup-config"]
    assert "load-balance policies\n   load-balance sand profile default\n      fields udp dst-port 4791\n" \
           "         payload bytes 5-7\n" in text


def test_roles_scope_a_request_to_the_tier_whose_platform_expresses_it():
    """Per role: Jericho spines above Tomahawk leaves hash the destination QP on the spines only; unscoped, the
    same request is refused naming a leaf."""
    scoped = _snapshot("eos", {"dest_qp_hashing": True, "roles": ["spine"]}, spine_model="DCS-7816R4")
    result = compile_fabric(scoped)
    assert "fields udp dst-port 4791" in result.rendered["spine1"]["eos"]["startup-config"]
    assert "load-balance" not in result.rendered["leaf1"]["eos"]["startup-config"]
    (field, value, message), = _refusal(_snapshot("eos", {"dest_qp_hashing": True}, spine_model="DCS-7816R4"))
    assert (field, value) == ("ecmp_hashing.dest_qp_hashing", True) and "(leaf1 ...)" in message


def test_default_intent_renders_no_hashing_and_four_qps():
    snapshot = _snapshot("sonic", {}, leaf_model="SN5600", spine_model="SN5600")
    configs = structured_configs(snapshot, build_facts(snapshot))
    assert all("load_balance" not in config for config in configs.values())
    env = dict(next(iter(build_host_configs(snapshot).values())).nccl_env)
    assert env["NCCL_IB_QPS_PER_CONNECTION"] == "4"


def test_nccl_qps_follow_the_intent():
    snapshot = _snapshot("sonic", {"qps_per_connection": 16})
    validate_intent(snapshot)
    for host in build_host_configs(snapshot).values():
        assert dict(host.nccl_env)["NCCL_IB_QPS_PER_CONNECTION"] == "16"


def test_the_rendered_tier_functions_do_not_polarize_in_the_simulator():
    """What we render, run through the collective simulator (validators/collective; docs/collective.md): on the
    2-pod 5-stage fabric the ladder uses, one CRC on leaves and spines polarizes the spine->super-spine tier (and
    CRC seeds 1 vs 2 do too, test_collective_ladder); CRC-32 low bits on leaves and high bits on spines do not."""
    simulator_name = {"CRC_32LO": "crc32-lo", "CRC_32HI": "crc32-hi", "CRC_CCITT": "crc16-ccitt"}
    inventory = plan_pods(PodsParams(name="tiers", pods=2, super_spines_per_plane=4,
                                     pod=ClosParams(spines=4, leaves=8, servers_per_leaf=4)))

    def spine_tier(hashing: HashPolicy):
        prediction = simulate(inventory, Scenario(job=Job(gpus=512), collective="alltoall-pxn", qps=4, trials=4,
                                                  hashing=hashing))
        return next(tier for tier in prediction.tiers if tier.tier == "spine->super-spine")

    same = spine_tier(HashPolicy(default=HashConfig(function="crc32-lo")))
    ours = spine_tier(HashPolicy(default=HashConfig(function="crc32-lo"), by_role={
        role: HashConfig(function=simulator_name[function]) for role, function in TIER_HASH_FUNCTION.items()}))
    assert same.polarization >= 0.8 and same.idle_links >= 0.5 * same.links
    assert ours.polarization <= 0.1 and ours.idle_links <= 0.05 * ours.links


# ------------------------------------------------------------------------------------------------ refused


def test_destination_qp_hashing_on_tomahawk_is_refused_naming_field_and_platform():
    (field, value, message), = _refusal(_snapshot("eos", {"dest_qp_hashing": True}))
    assert (field, value) == ("ecmp_hashing.dest_qp_hashing", True)
    assert "eos on ASIC family strata" in message and "sand_profiles" in message


def test_distinct_seeds_are_refused_on_sonic_and_eos():
    for platform, models in (("sonic", {"leaf_model": "SN5600", "spine_model": "SN5600"}), ("eos", {})):
        errors = _refusal(_snapshot(platform, {"tier_hashing": "distinct_seeds"}, **models))
        assert [(field, value) for field, value, _ in errors] == [("ecmp_hashing.tier_hashing", "distinct_seeds")]
        assert "hash seed" in errors[0][2] and f"{platform} on ASIC family" in errors[0][2]


def _seeded_frr_plans() -> dict[str, dict]:
    result = compile_fabric(_snapshot("frr", {"tier_hashing": "distinct_seeds"}, spines=4, leaves=4))
    return {host: json.loads(files["frr"]["linux-plan.json"]) for host, files in result.rendered.items()}


def test_frr_gets_its_own_kernel_hash_seed_per_switch_as_the_simulator_derives_it():
    """The seeds the kernel gets are the ones the simulator's ``distinct_seeds`` uses (seed 0 XOR CRC-32 of the
    hostname), whose keyed-hash result is in docs/collective.md: polarization 1.00 with equal seeds, 0.00 distinct."""
    plans = _seeded_frr_plans()
    seeds = {host: int(plan["sysctls"][HASH_SEED_SYSCTL]) for host, plan in plans.items()}
    assert len(seeds) == 8 and len(set(seeds.values())) == 8 and all(0 < seed < 1 << 32 for seed in seeds.values())
    simulated = HashPolicy(default=HashConfig(function="random", seed=0), distinct_seeds=True)
    assert seeds == {host: simulated.config_for(host, "leaf").seed for host in seeds}


@pytest.mark.twin
def test_the_kernel_takes_every_rendered_seed(request):
    """The kernel is FRR/Linux's validator for a sysctl: write each rendered seed in a namespace of our own and read
    it back (the twin applies linux-plan.json sysctls the same way, labs/runtime/linux_plan.py)."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2 for a scratch network namespace")
    namespace = f"hash32-seedprobe-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", namespace], check=True)
    try:
        probe = subprocess.run(["ip", "netns", "exec", namespace, "sysctl", "-n", HASH_SEED_SYSCTL],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            pytest.skip(f"{HASH_SEED_SYSCTL} needs Linux 6.11+: {probe.stderr.strip()}")
        for host, plan in _seeded_frr_plans().items():
            value = plan["sysctls"][HASH_SEED_SYSCTL]
            subprocess.run(["ip", "netns", "exec", namespace, "sysctl", "-qw", f"{HASH_SEED_SYSCTL}={value}"],
                           check=True)
            read = subprocess.run(["ip", "netns", "exec", namespace, "sysctl", "-n", HASH_SEED_SYSCTL],
                                  capture_output=True, text=True, check=True).stdout.strip()
            assert read == value, host
        # the deliberately broken value: beyond 32 bits, the kernel refuses it
        too_big = subprocess.run(["ip", "netns", "exec", namespace, "sysctl", "-qw", f"{HASH_SEED_SYSCTL}={1 << 32}"],
                                 capture_output=True, text=True)
        assert too_big.returncode != 0
    finally:
        subprocess.run(["ip", "netns", "del", namespace], check=False)


def test_renderers_refuse_a_seed_they_cannot_express():
    snapshot = _snapshot("sonic", {}, leaf_model="SN5600", spine_model="SN5600")
    leaf = structured_configs(snapshot, build_facts(snapshot))["leaf1"]
    leaf["load_balance"] = {"ecmp_hash_function": None, "ecmp_hash_fields": None, "ecmp_hash_seed": 7,
                            "udp_payload_hash": None}
    with pytest.raises(RenderError, match="ecmp_hash_seed=7"):
        render_config_db(leaf)


def test_tier_functions_on_eos_and_dlb_anywhere_are_refused():
    errors = _refusal(_snapshot("eos", {"tier_hashing": "distinct_functions", "dlb": True}))
    assert {field for field, _, _ in errors} == {"ecmp_hashing.tier_hashing", "ecmp_hashing.dlb"}
    assert any("ECMP Load Balancing DLB" in message for _, _, message in errors)


@pytest.mark.parametrize(("hashing", "field", "value"), [
    ({"qps_per_connection": 0}, "ecmp_hashing.qps_per_connection", 0),
    ({"qps_per_connection": 65}, "ecmp_hashing.qps_per_connection", 65),
    ({"qps_per_connection": True}, "ecmp_hashing.qps_per_connection", True),
    ({"tier_hashing": "per_switch"}, "ecmp_hashing.tier_hashing", "per_switch"),
    ({"roles": ["leaf", "tor"]}, "ecmp_hashing.roles", "tor"),
    ({"roles": "leaf"}, "ecmp_hashing.roles", "leaf"),
])
def test_bad_values_are_refused_naming_field_and_value(hashing, field, value):
    assert [(f, v) for f, v, _ in _refusal(_snapshot("sonic", hashing))] == [(field, value)]


def test_eos_renderer_refuses_what_pyavd_cannot_express():
    snapshot = _snapshot("eos", {})
    leaf = structured_configs(snapshot, build_facts(snapshot))["leaf1"]  # a Tomahawk (strata) leaf
    leaf["load_balance"] = {"ecmp_hash_function": None, "ecmp_hash_fields": None, "ecmp_hash_seed": None,
                            "udp_payload_hash": {"dst_port": 4791, "payload_bytes": "5-7"}}
    with pytest.raises(RenderError, match="udp_payload_hash on ASIC family 'strata'"):
        eos.render(leaf)
    leaf["load_balance"] = {"ecmp_hash_function": "CRC_32HI", "ecmp_hash_fields": None, "ecmp_hash_seed": None,
                            "udp_payload_hash": None}
    with pytest.raises(RenderError, match="ecmp_hash_function='CRC_32HI'"):
        eos.render(leaf)
    leaf["load_balance"] = {"ecmp_hash_function": None, "ecmp_hash_fields": None, "ecmp_hash_seed": 7,
                            "udp_payload_hash": None}
    with pytest.raises(RenderError, match="ecmp_hash_seed=7"):
        eos.render(leaf)
