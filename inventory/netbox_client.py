"""The NetBox REST API client: read every page of the dcim endpoints the importer maps, and write allocations
back (IPAM objects and custom fields). Plain ``requests``; nothing here knows our models.

Pagination follows ``next`` to the end and checks the collected records against ``count`` (NetBox caps a page at
MAX_PAGE_SIZE, 1000 by default: a client that reads one page silently truncates). A ``next`` link or a redirect
to another host than the one configured is refused rather than followed, so the token is never sent elsewhere.

A hostile or broken NetBox cannot exhaust the server (issue 29: an endless page set grew memory ~2.1 GB a
minute): each answer is read up to MAX_RESPONSE_BYTES, one client reads at most MAX_CLIENT_BYTES in all, a list
stops at MAX_PAGES pages or MAX_RECORDS records, at a page it has already read, or when it holds more records
than NetBox's own ``count``. Errors name the method, the URL path and the HTTP status only: a remote answer's
body is never shown (sync errors are read by viewers).
Tokens: NetBox <= 4.4 keys go as ``Authorization: Token <key>``; NetBox 4.5 v2 tokens (``nbt_...``) as ``Bearer``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests

from compiler.errors import FabricTwinError, FieldError

from .netbox import ENDPOINTS, page_problem

PAGE_LIMIT = 1000  # NetBox's default MAX_PAGE_SIZE; a larger limit is capped by the server anyway
TIMEOUT_S = 30.0
# A page of 1,000 interfaces is ~3-5 MB of JSON; a 1,088-switch fabric has ~140,000 interfaces, the largest list.
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
MAX_CLIENT_BYTES = 512 * 1024 * 1024
MAX_RECORDS = 500_000
MAX_PAGES = 10_000  # 500,000 records at NetBox's smallest sensible page (50, its default PAGINATE_COUNT)
MAX_REDIRECTS = 3


class NetboxApiError(FabricTwinError):
    """NetBox answered with an error, an unreadable body or a truncated page set, or could not be reached."""


@dataclass
class NetboxClient:
    url: str  # e.g. https://netbox.example.com (with or without a trailing /api)
    token: str = field(repr=False)
    timeout_s: float = TIMEOUT_S
    verify_tls: bool = True
    session: requests.Session = field(default_factory=requests.Session, repr=False)
    bytes_read: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        base = self.url.rstrip("/")
        self.base = base[:-len("/api")] if base.endswith("/api") else base
        parts = urlsplit(self.base)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise NetboxApiError(str(FieldError("url", self.url, "must be an http(s) URL of a NetBox")))
        scheme = "Bearer" if self.token.startswith("nbt_") else "Token"
        self.session.headers.update({"Authorization": f"{scheme} {self.token}", "Accept": "application/json"})

    def _request(self, method: str, url: str, **kwargs) -> Any:
        where = f"{method} {urlsplit(url).path}"
        for _ in range(MAX_REDIRECTS + 1):
            if urlsplit(url).netloc != urlsplit(self.base).netloc:
                raise NetboxApiError(f"{where}: NetBox pointed to another host than {self.base}: refused (the token "
                                     "would be sent there); set the NetBox BASE_PATH/ALLOWED_HOSTS so links use its "
                                     "URL")
            try:  # redirects are followed here, on this host only: requests would follow them anywhere
                response = self.session.request(method, url, timeout=self.timeout_s, verify=self.verify_tls,
                                                allow_redirects=False, stream=True, **kwargs)
            except requests.RequestException as error:
                raise NetboxApiError(f"{where}: {type(error).__name__} (NetBox could not be reached)") from None
            with response:
                if not response.is_redirect:
                    return self._answer(where, response)
                url = urljoin(url, response.headers.get("Location", ""))
                kwargs.pop("params", None)  # the Location carries the query already
        raise NetboxApiError(f"{where}: more than {MAX_REDIRECTS} redirects")

    def _answer(self, where: str, response: requests.Response) -> Any:
        """The JSON of an answer read up to the byte limits; an error names the status, never the body."""
        if response.status_code >= 400:
            raise NetboxApiError(f"{where}: HTTP {response.status_code}")
        if response.status_code == 204:
            return None
        body = bytearray()
        for chunk in response.iter_content(chunk_size=1024 * 1024):
            body += chunk
            self.bytes_read += len(chunk)
            if len(body) > MAX_RESPONSE_BYTES:
                raise NetboxApiError(f"{where}: HTTP {response.status_code}: the answer is over MAX_RESPONSE_BYTES="
                                     f"{MAX_RESPONSE_BYTES} bytes")
            if self.bytes_read > MAX_CLIENT_BYTES:
                raise NetboxApiError(f"{where}: NetBox answered more than MAX_CLIENT_BYTES={MAX_CLIENT_BYTES} bytes "
                                     "in all")
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            raise NetboxApiError(f"{where}: HTTP {response.status_code}: the answer is not JSON") from None

    def api_url(self, path: str) -> str:
        return f"{self.base}/api/{path.strip('/')}/"

    def list(self, path: str, **filters: Any) -> list[dict]:
        """Every record of a list endpoint, following ``next``; refused when fewer than ``count`` arrive."""
        url: str | None = self.api_url(path)
        params: dict[str, Any] | None = {"limit": PAGE_LIMIT, **filters}
        records: list[dict] = []
        count = None
        seen: set[str] = set()
        where = f"GET {urlsplit(self.api_url(path)).path}"
        while url:
            if url in seen or len(seen) >= MAX_PAGES:
                raise NetboxApiError(f"{where}: a next link loops or the list is over MAX_PAGES={MAX_PAGES} pages")
            seen.add(url)
            page = self._request("GET", url, params=params)
            params = None  # ``next`` carries the query
            if not isinstance(page, dict) or not isinstance(page.get("results"), list):
                raise NetboxApiError(f"{where}: expected a page with results")
            count = page.get("count") if count is None else count
            records.extend(page["results"])
            if len(records) > MAX_RECORDS or (isinstance(count, int) and len(records) > count):
                raise NetboxApiError(f"{where}: more records than NetBox's count ({count}) or MAX_RECORDS="
                                     f"{MAX_RECORDS}: an endless page set")
            url = page.get("next")
            if url is not None and not isinstance(url, str):
                raise NetboxApiError(f"{where}: the next link is not a URL")
        problem = page_problem(self.api_url(path), count, len({repr(r.get("id")) for r in records if isinstance(r, dict)}),
                               None)
        if problem:
            raise NetboxApiError(str(problem))
        return records

    def dump(self, **filters: Any) -> dict[str, list[dict]]:
        """What ``inventory.netbox.load_dump`` reads from files, read live: every dcim endpoint, every page."""
        return {endpoint: self.list(f"dcim/{endpoint}", **filters) for endpoint in ENDPOINTS}

    def create(self, path: str, body: dict) -> dict:
        return self._request("POST", self.api_url(path), json=body)

    def update(self, path: str, object_id: int, body: dict) -> dict:
        return self._request("PATCH", f"{self.api_url(path)}{object_id}/", json=body)
