"""POST /api/validation-runs/configs/ (archive or files) and the UI page /validate-configs/: configs validated as
text, findings with file:line; bad uploads are 400s naming the file; viewers may not run it."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.test import Client

GOLDEN = Path(__file__).parents[1] / "golden" / "mixed_eos_sonic" / "expected"


def _configs(broken: bool) -> dict[str, bytes]:
    """<host>/<file> -> bytes of the mixed EOS/SONiC golden, optionally with PFC removed from leaf1 Ethernet1/1."""
    out = {}
    for structured in sorted((GOLDEN / "structured").glob("*.json")):
        host = structured.stem
        platform = json.loads(structured.read_text())["platform"]
        for path in sorted((GOLDEN / "rendered" / host / platform).iterdir()):
            text = path.read_text()
            if broken and host == "leaf1":
                text = text.replace("   spanning-tree portfast\n   service-profile FT_ROCE\n",
                                    "   spanning-tree portfast\n")
            out[f"{host}/{path.name}"] = text.encode()
    return out


def _tar(members: dict[str, bytes]) -> io.BytesIO:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    buffer.seek(0)
    buffer.name = "fabric.tar.gz"
    return buffer


def _pfc_errors(report: dict) -> dict[str, list[str]]:
    return {finding["subject"]: finding["locations"] for check in report["checks"] if check["name"] == "roce.pfc"
            for finding in check["findings"] if finding["severity"] == "error"}


@pytest.mark.django_db
def test_api_validates_an_archive_and_cites_the_line(api_client):
    response = api_client.post("/api/validation-runs/configs/", {"archive": _tar(_configs(broken=True))},
                               format="multipart")
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["ok"] is False and report["unmodelled"] == []
    assert _pfc_errors(report)["leaf1:Ethernet1/1"][0].startswith("leaf1/startup-config:")
    clean = api_client.post("/api/validation-runs/configs/", {"archive": _tar(_configs(broken=False))},
                            format="multipart")
    assert clean.status_code == 200 and _pfc_errors(clean.json()) == {}


@pytest.mark.django_db
def test_api_accepts_one_file_per_device(api_client):
    files = []
    for name, data in _configs(broken=True).items():
        if name.endswith("startup-config"):
            upload = io.BytesIO(data)
            upload.name = f"{name.split('/')[0]}.cfg"
            files.append(upload)
    response = api_client.post("/api/validation-runs/configs/", {"files": files}, format="multipart")
    assert response.status_code == 200, response.content
    assert set(response.json()["devices"]) == {"leaf1", "leaf3", "spine1", "spine2"}
    assert "leaf1:Ethernet1/1" in _pfc_errors(response.json())


@pytest.mark.django_db
def test_api_refuses_bad_uploads_naming_the_file(api_client):
    junk = io.BytesIO(b"not an archive")
    junk.name = "junk.bin"
    response = api_client.post("/api/validation-runs/configs/", {"archive": junk}, format="multipart")
    assert response.status_code == 400 and "junk.bin" in response.json()["detail"]
    note = io.BytesIO(b"hello\n")
    note.name = "notes.txt"
    response = api_client.post("/api/validation-runs/configs/", {"files": [note]}, format="multipart")
    assert response.status_code == 400 and "notes.txt" in response.json()["detail"]
    response = api_client.post("/api/validation-runs/configs/", {}, format="multipart")
    assert response.status_code == 400 and "archive" in response.json()


def _client(django_user_model, role: str) -> Client:
    user = django_user_model.objects.create_user(username=f"configs-{role}", password="pw-not-used")
    user.groups.set([Group.objects.get(name=role)])
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_ui_page_validates_an_upload(django_user_model):
    operator = _client(django_user_model, "operator")
    assert operator.get("/validate-configs/").status_code == 200
    response = operator.post("/validate-configs/", {"archive": _tar(_configs(broken=True))})
    body = response.content.decode()
    assert response.status_code == 200 and "roce.pfc" in body and "leaf1/startup-config:" in body
    junk = io.BytesIO(b"junk")
    junk.name = "junk.bin"
    assert operator.post("/validate-configs/", {"archive": junk}).status_code == 400
    for unknown in ("999999", "abc"):  # read through intents.selectors.fabric_intent_by_pk: a 400, never a 500
        response = operator.post("/validate-configs/", {"archive": _tar(_configs(broken=False)),
                                                        "fabric_intent": unknown})
        assert response.status_code == 400 and "no such fabric intent" in response.content.decode()
    viewer = _client(django_user_model, "viewer")
    assert viewer.get("/validate-configs/").status_code == 200
    assert viewer.post("/validate-configs/", {"archive": _tar(_configs(broken=True))}).status_code == 403


@pytest.mark.django_db
def test_api_reads_compiles_archive_and_lists_each_devices_files(api_client):
    """compile's archive (<fabric>/<device>/<platform>/<file>): each device on its own platform, the twin's FRR
    renderings set aside in the answer; a device's files are listed; two devices claiming one hostname: a 400."""
    members = {f"fab/{path.relative_to(GOLDEN / 'rendered')}": path.read_bytes()
               for path in sorted((GOLDEN / "rendered").glob("*/*/*"))}
    response = api_client.post("/api/validation-runs/configs/", {"archive": _tar(members)}, format="multipart")
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["devices"]["leaf2"]["platform"] == "sonic"
    assert report["devices"]["leaf2"]["files"] == ["config_db.json", "frr.conf"]
    assert len(report["set_aside"]) == 6 and all("/frr/: the twin's frr rendering" in note
                                                 for note in report["set_aside"])
    twice = {**_configs(broken=False), **{f"leaf1-copy/{name.split('/')[1]}": data
                                          for name, data in _configs(broken=False).items() if name.startswith("leaf1/")}}
    refused = api_client.post("/api/validation-runs/configs/", {"archive": _tar(twice)}, format="multipart")
    assert refused.status_code == 400 and "hostname 'leaf1' is claimed twice" in refused.content.decode()


def _with_external_peer(members: dict[str, bytes]) -> dict[str, bytes]:
    """leaf1's EOS config gains a BGP neighbor that no device of the set owns."""
    text = members["leaf1/startup-config"].decode()
    head, bgp, tail = text.partition("router bgp ")
    first_line, _, rest = tail.partition("\n")
    return {**members, "leaf1/startup-config": f"{head}{bgp}{first_line}\n   neighbor 192.0.2.1 remote-as 65535\n"
                                               f"{rest}".encode()}


@pytest.mark.django_db
def test_api_reports_examined_counts_external_peers_and_incomplete_checks(api_client):
    members = _with_external_peer(_configs(broken=False))
    response = api_client.post("/api/validation-runs/configs/", {"archive": _tar(members)}, format="multipart")
    assert response.status_code == 200, response.content
    report = response.json()
    checks = {check["name"]: check for check in report["checks"]}
    assert checks["bgp.sessions"]["examined"]["external peers"] == 1 and report["ok"] is True
    assert report["counts"]["incomplete"] == 0 and report["coverage_gaps"] == []
    assert all(check["examined"] or check["status"] == "skipped" for check in report["checks"])
    strict = api_client.post("/api/validation-runs/configs/", {"archive": _tar(members), "external_peers": "error"},
                             format="multipart")
    assert strict.status_code == 200 and strict.json()["ok"] is False
    bad = api_client.post("/api/validation-runs/configs/", {"archive": _tar(members), "external_peers": "loud"},
                          format="multipart")
    assert bad.status_code == 400 and "external_peers" in bad.json()
    members["leaf1/startup-config"] += b"ip route 192.0.2.0/24 Null0\n"  # a static route: a line the model does not read
    incomplete = api_client.post("/api/validation-runs/configs/", {"archive": _tar(members)}, format="multipart").json()
    assert incomplete["counts"]["incomplete"] > 0 and incomplete["ok"] is True
    assert {"device": "leaf1", "feature": "IGP/static routing"}.items() <= incomplete["coverage_gaps"][0].items()
    reachability = next(c for c in incomplete["checks"] if c["name"] == "routing.vtep_reachability")
    assert reachability["status"] == "incomplete" and "leaf1/startup-config:" in reachability["reason"]


@pytest.mark.django_db
def test_ui_page_shows_examined_incomplete_and_takes_the_external_peer_setting(django_user_model):
    operator = _client(django_user_model, "operator")
    members = _with_external_peer(_configs(broken=False))
    members["leaf1/startup-config"] += b"ip route 192.0.2.0/24 Null0\n"  # a static route: a line the model does not read
    page = operator.get("/validate-configs/").content.decode()
    assert 'name="external_peers"' in page
    body = operator.post("/validate-configs/", {"archive": _tar(members), "external_peers": "warning"}).content.decode()
    assert "incomplete" in body and "IGP/static routing not fully read" in body
    assert "BGP neighbors" in body  # the examined column
    assert "outside this config set" in body
    assert operator.post("/validate-configs/", {"archive": _tar(members), "external_peers": "loud"}).status_code == 400
