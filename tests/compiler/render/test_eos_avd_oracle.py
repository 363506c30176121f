"""Our EOS text against Arista's own generator (pyavd 6.4 eos_cli_config_gen), shape by shape, feature by feature.

Each case maps a structured config onto AVD's schema (tests/compiler/render/avd_oracle.py), has pyavd validate it (ranges,
enumerations, patterns) and render it, and requires every command shape of ours to be one AVD prints for the same
settings and vice versa. Deliberately wrong forms (``tx-queue`` on a Tomahawk, ``no-drop`` as a watchdog action,
3-decimal timers) must fail.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from avd_oracle import (
    FEATURES,
    NOT_COVERED,
    avd_structured_config,
    compare,
    feature_of,
    render_with_avd,
    summary,
    validate_with_avd,
)
from render_structured_fixtures import leaf_structured, spine_structured
from test_render_l2 import bundled_leaf

import compiler.render.eos as eos
from compiler.api import build_facts, structured_configs
from compiler.scenario import snapshot_from_scenario

pytest.importorskip("pyavd", reason="pyavd is a pinned test dependency (requirements.txt)")

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
MANAGEMENT = {"interface": "Management1", "vrf": "MGMT", "address": "192.168.0.10/24", "gateway": "192.168.0.1",
              "ntp_servers": ["192.168.0.250"], "syslog_servers": ["192.168.0.240"], "dns_servers": ["192.168.0.53"]}
AAA = {"tacacs_servers": ["192.168.0.5", "192.168.0.6"], "secret_ref": "vault:secret/fabric/tacacs"}


def _with(structured: dict, edit) -> dict:
    structured = copy.deepcopy(structured)
    edit(structured)
    return structured


def _compiled(clos: dict, intent: dict | None = None) -> dict[str, dict]:
    scenario = {
        "clos": {"name": "oracle", "spines": 2, "leaves": 2, "servers_per_leaf": 2, "platform": "eos", **clos},
        "intent": {
            "name": "oracle",
            "tenants": [{"name": "A", "vrf": "TENANT_A"}],
            "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/24",
                          "gateway": "10.10.0.1", "attachments": "all"},
                         {"name": "net30", "tenant": "A", "vlan_id": 30, "subnet": "10.30.0.0/24"}],
            "roce_classes": [{"name": "roce", "dscp": [26], "priority": 3, "traffic_class": 3, "lossless": True,
                              "ecn_min_kb": 150, "ecn_max_kb": 1500, "ecn_mark_probability": 10,
                              "cnp_dscp": 48, "cnp_priority": 6},
                             {"name": "bulk", "dscp": [10], "priority": 1, "traffic_class": 1, "lossless": False}],
            **(intent or {}),
        },
    }
    snapshot = snapshot_from_scenario(scenario)
    return structured_configs(snapshot, build_facts(snapshot))


def _golden_eos() -> dict[str, dict]:
    cases = {}
    for path in sorted(GOLDEN.glob("*/expected/structured/*.json")):
        structured = json.loads(path.read_text())
        if structured["platform"] == "eos":
            cases[f"golden:{path.parts[-4]}/{path.stem}"] = structured
    return cases


def _cases() -> dict[str, dict]:
    leaf, spine = leaf_structured(), spine_structured()
    cases = {
        "leaf+management": _with(leaf, lambda s: s.update(management=dict(MANAGEMENT))),
        "leaf+management in default VRF": _with(leaf, lambda s: s.update(management={**MANAGEMENT, "vrf": None})),
        "leaf+management+AAA": _with(leaf, lambda s: s.update(management={**MANAGEMENT, "aaa": AAA})),
        "leaf+management+AAA in default VRF": _with(leaf, lambda s: s.update(
            management={**MANAGEMENT, "vrf": None, "aaa": AAA})),
        "spine": spine,
        "leaf on Jericho (tx-queue)": _with(leaf, lambda s: s.update(hardware={
            "model": "DCS-7816R4", "asic": "Broadcom Jericho3", "asic_family": "sand"})),
        "watchdog forward": _with(leaf, lambda s: s["qos"]["pfc_watchdog"].update(action="forward")),
        "watchdog off": _with(leaf, lambda s: s["qos"]["pfc_watchdog"].update(enabled=False)),
        "trunk with native VLAN": _with(leaf, lambda s: s["interfaces"][3].update(access_vlan=30)),
        "server port in no network": _with(leaf, lambda s: s["interfaces"][2].update(access_vlan=None)),
        "no RoCE": _with(leaf, lambda s: (s.update(qos={}), [i.update(qos={}) for i in s["interfaces"]])),
        # MLAG pair member: the peer-link port is a channel-group member of the trunk Port-Channel (trunk group
        # MLAG), never an address-less routed port; a dual-attached RoCE bundle; peer SVI; MST (issue 27 item 5)
        "MLAG leaf: peer-link bundle, dual-attached RoCE bundle": bundled_leaf(),
    }
    auto = _compiled({"leaf_model": "DCS-7060X6-64PE", "spine_model": "DCS-7816R4"}, {"route_target_scheme": "auto"})
    cases["compiled: rt auto, 2x400G breakout, Jericho spine / leaf"] = auto["leaf1"]
    cases["compiled: rt auto, 2x400G breakout, Jericho spine / spine"] = auto["spine1"]
    dest_qp = _compiled({"leaf_model": "DCS-7816R4", "spine_model": "DCS-7816R4"},
                        {"ecmp_hashing": {"dest_qp_hashing": True}})
    cases["compiled: destination-QP hashing, all Jericho / leaf"] = dest_qp["leaf1"]
    per_rack = _compiled({"downlink_speed_gbps": 100}, {"asn_scheme": "per_rack"})
    cases["compiled: 4x100G breakout, per-rack ASN / leaf"] = per_rack["leaf1"]
    cases.update(_golden_eos())
    return cases


CASES = _cases()


def _compare(structured: dict):
    return compare(structured, eos.render(structured)["startup-config"], eos.eos_speed, eos._seconds)


@pytest.mark.parametrize("name", sorted(CASES))
def test_avd_schema_accepts_our_values_and_renders_our_shapes(name):
    result = _compare(CASES[name])
    assert result.violations == [], result.violations
    assert result.mismatches == 0, {"ours only": sorted(result.ours_only), "AVD only": sorted(result.avd_only)}


def test_every_feature_is_compared_with_many_shapes():
    compared = set().union(*(_compare(structured).compared for structured in CASES.values()))
    features = {feature_of(shape) for shape in compared}
    assert features == {feature for _prefix, feature in FEATURES}, features
    assert len(compared) >= 130  # 137 distinct shapes when this was written


# ------------------------------------------------------------------------------------------ deliberately wrong


def test_tx_queue_on_a_tomahawk_is_a_mismatch(monkeypatch):
    monkeypatch.setitem(eos.ECN_QUEUE_KEYWORD, "strata", "tx-queue")
    result = _compare(CASES["spine"])
    assert ("qos profile <text>", "tx-queue <n>") in result.ours_only
    assert ("qos profile <text>", "uc-tx-queue <n>") in result.avd_only


def test_no_drop_watchdog_action_is_a_mismatch(monkeypatch):
    monkeypatch.setitem(eos.WATCHDOG_ACTIONS, "forward", "no-drop")
    result = _compare(CASES["watchdog forward"])
    assert ("priority-flow-control pause watchdog action no-drop",) in result.ours_only
    assert ("priority-flow-control pause watchdog action notify-only",) in result.avd_only


def test_missing_vxlan_qos_is_a_mismatch(monkeypatch):
    leaf = CASES["leaf+management"]
    text = eos.render(leaf)["startup-config"].replace("   vxlan qos ecn propagation\n", "")
    result = compare(leaf, text, eos.eos_speed, eos._seconds)
    assert result.avd_only == {("interface Vxlan<n>", "vxlan qos ecn propagation")}


def test_tacacs_key_without_key_type_is_a_mismatch():
    leaf = CASES["leaf+management+AAA"]
    text = eos.render(leaf)["startup-config"].replace(" key 7 ", " key ")
    result = compare(leaf, text, eos.eos_speed, eos._seconds)
    assert ("tacacs-server host <ip> vrf <name> key <name>",) in result.ours_only
    assert ("tacacs-server host <ip> vrf <name> key <n> <name>",) in result.avd_only


def test_aaa_without_local_fallback_is_a_mismatch():
    leaf = CASES["leaf+management+AAA"]
    text = eos.render(leaf)["startup-config"].replace("default group FT_TACACS local\n", "default group FT_TACACS\n")
    result = compare(leaf, text, eos.eos_speed, eos._seconds)
    assert ("aaa authentication login default group <name> local",) in result.avd_only


def test_rendered_tacacs_key_is_the_reference_marker_never_a_secret():
    text = eos.render(CASES["leaf+management+AAA"])["startup-config"]
    keys = [line.split(" key 7 ")[1] for line in text.splitlines() if line.startswith("tacacs-server host ")]
    assert keys == ["FT-SECRET[vault:secret/fabric/tacacs]"] * 2


def test_three_decimal_watchdog_timer_is_refused_by_avd_schema():
    leaf = CASES["spine"]
    result = compare(leaf, eos.render(leaf)["startup-config"], eos.eos_speed, lambda ms: f"{ms / 1000 + 0.005:.3f}")
    assert any("priority_flow_control.watchdog.timeout" in v and "pattern" in v for v in result.violations)


@pytest.mark.parametrize(("avd_config", "path"), [
    ({"qos_profiles": [{"name": "X", "priority_flow_control": {"priorities": [{"priority": 8, "no_drop": True}]}}]},
     "qos_profiles.0.priority_flow_control.priorities.0.priority"),
    ({"priority_flow_control": {"watchdog": {"action": "no-drop"}}}, "priority_flow_control.watchdog.action"),
    ({"ethernet_interfaces": [{"name": "Ethernet1", "mtu": 99999}]}, "ethernet_interfaces.0.mtu"),
])
def test_avd_schema_names_out_of_range_values(avd_config, path):
    _validated, violations = validate_with_avd(avd_config)
    assert any(violation.startswith(path) for violation in violations), violations


MLAG_CASE = "MLAG leaf: peer-link bundle, dual-attached RoCE bundle"
MLAG_BLOCKS = ("interface Ethernet32", "interface Ethernet17", "interface Port-Channel47", "interface Port-Channel5",
               "mlag configuration", "vlan 4094", "interface Vlan4094")


def _block(text: str, header: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(header)
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" ")), len(lines))
    return lines[start:end]


def _mlag_blocks_against_avd(our_text: str) -> dict[str, tuple[list[str], list[str]]]:
    """The MLAG blocks that differ, line for line, between our text and pyavd's for the same settings."""
    structured = CASES[MLAG_CASE]
    validated, violations = validate_with_avd(avd_structured_config(structured, eos.eos_speed, eos._seconds))
    assert violations == [], violations
    theirs = render_with_avd(validated)
    return {header: (_block(our_text, header), _block(theirs, header)) for header in MLAG_BLOCKS
            if _block(our_text, header) != _block(theirs, header)}


def test_mlag_peer_link_and_bundles_are_printed_line_for_line_as_avd_prints_them():
    """The peer-link port is a channel-group member of the MLAG trunk Port-Channel, never an address-less routed
    port; a bundle's QoS is its service-profile (EOS takes PFC/queues on Ethernet ports only)."""
    text = eos.render(CASES[MLAG_CASE])["startup-config"]
    assert _mlag_blocks_against_avd(text) == {}
    assert "   channel-group 47 mode active\n" in text


def test_peer_link_port_as_an_address_less_routed_port_is_caught():
    text = eos.render(CASES[MLAG_CASE])["startup-config"]
    broken = text.replace("   channel-group 47 mode active\n", "   no switchport\n")
    assert list(_mlag_blocks_against_avd(broken)) == ["interface Ethernet32"]


def test_pfc_stated_on_a_port_channel_is_refused_by_avd_schema():
    _validated, violations = validate_with_avd({"port_channel_interfaces": [
        {"name": "Port-Channel5", "priority_flow_control": {"enabled": True}}]})
    assert any(v.startswith("port_channel_interfaces.0.priority_flow_control") for v in violations), violations


def test_not_covered_shapes_have_reasons():
    assert NOT_COVERED and all(isinstance(reason, str) and reason for reason in NOT_COVERED.values())


if __name__ == "__main__":
    # The measurement: PYTHONPATH=. .venv/bin/python tests/compiler/render/test_eos_avd_oracle.py
    print(summary({name: _compare(structured) for name, structured in CASES.items()}))


def test_payload_bytes_outside_the_udp_fields_mode_is_a_mismatch(monkeypatch):
    """AVD prints `payload bytes` inside `fields udp dst-port N`; a renderer that flattens it disagrees."""
    def flat(structured):
        udp = structured["load_balance"]["udp_payload_hash"]
        return ["load-balance policies", "   load-balance sand profile default",
                f"      fields udp dst-port {udp['dst_port']} payload bytes {udp['payload_bytes']}"]
    monkeypatch.setattr(eos, "_load_balance_lines", flat)
    result = _compare(CASES["compiled: destination-QP hashing, all Jericho / leaf"])
    assert result.mismatches > 0 and any(shape[0] == "load-balance policies" for shape in result.avd_only)
