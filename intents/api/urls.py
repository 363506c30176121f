"""Intents API routes (mounted under /api/ by twin/api_urls.py)."""

from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter()
router.register("fabric-intents", views.FabricIntentViewSet)
router.register("tenants", views.TenantViewSet)
router.register("networks", views.NetworkViewSet)
router.register("roce-classes", views.RoceClassViewSet)
router.register("allocations", views.AllocationViewSet)
router.register("compile-runs", views.CompileRunViewSet)
router.register("device-configs", views.DeviceConfigViewSet)

urlpatterns = router.urls
