"""API tokens: issue, rotate, revoke (django-rest-knox stores only a SHA-512 digest, and each token expires).

The clear token is shown once, when issued; the database keeps ``digest`` and an 15-character ``token_key``
prefix for lookup. Clients send ``Authorization: Token <token>``. Lifetime: settings.REST_KNOX["TOKEN_TTL"]
(FT_API_TOKEN_TTL_HOURS); ``manage.py api_token`` can issue a longer-lived one for automation.

Endpoints (every authenticated user, for their own tokens only):
    POST /api/auth/login/         HTTP basic username/password -> a new token (failed logins throttled by axes)
    POST /api/auth/token/rotate/  the token of this request is revoked, a new one returned
    POST /api/auth/logout/        revoke the token of this request
    POST /api/auth/logout-all/    revoke every token of the caller
"""

from __future__ import annotations

import datetime

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import extend_schema, inline_serializer
from knox.models import AuthToken
from knox.views import LoginView, LogoutAllView, LogoutView
from rest_framework import serializers
from rest_framework.authentication import BasicAuthentication
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from common.policy import PolicyPermission

_UNSET = object()
TokenSerializer = inline_serializer("IssuedToken", {
    "token": serializers.CharField(help_text="shown once; send as 'Authorization: Token <token>'"),
    "expiry": serializers.DateTimeField(allow_null=True),
})


def token_issue(*, user, ttl: datetime.timedelta | None | object = _UNSET) -> tuple[str, AuthToken]:
    """A new token for ``user``: (the clear token, shown once; the stored row). ``ttl=None``: never expires. The
    user's expired tokens are deleted first (authentication no longer sweeps them on every request)."""
    AuthToken.objects.filter(user=user, expiry__lt=timezone.now()).delete()
    if ttl is _UNSET:
        instance, token = AuthToken.objects.create(user=user)
    else:
        instance, token = AuthToken.objects.create(user=user, expiry=ttl)
    return token, instance


def token_list_of(*, user) -> QuerySet[AuthToken]:
    """``user``'s tokens, newest first (the tokens page)."""
    return AuthToken.objects.filter(user=user).order_by("-created")


def token_revoke(*, user, token_key: str) -> bool:
    """Delete ``user``'s token with this key prefix; False when there is none of theirs."""
    deleted, _ = AuthToken.objects.filter(user=user, token_key=token_key).delete()
    return bool(deleted)


@transaction.atomic
def token_rotate(*, user, current: AuthToken | None) -> tuple[str, AuthToken]:
    """Revoke ``current`` (the caller's token; None for a session) and issue a new one with a fresh lifetime."""
    if current is not None:
        AuthToken.objects.filter(pk=current.pk, user=user).delete()
    return token_issue(user=user)


# Issuing tokens is additionally limited per caller (FT_API_THROTTLE_TOKEN, scope "token_rotate").
_TOKEN_THROTTLES = (AnonRateThrottle, UserRateThrottle, ScopedRateThrottle)


def _issued(token: str, instance: AuthToken) -> dict:
    return {"token": token, "expiry": instance.expiry}


class TokenLoginView(LoginView):
    """Username and password (HTTP basic) for a token; wrong passwords count towards the axes lock-out."""

    permission_classes = (PolicyPermission,)  # knox sets IsAuthenticated; the policy decides here too
    authentication_classes = (BasicAuthentication,)
    throttle_scope = "token_rotate"
    throttle_classes = _TOKEN_THROTTLES

    def get_post_response_data(self, request, token, instance):
        return _issued(token, instance)

    @extend_schema(request=None, responses={200: TokenSerializer}, tags=["auth"])
    def post(self, request, format=None):
        return super().post(request, format)


class TokenRotateView(APIView):
    throttle_scope = "token_rotate"
    throttle_classes = _TOKEN_THROTTLES

    @extend_schema(request=None, responses={200: TokenSerializer}, tags=["auth"])
    def post(self, request):
        current = request.auth if isinstance(request.auth, AuthToken) else None
        token, instance = token_rotate(user=request.user, current=current)
        return Response(_issued(token, instance))


class TokenLogoutView(LogoutView):
    permission_classes = (PolicyPermission,)  # knox sets IsAuthenticated; the policy decides here too

    @extend_schema(request=None, responses={204: None}, tags=["auth"])
    def post(self, request, format=None):
        return super().post(request, format)


class TokenLogoutAllView(LogoutAllView):
    permission_classes = (PolicyPermission,)  # knox sets IsAuthenticated; the policy decides here too

    @extend_schema(request=None, responses={204: None}, tags=["auth"])
    def post(self, request, format=None):
        return super().post(request, format)
