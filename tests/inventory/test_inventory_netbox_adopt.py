"""Issue 26's NetBox join of an adoption (inventory/netbox_adopt.py, fabric_adopt --netbox-url / --netbox-dump,
POST /api/fabrics/adopt/ netbox=true) against what real NetBox 4.4, 4.5 and 4.6 returned
(tests/inventory/fixtures/netbox-recorded*/). The running configs are the ones this project compiles from that
NetBox's inventory, so the two sources agree: every switch and cable is matched, the device types come from
NetBox, the proof stays at semantic diff 0. Then NetBox is made to disagree: a role, an ASN custom field, a cable
moved to another port are refused naming both sources, with nothing saved; a cable or a device one source lacks is
a warning and the rest is adopted."""

from __future__ import annotations

import copy
import io
import tarfile
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from fake_netbox import FakeNetbox

from compiler.adopt import AdoptionError, adoption_plan, adoption_proof
from compiler.api import compile_fabric
from compiler.errors import InputError
from compiler.model import FabricIntent, Snapshot
from intents.models import FabricIntent as FabricIntentRow
from inventory.models import Cable, Fabric, Switch
from inventory.netbox import load_dump, netbox_to_inventory
from inventory.netbox_adopt import REFUSE, WARN, adoption_netbox_join
from validators.physical import physical_report

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = {"4.4": FIXTURES / "netbox-recorded", "4.5": FIXTURES / "netbox-recorded-4.5",
            "4.6": FIXTURES / "netbox-recorded-4.6"}
TOKEN = "0123456789abcdef"
CABLES = {"4.4": 8, "4.5": 14, "4.6": 14}  # 4.5+: two profiled breakouts add six GPU links


def _configs(version: str, asn_scheme: str = "per_leaf") -> dict[str, dict[str, str]]:
    """The EOS configs this project compiles from the recorded NetBox's inventory (what such a fabric runs)."""
    inventory = netbox_to_inventory(load_dump(RECORDED[version]), fabric="ai").inventory
    result = compile_fabric(Snapshot(inventory, FabricIntent(name="ai", inventory_fabric="ai", asn_scheme=asn_scheme)),
                            ["eos"])
    return {host: dict(result.rendered[host]["eos"]) for host in result.rendered}


@pytest.fixture(scope="module", params=sorted(RECORDED))
def recorded(request):
    return request.param, _configs(request.param), load_dump(RECORDED[request.param])


def _cable(data: dict, label: str) -> dict:
    return next(cable for cable in data["cables"] if cable.get("label") == label)


def test_agreeing_sources_adopt_netbox_models_and_media_at_diff_0(recorded):
    version, configs, data = recorded
    plan = adoption_plan(configs, name="ai")
    joined = adoption_netbox_join(plan, data)
    assert joined.disagreements == []
    assert joined.sites == ["dc1"]
    assert joined.agreed["switches"] == joined.agreed["netbox_switches"] == len(plan.snapshot.inventory.switches)
    assert joined.agreed["cables"] == joined.agreed["netbox_cables"] == CABLES[version]
    switches = {switch.hostname: switch for switch in joined.plan.snapshot.inventory.switches}
    assert switches["leaf1"].model == "DCS-7060DX5-64S" and switches["spine2"].model == "DCS-7060DX5-64S"
    assert set(joined.plan.model_source.values()) == {"NetBox device type"}
    assert plan.model_source["leaf1"] != "NetBox device type"  # the configs alone could not say it
    cables = {str(cable.a) + " " + str(cable.b): cable for cable in joined.plan.snapshot.inventory.cables}
    patched = next(cable for key, cable in cables.items() if "leaf1:Ethernet63/1" in key)
    assert patched.length_m == 45.0 and patched.cable_type == "smf"  # the patch-panel run NetBox traces
    assert all(not cable.inferred and cable.evidence.startswith("NetBox cable ") for cable in joined.plan.cables)
    assert switches["leaf1"].rack == "R-001" and joined.agreed["racks"] >= 1
    assert joined.agreed["optics"] >= 10  # NetBox's transceivers in the ports and NICs the configs use
    assert physical_report(joined.plan.snapshot.inventory).ok  # media, reach and optics agree with each other
    assert adoption_proof(joined.plan).semantic_diff == 0


def test_per_rack_pairs_take_netbox_racks_only_when_they_pair_the_same_leaves():
    configs = _configs("4.6", asn_scheme="per_rack")
    data = load_dump(RECORDED["4.6"])
    plan = adoption_plan(configs, name="ai")
    assert plan.recognised["asn_scheme"] == "per rack pair"
    joined = adoption_netbox_join(plan, data)  # NetBox's R-001 holds leaf1 + leaf2, as their shared ASN says
    assert joined.disagreements == [] and joined.agreed["racks"] == 2
    assert {s.hostname: s.rack for s in joined.plan.snapshot.inventory.switches}["leaf2"] == "R-001"
    assert adoption_proof(joined.plan).semantic_diff == 0
    moved = copy.deepcopy(data)  # NetBox puts leaf2 in leaf3's rack: the ASN pairing says otherwise
    leaf2, leaf3 = (next(d for d in moved["devices"] if d["name"] == name) for name in ("leaf2", "leaf3"))
    leaf2["rack"] = leaf3["rack"]
    joined = adoption_netbox_join(plan, moved)
    assert [(item.kind, item.severity) for item in joined.disagreements] == [("rack", WARN)]
    assert "NetBox says racks leaf1; leaf2 + leaf3 + leaf4" in str(joined.disagreements[0])
    assert {s.hostname: s.rack for s in joined.plan.snapshot.inventory.switches}["leaf2"] == "rack-as65100"


def test_contradictions_are_refused_naming_both_sources(recorded):
    version, configs, data = recorded
    plan = adoption_plan(configs, name="ai")
    role = copy.deepcopy(data)
    leaf2 = next(device for device in role["devices"] if device["name"] == "leaf2")
    leaf2["role"] = {**leaf2["role"], "slug": "spine", "name": "Spine"}
    with pytest.raises(AdoptionError, match=r"role leaf2: NetBox says role spine; the configs say role leaf .*\(refused\)"):
        adoption_netbox_join(plan, role)
    asn = copy.deepcopy(data)
    leaf1 = next(device for device in asn["devices"] if device["name"] == "leaf1")
    leaf1["custom_fields"] = {**leaf1["custom_fields"], "asn": 64999}
    with pytest.raises(AdoptionError, match=r"asn leaf1: NetBox says custom field asn=64999; the configs say asn "
                                            r"65100"):
        adoption_netbox_join(plan, asn)
    same = copy.deepcopy(data)  # the value the config holds: agreed
    next(device for device in same["devices"] if device["name"] == "leaf1")["custom_fields"]["asn"] = 65100
    assert adoption_netbox_join(plan, same).disagreements == []
    moved = copy.deepcopy(data)  # L2-S2 lands on spine2 Ethernet3/1 in NetBox; the configs link Ethernet2/1
    end = _cable(moved, "L2-S2")["b_terminations"][0]
    end["object_id"] = end["object"]["id"] = next(
        item["id"] for item in moved["interfaces"] if item["device"]["name"] == "spine2" and item["name"] == "Ethernet3/1")
    end["object"]["name"] = end["object"]["display"] = "Ethernet3/1"
    with pytest.raises(AdoptionError, match=r"cable leaf2:Ethernet64/1: NetBox says cable L2-S2 to spine2:Ethernet3/1; "
                                            r"the configs say a link to spine2:Ethernet2/1"):
        adoption_netbox_join(plan, moved)


def test_one_sided_objects_are_warnings_and_the_rest_adopted(recorded):
    version, configs, data = recorded
    lacking = copy.deepcopy(data)
    lacking["cables"] = [cable for cable in lacking["cables"] if cable.get("label") != "L2-S2"]
    for item in lacking["interfaces"]:
        if item.get("cable") and item["cable"].get("label") == "L2-S2":
            item["cable"] = None
    joined = adoption_netbox_join(adoption_plan(configs, name="ai"), lacking)
    kept = [item for item in joined.disagreements if item.kind == "cable"]
    assert [(item.subject, item.netbox, item.outcome, item.severity) for item in kept] == [
        ("leaf2:Ethernet64/1 -- spine2:Ethernet2/1", "no cable between these ports", "kept as inferred", WARN)]
    assert sum(1 for cable in joined.plan.cables if cable.inferred) == 1
    assert joined.agreed["cables"] == CABLES[version] - 1
    # A switch NetBox documents whose config is not in the set: warned, not adopted, and so are its cables to the
    # adopted spines (the spines' configs hold no link toward it any more).
    partial = {host: files for host, files in configs.items() if host != "leaf2"}
    joined = adoption_netbox_join(adoption_plan(partial, name="ai"), data)
    assert [(item.kind, item.subject, item.outcome) for item in joined.disagreements] == [
        ("device", "leaf2", "not adopted"), ("cable", "cable L2-S1", "not adopted"),
        ("cable", "cable L2-S2", "not adopted")]
    assert all(item.severity != REFUSE for item in joined.disagreements)


@pytest.mark.django_db
def test_command_joins_a_live_netbox_and_saves_its_media(tmp_path, monkeypatch):
    configs = _configs("4.6")
    for host, files in configs.items():
        (tmp_path / "set" / host).mkdir(parents=True)
        for name, text in files.items():
            (tmp_path / "set" / host / name).write_text(text)
    monkeypatch.setenv("NB_ADOPT_TOKEN", TOKEN)
    data = load_dump(RECORDED["4.6"])
    with FakeNetbox(data) as fake:
        with pytest.raises(CommandError, match="--netbox-token-env=FT_NETBOX_TOKEN_UNSET: the variable is not set"):
            call_command("fabric_adopt", "--configs", str(tmp_path / "set"), "--name", "nbai",
                         "--netbox-url", fake.url, "--netbox-token-env", "FT_NETBOX_TOKEN_UNSET")
        out = io.StringIO()
        call_command("fabric_adopt", "--configs", str(tmp_path / "set"), "--name", "nbai", "--netbox-url", fake.url,
                     "--netbox-token-env", "NB_ADOPT_TOKEN", stdout=out)
        assert any(path.startswith("/api/dcim/cables/") for _, path in fake.requests)
        site = io.StringIO()  # one site's devices and cables only: NetBox's site filter on every endpoint
        call_command("fabric_adopt", "--configs", str(tmp_path / "set"), "--name", "nbsite", "--netbox-url", fake.url,
                     "--netbox-token-env", "NB_ADOPT_TOKEN", "--netbox-site", "dc1", "--dry-run", stdout=site)
        assert "site=dc1" in fake.requests[-1][1] and "14 of 14 cables agree" in site.getvalue()
    text = out.getvalue()
    assert ("NetBox: 6 of 6 switches and 14 of 14 cables agree with the configs; taken from NetBox: 6 models, "
            "2 racks, 12 optics; site dc1") in text
    assert "semantic diff 0" in text and "0 disagreements" in text
    assert "6 devices adopted, 0 cables inferred, 4 documented in NetBox" in text  # the leaf-spine links
    fabric = Fabric.objects.get(name="nbai")
    leaf3 = Switch.objects.get(fabric=fabric, hostname="leaf3")
    assert leaf3.model.name == "DCS-7060X6-64PE" and leaf3.rack.name == "R-002"
    patched = Cable.objects.get(interfaces__switch__hostname="leaf1", interfaces__name="Ethernet63/1")
    assert (patched.length_m, patched.cable_type) == (45.0, "smf")
    # NetBox contradicting the configs: refused naming both, nothing saved.
    leaf2 = next(device for device in data["devices"] if device["name"] == "leaf2")
    leaf2["role"] = {**leaf2["role"], "slug": "spine"}
    with FakeNetbox(data) as fake, pytest.raises(CommandError, match="role leaf2: NetBox says role spine"):
        call_command("fabric_adopt", "--configs", str(tmp_path / "set"), "--name", "nbbad", "--netbox-url", fake.url,
                     "--netbox-token-env", "NB_ADOPT_TOKEN")
    assert not Fabric.objects.filter(name="nbbad").exists() and not FabricIntentRow.objects.filter(name="nbbad").exists()


@pytest.mark.django_db
def test_command_reads_a_saved_netbox_dump(tmp_path):
    for host, files in _configs("4.4").items():
        (tmp_path / host).mkdir()
        for name, text in files.items():
            (tmp_path / host / name).write_text(text)
    out = io.StringIO()
    call_command("fabric_adopt", "--configs", str(tmp_path), "--name", "nbdump", "--dry-run", "--format", "json",
                 "--netbox-dump", str(RECORDED["4.4"]), stdout=out)
    assert '"cables": 8' in out.getvalue() and not Fabric.objects.filter(name="nbdump").exists()


def _tar(configs: dict[str, dict[str, str]]) -> io.BytesIO:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for host, files in configs.items():
            for name, text in files.items():
                payload = text.encode()
                info = tarfile.TarInfo(f"{host}/{name}")
                info.size = len(payload)
                archive.addfile(info, io.BytesIO(payload))
    buffer.seek(0)
    buffer.name = "fabric.tar.gz"
    return buffer


@pytest.mark.django_db
def test_api_joins_the_servers_netbox_only(api_client, settings):
    configs = _configs("4.5")
    settings.FT_NETBOX_URL, settings.FT_NETBOX_TOKEN = "", ""
    unset = api_client.post("/api/fabrics/adopt/", {"archive": _tar(configs), "name": "nbapi", "netbox": "true"},
                            format="multipart")
    assert unset.status_code == 400 and "netbox" in unset.json()
    with FakeNetbox(load_dump(RECORDED["4.5"])) as fake:
        settings.FT_NETBOX_URL, settings.FT_NETBOX_TOKEN = fake.url, TOKEN
        named = api_client.post("/api/fabrics/adopt/", {"archive": _tar(configs), "name": "nbapi",
                                                        "netbox_url": "http://169.254.169.254"}, format="multipart")
        assert named.status_code == 400 and "netbox_url" in named.json()
        assert not any("169.254" in path for _, path in fake.requests)
        response = api_client.post("/api/fabrics/adopt/", {"archive": _tar(configs), "name": "nbapi", "netbox": "true"},
                                   format="multipart")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["netbox"]["agreed"]["cables"] == 14 and body["netbox"]["disagreements"] == []
    assert body["summary"]["semantic_diff"] == 0
    assert FabricIntentRow.objects.filter(name="nbapi").exists()


@pytest.mark.django_db
def test_page_joins_the_servers_netbox_and_lists_disagreements(django_user_model, settings):
    user = django_user_model.objects.create_user(username="adopt-nb-operator", password="pw-not-used")
    user.groups.set([Group.objects.get(name="operator")])
    client = Client()
    client.force_login(user)
    configs = {host: files for host, files in _configs("4.4").items() if host != "leaf2"}
    with FakeNetbox(load_dump(RECORDED["4.4"])) as fake:
        settings.FT_NETBOX_URL, settings.FT_NETBOX_TOKEN = fake.url, TOKEN
        page = client.post("/fabrics/adopt/", {"archive": _tar(configs), "name": "nbpage", "dry_run": "on",
                                               "netbox": "on"})
    assert page.status_code == 200
    text = page.content.decode()
    assert "NetBox <span" in text and "<td class=\"mono\">leaf2</td>" in text and "not adopted" in text
    assert not Fabric.objects.filter(name="nbpage").exists()


def test_malformed_netbox_fields_are_errors_naming_them_never_a_crash():
    configs = _configs("4.4")
    plan = adoption_plan(configs, name="ai")
    data = load_dump(RECORDED["4.4"])
    next(device for device in data["devices"] if device["name"] == "leaf1")["custom_fields"] = {"asn": "sixty-five"}
    with pytest.raises(AdoptionError, match=r"asn leaf1: NetBox says custom field asn=sixty-five; the configs say "
                                            r"asn 65100 \(refused\)"):
        adoption_netbox_join(plan, data)
    data = load_dump(RECORDED["4.4"])
    next(device for device in data["devices"] if device["name"] == "leaf1")["custom_fields"] = ["junk"]
    with pytest.raises(InputError, match="custom_fields"):
        adoption_netbox_join(plan, data)
