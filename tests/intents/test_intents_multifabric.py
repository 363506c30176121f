"""Two fabrics in one inventory end to end (issue #16): the backend GPU fabric (examples/reference-fabric.yaml)
and its frontend/storage fabric (examples/frontend-fabric.yaml) build, apply, compile and validate side by side;
pools are picked free of the other fabric, and a pool that overlaps another fabric's is refused by field."""

from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.core.exceptions import ValidationError
from django.urls import reverse

from compiler.scenario import clos_params
from intents.models import Allocation, FabricIntent
from intents.services import allocations_sync, compile_run_create, fabric_intent_apply, fabric_intent_update
from inventory.builder import fabric_build
from twin.management.commands.demo import FRONTEND_SCENARIO, Command
from validation.services import validation_run_create

pytestmark = pytest.mark.django_db

EXAMPLES = Path(settings.BASE_DIR) / "examples"


def _scenario(name: str) -> dict:
    return yaml.safe_load((EXAMPLES / name).read_text())


def _build_and_apply(name: str) -> FabricIntent:
    data = _scenario(name)
    fabric_build(params=clos_params(data["clos"]))
    return fabric_intent_apply(data=data)


def test_backend_and_frontend_fabrics_compile_and_validate_side_by_side():
    backend = _build_and_apply("reference-fabric.yaml")
    frontend = _build_and_apply("frontend-fabric.yaml")
    assert (backend.loopback_pool, backend.vtep_pool, backend.p2p_pool) == ("10.0.0.0/22", "10.0.4.0/22",
                                                                            "10.1.0.0/16")
    # the defaults are taken by the backend: the frontend gets the first free prefixes of 10.0.0.0/8
    assert (frontend.loopback_pool, frontend.vtep_pool, frontend.p2p_pool) == ("10.0.8.0/22", "10.0.12.0/22",
                                                                               "10.2.0.0/16")
    assert (backend.management_network, frontend.management_network) == ("172.16.0.0/16", "172.17.0.0/16")
    for fabric_intent in (backend, frontend):
        run = compile_run_create(fabric_intent=fabric_intent)
        assert run.status == "succeeded", run.error
        validation = validation_run_create(fabric_intent=fabric_intent)
        assert validation.ok and validation.error_count == 0, [(f.check_name, f.subject, f.message) for f in validation.findings.filter(severity="error")][:5]
    # applying the same file again keeps every pool (idempotent)
    again = fabric_intent_apply(data=_scenario("frontend-fabric.yaml"))
    assert again.loopback_pool == "10.0.8.0/22" and again.p2p_pool == "10.2.0.0/16"


def test_a_pool_overlapping_another_fabrics_intent_is_refused_by_field():
    _build_and_apply("reference-fabric.yaml")
    frontend = _build_and_apply("frontend-fabric.yaml")
    with pytest.raises(ValidationError) as error:
        fabric_intent_update(fabric_intent=frontend, loopback_pool="10.0.0.0/24")
    message = error.value.message_dict["loopback_pool"][0]
    assert message == ("10.0.0.0/24 overlaps the pools of intent ref (fabric ref): give this fabric its own pool, "
                       "e.g. 10.0.8.0/24")  # free: this intent gives its old 10.0.8.0/22 up
    frontend.refresh_from_db()
    assert frontend.loopback_pool == "10.0.8.0/22"


def test_an_explicit_overlapping_pool_in_a_file_is_refused_naming_the_yaml_path():
    _build_and_apply("reference-fabric.yaml")
    data = _scenario("frontend-fabric.yaml")
    fabric_build(params=clos_params(data["clos"]))
    data["intent"]["pools"] = {"p2p": "10.1.0.0/16"}
    with pytest.raises(ValidationError) as error:
        fabric_intent_apply(data=data)
    assert "intent.p2p_pool" in error.value.message_dict
    assert not FabricIntent.objects.filter(name="fe").exists()


def test_intents_of_the_same_fabric_may_share_pools():
    backend = _build_and_apply("reference-fabric.yaml")
    variant = fabric_intent_apply(data={**_scenario("reference-fabric.yaml")["intent"], "name": "ref-b",
                                        "inventory_fabric": "ref"})
    assert variant.loopback_pool == backend.loopback_pool


def test_demo_builds_the_frontend_fabric_beside_the_reference(tmp_path):
    _build_and_apply("reference-fabric.yaml")
    command = Command()
    command.out_dir, command.context = tmp_path, {"frontend": str(FRONTEND_SCENARIO)}
    summary = command.step_frontend()
    assert summary.startswith("fabric fe: 4 switches, 8 servers; pools loopback 10.0.8.0/22, VTEP 10.0.12.0/22, "
                              "links 10.2.0.0/16, management 172.17.0.0/16; 4 devices compiled; all checks passed")
    assert (tmp_path / "configs" / "fe").is_dir()
    command.context = {"frontend": ""}
    assert command.step_frontend() == "skipped: --frontend ''"


def test_cross_fabric_identity_finds_an_address_in_two_fabrics(api):
    backend = _build_and_apply("reference-fabric.yaml")
    frontend = _build_and_apply("frontend-fabric.yaml")
    for fabric_intent in (backend, frontend):
        allocations_sync(fabric_intent=fabric_intent)
    response = api.get(reverse("fabricintent-identity"))
    assert response.status_code == 200
    assert response.json()["ok"] and response.json()["checks"][0]["status"] == "passed"
    # a duplicate the save checks cannot see (an allocation written directly, or data from before them)
    loopback = Allocation.objects.get(fabric_intent=backend, kind="loopback", key="spine1")
    Allocation.objects.filter(fabric_intent=frontend, kind="loopback", key="fe-spine1").update(value=loopback.value)
    report = api.get(reverse("fabricintent-identity")).json()
    assert not report["ok"]
    [finding] = report["checks"][0]["findings"]
    assert finding["message"] == (f"address {loopback.value} is used in 2 fabrics: loopback fe-spine1 of intent fe "
                                  f"(fe), loopback spine1 of intent ref (ref)")


def test_a_nic_port_of_tenant_a_cannot_be_attached_to_a_tenant_b_network(api):
    backend = _build_and_apply("reference-fabric.yaml")
    b_train = backend.networks.get(name="b-train")
    before = sorted(str(port) for port in b_train.attachments.all())
    url = reverse("network-detail", args=[b_train.pk])
    # gpu0001:eth0 is an access port of a-train (tenant A)
    response = api.patch(url, {"attachments": [*before, "gpu0001:eth0"], "version": b_train.version}, format="json")
    assert response.status_code == 400, response.json()
    assert "already an access port of network a-train of tenant A: detach it there first" in str(
        response.json()["networks[b-train].attachments"]), response.json()
    assert sorted(str(port) for port in b_train.attachments.all()) == before  # nothing saved
    # a port of the same tenant's other network is not this refusal's business
    a_storage = backend.networks.get(name="a-storage")
    response = api.patch(reverse("network-detail", args=[a_storage.pk]),
                         {"attachments": ["gpu0002:eth0", "gpu0004:eth0", "gpu0001:eth0"],
                          "version": a_storage.version}, format="json")
    assert response.status_code == 200, response.json()
