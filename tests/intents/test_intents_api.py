"""The intents API: CRUD, every bad-intent case is a 400 naming the field with nothing saved, compile (sync and
Celery), rendered config, diff, archive, blast radius, RoCE defaults."""

import io
import tarfile
import time
import zipfile

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from intents.adapters import intent_snapshot
from intents.models import Allocation, CompileRun, DeviceConfig, FabricIntent, Network, RoceClass, Tenant
from inventory.models import Switch

pytestmark = pytest.mark.django_db


def _counts() -> dict:
    return {model.__name__: model.objects.count()
            for model in (FabricIntent, Tenant, Network, RoceClass, Allocation, CompileRun)}


def _fields(response) -> str:
    """Every error key of a 400 body, joined (field names are keys: 'vlan_id', 'networks[net20].l2vni')."""
    body = response.json()
    return " ".join(body) if isinstance(body, dict) else str(body)


def test_requires_authentication(client, fabric_intent):
    assert client.get("/api/fabric-intents/").status_code in (401, 403)


def test_crud_round_trip(api, fabric):
    response = api.post("/api/fabric-intents/", {"name": "prod", "fabric": fabric.name}, format="json")
    assert response.status_code == 201, response.json()
    intent_id = response.json()["id"]
    assert response.json()["underlay_mtu"] == 9214 and response.json()["host_mtu"] == 9000
    tenant = api.post("/api/tenants/", {"fabric_intent": intent_id, "name": "A", "vrf": "TENANT_A"}, format="json")
    assert tenant.status_code == 201, tenant.json()
    network = api.post("/api/networks/", {
        "tenant": tenant.json()["id"], "name": "net10", "vlan_id": 10, "subnet": "10.10.0.0/24",
        "gateway": "10.10.0.1", "leaves": ["leaf1", "leaf2"], "attachments": ["gpu0001:eth0"],
    }, format="json")
    assert network.status_code == 201, network.json()
    assert network.json()["leaves"] == ["leaf1", "leaf2"] and network.json()["attachments"] == ["gpu0001:eth0"]
    patched = api.patch(f"/api/networks/{network.json()['id']}/", {"subnet": "10.20.0.0/24",
                                                                    "gateway": "10.20.0.1"}, format="json")
    assert patched.status_code == 200, patched.json()
    assert api.delete(f"/api/networks/{network.json()['id']}/").status_code == 204
    assert not Network.objects.exists()


def test_network_list_costs_constant_queries(api, fabric_intent):
    tenant = fabric_intent.tenants.get()
    leaves = list(Switch.objects.filter(role="leaf"))

    def list_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert api.get("/api/networks/").status_code == 200
        return len(queries)

    few = list_queries()
    for vlan in range(20, 30):
        network = Network.objects.create(tenant=tenant, fabric_intent=fabric_intent, name=f"net{vlan}", vlan_id=vlan,
                                         subnet=f"10.{vlan}.0.0/24")
        network.leaves.set(leaves[:2])
    assert list_queries() == few


# Every bad intent the issue lists: (endpoint, payload builder, field expected in the 400 body).
BAD_NETWORKS = [
    ("vlan 0", {"vlan_id": 0}, "vlan_id"),
    ("vlan 4095", {"vlan_id": 4095}, "vlan_id"),
    ("l2vni above 24 bits", {"l2vni": 16777216}, "l2vni"),
    ("l2vni 0", {"l2vni": 0}, "l2vni"),
    ("overlapping subnet", {"subnet": "10.10.0.128/25", "gateway": "10.10.0.129"}, "networks[net20].subnet"),
    ("vlan reused with another vni", {"vlan_id": 10, "l2vni": 20010}, "vlan_id"),
    ("duplicate vni", {"l2vni": 10010}, "networks[net20].l2vni"),
    ("gateway outside subnet", {"gateway": "10.99.0.1"}, "gateway"),
    ("subnet inside an infrastructure pool", {"subnet": "10.0.0.0/24", "gateway": "10.0.0.1"},
     "networks[net20].subnet"),
    ("unknown leaf", {"leaves": ["spine1"]}, "networks[net20].leaves"),
]


@pytest.mark.parametrize(("case", "override", "field"), BAD_NETWORKS, ids=[case for case, _, _ in BAD_NETWORKS])
def test_bad_network_is_400_naming_the_field_and_nothing_saved(api, fabric_intent, case, override, field):
    before = _counts()
    payload = {"tenant": fabric_intent.tenants.get().pk, "name": "net20", "vlan_id": 20,
               "subnet": "10.20.0.0/24", "gateway": "10.20.0.1", **override}
    response = api.post("/api/networks/", payload, format="json")
    assert response.status_code == 400, response.content
    assert field in _fields(response), response.json()
    assert _counts() == before


BAD_ROCE = [
    ("dscp above 63", {"dscp": [64]}, "dscp"),
    ("priority above 7", {"priority": 8}, "priority"),
    ("traffic class above 7", {"traffic_class": 9}, "traffic_class"),
    ("ecn min above max", {"ecn_min_kb": 2000, "ecn_max_kb": 1500}, "ecn_min_kb"),
    ("second lossless class on priority 3 with other dscp", {"dscp": [24], "priority": 3, "traffic_class": 3},
     "].priority"),  # roce_classes[<one of the two>].priority
    ("dscp already mapped", {"dscp": [26]}, "].dscp"),
    # issue 13: a lossy storage class (DSCP 10, priority 3, TC 5) on the RoCE class's PFC priority 3
    ("lossy class on the roce priority", {"name": "storage", "priority": 3, "traffic_class": 5, "lossless": False,
                                          "ecn_min_kb": 0, "ecn_max_kb": 0, "ecn_mark_probability": 0},
     "roce_classes[storage].priority"),
    ("lossy class in the roce queue", {"traffic_class": 3, "lossless": False}, "roce_classes[bulk].traffic_class"),
]


@pytest.mark.parametrize(("case", "override", "field"), BAD_ROCE, ids=[case for case, _, _ in BAD_ROCE])
def test_bad_roce_class_is_400_naming_the_field_and_nothing_saved(api, fabric_intent, case, override, field):
    before = _counts()
    payload = {"fabric_intent": fabric_intent.pk, "name": "bulk", "dscp": [10], "priority": 1, "traffic_class": 1,
               "lossless": True, "ecn_min_kb": 100, "ecn_max_kb": 1000, "ecn_mark_probability": 5, **override}
    response = api.post("/api/roce-classes/", payload, format="json")
    assert response.status_code == 400, response.content
    assert field in _fields(response), response.json()
    assert _counts() == before


BAD_FABRIC = [
    ("loopback pool too small", {"loopback_pool": "10.0.0.0/30"}, "pools.loopback"),
    ("p2p pool too small", {"p2p_pool": "10.1.0.0/29"}, "pools.p2p"),
    ("leaf asn range too small", {"asn_first": 65100, "asn_last": 65101}, "pools.asn_first"),
    ("asn beyond 4 bytes", {"spine_asn": 4294967296}, "spine_asn"),
    ("asn range reversed", {"asn_first": 65200, "asn_last": 65100}, "asn_last"),
    ("l2vni base pushes vnis out of range", {"l2vni_base": 16777215}, "networks[net10].l2vni"),
    ("host mtu leaves no room for vxlan", {"host_mtu": 9200}, "host_mtu"),
    ("hold below 3x keepalive", {"bgp_keepalive_s": 10, "bgp_hold_s": 9}, "bgp_hold_s"),
    ("ntp server is neither an address nor a host name", {"ntp_servers": ["ntp..example"]}, "ntp_servers"),
    ("dns servers not a list", {"dns_servers": "192.0.2.53"}, "dns_servers"),
    ("management gateway outside its network", {"management_gateway": "10.9.9.1"}, "management_gateway"),
    ("aaa servers without a secret reference", {"aaa_servers": ["192.0.2.5"]}, "aaa_secret_ref"),
    ("secret reference that cannot stay one token", {"aaa_servers": ["192.0.2.5"],
                                                     "aaa_secret_ref": "vault:secret#1,2"}, "aaa_secret_ref"),
    ("switches outside the management network", {"management_network": "10.99.0.0/16"}, "].mgmt_ip"),
    ("NCCL QPs per connection beyond 64", {"nccl_qps_per_connection": 65}, "nccl_qps_per_connection"),
    ("unknown tier hashing", {"ecmp_tier_hashing": "per_switch"}, "ecmp_tier_hashing"),
    # the fixture's switches are Tomahawk/Trident (strata): no destination-QP UDF there (compiler.hardware)
    ("destination-QP hashing where the ASIC cannot", {"ecmp_dest_qp_hashing": True}, "dest_qp_hashing"),
    ("DLB, which no vendor schema we validate has", {"ecmp_dlb": True}, "dlb"),
    ("hashing roles that are no role", {"ecmp_roles": ["tor"]}, "ecmp_roles"),
]


@pytest.mark.parametrize(("case", "override", "field"), BAD_FABRIC, ids=[case for case, _, _ in BAD_FABRIC])
def test_bad_fabric_intent_is_400_naming_the_field_and_nothing_saved(api, fabric_intent, case, override, field):
    before = _counts()
    stored = FabricIntent.objects.values().get(pk=fabric_intent.pk)
    response = api.patch(f"/api/fabric-intents/{fabric_intent.pk}/", override, format="json")
    assert response.status_code == 400, response.content
    assert field in _fields(response), response.json()
    assert _counts() == before
    assert FabricIntent.objects.values().get(pk=fabric_intent.pk) == stored


def test_management_services_are_accepted_and_reach_the_compiler(api, fabric_intent):
    """The passing twin of the management cases: servers by address, AAA secret by reference only."""
    response = api.patch(f"/api/fabric-intents/{fabric_intent.pk}/", {
        "ntp_servers": ["192.0.2.10"], "syslog_servers": ["192.0.2.20"], "dns_servers": ["2001:db8::53"],
        "aaa_servers": ["192.0.2.5"], "aaa_secret_ref": "vault:secret/fabric/tacacs",
        "management_gateway": "172.16.0.254"}, format="json")
    assert response.status_code == 200, response.json()
    management = intent_snapshot(FabricIntent.objects.get(pk=fabric_intent.pk)).management
    assert management.ntp_servers == ("192.0.2.10",) and management.dns_servers == ("2001:db8::53",)
    assert management.gateway == "172.16.0.254" and management.aaa_secret_ref == "vault:secret/fabric/tacacs"


def test_nccl_qps_per_connection_is_accepted_and_reaches_the_host_env(api, fabric_intent):
    """The passing twin of the hashing cases: the QP count collective.bottleneck recommends, into nccl.env."""
    response = api.patch(f"/api/fabric-intents/{fabric_intent.pk}/", {"nccl_qps_per_connection": 16,
                                                                        "ecmp_roles": ["spine"]}, format="json")
    assert response.status_code == 200, response.json()
    hashing = intent_snapshot(FabricIntent.objects.get(pk=fabric_intent.pk)).ecmp_hashing
    assert hashing.qps_per_connection == 16 and hashing.roles == ("spine",)


def test_bad_tenant_l3vni_is_400(api, fabric_intent):
    response = api.post("/api/tenants/", {"fabric_intent": fabric_intent.pk, "name": "B", "vrf": "TENANT_B",
                                          "l3vni": 16777216}, format="json")
    assert response.status_code == 400 and "l3vni" in _fields(response)
    response = api.post("/api/tenants/", {"fabric_intent": fabric_intent.pk, "name": "B", "vrf": "TENANT_A"},
                        format="json")
    assert response.status_code == 400 and "vrf" in _fields(response)
    assert fabric_intent.tenants.count() == 1


@pytest.mark.parametrize("vrf", ["default", "MGMT", "all"])
def test_reserved_tenant_vrf_is_400_naming_field_and_value(api, fabric_intent, vrf):
    response = api.post("/api/tenants/", {"fabric_intent": fabric_intent.pk, "name": "B", "vrf": vrf}, format="json")
    assert response.status_code == 400
    # the model's name grammar (compiler.names, reserved VRF names) answers on the serializer's field
    assert "vrf" in _fields(response) and vrf in str(response.json()), response.json()
    assert fabric_intent.tenants.count() == 1  # nothing half-saved


def test_valid_second_class_is_accepted(api, fabric_intent):
    """The passing twin of the lossless-priority case: same DSCP set on another priority is fine."""
    response = api.post("/api/roce-classes/", {
        "fabric_intent": fabric_intent.pk, "name": "storage", "dscp": [24], "priority": 4, "traffic_class": 4,
        "lossless": True, "ecn_min_kb": 150, "ecn_max_kb": 1500, "ecn_mark_probability": 10}, format="json")
    assert response.status_code == 201, response.json()


def test_roce_defaults_action(api, fabric):
    intent = api.post("/api/fabric-intents/", {"name": "fresh", "fabric": fabric.name}, format="json").json()
    response = api.post(f"/api/fabric-intents/{intent['id']}/roce-defaults/")
    assert response.status_code == 201
    (roce,) = response.json()
    assert (roce["name"], roce["dscp"], roce["priority"], roce["lossless"]) == ("roce", [26], 3, True)
    assert (roce["ecn_min_kb"], roce["ecn_max_kb"], roce["ecn_mark_probability"]) == (150, 1500, 10)
    assert (roce["cnp_dscp"], roce["cnp_priority"]) == (48, 6)
    # idempotent: applying again resets, never duplicates
    assert api.post(f"/api/fabric-intents/{intent['id']}/roce-defaults/").status_code == 201
    assert RoceClass.objects.filter(fabric_intent_id=intent["id"]).count() == 1


def test_compile_sync_then_config_archive(api, fabric_intent):
    response = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {}, format="json")
    assert response.status_code == 201, response.json()
    run = response.json()
    assert run["status"] == "succeeded" and run["device_count"] == 6
    # EOS fabric: every switch renders its own platform plus frr for the twin
    assert DeviceConfig.objects.filter(run_id=run["id"]).count() == 12
    status = api.get(f"/api/compile-runs/{run['id']}/").json()
    assert status["status"] == "succeeded" and status["duration_s"] > 0

    config = api.get(f"/api/fabric-intents/{fabric_intent.pk}/config/", {"device": "leaf1", "platform": "eos"})
    assert config.status_code == 200
    assert "startup-config" in config.json()["files"] and config.json()["structured"]["hostname"] == "leaf1"
    text = api.get(f"/api/fabric-intents/{fabric_intent.pk}/config/",
                   {"device": "leaf1", "platform": "eos", "file": "startup-config"})
    assert text["Content-Type"].startswith("text/plain") and b"hostname leaf1" in text.content
    missing = api.get(f"/api/fabric-intents/{fabric_intent.pk}/config/", {"device": "leaf99"})
    assert missing.status_code == 400 and "device" in missing.json()

    expected = {f"ref-intent/{row.hostname}/{row.platform}/{name}"
                for row in DeviceConfig.objects.filter(run_id=run["id"]) for name in row.files}
    tar_response = api.get(f"/api/fabric-intents/{fabric_intent.pk}/archive/")
    assert tar_response.status_code == 200
    with tarfile.open(fileobj=io.BytesIO(b"".join(tar_response.streaming_content)), mode="r:gz") as archive:
        assert set(archive.getnames()) == expected
        leaf1 = archive.extractfile("ref-intent/leaf1/eos/startup-config").read().decode()
    assert leaf1 == DeviceConfig.objects.get(run_id=run["id"], hostname="leaf1", platform="eos").files[
        "startup-config"]
    zip_response = api.get(f"/api/compile-runs/{run['id']}/archive/", {"kind": "zip"})
    with zipfile.ZipFile(io.BytesIO(b"".join(zip_response.streaming_content))) as archive:
        assert set(archive.namelist()) == expected
    assert api.get(f"/api/compile-runs/{run['id']}/archive/", {"kind": "rar"}).status_code == 400


def test_compile_in_background_returns_run_id(api, fabric_intent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"background": True,
                                                                                  "platforms": ["frr"]},
                            format="json")
    assert response.status_code == 202
    assert response.json()["status"] == "pending"
    run = api.get(f"/api/compile-runs/{response.json()['id']}/").json()
    # Celery runs eagerly in tests (no broker): the task has finished by now
    assert run["status"] == "succeeded" and run["platforms"] == ["frr"]
    assert set(DeviceConfig.objects.filter(run_id=run["id"]).values_list("platform", flat=True)) == {"frr"}


def test_large_fabric_goes_to_celery(api, fabric_intent, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr("intents.api.views.SYNC_COMPILE_MAX_DEVICES", 6)  # the reference fabric has 6 switches
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {}, format="json")
    assert response.status_code == 202


def test_compile_failure_is_400_with_run(api, fabric_intent):
    # A request naming an unknown device is refused before a run exists: 400 naming the field, no garbage row.
    response = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"devices": ["leaf99"]}, format="json")
    assert response.status_code == 400
    assert "devices" in response.json() and "leaf99" in str(response.json())
    assert not CompileRun.objects.filter(fabric_intent=fabric_intent).exists()
    bad_platform = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"platforms": ["junos"]},
                            format="json")
    assert bad_platform.status_code == 400 and "platforms" in bad_platform.json()


def test_mark_deployed_takes_a_list_of_hostnames(api, fabric_intent):
    """The body is validated (issue 29: it was read unchecked, so "leaf1" marked the devices "l", "e", ...)."""
    run = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"platforms": ["eos"]}, format="json").json()
    for bad in ("leaf1", {"leaf1": 1}, [["leaf1"]]):
        refused = api.post(f"/api/compile-runs/{run['id']}/mark-deployed/", {"devices": bad}, format="json")
        assert refused.status_code == 400 and "devices" in refused.json(), bad
    assert api.post(f"/api/compile-runs/{run['id']}/mark-deployed/", {"devices": ["leaf1"]},
                    format="json").json() == {"deployed": 1}


def test_diff_after_intent_change_shows_expected_lines(api, fabric_intent):
    run = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"platforms": ["eos"]}, format="json").json()
    assert api.post(f"/api/compile-runs/{run['id']}/mark-deployed/", {}, format="json").json()["deployed"] == 6
    unchanged = api.get(f"/api/fabric-intents/{fabric_intent.pk}/diff/", {"platform": "eos", "changed_only": 1})
    assert unchanged.json()["count"] == 0
    network = fabric_intent.networks.get(name="net10")
    assert api.patch(f"/api/networks/{network.pk}/", {"leaves": ["leaf1"]}, format="json").status_code == 200
    diff = api.get(f"/api/fabric-intents/{fabric_intent.pk}/diff/",
                   {"device": "leaf2", "platform": "eos"}).json()["results"]
    (leaf2,) = diff
    assert leaf2["baseline"] == "deployed" and leaf2["baseline_run"] == run["id"]
    assert "\n-vlan 10\n" in leaf2["text"]
    assert any(change["path"] == "vlans[net10]" and change["new"] is None for change in leaf2["structured"])
    leaf1 = api.get(f"/api/fabric-intents/{fabric_intent.pk}/diff/",
                    {"device": "leaf1", "platform": "eos"}).json()["results"][0]
    # leaf1 keeps the network; only its flood list loses the other VTEPs (EVPN type-3 peers)
    assert [change["path"] for change in leaf1["structured"]] == ["vxlan.flood_lists.10010"]
    assert leaf1["structured"][0]["new"] == []


def test_blast_radius_of_adding_a_network(api, fabric_intent):
    tenant = fabric_intent.tenants.get()
    before = _counts()
    response = api.post(f"/api/fabric-intents/{fabric_intent.pk}/blast-radius/", {"changes": [{
        "op": "create", "object": "network",
        "data": {"tenant": tenant.pk, "name": "net30", "vlan_id": 30, "subnet": "10.30.0.0/24",
                 "gateway": "10.30.0.1", "leaves": ["leaf3"], "attachments": ["gpu0005:eth0"]},
    }]}, format="json")
    assert response.status_code == 200, response.json()
    radius = response.json()
    assert radius["devices"] == ["leaf3"]
    assert radius["networks"] == ["net30"] and radius["tenants"] == ["A"]
    assert radius["server_ports"] == ["leaf3:Ethernet1/1"]
    assert _counts() == before and not Network.objects.filter(name="net30").exists()


def test_blast_radius_rejects_bad_change_and_keeps_nothing(api, fabric_intent):
    tenant = fabric_intent.tenants.get()
    response = api.post(f"/api/fabric-intents/{fabric_intent.pk}/blast-radius/", {"changes": [{
        "op": "create", "object": "network",
        "data": {"tenant": tenant.pk, "name": "net30", "vlan_id": 4095, "subnet": "10.30.0.0/24"}}]},
        format="json")
    assert response.status_code == 400 and "changes[0].vlan_id" in response.json()
    assert not Network.objects.filter(name="net30").exists()


def test_growing_the_fabric_through_the_api_keeps_allocations(api, fabric_intent, fabric_builder):
    api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"platforms": ["eos"]}, format="json")
    first = set(Allocation.objects.values_list("kind", "key", "value"))
    fabric_builder(leaves=6)
    response = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"platforms": ["eos"]}, format="json")
    assert response.status_code == 201 and response.json()["device_count"] == 8
    assert first <= set(Allocation.objects.values_list("kind", "key", "value"))


ODD_PAYLOADS = [
    ("/api/networks/", {"tenant": 999999, "name": "x", "vlan_id": 5, "subnet": "10.5.0.0/24"}, "tenant"),
    ("/api/networks/", {"name": "x", "vlan_id": "ten", "subnet": "10.5.0.0/24"}, "vlan_id"),
    ("/api/networks/", {"name": "x", "vlan_id": 5, "subnet": "garbage"}, "subnet"),
    ("/api/networks/", {"name": "x", "vlan_id": 5, "subnet": "10.5.0.1/24"}, "subnet"),  # host bits set
    ("/api/networks/", {"name": "x", "vlan_id": 5, "subnet": "10.5.0.0/24", "gateway": "nope"}, "gateway"),
    ("/api/networks/", {"name": "x", "vlan_id": 5, "subnet": "10.5.0.0/24", "leaves": "leaf1"}, "leaves"),
    ("/api/networks/", {"name": "x", "vlan_id": 5, "subnet": "10.5.0.0/24", "attachments": ["gpu0001"]},
     "attachments"),
    ("/api/roce-classes/", {"name": "x", "dscp": ["a"], "priority": 1, "traffic_class": 1, "lossless": False},
     "dscp"),
    ("/api/roce-classes/", {"name": "x", "dscp": [], "priority": 1, "traffic_class": 1, "lossless": False}, "dscp"),
    ("/api/roce-classes/", {"name": "x", "dscp": [10, 10], "priority": 1, "traffic_class": 1, "lossless": False},
     "dscp"),
    ("/api/tenants/", {"name": "B", "vrf": "a-vrf-name-longer-than-15"}, "vrf"),
    ("/api/fabric-intents/", {"name": "y", "fabric": "no-such-fabric"}, "fabric"),
    ("/api/fabric-intents/", {"name": "y", "fabric": "ref", "loopback_pool": "10.0.0.1/22"}, "loopback_pool"),
    ("/api/fabric-intents/", {"name": "y", "fabric": "ref", "anycast_gateway_mac": "zz"}, "anycast_gateway_mac"),
]


@pytest.mark.parametrize(("url", "payload", "field"), ODD_PAYLOADS, ids=[f"{url}{field}" for url, _, field in ODD_PAYLOADS])
def test_odd_payloads_are_400_never_500(api, fabric_intent, url, payload, field):
    payload = dict(payload)
    if url == "/api/networks/":
        payload.setdefault("tenant", fabric_intent.tenants.get().pk)
    elif url in ("/api/roce-classes/", "/api/tenants/"):
        payload["fabric_intent"] = fabric_intent.pk
    before = _counts()
    response = api.post(url, payload, format="json")
    assert response.status_code == 400, response.content
    assert field in _fields(response), response.json()
    assert _counts() == before


def test_objects_cannot_move_between_intents(api, fabric_intent):
    other = api.post("/api/fabric-intents/", {"name": "other", "fabric": "ref"}, format="json").json()
    tenant = fabric_intent.tenants.get()
    response = api.patch(f"/api/tenants/{tenant.pk}/", {"fabric_intent": other["id"]}, format="json")
    assert response.status_code == 400 and "fabric_intent" in response.json()
    other_tenant = api.post("/api/tenants/", {"fabric_intent": other["id"], "name": "B", "vrf": "TENANT_B"},
                            format="json").json()
    network = fabric_intent.networks.get()
    response = api.patch(f"/api/networks/{network.pk}/", {"tenant": other_tenant["id"]}, format="json")
    assert response.status_code == 400 and "tenant" in response.json()


@pytest.mark.parametrize("url", ["/api/fabric-intents/", "/api/tenants/", "/api/roce-classes/", "/api/allocations/",
                                 "/api/compile-runs/", "/api/device-configs/"])
def test_lists_cost_constant_queries(api, fabric_intent, url):
    from intents import services

    def list_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert api.get(url).status_code == 200
        return len(queries)

    services.compile_run_create(fabric_intent=fabric_intent, platforms=["eos"])
    few = list_queries()
    services.tenant_create(fabric_intent=fabric_intent, name="B", vrf="TENANT_B")
    services.roce_class_create(fabric_intent=fabric_intent, name="bulk", dscp=[10], priority=1, traffic_class=1,
                               lossless=False)
    services.compile_run_create(fabric_intent=fabric_intent, platforms=["eos"])
    services.fabric_intent_create(fabric=fabric_intent.fabric, name="second")
    assert list_queries() == few


def test_deleting_a_fabric_intent_removes_its_records(api, fabric_intent):
    run = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"platforms": ["eos"]}, format="json").json()
    api.post(f"/api/compile-runs/{run['id']}/mark-deployed/", {}, format="json")
    # a deployed config pins its compile run ...
    assert api.delete(f"/api/compile-runs/{run['id']}/").status_code == 400
    # ... but deleting the whole intent takes everything with it
    assert api.delete(f"/api/fabric-intents/{fabric_intent.pk}/").status_code == 204
    assert _counts() == {"FabricIntent": 0, "Tenant": 0, "Network": 0, "RoceClass": 0, "Allocation": 0,
                         "CompileRun": 0}


def test_an_allocated_intent_cannot_switch_fabric(api, fabric_intent):
    from inventory.models import Fabric

    Fabric.objects.create(name="other", site=fabric_intent.fabric.site)
    api.post(f"/api/fabric-intents/{fabric_intent.pk}/allocate/")
    response = api.patch(f"/api/fabric-intents/{fabric_intent.pk}/", {"fabric": "other"}, format="json")
    assert response.status_code == 400 and "fabric" in response.json()
    assert FabricIntent.objects.get(pk=fabric_intent.pk).fabric.name == "ref"


def _polled(api, status_url: str) -> dict:
    deadline = time.monotonic() + 120
    while (record := api.get(status_url).json())["status"] in ("pending", "running"):
        assert time.monotonic() < deadline, record
        time.sleep(0.2)
    return record


@pytest.mark.django_db(transaction=True)
def test_compile_and_validate_answer_202_without_a_broker_and_their_status_urls_reach_the_outcome(
        api, fabric_intent, in_background):
    response = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"platforms": ["frr"]}, format="json")
    assert response.status_code == 202 and response["Location"] == response.json()["status_url"]
    assert response.json()["status"] == "pending"  # answered before the background thread compiled
    run = _polled(api, response.json()["status_url"])
    assert run["status"] == "succeeded" and run["device_count"] == 6, run
    response = api.post("/api/validation-runs/", {"fabric_intent": fabric_intent.pk, "compile_run": run["id"]},
                        format="json")
    assert response.status_code == 202 and response.json()["status_url"].endswith(
        f"/api/validation-runs/{response.json()['id']}/")
    validation = _polled(api, response.json()["status_url"])
    assert validation["status"] == "succeeded" and validation["compile_run"]["id"] == run["id"], validation
    # background: false asks for the work in the request: 201 with the outcome
    response = api.post(f"/api/fabric-intents/{fabric_intent.pk}/compile/", {"background": False,
                                                                              "platforms": ["frr"]}, format="json")
    assert response.status_code == 201 and response.json()["status"] == "succeeded"


def test_server_host_files_and_nic_vs_switch_port(api, fabric_intent):
    """Issue 31: a server's host files (per NIC family) and each NIC beside its switch port, from the API."""
    url = f"/api/fabric-intents/{fabric_intent.pk}/host/"
    response = api.get(url, {"server": "gpu0001"})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["model"] == "DGX-H100" and sorted(body["files"]) == [
        "mlxconfig.sh", "nccl.env", "netplan.yaml", "nic-configuration-template.yaml", "nic-qos.sh"]
    assert "mlnx_qos -i eth0 --trust dscp" in body["files"]["nic-qos.sh"]
    nic = body["nics"][0]
    assert nic["switch_port"] and nic["pfc_priorities"] == nic["switch_pfc_priorities"] == [3]
    assert nic["findings"] == [] and body["findings"] == []
    assert body["switch_source"] == "the current intent, compiled in memory"
    text = api.get(url, {"server": "gpu0001", "file": "nccl.env"})
    assert text.status_code == 200 and b"NCCL_IB_TC=104" in text.content
    assert text["Content-Disposition"] == 'attachment; filename="gpu0001-nccl.env"'
    for query, field in (({}, "server"), ({"server": "nope"}, "server"), ({"server": "gpu0001", "file": "x"}, "file")):
        bad = api.get(url, query)
        assert bad.status_code == 400 and field in bad.json(), (query, bad.json())


def test_server_model_picks_the_nic_family(db, django_user_model, fabric_intent):
    """Issue 31: the inventory's server model (compiler.nics.SERVER_MODELS) picks the host renderer's NIC family."""
    from django.contrib.auth.models import Group
    from rest_framework.test import APIClient

    from common.tokens import token_issue
    from inventory.models import Server

    user = django_user_model.objects.create_user(username="inventory-admin", password="x")
    user.groups.add(Group.objects.get(name="admin"))
    admin_api = APIClient()
    admin_api.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user)[0]}")

    server = Server.objects.get(name="gpu0001")
    bad = admin_api.patch(f"/api/servers/{server.pk}/", {"model": "DGX-9000"}, format="json")
    assert bad.status_code == 400 and "model" in bad.json() and "DGX-9000" in str(bad.json())
    ok = admin_api.patch(f"/api/servers/{server.pk}/", {"model": "XE9680-Thor2"}, format="json")
    assert ok.status_code == 200, ok.json()
    body = admin_api.get(f"/api/fabric-intents/{fabric_intent.pk}/host/", {"server": "gpu0001"}).json()
    assert body["model"] == "XE9680-Thor2" and "mlxconfig.sh" not in body["files"]
    assert "/sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/ecn_enable" in body["files"]["nic-qos.sh"]
    assert body["nics"][0]["family"] == "Broadcom Thor (bnxt_re)"
