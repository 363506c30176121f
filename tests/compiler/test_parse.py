"""Parsers (compiler.parse) against our own renderings: every golden scenario parses back to the structured config
restricted to what the platform carries, renders back byte for byte, and EOS and SONiC renderings of one device
parse to the same model; plus the text-only faults of issue #15 caught by validating the configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.parse import ParseError, detect_platform, parse_device
from compiler.parse.carried import carried, carried_by_both, differences
from compiler.parse.fabric import complete_fabric
from compiler.render import render_device
from validators.configs import validate_configs

GOLDEN = Path(__file__).parents[1] / "golden"
SCENARIOS = sorted(path.name for path in GOLDEN.iterdir() if (path / "expected" / "structured").is_dir())


def _structured(scenario: str) -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text())
            for path in (GOLDEN / scenario / "expected" / "structured").glob("*.json")}


def _files(scenario: str, host: str, platform: str) -> dict[str, str]:
    directory = GOLDEN / scenario / "expected" / "rendered" / host / platform
    return {path.name: path.read_text() for path in sorted(directory.iterdir())}


def _own_configs(scenario: str) -> dict[str, dict[str, str]]:
    return {host: _files(scenario, host, config["platform"]) for host, config in _structured(scenario).items()}


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("view", ["own", "frr"])
def test_parse_of_render_is_the_carried_structured_config(scenario, view):
    structured = _structured(scenario)
    platforms = {host: config["platform"] if view == "own" else "frr" for host, config in structured.items()}
    devices = {host: parse_device(_files(scenario, host, platform)) for host, platform in platforms.items()}
    complete_fabric(devices)  # flood lists and peers need the whole set
    for host, device in devices.items():
        assert device.platform == platforms[host]
        assert device.unmodelled == [], f"{host}: {device.unmodelled[:3]}"
        diffs = differences(carried(structured[host], platforms[host]), carried(device.structured, platforms[host]))
        assert diffs == [], f"{scenario} {host} {platforms[host]}: {diffs[:5]}"


def test_round_trip_counts_every_golden_file():
    """render(parse(text)) == text for every file of every golden (EOS, SONiC config_db.json + frr.conf, FRR +
    Linux plan)."""
    checked = 0
    for scenario in SCENARIOS:
        for directory in sorted((GOLDEN / scenario / "expected" / "rendered").glob("*/*")):
            files = {path.name: path.read_text() for path in directory.iterdir()}
            rendered = render_device(parse_device(files).structured, directory.name)
            for name, text in files.items():
                assert rendered[name] == text, f"{directory}/{name} does not render back"
                checked += 1
    print(f"render(parse(text)) == text: {checked} golden files")
    assert checked == 126  # 76 device renderings; a golden added or removed changes this count


def test_parse_sees_a_changed_value():
    """The round trip can fail: a port whose PFC priority differs parses to a different model."""
    structured = _structured("mixed_eos_sonic")["leaf1"]
    text = _files("mixed_eos_sonic", "leaf1", "eos")["startup-config"]
    broken = text.replace("priority-flow-control priority 3 no-drop", "priority-flow-control priority 4 no-drop")
    diffs = differences(carried(structured, "eos"), carried(parse_device({"startup-config": broken}).structured, "eos"))
    assert any(path.endswith("pfc_priorities") for path, _, _ in diffs)


def _cross(structured: dict) -> tuple[list, object, object]:
    eos = parse_device(render_device(structured, "eos"))
    sonic = parse_device(render_device(structured, "sonic"))
    return differences(carried_by_both(eos.structured, "eos", "sonic"),
                       carried_by_both(sonic.structured, "eos", "sonic")), eos, sonic


@pytest.mark.parametrize("host", ["leaf2", "leaf4"])
def test_eos_and_sonic_renderings_parse_to_equal_models(host):
    diffs, _, _ = _cross(_structured("mixed_eos_sonic")[host])
    assert diffs == []


def test_cross_target_difference_names_both_lines():
    """A renderer that drops PFC on one port in one platform only: the two parsed models differ there, and the
    locations name the line in each file."""
    structured = _structured("mixed_eos_sonic")["leaf2"]
    eos_text = render_device(structured, "eos")["startup-config"]
    sonic_files = render_device(structured, "sonic")
    db = json.loads(sonic_files["config_db.json"])
    del db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]
    sonic_files["config_db.json"] = json.dumps(db, indent=4, sort_keys=True)
    eos = parse_device({"startup-config": eos_text})
    sonic = parse_device(sonic_files)
    diffs = differences(carried_by_both(eos.structured, "eos", "sonic"),
                        carried_by_both(sonic.structured, "eos", "sonic"))
    assert ("interfaces[Ethernet0].qos.pfc_priorities", [3], []) in diffs
    eos_line = eos.locate("interface Ethernet0 qos")
    sonic_line = sonic.locate("interface Ethernet0 qos")
    assert eos_line[0] == "startup-config" and "service-profile" in eos_text.splitlines()[eos_line[1] - 1]
    assert sonic_line[0] == "config_db.json" and '"Ethernet0"' in sonic_files["config_db.json"].splitlines()[
        sonic_line[1] - 1]


def test_unknown_lines_are_reported_not_dropped():
    text = _files("single_tenant_2x4", "leaf1", "eos")["startup-config"]
    text = text.replace("hostname leaf1\n", "hostname leaf1\naaa authorization exec default local\n"
                                            "username admin privilege 15 role network-admin secret sha512 x\n")
    device = parse_device({"startup-config": text})
    lines = text.splitlines()
    assert [(item.line, item.text) for item in device.unmodelled] == [
        (lines.index("aaa authorization exec default local") + 1, "aaa authorization exec default local"),
        (lines.index("username admin privilege 15 role network-admin secret sha512 x") + 1,
         "username admin privilege 15 role network-admin secret sha512 x")]


def test_platform_detected_by_content():
    assert detect_platform({"leaf1.cfg": _files("single_tenant_2x4", "leaf1", "eos")["startup-config"]}) == "eos"
    assert detect_platform({"a.json": _files("multi_tenant_l3vni", "leaf1", "sonic")["config_db.json"]}) == "sonic"
    assert detect_platform({"x": _files("single_tenant_2x4", "leaf1", "frr")["frr.conf"]}) == "frr"
    with pytest.raises(ParseError, match="notes.txt"):
        detect_platform({"notes.txt": "hello\n"})
    with pytest.raises(ParseError, match="bad.json"):
        detect_platform({"bad.json": "{not json"})


# ------------------------------------------------------------------------- issue #15 acceptance (text-only faults)

def test_clean_configs_validate_without_errors():
    result = validate_configs(_own_configs("mixed_eos_sonic"))
    assert [finding for finding in result.report.findings if finding.severity == "error"] == []
    assert {device.platform for device in result.devices.values()} == {"eos", "sonic"}


def test_eos_text_fault_pfc_removed_from_one_interface_is_caught():
    configs = _own_configs("mixed_eos_sonic")
    text = configs["leaf1"]["startup-config"]
    broken = text.replace("   spanning-tree portfast\n   service-profile FT_ROCE\n", "   spanning-tree portfast\n")
    assert broken != text
    configs["leaf1"]["startup-config"] = broken
    result = validate_configs(configs)
    errors = [finding for finding in result.report.findings if finding.severity == "error"]
    pfc = [finding for finding in errors if finding.check == "roce.pfc" and finding.subject == "leaf1:Ethernet1/1"]
    assert pfc, [finding.subject for finding in errors]
    line = broken.splitlines().index("interface Ethernet1/1") + 1
    assert result.where(pfc[0]) == [f"leaf1/startup-config:{line}"]


def test_sonic_text_fault_pfc_enable_removed_from_one_port_qos_map_entry_is_caught():
    configs = _own_configs("mixed_eos_sonic")
    db = json.loads(configs["leaf2"]["config_db.json"])
    del db["PORT_QOS_MAP"]["Ethernet248"]["pfc_enable"]
    configs["leaf2"]["config_db.json"] = json.dumps(db, indent=4, sort_keys=True)
    result = validate_configs(configs)
    pfc = [finding for finding in result.report.findings
           if finding.severity == "error" and finding.check == "roce.pfc" and finding.subject == "leaf2:Ethernet248"]
    assert pfc
    file_line = result.where(pfc[0])[0]
    line = int(file_line.rsplit(":", 1)[1])
    assert file_line.startswith("leaf2/config_db.json:")
    assert '"Ethernet248"' in configs["leaf2"]["config_db.json"].splitlines()[line - 1]


def test_crlf_and_blank_lines_parse_like_the_original():
    text = _files("single_tenant_2x4", "leaf1", "eos")["startup-config"]
    odd = text.replace("\n", "\r\n").replace("!\r\ninterface Ethernet2", "   \r\n!\r\ninterface Ethernet2")
    assert parse_device({"startup-config": odd}).structured == parse_device({"startup-config": text}).structured


# ------------------------------------------------------------- issue #13 (AAA) and #17 (valley-free): broken cases

def _device_diffs(structured: dict, parsed: dict, platform: str) -> list:
    """Differences of one device parsed alone: EVPN flood lists need the whole fabric (complete_fabric)."""
    return [diff for diff in differences(carried(structured, platform), carried(parsed, platform))
            if not diff[0].startswith("vxlan.flood_lists")]


def test_eos_aaa_server_dropped_is_a_field_difference():
    """A TACACS+ server missing from the EOS text parses to a shorter server list, not to silence."""
    structured = _structured("mixed_eos_sonic")["leaf1"]
    text = _files("mixed_eos_sonic", "leaf1", "eos")["startup-config"]
    broken = text.replace("tacacs-server host 192.0.2.6 vrf mgmt key 7 FT-SECRET[vault:secret/golden/tacacs]\n", "")
    broken = broken.replace("   server 192.0.2.6 vrf mgmt\n", "")
    assert broken.count("192.0.2.6") == 0
    device = parse_device({"startup-config": broken})
    assert device.unmodelled == []
    diffs = _device_diffs(structured, device.structured, "eos")
    assert diffs == [("management.aaa.tacacs_servers", ["192.0.2.5", "192.0.2.6"], ["192.0.2.5"])]


def test_eos_aaa_secret_that_is_no_reference_is_unmodelled():
    """A literal key (not a FT-SECRET[...] reference) is not read as the secret: its line is reported."""
    text = _files("mixed_eos_sonic", "leaf1", "eos")["startup-config"]
    broken = text.replace("192.0.2.6 vrf mgmt key 7 FT-SECRET[vault:secret/golden/tacacs]", "192.0.2.6 vrf mgmt key 7 0207")
    device = parse_device({"startup-config": broken})
    assert [item.text for item in device.unmodelled] == ["tacacs-server host 192.0.2.6 vrf mgmt key 7 0207",
                                                         "server 192.0.2.6 vrf mgmt"]


def test_sonic_aaa_secret_reference_changed_is_a_field_difference():
    structured = _structured("mixed_eos_sonic")["leaf2"]
    files = _files("mixed_eos_sonic", "leaf2", "sonic")
    db = json.loads(files["config_db.json"])
    db["TACPLUS"]["global"]["passkey"] = "FT-SECRET[vault:secret/other]"
    del db["TACPLUS_SERVER"]["192.0.2.5"]
    files["config_db.json"] = json.dumps(db, indent=4, sort_keys=True)
    device = parse_device(files)
    assert device.unmodelled == []
    diffs = differences(carried(structured, "sonic"), carried(device.structured, "sonic"))
    assert ("management.aaa.secret_ref", "vault:secret/golden/tacacs", "vault:secret/other") in diffs
    assert ("management.aaa.tacacs_servers", ["192.0.2.5", "192.0.2.6"], ["192.0.2.6"]) in diffs


def test_linux_plan_management_changed_is_found():
    """The Linux plan's management: a changed NTP server is a field difference; a foreign command is reported."""
    structured = _structured("mixed_eos_sonic")["leaf1"]
    files = _files("mixed_eos_sonic", "leaf1", "frr")
    plan = json.loads(files["linux-plan.json"])
    plan["management"]["chrony"] = ["server 192.0.2.11 iburst"]
    plan["management"]["commands"].append("ip link set Management1 mtu 9000")
    files["linux-plan.json"] = json.dumps(plan)
    device = parse_device(files)
    assert [item.text for item in device.unmodelled] == ["management.commands: ip link set Management1 mtu 9000"]
    diffs = _device_diffs(structured, device.structured, "frr")
    assert diffs == [("management.ntp_servers", ["192.0.2.10"], ["192.0.2.11"])]


@pytest.mark.parametrize("host,platform,file", [("pod1-leaf1", "eos", "startup-config"),
                                                ("pod1-leaf2", "sonic", "frr.conf"),
                                                ("pod1-spine1", "frr", "frr.conf")])
def test_valley_free_route_map_missing_on_one_neighbor_is_found(host, platform, file):
    """A spine-facing session without its valley-free export policy: a field difference on that neighbor."""
    structured = _structured("five_stage_2pods")[host]
    files = _files("five_stage_2pods", host, platform)
    neighbor = next(item for item in structured["bgp"]["neighbors"] if item.get("route_map_out"))
    line = f"neighbor {neighbor['address']} route-map {neighbor['route_map_out']} out"
    kept = [text for text in files[file].split("\n") if text.strip() != line]
    assert len(kept) == files[file].count("\n")  # exactly one line dropped
    files[file] = "\n".join(kept)
    device = parse_device(files)
    diffs = _device_diffs(structured, device.structured, platform)
    assert diffs[0] == (f"bgp.neighbors[{neighbor['address']}].route_map_out", neighbor["route_map_out"], None)
    users = [item for item in structured["bgp"]["neighbors"] if item.get("route_map_out")]
    if len(users) > 1:
        assert device.unmodelled == [] and len(diffs) == 1
    else:  # a spine's only upward session: the policy nobody uses now is reported, and missing from the model
        assert {item.text.split()[0] for item in device.unmodelled} == {"bgp", "route-map", "match"}
        assert diffs[1][0] == "bgp.route_maps" and diffs[1][2] == []


def test_valley_free_policy_changed_is_found():
    """A leaf whose AS-path list lets transit routes through (regex changed): the policy entry differs; a route map
    no neighbor uses, or one without its AS-path list, is reported, not dropped."""
    structured = _structured("five_stage_2pods")["pod1-leaf1"]
    text = _files("five_stage_2pods", "pod1-leaf1", "eos")["startup-config"]
    broken = text.replace("VALLEY_FREE_LEAF_OUT-10 permit ^$ any", "VALLEY_FREE_LEAF_OUT-10 permit .* any")
    device = parse_device({"startup-config": broken})
    diffs = _device_diffs(structured, device.structured, "eos")
    assert diffs == [("bgp.route_maps[VALLEY_FREE_LEAF_OUT].entries[10].as_path", "^$", ".*")]
    no_list = text.replace("ip as-path access-list VALLEY_FREE_LEAF_OUT-10 permit ^$ any\n", "")
    unmodelled = [item.text for item in parse_device({"startup-config": no_list}).unmodelled]
    assert "route-map VALLEY_FREE_LEAF_OUT permit 10" in unmodelled
    assert any(item.endswith("route-map VALLEY_FREE_LEAF_OUT out") for item in unmodelled)


def _with_explicit_cnp_class(structured: dict) -> dict:
    """The reference fabric declares the CNP marking as a RoCE class of its own (lossy, DSCP 48): a structured
    config then carries it twice, as a class and as ``qos.cnp``."""
    config = json.loads(json.dumps(structured))
    cnp = config["qos"]["cnp"]
    config["qos"]["classes"].append({"name": "cnp", "dscp": [cnp["dscp"]], "traffic_class": cnp["traffic_class"],
                                     "priority": cnp["priority"], "queue": cnp["traffic_class"], "lossless": False,
                                     "ecn": {}})
    return config


def _leaf_with_cnp(platform: str) -> dict:
    return next(config for scenario in ("roce_lossless", "five_stage_2pods")
                for config in _structured(scenario).values()
                if config["platform"] == platform and config["role"] == "leaf" and config["qos"].get("cnp"))


@pytest.mark.parametrize("platform", ["eos", "sonic", "frr"])
def test_a_class_that_is_the_cnp_marking_is_carried_as_the_cnp(platform):
    structured = _with_explicit_cnp_class(_leaf_with_cnp(platform))
    parsed = parse_device(render_device(structured, platform))
    assert _device_diffs(structured, parsed.structured, platform) == []


def test_a_lossy_class_beside_the_cnp_is_still_compared():
    structured = _with_explicit_cnp_class(_structured("roce_lossless")["leaf1"])
    lossy = dict(structured["qos"]["classes"][-1], name="bulk", ecn={"min_bytes": 1000, "max_bytes": 2000,
                                                                    "probability": 5})
    expected = json.loads(json.dumps(structured))
    expected["qos"]["classes"][-1] = lossy  # an ECN-marked lossy class is not the CNP marking: it must be carried
    parsed = parse_device(render_device(structured, "frr"))
    assert _device_diffs(expected, parsed.structured, "frr"), "a class with ECN the text lacks must be a difference"
