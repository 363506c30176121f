"""Every UI page renders for a viewer, anonymous users are sent to log in, and writes are role-checked."""

import re

import pytest
from django.contrib.auth.models import Group

from common.roles import ROLE_PERMISSIONS
from compiler.natural import natural_key
from inventory.models import Cable, Interface, Optic, Rack

FABRIC, INTENT = "uifab", "uifab-intent"  # as built by tests/ui/conftest.py

pytestmark = pytest.mark.django_db


def read_pages() -> list[str]:
    interface = Interface.objects.filter(cable__isnull=False, switch__hostname="leaf1").first()
    return [
        "/", "/fabrics/", f"/fabrics/{FABRIC}/", f"/fabrics/{FABRIC}/topology/", f"/fabrics/{FABRIC}/topology/?lens=mtu",
        f"/fabrics/{FABRIC}/topology/link/?a=leaf1&b=spine1", f"/fabrics/{FABRIC}/topology/link/?a=leaf1&b=servers",
        "/inventory/racks/", f"/inventory/racks/{Rack.objects.filter(switches__isnull=False).first().pk}/",
        "/inventory/switches/", "/inventory/switches/?role=leaf&q=leaf1", "/inventory/switches/leaf1/",
        "/inventory/interfaces/", "/inventory/interfaces/?cabled=yes", f"/inventory/interfaces/{interface.pk}/",
        "/inventory/optics/", f"/inventory/optics/{Optic.objects.first().pk}/",
        "/inventory/cables/", f"/inventory/cables/?fabric={FABRIC}", f"/inventory/cables/{Cable.objects.first().pk}/",
        "/inventory/servers/", "/inventory/servers/gpu0001/",
        "/intents/", f"/intents/{INTENT}/", f"/configs/{INTENT}/", f"/validation/{FABRIC}/",
        f"/validation/{FABRIC}/?severity=error", f"/twin/{FABRIC}/", f"/twin/{FABRIC}/status/", "/rollouts/",
    ]


def test_every_page_renders_for_a_viewer(viewer, fabric_intent):
    for url in read_pages():
        response = viewer.get(url)
        assert response.status_code == 200, url


def test_picker_pages_redirect_to_the_first_fabric(viewer, fabric_intent):
    assert viewer.get("/topology/")["Location"] == f"/fabrics/{FABRIC}/topology/"
    assert viewer.get("/validation/")["Location"] == f"/validation/{FABRIC}/"
    assert viewer.get("/twin/")["Location"] == f"/twin/{FABRIC}/"
    assert viewer.get("/configs/")["Location"] == f"/configs/{INTENT}/"


def test_anonymous_is_redirected_to_log_in(client, fabric_intent):
    for url in read_pages() + ["/fabrics/build/", f"/intents/{INTENT}/tenants/new/"]:
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/?next="), url
    assert client.get("/login/").status_code == 200


def test_user_without_a_role_gets_403(nobody, fabric_intent):
    assert nobody.get("/").status_code == 403
    assert nobody.get("/inventory/switches/").status_code == 403


def undeclared_views(patterns) -> list[str]:
    """UI views that declare no capability (``@requires``/``@viewer``): each would be open to any visitor."""
    public = {"login", "logout"}
    return [pattern.name for pattern in patterns
            if pattern.name not in public and not hasattr(pattern.callback, "required_capability")]


def test_every_ui_view_declares_its_capability():
    from ui.urls import urlpatterns

    assert len(urlpatterns) > 40 and undeclared_views(urlpatterns) == []


def test_an_undeclared_ui_view_is_reported():
    """Broken on purpose: a view without @requires/@viewer."""
    from django.http import HttpResponse
    from django.urls import path

    from ui.urls import urlpatterns

    def open_view(request):
        return HttpResponse("anyone")

    assert undeclared_views([*urlpatterns, path("x/", open_view, name="open_view")]) == ["open_view"]


def write_requests() -> list[tuple[str, dict, str]]:
    """(url, form data, capability the write needs)."""
    return [
        ("/fabrics/build/", {"name": "x"}, "edit_inventory"),
        ("/intents/new/", {"name": "x"}, "edit_intents"),
        (f"/intents/{INTENT}/tenants/new/", {"name": "B", "vrf": "TENANT_B"}, "edit_intents"),
        (f"/intents/{INTENT}/networks/preview/", {"name": "n"}, "edit_intents"),
        (f"/intents/{INTENT}/roce-defaults/", {}, "edit_intents"),
        (f"/intents/{INTENT}/compile/", {}, "operate_fabric"),
        (f"/validation/{FABRIC}/run/", {}, "operate_fabric"),
        (f"/twin/{FABRIC}/down/", {}, "operate_fabric"),  # not "up": that boots a real twin (test_ui_twin)
        (f"/twin/{FABRIC}/ping/", {}, "operate_fabric"),
        ("/rollouts/new/", {"target": "twin"}, "operate_fabric"),
        ("/rollouts/new/", {"target": "production"}, "approve_production_rollout"),
    ]


def test_viewer_gets_403_on_every_write(viewer, fabric_intent):
    for url, data, _ in write_requests() + [(f"/twin/{FABRIC}/up/", {}, "operate_fabric")]:
        assert viewer.post(url, data).status_code == 403, url


@pytest.mark.parametrize("role", ["operator", "admin"])
def test_each_role_gets_403_exactly_on_the_writes_it_lacks(role, request, fabric_intent):
    """Operators edit inventory and intents and run the twin; only production needs an admin (common.roles)."""
    client = request.getfixturevalue(role)
    for url, data, capability in write_requests():
        status = client.post(url, data).status_code
        if capability in ROLE_PERMISSIONS[role]:
            assert status in (200, 302), (url, status)
        else:
            assert status == 403, url


def test_write_buttons_are_hidden_from_viewers(viewer, admin, fabric_intent):
    page = viewer.get(f"/intents/{INTENT}/").content.decode()
    assert "Add tenant" not in page and ">Compile<" not in page
    page = admin.get(f"/intents/{INTENT}/").content.decode()
    assert "Add tenant" in page and ">Compile<" in page


def test_csrf_is_enforced(fabric_intent, django_user_model):
    from django.test import Client

    user = django_user_model.objects.create_user(username="csrf-admin")
    user.groups.set([Group.objects.get(name="admin")])
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post(f"/intents/{INTENT}/tenants/new/", {"name": "B", "vrf": "TENANT_B"}).status_code == 403


# --------------------------------------------------------------------------------------------- intents


def test_admin_creates_a_tenant_and_network(admin, fabric_intent):
    response = admin.post(f"/intents/{INTENT}/tenants/new/", {"name": "B", "vrf": "TENANT_B", "l3vni": ""})
    assert response.status_code == 302
    tenant = fabric_intent.tenants.get(name="B")
    response = admin.post(f"/intents/{INTENT}/networks/new/", {
        "tenant": tenant.pk, "name": "net20", "vlan_id": 20, "subnet": "10.20.0.0/24", "gateway": "10.20.0.1"})
    assert response.status_code == 302
    assert fabric_intent.networks.get(name="net20").tenant == tenant


def test_inline_errors_come_from_the_intents_validation(admin, fabric_intent):
    tenant = fabric_intent.tenants.get(name="A")
    response = admin.post(f"/intents/{INTENT}/networks/new/", {
        "tenant": tenant.pk, "name": "net11", "vlan_id": 10, "subnet": "10.11.0.1/24", "gateway": ""})
    assert response.status_code == 200
    assert "host bits" in " ".join(response.context["form"].errors["subnet"])
    assert 'class="field-error"' in response.content.decode()
    response = admin.post(f"/intents/{INTENT}/networks/new/", {
        "tenant": tenant.pk, "name": "net11", "vlan_id": 10, "subnet": "10.11.0.0/24", "gateway": ""})
    assert "already used by network net10" in " ".join(response.context["form"].errors["vlan_id"])
    assert not fabric_intent.networks.filter(name="net11").exists()  # nothing half-saved


def test_fabric_level_errors_are_shown_on_the_form(admin, fabric_intent):
    """A RoCE class on the priority of another class is refused by the compiler's validate_intent."""
    response = admin.post(f"/intents/{INTENT}/roce/new/", {
        "name": "roce2", "dscp": "26", "priority": 3, "traffic_class": 3, "lossless": "on", "ecn_min_kb": 150,
        "ecn_max_kb": 1500, "ecn_mark_probability": 10, "watchdog_detect_ms": 200, "watchdog_restore_ms": 400,
        "headroom_policy": "dynamic", "headroom_bytes": 0})
    assert response.status_code == 200
    form = response.context["form"]
    assert form.errors, "the duplicate DSCP/priority must be refused"
    assert not fabric_intent.roce_classes.filter(name="roce2").exists()


def test_blast_radius_preview_saves_nothing(admin, fabric_intent):
    tenant = fabric_intent.tenants.get(name="A")
    response = admin.post(f"/intents/{INTENT}/networks/preview/", {
        "tenant": tenant.pk, "name": "net30", "vlan_id": 30, "subnet": "10.30.0.0/24", "gateway": "10.30.0.1"})
    assert response.status_code == 200
    radius = response.context["radius"]
    assert radius is not None and set(radius.devices) == {"leaf1", "leaf2", "leaf3", "leaf4"}
    assert radius.networks == ("net30",)
    assert "Blast radius: 4 devices" in response.content.decode()
    assert not fabric_intent.networks.filter(name="net30").exists()


def test_blast_radius_preview_reports_refusals(admin, fabric_intent):
    tenant = fabric_intent.tenants.get(name="A")
    response = admin.post(f"/intents/{INTENT}/networks/preview/", {
        "tenant": tenant.pk, "name": "net10", "vlan_id": 10, "subnet": "10.10.0.0/24", "gateway": "10.10.0.1"})
    assert response.context["radius"] is None
    assert any("already used" in error for error in response.context["errors"])


def test_compile_then_configs_and_diff(operator, fabric_intent):
    from intents import services

    response = operator.post(f"/intents/{INTENT}/compile/")
    assert response.status_code == 302 and response["Location"] == f"/configs/{INTENT}/"
    listing = operator.get(f"/configs/{INTENT}/").content.decode()
    run = fabric_intent.compile_runs.latest("created")
    # nothing deployed, no twin: compared with the last compile (as config_diff and the API), and said so
    assert "leaf1" in listing and f"diff vs last compile (#{run.pk})" in listing
    page = operator.get(f"/configs/{INTENT}/leaf1/").content.decode()
    assert '<span class="kw">interface</span>' in page and f"Identical: diff vs last compile (#{run.pk})" in page
    page = operator.get(f"/configs/{INTENT}/leaf1/?target=device").content.decode()
    assert "Nothing deployed on device leaf1: the whole file is new" in page
    assert "no running twin" in operator.get(f"/configs/{INTENT}/leaf1/?target=twin").content.decode()
    assert "bogus&#x27;: one of auto, device, twin, compile" in operator.get(f"/configs/{INTENT}/?target=bogus").content.decode()
    # mark deployed, change the intent, recompile: the diff shows the new VLAN
    services.device_configs_mark_deployed(run=run)
    tenant = fabric_intent.tenants.get(name="A")
    services.network_create(tenant=tenant, name="net40", vlan_id=40, subnet="10.40.0.0/24", gateway="10.40.0.1")
    operator.post(f"/intents/{INTENT}/compile/")
    page = operator.get(f"/configs/{INTENT}/leaf1/?platform=frr&file=frr.conf").content.decode()
    assert re.search(r'<span class="add">\+[^<]*10040', page), "the diff shows the new VNI"
    assert "Diff vs device leaf1 (deployed by hand (mark deployed) on" in page
    assert "changed" in operator.get(f"/configs/{INTENT}/").content.decode()


# --------------------------------------------------------------------------------------------- pictures


def test_topology_page_and_link_detail(viewer, fabric_intent):
    page = viewer.get(f"/fabrics/{FABRIC}/topology/").content.decode()
    assert "<svg" in page and 'data-link="leaf1--spine1"' in page and 'hx-get="/fabrics/' in page
    detail = viewer.get(f"/fabrics/{FABRIC}/topology/link/?a=leaf1&b=spine1").content.decode()
    assert "leaf1:" in detail and "spine1:" in detail and "400G" in detail  # both ends and their optics
    assert viewer.get(f"/fabrics/{FABRIC}/topology/link/?a=nope&b=spine1").status_code == 404


def test_rack_page_shows_elevation_and_power(viewer, fabric_intent):
    rack = Rack.objects.filter(switches__hostname="leaf1").first()
    page = viewer.get(f"/inventory/racks/{rack.pk}/").content.decode()
    assert 'class="rack"' in page and 'data-device="leaf1"' in page and 'data-device="gpu0001"' in page
    assert "kW" in page


def test_validation_findings_link_to_devices(viewer, fabric_intent):
    """A broken inventory (an optic whose reach is shorter than its cable) shows up with a link to the port."""
    interface = Interface.objects.filter(switch__hostname="leaf1", cable__isnull=False).first()
    interface.cable.length_m = 5000
    interface.cable.save()
    response = viewer.get(f"/validation/{FABRIC}/")
    findings = response.context["findings"]
    assert findings, "a 5 km cable must produce a physical finding"
    page = response.content.decode()
    assert f'href="/inventory/switches/leaf1/#if-{interface.name}"' in page
    assert "<th>Examined</th>" in page and " cables</td>" in page  # what each (live physical) check looked at
    errors_only = viewer.get(f"/validation/{FABRIC}/?severity=error").context["findings"]
    assert all(item["finding"].severity == "error" for item in errors_only)
    family = viewer.get(f"/validation/{FABRIC}/?check=physical").context["findings"]
    assert family and all(item["finding"].check.startswith("physical.") for item in family)
    assert not viewer.get(f"/validation/{FABRIC}/?check=bgp").context["findings"]


def test_list_search_and_filters(viewer, fabric_intent):
    response = viewer.get("/inventory/switches/?role=spine")
    names = [row[0].text for row in response.context["rows"]]
    assert names == ["spine1", "spine2"]
    response = viewer.get("/inventory/switches/?q=leaf3")
    assert [row[0].text for row in response.context["rows"]] == ["leaf3"]


def test_list_pages_use_a_constant_number_of_queries(viewer, fabric_intent, django_assert_max_num_queries):
    for url in ("/inventory/switches/", "/inventory/interfaces/", "/inventory/cables/", "/inventory/optics/",
                "/inventory/servers/", "/inventory/racks/"):
        with django_assert_max_num_queries(15):
            assert viewer.get(url).status_code == 200


def test_fabric_build_form(admin, db):
    response = admin.post("/fabrics/build/", {
        "name": "built", "site": "dc9", "spines": 2, "leaves": 2, "servers_per_leaf": 1, "rails_per_server": 1,
        "uplinks_per_spine": 1, "uplink_speed_gbps": 400, "downlink_speed_gbps": 400, "platform": "sonic",
        "rack_power_budget_kw": 40})
    assert response.status_code == 302 and response["Location"] == "/fabrics/built/"
    response = admin.post("/fabrics/build/", {
        "name": "bad", "site": "dc9", "spines": 3, "leaves": 2, "servers_per_leaf": 1, "rails_per_server": 1,
        "uplinks_per_spine": 1, "uplink_speed_gbps": 400, "downlink_speed_gbps": 400, "platform": "eos",
        "rack_power_budget_kw": -1})
    assert response.status_code == 200 and "rack_power_budget_kw" in response.context["form"].errors


def test_validation_run_drives_the_report_and_the_topology(operator, fabric_intent):
    """The operator runs validation from the UI; the stored run's findings fill the report and colour the link."""
    interface = Interface.objects.filter(switch__hostname="leaf1", cable__interfaces__switch__hostname="spine1").first()
    interface.cable.length_m = 5000  # far beyond any 400G optic's reach
    interface.cable.save()
    response = operator.post(f"/validation/{FABRIC}/run/", follow=True)
    assert response.status_code == 200
    assert any("failed" in str(message) for message in response.context["messages"])
    report = response.context["report"]
    assert report.source.startswith("validation run #") and not report.ok
    reach = [item for item in response.context["findings"] if "reach" in item["finding"].check]
    assert reach and any(f"#if-{interface.name}" in (href or "") for item in reach for _, href in item["links"])
    page = operator.get(f"/fabrics/{FABRIC}/topology/").content.decode()
    assert 'data-link="leaf1--spine1" data-state="error"' in page
    assert 'data-link="leaf2--spine1" data-state="ok"' in page
    dashboard = operator.get("/").content.decode()
    assert '<span class="pill failed">failed</span>' in dashboard


def test_fabric_intent_settings_preview_and_save(admin, fabric_intent):
    """Raising the host MTU touches every leaf (SVIs, server ports); an MTU above the underlay is refused."""
    url = f"/intents/{INTENT}/settings/"
    form = admin.get(url).context["form"]
    data = {name: ("on" if value is True else "" if value in (None, False) else value)
            for name, value in form.initial.items() if name in form.fields}
    data["host_mtu"] = 9100
    response = admin.post(f"/intents/{INTENT}/settings/preview/", data)
    radius = response.context["radius"]
    assert radius is not None and {"leaf1", "leaf2", "leaf3", "leaf4"} <= set(radius.devices)
    fabric_intent.refresh_from_db()
    assert fabric_intent.host_mtu == 9000  # the preview saved nothing
    data["host_mtu"] = 9500  # above the 9214 underlay
    response = admin.post(url, data)
    assert response.status_code == 200 and response.context["form"].errors
    data["host_mtu"] = 9100
    assert admin.post(url, data).status_code == 302
    fabric_intent.refresh_from_db()
    assert fabric_intent.host_mtu == 9100


def test_fabric_intent_settings_hashing_knobs(admin, fabric_intent):
    """NCCL QPs per connection saves; DLB, which no platform of this fabric renders, is refused on the form."""
    url = f"/intents/{INTENT}/settings/"
    form = admin.get(url).context["form"]
    data = {name: ("on" if value is True else "" if value in (None, False) else value)
            for name, value in form.initial.items() if name in form.fields}
    response = admin.post(url, {**data, "ecmp_dlb": "on"})
    assert response.status_code == 200 and "ecmp_hashing.dlb" in str(response.context["form"].errors)
    assert admin.post(url, {**data, "nccl_qps_per_connection": 16}).status_code == 302
    fabric_intent.refresh_from_db()
    assert (fabric_intent.nccl_qps_per_connection, fabric_intent.ecmp_dlb) == (16, False)


def test_cable_edit_needs_edit_inventory_and_is_validated(viewer, operator, fabric_intent):
    cable = Cable.objects.first()
    url = f"/inventory/cables/{cable.pk}/edit/"
    data = {"cable_type": cable.cable_type, "length_m": 7.5, "status": "installed"}
    assert viewer.post(url, data).status_code == 403
    response = operator.post(url, {**data, "length_m": -1})
    assert response.status_code == 200 and "length_m" in response.context["form"].errors
    assert operator.post(url, data).status_code == 302
    cable.refresh_from_db()
    assert (cable.length_m, cable.status) == (7.5, "installed")


def test_subject_links_split_pairs_and_scenarios():
    from ui.views.validation import subject_links

    switches, servers = {"leaf1", "spine1", "spine2"}, {"gpu0001"}
    links = subject_links("spine1:Ethernet3<->leaf1:Ethernet1", switches, servers)
    assert [href for _, href in links] == ["/inventory/switches/spine1/#if-Ethernet3", None,
                                           "/inventory/switches/leaf1/#if-Ethernet1"]
    assert [text for text, _ in subject_links("spine1+spine2", switches, servers)] == ["spine1", "+", "spine2"]
    assert subject_links("gpu0001:eth0", switches, servers) == [("gpu0001:eth0", "/inventory/servers/gpu0001/")]
    assert subject_links("network net10", switches, servers) == [("network net10", None)]


def test_twin_page_says_what_each_switch_runs(viewer, fabric_intent):
    """The last live check's per-switch account (labs.node_configs) is a table on the twin page; none without it."""
    from twins.models import Twin

    twin = Twin.objects.create(fabric_intent=fabric_intent, prefix="twuiown01", status="down")
    assert "What each switch runs" not in viewer.get(f"/twin/{FABRIC}/status/").content.decode()
    twin.last_measured = {"device_configs": {"leaf2": {
        "platform": "sonic", "boots_from": "frr.conf as is + Linux plan from config_db.json",
        "live": ["frr.conf: run as is (59 lines)", "VXLAN_TUNNEL_MAP (2)"], "static_only": ["PORT_QOS_MAP (3)"],
        "unmodelled": ["config_db.json: FOO|bar"], "unmodelled_count": 1}}}
    twin.save()
    page = viewer.get(f"/twin/{FABRIC}/status/").content.decode()
    assert "What each switch runs" in page
    assert "frr.conf: run as is (59 lines); VXLAN_TUNNEL_MAP (2)" in page and "PORT_QOS_MAP (3)" in page
    assert 'title="config_db.json: FOO|bar">1</td>' in page


def test_forbidden_pages_say_why_and_which_role_may(nobody, viewer, operator, fabric_intent):
    """Issue #30 point 10: a 403 is a page naming what was refused, the user's role and the roles that may do it."""
    page = nobody.get("/")
    assert page.status_code == 403
    text = page.content.decode()
    assert "Not allowed" in text and "read Fabric Twin" in text
    assert "the viewer, operator and admin roles grant" in text and ">none<" in text  # the user's role: none
    refused = viewer.post("/rollouts/new/", {"intent": INTENT, "target": "twin"})
    assert refused.status_code == 403
    body = refused.content.decode()
    assert "operate_fabric" in body and "the operator and admin roles grant" in body and ">viewer<" in body
    production = operator.post("/rollouts/new/", {"intent": INTENT, "target": "production"})
    assert production.status_code == 403
    assert "create a production rollout" in production.content.decode()
    assert "the admin role grants" in production.content.decode()


def test_interface_search_takes_the_switch_port_form_findings_print(viewer, fabric_intent):
    """Issue #30 point 9: ``leaf1:Ethernet1`` (the form of every finding) finds that port, not every port whose
    name contains the text; a prefix after the colon lists the switch's ports that start with it."""
    interface = Interface.objects.filter(switch__hostname="leaf1").order_by("name").first()
    exact = viewer.get("/inventory/interfaces/", {"q": f"leaf1:{interface.name}"})
    assert exact.status_code == 200
    rows = re.findall(r'href="/inventory/interfaces/(\d+)/"', exact.content.decode())
    expected = set(Interface.objects.filter(switch__hostname="leaf1", name__istartswith=interface.name)
                   .values_list("pk", flat=True))
    assert {int(pk) for pk in rows} == expected and interface.pk in expected
    other = viewer.get("/inventory/interfaces/", {"q": f"spine1:{interface.name}"}).content.decode()
    assert str(interface.pk) not in re.findall(r'href="/inventory/interfaces/(\d+)/"', other)
    assert not re.findall(r'href="/inventory/interfaces/(\d+)/"',
                          viewer.get("/inventory/interfaces/", {"q": "leaf1:NoSuchPort"}).content.decode())


def test_findings_read_as_values_not_python(viewer, fabric_intent):
    """Issue #30 point 6: finding tables printed raw ``None`` and Python dicts, squeezed the message and kept the
    checks in a 10-row scroll box. Values are shown as an engineer reads them; the message comes first."""
    from ui.templatetags.ui_tags import shown

    assert shown(None) == shown("") == shown([]) == "—"
    assert shown({"mtu": 9214, "pfc": [3, 4]}) == "mtu 9214; pfc 3, 4"
    assert shown(True) == "yes" and shown(0) == "0" and shown("400G") == "400G"
    interface = Interface.objects.filter(switch__hostname="leaf1", cable__isnull=False).first()
    interface.cable.length_m = 5000
    interface.cable.save()
    page = viewer.get(f"/validation/{FABRIC}/").content.decode()
    table = page[page.index("<h2>Findings"):]
    rows = re.findall(r"<tr><td><span class=\"pill.*?</tr>", table, re.S)
    assert rows and all(">None<" not in row and "{'" not in row for row in rows)
    assert table.index("<th>Message</th>") < table.index("<th>Expected</th>")
    assert 'style="max-height:40vh"' not in page


def test_inventory_lists_are_in_natural_order_and_export_what_the_filters_select(viewer, fabric_intent):
    """Issue #30 point 9: leaf2 before leaf10 (not byte order), and every inventory table exports as CSV or YAML
    with the page's headers, all rows the filters select (not only the page)."""
    import csv
    import io

    import yaml

    from inventory.models import Switch

    leaf = Switch.objects.get(hostname="leaf1")
    leaf.pk, leaf.hostname, leaf.mgmt_ip, leaf.serial = None, "leaf10", None, "SN-leaf10"
    leaf.save()
    names = [row[0].text for row in viewer.get("/inventory/switches/?role=leaf").context["rows"]]
    assert names.index("leaf2") < names.index("leaf10") and names[0] == "leaf1"
    exported = viewer.get("/inventory/switches/?role=leaf&format=csv")
    assert exported["Content-Type"].startswith("text/csv")
    assert 'filename="switches.csv"' in exported["Content-Disposition"]
    table = list(csv.reader(io.StringIO(b"".join(exported.streaming_content).decode())))
    assert table[0][:3] == ["Hostname", "Role", "Fabric"] and [r[0] for r in table[1:]] == names
    as_yaml = yaml.safe_load(b"".join(viewer.get("/inventory/interfaces/?switch=leaf2&format=yaml").streaming_content))
    assert as_yaml and all(item["Switch"] == "leaf2" for item in as_yaml)
    ports = [item["Interface"] for item in as_yaml]
    assert ports == sorted(ports, key=natural_key)
    for url in ("/inventory/racks/", "/inventory/optics/", "/inventory/cables/", "/inventory/servers/"):
        response = viewer.get(url + "?format=csv")
        assert response.status_code == 200 and len(b"".join(response.streaming_content).splitlines()) > 1, url
    assert viewer.get("/inventory/switches/?format=xlsx").status_code == 400


def test_global_search_finds_every_kind_people_name(viewer, fabric_intent):
    """Issue #30 point 9: one search box (in the side bar of every page) across switches, servers, racks,
    interfaces (switch:port), cables, intents, tenants and networks, with counts and links."""
    assert 'action="/search/"' in viewer.get("/").content.decode()
    page = viewer.get("/search/", {"q": "leaf1"})
    assert page.status_code == 200
    groups = {kind: (count, [hit.text for hit in hits]) for kind, _, count, hits in page.context["groups"]}
    assert "leaf1" in groups["Switches"][1] and "Servers" not in groups
    interface = Interface.objects.filter(switch__hostname="leaf1").order_by("id").first()
    port = viewer.get("/search/", {"q": f"leaf1:{interface.name}"}).context["groups"]
    assert [kind for kind, *_ in port][0] == "Interfaces" and f"leaf1:{interface.name}" in [h.text for h in port[0][3]]
    assert viewer.get("/search/", {"q": INTENT}).context["groups"][0][0] == "Fabric intents"
    assert viewer.get("/search/", {"q": "no-such-thing-anywhere"}).context["groups"] == []
    assert viewer.get("/search/", {"q": "x" * 100_000}).status_code == 200  # bounded, never slow or a 500


def test_each_inventory_object_has_a_change_history_page(admin, viewer, fabric_intent):
    """Issue #30 point 9: a per-object change-history page from the audit trail, linked from its detail page."""
    from changes.audit import audit_actor
    from inventory.models import Switch

    switch = Switch.objects.get(hostname="leaf1")
    with audit_actor(admin.user):
        switch.os_version = "4.99.0F"
        switch.save()
    detail = viewer.get("/inventory/switches/leaf1/").content.decode()
    assert f'href="/history/inventory.switch/{switch.pk}/"' in detail
    page = viewer.get(f"/history/inventory.switch/{switch.pk}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "4.99.0F" in text and admin.user.username in text
    assert viewer.get(f"/history/auth.user/{admin.user.pk}/").status_code == 404  # only audited kinds


def test_configs_page_says_which_changes_the_twin_verifies_statically_only(operator, fabric_intent):
    """Issue #30 point 7: the configs page said "N changed" against the twin while the twin rollout said "no
    device has a diff". A native file that changed while the twin's FRR file of the switch is in sync is marked
    static-only on the twin, the count says so, and an empty twin rollout explains why."""
    from intents import services

    services.roce_defaults_apply(fabric_intent=fabric_intent)
    operator.post(f"/intents/{INTENT}/compile/")
    services.device_configs_mark_deployed(run=fabric_intent.compile_runs.latest("created"))
    lossless = fabric_intent.roce_classes.get(lossless=True)
    lossless.ecn_min_kb, lossless.ecn_max_kb = lossless.ecn_min_kb + 10, lossless.ecn_max_kb + 10
    lossless.save()
    operator.post(f"/intents/{INTENT}/compile/")
    listing = operator.get(f"/configs/{INTENT}/?target=device").content.decode()
    assert "(static-only on the twin)" in listing
    assert re.search(r"(\d+) of them only in what the twin verifies statically", listing)
    unchanged = operator.get(f"/configs/{INTENT}/?target=device&q=spine1").content.decode()
    assert "warning" in unchanged  # spines carry the class too: changed, static-only there as well
    from changes.models import Rollout

    empty = Rollout.objects.create(name="qos only", kind="canary_push", target="twin", state="succeeded",
                                   plan={"waves": [], "unchanged": ["leaf1"]}, policy={})
    assert "verified statically only" in operator.get(f"/rollouts/{empty.pk}/progress/").content.decode()
