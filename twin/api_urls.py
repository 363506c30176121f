"""Every app's API routes under /api/. Each app exposes ``api.urls.router`` (a DRF router) or urlpatterns."""

from django.urls import include, path

from twin import tokens

urlpatterns = [
    path("", include("inventory.api.urls")),
    path("", include("intents.api.urls")),
    path("", include("changes.api.urls")),
    path("", include("twins.api.urls")),
    path("", include("validation.api.urls")),
    path("auth/login/", tokens.TokenLoginView.as_view(), name="auth-login"),
    path("auth/token/rotate/", tokens.TokenRotateView.as_view(), name="auth-token-rotate"),
    path("auth/logout/", tokens.TokenLogoutView.as_view(), name="auth-logout"),
    path("auth/logout-all/", tokens.TokenLogoutAllView.as_view(), name="auth-logout-all"),
]
