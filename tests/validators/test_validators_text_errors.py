"""Faults in config text that break forwarding are errors even without the inventory (issue #27): a leaf cut from
one spine (3 spines x 5 leaves), and two leaves with one VTEP address. Each starts from a correct EOS rendering
that validates clean and edits the text the way a hand edit would."""

from __future__ import annotations

import re

from validator_fabrics import compiled

from validators.configs import validate_configs


def _eos_texts() -> dict[str, dict[str, str]]:
    result = compiled(spines=3, leaves=5, roce=False)
    return {host: dict(platforms["eos"]) for host, platforms in result.rendered.items()}


def _errors(configs) -> list:
    return [f for f in validate_configs(configs).report.findings if f.severity == "error"]


def _drop_link(configs, host: str, peer: str) -> str:
    """Remove ``host``'s routed port towards ``peer``; returns the port's address."""
    text = configs[host]["startup-config"]
    stanza = re.search(rf"interface \S+\n   description P2P {peer} \S+\n(?:   .*\n)*?   ip address (\S+)/31\n!\n", text)
    assert stanza, f"{host} has no port towards {peer}"
    configs[host]["startup-config"] = text.replace(stanza.group(0), "")
    return stanza.group(1)


def test_the_correct_texts_have_no_error():
    assert _errors(_eos_texts()) == []


def test_a_leaf_missing_a_spine_link_is_an_error_without_the_inventory():
    configs = _eos_texts()
    leaf_address = _drop_link(configs, "leaf1", "spine2")
    spine_address = _drop_link(configs, "spine2", "leaf1")
    for host, neighbor in (("leaf1", spine_address), ("spine2", leaf_address)):
        configs[host]["startup-config"] = "\n".join(
            line for line in configs[host]["startup-config"].splitlines() if f"neighbor {neighbor} " not in line)
    errors = _errors(configs)
    assert errors and {f.check for f in errors} == {"routing.ecmp"}
    assert all("designed 3" in f.message and "spine2" in f.message for f in errors)


def test_a_duplicate_vtep_is_an_error():
    configs = _eos_texts()
    text = configs["leaf2"]["startup-config"]
    vtep = re.search(r"interface Loopback1\n   description vtep\n   ip address (\S+)/32", text).group(1)
    leaf1_vtep = re.search(r"interface Loopback1\n   description vtep\n   ip address (\S+)/32",
                           configs["leaf1"]["startup-config"]).group(1)
    configs["leaf2"]["startup-config"] = text.replace(f"{vtep}/32", f"{leaf1_vtep}/32")
    errors = _errors(configs)
    # Each leaf owns the address itself, so no tunnel reaches the other: net10's hosts on the two are cut too.
    assert {(f.check, f.subject) for f in errors} == {("overlay.flood_lists", "leaf1"), ("overlay.flood_lists", "leaf2"),
                                                     ("overlay.host_reachability", "network net10")}
    assert all(f.actual == leaf1_vtep for f in errors if f.check == "overlay.flood_lists")
    cut = next(f for f in errors if f.check == "overlay.host_reachability")
    assert "has no route to the VTEP of" in cut.message
