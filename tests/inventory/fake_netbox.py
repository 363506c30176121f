"""A local fake NetBox HTTP server for the live import and write-back tests: serves ``/api/dcim/<endpoint>/``
from fixture data with NetBox's limit/offset pagination (``count``/``next``/``previous``, a MAX_PAGE_SIZE cap),
checks the ``Authorization: Token`` header, and accepts POST/PATCH on ``/api/ipam/...`` and ``/api/dcim/...``
(recorded in ``writes``, applied to its data so a second write-back sees the first)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class FakeNetbox:
    def __init__(self, data: dict[str, list[dict]], token: str = "0123456789abcdef", max_page_size: int = 1000,
                 next_host: str | None = None):
        self.data = {f"dcim/{endpoint}": records for endpoint, records in data.items()}
        for path in ("ipam/ip-addresses", "ipam/vlans", "ipam/vrfs"):
            self.data.setdefault(path, [])
        self.token, self.max_page_size, self.next_host = token, max_page_size, next_host
        self.requests: list[tuple[str, str]] = []
        self.writes: list[tuple[str, str, dict]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeNetbox:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, status: int, body: object) -> None:
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _authorised(self) -> bool:
                if self.headers.get("Authorization") != f"Token {fake.token}":
                    self._send(403, {"detail": "Invalid token"})
                    return False
                return True

            def _path(self) -> str:
                return urlsplit(self.path).path.removeprefix("/api/").strip("/")

            def do_GET(self):  # http.server's name
                fake.requests.append(("GET", self.path))
                if not self._authorised():
                    return
                path = self._path()
                records = fake.data.get(path)
                if records is None:
                    return self._send(404, {"detail": "Not found."})
                query = parse_qs(urlsplit(self.path).query)
                limit = min(int(query.get("limit", ["50"])[0]) or fake.max_page_size, fake.max_page_size)
                offset = int(query.get("offset", ["0"])[0])
                for key, values in query.items():
                    if key not in ("limit", "offset"):
                        records = [r for r in records if _field(r, key) is None or str(_field(r, key)) in values]
                host = fake.next_host or fake.url
                following = offset + limit
                self._send(200, {
                    "count": len(records),
                    "next": f"{host}/api/{path}/?limit={limit}&offset={following}" if following < len(records) else None,
                    "previous": None, "results": records[offset:following]})

            def _body(self) -> dict:
                length = int(self.headers.get("Content-Length", 0))
                return json.loads(self.rfile.read(length) or b"{}")

            def do_POST(self):
                fake.requests.append(("POST", self.path))
                if not self._authorised():
                    return
                path, body = self._path(), self._body()
                records = fake.data.setdefault(path, [])
                record = {"id": max([r["id"] for r in records] or [0]) + 1, **body}
                records.append(record)
                fake.writes.append(("POST", path, body))
                self._send(201, record)

            def do_PATCH(self):
                fake.requests.append(("PATCH", self.path))
                if not self._authorised():
                    return
                path, body = self._path(), self._body()
                collection, _, object_id = path.rpartition("/")
                record = next((r for r in fake.data.get(collection, []) if str(r["id"]) == object_id), None)
                if record is None:
                    return self._send(404, {"detail": "Not found."})
                for key, value in body.items():
                    if isinstance(value, dict) and isinstance(record.get(key), dict):
                        record[key] = {**record[key], **value}
                    else:
                        record[key] = value
                fake.writes.append(("PATCH", path, body))
                self._send(200, record)

        return Handler


def _field(record: dict, key: str):
    """NetBox-style filters of the fake: ``site`` matches the nested site slug (records without one pass, as the
    real filter reaches them through their device), else a top-level field."""
    if key == "site":
        site = record.get("site") or (record.get("device") or {}).get("site") or {}
        return site.get("slug") if isinstance(site, dict) else site
    value = record.get(key)
    return value.get("id") if isinstance(value, dict) else value
