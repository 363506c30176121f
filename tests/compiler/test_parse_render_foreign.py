"""``render(parse(text))`` on foreign-shaped input (issue #25 item 5): configs with lines a foreign tool would not
print removed (no ``timers``, no ``router bgp`` ASN line, no ``mtu``, no SONiC ``bgp_asn``) render without a
``None`` and parse again; a SONiC HWSKU we have no platform data for renders without the port map and says so.
A hypothesis test drops random lines/keys of every golden rendering and checks parse -> render -> parse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.errors import RenderError
from compiler.parse import ParseError, parse_device
from compiler.render import render_device
from compiler.render.sonic import PLATFORM_UNKNOWN_NOTE
from compiler.render.unset import UNSET, omit_unset

GOLDEN = Path(__file__).parents[1] / "golden"
RENDERED = sorted(path for path in GOLDEN.glob("*/expected/rendered/*/*") if path.is_dir())


def _files(directory: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(directory.iterdir())}


def _without(text: str, *prefixes: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith(prefixes))


def _assert_round_trip(files: dict[str, str], platform: str) -> dict[str, str]:
    rendered = render_device(parse_device(files).structured, platform)
    for name, text in rendered.items():
        assert UNSET not in text, name
        bad = [line for line in text.splitlines() if "None" in line.split() or '"None"' in line]
        assert not bad, f"{name}: {bad[:3]}"
    parse_device(rendered, platform=platform)  # our own parser takes what we print
    return rendered


@pytest.mark.parametrize("platform", ["eos", "frr", "sonic"])
def test_foreign_shaped_configs_render_without_none(platform):
    scenario = "multi_tenant_l3vni" if platform == "sonic" else "single_tenant_2x4"
    files = _files(GOLDEN / scenario / "expected" / "rendered" / "leaf1" / platform)
    cut = ("timers", "neighbor UNDERLAY timers", "router-id", "bgp router-id", "rd ", "maximum-paths", "mtu ",
           "vni ", "ip address ")
    foreign = {name: text if text.lstrip().startswith("{") else _without(text, *cut) for name, text in files.items()}
    if platform == "sonic":
        db = json.loads(foreign["config_db.json"])
        del db["DEVICE_METADATA"]["localhost"]["bgp_asn"]
        for row in db["PORT"].values():
            row.pop("mtu", None)
        foreign["config_db.json"] = json.dumps(db, indent=4)
    rendered = _assert_round_trip(foreign, platform)
    text = "".join(rendered.values())
    assert "timers bgp" not in text and "router bgp None" not in text


def test_router_bgp_without_asn_is_left_out_with_its_block():
    structured = parse_device(_files(GOLDEN / "multi_tenant_l3vni" / "expected" / "rendered" / "leaf1" / "frr")
                              ).structured
    structured["bgp"]["asn"] = None
    rendered = render_device(structured, "frr")["frr.conf"]
    assert "router bgp" not in rendered and " neighbor " not in rendered and "exit-address-family" not in rendered
    # The rest of the file stays: interfaces, VRFs.
    assert "interface " in rendered and "vrf " in rendered


def test_omit_unset_drops_the_line_and_the_block_it_opens():
    text = f"a\n b {UNSET}\n c\nrouter bgp {UNSET}\n x\n  y\n exit-address-family\nexit\nz\n"
    assert omit_unset(text) == "a\n c\nz\n"
    assert omit_unset("a\n b\n") == "a\n b\n"  # nothing unset: unchanged


def test_unknown_sonic_hwsku_renders_without_the_port_map_and_says_so():
    directory = GOLDEN / "multi_tenant_l3vni" / "expected" / "rendered" / "leaf1" / "sonic"
    files = _files(directory)
    db = json.loads(files["config_db.json"])
    db["DEVICE_METADATA"]["localhost"]["hwsku"] = "Acme-X9999-64x800G"
    files["config_db.json"] = json.dumps(db, indent=4)
    parsed = parse_device(files)
    assert parsed.structured["model"] is None
    rendered = _assert_round_trip(files, "sonic")
    assert rendered["frr.conf"].startswith(PLATFORM_UNKNOWN_NOTE)
    out = json.loads(rendered["config_db.json"])
    assert "hwsku" not in out["DEVICE_METADATA"]["localhost"]
    assert all("lanes" not in row for row in out["PORT"].values())
    # A model that IS named but has no platform data is still refused (a compiled config's error, not foreign input).
    parsed.structured["model"] = "NO-SUCH-MODEL"
    with pytest.raises(RenderError, match="NO-SUCH-MODEL"):
        render_device(parsed.structured, "sonic")


def _drop(text: str, picks: list[int]) -> str:
    """Drop lines (CLI) or row fields (JSON) at the picked positions."""
    if text.lstrip().startswith("{"):
        db = json.loads(text)
        fields = [(table, key, field) for table, rows in db.items() if isinstance(rows, dict)
                  for key, row in rows.items() if isinstance(row, dict) for field in row]
        for pick in picks:
            if fields:
                table, key, field = fields[pick % len(fields)]
                db[table][key].pop(field, None)
        return json.dumps(db, indent=4)
    lines = text.splitlines(keepends=True)
    drop = {pick % len(lines) for pick in picks} if lines else set()
    return "".join(line for number, line in enumerate(lines) if number not in drop)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(directory=st.sampled_from(RENDERED), picks=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1,
                                                            max_size=4))
def test_parse_render_parse_never_prints_none(directory, picks):
    platform = directory.name
    files = {name: _drop(text, picks) for name, text in _files(directory).items()}
    try:
        structured = parse_device(files).structured
    except ParseError:
        return  # refused naming file and line: not a round trip to test
    try:
        rendered = render_device(structured, platform)
    except RenderError as error:
        # Refusals left: a config the platform cannot express (a headroom priority with no traffic class), named.
        assert "None" not in str(error).split(":")[0]
        return
    for name, text in rendered.items():
        assert UNSET not in text and not any("None" in line.split() for line in text.splitlines()), name
    parse_device(rendered, platform=platform)
