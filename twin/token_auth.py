"""The API's token authentication: django-rest-knox's, without its sweep of the caller's tokens on every request.

Its own module: DRF imports the authentication classes while its views are being imported, so this must not import
views (common.tokens does).
"""

from __future__ import annotations

from django.utils import timezone
from knox import auth as knox_auth
from knox.signals import token_expired


class TokenAuthentication(knox_auth.TokenAuthentication):
    """knox's token check without its per-request sweep: knox read every token of the caller on every request to
    delete the expired ones (one query and a loop per request, growing with the user's tokens; issue 29). The
    token of the request is still refused and deleted once expired; the user's other expired tokens are deleted
    when a new token is issued (``token_issue``)."""

    def _cleanup_token(self, auth_token) -> bool:
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            username = auth_token.user.get_username()
            auth_token.delete()
            token_expired.send(sender=self.__class__, username=username, source="auth_token")
            return True
        return False
