"""5-stage Clos through the database: build (command and service), snapshot round trip with pods, growth by pods,
the RFC 7938 ASNs from the stored inventory, a refused size naming the field, and the same build through the API
(POST /api/fabrics/build/ with pods: recorded, tier oversubscription reported, 400 naming a bad field)."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from compiler.allocate import allocate
from compiler.clos import ClosParams
from compiler.model import FabricIntent
from compiler.pods import PodsParams, plan_pods
from inventory.adapters import inventory_snapshot
from inventory.api.serializers import clos_params_from
from inventory.builder import fabric_build_params, fabric_build_pods
from inventory.models import Cable, FabricBuild, Switch

pytestmark = pytest.mark.django_db

PODS = PodsParams(name="p5", pods=2, pod=ClosParams(name="p5", spines=2, leaves=2, servers_per_leaf=1))


def test_build_persists_pods_and_the_snapshot_equals_the_plan():
    result = fabric_build_pods(params=PODS)
    assert result.persisted.created["Switch"] == 2 + 2 * 4
    assert sorted(set(Switch.objects.values_list("pod", flat=True))) == [0, 1, 2]
    snapshot = inventory_snapshot("p5")
    assert snapshot == plan_pods(PODS)
    asns = allocate(snapshot, FabricIntent(name="p5", inventory_fabric="p5")).asns
    assert asns["pod1-spine1"] == asns["pod1-spine2"] != asns["pod2-spine1"] == asns["pod2-spine2"]


def test_growing_by_a_pod_only_adds():
    fabric_build_pods(params=PODS)
    cables = set(Cable.objects.values_list("label", flat=True))
    grown = fabric_build_pods(params=PodsParams(name="p5", pods=3, pod=PODS.pod))
    assert grown.persisted.created["Switch"] == 4
    assert cables <= set(Cable.objects.values_list("label", flat=True))
    assert fabric_build_pods(params=PodsParams(name="p5", pods=3, pod=PODS.pod)).persisted.changed is False


def test_command_builds_pods_and_reports_planes():
    out = io.StringIO()
    call_command("fabric_build", "--name", "c5", "--spines", "2", "--leaves", "2", "--servers-per-leaf", "1",
                 "--pods", "2", "--super-spine-links", "2", "--no-progress", stdout=out)
    text = out.getvalue()
    assert "fabric c5: 10 switches" in text
    assert "oversubscription per plane: plane1 1.00:1, plane2 1.00:1" in text


def test_command_refuses_too_many_pods_naming_the_field():
    with pytest.raises(CommandError, match="pods.*64"):
        call_command("fabric_build", "--name", "c5", "--spines", "2", "--leaves", "2", "--pods", "64",
                     "--no-progress", stdout=io.StringIO())


def test_api_builds_pods_records_them_and_reports_tiers(api_client):
    body = {"name": "api5", "spines": 2, "leaves": 2, "servers_per_leaf": 1, "pods": 2, "super_spine_links": 2}
    response = api_client.post(reverse("fabric-build"), body, format="json")
    assert response.status_code == 202, response.data  # tests run the build in the request: its result is in
    result = response.data["result"]
    assert result["switches"] == 2 + 2 * 4 and result["created"]["Switch"] == 10
    # spine: 2 leaves x 400G down, 2 links x 400G up to its plane's super-spine
    assert result["tier_oversubscription"]["plane"] == {"plane1": 1.0, "plane2": 1.0}
    assert result["tier_oversubscription"]["spine"]["pod1-spine1"] == 1.0
    build = FabricBuild.objects.get(pk=response.data["build"])
    assert build.params["pods"] == 2 and build.params["pod"]["spines"] == 2
    assert fabric_build_params(build) == PodsParams(name="api5", pods=2, super_spine_links=2,
                                                    pod=clos_params_from(body))
    assert inventory_snapshot("api5") == plan_pods(fabric_build_params(build))


@pytest.mark.parametrize("change, field", [
    ({"pods": -1}, "pods"), ({"pods": 64}, "pods"), ({"super_spines_per_plane": 0}, "super_spines_per_plane"),
    ({"super_spine_platform": "junos"}, "super_spine_platform"),
    ({"super_spines_per_plane": 64, "spines": 4}, "super_spines_per_plane"),  # planner: 256 > 250 super-spines
    ({"super_spine_model": "NOPE-1"}, "super_spine_model"),
    ({"pods": 40, "spines": 10, "leaves": 250, "servers_per_leaf": 0}, "pods"),  # 10,400 switches in one request
])
def test_api_refuses_bad_pods_parameters_naming_the_field(api_client, change, field):
    body = {"name": "bad5", "spines": 2, "leaves": 2, "servers_per_leaf": 1, "pods": 2, **change}
    response = api_client.post(reverse("fabric-build"), body, format="json")
    assert response.status_code == 400 and field in response.data, response.data
    assert not FabricBuild.objects.exists() and not Switch.objects.exists()


def test_a_second_5_stage_fabric_gets_its_own_names_and_free_management_pools():
    """Issue #30 point 4: super-spines took no prefix and a pods build kept the default management pools, so a
    second 5-stage fabric was refused (names) or overlapped the first's management addresses."""
    fabric_build_pods(params=PODS)
    second = PodsParams(name="q5", pods=2, pod=ClosParams(name="q5", spines=2, leaves=2, servers_per_leaf=1,
                                                           name_prefix="q-"))
    result = fabric_build_pods(params=second)
    assert result.notes == ("mgmt_pool 172.17.0.0/16 (172.16.0.0/16 is used by fabric p5)",
                            "server_mgmt_pool 172.21.0.0/16 (172.20.0.0/16 is used by fabric p5)")
    assert set(Switch.objects.filter(fabric__name="q5", role="super-spine").values_list("hostname", flat=True)) == {
        "q-superspine1", "q-superspine2"}
    first = {str(a).rsplit(".", 2)[0] for a in Switch.objects.filter(fabric__name="p5").values_list("mgmt_ip", flat=True)}
    again = {str(a).rsplit(".", 2)[0] for a in Switch.objects.filter(fabric__name="q5").values_list("mgmt_ip", flat=True)}
    assert first == {"172.16"} and again == {"172.17"}
    # Rebuilding the second keeps its pools (idempotent growth), nothing changes.
    assert fabric_build_pods(params=second).persisted.changed is False
