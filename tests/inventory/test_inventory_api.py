"""REST API: CRUD for every inventory model through the generic mixins, plus cables, deletes and the build action."""

import json
import threading
import time

import pytest
from api_testing import APIViewTestMixin
from django.urls import reverse

from inventory.models import (
    Cable,
    Fabric,
    FabricBuild,
    Interface,
    NicPort,
    Optic,
    Platform,
    Rack,
    Server,
    Site,
    Switch,
    SwitchModel,
)

pytestmark = pytest.mark.django_db


# ------------------------------------------------------------------------------------------- object factories


def site(name="dc1"):
    return Site.objects.get_or_create(name=name)[0]


def fabric(name="fab"):
    return Fabric.objects.get_or_create(name=name, defaults={"site": site()})[0]


def rack(name="r1"):
    return Rack.objects.get_or_create(site=site(), name=name, defaults={"fabric": fabric(), "power_budget_kw": 20})[0]


def switch_model(name="T4-64"):
    return SwitchModel.objects.get_or_create(name=name, defaults={
        "vendor": "Test", "port_count": 64, "max_speed_gbps": 400, "form_factor": "QSFP-DD",
        "breakout_modes": ["1x400G", "4x100G"], "typical_power_w": 800})[0]


def platform(slug="eos"):
    return Platform.objects.get_or_create(slug=slug, defaults={"name": slug.upper()})[0]


def switch(hostname="leaf1", role="leaf"):
    return Switch.objects.get_or_create(hostname=hostname, defaults={
        "fabric": fabric(), "role": role, "model": switch_model(), "platform": platform(), "rack": rack()})[0]


def interface(hostname="leaf1", name="Ethernet1", role="leaf"):
    return Interface.objects.get_or_create(switch=switch(hostname, role), name=name, defaults={"speed_gbps": 400})[0]


def server(name="gpu1"):
    return Server.objects.get_or_create(name=name, defaults={"fabric": fabric(), "rack": rack(), "power_w": 10200})[0]


def nic_port(server_name="gpu1", name="eth0"):
    return NicPort.objects.get_or_create(server=server(server_name), name=name,
                                         defaults={"rail": 0, "speed_gbps": 400})[0]


# ------------------------------------------------------------------------------------------- per-model tests


class TestSiteAPI(APIViewTestMixin):
    basename, model = "site", Site
    update_data = {"description": "hall 2"}
    bad_data, bad_field = {"name": ""}, "name"

    def make(self, index):
        return Site.objects.create(name=f"site{index}")

    def create_data(self):
        return {"name": "new-site"}

    def duplicate_of(self, obj):
        return {"name": obj.name}


class TestFabricAPI(APIViewTestMixin):
    basename, model = "fabric", Fabric
    update_data = {"description": "GPU pod 1"}
    bad_data, bad_field = {"site": 999999}, "site"

    def make(self, index):
        return Fabric.objects.create(name=f"fab{index}", site=site())

    def create_data(self):
        return {"name": "pod1", "site": site().pk}

    def duplicate_of(self, obj):
        return {"name": obj.name, "site": obj.site_id}


class TestRackAPI(APIViewTestMixin):
    basename, model = "rack", Rack
    update_data = {"power_budget_kw": 35.0}
    bad_data, bad_field = {"height_u": 0}, "height_u"

    def make(self, index):
        return Rack.objects.create(site=site(), fabric=fabric(), name=f"rack{index}")

    def create_data(self):
        return {"site": site().pk, "fabric": fabric().pk, "name": "r-new", "height_u": 48, "power_budget_kw": 40}

    def duplicate_of(self, obj):
        return {"site": obj.site_id, "name": obj.name}


class TestSwitchModelAPI(APIViewTestMixin):
    basename, model = "switchmodel", SwitchModel
    update_data = {"typical_power_w": 900.0}
    bad_data, bad_field = {"breakout_modes": ["two by 400"]}, "breakout_modes"

    def make(self, index):
        return switch_model(f"M{index}")

    def create_data(self):
        return {"vendor": "Arista", "name": "DCS-7060X6-64PE", "port_count": 64, "max_speed_gbps": 800,
                "form_factor": "OSFP", "breakout_modes": ["1x800G", "2x400G"], "buffer_mb": 165}

    def duplicate_of(self, obj):
        return {"vendor": "x", "name": obj.name, "port_count": 1, "max_speed_gbps": 1, "form_factor": "OSFP"}


class TestPlatformAPI(APIViewTestMixin):
    basename, model = "platform", Platform
    update_data = {"netmiko_device_type": "arista_eos"}
    bad_data, bad_field = {"slug": "junos"}, "slug"

    def make(self, index):
        return platform(["eos", "sonic", "frr"][index % 3]) if index < 3 else Platform.objects.first()

    def create_data(self):
        return {"slug": "sonic", "name": "SONiC"}

    def duplicate_of(self, obj):
        return {"slug": obj.slug, "name": "again"}

    def test_list_paginates_with_a_constant_number_of_queries(self, api_client, django_assert_num_queries):
        platform("eos")  # only three platform slugs exist: compare one row with three
        url = self.list_url()
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as small:
            api_client.get(url)
        platform("sonic")
        platform("frr")
        with django_assert_num_queries(len(small.captured_queries)):
            assert len(api_client.get(url).data["results"]) == 3


class TestSwitchAPI(APIViewTestMixin):
    basename, model = "switch", Switch
    update_data = {"status": "active", "os_version": "4.32.2F"}
    bad_data, bad_field = {"u_position": 99}, "u_position"

    def make(self, index):
        return switch(f"sw{index}")

    def create_data(self):
        return {"fabric": fabric().pk, "hostname": "spine9", "role": "spine", "model": switch_model().pk,
                "platform": platform().pk, "rack": rack().pk, "u_position": 40, "mgmt_ip": "10.9.0.1"}

    def duplicate_of(self, obj):
        return {**self.create_data(), "hostname": obj.hostname}

    def test_duplicate_management_ip_and_serial_are_400(self, api_client):
        Switch.objects.filter(pk=switch("a").pk).update(mgmt_ip="10.9.9.9", serial="SER1")
        response = api_client.post(self.list_url(), {**self.create_data(), "mgmt_ip": "10.9.9.9", "serial": "SER1"},
                                   format="json")
        assert response.status_code == 400
        assert "mgmt_ip" in response.data and "serial" in str(response.data)


class TestInterfaceAPI(APIViewTestMixin):
    basename, model = "interface", Interface
    update_data = {"description": "to spine1", "mtu": 9000}
    bad_data, bad_field = {"mtu": 20000}, "mtu"

    def make(self, index):
        return interface("leaf1", f"Ethernet{index + 1}")

    def create_data(self):
        return {"switch": switch().pk, "name": "Ethernet60/1", "speed_gbps": 100, "breakout_parent": "Ethernet60",
                "lane": 1}

    def duplicate_of(self, obj):
        return {"switch": obj.switch_id, "name": obj.name, "speed_gbps": 400}

    def test_lane_without_breakout_parent_is_400(self, api_client):
        response = api_client.post(self.list_url(), {"switch": switch().pk, "name": "Ethernet61", "speed_gbps": 400,
                                                      "lane": 2}, format="json")
        assert response.status_code == 400 and "lane" in response.data

    def test_speed_above_the_model_maximum_is_400(self, api_client):
        response = api_client.post(self.list_url(), {"switch": switch().pk, "name": "Ethernet62", "speed_gbps": 800},
                                   format="json")
        assert response.status_code == 400 and "speed_gbps" in response.data


class TestOpticAPI(APIViewTestMixin):
    basename, model = "optic", Optic
    update_data = {"serial": "NEW-SERIAL"}
    bad_data, bad_field = {"nic_port": None, "interface": None, "speed_gbps": 0}, "speed_gbps"

    def make(self, index):
        return Optic.objects.create(interface=interface("leaf1", f"Ethernet{index + 1}"), form_factor="QSFP-DD",
                                    media="400G-DR4", speed_gbps=400, reach_m=500, serial=f"O{index}")

    def create_data(self):
        return {"interface": interface("leaf1", "Ethernet40").pk, "form_factor": "QSFP-DD", "media": "400G-FR4",
                "speed_gbps": 400, "reach_m": 2000}

    def duplicate_of(self, obj):
        return {**self.create_data(), "interface": obj.interface_id}

    def test_optic_in_an_interface_and_a_nic_at_once_is_400(self, api_client):
        body = {**self.create_data(), "nic_port": nic_port().pk}
        response = api_client.post(self.list_url(), body, format="json")
        assert response.status_code == 400, response.data


class TestServerAPI(APIViewTestMixin):
    basename, model = "server", Server
    update_data = {"power_w": 11000.0}
    bad_data, bad_field = {"power_w": -5}, "power_w"

    def make(self, index):
        return server(f"gpu{index}")

    def create_data(self):
        return {"fabric": fabric().pk, "name": "gpu-new", "rack": rack().pk, "u_position": 1, "gpu_count": 8,
                "power_w": 10200}

    def duplicate_of(self, obj):
        return {**self.create_data(), "name": obj.name}


class TestNicPortAPI(APIViewTestMixin):
    basename, model = "nicport", NicPort
    update_data = {"mtu": 4200}
    bad_data, bad_field = {"speed_gbps": 123}, "speed_gbps"

    def make(self, index):
        return nic_port("gpu1", f"eth{index}")

    def create_data(self):
        return {"server": server().pk, "name": "eth7", "rail": 7, "speed_gbps": 400}

    def duplicate_of(self, obj):
        return {"server": obj.server_id, "name": obj.name, "rail": 0, "speed_gbps": 400}


class TestCableAPI(APIViewTestMixin):
    basename, model = "cable", Cable
    update_data = {"length_m": 5.0, "status": "connected"}
    bad_data, bad_field = {"length_m": -1}, "length_m"

    def make(self, index):
        cable = Cable.objects.create(label=f"C{index}", cable_type="smf", length_m=10)
        a = interface("leaf1", f"Ethernet{index + 1}")
        b = interface("spine1", f"Ethernet{index + 1}", role="spine")
        Interface.objects.filter(pk=a.pk).update(cable=cable, cable_end="A")
        Interface.objects.filter(pk=b.pk).update(cable=cable, cable_end="B")
        return cable

    def create_data(self):
        return {"label": "NEW", "cable_type": "smf", "length_m": 3.0,
                "a_interface": interface("leaf1", "Ethernet50").pk, "b_nic_port": nic_port().pk}

    def duplicate_of(self, obj):
        return {**self.create_data(), "label": obj.label}

    def test_create_connects_both_ends(self, api_client):
        response = api_client.post(self.list_url(), self.create_data(), format="json")
        assert response.status_code == 201, response.data
        assert response.data["a_end"] == "leaf1:Ethernet50" and response.data["b_end"] == "gpu1:eth0"
        assert response.data["b_nic_port"] == {"id": nic_port().pk, "url": f"http://testserver/api/nic-ports/{nic_port().pk}/",
                                               "display": "gpu1:eth0", "name": "eth0"}
        assert response.data["a_nic_port"] is None and response.data["a_interface"]["display"] == "leaf1:Ethernet50"
        assert NicPort.objects.get(pk=nic_port().pk).cable_end == "B"

    def test_a_port_already_cabled_is_400(self, api_client):
        existing = self.make(0)
        taken = existing.interfaces.get(cable_end="A")
        response = api_client.post(self.list_url(), {**self.create_data(), "a_interface": taken.pk}, format="json")
        assert response.status_code == 400 and "a_interface" in response.data
        assert "already in cable C0" in str(response.data)

    def test_both_ends_on_one_device_is_400(self, api_client):
        body = {**self.create_data(), "b_nic_port": None, "b_interface": interface("leaf1", "Ethernet51").pk}
        response = api_client.post(self.list_url(), body, format="json")
        assert response.status_code == 400 and "same device" in str(response.data)

    def test_missing_end_is_400(self, api_client):
        body = {"label": "X", "cable_type": "dac", "length_m": 1, "a_interface": interface().pk}
        response = api_client.post(self.list_url(), body, format="json")
        assert response.status_code == 400 and "b_interface" in response.data

    def test_deleting_a_cable_unplugs_its_ports(self, api_client):
        cable = self.make(0)
        assert api_client.delete(self.detail_url(cable)).status_code == 204
        assert not Interface.objects.filter(cable_end__in=["A", "B"]).exists()

    def test_moving_an_end_through_the_api(self, api_client):
        cable = self.make(0)
        body = {"a_interface": interface("leaf1", "Ethernet30").pk, "b_interface": cable.interfaces.get(cable_end="B").pk}
        response = api_client.patch(self.detail_url(cable), body, format="json")
        assert response.status_code == 200, response.data
        assert response.data["a_end"] == "leaf1:Ethernet30"
        assert Interface.objects.get(switch__hostname="leaf1", name="Ethernet1").cable is None


# ------------------------------------------------------------------------------------------- cross-cutting


def test_deleting_a_switch_model_in_use_is_400(api_client):
    model = switch().model
    response = api_client.delete(reverse("switchmodel-detail", kwargs={"pk": model.pk}))
    assert response.status_code == 400 and "still in use by" in str(response.data)


def test_filters_and_search(api_client):
    switch("spine1", "spine")
    switch("leaf1", "leaf")
    response = api_client.get(reverse("switch-list"), {"role": "spine"})
    assert [row["hostname"] for row in response.data["results"]] == ["spine1"]
    response = api_client.get(reverse("switch-list"), {"search": "leaf"})
    assert [row["hostname"] for row in response.data["results"]] == ["leaf1"]
    response = api_client.get(reverse("switch-list"), {"fabric": "not-a-number"})
    assert response.status_code == 400


def test_build_action_runs_the_builder_task(api_client):
    body = {"name": "api-fab", "spines": 2, "leaves": 2, "servers_per_leaf": 2, "platform": "sonic"}
    response = api_client.post(reverse("fabric-build"), body, format="json")
    assert response.status_code == 202, response.data
    result = response.data["result"]
    assert result["switches"] == 4 and result["oversubscription"] == {"leaf1": 1.0, "leaf2": 1.0}
    assert Switch.objects.filter(fabric__name="api-fab").count() == 4
    build = FabricBuild.objects.get(pk=response.data["build"])  # recorded (in a worker too: test_inventory_worker)
    assert build.status == "succeeded" and build.fabric_name == "api-fab" and build.summary["switches"] == 4
    record = api_client.get(f"/api/fabric-builds/{build.pk}/")
    assert record.status_code == 200 and record.data["status"] == "succeeded"
    assert record.data["summary"]["switches"] == 4 and record.data["requested_by"] == "api-tester"
    again = api_client.post(reverse("fabric-build"), body, format="json")
    assert again.status_code == 202 and not any(again.data["result"]["created"].values())


def test_build_action_rejects_bad_parameters_with_field_errors(api_client):
    response = api_client.post(reverse("fabric-build"), {"name": "x", "spines": 0, "leaves": 2}, format="json")
    assert response.status_code == 400 and "spines" in response.data
    response = api_client.post(reverse("fabric-build"),
                               {"name": "x", "spines": 2, "leaves": 2, "model": "NOPE-1"}, format="json")
    assert response.status_code == 400 and "leaf_model" in response.data
    assert not Fabric.objects.filter(name="x").exists()
    assert not FabricBuild.objects.exists()  # refused before any record


def test_schema_and_docs_are_served(api_client):
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = json.loads(schema.content)["paths"]
    assert "/api/switches/" in paths and "/api/fabrics/build/" in paths
    assert api_client.get("/api/docs/").status_code == 200


def test_physical_report_endpoint_passes_then_fails(api_client):
    from compiler.clos import ClosParams
    from inventory.builder import fabric_build

    fabric_build(params=ClosParams(name="phys", spines=2, leaves=2, servers_per_leaf=1, rack_power_budget_kw=60))
    url = reverse("fabric-physical", kwargs={"pk": Fabric.objects.get(name="phys").pk})
    report = api_client.get(url).data
    assert report["ok"] is True and report["counts"]["failed"] == 0
    cable = Cable.objects.filter(cable_type="dac").first()
    Cable.objects.filter(pk=cable.pk).update(length_m=50.0)  # far beyond any DAC reach
    report = api_client.get(url).data
    assert report["ok"] is False
    reach = next(check for check in report["checks"] if check["name"] == "physical.cable_reach")
    assert reach["status"] == "failed" and cable.label in reach["findings"][0]["message"]


def test_build_action_with_a_broker_answers_with_the_build_record(api_client, monkeypatch):
    """A broker accepts the task: 202 with the pending build record to poll; a broker that is down: 503 and the
    record is failed with the reason (never pending forever)."""

    class Queued:
        id = "celery-task-1"

    monkeypatch.setattr("inventory.api.views.fabric_build_task.delay", lambda build_id: Queued())
    body = {"name": "queued-fab", "spines": 2, "leaves": 2}
    response = api_client.post(reverse("fabric-build"), body, format="json")
    assert response.status_code == 202 and response.data["status"] == "pending"
    assert response["Location"].endswith(f"/api/fabric-builds/{response.data['build']}/")
    record = api_client.get(f"/api/fabric-builds/{response.data['build']}/").data
    assert record["status"] == "pending" and record["task_id"] == "celery-task-1" and record["fabric_name"] == "queued-fab"

    def broker_down(build_id):
        raise ConnectionError("Connection refused")

    monkeypatch.setattr("inventory.api.views.fabric_build_task.delay", broker_down)
    response = api_client.post(reverse("fabric-build"), body, format="json")
    assert response.status_code == 503
    build = FabricBuild.objects.get(pk=response.data["build"])
    assert build.status == "failed" and build.error.startswith("could not queue the fabric build: ConnectionError")
    assert not Fabric.objects.filter(name="queued-fab").exists()


def test_build_action_200g_builds_and_a_model_without_the_platform_is_a_400(api_client):
    body = {"name": "fab200", "spines": 2, "leaves": 2, "uplink_speed": 200, "downlink_speed": 200}
    response = api_client.post(reverse("fabric-build"), body, format="json")
    assert response.status_code == 202, response.data  # was a ValueError (500): no 200G media in the catalogue
    assert set(Interface.objects.filter(switch__fabric__name="fab200", optic__isnull=False)
               .values_list("speed_gbps", flat=True)) == {200}
    body = {"name": "sn", "spines": 2, "leaves": 2, "model": "SN5600", "downlink_speed": 100}
    response = api_client.post(reverse("fabric-build"), body, format="json")
    assert response.status_code == 400 and "it runs sonic" in str(response.data["leaf_model"])
    response = api_client.post(reverse("fabric-build"), {**body, "platform": "sonic"}, format="json")
    assert response.status_code == 400 and "--name-prefix" in str(response.data["switch"])  # same names: the fix
    response = api_client.post(reverse("fabric-build"), {**body, "platform": "sonic", "name_prefix": "sn-"},
                               format="json")
    assert response.status_code == 202, response.data
    assert Interface.objects.filter(switch__hostname="sn-leaf1", speed_gbps=100).count() == 4  # one 4x cage


@pytest.mark.django_db(transaction=True)
def test_build_answers_202_at_once_and_its_status_url_reaches_the_outcome(api_client, in_background, monkeypatch):
    """No broker: the build runs in a background thread after the request; the request does not wait for it."""
    from inventory.tasks import fabric_build_task

    gate = threading.Event()

    def held(build_id):  # the real task, once the test has seen the answer
        assert gate.wait(30), "the test never released the build"
        return fabric_build_task(build_id)

    monkeypatch.setattr("inventory.api.views.fabric_build_task", held)
    clock = time.perf_counter()
    response = api_client.post(reverse("fabric-build"), {"name": "bg", "spines": 2, "leaves": 2}, format="json")
    assert time.perf_counter() - clock < 10 and response.status_code == 202, response.data
    status_url = response.data["status_url"]
    assert response["Location"] == status_url and status_url.endswith(f"/api/fabric-builds/{response.data['build']}/")
    assert response.data["status"] == "pending" and api_client.get(status_url).data["status"] == "pending"
    gate.set()
    deadline = time.monotonic() + 60
    while (record := api_client.get(status_url).data)["status"] in ("pending", "running"):
        assert time.monotonic() < deadline, record
        time.sleep(0.1)
    assert record["status"] == "succeeded" and record["result"]["switches"] == 4, record
    assert Switch.objects.filter(fabric__name="bg").count() == 4


def test_build_in_the_request_also_answers_202_with_the_outcome(api_client):
    # FT_RUN_IN_BACKGROUND off (tests, debugging): same contract, the record is already final
    response = api_client.post(reverse("fabric-build"), {"name": "fg", "spines": 2, "leaves": 2}, format="json")
    assert response.status_code == 202 and response.data["status"] == "succeeded"
    assert response["Location"] == response.data["status_url"] and response.data["result"]["switches"] == 4
