"""compiler.names: one grammar per field kind, applied by check_intent; renderers refuse line breaks.

The hostile values below are the issue-12 audit's injection and path cases plus their Unicode cousins. Every one is
tried against every name field of a snapshot (check_intent must name the field and the value) and rendered into
every platform (EOS startup-config, SONiC config_db.json + frr.conf, FRR frr.conf): the renderer must either raise
a named RenderError or print exactly the lines it prints for a harmless value.
"""

from __future__ import annotations

import copy
import dataclasses
import re

import pytest
from compiler_scenarios import scenario

from compiler import names
from compiler.api import build_facts, compile_fabric, structured_configs
from compiler.errors import InputError, IntentValidationError, RenderError
from compiler.model import Platform
from compiler.render import render_device
from compiler.scenario import snapshot_from_scenario
from compiler.validate import check_intent

# Values that add a line (or end a C string) wherever they are printed: refused by every kind and every renderer.
LINE_BREAKING = [
    "a\nb", "leaf1\n", "a\r\nb", "a\rb", "x\x00y", "a\u2028b", "a\u2029b", "a\x85b", "a\x0bb", "a\x0cb",
    "a\x1cb", "e\n ip address 198.51.100.1/32", "x\n!\nrouter bgp 1",
]
# Values that leave a directory or hide characters: refused by every name kind (text allows the printable ones).
PATH_AND_INVISIBLE = [
    "../x", "../../etc", "/etc/passwd", "/", "..", ".", "a/b", "a\\b", "\u202eevil", "zero\u200bwidth",
    " leading", "trailing ", "tab\there", "x" * 300,
]
HOSTILE = LINE_BREAKING + PATH_AND_INVISIBLE

NAME_KINDS = [names.HOSTNAME, names.OBJECT_NAME, names.NIC_NAME, names.VRF_NAME, names.VERSION]


# --------------------------------------------------------------------------------------------- the grammar


@pytest.mark.parametrize("kind, value", [
    (names.HOSTNAME, "leaf1"), (names.HOSTNAME, "leaf-1.dc1"), (names.HOSTNAME, "gpu0001"),
    (names.OBJECT_NAME, "TENANT_A"), (names.OBJECT_NAME, "7060X6-64PE"), (names.OBJECT_NAME, "golden.v2"),
    (names.INTERFACE_NAME, "Ethernet1/1"), (names.INTERFACE_NAME, "Ethernet1/1/1"), (names.INTERFACE_NAME, "swp1"),
    (names.INTERFACE_NAME, "Port-Channel10"), (names.NIC_NAME, "eth0"), (names.NIC_NAME, "enp1s0f0np0"),
    (names.VRF_NAME, "TENANT_A"), (names.VERSION, "4.32.2F"), (names.VERSION, "FRR 8.4.4"),
    (names.VERSION, "SONiC.202311.1"), (names.TEXT, "P2P spine1 Ethernet1/1"), (names.TEXT, "rack 3 / row B"),
    (names.TEXT, "Zürich ☃"),
])
def test_valid_names_pass(kind, value):
    assert names.name_problem(kind, value) is None


@pytest.mark.parametrize("value", LINE_BREAKING)
@pytest.mark.parametrize("kind", NAME_KINDS + [names.INTERFACE_NAME, names.TEXT], ids=lambda kind: kind.key)
def test_line_breaks_are_refused_by_every_kind(kind, value):
    assert names.name_problem(kind, value)


@pytest.mark.parametrize("value", PATH_AND_INVISIBLE)
@pytest.mark.parametrize("kind", NAME_KINDS, ids=lambda kind: kind.key)
def test_path_and_invisible_values_are_refused_by_name_kinds(kind, value):
    assert names.name_problem(kind, value)


@pytest.mark.parametrize("kind, value, fragment", [
    (names.VRF_NAME, "default", "reserved"), (names.VRF_NAME, "MGMT", "reserved"), (names.VRF_NAME, "mgmt", "reserved"),
    (names.NIC_NAME, "eth0123456789012", "at most 15"), (names.VRF_NAME, "A" * 16, "at most 15"),
    (names.HOSTNAME, "-leaf", "RFC 1123"), (names.HOSTNAME, "leaf_1", "RFC 1123"), (names.HOSTNAME, "", "empty"),
    (names.INTERFACE_NAME, "1/1", "a letter"), (names.TEXT, "x" * 201, "at most 200"), (names.TEXT, 5, "string"),
])
def test_refusals_say_why(kind, value, fragment):
    assert fragment in names.name_problem(kind, value)


def test_fullmatch_not_dollar():
    # "$" matches before a trailing newline; the grammar must not.
    for kind in NAME_KINDS + [names.INTERFACE_NAME]:
        assert names.name_problem(kind, "leaf1\n")


def test_deliberately_broken_grammar_lets_a_newline_through(monkeypatch):
    """The tests above can fail: a grammar without the control-character rule and with a permissive pattern accepts
    the audit's NIC name."""
    broken = dataclasses.replace(names.NIC_NAME, pattern=None, max_length=100)
    monkeypatch.setattr(names, "_bad_character", lambda value: None)
    names._problem.cache_clear()
    try:
        assert names.name_problem(broken, "e\n ip address 198.51.100.1/32") is None
    finally:
        names._problem.cache_clear()


# --------------------------------------------------------------------------------------------- the pure core

# (description, how to put the value into the scenario snapshot, expected field path)
SNAPSHOT_FIELDS = [
    ("hostname", lambda s, v: _switch(s, 0, hostname=v), "switches[{v}].hostname"),
    ("interface name", lambda s, v: _interface(s, name=v), "switches[spine1].interfaces[{v}].name"),
    ("description", lambda s, v: _interface(s, description=v), "switches[spine1].interfaces[swp1].description"),
    ("os_version", lambda s, v: _switch(s, 0, os_version=v), "switches[spine1].os_version"),
    ("server name", lambda s, v: _server(s, name=v), "servers[{v}].name"),
    ("NIC name", lambda s, v: _server(s, nics=(dataclasses.replace(s.inventory.servers[0].nics[0], name=v),)
                                       + s.inventory.servers[0].nics[1:]), "servers[gpu0001].nics[{v}].name"),
    ("cable label", lambda s, v: _inventory(s, cables=(dataclasses.replace(s.inventory.cables[0], label=v),)
                                            + s.inventory.cables[1:]), "cables[{v}].label"),
    ("fabric", lambda s, v: _inventory(s, fabric=v), "fabric"),
    ("intent name", lambda s, v: _intent(s, name=v), "name"),
    ("tenant name", lambda s, v: _intent(s, tenants=(dataclasses.replace(s.intent.tenants[0], name=v),)
                                         + s.intent.tenants[1:]), "tenants[{v}].name"),
    ("VRF", lambda s, v: _intent(s, tenants=(dataclasses.replace(s.intent.tenants[0], vrf=v),)
                                 + s.intent.tenants[1:]), "tenants[A].vrf"),
    ("network name", lambda s, v: _intent(s, networks=(dataclasses.replace(s.intent.networks[0], name=v),)
                                          + s.intent.networks[1:]), "networks[{v}].name"),
    ("RoCE class", lambda s, v: _intent(s, roce_classes=(dataclasses.replace(s.intent.roce_classes[0], name=v),)
                                        + s.intent.roce_classes[1:]), "roce_classes[{v}].name"),
]
# Fields whose kind accepts some of the hostile values by design (text may hold "/" or "..", an interface name
# "a/b" like Ethernet1/1); every other field refuses every hostile value.
LENIENT_FIELDS = {"description": names.TEXT, "cable label": names.TEXT, "interface name": names.INTERFACE_NAME}


def _inventory(snapshot, **changes):
    return dataclasses.replace(snapshot, inventory=dataclasses.replace(snapshot.inventory, **changes))


def _intent(snapshot, **changes):
    return dataclasses.replace(snapshot, intent=dataclasses.replace(snapshot.intent, **changes))


def _switch(snapshot, index, **changes):
    switches = list(snapshot.inventory.switches)
    switches[index] = dataclasses.replace(switches[index], **changes)
    return _inventory(snapshot, switches=tuple(switches))


def _interface(snapshot, **changes):
    spine = snapshot.inventory.switches[0]
    interfaces = (dataclasses.replace(spine.interfaces[0], **changes),) + spine.interfaces[1:]
    return _switch(snapshot, 0, interfaces=interfaces)


def _server(snapshot, **changes):
    servers = list(snapshot.inventory.servers)
    servers[0] = dataclasses.replace(servers[0], **changes)
    return _inventory(snapshot, servers=tuple(servers))


@pytest.fixture(scope="module")
def base_snapshot():
    snapshot = snapshot_from_scenario(scenario())
    assert snapshot.inventory.switches[0].hostname == "spine1"
    assert snapshot.inventory.switches[0].interfaces[0].name == "swp1"
    assert snapshot.inventory.servers[0].name == "gpu0001"
    return snapshot


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
@pytest.mark.parametrize("what, put, field", SNAPSHOT_FIELDS, ids=[f[0] for f in SNAPSHOT_FIELDS])
def test_check_intent_refuses_hostile_names_naming_field_and_value(base_snapshot, what, put, field, value):
    if what in LENIENT_FIELDS and names.name_problem(LENIENT_FIELDS[what], value) is None:
        pytest.skip(f"{value!r} is a valid {what}")  # allowed by design (still single-line: see the render test)
    snapshot = put(base_snapshot, value)
    with pytest.raises(IntentValidationError) as caught:
        check_intent(snapshot)
    # An item is labelled by its name in the path, or by its index when the name itself is unprintable.
    wanted = field.format(v=value if names.name_problem(names.TEXT, value) is None else 0)
    assert any(error.field == wanted and error.value == value for error in caught.value.errors), \
        [str(error) for error in caught.value.errors][:5]


def test_check_intent_accepts_the_base_snapshot(base_snapshot):
    check_intent(base_snapshot)


# --------------------------------------------------------------------------------------------- renderers

# Fields printed by the templates, by key: every string leaf under one of these keys gets each hostile value.
PRINTED_KEYS = {"hostname", "name", "description", "vrf", "peer_device", "peer_interface", "tenant", "peer_group"}


def _printed_paths(structured) -> list[tuple]:
    """One path per (normalised) printed string field of a structured config."""
    seen, paths = set(), []

    def walk(value, path):
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, str) and key in PRINTED_KEYS:
                    shape = tuple(p if isinstance(p, str) else 0 for p in path + (key,))
                    if shape not in seen:
                        seen.add(shape)
                        paths.append(path + (key,))
                else:
                    walk(item, path + (key,))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, path + (index,))

    walk(structured, ())
    return paths


def _set(structured, path, value):
    copied = copy.deepcopy(structured)
    target = copied
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return copied


def _device_configs():
    """A leaf per platform, compiled from the base scenario (EOS needs a numbered underlay, SONiC EthernetN ports)."""
    configs = {}
    for platform in Platform.ALL:
        snapshot = snapshot_from_scenario(scenario(clos={"platform": platform}))
        facts = build_facts(snapshot, check_intent(snapshot))
        configs[platform] = structured_configs(snapshot, facts)["leaf1"]
    return configs


DEVICE_CONFIGS = _device_configs()
RENDER_CASES = [(platform, path) for platform, config in DEVICE_CONFIGS.items() for path in _printed_paths(config)]


def _line_counts(files: dict[str, str]) -> dict[str, int]:
    return {name: len(text.splitlines()) for name, text in files.items()}


@pytest.mark.parametrize("platform, path", RENDER_CASES, ids=[f"{p}:{'.'.join(map(str, path))}" for p, path in RENDER_CASES])
def test_every_platform_renders_hostile_values_as_one_line_or_refuses(platform, path):
    config = DEVICE_CONFIGS[platform]
    baseline = _line_counts(render_device(config, platform))
    for value in HOSTILE:
        try:
            files = render_device(_set(config, path, value), platform)
        except RenderError as error:
            assert repr(value) in str(error) or value in str(error), str(error)
            assert value not in LINE_BREAKING or "line break" in str(error) or "must" in str(error)
            continue
        assert value not in LINE_BREAKING, f"{platform} rendered {value!r} at {path}"
        assert _line_counts(files) == baseline, (platform, path, value)
        for text in files.values():
            assert not set(text) & (names.LINE_BREAKS - {"\n"}), (platform, path, value)


def test_render_guard_names_the_field():
    config = _set(DEVICE_CONFIGS[Platform.EOS], ("interfaces", 0, "description"), "x\n ip address 198.51.100.1/32")
    with pytest.raises(RenderError, match=r"interfaces\[0\]\.description='x\\n ip address"):
        render_device(config, Platform.EOS)


def test_deliberately_broken_render_guard_lets_a_line_in(monkeypatch):
    """Without the guard the audit's injection adds a line to the EOS config: the test above can fail."""
    import compiler.render as render

    monkeypatch.setattr(render, "check_single_line", lambda structured, platform: None)
    config = DEVICE_CONFIGS[Platform.EOS]
    baseline = _line_counts(render_device(config, Platform.EOS))
    injected = _set(config, ("interfaces", 0, "description"), "x\n ip address 198.51.100.1/32")
    assert _line_counts(render_device(injected, Platform.EOS)) != baseline


def test_compile_fabric_refuses_before_rendering(base_snapshot):
    with pytest.raises(InputError, match="hostname"):
        compile_fabric(_switch(base_snapshot, 0, hostname="spine1\nhostname evil"))


@pytest.mark.parametrize("prefix, ok", [("b-", True), ("pod2", True), ("b_", False), ("-b", False), ("ä", False),
                                        ("b\n", False), ("../", False)])
def test_clos_name_prefix_must_start_hostnames(prefix, ok):
    from compiler.clos import ClosParams, plan_clos

    params = ClosParams(name="p", spines=1, leaves=1, servers_per_leaf=0, name_prefix=prefix)
    if ok:
        assert plan_clos(params).switches[0].hostname.startswith(prefix)
    else:
        with pytest.raises(InputError, match="name_prefix"):
            plan_clos(params)


@pytest.mark.parametrize("structured, field", [
    ({"hostname": "h", (1, 2): "z\n"}, "(1, 2)='z\\n'"),  # a key orjson refuses: the guard walks it
    ({"hostname": "h", "asn": 2**70, "description": "a\u2028b"}, "description='a\\u2028b'"),  # a 70-bit int, too
    ({"hostname": "h", "vrfs": [{"name": "a\x85b"}]}, "vrfs[0].name='a\\x85b'"),  # non-ASCII text: the regex scan
])
def test_render_guard_falls_back_to_walking_and_names_the_field(structured, field):
    with pytest.raises(RenderError, match=re.escape(field)):
        names.check_single_line(structured, "eos")
    names.check_single_line({"hostname": "h", (1, 2): "z", "asn": 2**70, "description": "ä"}, "eos")  # clean
