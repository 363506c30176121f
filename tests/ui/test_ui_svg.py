"""The pure SVG helpers: topology (bundling, server aggregation, colouring by findings) and rack elevations."""

import re

from compiler.clos import ClosParams, plan_clos
from ui import svg
from validators.findings import Finding


def _bundles(picture: str) -> dict[str, str]:
    return dict(re.findall(r'data-link="([^"]+)" data-state="([^"]+)"', picture))


def test_topology_64_leaves_stays_aggregated():
    inventory = plan_clos(ClosParams(spines=8, leaves=64, servers_per_leaf=16))
    picture = svg.topology_svg(inventory, svg.link_health(inventory, [], has_report=False))
    bundles = _bundles(picture)
    # one line per spine-leaf pair and one aggregated server box per leaf, not one element per cable/server
    assert sum(1 for key in bundles if not key.endswith("--servers")) == 8 * 64
    assert sum(1 for key in bundles if key.endswith("--servers")) == 64
    assert picture.count('class="node"') == 72
    assert "gpu0001" not in picture  # servers are counted, not drawn one by one
    assert set(bundles.values()) == {"unknown"}  # no report: nothing claims to be ok


def test_topology_colours_the_link_a_finding_names():
    inventory = plan_clos(ClosParams(spines=2, leaves=4, servers_per_leaf=2))
    leaf1_uplink = next(c for c in inventory.cables if {c.a.device, c.b.device} == {"leaf1", "spine2"})
    leaf_end = leaf1_uplink.a if leaf1_uplink.a.device == "leaf1" else leaf1_uplink.b
    findings = [Finding(
        check="mtu", severity="error", subject=str(leaf_end), expected=9214, actual=1500, message="MTU mismatch"),
                Finding(
                    check="pfc", severity="warning", subject="spine1:Ethernet3<->leaf3:Ethernet50", expected=1,
                    actual=0, message="PFC off")]
    health = svg.link_health(inventory, findings)
    bundles = _bundles(svg.topology_svg(inventory, health))
    assert bundles["leaf1--spine2"] == "error"
    assert bundles["leaf3--spine1"] == "warning"  # both ends named in the subject
    assert bundles["leaf1--spine1"] == "ok"
    # a lens on another check leaves the MTU error out
    only_pfc = svg.link_health(inventory, findings, checks=["pfc"])
    assert only_pfc.links[("leaf1", "spine2")] == "ok"


def test_topology_link_detail_url_is_wired_for_htmx():
    inventory = plan_clos(ClosParams(spines=1, leaves=2, servers_per_leaf=1))
    picture = svg.topology_svg(inventory, svg.link_health(inventory, []), link_url=lambda a, b: f"/x?a={a}&b={b}")
    assert 'hx-get="/x?a=leaf1&amp;b=spine1"' in picture
    assert 'hx-get="/x?a=leaf1&amp;b=servers"' in picture


def test_rack_elevation_power_and_overlap():
    devices = [svg.RackDevice("leaf1", "leaf", 41, 2, 500), svg.RackDevice("gpu1", "server", 1, 4, 10200),
               svg.RackDevice("gpu2", "server", 3, 4, 10200)]  # gpu2 overlaps gpu1 at U3-U4
    picture = svg.rack_elevation_svg("r1", 42, devices, power_budget_kw=20.0)
    assert "20.9 / 20.0 kW" in picture and "104%" in picture  # 20.9 / 20.0
    overlapping = re.findall(r'data-device="(gpu\d)"><title>[^<]*</title><rect [^>]*fill="#e03131"', picture)
    assert sorted(overlapping) == ["gpu1", "gpu2"]
    assert 'data-device="leaf1"><title>leaf1 U41–U42 (leaf)</title><rect' in picture
    fine = svg.rack_elevation_svg("r1", 42, devices[:2], power_budget_kw=40.0)
    assert "#e03131" not in fine and "27%" in fine
    assert "no budget" in svg.rack_elevation_svg("r1", 42, devices[:1], power_budget_kw=0)


def test_svg_escapes_names():
    picture = svg.rack_elevation_svg("<r&1>", 4, [svg.RackDevice("<b>", "server", 1, 1, 0)], 0)
    assert "<b>" not in picture and "&lt;b&gt;" in picture and "&lt;r&amp;1&gt;" in picture


def test_a_lens_without_matching_checks_shows_everything_ok():
    inventory = plan_clos(ClosParams(spines=1, leaves=2, servers_per_leaf=1))
    cable = next(c for c in inventory.cables if {c.a.device, c.b.device} == {"leaf1", "spine1"})
    findings = [Finding(
        check="physical.cable_reach", severity="error", subject=str(cable.a), expected=100, actual=500,
        message="too long")]
    assert svg.link_health(inventory, findings, checks=()).links[("leaf1", "spine1")] == "ok"
    assert svg.link_health(inventory, findings, checks=None).links[("leaf1", "spine1")] == "error"
