"""Every app's API routes under /api/. Each app exposes ``api.urls.router`` (a DRF router) or urlpatterns."""

from django.urls import include, path

urlpatterns = [
    path("", include("inventory.api.urls")),
    path("", include("intents.api.urls")),
    path("", include("changes.api.urls")),
    path("", include("twins.api.urls")),
    path("", include("validation.api.urls")),
]
