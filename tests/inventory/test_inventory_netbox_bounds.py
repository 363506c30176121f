"""A hostile or spoofed NetBox (issue 29 item 7): the client bounds pages, records and bytes, never follows a
redirect to another host, never shows a remote answer's body; the webhook refuses replays and empty bodies."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.cache import cache
from django.test import override_settings
from rest_framework.response import Response

from inventory import netbox_client, netbox_sync
from inventory.netbox_client import NetboxApiError, NetboxClient
from inventory.netbox_sync import WEBHOOK_WINDOW_S, webhook_replay_problem

TOKEN = "0123456789abcdef"
BODY_SECRET = "remote-body-must-not-reach-users"


class Hostile:
    """A local HTTP server whose answer to each GET is ``answer(path_with_query, url)`` -> (status, headers, body);
    ``requests`` records every path asked for (and whether the token came along)."""

    def __init__(self, answer):
        self.requests: list[tuple[str, str | None]] = []
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # http.server's name
                hostile.requests.append((self.path, self.headers.get("Authorization")))
                status, headers, body = answer(self.path, hostile.url)
                self.send_response(status)
                for name, value in {"Content-Length": str(len(body)), **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Hostile:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _page(results: list, count, next_url) -> tuple[int, dict, bytes]:
    return 200, {"Content-Type": "application/json"}, json.dumps(
        {"count": count, "next": next_url, "previous": None, "results": results}).encode()


def test_an_endless_page_set_stops_at_the_declared_count():
    """The audit's NetBox answered next pages forever (~2.1 GB a minute); each page here is new and well formed."""
    def endless(path, base):
        offset = int(path.rsplit("offset=", 1)[1]) if "offset=" in path else 0
        return _page([{"id": offset + n} for n in range(100)], 250, f"{base}/api/dcim/devices/?offset={offset + 100}")

    with Hostile(endless) as server, pytest.raises(NetboxApiError, match=r"more records than NetBox's count \(250\)"):
        NetboxClient(server.url, TOKEN).list("dcim/devices")
    assert len(server.requests) == 3


def test_an_endless_page_set_without_a_count_stops_at_max_records(monkeypatch):
    monkeypatch.setattr(netbox_client, "MAX_RECORDS", 1000)

    def endless(path, base):
        offset = int(path.rsplit("offset=", 1)[1]) if "offset=" in path else 0
        return _page([{"id": offset + n} for n in range(100)], None, f"{base}/api/dcim/devices/?offset={offset + 100}")

    with Hostile(endless) as server, pytest.raises(NetboxApiError, match="MAX_RECORDS=1000"):
        NetboxClient(server.url, TOKEN).list("dcim/devices")
    assert len(server.requests) == 11


def test_a_next_link_loop_and_too_many_empty_pages_stop(monkeypatch):
    with Hostile(lambda path, base: _page([], 0, f"{base}/api/dcim/devices/?offset=0")) as server:
        with pytest.raises(NetboxApiError, match="loops"):
            NetboxClient(server.url, TOKEN).list("dcim/devices")
        assert len(server.requests) == 2
    monkeypatch.setattr(netbox_client, "MAX_PAGES", 5)
    with Hostile(lambda path, base: _page([], None, f"{base}/api/dcim/devices/?p={len(path)}{path[-3:]}x")) as server:
        with pytest.raises(NetboxApiError, match="MAX_PAGES=5"):
            NetboxClient(server.url, TOKEN).list("dcim/devices")
        assert len(server.requests) == 5


def test_answers_are_read_up_to_the_byte_limits(monkeypatch):
    monkeypatch.setattr(netbox_client, "MAX_RESPONSE_BYTES", 10_000)
    big = [{"id": n, "name": "x" * 100} for n in range(200)]  # ~25 kB
    with Hostile(lambda path, base: _page(big, 200, None)) as server:
        with pytest.raises(NetboxApiError, match="MAX_RESPONSE_BYTES=10000"):
            NetboxClient(server.url, TOKEN).list("dcim/devices")
        monkeypatch.setattr(netbox_client, "MAX_RESPONSE_BYTES", 1_000_000)
        assert len(NetboxClient(server.url, TOKEN).list("dcim/devices")) == 200
        monkeypatch.setattr(netbox_client, "MAX_CLIENT_BYTES", 40_000)
        client = NetboxClient(server.url, TOKEN)
        client.list("dcim/devices")  # ~25 kB: under the client's total
        with pytest.raises(NetboxApiError, match="MAX_CLIENT_BYTES=40000"):
            client.list("dcim/interfaces")


def test_a_redirect_to_another_host_is_refused_and_the_token_stays_home():
    with Hostile(lambda path, base: _page([{"id": 1}], 1, None)) as elsewhere:
        with Hostile(lambda path, base: (302, {"Location": f"{elsewhere.url}/api/dcim/devices/"}, b"")) as server:
            with pytest.raises(NetboxApiError, match="another host") as error:
                NetboxClient(server.url, TOKEN).list("dcim/devices")
        assert elsewhere.requests == [] and elsewhere.url not in str(error.value)


def test_a_redirect_on_the_same_host_is_followed():
    def moved(path, base):
        if path.startswith("/api/"):
            return 301, {"Location": "/netbox" + path}, b""
        return _page([{"id": 1}], 1, None)

    with Hostile(moved) as server:
        assert NetboxClient(server.url, TOKEN).list("dcim/devices") == [{"id": 1}]
        assert all(authorization == f"Token {TOKEN}" for _, authorization in server.requests)


@pytest.mark.parametrize("answer", [
    (500, {"Content-Type": "text/html"}, f"<h1>{BODY_SECRET}</h1>".encode()),
    (403, {"Content-Type": "application/json"}, json.dumps({"detail": BODY_SECRET}).encode()),
    (200, {"Content-Type": "text/html"}, f"<p>{BODY_SECRET}</p>".encode()),
    (200, {"Content-Type": "application/json"}, b"[" * 100_000),
])
def test_errors_name_status_and_path_never_the_body(answer):
    with Hostile(lambda path, base: answer) as server, pytest.raises(NetboxApiError) as error:
        NetboxClient(server.url, TOKEN).list("dcim/devices", site="x")
    message = str(error.value)
    assert BODY_SECRET not in message and "site=x" not in message
    assert message.startswith("GET /api/dcim/devices/: ") and (f"HTTP {answer[0]}" in message)


# ------------------------------------------------------------------------------------------ webhook
def _event(**changes) -> bytes:
    event = {"event": "updated", "model": "cable", "data": {"id": 5}, "request_id": str(changes.pop("id", 1)),
             "timestamp": datetime.datetime.now(datetime.UTC).isoformat(sep=" "), **changes}
    return json.dumps(event).encode()


def _post(client, body: bytes):
    return client.post("/api/netbox-syncs/webhook/", body, content_type="application/json",
                       HTTP_X_HOOK_SIGNATURE=hmac.new(b"s3cret", body, hashlib.sha512).hexdigest())


@pytest.mark.django_db
def test_signed_webhooks_are_applied_once_and_empty_or_stale_bodies_are_refused(api_client, monkeypatch):
    cache.clear()
    ran = []
    monkeypatch.setattr("inventory.api.views.NetboxSyncViewSet._run",
                        lambda self, options: ran.append(options) or Response(status=202))
    with override_settings(FT_NETBOX_WEBHOOK_SECRET="s3cret"):
        body = _event()
        _post(api_client, body)
        replays = [_post(api_client, body) for _ in range(3)]
        assert len(ran) == 1
        assert all(reply.status_code == 400 and "replay" in reply.json()["body"][0] for reply in replays)
        empty = _post(api_client, b"")
        assert empty.status_code == 400 and "empty body" in empty.json()["body"][0]
        stale = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=WEBHOOK_WINDOW_S + 5)).isoformat()
        for timestamp, message in ((stale, "WEBHOOK_WINDOW_S"), ("yesterday", "ISO 8601"),
                                   ("2026-01-01T00:00:00", "UTC offset")):
            refused = _post(api_client, _event(id=2, timestamp=timestamp))
            assert refused.status_code == 400 and message in refused.json()["body"][0]
        assert _post(api_client, b"[" * 50_000).status_code == 400
        assert len(ran) == 1


@pytest.mark.django_db
def test_without_the_replay_check_a_captured_body_applies_every_time(api_client, monkeypatch):
    """Deliberately broken: the audit's replay (3 of 3 applied) comes back without the check."""
    cache.clear()
    ran = []
    monkeypatch.setattr("inventory.api.views.NetboxSyncViewSet._run",
                        lambda self, options: ran.append(options) or Response(status=202))
    monkeypatch.setattr("inventory.api.views.webhook_replay_problem", lambda body: None)
    with override_settings(FT_NETBOX_WEBHOOK_SECRET="s3cret"):
        body = _event(id=3)
        for _ in range(3):
            _post(api_client, body)
    assert len(ran) == 3


def test_the_window_is_measured_against_the_given_clock():
    cache.clear()
    body = _event(id=4, timestamp="2026-01-01 00:00:00+00:00")
    at = datetime.datetime(2026, 1, 1, 0, 4, 59, tzinfo=datetime.UTC)
    assert webhook_replay_problem(body=body, now=at) is None
    assert "replay" in webhook_replay_problem(body=body, now=at)
    late = datetime.datetime(2026, 1, 1, 0, 5, 1, tzinfo=datetime.UTC)
    assert "WEBHOOK_WINDOW_S" in webhook_replay_problem(body=_event(id=5, timestamp="2026-01-01 00:00:00+00:00"),
                                                        now=late)
    assert netbox_sync.WEBHOOK_WINDOW_S == 300
