"""Change-pipeline API routes (mounted under /api/ by twin/api_urls.py)."""

from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter()
router.register("change-sets", views.ChangeSetViewSet)
router.register("rollouts", views.RolloutViewSet)
router.register("drift", views.DriftViewSet, basename="drift")
router.register("audit-log", views.AuditLogViewSet)
router.register("device-endpoints", views.DeviceEndpointViewSet)

urlpatterns = router.urls
