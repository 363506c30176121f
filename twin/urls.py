from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView

from common.api_schema import SchemaView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SchemaView.as_view(), name="schema"),  # built once per process (common.api_schema)
    # the split view serves its start-up script from a URL, not inline, so the CSP needs no 'unsafe-inline'
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    # ReDoc from this origin, without the web fonts drf-spectacular's own template fetches from Google
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema", template_name="ui/redoc.html"), name="redoc"),
    path("api/", include("twin.api_urls")),
    path("", include("ui.urls")),
]
