"""containerlab export validates against containerlab's own schema; the engine fails clearly without the binary."""

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml

from compiler.errors import TwinError
from labs import containerlab

SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "clab.schema.json"  # copied in: tests/schemas/README.md


@pytest.fixture(scope="module")
def clab_schema():
    if not SCHEMA.exists():
        pytest.fail(f"containerlab schema missing: {SCHEMA} (tests/schemas/README.md)")
    # The schema's IPv6 zone-index patterns use \\p{N}\\p{L} (Unicode classes) that Python's re lacks;
    # [^\\W_] is the same letter-or-digit class in Python, so translate rather than skip those patterns.
    text = SCHEMA.read_text().replace("[\\\\p{N}\\\\p{L}]", "[^\\\\W_]")
    schema = json.loads(text)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def test_export_validates_against_containerlab_schema(reference_compile, clab_schema, tmp_path):
    path = containerlab.export(reference_compile, tmp_path)
    topology = yaml.safe_load(path.read_text())
    clab_schema.validate(topology)
    nodes = topology["topology"]["nodes"]
    assert nodes["spine1"]["kind"] == "arista_ceos"
    assert nodes["leaf2"]["kind"] == "sonic-vs"
    assert nodes["gpu0001"]["kind"] == "linux"
    assert "ip addr add 10.10.0.2/24 dev eth1" in nodes["gpu0001"]["exec"]
    # every cable is a link, with the MTU both ends configure
    assert len(topology["topology"]["links"]) == len(reference_compile.snapshot.inventory.cables)
    fabric_link = next(link for link in topology["topology"]["links"]
                       if {e["node"] for e in link["endpoints"]} == {"leaf1", "spine1"})
    assert fabric_link["mtu"] == 9214
    # startup configs are our renderings, written beside the topology
    assert (tmp_path / nodes["spine1"]["startup-config"]).read_text().startswith(
        reference_compile.rendered["spine1"]["eos"]["startup-config"][:40])
    metadata = json.loads((tmp_path / nodes["leaf2"]["startup-config"]).read_text())["DEVICE_METADATA"]["localhost"]
    # the twin keeps a synthetic MAC (the rendering for a real switch states none without an inventory MAC)
    assert "mac" not in json.loads(reference_compile.rendered["leaf2"]["sonic"]["config_db.json"])["DEVICE_METADATA"][
        "localhost"]
    leaf2 = reference_compile.snapshot.inventory.switches_by_name["leaf2"]
    assert metadata["mac"] == containerlab.twin_system_mac(leaf2.serial or "leaf2")


def test_twin_system_mac_is_stable_locally_administered_unicast():
    mac = containerlab.twin_system_mac("SN-abc")
    assert mac == containerlab.twin_system_mac("SN-abc") != containerlab.twin_system_mac("SN-abd")
    first = int(mac.split(":")[0], 16)
    assert first & 0x02 and not first & 0x01


def test_broken_topology_is_rejected_by_the_schema(reference_compile, clab_schema):
    topology = containerlab.topology_for(reference_compile)
    topology["topology"]["nodes"]["spine1"]["kind"] = "not-a-kind"
    with pytest.raises(jsonschema.ValidationError):
        clab_schema.validate(topology)


@pytest.mark.skipif(shutil.which("containerlab") is not None, reason="containerlab is installed here")
def test_engine_without_binary_says_what_is_missing(tmp_path):
    with pytest.raises(TwinError, match="containerlab.*binary.*Docker"):
        containerlab.deploy(tmp_path / "x.clab.yml")
