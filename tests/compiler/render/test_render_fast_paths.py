"""The renderers' speed shortcuts print exactly what the plain code would, and their caches never go stale.

EOS prints one QoS profile per distinct port QoS policy and names it on each port (looked up per shared ``qos``
dict); SONiC works port QoS rows out once per shared dict,
shares equal CONFIG_DB entries and its JSON writer formats each shared entry once and fills per-shape templates
(docs/compiler.md, "Performance"). Each shortcut is checked against the plain result and against an edit that a
stale cache would miss.
"""

from __future__ import annotations

import copy
import json

import pytest
from render_structured_fixtures import leaf_structured

from compiler.api import build_facts, structured_configs
from compiler.render import eos, sonic
from compiler.render.sonic import _ENTRY_TEMPLATES, _ENTRY_TEMPLATES_MAX, dumps_sorted_indented, render_config_db
from compiler.render.sonic.config_db import build_config_db
from compiler.scenario import snapshot_from_scenario

SONIC_ROCE_FABRIC = {
    "clos": {"name": "fast", "spines": 2, "leaves": 4, "servers_per_leaf": 2, "platform": "sonic"},
    "intent": {
        "name": "fast",
        "tenants": [{"name": "A", "vrf": "TENANT_A"}],
        "networks": [{"name": "net10", "tenant": "A", "vlan_id": 10, "subnet": "10.10.0.0/24",
                      "gateway": "10.10.0.1", "attachments": "all"}],
        "roce_classes": [{"name": "roce", "dscp": [26], "priority": 3, "traffic_class": 3, "lossless": True,
                          "ecn_min_kb": 150, "ecn_max_kb": 1500, "ecn_mark_probability": 10,
                          "cnp_dscp": 48, "cnp_priority": 6}],
    },
}


@pytest.fixture(scope="module")
def compiled() -> dict[str, dict]:
    snapshot = snapshot_from_scenario(copy.deepcopy(SONIC_ROCE_FABRIC))
    return structured_configs(snapshot, build_facts(snapshot))


def qos_ports(config: dict) -> list[dict]:
    return [interface for interface in config["interfaces"] if interface["qos"]]


def unshared(config: dict) -> dict:
    """The same config with every port owning its own copy of its QoS dict (nothing for a cache to reuse)."""
    config = copy.deepcopy(config)
    for interface in config["interfaces"]:
        interface["qos"] = copy.deepcopy(interface["qos"])
    return config


def test_compiled_ports_really_share_qos_dicts(compiled):
    """Precondition of every test below: the compiler hands identical ports the same dict object."""
    ports = qos_ports(compiled["spine1"])
    assert len(ports) > len({id(port["qos"]) for port in ports})


@pytest.mark.parametrize("host", ["spine1", "leaf1"])
def test_config_db_of_shared_qos_equals_standard_json_dumps(compiled, host):
    config = compiled[host]
    expected = json.dumps(build_config_db(config), sort_keys=True, indent=4) + "\n"
    assert render_config_db(config) == expected
    assert render_config_db(unshared(config)) == expected


@pytest.mark.parametrize("host", ["spine1", "leaf1"])
def test_eos_output_same_with_and_without_shared_qos(compiled, host):
    assert eos.render(compiled[host]) == eos.render(unshared(compiled[host]))


def test_a_changed_port_qos_shows_in_eos_and_config_db(compiled):
    """Caches keyed by a shared dict must not hand one port's new QoS the old text (or the others the new)."""
    config = unshared(compiled["spine1"])
    before_eos, before_db = eos.render(config)["startup-config"], json.loads(render_config_db(config))
    changed = qos_ports(config)[0]
    changed["qos"]["ecn"]["3"]["max_bytes"] = 3_000_000
    changed["qos"]["headroom"]["3"]["xoff_bytes"] = 99_328
    after_eos, after_db = eos.render(config)["startup-config"], json.loads(render_config_db(config))
    # One profile before; after, the changed port gets a second profile of its own and the others keep theirs.
    assert before_eos.count("\nqos profile ") == 1 and after_eos.count("\nqos profile ") == 2
    assert after_eos.count("maximum-threshold 3000000 bytes") == 1
    assert after_eos.count("maximum-threshold 1536000 bytes") == 1
    name = changed["name"]
    profile_of = {line.split("\n")[0]: line.split("service-profile ")[1].split("\n")[0]
                  for line in after_eos.split("\ninterface ")[1:] if "service-profile" in line}
    assert profile_of[name] != profile_of[qos_ports(config)[1]["name"]]
    new_profile = after_eos.split(f"\nqos profile {profile_of[name]}\n")[1].split("\n!\n")[0]
    assert "maximum-threshold 3000000 bytes" in new_profile
    assert after_db["QUEUE"][f"{name}|3"] != before_db["QUEUE"][f"{name}|3"]
    assert after_db["BUFFER_PG"][f"{name}|3"] != before_db["BUFFER_PG"][f"{name}|3"]
    others = [port["name"] for port in qos_ports(config)[1:]]
    assert all(after_db["QUEUE"][f"{port}|3"] == before_db["QUEUE"][f"{port}|3"] for port in others)


def test_watchdog_off_on_one_shared_qos_dict_changes_only_its_ports():
    structured = leaf_structured("sonic")
    shared = structured["interfaces"][0]["qos"]
    for interface in structured["interfaces"][:2]:
        interface["qos"] = shared
    database = json.loads(render_config_db(structured))
    assert {"Ethernet0", "Ethernet8"} <= set(database["PFC_WD"])
    shared["pfc_watchdog"] = False
    database = json.loads(render_config_db(structured))
    assert not {"Ethernet0", "Ethernet8"} & set(database["PFC_WD"]) and "Ethernet128" in database["PFC_WD"]


def writer_text(value: object) -> str:
    parts: list[str] = []
    dumps_sorted_indented(value, 0, parts)
    return "".join(parts)


@pytest.mark.parametrize(
    "value",
    [
        # entries of one shape, the second with a non-string value: the template must fall back, not crash
        {"T": {"a": {"x": "1", "y": "2"}, "b": {"x": "1", "y": 2}, "c": {"x": None, "y": "2"}}},
        # keys a %-template would misread
        {"T": {"k%s": {"%d": "%s", "100%": "%%"}}},
        # the same dict object at two depths is formatted with each depth's indent
        (lambda shared: {"T": {"a": shared, "n": {"deep": shared}}, "U": shared})({"p": "q"}),
        # the same dict object under many keys, and an empty dict among them
        (lambda shared: {"T": {f"Ethernet{i}": shared for i in range(20)} | {"E": {}}})({"profile": "x"}),
        # more keys than the template limit
        {"T": {"AZURE": {str(dscp): str(dscp % 8) for dscp in range(64)}}},
        # unicode and escapes in keys and values
        {"T": {"é\"\\": {"ü": "line\nbreak"}}},
    ],
)
def test_writer_shortcuts_match_json_dumps(value):
    assert writer_text(value) == json.dumps(value, sort_keys=True, indent=4)


def test_writer_template_cache_stays_bounded_and_correct():
    shapes = {"T": {f"e{index}": {f"key{index}": "v", "other": "w"} for index in range(_ENTRY_TEMPLATES_MAX + 10)}}
    assert writer_text(shapes) == json.dumps(shapes, sort_keys=True, indent=4)
    assert len(_ENTRY_TEMPLATES) <= _ENTRY_TEMPLATES_MAX


def test_writer_mismatch_would_be_caught():
    """The comparison above can fail: a one-character difference in a shared entry is visible."""
    shared = {"profile": "x"}
    value = {"T": {"a": shared, "b": shared}}
    text = writer_text(value)
    shared["profile"] = "y"
    assert writer_text(value) != text
    assert writer_text(value) == json.dumps(value, sort_keys=True, indent=4)


def test_sonic_render_uses_the_same_config_db_text(compiled):
    assert sonic.render(compiled["leaf1"])["config_db.json"] == render_config_db(compiled["leaf1"])
