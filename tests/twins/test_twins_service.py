"""The twins app without booting anything: skipped (never passed) without root/FRR, clear errors for the
containerlab engine and bad input, API and command plumbing. Runs on any machine."""

from __future__ import annotations

import json
import shutil

import pytest
from django.core.management import CommandError, call_command

from compiler.errors import InputError, TwinError
from twins import services, tasks
from twins.models import Twin

MISSING = ["needs root (network namespaces, veth, FRR daemons)", "/usr/lib/frr/zebra not found (apt-get install frr)"]


@pytest.fixture
def no_twin_host(monkeypatch):
    """Pretend this machine has neither root nor FRR."""
    monkeypatch.setattr(services, "twin_prerequisites", lambda: list(MISSING))


@pytest.fixture
def twin_host(monkeypatch):
    """Pretend the prerequisites are met (the calls below fail before touching the kernel)."""
    monkeypatch.setattr(services, "twin_prerequisites", lambda: [])


def test_up_without_root_or_frr_is_skipped_with_the_reason(twin_intent, no_twin_host):
    with pytest.raises(services.TwinUnavailable, match=r"^skipped: needs root and FRR \(needs root"):
        services.twin_up(fabric_intent=twin_intent)
    twin = Twin.objects.get()
    assert twin.status == "down" and twin.compile_run is None  # nothing booted, nothing claimed


def test_command_prints_skipped_and_exits_zero(twin_intent, no_twin_host, capsys):
    call_command("twin", "up", "--fabric", twin_intent.name)  # no CommandError: exit status 0
    out = capsys.readouterr().out
    assert out.startswith("skipped: needs root and FRR") and "passed" not in out
    call_command("twin", "up", "--fabric", twin_intent.name, "--format", "json")
    data = json.loads(capsys.readouterr().out)
    assert data["skipped"] is True and "zebra" in data["reason"]


def test_command_status_of_a_fabric_without_twin_and_unknown_fabric(twin_intent, capsys):
    call_command("twin", "status", "--fabric", twin_intent.name)
    assert "no netns twin (down)" in capsys.readouterr().out
    with pytest.raises(CommandError, match="invalid input: fabric='nope'"):
        call_command("twin", "status", "--fabric", "nope")
    with pytest.raises(CommandError, match="has no netns twin: run `twin up` first"):
        call_command("twin", "check", "--fabric", twin_intent.name)


def test_containerlab_engine_exports_then_fails_clearly_without_the_binary(twin_intent, settings, tmp_path):
    if shutil.which("containerlab") or shutil.which("clab"):
        pytest.skip("containerlab is installed here: this test covers the machine without it")
    settings.FT_OUTPUT_DIR = tmp_path
    with pytest.raises(TwinError, match="needs the `containerlab` binary"):
        services.twin_up(fabric_intent=twin_intent, engine="containerlab")
    twin = Twin.objects.get(engine="containerlab")
    assert twin.status == "failed" and "containerlab" in twin.error and twin.compile_run is not None
    exported = list((tmp_path / "containerlab" / twin.prefix).glob("*.clab.yml"))
    assert len(exported) == 1 and "kind: arista_ceos" in exported[0].read_text()


def test_compile_run_without_a_runnable_rendering_is_refused(twin_intent, twin_host):
    """The twin runs each switch's own config, else its frr rendering: an EOS-only compile has neither for the
    SONiC leaves (leaf2, leaf4)."""
    from intents.services import compile_run_create

    run = compile_run_create(fabric_intent=twin_intent, platforms=["eos"])
    assert run.status == "succeeded", run.error
    with pytest.raises(TwinError, match=rf"compile run #{run.pk} has no rendering the twin can run for leaf2, leaf4:"):
        services.twin_up(fabric_intent=twin_intent, compile_run=run)


def test_compile_run_of_another_intent_is_refused(twin_intent, twin_host):
    from intents import services as intent_services

    other = intent_services.fabric_intent_create(fabric=twin_intent.fabric, name="other-intent")
    run = intent_services.compile_run_create(fabric_intent=other)
    with pytest.raises(InputError, match="compile_run="):
        services.twin_up(fabric_intent=twin_intent, compile_run=run)


def test_unknown_engine_and_injection_kind_name_the_field(twin_intent, twin_host):
    with pytest.raises(InputError, match="engine='docker'"):
        services.twin_up(fabric_intent=twin_intent, engine="docker")
    twin = services.twin_get_or_create(fabric_intent=twin_intent)
    with pytest.raises(InputError, match="kind='rack'"):
        services.twin_inject(twin=twin, kind="rack")


def test_actions_on_a_twin_that_is_not_running(twin_intent, twin_host, tmp_path):
    twin = services.twin_get_or_create(fabric_intent=twin_intent, prefix="twnotup", state_dir=str(tmp_path))
    for action in (lambda: services.twin_check(twin=twin), lambda: services.twin_fidelity(twin=twin),
                   lambda: services.twin_inject(twin=twin)):
        with pytest.raises(TwinError, match="twin twnotup of twinref-intent is not running"):
            action()
    assert services.twin_down(twin=twin) == {"prefix": "twnotup", "already_down": True}
    status = services.twin_status(twin=twin)
    assert status["exists"] is False and status["status_recorded"] == "down"
    # the one Celery task runs a recorded operation (eagerly here): the same service, its error on the record
    operation = services.twin_operation_create(fabric=twin_intent.fabric, kind="ping", twin=twin)
    assert tasks.twin_operation_run.delay(operation.pk).get() == "failed"
    operation.refresh_from_db()
    assert "twin twnotup of twinref-intent is not running" in operation.error


def test_api_create_status_and_errors(api_client, twin_intent, twin_host, tmp_path):
    response = api_client.post("/api/twins/", {"fabric_intent": twin_intent.pk, "engine": "netns"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "down" and body["prefix"].startswith("tw") and body["engine"] == "netns"
    again = api_client.post("/api/twins/", {"fabric_intent": twin_intent.pk, "engine": "netns"}, format="json")
    assert again.json()["id"] == body["id"]  # one twin per intent and engine
    Twin.objects.filter(pk=body["id"]).update(state_dir=str(tmp_path))

    assert api_client.post("/api/twins/", {"fabric_intent": twin_intent.pk, "engine": "docker"},
                           format="json").status_code == 400
    bad_kind = api_client.post(f"/api/twins/{body['id']}/inject/", {"kind": "rack"}, format="json")
    assert bad_kind.status_code == 400 and "kind" in bad_kind.json()
    # the broken case: the check is accepted, then fails with the reason at its status URL (runs in the request
    # here: FT_RUN_IN_BACKGROUND is off in tests; tests/twins/test_twins_api_accepted.py runs it in background)
    not_running = api_client.post(f"/api/twins/{body['id']}/check/", {}, format="json")
    assert not_running.status_code == 202 and not_running["Location"] == not_running.json()["status_url"]
    operation = api_client.get(not_running.json()["status_url"]).json()
    assert operation["status"] == "failed" and "is not running" in operation["error"], operation
    assert operation["kind"] == "ping" and operation["twin"]["id"] == body["id"]
    assert api_client.get("/api/twin-operations/999999/").status_code == 404
    status = api_client.get(f"/api/twins/{body['id']}/status/")
    assert status.status_code == 200 and status.json()["exists"] is False
    assert {key: status.json()[key] for key in ("status", "healthy", "reason")} == {
        "status": "down", "healthy": False, "reason": "not running"}  # one vocabulary, healthy derived
    listing = api_client.get("/api/twins/?engine=netns")
    assert listing.status_code == 200 and listing.json()["count"] == 1


def test_api_up_without_root_or_frr_is_503_skipped(api_client, twin_intent, no_twin_host):
    twin = services.twin_get_or_create(fabric_intent=twin_intent)
    response = api_client.post(f"/api/twins/{twin.pk}/up/", {}, format="json")
    assert response.status_code == 503
    assert response.json()["skipped"] is True and "needs root and FRR" in response.json()["detail"]


def test_command_frr_choice_that_cannot_run_names_the_path_and_saves_nothing(twin_intent, monkeypatch, tmp_path):
    monkeypatch.setenv("FT_FRR10_DIR", str(tmp_path / "no-frr10"))
    with pytest.raises(CommandError, match=r"FT_FRR10_DIR=.*no-frr10/root/usr/lib/frr/zebra.*not found"):
        call_command("twin", "up", "--fabric", twin_intent.name, "--frr", "10.3")
    assert not Twin.objects.exists()  # refused before a twin row was created


def test_up_on_a_running_twin_with_another_subset_is_refused_naming_both(twin_intent, twin_host, monkeypatch, tmp_path):
    """issue 19: `twin up --subset` on a twin that runs another selection (or the whole fabric) used to answer
    with the running twin as if it were the one asked for."""
    twin = services.twin_get_or_create(fabric_intent=twin_intent, prefix="twsub", state_dir=str(tmp_path))
    twin.status = "up"
    twin.save()
    running = {"selection": "ci"}

    class Running:
        def topology_obj(self):
            return type("Topology", (), {"extra": {"subset": running} if running else {}})()

    monkeypatch.setattr(services.runtime.TwinState, "load", classmethod(lambda cls, prefix, state_dir=None: Running()))
    monkeypatch.setattr(services.runtime, "status", lambda *args, **kwargs: {"healthy": True})
    with pytest.raises(InputError, match=r"runs subset 'ci', not subset 'leaf1'.*twin down"):
        services.twin_up(fabric_intent=twin_intent, prefix="twsub", state_dir=str(tmp_path), subset="leaf1")
    with pytest.raises(InputError, match=r"runs subset 'ci', not the whole fabric"):
        services.twin_up(fabric_intent=twin_intent, prefix="twsub", state_dir=str(tmp_path))
    assert services.twin_up(fabric_intent=twin_intent, prefix="twsub", state_dir=str(tmp_path), subset="ci") == twin
    running.clear()
    with pytest.raises(InputError, match=r"runs the whole fabric, not subset 'ci'"):
        services.twin_up(fabric_intent=twin_intent, prefix="twsub", state_dir=str(tmp_path), subset="ci")
