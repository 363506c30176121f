"""Hardening of the web side: CSP on every page and no inline script the CSP would block, HTTPS headers with DEBUG
off, the login lock-out (django-axes), API throttling, hashed expiring tokens with rotation (django-rest-knox)."""

from __future__ import annotations

import base64
import datetime
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.auth.password_validation import validate_password
from django.contrib.staticfiles import finders
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from common.redaction import MAX_LOG_TEXT, RedactSecretsFilter, redact_text
from common.roles import VIEWER, roles_ensure
from common.security import policy_for_path
from common.tokens import token_issue

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_DIRS = [ROOT / "ui" / "templates", ROOT / "templates"]
# What a CSP without 'unsafe-inline' for scripts blocks: inline event handlers, javascript: URLs, <script> bodies.
INLINE_SCRIPT = re.compile(r"""\son[a-z]+\s*=|javascript:|<script(?![^>]*\bsrc=)[^>]*>""", re.IGNORECASE)
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()  # throttle counters
    yield
    cache.clear()


def _inline_scripts(text: str) -> list[str]:
    return INLINE_SCRIPT.findall(text)


def test_no_template_has_an_inline_script_or_handler():
    offenders = {str(path.relative_to(ROOT)): found
                 for directory in TEMPLATE_DIRS if directory.is_dir() for path in directory.rglob("*.html")
                 if (found := _inline_scripts(path.read_text()))}
    assert offenders == {}


def test_the_inline_script_detector_finds_what_the_csp_blocks():
    assert _inline_scripts('<select onchange="go()">') and _inline_scripts("<a href='javascript:x()'>")
    assert _inline_scripts("<script>alert(1)</script>")
    assert not _inline_scripts('<script src="/static/ui/ui.js" defer></script><select data-autosubmit>')


@pytest.mark.django_db
def test_every_page_carries_the_csp_and_scripts_come_from_this_origin_only(settings):
    response = Client().get("/login/")
    assert response.status_code == 200
    policy = response["Content-Security-Policy"]
    assert policy == settings.FT_CSP
    directives = dict(item.strip().split(" ", 1) for item in policy.split(";"))
    assert directives["script-src"] == "'self'" and directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"
    roles_ensure()
    user = User.objects.create_user("csp-reader")
    user.groups.add(Group.objects.get(name=VIEWER))
    client = Client()
    client.force_login(user)
    page = client.get("/")
    assert page.status_code == 200 and page["Content-Security-Policy"] == policy
    assert 'src="/static/ui/ui.js"' in page.content.decode()  # the handlers' new home is loaded
    api = Client().get("/api/fabrics/")
    assert api["Content-Security-Policy"] == settings.FT_CSP
    # Swagger UI and ReDoc come from this origin (drf-spectacular-sidecar): no policy names a CDN
    assert all("cdn.jsdelivr.net" not in policy_for_path(path) for path in ("/", "/api/docs/", "/api/redoc/"))
    # Swagger UI starts from a script URL of this origin, not an inline script the docs policy would block.
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and _inline_scripts(docs.content.decode()) == []
    assert "'unsafe-inline'" not in docs["Content-Security-Policy"].split("script-src")[1].split(";")[0]
    script = client.get("/api/docs/", {"script": ""})
    assert script.status_code == 200 and "SwaggerUIBundle" in script.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in docs.content.decode()
    assert "cdn.jsdelivr.net" not in docs.content.decode() + script.content.decode()
    redoc = client.get("/api/redoc/")
    page = redoc.content.decode()
    assert redoc.status_code == 200 and _inline_scripts(page) == [] and "https://" not in page
    bundle = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
    assert f"/static/{bundle}" in page and finders.find(bundle)
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")


@pytest.mark.django_db
def test_ui_js_handles_what_the_templates_declare():
    script = (ROOT / "ui" / "static" / "ui" / "ui.js").read_text()
    for attribute in ("navigate", "data-autosubmit", "confirm"):
        assert attribute in script
    declared = set()
    for directory in TEMPLATE_DIRS:
        if directory.is_dir():
            for path in directory.rglob("*.html"):
                declared |= set(re.findall(r"\bdata-(navigate|autosubmit|confirm)\b", path.read_text()))
    assert declared == {"navigate", "autosubmit", "confirm"}


HEADERS_PROBE = """
import django, json
django.setup()
from django.test import Client
plain = Client().get("/login/")
secure = Client().get("/login/", secure=True)
cookie = secure.cookies.get("csrftoken")
print(json.dumps({"plain_status": plain.status_code, "plain_location": plain.get("Location", ""),
                  "status": secure.status_code, "hsts": secure.get("Strict-Transport-Security", ""),
                  "csp": secure.get("Content-Security-Policy", ""), "nosniff": secure.get("X-Content-Type-Options"),
                  "frame": secure.get("X-Frame-Options"), "referrer": secure.get("Referrer-Policy"),
                  "cookie_secure": bool(cookie and cookie["secure"]), "cookie_samesite": cookie["samesite"] if cookie else ""}))
"""


def _headers(env: dict, tmp_path) -> dict:
    clean = {key: value for key, value in os.environ.items()
             if key not in {"DEBUG", "SECRET_KEY", "DATABASE_URL", "FT_HTTPS", "DJANGO_SETTINGS_MODULE"}}
    result = subprocess.run([sys.executable, "-c", HEADERS_PROBE], cwd=ROOT, capture_output=True, text=True,
                            timeout=120, env={**clean, "DJANGO_SETTINGS_MODULE": "twin.settings",
                                              "SECRET_KEY": "k" * 40 + "Zq9-x", "FT_DATA_DIR": str(tmp_path),
                                              "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", **env})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_debug_off_serves_https_only_with_hsts_csp_and_secure_cookies(tmp_path):
    production = _headers({}, tmp_path)
    assert production["plain_status"] == 301 and production["plain_location"].startswith("https://")
    assert production["status"] == 200
    assert production["hsts"] == "max-age=31536000; includeSubDomains"
    assert "script-src 'self';" in production["csp"]
    assert production["nosniff"] == "nosniff" and production["frame"] == "DENY"
    assert production["referrer"] == "same-origin"
    assert production["cookie_secure"] is True and production["cookie_samesite"] == "Lax"
    # The deliberately broken case: DEBUG on (make demo) has none of the HTTPS protections.
    demo = _headers({"DEBUG": "1"}, tmp_path)
    assert demo["plain_status"] == 200 and demo["hsts"] == "" and demo["cookie_secure"] is False
    assert demo["csp"]  # the CSP applies in development too, so a blocked script shows up there first


# ------------------------------------------------------------------------------------------------- login lock-out

@pytest.fixture
def alice(db):
    user = User.objects.create_user("alice", password=PASSWORD)
    user.groups.add(Group.objects.get(name="viewer"))  # the API needs a role (common/policy.py)
    return user


def _login(client: Client, password: str, ip: str = "198.51.100.7"):
    return client.post("/login/", {"username": "alice", "password": password}, REMOTE_ADDR=ip)


def test_failed_logins_lock_out_the_user_from_that_address(alice, settings):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login(client, "wrong").status_code == 200  # the form again, with an error
    assert _login(client, "wrong").status_code == 429  # the limit-th failure locks
    locked = _login(client, PASSWORD)
    assert locked.status_code == 429 and "_auth_user_id" not in client.session  # even the right password
    other_address = Client()
    assert _login(other_address, PASSWORD, ip="198.51.100.8").status_code == 302  # per (user, IP)
    call_command("axes_reset")
    assert _login(Client(), PASSWORD).status_code == 302


def test_without_the_lockout_the_same_attack_would_succeed(alice, settings):
    """The deliberately broken case: axes disabled, the password after the failures logs in."""
    settings.AXES_ENABLED = False
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT + 2):
        _login(client, "wrong")
    assert _login(client, PASSWORD).status_code == 302


def test_api_basic_login_counts_towards_the_same_lockout(alice, settings):
    client = APIClient(REMOTE_ADDR="198.51.100.9")
    client.credentials(HTTP_AUTHORIZATION="Basic " + _basic("alice", "wrong"))
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert client.post("/api/auth/login/").status_code in (401, 429)
    client.credentials(HTTP_AUTHORIZATION="Basic " + _basic("alice", PASSWORD))
    assert client.post("/api/auth/login/").status_code in (401, 403, 429)
    assert not AuthToken.objects.filter(user=alice).exists()


def _basic(username: str, password: str) -> str:
    return base64.b64encode(f"{username}:{password}".encode()).decode()


# ------------------------------------------------------------------------------------------------- API throttling

def test_api_requests_beyond_the_rate_get_429_with_retry_after(api_client, monkeypatch):
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/minute"})
    statuses = [api_client.get("/api/fabrics/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    throttled = api_client.get("/api/fabrics/")
    assert throttled.status_code == 429 and int(throttled["Retry-After"]) > 0


def test_anonymous_callers_are_throttled_by_address(db, monkeypatch):
    """DRF checks permissions before throttles, so the anonymous rate guards what anonymous callers may reach
    (the OpenAPI schema, generated per request); a bad password or token is refused (401) before it."""
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "1/minute"})
    client = APIClient(REMOTE_ADDR="203.0.113.5")
    assert [client.get("/api/schema/").status_code for _ in range(2)] == [200, 429]
    assert APIClient(REMOTE_ADDR="203.0.113.6").get("/api/fabrics/").status_code == 401


def test_under_the_rate_nothing_is_throttled(api_client, monkeypatch):
    """The broken case for the throttle test: a rate above the request count gives no 429."""
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "50/minute"})
    assert {api_client.get("/api/fabrics/").status_code for _ in range(10)} == {200}


# ------------------------------------------------------------------------------------------------- tokens

def _raw_rows(table: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT * FROM "{table}"')  # a fixed table name
        return repr(cursor.fetchall())


def test_tokens_are_stored_hashed(api_client, api_user):
    assert api_client.get("/api/fabrics/").status_code == 200
    stored = AuthToken.objects.get(user=api_user)
    assert api_client.token not in _raw_rows(AuthToken._meta.db_table)
    assert len(stored.digest) == 128 and stored.token_key == api_client.token[:15]  # SHA-512 hex, lookup prefix


def test_tokens_expire(api_client, api_user, settings):
    stored = AuthToken.objects.get(user=api_user)
    assert stored.expiry is not None
    assert stored.expiry - stored.created == pytest.approx(settings.REST_KNOX["TOKEN_TTL"],
                                                            abs=datetime.timedelta(seconds=5))
    AuthToken.objects.filter(pk=stored.pk).update(expiry=timezone.now() - datetime.timedelta(seconds=1))
    assert api_client.get("/api/fabrics/").status_code == 401
    assert not AuthToken.objects.filter(pk=stored.pk).exists()  # expired tokens are deleted when presented


def test_rotation_revokes_the_old_token_and_returns_a_working_new_one(api_client, api_user):
    response = api_client.post("/api/auth/token/rotate/")
    assert response.status_code == 200
    new = response.json()["token"]
    assert new != api_client.token and response.json()["expiry"]
    assert api_client.get("/api/fabrics/").status_code == 401  # the old one
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {new}")
    assert fresh.get("/api/fabrics/").status_code == 200
    assert AuthToken.objects.filter(user=api_user).count() == 1
    assert fresh.post("/api/auth/logout/").status_code == 204
    assert fresh.get("/api/fabrics/").status_code == 401


def test_rotation_needs_a_caller(db):
    assert APIClient().post("/api/auth/token/rotate/").status_code == 401


def test_logout_all_revokes_every_token_of_the_caller_only(api_client, api_user):
    second, _ = token_issue(user=api_user)
    bob = User.objects.create_user("bob")
    bob.groups.add(Group.objects.get(name="viewer"))
    bob_token, _ = token_issue(user=bob)
    assert api_client.post("/api/auth/logout-all/").status_code == 204
    for token, expected in ((second, 401), (bob_token, 200)):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        assert client.get("/api/fabrics/").status_code == expected


def test_basic_login_issues_a_token(alice):
    client = APIClient(REMOTE_ADDR="198.51.100.20")
    client.credentials(HTTP_AUTHORIZATION="Basic " + _basic("alice", PASSWORD))
    response = client.post("/api/auth/login/")
    assert response.status_code == 200, response.content
    token = response.json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/fabrics/").status_code == 200


def test_api_token_command_issues_a_working_token(alice, capsys):
    call_command("api_token", "alice", "--ttl-hours", "2")
    token = capsys.readouterr().out.strip()
    stored = AuthToken.objects.get(user=alice)
    assert datetime.timedelta(hours=1, minutes=59) < stored.expiry - stored.created <= datetime.timedelta(hours=2)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/fabrics/").status_code == 200
    call_command("api_token", "alice", "--revoke-all", "--ttl-hours", "0")
    assert client.get("/api/fabrics/").status_code == 401
    assert AuthToken.objects.get(user=alice).expiry is None


@pytest.mark.parametrize(("args", "message"), [
    (("nobody",), "username='nobody': no such user"),
    (("alice", "--ttl-hours", "-1"), "--ttl-hours=-1: must be 0"),
])
def test_api_token_command_errors_name_the_value(alice, args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("api_token", *args)
    assert not AuthToken.objects.exists()


# ------------------------------------------------------------------------------------------------- passwords

@pytest.mark.parametrize("weak", ["short-pw", "123456789012345", "password1234", "alice-the-admin"])
def test_weak_passwords_are_refused(weak):
    with pytest.raises(ValidationError):
        validate_password(weak, User(username="alice-the-admin"))


def test_a_strong_password_passes():
    validate_password("tarmac-Ossify-91-lantern", User(username="alice"))


# --------------------------------------------------------------------------------------------- linear-time text (#29)

def test_an_8000_character_host_header_is_refused_fast_and_its_log_line_bounded(db, settings):
    """Django logs an invalid Host before any throttle; the log line passes the redaction filter, which was
    quadratic (~15 s of CPU for 8,000 characters, issue 29). With DEBUG off: 400, the log line cut, well under a
    second."""
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["testserver"]
    host = "a" * 8000
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Keep()
    handler.addFilter(RedactSecretsFilter())
    security = logging.getLogger("django.security.DisallowedHost")
    security.addHandler(handler)
    client = Client(raise_request_exception=False)
    client.get("/", HTTP_HOST="a" * 10)  # warm-up: the first request of a process loads the URLconf and middleware
    try:
        started = time.perf_counter()
        response = client.get("/", HTTP_HOST=host)
        elapsed = time.perf_counter() - started
    finally:
        security.removeHandler(handler)
    assert response.status_code == 400
    assert elapsed < 1.0, elapsed
    assert records and all(len(record.getMessage()) <= MAX_LOG_TEXT + 40 for record in records)
    # 10^5 characters of the shape that was quadratic through the filter: bounded and linear.
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "Invalid HTTP_HOST header: %s", ("k" * 100_000,), None)
    started = time.perf_counter()
    RedactSecretsFilter().filter(record)
    assert time.perf_counter() - started < 0.5
    assert "[truncated " in record.getMessage()


def test_redaction_of_long_text_is_linear():
    """The unbounded paths (audit entries, step output, run records) call redact_text on whole texts: 10^6
    characters of each shape that made the old pattern backtrack take well under a second, and a secret after them
    is still hidden."""
    for shape in ("a", "key", "key=", "key ", "password'", "a-b.", " "):
        text = shape * (1_000_000 // len(shape)) + " password=hunter22"
        started = time.perf_counter()
        redacted = redact_text(text)
        assert time.perf_counter() - started < 1.0, shape
        assert "hunter22" not in redacted


@pytest.mark.django_db
def test_a_100000_character_name_in_an_import_is_refused_fast(tmp_path):
    """A 100,000-character switch name in a NetBox import ran for over 50 minutes (issue 29): refused, fast, with
    the error naming the field."""
    from tests.inventory.test_inventory_import_hostile import NETBOX_FIXTURE

    directory = tmp_path / "netbox"
    shutil.copytree(NETBOX_FIXTURE, directory)
    document = json.loads((directory / "devices.json").read_text())
    records = document["results"] if isinstance(document, dict) else document
    records[0]["name"] = "leaf" + "a" * 100_000
    (directory / "devices.json").write_text(json.dumps(document), encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(CommandError) as caught:
        call_command("netbox_import", str(directory), "--fabric", "nb", stdout=io.StringIO(), stderr=io.StringIO())
    assert time.perf_counter() - started < 5.0
    assert "name" in str(caught.value)
