"""A server on two fabrics (issue #30 point 9): its GPU NICs in the backend fabric, a frontend NIC cabled to a leaf
of the frontend fabric. Each fabric's snapshot has the server with the NICs cabled into it (the frontend one as a
guest, without the backend's rack), both compile with the server's port enabled, and the physical checks pass."""

import pytest

from compiler.api import compile_fabric
from compiler.clos import ClosParams
from compiler.model import FabricIntent, Management, Snapshot
from inventory.adapters import inventory_snapshot
from inventory.builder import fabric_build
from inventory.models import Cable, Interface, NicPort, Server
from validators.physical import physical_report

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_fabrics():
    fabric_build(params=ClosParams(name="be", spines=2, leaves=2, servers_per_leaf=1))
    fabric_build(params=ClosParams(name="fe", spines=2, leaves=2, servers_per_leaf=1, name_prefix="fe-"))
    server = Server.objects.get(name="gpu0001")
    frontend_nic = NicPort.objects.create(server=server, name="eth9", rail=0, speed_gbps=400)
    port = Interface.objects.filter(switch__hostname="fe-leaf1", cable__isnull=True,
                                    speed_gbps=400).order_by("id").first()
    cable = Cable.objects.create(label="gpu0001-frontend", cable_type="dac", length_m=2)
    NicPort.objects.filter(pk=frontend_nic.pk).update(cable=cable, cable_end="A")
    Interface.objects.filter(pk=port.pk).update(cable=cable, cable_end="B")
    return port


def test_the_server_is_in_both_snapshots_with_the_nics_cabled_into_each(two_fabrics):
    backend, frontend = inventory_snapshot("be"), inventory_snapshot("fe")
    in_backend = next(server for server in backend.servers if server.name == "gpu0001")
    assert "eth9" not in [nic.name for nic in in_backend.nics] and in_backend.rack is not None
    guest = next(server for server in frontend.servers if server.name == "gpu0001")
    assert [nic.name for nic in guest.nics] == ["eth9"] and guest.rack is None
    assert any({cable.a.device, cable.b.device} == {"gpu0001", "fe-leaf1"} for cable in frontend.cables)
    assert not any("fe-leaf1" in (cable.a.device, cable.b.device) for cable in backend.cables)
    for snapshot in (backend, frontend):
        report = physical_report(snapshot)
        assert report.ok, report.as_text()


def test_both_fabrics_compile_with_the_frontend_port_enabled(two_fabrics):
    frontend = inventory_snapshot("fe")
    intent = FabricIntent(name="fe", inventory_fabric="fe", management=Management(network="172.17.0.0/16"))
    result = compile_fabric(Snapshot(frontend, intent))
    port = next(item for item in result.structured["fe-leaf1"]["interfaces"] if item["name"] == two_fabrics.name)
    assert port["enabled"] and port["kind"] == "server"
    backend = compile_fabric(Snapshot(inventory_snapshot("be"), FabricIntent(name="be", inventory_fabric="be")))
    assert "gpu0001" in {server.name for server in inventory_snapshot("be").servers} and backend.structured
