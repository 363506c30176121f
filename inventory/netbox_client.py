"""The NetBox REST API client: read every page of the dcim endpoints the importer maps, and write allocations
back (IPAM objects and custom fields). Plain ``requests``; nothing here knows our models.

Pagination follows ``next`` to the end and checks the collected records against ``count`` (NetBox caps a page at
MAX_PAGE_SIZE, 1000 by default: a client that reads one page silently truncates). A ``next`` link to another host
than the one configured is refused rather than followed, so the token is never sent elsewhere.
Tokens: NetBox <= 4.4 keys go as ``Authorization: Token <key>``; NetBox 4.5 v2 tokens (``nbt_...``) as ``Bearer``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import requests

from compiler.errors import FabricTwinError, FieldError

from .netbox import ENDPOINTS, page_problem

PAGE_LIMIT = 1000  # NetBox's default MAX_PAGE_SIZE; a larger limit is capped by the server anyway
TIMEOUT_S = 30.0


class NetboxApiError(FabricTwinError):
    """NetBox answered with an error, an unreadable body or a truncated page set, or could not be reached."""


@dataclass
class NetboxClient:
    url: str  # e.g. https://netbox.example.com (with or without a trailing /api)
    token: str = field(repr=False)
    timeout_s: float = TIMEOUT_S
    verify_tls: bool = True
    session: requests.Session = field(default_factory=requests.Session, repr=False)

    def __post_init__(self) -> None:
        base = self.url.rstrip("/")
        self.base = base[:-len("/api")] if base.endswith("/api") else base
        parts = urlsplit(self.base)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise NetboxApiError(str(FieldError("url", self.url, "must be an http(s) URL of a NetBox")))
        scheme = "Bearer" if self.token.startswith("nbt_") else "Token"
        self.session.headers.update({"Authorization": f"{scheme} {self.token}", "Accept": "application/json"})

    def _request(self, method: str, url: str, **kwargs) -> Any:
        if urlsplit(url).netloc != urlsplit(self.base).netloc:
            raise NetboxApiError(f"NetBox pointed to {url}, another host than {self.base}: refused (the token "
                                 "would be sent there); set the NetBox BASE_PATH/ALLOWED_HOSTS so links use its URL")
        try:
            response = self.session.request(method, url, timeout=self.timeout_s, verify=self.verify_tls, **kwargs)
        except requests.RequestException as error:
            raise NetboxApiError(f"{method} {url}: {type(error).__name__}: {error}") from None
        if response.status_code >= 400:
            raise NetboxApiError(f"{method} {url}: HTTP {response.status_code}: {response.text[:300]}")
        if response.status_code == 204:
            return None
        try:
            return response.json()
        except ValueError:
            raise NetboxApiError(f"{method} {url}: the answer is not JSON") from None

    def api_url(self, path: str) -> str:
        return f"{self.base}/api/{path.strip('/')}/"

    def list(self, path: str, **filters: Any) -> list[dict]:
        """Every record of a list endpoint, following ``next``; refused when fewer than ``count`` arrive."""
        url: str | None = self.api_url(path)
        params: dict[str, Any] | None = {"limit": PAGE_LIMIT, **filters}
        records: list[dict] = []
        count = None
        pages = 0
        while url:
            page = self._request("GET", url, params=params)
            params = None  # ``next`` carries the query
            if not isinstance(page, dict) or not isinstance(page.get("results"), list):
                raise NetboxApiError(f"GET {url}: expected a page with results")
            count = page.get("count") if count is None else count
            records.extend(page["results"])
            url = page.get("next")
            pages += 1
            if pages > 100_000:
                raise NetboxApiError(f"GET {path}: more than 100000 pages (a next-link loop?)")
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
