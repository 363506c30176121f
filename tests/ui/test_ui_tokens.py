"""The personal API tokens page: a token shown once works on the API, is listed by its key prefix, and can be
revoked by its owner only."""

import re

from django.test import Client
from knox.models import AuthToken

from common.tokens import token_issue


def _api_status(token: str) -> int:
    return Client().get("/api/fabrics/", HTTP_AUTHORIZATION=f"Token {token}").status_code


def test_a_token_from_the_ui_works_on_the_api_until_revoked(viewer, db):
    assert viewer.get("/account/tokens/").status_code == 200
    page = viewer.post("/account/tokens/", {"action": "create"}).content.decode()
    token = re.search(r'<pre id="issued-token">([^<]+)</pre>', page).group(1)
    assert _api_status(token) == 200
    listed = viewer.get("/account/tokens/").content.decode()
    key = AuthToken.objects.get().token_key
    assert token.startswith(key) and f"<code>{key}…</code>" in listed
    assert token not in listed, [line for line in listed.splitlines() if token in line]  # never shown again
    assert viewer.post("/account/tokens/", {"action": "revoke", "token_key": key}).status_code == 302
    assert _api_status(token) == 401


def test_another_users_token_cannot_be_revoked(viewer, operator):
    other = operator.user
    token, instance = token_issue(user=other)
    response = viewer.post("/account/tokens/", {"action": "revoke", "token_key": instance.token_key}, follow=True)
    assert "No token" in response.content.decode()
    assert _api_status(token) == 200


def test_anonymous_is_sent_to_log_in(client, db):
    response = client.get("/account/tokens/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
