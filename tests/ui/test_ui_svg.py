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


def _node_labels(picture: str) -> dict[str, str]:
    """device -> the text drawn in its box."""
    return dict(re.findall(r'<g class="node" data-device="([^"]+)"><title>[^<]*</title><rect [^>]*/><text[^>]*>'
                           r'([^<]*)</text>', picture))


def test_labels_are_distinct_at_16x64_with_a_name_prefix():
    inventory = plan_clos(ClosParams(spines=16, leaves=64, servers_per_leaf=1, name_prefix="backend-"))
    labels = _node_labels(svg.topology_svg(inventory, svg.link_health(inventory, [])))
    assert len(labels) == 80 and len(set(labels.values())) == 80  # issue #16: leaf10..16 all read "…-leaf1"
    assert labels["backend-leaf16"] == "leaf16"  # the shared prefix is named once, in the tier caption
    assert "names start backend-" in svg.topology_svg(inventory, svg.link_health(inventory, []))


def test_short_labels_keep_full_names_when_shortening_would_repeat_or_empty():
    assert svg.short_labels(["pod1-leaf1", "pod2-leaf1"]) == {"pod1-leaf1": "pod1-leaf1", "pod2-leaf1": "pod2-leaf1"}
    assert svg.short_labels(["a-", "a-b"]) == {"a-": "a-", "a-b": "a-b"}
    assert svg.short_labels(["x-leaf1", "x-leaf10"]) == {"x-leaf1": "leaf1", "x-leaf10": "leaf10"}


def test_vertical_boxes_are_as_tall_as_their_labels():
    inventory = plan_clos(ClosParams(spines=2, leaves=20, servers_per_leaf=1))
    picture = svg.topology_svg(inventory, svg.link_health(inventory, []))
    height = float(re.search(r'data-device="leaf20"><title>[^<]*</title><rect [^>]*height="([\d.]+)"', picture)[1])
    assert height >= len("leaf20") * svg.LABEL_CHAR_PX


def _pods(pods: int, leaves: int):
    from compiler.pods import PodsParams, plan_pods

    return plan_pods(PodsParams(name="p", pods=pods, super_spines_per_plane=2,
                                pod=ClosParams(spines=2, leaves=leaves, servers_per_leaf=1)))


def test_pods_and_planes_are_framed_with_distinct_labels():
    inventory = _pods(pods=3, leaves=4)
    picture = svg.topology_svg(inventory, svg.link_health(inventory, []))
    groups = re.findall(r'<g class="group" data-group="([^"]+)">', picture)
    assert sorted(groups) == ["plane 1", "plane 2", "pod 1", "pod 2", "pod 3"]
    labels = _node_labels(picture)
    assert len(labels) == 4 + 3 * 6 and len(set(labels.values())) == len(labels)


def test_18_pods_are_one_box_each_and_a_pod_opens_on_its_own():
    inventory = _pods(pods=18, leaves=8)  # 144 leaves > POD_DETAIL_MAX_LEAVES
    picture = svg.topology_svg(inventory, svg.link_health(inventory, []), pod_url=lambda n: f"?pod={n}")
    assert re.findall(r'data-pod="(\d+)"', picture) == [str(n) for n in range(1, 19)]
    assert "2 spines · 8 leaves" in picture and 'href="?pod=18"' in picture
    assert 'data-device="pod1-leaf1"' not in picture
    bundles = _bundles(picture)
    # each super-spine reaches every pod through that pod's spine of its plane: 4 x 18 bundles, nothing else
    assert len(bundles) == 4 * 18 and all(re.fullmatch(r"pod:\d+--superspine\d", key) for key in bundles)
    one = svg.topology_svg(inventory, svg.link_health(inventory, []), pod=5)
    devices = set(_node_labels(one))
    assert {"pod5-spine1", "pod5-leaf8", "superspine4"} <= devices and not any(d.startswith("pod4-") for d in devices)
    # a finding on a pod's uplink colours the pod's bundle in the overview
    cable = next(c for c in inventory.cables if {c.a.device, c.b.device} == {"pod7-spine1", "superspine1"})
    finding = Finding(check="mtu", severity="error", subject=str(cable.a), expected=9214, actual=1500, message="x")
    coloured = _bundles(svg.topology_svg(inventory, svg.link_health(inventory, [finding])))
    assert coloured["pod:7--superspine1"] == "error" and coloured["pod:6--superspine1"] == "ok"


def test_each_switch_shows_its_platform_and_the_picture_fits_its_window():
    """Issue #30 point 5: EOS and SONiC leaves looked alike, and a min-width kept a 64-leaf picture wider than the
    window (so "fit" could not show it whole)."""
    inventory = plan_clos(ClosParams(spines=16, leaves=64, servers_per_leaf=1, leaf_platforms=("eos", "sonic")))
    picture = svg.topology_svg(inventory, svg.link_health(inventory, []))
    platforms = dict(re.findall(r'<g class="node" data-device="([^"]+)"><title>[^<]*</title><rect data-platform="'
                                r'(\w+)"', picture))
    assert len(platforms) == 80 and platforms["leaf1"] == "eos" and platforms["leaf2"] == "sonic"
    assert "<title>leaf2 (leaf, SONiC)</title>" in picture  # the tooltip names it too
    assert picture.count('<g class="badge">') == 80 and "<title>leaf2: SONiC</title>" in picture
    assert re.search(r'<title>leaf2: SONiC</title><rect [^>]*fill="#f783ac"/><text[^>]*>S</text>', picture)
    assert [letter for letter, _, _ in svg.platform_legend(inventory)] == ["E", "S"]
    style = re.search(r'<svg [^>]*style="([^"]*)"', picture)[1]
    assert "min-width" not in style and "max-height:min(" in style  # the window, not the drawing, sets the size
    # the label of a narrow (vertical) box stays below its badge: the badge sits in the room the box grew by
    box = re.search(r'data-device="leaf20"><title>[^<]*</title><rect [^>]*y="([\d.]+)" width="([\d.]+)" '
                    r'height="([\d.]+)"', picture)
    label_y = float(re.search(r'data-device="leaf20">.*?<text x="[\d.]+" y="([\d.]+)"', picture)[1])
    assert float(box[1]) + svg.BADGE_ROOM < label_y


def test_counter_chart_of_a_gated_canary():
    chart = svg.counter_chart_svg("lossless_drops", [0, 0, 0, 40, 42], [0, 0, 0, 0, 0], 3, failed=True)
    assert chart.startswith("<svg") and chart.count("<polyline") == 2 and "#e03131" in chart
    canary = chart.split('class="canary" points="')[1].split('"')[0].split()
    peers = chart.split('class="peers" points="')[1].split('"')[0].split()
    assert canary[:3] == peers[:3] and canary[3] != peers[3]  # together before the push, apart after it
    assert float(canary[4].split(",")[1]) < float(canary[0].split(",")[1])  # higher rate = higher on the chart
    alone = svg.counter_chart_svg("pfc_rx<script>", [1.0, 2.0], [], 1)
    assert "<script>" not in alone and alone.count("<polyline") == 1 and "#1971c2" in alone
