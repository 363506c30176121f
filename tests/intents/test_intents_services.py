"""Services and storage: stable allocations when the fabric grows, database-enforced uniqueness, the snapshot
adapter's constant query count, renames/deletes of VNI owners, and the admin's shared validation."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from compiler.clos import ClosParams, plan_clos
from compiler.errors import IntentValidationError
from compiler.model import Endpoint
from intents import services
from intents.adapters import allocation_rows, allocations_from_rows, fabric_snapshot
from intents.admin import NetworkForm
from intents.models import Allocation, Network
from inventory.models import Switch

pytestmark = pytest.mark.django_db


def _rows(fabric_intent) -> dict:
    return {(kind, key): value for kind, key, value in
            Allocation.objects.filter(fabric_intent=fabric_intent).values_list("kind", "key", "value")}


def test_adding_leaves_moves_nothing_and_allocates_only_the_new_ones(fabric_intent, fabric_builder):
    run = services.compile_run_create(fabric_intent=fabric_intent, platforms=["eos"])
    assert run.status == "succeeded", run.error
    before = _rows(fabric_intent)
    assert before[("loopback", "spine1")] == "10.0.0.1" and before[("asn", "leaf1")] == "65100"

    fabric_builder(leaves=6)
    again = services.compile_run_create(fabric_intent=fabric_intent, platforms=["eos"])
    assert again.status == "succeeded" and again.device_count == 8
    after = _rows(fabric_intent)
    assert {key: after[key] for key in before} == before  # nothing moved
    grown = plan_clos(ClosParams(name="ref", leaves=6))
    new_cables = {cable.label for cable in grown.cables if {cable.a.device, cable.b.device} & {"leaf5", "leaf6"}
                  and not cable.a.device.startswith("gpu") and not cable.b.device.startswith("gpu")}
    expected_new = {("asn", "leaf5"), ("asn", "leaf6"), ("loopback", "leaf5"), ("loopback", "leaf6"),
                    ("vtep", "leaf5"), ("vtep", "leaf6")}
    expected_new |= {("p2p", f"{label}/{end}") for label in new_cables for end in "ab"}
    assert set(after) - set(before) == expected_new
    # and the new configs really use them
    leaf5 = again.device_configs.get(hostname="leaf5", platform="eos")
    assert leaf5.structured["asn"] == int(after[("asn", "leaf5")])


def test_sync_is_idempotent(fabric_intent):
    first = services.allocations_sync(fabric_intent=fabric_intent)
    assert first.created > 0
    second = services.allocations_sync(fabric_intent=fabric_intent)
    assert (second.created, second.updated) == (0, 0)


def test_database_rejects_colliding_allocations(fabric_intent):
    services.allocations_sync(fabric_intent=fabric_intent)
    leaf1_loopback = Allocation.objects.get(fabric_intent=fabric_intent, kind="loopback", key="leaf1").value
    cases = [
        Allocation(fabric_intent=fabric_intent, kind="vtep", key="ghost", value=leaf1_loopback, value_group="ipv4"),
        Allocation(fabric_intent=fabric_intent, kind="l3vni", key="ghost", value="10010", value_group="vni"),
        Allocation(fabric_intent=fabric_intent, kind="asn", key="ghost", value="65100", value_group="asn"),
        Allocation(fabric_intent=fabric_intent, kind="loopback", key="leaf1", value="10.0.3.250", value_group="ipv4"),
    ]
    for row in cases:
        with pytest.raises(IntegrityError), transaction.atomic():
            row.save()
    # shared ASNs are legal: the two spines of plane 0 both hold the spine ASN
    spine_asns = set(Allocation.objects.filter(fabric_intent=fabric_intent, kind="asn",
                                               key__startswith="spine").values_list("value", "value_group"))
    assert spine_asns == {("65000", "")}


def test_allocation_rows_round_trip(fabric_intent):
    allocations = services.allocations_sync(fabric_intent=fabric_intent).allocations
    rows = allocation_rows(allocations)
    assert allocations_from_rows((kind, key, value) for (kind, key), value in rows.items()) == allocations


def test_snapshot_costs_constant_queries(fabric_intent, fabric_builder):
    services.allocations_sync(fabric_intent=fabric_intent)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            fabric_snapshot(fabric_intent)
        return len(queries)

    small = count()
    fabric_builder(leaves=8)
    services.allocations_sync(fabric_intent=fabric_intent)
    tenant = fabric_intent.tenants.get()
    for vlan in range(20, 26):
        network = services.network_create(tenant=tenant, name=f"net{vlan}", vlan_id=vlan,
                                          subnet=f"10.{vlan}.0.0/24", leaves=Switch.objects.filter(role="leaf")[:3])
        assert network.pk
    assert count() == small


def test_snapshot_mirrors_the_intent(fabric_intent):
    network = fabric_intent.networks.get()
    services.intent_object_save(instance=network, many={
        "leaves": Switch.objects.filter(hostname__in=["leaf1", "leaf2"]),
        "attachments": network.attachments.model.objects.filter(server__name="gpu0001")})
    snapshot = fabric_snapshot(fabric_intent)
    (net10,) = snapshot.intent.networks
    assert net10.leaves == ("leaf1", "leaf2") and net10.attachments == (Endpoint("gpu0001", "eth0"),)
    (roce,) = snapshot.intent.roce_classes
    assert roce.dscp == (26,) and roce.lossless and roce.cnp_dscp == 48
    assert snapshot.intent.pools.loopback == "10.0.0.0/22" and snapshot.intent.bgp.maximum_paths == 64


def test_rename_keeps_the_vni_and_delete_releases_it(fabric_intent):
    tenant = fabric_intent.tenants.get()
    network = services.network_create(tenant=tenant, name="net20", vlan_id=20, subnet="10.20.0.0/24", l2vni=777)
    services.allocations_sync(fabric_intent=fabric_intent)
    services.intent_object_save(instance=network, values={"name": "storage"})
    assert _rows(fabric_intent)[("l2vni", "storage")] == "777"
    services.intent_object_save(instance=network, values={"l2vni": 778})  # explicit VNI changes are applied
    assert services.allocations_sync(fabric_intent=fabric_intent).updated == 1
    assert _rows(fabric_intent)[("l2vni", "storage")] == "778"
    services.intent_object_delete(instance=network)
    assert ("l2vni", "storage") not in _rows(fabric_intent)
    # the VLAN and VNI are free again
    services.network_create(tenant=tenant, name="net20", vlan_id=20, subnet="10.20.0.0/24", l2vni=778)
    services.allocations_sync(fabric_intent=fabric_intent)


def test_service_rejects_and_rolls_back(fabric_intent):
    tenant = fabric_intent.tenants.get()
    with pytest.raises(IntentValidationError) as error:
        services.network_create(tenant=tenant, name="net20", vlan_id=20, subnet="10.10.0.0/25")
    assert "networks[net20].subnet" in error.value.as_dict()
    assert not Network.objects.filter(name="net20").exists()


def test_admin_form_runs_the_fabric_checks(fabric_intent):
    tenant = fabric_intent.tenants.get()
    bad = NetworkForm(data={"tenant": tenant.pk, "name": "net20", "vlan_id": 20, "subnet": "10.10.0.0/25"})
    assert not bad.is_valid()
    assert any("networks[net20].subnet" in message for message in bad.non_field_errors())
    assert not Network.objects.filter(name="net20").exists()
    good = NetworkForm(data={"tenant": tenant.pk, "name": "net20", "vlan_id": 20, "subnet": "10.20.0.0/24"})
    assert good.is_valid(), good.errors
    assert good.instance.pk is None  # the validation save was rolled back
    services.intent_object_save(instance=good.instance, many=good.many_values())
    assert Network.objects.filter(name="net20").exists()


def test_roce_defaults_validate_and_compile(fabric_intent):
    run = services.compile_run_create(fabric_intent=fabric_intent, devices=["leaf1"], platforms=["eos"])
    qos = run.device_configs.get().structured["qos"]
    assert qos["dscp_to_tc"] == {"26": 3, "48": 6}
    assert qos["lossless_priorities"] == [3]
    assert qos["cnp"] == {"dscp": 48, "priority": 6, "traffic_class": 6}
    (roce,) = qos["classes"]
    assert roce["ecn"] == {"min_bytes": 150 * 1024, "max_bytes": 1500 * 1024, "probability": 10}
