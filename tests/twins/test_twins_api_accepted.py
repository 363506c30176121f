"""Twin actions of the API answer 202 with a status URL at once, whatever the broker (issue #16 item 3).

No twin boots here: the service the operation calls (``twins.services.twin_up``) is faked at its boundary, so
the test proves the request/poll contract, not the twin (tests/twins/test_twins_live.py boots one)."""

from __future__ import annotations

import threading
import time

import pytest

from common.runs import runs_reap_interrupted
from compiler.errors import TwinError
from twins import services
from twins.models import TwinOperation


def _poll(api_client, url: str, *, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while (record := api_client.get(url).json())["status"] in ("pending", "running"):
        assert time.monotonic() < deadline, record
        time.sleep(0.05)
    return record


@pytest.fixture
def fake_up(monkeypatch):
    """twin_up as the operation calls it, held until the test releases it; it records the twin up."""
    gate = threading.Event()
    calls: list[dict] = []

    def up(*, fabric_intent, engine, failover=False, subset="", frr=None):
        assert gate.wait(30), "the test never released the boot"
        calls.append({"intent": fabric_intent.pk, "engine": engine, "failover": failover,
                      **({"subset": subset} if subset else {}), **({"frr": frr} if frr else {})})
        twin = services.twin_get_or_create(fabric_intent=fabric_intent, engine=engine)
        twin.status, twin.switches, twin.hosts = "up", 6, 8
        twin.save()
        return twin

    monkeypatch.setattr(services, "twin_prerequisites", lambda: [])
    monkeypatch.setattr(services, "twin_up", up)
    return gate, calls


@pytest.mark.django_db(transaction=True)
def test_up_answers_202_at_once_and_polling_reaches_the_outcome(api_client, twin_intent, fake_up, in_background):
    gate, calls = fake_up
    twin = services.twin_get_or_create(fabric_intent=twin_intent)
    clock = time.perf_counter()
    response = api_client.post(f"/api/twins/{twin.pk}/up/", {"failover": True}, format="json")
    assert time.perf_counter() - clock < 10 and response.status_code == 202, response.content
    body = response.json()
    assert response["Location"] == body["status_url"] and body["status_url"].endswith(
        f"/api/twin-operations/{body['id']}/")
    assert body["status"] == "running" and body["kind"] == "up" and body["params"] == {"failover": True, "subset": "", "frr": None}
    # a second action on the same fabric's twin while it runs: refused with the reason, nothing recorded
    busy = api_client.post(f"/api/twins/{twin.pk}/check/", {}, format="json")
    assert busy.status_code == 400 and "still running" in busy.json()["detail"], busy.content
    assert TwinOperation.objects.count() == 1
    gate.set()
    record = _poll(api_client, body["status_url"])
    assert record["status"] == "succeeded" and record["result"]["switches"] == 6, record
    assert calls == [{"intent": twin_intent.pk, "engine": "netns", "failover": True}]
    assert api_client.get(f"/api/twins/{twin.pk}/").json()["status"] == "up"


@pytest.mark.django_db(transaction=True)
def test_a_failing_operation_ends_failed_with_its_error_at_the_status_url(api_client, twin_intent, monkeypatch,
                                                                         in_background):
    def refused(**_):
        raise TwinError("twin tw0 of twinref-intent is running compile run #1; run `twin down` first")

    monkeypatch.setattr(services, "twin_prerequisites", lambda: [])
    monkeypatch.setattr(services, "twin_up", refused)
    twin = services.twin_get_or_create(fabric_intent=twin_intent)
    response = api_client.post(f"/api/twins/{twin.pk}/up/", {}, format="json")
    assert response.status_code == 202, response.content
    record = _poll(api_client, response["Location"])
    assert record["status"] == "failed" and "run `twin down` first" in record["error"], record
    assert api_client.get("/api/twin-operations/?status=failed").json()["count"] == 1


def test_an_interrupted_api_operation_is_reaped(api_client, twin_intent, monkeypatch):
    """The operation records its runner when requested: a process that died leaves it for ``reap_runs``."""
    monkeypatch.setattr("twins.api.views.twin_operation_start", lambda *, operation_id: None)  # the process "dies"
    twin = services.twin_get_or_create(fabric_intent=twin_intent)
    response = api_client.post(f"/api/twins/{twin.pk}/down/", {}, format="json")
    assert response.status_code == 202 and response.json()["status"] == "running"
    TwinOperation.objects.update(runner="otherhost:b:1:1")
    assert runs_reap_interrupted()["twin_operations"] == 0  # another host's runner is never guessed at
    TwinOperation.objects.update(runner="")
    assert runs_reap_interrupted()["twin_operations"] == 1
    record = api_client.get(response["Location"]).json()
    assert record["status"] == "failed" and record["error"].startswith("interrupted:"), record


class _Queued:
    id = "task-123"


def test_with_a_broker_the_action_is_queued_and_answers_202_with_its_status_url(api_client, twin_intent, monkeypatch,
                                                                               settings):
    """A broker configured: queued for a worker, the same 202 + status URL (no longer a bare task id); the broker
    down: 503 and the operation recorded failed with the reason, so it does not block the fabric's twin."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    queued: list[int] = []
    monkeypatch.setattr(services, "twin_prerequisites", lambda: [])
    monkeypatch.setattr("twins.tasks.twin_operation_run.delay", lambda pk: queued.append(pk) or _Queued())
    twin = services.twin_get_or_create(fabric_intent=twin_intent)
    response = api_client.post(f"/api/twins/{twin.pk}/fidelity/", {"n_minus_1": "none"}, format="json")
    assert response.status_code == 202 and response["Location"] == response.json()["status_url"], response.content
    record = api_client.get(response["Location"]).json()
    assert queued == [record["id"]] and record["task_id"] == "task-123" and record["status"] == "running"
    assert record["kind"] == "fidelity" and record["params"] == {"n_minus_1": "none"}
    TwinOperation.objects.update(status="succeeded")

    def broker_down(pk):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr("twins.tasks.twin_operation_run.delay", broker_down)
    response = api_client.post(f"/api/twins/{twin.pk}/check/", {}, format="json")
    assert response.status_code == 503 and response.json()["status"] == "failed", response.content
    assert response.json()["error"].startswith("could not queue the twin operation: ConnectionError")


@pytest.mark.django_db(transaction=True)
def test_up_takes_a_subset_and_an_frr_and_checks_them_before_anything_runs(api_client, twin_intent, fake_up,
                                                                          in_background):
    """issue 19: the API boots a subset as ``twin up --subset`` does; a selection naming no leaf of the fabric,
    a spine, or an FRR that is not a choice is a 400 naming the field and value, and nothing is recorded."""
    gate, calls = fake_up
    twin = services.twin_get_or_create(fabric_intent=twin_intent)
    leaves = sorted(twin_intent.fabric.switches.filter(role="leaf").values_list("hostname", flat=True))
    spine = twin_intent.fabric.switches.filter(role="spine").values_list("hostname", flat=True).first()
    for payload, field, value in (({"subset": "leaf999"}, "subset", "leaf999"),
                                  ({"subset": spine}, "subset", spine),
                                  ({"subset": "pod:7"}, "subset", "pod:7"),
                                  ({"frr": "7.5"}, "frr", None)):
        refused = api_client.post(f"/api/twins/{twin.pk}/up/", payload, format="json")
        assert refused.status_code == 400, (payload, refused.content)
        assert field in refused.content.decode() and (value is None or value in refused.content.decode()), refused.content
    assert TwinOperation.objects.count() == 0
    response = api_client.post(f"/api/twins/{twin.pk}/up/", {"subset": f"{leaves[0]},leaves:1", "frr": "8.4"},
                               format="json")
    assert response.status_code == 202, response.content
    gate.set()
    assert _poll(api_client, response["Location"])["status"] == "succeeded"
    assert calls == [{"intent": twin_intent.pk, "engine": "netns", "failover": False,
                      "subset": f"{leaves[0]},leaves:1", "frr": "8.4"}]
