"""The UI at real sizes (issue #16 item 5, issue #17 item 5): pods and planes, row view, allocated numbers,
native platform first, intended vs operational state, port search, explained counts. Small fabrics only: the
sizes that prove the point (the 16x64 and 18-pod pictures are tested on the pure SVG in test_ui_svg.py)."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from compiler.clos import ClosParams
from compiler.pods import PodsParams
from inventory.builder import fabric_build_pods
from tests.ui.conftest import FABRIC


@pytest.fixture
def pods_fabric(db):
    return fabric_build_pods(params=PodsParams(name="podfab", pods=2, super_spines_per_plane=1, pod=ClosParams(
        spines=2, leaves=2, servers_per_leaf=1, mgmt_pool="10.200.0.0/16", server_mgmt_pool="10.201.0.0/16")))


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_topology_frames_pods_and_opens_one_pod(viewer, pods_fabric, fabric_intent):
    # no N+1: the 14-switch pod fabric costs the same queries as the 8-switch Clos (and stays small)
    assert _queries(viewer, "/fabrics/podfab/topology/") == _queries(viewer, f"/fabrics/{FABRIC}/topology/") <= 20
    page = viewer.get("/fabrics/podfab/topology/").content.decode()
    assert 'data-group="pod 1"' in page and 'data-group="plane 2"' in page
    assert '<option value="2" >pod 2</option>' in page or ">pod 2</option>" in page
    one = viewer.get("/fabrics/podfab/topology/?pod=2").content.decode()
    assert 'data-device="pod2-leaf1"' in one and 'data-device="pod1-leaf1"' not in one
    assert 'data-device="superspine1"' in one
    assert viewer.get("/fabrics/podfab/topology/?pod=3").status_code == 404  # not a pod of this fabric
    for pod in ("x", "-1", "\u00b2", "1\u00b2", "9" * 5000, "\u0661"):  # not a number: 400 naming it, never a 500
        response = viewer.get("/fabrics/podfab/topology/", {"pod": pod})
        assert response.status_code == 400, pod
        assert "not a pod number" in response.content.decode() and 'data-device="pod1-leaf1"' in response.content.decode()
    assert "\u00b2".isdigit()  # the old check (str.isdigit) let it through to int(), which raised: the 500
    with pytest.raises(ValueError):
        int("\u00b2")




def test_a_two_tier_fabric_has_no_pod_picker(viewer, fabric_intent):
    page = viewer.get(f"/fabrics/{FABRIC}/topology/").content.decode()
    assert 'name="pod"' not in page and "data-zoom" in page and 'data-zoom-step="1.25"' in page


def test_rack_row_shows_every_rack_of_the_row_side_by_side(viewer, fabric_intent, pods_fabric):
    from inventory.models import Rack

    rack = Rack.objects.filter(switches__hostname="leaf1").first()
    row_racks = Rack.objects.filter(site=rack.site, row=rack.row)
    url = f"/inventory/rows/{rack.site.name}/{rack.row}/"
    page = viewer.get(url).content.decode()
    assert page.count('class="rack-card"') == row_racks.count() > 1
    assert 'data-device="leaf1"' in page and 'data-device="gpu0001"' in page
    narrowed = viewer.get(url + f"?fabric={FABRIC}").content.decode()
    assert narrowed.count('class="rack-card"') == row_racks.filter(fabric__name=FABRIC).count()
    # the rack page and the rack list link to the row; two fabrics in the row cost no more queries than one
    assert url in viewer.get(f"/inventory/racks/{rack.pk}/").content.decode()
    assert _queries(viewer, url) == _queries(viewer, url + f"?fabric={FABRIC}")
    assert viewer.get(f"/inventory/rows/{rack.site.name}/no-such-row/").status_code == 404


def test_intent_page_shows_the_allocated_numbers_not_auto(operator, fabric_intent):
    from intents import services

    url = f"/intents/{fabric_intent.name}/"
    base = fabric_intent.l2vni_base
    page = operator.get(url).content.decode()
    assert ">auto<" not in page
    # before the first compile: the numbers the allocator will hand out, said to be pending
    assert f'data-vni-source="at the next compile">{base + 10} ' in page
    assert "not stored yet" in page and "leaf4" in page
    services.compile_run_create(fabric_intent=fabric_intent)
    page = operator.get(url).content.decode()
    assert f'data-vni-source="allocated">{base + 10} ' in page and "not stored yet" not in page
    tenant_vni = fabric_intent.allocations.get(kind="l3vni", key="A").value
    assert f'data-vni-source="allocated">{tenant_vni} ' in page
    leaf1_asn = fabric_intent.allocations.get(kind="asn", key="leaf1").value
    assert f'<tr><td>leaf1</td><td class="num">{leaf1_asn}</td>' in page


def test_an_allocator_refusal_is_shown_not_a_500(operator, fabric_intent):
    type(fabric_intent).objects.filter(pk=fabric_intent.pk).update(loopback_pool="10.0.0.0/30")  # 2 hosts, 6 switches
    page = operator.get(f"/intents/{fabric_intent.name}/")
    assert page.status_code == 200 and "The allocator refuses" in page.content.decode()
    assert "pools.loopback" in page.content.decode()


@pytest.mark.parametrize("platform", ["eos", "sonic"])
def test_a_switch_opens_on_its_own_platform(viewer, db, platform):
    from intents import services
    from inventory.builder import fabric_build
    from inventory.models import Fabric

    fabric_build(params=ClosParams(name="natfab", spines=1, leaves=2, servers_per_leaf=1, platform=platform))
    intent = services.fabric_intent_create(fabric=Fabric.objects.get(name="natfab"), name="natfab-intent")
    services.compile_run_create(fabric_intent=intent)
    page = viewer.get("/configs/natfab-intent/leaf1/").content.decode()
    tabs = re.findall(r'class="(active)?" data-platform="(\w+)"', page)
    assert [name for _, name in tabs] == [platform, "frr"]  # native first, the twin's FRR after it
    assert tabs[0][0] == "active" and "(runs on the switch)" in page
    first_file = {"eos": "startup-config", "sonic": "config_db.json"}[platform]
    assert f"<h3>Intended {first_file}</h3>" in page
    listing = viewer.get("/configs/natfab-intent/").content.decode()
    assert re.search(rf"leaf1</a></td>\s*<td>{platform} <span class=\"muted\">native", listing)


def test_switch_ports_show_inventory_and_intended_state_apart(operator, fabric_intent):
    from intents import services
    from inventory.models import Interface

    page = operator.get("/inventory/switches/leaf1/").content.decode()
    assert "not compiled yet" in page and '<td data-state="config"><span class="muted">—</span>' in page
    services.compile_run_create(fabric_intent=fabric_intent)
    page = operator.get("/inventory/switches/leaf1/").content.decode()
    uncabled = Interface.objects.filter(switch__hostname="leaf1", cable__isnull=True, enabled=True).count()
    assert uncabled > 0
    # an uncabled port: enabled in the inventory, shut by the compiled config, both shown and labelled
    row = re.search(r'<tr id="if-(?P<name>[^"]+)">(?:(?!</tr>).)*?data-state="inventory"><span class="pill enabled">'
                    r'enabled</span></td>\s*<td data-state="config"><span class="pill shutdown">shutdown</span> '
                    r'<span class="muted">unused</span>', page, re.S)
    assert row is not None
    assert f"so {uncabled} ports enabled in the inventory are shut by the config" in page
    cabled = Interface.objects.filter(switch__hostname="leaf1", cable__isnull=False).first()
    assert re.search(rf'<tr id="if-{re.escape(cabled.name)}">(?:(?!</tr>).)*?data-state="config"><span class="pill '
                     rf'enabled">enabled</span> <span class="muted">(fabric|server)</span>', page, re.S)


def test_port_picker_is_searchable_and_costs_constant_queries(operator, fabric_intent):
    url = f"/intents/{fabric_intent.name}/networks/new/"
    page = operator.get(url).content.decode()
    assert 'data-filter="id_attachments"' in page and 'data-select-shown="id_attachments"' in page
    assert 'data-selected-count="id_attachments"' in page and page.count("<option value=") >= 8 + 4
    from inventory.models import NicPort, Server

    before = _queries(operator, url)
    server = Server.objects.first()
    NicPort.objects.bulk_create([NicPort(server=server, name=f"eth{n}", rail=n, speed_gbps=400) for n in range(1, 40)])
    assert _queries(operator, url) == before  # 39 more ports, not 39 more queries


def test_session_counts_are_explained_and_counted_once():
    from labs.checks.bgp import session_count_text

    two_by_four = {f"leaf{n}": {"ipv4Unicast": 2, "l2VpnEvpn": 2} for n in range(1, 5)}
    two_by_four.update({f"spine{n}": {"ipv4Unicast": 4, "l2VpnEvpn": 4} for n in range(1, 3)})
    assert session_count_text(two_by_four) == "16 BGP sessions (8 links x 2 address families; 32 counting both ends)"
    # EVPN on fewer links than IPv4 (super-spines without EVPN): said per family, never a wrong product
    mixed = {"leaf1": {"ipv4Unicast": 1, "l2VpnEvpn": 1}, "spine1": {"ipv4Unicast": 2, "l2VpnEvpn": 1},
             "superspine1": {"ipv4Unicast": 1}}
    assert session_count_text(mixed) == ("3 BGP sessions (ipv4Unicast on 2 links, l2VpnEvpn on 1 links; "
                                         "6 counting both ends)")


def test_fidelity_counts_say_what_one_item_is(viewer, fabric_intent):
    from labs.fidelity import ASPECT_ITEMS
    from twins.models import Twin

    counts = {"items": 12, "agree": 12, "disagree": 0, "static_only": 0, "not_sampled": 0}
    Twin.objects.create(fabric_intent=fabric_intent, prefix="uitst", status="down", last_fidelity={
        "disagreements": 0, "agreed_failures": 0, "at": "2026-11-24T12:00:00",
        "compared": {"bgp_sessions": counts, "ecmp": counts}})
    page = viewer.get(f"/twin/{FABRIC}/").content.decode()
    assert "<th>One item is</th>" in page
    assert f'<td>bgp_sessions</td><td class="wrap muted">{ASPECT_ITEMS["bgp_sessions"]}</td>' in page


def test_a_second_fabrics_intent_is_created_from_the_ui_with_its_own_pools(operator, fabric_intent, pods_fabric):
    from intents.models import FabricIntent

    response = operator.post("/intents/new/", {"name": "pod-intent", "fabric": "podfab", "underlay": "numbered",
                                               "asn_scheme": "per_leaf", "underlay_mtu": 9214, "host_mtu": 9000})
    assert response.status_code == 302, response.content.decode()[-2000:]
    second = FabricIntent.objects.get(name="pod-intent")
    first = FabricIntent.objects.get(pk=fabric_intent.pk)
    assert {second.loopback_pool, second.vtep_pool, second.p2p_pool}.isdisjoint(
        {first.loopback_pool, first.vtep_pool, first.p2p_pool})
    assert second.management_network == "10.200.0.0/16"  # where podfab's switches are addressed


def test_detail_tables_are_not_inner_scroll_boxes():
    """Issue #16: a switch's uplinks and a report's checks hid in a 70vh box inside the page; only the paginated
    lists keep a bounded, scrolling table box (for their sticky header)."""
    from pathlib import Path

    css = (Path(__file__).resolve().parents[2] / "ui" / "static" / "ui" / "ui.css").read_text()
    rules = dict(re.findall(r"^([^{}/\n][^{}\n]*?)\s*\{([^}]*)\}", css, re.M))
    assert "max-height" not in rules[".table-wrap"]
    assert "max-height" in rules["#list-results .table-wrap"]
