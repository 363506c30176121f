"""Every app's API routes under /api/. Each app exposes ``api.urls.router`` (a DRF router) or urlpatterns."""

from django.http import JsonResponse
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt

from common import tokens
from intents.api.adopt import FabricAdoptView


@csrf_exempt  # it changes nothing; a write with a session cookie must get this 404, not the CSRF failure page
def api_not_found(request, *args, **kwargs):
    """Any other /api/.../ URL (e.g. an id that is not a number): a JSON 404 like every API error, not the HTML page."""
    return JsonResponse({"detail": f"no API endpoint at {request.path[:200]}"}, status=404)


urlpatterns = [
    # Before the inventory router, whose fabrics/<pk>/ would take "adopt" for an id.
    path("fabrics/adopt/", FabricAdoptView.as_view(), name="fabric-adopt"),
    path("", include("inventory.api.urls")),
    path("", include("intents.api.urls")),
    path("", include("changes.api.urls")),
    path("", include("twins.api.urls")),
    path("", include("validation.api.urls")),
    path("auth/login/", tokens.TokenLoginView.as_view(), name="auth-login"),
    path("auth/token/rotate/", tokens.TokenRotateView.as_view(), name="auth-token-rotate"),
    path("auth/logout/", tokens.TokenLogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all/", tokens.TokenLogoutAllView.as_view(), name="auth-logout-all"),
    # Last, and only for paths ending in "/", so CommonMiddleware's APPEND_SLASH still redirects /api/sites.
    re_path(r"^[\s\S]*/$", api_not_found),  # any character, a newline too (schemathesis sent one)
]
