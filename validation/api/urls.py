"""Validation API routes (mounted under /api/ by twin/api_urls.py)."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter()
router.register("validation-runs", views.ValidationRunViewSet)

urlpatterns = [
    *router.urls,
    path("fabrics/<int:pk>/collective/", views.CollectiveView.as_view(), name="fabric-collective"),
]
