"""The rollout gate on the text (validators.configs.text_faithfulness, run by changes.pipelines.checks): the exact
files to push are parsed and compared with the structured config they were rendered from. Clean renderings pass;
a renderer bug or edit in an EOS file and in a SONiC file is an error naming the port and the line."""

from __future__ import annotations

import json
from pathlib import Path

from validators.configs import TEXT_CHECK, text_faithfulness

GOLDEN = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected"


def _fabric() -> tuple[dict, dict, dict]:
    structured, files, platforms = {}, {}, {}
    for path in sorted((GOLDEN / "structured").glob("*.json")):
        structured[path.stem] = json.loads(path.read_text())
        platforms[path.stem] = structured[path.stem]["platform"]
        directory = GOLDEN / "rendered" / path.stem / platforms[path.stem]
        files[path.stem] = {item.name: item.read_text() for item in sorted(directory.iterdir())}
    return structured, files, platforms


def test_clean_renderings_pass_the_gate():
    structured, files, platforms = _fabric()
    assert text_faithfulness(structured, files, platforms) == []
    frr = {host: {item.name: item.read_text() for item in (GOLDEN / "rendered" / host / "frr").iterdir()}
           for host in structured}
    assert text_faithfulness(structured, frr, dict.fromkeys(structured, "frr")) == []


def test_text_only_faults_stop_the_rollout():
    structured, files, platforms = _fabric()
    text = files["leaf1"]["startup-config"]
    files["leaf1"]["startup-config"] = text.replace("   spanning-tree portfast\n   service-profile FT_ROCE\n",
                                                    "   spanning-tree portfast\n")
    db = json.loads(files["leaf2"]["config_db.json"])
    del db["PORT_QOS_MAP"]["Ethernet248"]["pfc_enable"]
    files["leaf2"]["config_db.json"] = json.dumps(db, indent=4, sort_keys=True)
    findings = text_faithfulness(structured, files, platforms)
    pfc = {f.subject: f.message for f in findings if f.check == TEXT_CHECK and "PFC priorities" in f.message}
    assert set(pfc) == {"leaf1:Ethernet1/1", "leaf2:Ethernet248"}
    line = files["leaf1"]["startup-config"].splitlines().index("interface Ethernet1/1") + 1
    assert f"(startup-config:{line})" in pfc["leaf1:Ethernet1/1"]
    assert "[3] in the structured config, [] in the sonic text (config_db.json:" in pfc["leaf2:Ethernet248"]


def test_a_renderer_lane_bug_is_caught():
    """The EOS breakout lane-count bug of issue #15: `speed 400g-4` printed for an 8-lane port."""
    structured, files, platforms = _fabric()
    files["leaf1"]["startup-config"] = files["leaf1"]["startup-config"].replace("speed 400g-8", "speed 400g-4", 1)
    findings = text_faithfulness(structured, files, platforms)
    assert [(f.subject, f.expected, f.actual) for f in findings] == [("leaf1:Ethernet1/1", 8, 4)]


def test_files_that_do_not_parse_are_an_error():
    structured, files, platforms = _fabric()
    files["leaf2"]["config_db.json"] = '{"PORT": {"Ethernet0": {"mtu": "many"}}}'
    findings = text_faithfulness(structured, files, platforms)
    assert [(f.subject, f.severity) for f in findings] == [("leaf2", "error")]
    assert "do not parse" in findings[0].message
