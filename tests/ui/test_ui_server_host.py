"""The server page shows each NIC beside its switch port with the hosts.* mismatches, and links the server's host
files for download (issue 31)."""

import pytest

from inventory.models import NicPort

pytestmark = pytest.mark.django_db


def test_server_page_shows_nics_beside_switch_ports_and_downloads(viewer, fabric_intent):
    page = viewer.get("/inventory/servers/gpu0001/").content.decode()
    assert "Host config" in page and "fabric intent uifab-intent" in page
    assert "NVIDIA ConnectX (mlx5)" in page and "leaf1:" in page and 'class="mismatch"' not in page
    assert "/inventory/servers/gpu0001/host/nic-qos.sh?intent=uifab-intent" in page
    download = viewer.get("/inventory/servers/gpu0001/host/nccl.env")
    assert download.status_code == 200 and b"NCCL_IB_TC=104" in download.content
    assert download["Content-Disposition"] == 'attachment; filename="gpu0001-nccl.env"'
    assert viewer.get("/inventory/servers/gpu0001/host/nope.sh").status_code == 404


def test_a_nic_speed_mismatch_is_highlighted(viewer, fabric_intent):
    nic = NicPort.objects.get(server__name="gpu0001", name="eth0")
    nic.speed_gbps = 200  # the inventory now says 200G on a 400G switch port
    nic.save()
    page = viewer.get("/inventory/servers/gpu0001/").content.decode()
    assert 'class="mismatch"' in page and "hosts.speed" in page
