"""HTTP hardening that Django does not ship: the Content-Security-Policy header and the login throttle backend.

The settings that drive them (FT_CSP, FT_CSP_PATHS, AXES_*) live in twin/settings.py; docs/security.md says why.
"""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission
from django.db.models import Q


class ContentSecurityPolicyMiddleware:
    """Set ``Content-Security-Policy`` on every response that has none: ``settings.FT_CSP``, or the policy of the
    longest ``settings.FT_CSP_PATHS`` prefix the request path starts with (Swagger UI needs its CDN)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy_for_path(request.path)
        return response


def policy_for_path(path: str) -> str:
    prefixes = [prefix for prefix in settings.FT_CSP_PATHS if path.startswith(prefix)]
    return settings.FT_CSP_PATHS[max(prefixes, key=len)] if prefixes else settings.FT_CSP


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' lock-out check for every login that comes with a request (the login page, DRF basic auth).

    ``authenticate()`` without a request (a management command, a test client's ``login()``) is not reachable
    from the network, so it is not throttled here: axes would refuse it outright.
    """

    def authenticate(self, request=None, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class PermissionsModelBackend(ModelBackend):
    """Django's ModelBackend with a user's permissions read in one query, not two (their own, then their groups'):
    every API request and page checks a capability (common.policy), so this is one query less per request (issue 29).
    Cached on the user object for the request, as Django does; a role change applies to the next request."""

    def get_all_permissions(self, user_obj, obj=None):
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            if user_obj.is_superuser:
                permissions = Permission.objects.all()
            else:
                permissions = Permission.objects.filter(Q(user=user_obj) | Q(group__user=user_obj))
            user_obj._perm_cache = {f"{app_label}.{codename}" for app_label, codename in
                                    permissions.values_list("content_type__app_label", "codename").distinct()}
        return user_obj._perm_cache
