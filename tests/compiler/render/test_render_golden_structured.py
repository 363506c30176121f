"""The renderers against the compiler's own output: every golden structured config of an EOS or SONiC device
renders on its platform, and SONiC frr.conf parses in FRR's vtysh dry run.

Reads tests/golden/*/expected/structured/*.json (produced by the compiler's golden suite); skips if none exist.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from compiler.render import eos, sonic

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
STRUCTURED = sorted(GOLDEN.glob("*/expected/structured/*.json"))
OWN_PLATFORM = [
    path for path in STRUCTURED if json.loads(path.read_text())["platform"] in ("eos", "sonic")
]


def case_id(path: Path) -> str:
    return f"{path.parents[2].name}/{path.stem}"


@pytest.mark.skipif(not OWN_PLATFORM, reason="no golden structured configs of EOS/SONiC devices in tests/golden yet")
@pytest.mark.parametrize("path", OWN_PLATFORM, ids=[case_id(path) for path in OWN_PLATFORM])
def test_golden_structured_config_renders_on_its_platform(path, tmp_path):
    structured = json.loads(path.read_text())
    if structured["platform"] == "eos":
        text = eos.render(structured)["startup-config"]
        assert f"\nhostname {structured['hostname']}\n" in text
        assert f"\nrouter bgp {structured['bgp']['asn']}\n" in text
        assert "{{" not in text and "None" not in text
        return
    files = sonic.render(structured)
    database = json.loads(files["config_db.json"])
    assert database["DEVICE_METADATA"]["localhost"]["hostname"] == structured["hostname"]
    assert set(database["PORT"]) == {interface["name"] for interface in structured["interfaces"]}
    vtysh = shutil.which("vtysh")
    if vtysh is None:
        return  # the config_db part is checked; the vtysh dry run needs FRR installed
    conf = tmp_path / "frr.conf"
    conf.write_text(files["frr.conf"])
    result = subprocess.run([vtysh, "-C", "-f", str(conf)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
