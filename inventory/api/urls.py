"""Inventory API routes (mounted under /api/ by twin/api_urls.py)."""

from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter()
router.register("sites", views.SiteViewSet)
router.register("fabrics", views.FabricViewSet)
router.register("fabric-builds", views.FabricBuildViewSet)
router.register("racks", views.RackViewSet)
router.register("switch-models", views.SwitchModelViewSet)
router.register("platforms", views.PlatformViewSet)
router.register("switches", views.SwitchViewSet)
router.register("interfaces", views.InterfaceViewSet)
router.register("optics", views.OpticViewSet)
router.register("cables", views.CableViewSet)
router.register("servers", views.ServerViewSet)
router.register("nic-ports", views.NicPortViewSet)
router.register("netbox-syncs", views.NetboxSyncViewSet)

urlpatterns = router.urls
