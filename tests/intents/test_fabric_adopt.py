"""Adopting a running fabric through Django (intents/adopt.py): ``manage.py fabric_adopt`` and
``POST /api/fabrics/adopt/``. Everything saved in one transaction with the allocations pinned, carried lines put
back by every compile, a hostile or partial set a 400 / command error naming file and line with nothing saved."""

from __future__ import annotations

import io
import re
import tarfile
from pathlib import Path

import pytest
import yaml
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from compiler.adopt import adoption_plan, adoption_proof
from compiler.adopt.proof import _present
from compiler.api import compile_fabric
from compiler.scenario import snapshot_from_scenario
from intents.adapters import carried_blocks, stored_allocations
from intents.models import CarriedBlock, DeviceConfig, FabricIntent
from intents.services import compile_run_create
from inventory.models import Cable, Fabric, Switch

ROOT = Path(__file__).resolve().parents[2]
MIXED = ROOT / "tests" / "golden" / "mixed_eos_sonic" / "scenario.yaml"
EXTRA = "clock timezone Europe/Paris\n"  # a hand-added line no intent field expresses (and the model does not read)


@pytest.fixture(scope="module")
def mixed():
    snapshot = snapshot_from_scenario(yaml.safe_load(MIXED.read_text()))
    result = compile_fabric(snapshot)
    own = {switch.hostname: switch.platform for switch in snapshot.inventory.switches}
    configs = {host: dict(result.rendered[host][own[host]]) for host in result.rendered}
    configs["leaf1"]["startup-config"] = configs["leaf1"]["startup-config"].replace("\nend", "\n" + EXTRA + "end")
    return snapshot, result, configs


def _write(root: Path, configs: dict[str, dict[str, str]]) -> Path:
    for host, files in configs.items():
        (root / host).mkdir(parents=True)
        for name, text in files.items():
            (root / host / name).write_text(text)
    return root


def _tar(configs: dict[str, dict[str, str]]) -> io.BytesIO:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for host, files in configs.items():
            for name, text in files.items():
                data = text.encode()
                info = tarfile.TarInfo(f"{host}/{name}")
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    buffer.seek(0)
    buffer.name = "fabric.tar.gz"
    return buffer


def _nothing_saved(name: str) -> None:
    assert not Fabric.objects.filter(name=name).exists()
    assert not FabricIntent.objects.filter(name=name).exists()
    assert not CarriedBlock.objects.exists()


@pytest.mark.django_db
def test_command_adopts_pins_allocations_and_compiles_back_the_same(mixed, tmp_path):
    snapshot, result, configs = mixed
    out = io.StringIO()
    call_command("fabric_adopt", "--configs", str(_write(tmp_path / "set", configs)), "--name", "brown",
                 stdout=out)
    text = out.getvalue()
    assert "6 devices adopted, 8 cables inferred" in text and "semantic diff 0" in text
    assert "saved: fabric intent brown" in text
    fabric_intent = FabricIntent.objects.get(name="brown")
    assert Switch.objects.filter(fabric__name="brown").count() == 6
    assert Cable.objects.filter(interfaces__switch__fabric__name="brown").distinct().count() == 12
    stored = stored_allocations(fabric_intent)
    assert stored.asns == dict(result.allocations.asns)
    assert stored.loopbacks == dict(result.allocations.loopbacks)
    assert stored.vteps == dict(result.allocations.vteps)
    assert sorted(map(sorted, stored.p2p.values())) == sorted(map(sorted, result.allocations.p2p.values()))
    # The carried line is stored and every compile puts it back byte for byte.
    blocks = carried_blocks(fabric_intent)
    assert [block.text for block in blocks["leaf1"] if "Europe/Paris" in block.text] == [EXTRA.rstrip("\n")]
    run = compile_run_create(fabric_intent=fabric_intent)
    assert run.status == "succeeded", run.error
    leaf1 = DeviceConfig.objects.get(run=run, hostname="leaf1", platform="eos")
    assert all(_present(block, leaf1.files) for block in blocks["leaf1"])
    # Compiled from the database, the configs are exactly what the pure proof compiled (semantic diff 0 against
    # the adopted configs): the stored intent, pinned allocations and carried lines lose nothing.
    proof = adoption_proof(adoption_plan(configs, name="brown"))
    assert proof.semantic_diff == 0
    for host, device in proof.devices.items():
        platform = snapshot.inventory.switches_by_name[host].platform
        assert DeviceConfig.objects.get(run=run, hostname=host, platform=platform).files == device.files, host


@pytest.mark.django_db
def test_dry_run_saves_nothing(mixed, tmp_path):
    _, _, configs = mixed
    out = io.StringIO()
    call_command("fabric_adopt", "--configs", str(_write(tmp_path / "set", configs)), "--name", "dry", "--dry-run",
                 stdout=out)
    assert "dry run: nothing saved" in out.getvalue()
    _nothing_saved("dry")


@pytest.mark.django_db
def test_command_refuses_a_partial_set_naming_file_and_line(mixed, tmp_path):
    _, _, configs = mixed
    partial = {host: files for host, files in configs.items() if host != "spine1"}
    with pytest.raises(CommandError, match=r"startup-config:\d+ `neighbor 10\.1\.0\.\d+ .*partial config set"):
        call_command("fabric_adopt", "--configs", str(_write(tmp_path / "set", partial)), "--name", "part")
    _nothing_saved("part")


@pytest.mark.django_db
def test_command_netbox_url_needs_a_token_by_name(mixed, tmp_path, monkeypatch):
    """The NetBox join itself: tests/inventory/test_inventory_netbox_adopt.py."""
    _, _, configs = mixed
    monkeypatch.delenv("FT_NETBOX_TOKEN", raising=False)
    with pytest.raises(CommandError, match="--netbox-token-env=FT_NETBOX_TOKEN: the variable is not set"):
        call_command("fabric_adopt", "--configs", str(_write(tmp_path / "set", configs)), "--name", "nb",
                     "--netbox-url", "https://netbox.example")
    _nothing_saved("nb")


@pytest.mark.django_db
def test_api_adopts_an_uploaded_archive(api_client, mixed):
    _, _, configs = mixed
    response = api_client.post("/api/fabrics/adopt/", {"archive": _tar(configs), "name": "apifab"},
                               format="multipart")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["summary"]["semantic_diff"] == 0 and body["summary"]["carried_intact"]
    assert body["summary"]["devices"] == 6 and len(body["cables"]) == 8
    assert FabricIntent.objects.filter(name="apifab").exists()
    # The same name again: a 400 naming the field, nothing changed.
    again = api_client.post("/api/fabrics/adopt/", {"archive": _tar(configs), "name": "apifab"}, format="multipart")
    assert again.status_code == 400 and "name" in again.json()


@pytest.mark.django_db
def test_api_refuses_a_hostile_set_naming_file_and_line(api_client, mixed):
    _, _, configs = mixed
    hostile = {host: dict(files) for host, files in configs.items()}
    hostile["leaf3"]["startup-config"] = hostile["leaf3"]["startup-config"].replace(
        "   ip address 10.1.0.9/31", "   ip address 10.1.0.999/31")
    response = api_client.post("/api/fabrics/adopt/", {"archive": _tar(hostile), "name": "evil"}, format="multipart")
    assert response.status_code == 400
    assert re.search(r"device 'leaf3': startup-config:\d+ `ip address 10\.1\.0\.999/31`", response.json()["detail"])
    _nothing_saved("evil")
    partial = {host: files for host, files in configs.items() if host != "spine2"}
    response = api_client.post("/api/fabrics/adopt/", {"archive": _tar(partial), "name": "part"}, format="multipart")
    assert response.status_code == 400
    assert "partial config set" in response.json()["detail"]
    _nothing_saved("part")


@pytest.mark.django_db
def test_api_dry_run_answers_the_report(api_client, mixed):
    _, _, configs = mixed
    response = api_client.post("/api/fabrics/adopt/", {"archive": _tar(configs), "name": "look", "dry_run": "true"},
                               format="multipart")
    assert response.status_code == 200
    assert response.json()["dry_run"] is True
    # the hand-added NTP line, and the MMU headroom EOS states from cable lengths no config holds
    assert response.json()["devices"]["leaf1"]["carried_by_kind"] == {"clock": 1, "platform trident": 1}
    _nothing_saved("look")


def _ui_client(django_user_model, role: str) -> Client:
    user = django_user_model.objects.create_user(username=f"adopt-{role}", password="pw-not-used")
    user.groups.set([Group.objects.get(name=role)])
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_page_adopts_and_refuses_with_file_and_line(django_user_model, mixed):
    _, _, configs = mixed
    assert _ui_client(django_user_model, "viewer").get("/fabrics/adopt/").status_code == 403
    operator = _ui_client(django_user_model, "operator")
    assert operator.get("/fabrics/adopt/").status_code == 200
    dry = operator.post("/fabrics/adopt/", {"archive": _tar(configs), "name": "pagefab", "dry_run": "on"})
    assert dry.status_code == 200 and b"semantic diff 0" in dry.content and b"Dry run: nothing saved" in dry.content
    _nothing_saved("pagefab")
    partial = {host: files for host, files in configs.items() if host != "spine2"}
    refused = operator.post("/fabrics/adopt/", {"archive": _tar(partial), "name": "pagefab"})
    assert refused.status_code == 400 and b"partial config set" in refused.content
    _nothing_saved("pagefab")
    saved = operator.post("/fabrics/adopt/", {"archive": _tar(configs), "name": "pagefab"})
    assert saved.status_code == 200 and b"adopted: inventory, intent" in saved.content
    assert FabricIntent.objects.filter(name="pagefab").exists()


@pytest.mark.django_db
def test_a_public_avd_fabric_is_saved_and_compiles(tmp_path):
    """AVD's single-DC L3LS (upper-case hostnames, MLAG pairs, ports without speeds) through the whole service."""
    source = ROOT / "tests" / "data" / "corpus" / "avd" / "single-dc-l3ls"
    out = io.StringIO()
    call_command("fabric_adopt", "--configs", str(source), "--name", "avd-l3ls", stdout=out)
    assert "6 devices adopted" in out.getvalue() and "refused dc1-leaf1c dc1-leaf1c.cfg:18" in out.getvalue()
    fabric_intent = FabricIntent.objects.get(name="avd-l3ls")
    assert fabric_intent.asn_scheme == "per_rack"
    assert fabric_intent.ntp_servers == ["0.pool.ntp.org"]  # an NTP server by name is adopted, not carried
    assert (fabric_intent.bgp_keepalive_s, fabric_intent.bgp_hold_s) == (60, 180)  # EOS's default: none stated
    fabric_intent.full_clean()
    fabric_intent.ntp_servers = ["-0.pool.ntp.org"]
    with pytest.raises(ValidationError, match="not an IP address or a host name"):
        fabric_intent.full_clean()
    fabric_intent.refresh_from_db()
    run = compile_run_create(fabric_intent=fabric_intent)
    assert run.status == "succeeded", run.error
    blocks = carried_blocks(fabric_intent)
    for host, host_blocks in blocks.items():
        files = DeviceConfig.objects.get(run=run, hostname=host, platform="eos").files
        assert all(_present(block, files) for block in host_blocks), host


@pytest.mark.django_db
def test_a_bare_evpn_overlay_is_saved_and_compiled_back():
    """AVD's cv_deploy leaves run VXLAN with no VNI: the saved intent keeps evpn_overlay, so a compile of the
    saved fabric still gives every leaf its VXLAN interface (without it the overlay would be dropped)."""
    source = ROOT / "tests" / "data" / "corpus" / "avd" / "cv_deploy"
    call_command("fabric_adopt", "--configs", str(source), "--name", "cvd", stdout=io.StringIO())
    fabric_intent = FabricIntent.objects.get(name="cvd")
    assert fabric_intent.evpn_overlay
    run = compile_run_create(fabric_intent=fabric_intent)
    assert run.status == "succeeded", run.error
    leaf = "".join(DeviceConfig.objects.get(run=run, hostname="avd-ci-leaf1", platform="eos").files.values())
    assert "interface Vxlan1" in leaf and "vxlan source-interface Loopback1" in leaf
    assert "address-family evpn" in leaf
