"""Twins API routes (mounted under /api/ by twin/api_urls.py)."""

from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter()
router.register("twins", views.TwinViewSet)
router.register("twin-operations", views.TwinOperationViewSet)

urlpatterns = router.urls
