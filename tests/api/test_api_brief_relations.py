"""Relations in API responses are brief objects (NetBox's nested serializers): ``{"id", "url", "display"}`` plus
the natural name where the model has one, and each ``url`` answers 200. Writes take the id, ``{"id": N}`` or an
object of attributes matching one object; the OpenAPI schema describes the two shapes apart."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework import serializers

from changes.api.serializers import DriftRecordSerializer
from changes.api.urls import router as changes_router
from changes.api.views import DriftViewSet
from changes.models import ChangeSet, DriftRecord, Rollout
from common.api import BriefRelatedField
from compiler.clos import ClosParams
from intents import services as intent_services
from intents.api.serializers import NamedRelatedField, NicPortEndpointField
from intents.api.urls import router as intents_router
from intents.models import Allocation, CompileRun, DeviceConfig
from inventory.api.serializers import SwitchSerializer
from inventory.api.urls import router as inventory_router
from inventory.api.views import SwitchViewSet
from inventory.builder import fabric_build
from inventory.models import Fabric, Rack, Site
from twins.api.urls import router as twins_router
from twins.models import Twin, TwinOperation
from validation.api.urls import router as validation_router
from validation.models import ValidationRun

pytestmark = pytest.mark.django_db
ROUTERS = (inventory_router, intents_router, changes_router, twins_router, validation_router)
# Relations deliberately written and read by name (the way engineers name them), not by id.
NAMED = (NamedRelatedField, NicPortEndpointField, serializers.SlugRelatedField, serializers.StringRelatedField)


@pytest.fixture
def every_relation(db):
    """One small fabric and one record of each kind, every relation filled."""
    fabric_build(params=ClosParams(name="brief", spines=2, leaves=2, servers_per_leaf=1))
    intent = intent_services.fabric_intent_create(fabric=Fabric.objects.get(name="brief"), name="brief-intent")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                   gateway="10.10.0.1")
    intent_services.roce_defaults_apply(fabric_intent=intent)
    user = get_user_model().objects.create_user(username="brief-user")
    twin = Twin.objects.create(fabric_intent=intent, prefix="brieftw")
    for index in range(2):  # two rows of each: a relation read per row shows as more queries (N+1)
        Allocation.objects.create(fabric_intent=intent, kind="loopback", key=f"leaf{index}", value=f"10.0.0.{index}")
        run = CompileRun.objects.create(fabric_intent=intent, status="succeeded")
        DeviceConfig.objects.create(run=run, hostname="leaf1", platform="eos", files={}, structured={},
                                    sha256="0" * 64)
        ValidationRun.objects.create(fabric_intent=intent, compile_run=run, status="succeeded")
        change_set = ChangeSet.objects.create(name="cs", fabric_name="brief", compile_run_id=run.pk, created_by=user,
                                              twin=twin)
        Rollout.objects.create(name="r", kind="config", target="twin", change_set=change_set, started_by=user,
                               twin=twin)
        DriftRecord.objects.create(hostname=f"leaf{index}", change_set=change_set)
    twin.compile_run = run
    twin.save()
    for kind in ("up", "ping"):
        TwinOperation.objects.create(fabric="brief", kind=kind, twin=twin, prefix=twin.prefix, requested_by=user)


def _relation_fields(viewset) -> dict[str, serializers.RelatedField]:
    if viewset is DriftViewSet:  # a plain ViewSet: its list serializes DriftRecordSerializer
        serializer_class = DriftRecordSerializer
    else:
        serializer_class = viewset(action="list", request=None, format_kwarg=None, kwargs={}).get_serializer_class()
    found = {}
    for name, field in serializer_class().fields.items():
        child = field.child_relation if isinstance(field, serializers.ManyRelatedField) else field
        if isinstance(child, serializers.RelatedField):
            found[name] = child
    return found


def test_every_list_endpoint_gives_relations_as_brief_objects_whose_url_resolves(api_client, every_relation):
    checked, empty, resolved = set(), set(), {}
    for router in ROUTERS:
        for _prefix, viewset, basename in router.registry:
            with CaptureQueriesContext(connection) as one_row:
                assert api_client.get(reverse(f"{basename}-list"), {"limit": 1}).status_code == 200
            with CaptureQueriesContext(connection) as every_row:
                response = api_client.get(reverse(f"{basename}-list"))
            assert response.status_code == 200, (basename, response.data)
            assert len(every_row) == len(one_row), f"{basename}: queries grow with the rows (N+1)"
            rows = response.data["results"] if isinstance(response.data, dict) else response.data
            relations = {name: field for name, field in _relation_fields(viewset).items()
                         if not isinstance(field, NAMED)}
            assert not relations or rows, f"{basename}: the fixture must give this list a row"
            for name, field in relations.items():
                assert isinstance(field, BriefRelatedField), f"{basename}.{name} is a {type(field).__name__}"
                values = [row[name] for row in rows]
                values = [item for value in values for item in (value if isinstance(value, list) else [value])]
                for value in values:
                    if value is None:
                        continue
                    assert {"id", "url", "display"} <= set(value), (basename, name, value)
                    assert isinstance(value["id"], int) and value["display"], (basename, name, value)
                    assert value["url"].startswith("http://testserver/api/"), (basename, name, value)
                    if value["url"] not in resolved:
                        detail = api_client.get(value["url"])
                        resolved[value["url"]] = (detail.status_code, detail.data.get("id"))
                    assert resolved[value["url"]] == (200, value["id"]), (basename, name, value["url"])
                    checked.add((basename, name))
                if not any(value is not None for value in values):
                    empty.add((basename, name))
    # every brief relation of the API was seen filled at least once (the test checks something everywhere)
    assert empty - checked == {("cable", "b_nic_port")}  # the planner cables every server on the A end
    assert {("switch", "fabric"), ("switch", "rack"), ("cable", "a_interface"), ("cable", "a_nic_port"),
            ("network", "tenant"), ("deviceconfig", "run"), ("twin", "compile_run"), ("rollout", "change_set"),
            ("validationrun", "compile_run"), ("interface", "cable"), ("optic", "interface")} <= checked
    assert len(resolved) > 20


def test_brief_objects_carry_the_natural_name(api_client, every_relation):
    row = api_client.get(reverse("switch-list"), {"hostname": "leaf1"}).data["results"][0]
    assert row["fabric"]["name"] == "brief" and row["model"]["name"] == row["model"]["display"]
    change_set = api_client.get(reverse("changeset-list")).data["results"][0]
    assert change_set["created_by"] == "brief-user"  # users have no endpoint: their username


def test_writes_take_an_id_an_id_object_or_attributes_and_refuse_the_rest(api_client, db):
    site = Site.objects.create(name="s1")
    fabric = Fabric.objects.create(name="f1", site=site)
    url = reverse("rack-list")
    for index, ref in enumerate((site.pk, {"id": site.pk}, {"name": "s1"})):
        response = api_client.post(url, {"site": ref, "fabric": {"name": "f1"}, "name": f"r{index}"}, format="json")
        assert response.status_code == 201, response.data
        assert response.data["site"]["id"] == site.pk and response.data["fabric"]["id"] == fabric.pk
    # broken: an unknown attribute, no match, a nested value, an id that does not exist - a 400 naming the field
    for ref, message in (({"slug": "s1"}, "unknown attribute(s) slug"), ({"name": "nope"}, "no site matches"),
                         ({"name": {"a": 1}}, "strings or numbers"), (99999, "does not exist")):
        response = api_client.post(url, {"site": ref, "name": "bad"}, format="json")
        assert response.status_code == 400 and message in str(response.data["site"]), response.data
    assert Rack.objects.count() == 3


def test_schema_describes_brief_responses_and_id_or_object_requests(api_client):
    schema = json.loads(api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    components = schema["components"]["schemas"]
    assert components["BriefSite"]["required"] == ["id", "url", "display", "name"]
    switch_site = components["Switch"]["properties"]["fabric"]
    assert switch_site == {"$ref": "#/components/schemas/BriefFabric"} or \
        switch_site.get("allOf") == [{"$ref": "#/components/schemas/BriefFabric"}]
    request = components["SwitchRequest"]["properties"]["fabric"]
    assert [item["type"] for item in request["oneOf"]] == ["integer", "object"]


def test_a_bare_id_relation_is_caught(monkeypatch):
    # Broken case: a serializer that went back to bare ids is what the generic test refuses.
    assert isinstance(_relation_fields(SwitchViewSet)["fabric"], BriefRelatedField)
    monkeypatch.setattr(SwitchSerializer, "serializer_related_field", serializers.PrimaryKeyRelatedField)
    assert not isinstance(_relation_fields(SwitchViewSet)["fabric"], BriefRelatedField)
