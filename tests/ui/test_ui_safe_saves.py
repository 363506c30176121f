"""Safe saves in the UI (issue #16 item 4): a refused create stays a create, and a tenant's NIC port cannot be
taken by another tenant's network."""

from intents import services as intent_services
from intents.models import Network
from inventory.models import NicPort

INTENT = "uifab-intent"  # as built by tests/ui/conftest.py


def test_a_refused_network_create_re_renders_as_a_create_without_delete(operator, fabric_intent):
    port = NicPort.objects.get(server__name="gpu0001", name="eth0")
    intent_services.intent_object_save(instance=fabric_intent.networks.get(name="net10"),
                                       many={"attachments": [port]})
    tenant_b = intent_services.tenant_create(fabric_intent=fabric_intent, name="B", vrf="TENANT_B")
    response = operator.post(f"/intents/{INTENT}/networks/new/", {
        "tenant": tenant_b.pk, "name": "net20", "vlan_id": 20, "subnet": "10.20.0.0/24", "gateway": "10.20.0.1",
        "attachments": [port.pk]})
    page = response.content.decode()
    assert response.status_code == 200
    assert "already an access port of network net10 of tenant A" in page
    assert "New network" in page and "Edit network" not in page and "Delete network" not in page
    assert not Network.objects.filter(name="net20").exists()
    # the same form without the taken port is a create that succeeds
    response = operator.post(f"/intents/{INTENT}/networks/new/", {
        "tenant": tenant_b.pk, "name": "net20", "vlan_id": 20, "subnet": "10.20.0.0/24", "gateway": "10.20.0.1"})
    assert response.status_code == 302 and Network.objects.filter(name="net20").exists()
