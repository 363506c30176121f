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
