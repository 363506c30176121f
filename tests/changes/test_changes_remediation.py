"""Remediation (issue #15 item 5): the commands drift proposes bring the device back, proven by applying them.

For goldens with injected faults (removed PFC line, removed ``pfc_enable`` key, changed MTU, removed neighbor,
extra VLAN, changed remote AS), ``remediation_build`` gives EOS CLI / SONiC JSON Patch + vtysh / FRR vtysh; the
test applies them to the running config (CLI: a simple hierarchical apply with the device's semantics; SONiC
CONFIG_DB: the ``jsonpatch`` library, an RFC 6902 implementation independent of ours) and parses the result: it
must equal the intended config field by field (compiler.parse.drift.field_drift, the drift check's own
comparison). A deliberately wrong remediation is caught by the same helper.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import jsonpatch
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from changes import drift
from compiler.errors import InputError
from compiler.parse.drift import field_drift
from compiler.parse.remediate import cli_remediation, config_tree, setting_key

GOLDEN = Path(__file__).parents[1] / "golden"
GOLDENS = ("mixed_eos_sonic", "five_stage_2pods")  # both carry EOS, SONiC and FRR renderings with PFC


def _files(golden: str, host: str, platform: str) -> dict[str, str]:
    directory = GOLDEN / golden / "expected" / "rendered" / host / platform
    return {path.name: path.read_text() for path in sorted(directory.iterdir())}


def _devices(golden: str) -> dict[str, tuple[str, dict[str, str]]]:
    """One leaf per platform of a golden: {platform: (hostname, files)}."""
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for structured in sorted((GOLDEN / golden / "expected" / "structured").glob("*.json")):
        data = json.loads(structured.read_text())
        if data["role"] != "leaf":
            continue
        out.setdefault(data["platform"], (structured.stem, _files(golden, structured.stem, data["platform"])))
        out.setdefault("frr", (structured.stem, _files(golden, structured.stem, "frr")))
    return out


# ----------------------------------------------------------------------------------- applying a remediation


def _apply_cli(running_text: str, commands: list[str], *, platform: str) -> str:
    """A device's reading of the commands: context by indentation (``exit`` leaves it), ``no X`` removes X (or
    the setting X names) or, where nothing is there to remove, is itself a setting; ``default interface P`` empties
    port P; a line enters its context or
    is added, replacing a single-valued setting of the same key; ``X`` where ``no X`` is set restores X."""
    tree = config_tree(running_text)
    stack: list[tuple[int, dict]] = [(-1, tree)]
    for raw in commands:
        line = raw.strip()
        indent = len(raw) - len(raw.lstrip(" "))
        if line == "exit":
            continue
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        if line.startswith("default interface "):  # EOS: the port stays, back to its defaults
            parent[line[len("default "):]] = {}
            continue
        if line.startswith("no "):
            target = line[3:]
            matches = [key for key in parent if key == target or (not parent[key] and setting_key(key) == target)]
            for key in matches:
                del parent[key]
            if not matches:
                parent[line] = {}
            continue
        if line not in parent:
            parent.pop(f"no {line}", None)
            for key in [key for key in parent if not parent[key] and setting_key(key) == setting_key(line)
                        and setting_key(line) != line]:
                del parent[key]
            parent[line] = {}
        stack.append((indent, parent[line]))
    return _render(tree, platform=platform)


def _frr_end(line: str, depth: int) -> str:
    if line.startswith("address-family"):
        return "exit-address-family"
    if depth == 0 and line.startswith("vrf "):
        return "exit-vrf"
    if depth > 0 and line.startswith("vni "):
        return "exit-vni"
    return "exit"


def _render(tree: dict, *, platform: str, depth: int = 0) -> str:
    unit = "   " if platform == "eos" else " "
    out = []
    for line, children in tree.items():
        out.append(unit * depth + line + "\n")
        if children:
            out.append(_render(children, platform=platform, depth=depth + 1))
            if platform != "eos":
                out.append(unit * depth + _frr_end(line, depth) + "\n")
        if depth == 0:
            out.append("!\n")
    return "".join(out)


def _text_name(files: dict[str, str]) -> str:
    return next(name for name, text in files.items() if not text.lstrip().startswith("{"))


def _json_name(files: dict[str, str]) -> str:
    return next(name for name, text in files.items() if text.lstrip().startswith("{"))


def apply_remediation(platform: str, running: dict[str, str], remediation: dict) -> dict[str, str]:
    out = dict(running)
    cli_platform = "eos" if platform == "eos" else "frr"
    out[_text_name(running)] = _apply_cli(running[_text_name(running)], remediation["cli"], platform=cli_platform)
    if platform == "sonic":
        name = _json_name(running)
        patched = jsonpatch.apply_patch(json.loads(running[name]), remediation["config_db_patch"])
        out[name] = json.dumps(patched, indent=4, sort_keys=True)
    return out


def remediation_problems(host: str, platform: str, intended: dict[str, str], running: dict[str, str],
                         remediation: dict) -> list[str]:
    """What still differs (field by field, and running lines not modelled) after applying ``remediation``."""
    applied = apply_remediation(platform, running, remediation)
    fields, _ = field_drift(host, intended, applied, platform=platform)
    return [item.message for item in fields]


# ----------------------------------------------------------------------------------------- injected faults


def _first_neighbor(text: str, indent: str) -> str:
    match = re.search(rf"^{indent}neighbor (\d+\.\d+\.\d+\.\d+) ", text, re.M)
    assert match, "no neighbor in the golden"
    return match.group(1)


def _without_neighbor(text: str, indent: str) -> str:
    address = _first_neighbor(text, indent)
    return "".join(line for line in text.splitlines(keepends=True) if f"neighbor {address} " not in line)


def _remote_as_changed(text: str, indent: str) -> str:
    address = _first_neighbor(text, indent)
    return re.sub(rf"^({indent}neighbor {re.escape(address)} remote-as) \d+$", r"\1 64999", text, count=1, flags=re.M)


def _eos_text(change: Callable[[str], str]) -> Callable[[dict], dict]:
    return lambda files: {**files, "startup-config": change(files["startup-config"])}


def _frr_text(change: Callable[[str], str]) -> Callable[[dict], dict]:
    return lambda files: {**files, "frr.conf": change(files["frr.conf"])}


def _config_db(change: Callable[[dict], None]) -> Callable[[dict], dict]:
    def apply(files: dict) -> dict:
        document = json.loads(files["config_db.json"])
        change(document)
        return {**files, "config_db.json": json.dumps(document, indent=4, sort_keys=True)}
    return apply


def _drop_pfc_enable(document: dict) -> None:
    del document["PORT_QOS_MAP"][next(key for key, entry in document["PORT_QOS_MAP"].items() if "pfc_enable" in entry)]["pfc_enable"]


def _port_mtu(document: dict) -> None:
    document["PORT"][sorted(document["PORT"])[0]]["mtu"] = "1500"


def _extra_vlan(document: dict) -> None:
    document.setdefault("VLAN", {})["Vlan3999"] = {"vlanid": "3999"}


FAULTS: dict[str, dict[str, Callable[[dict], dict]]] = {
    "eos": {
        "removed PFC line": _eos_text(lambda t: re.sub(r"^   priority-flow-control priority \d no-drop\n", "", t,
                                                       count=1, flags=re.M)),
        "removed service profile": _eos_text(lambda t: t.replace("   service-profile FT_ROCE\n", "", 1)),
        "changed MTU": _eos_text(lambda t: re.sub(r"^   mtu \d+$", "   mtu 1500", t, count=1, flags=re.M)),
        "removed neighbor": _eos_text(lambda t: _without_neighbor(t, "   ")),
        "changed remote AS": _eos_text(lambda t: _remote_as_changed(t, "   ")),
        "extra VLAN": _eos_text(lambda t: t.replace("\nvrf instance ", "\nvlan 3999\n   name extra\n!\nvrf instance ", 1)),
        "port shut": _eos_text(lambda t: t.replace("   no shutdown\n   mtu 9000\n", "   shutdown\n   mtu 9000\n", 1)),
    },
    "sonic": {
        "removed pfc_enable key": _config_db(_drop_pfc_enable),
        "changed MTU": _config_db(_port_mtu),
        "extra VLAN": _config_db(_extra_vlan),
        "removed neighbor": _frr_text(lambda t: _without_neighbor(t, " ")),  # SONiC's BGP is frr.conf (split mode)
        "removed network": _frr_text(lambda t: re.sub(r"^  network \S+\n", "", t, count=1, flags=re.M)),
    },
    "frr": {
        "removed neighbor": _frr_text(lambda t: _without_neighbor(t, " ")),
        "changed remote AS": _frr_text(lambda t: _remote_as_changed(t, " ")),
        "removed network": _frr_text(lambda t: re.sub(r"^  network \S+\n", "", t, count=1, flags=re.M)),
    },
}


def _cases():
    for golden in GOLDENS:
        for platform, (host, files) in _devices(golden).items():
            for fault, inject in FAULTS[platform].items():
                yield pytest.param(golden, platform, host, files, fault, inject, id=f"{golden}-{platform}-{fault}")


@pytest.mark.parametrize(("golden", "platform", "host", "intended", "fault", "inject"), list(_cases()))
def test_remediation_brings_the_running_config_back(golden, platform, host, intended, fault, inject):
    running = inject(intended)
    before, _ = field_drift(host, intended, running, platform=platform)
    assert before, f"{fault}: the injected fault is no semantic drift"
    remediation = drift.remediation_build(platform=platform, intended=intended, running=running)
    assert remediation["cli"] or remediation["config_db_patch"]
    assert remediation_problems(host, platform, intended, running, remediation) == []


def test_every_platform_and_fault_ran():
    ran = {(param.values[1], param.values[4]) for param in _cases()}
    assert ran == {(platform, fault) for platform, faults in FAULTS.items() for fault in faults}


def test_eos_remediation_reads_as_cli_in_context():
    host, intended = _devices("mixed_eos_sonic")["eos"]
    running = FAULTS["eos"]["removed PFC line"](FAULTS["eos"]["changed MTU"](intended))
    remediation = drift.remediation_build(platform="eos", intended=intended, running=running)
    cli = remediation["cli"]
    assert "qos profile FT_ROCE" in cli
    assert cli[cli.index("qos profile FT_ROCE") + 1] == "   priority-flow-control priority 3 no-drop"
    mtu = next(index for index, line in enumerate(cli) if line.startswith("interface "))
    assert cli[mtu + 1] == "   mtu 9000" and not any(line.strip().startswith("no mtu") for line in cli)
    text = drift.remediation_text(remediation)
    assert text.startswith("EOS CLI (configure session):\n")


def test_extra_and_overwritten_lines_are_negated_or_replaced():
    intended = "router bgp 65001\n neighbor 10.0.0.1 remote-as 65000\n neighbor 10.0.0.1 description a\nexit\n"
    running = ("router bgp 65001\n neighbor 10.0.0.1 remote-as 65009\n neighbor 10.0.0.1 description a\n"
               " neighbor 10.0.0.9 remote-as 65000\n address-family ipv4 unicast\n  network 10.9.0.0/24\n"
               " exit-address-family\nexit\n")
    assert cli_remediation(intended, running, platform="frr") == [
        "router bgp 65001", " no address-family ipv4 unicast", " no neighbor 10.0.0.9 remote-as 65000", "exit",
        "router bgp 65001", " neighbor 10.0.0.1 remote-as 65000", "exit"]
    assert cli_remediation(intended, intended, platform="frr") == []


def test_sonic_remediation_is_a_json_patch_and_vtysh():
    host, intended = _devices("mixed_eos_sonic")["sonic"]
    running = FAULTS["sonic"]["removed neighbor"](FAULTS["sonic"]["removed pfc_enable key"](intended))
    remediation = drift.remediation_build(platform="sonic", intended=intended, running=running)
    assert any(op["op"] == "add" and op["path"].startswith("/PORT_QOS_MAP/") and op["path"].endswith("/pfc_enable")
               for op in remediation["config_db_patch"])
    assert any(line.strip().startswith("neighbor ") for line in remediation["cli"])
    assert "config apply-patch (RFC 6902 JSON Patch):" in drift.remediation_text(remediation)


@pytest.mark.parametrize("platform", ["eos", "sonic"])
def test_a_wrong_remediation_is_caught(platform):
    """Broken cases: a remediation missing the command that restores PFC, or setting a wrong value, leaves a
    difference the helper reports."""
    host, intended = _devices("mixed_eos_sonic")[platform]
    fault = "removed PFC line" if platform == "eos" else "removed pfc_enable key"
    running = FAULTS[platform][fault](intended)
    remediation = drift.remediation_build(platform=platform, intended=intended, running=running)
    assert remediation_problems(host, platform, intended, running, remediation) == []
    if platform == "eos":
        missing = {**remediation, "cli": [line for line in remediation["cli"] if "priority-flow-control" not in line]}
        wrong = {**remediation, "cli": [line.replace("priority 3", "priority 4") for line in remediation["cli"]]}
    else:
        missing = {**remediation, "config_db_patch": [op for op in remediation["config_db_patch"]
                                                      if not op["path"].endswith("/pfc_enable")]}
        wrong = {**remediation, "config_db_patch": [{**op, "value": "4"} if op["path"].endswith("/pfc_enable") else op
                                                    for op in remediation["config_db_patch"]]}
    for broken in (missing, wrong):
        problems = remediation_problems(host, platform, intended, running, broken)
        assert any("PFC" in problem or "pfc" in problem for problem in problems), problems


def test_unknown_platform_is_refused_naming_the_field():
    with pytest.raises(InputError, match="platform='junos'"):
        drift.remediation_build(platform="junos", intended={}, running={})
    with pytest.raises(InputError, match="platform='junos'"):
        cli_remediation("", "", platform="junos")


# ------------------------------------------------------------------------------ property: random running configs


def _paths(tree: dict, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for line, children in tree.items():
        out.append((*prefix, line))
        out += _paths(children, (*prefix, line))
    return out


def _without(tree: dict, path: tuple[str, ...]) -> None:
    for line in path[:-1]:
        tree = tree.get(line, {})
    tree.pop(path[-1], None)


PROPERTY_DEVICES = [(platform, *_devices("mixed_eos_sonic")[platform]) for platform in ("eos", "sonic", "frr")]


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(device=st.sampled_from(PROPERTY_DEVICES), picks=st.lists(st.integers(min_value=0), min_size=1, max_size=4),
       extra=st.booleans())
def test_remediation_of_any_removed_lines_brings_the_config_back(device, picks, extra):
    """Property: remove any lines or blocks of a golden's CLI text (and maybe add a line the intent lacks) and the
    remediation restores the intended model."""
    platform, host, intended = device
    name = _text_name(intended)
    tree = config_tree(intended[name])
    paths = _paths(tree)
    for pick in picks:
        _without(tree, paths[pick % len(paths)])
    if extra:
        tree.setdefault("interface Ethernet1/1" if platform == "eos" else "interface Ethernet0",
                        {})["description added by hand"] = {}
    running = {**intended, name: _render(tree, platform="eos" if platform == "eos" else "frr")}
    remediation = drift.remediation_build(platform=platform, intended=intended, running=running)
    assert remediation_problems(host, platform, intended, running, remediation) == []


def test_show_running_config_banner_and_version_are_no_commands():
    intended = "frr version 8.4\nfrr defaults datacenter\nhostname leaf1\n!\nrouter bgp 65001\n bgp router-id 10.0.0.1\nexit\n"
    running = ("Building configuration...\n\nCurrent configuration:\n!\nfrr version 8.4.4\nfrr defaults datacenter\n"
               "hostname leaf1\n!\nrouter bgp 65001\n bgp router-id 10.0.0.9\nexit\n!\nend\n")
    assert cli_remediation(intended, running, platform="frr") == ["router bgp 65001", " bgp router-id 10.0.0.1", "exit"]


@pytest.mark.parametrize(("line", "key"), [
    ("mtu 9214", "mtu"), ("no shutdown", "shutdown"), ("neighbor 10.0.0.1 remote-as 65000", "neighbor 10.0.0.1 remote-as"),
    ("neighbor 10.0.0.1 timers connect 2", "neighbor 10.0.0.1 timers connect"),
    ("neighbor X route-map FT-OUT out", "neighbor X route-map out"), ("vrf TENANT_A", "vrf"), ("vni 50001", "vni"),
    ("maximum-paths 64 ecmp 64", "maximum-paths"),
    # several per context: each line is its own setting
    ("vrf instance TENANT_A", "vrf instance TENANT_A"), ("ip routing vrf TENANT_A", "ip routing vrf TENANT_A"),
    ("maximum-paths ibgp 4", "maximum-paths ibgp 4"), ("priority-flow-control priority 3 no-drop",
                                                        "priority-flow-control priority 3 no-drop"),
])
def test_setting_keys(line, key):
    assert setting_key(line) == key


def test_a_missing_vrf_does_not_hide_an_extra_one():
    intended = "vrf instance A\n!\nip routing vrf A\n!\nend\n"
    running = "vrf instance B\n!\nip routing vrf B\n!\nend\n"
    assert cli_remediation(intended, running, platform="eos") == [
        "no ip routing vrf B", "no vrf instance B", "vrf instance A", "ip routing vrf A"]


def test_an_eos_port_is_defaulted_a_virtual_interface_removed():
    intended = "interface Ethernet1/1\n   mtu 9214\n!\nend\n"
    running = ("interface Ethernet1/1\n   mtu 9214\n!\ninterface Ethernet1/5\n   mtu 9214\n!\n"
               "interface Vlan30\n   mtu 9000\n!\nend\n")
    assert cli_remediation(intended, running, platform="eos") == ["no interface Vlan30",
                                                                 "default interface Ethernet1/5"]
    assert _apply_cli(running, ["default interface Ethernet1/5"], platform="eos").count("mtu 9214") == 1
