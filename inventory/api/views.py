"""<Model>ViewSet for every inventory model, plus the fabric build action. Views stay thin: querysets are
shaped for a constant number of queries per list page, writes are atomic, and integrity races become 400s."""

from django.conf import settings
from django.db.models import ProtectedError
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from common.api import AtomicModelViewSet, accepted
from common.runs import RunStatus, run_start
from validators.physical import physical_report

from .. import selectors
from ..adapters import inventory_snapshot
from ..builder import fabric_build_prepare
from ..choices import NetboxSyncTriggerChoices
from ..models import FabricBuild, NetboxSync
from ..netbox_sync import netbox_sync_prepare, webhook_replay_problem, webhook_signature_valid
from ..tasks import fabric_build_task, netbox_sync_run
from . import filtersets as f
from . import serializers as s


class InventoryModelViewSet(AtomicModelViewSet):
    """Atomic CRUD; deleting an object still in use is a 400 naming what uses it."""

    def perform_destroy(self, instance):
        try:
            instance.delete()
        except ProtectedError as error:
            names = ", ".join(sorted({str(obj) for obj in error.protected_objects})[:10])
            raise serializers.ValidationError({"non_field_errors": [f"still in use by: {names}"]}) from None


class SiteViewSet(InventoryModelViewSet):
    queryset = selectors.site_list()
    serializer_class = s.SiteSerializer
    filterset_class = f.SiteFilterSet
    search_fields = ("name",)


class FabricViewSet(InventoryModelViewSet):
    queryset = selectors.fabric_list()
    serializer_class = s.FabricSerializer
    filterset_class = f.FabricFilterSet
    search_fields = ("name", "description")

    @extend_schema(request=s.FabricBuildSerializer,
                   responses={202: s.FabricBuildAcceptedSerializer,
                              400: OpenApiResponse(description="invalid parameters (a plan the builder refuses)"),
                              503: OpenApiResponse(description="the broker could not be reached")})
    @action(detail=False, methods=["post"], url_path="build", serializer_class=s.FabricBuildSerializer)
    def build(self, request):
        """Plan a Clos fabric (compiler.clos), or with ``pods`` a 5-stage Clos of pods under super-spine planes
        (compiler.pods), and persist it as a recorded build (``inventory.FabricBuild``):
        202 Accepted at once with ``Location``/``status_url`` (the build record; poll it until ``status`` is
        succeeded or failed, ``result`` then holds counts and oversubscription), whether a Celery worker or, with
        no broker, a background thread of the web process runs it. Invalid parameters are a 400 before anything
        is recorded."""
        serializer = s.FabricBuildSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        build = fabric_build_prepare(params=s.fabric_params_from(serializer.validated_data), requested_by=request.user)
        run_start(model=FabricBuild, run_id=build.pk, task=fabric_build_task, what="fabric build")
        build.refresh_from_db()
        if build.status == RunStatus.FAILED and build.started is None:  # never ran: the broker is down
            return Response({"build": build.pk, "status": build.status, "error": build.error},
                            status=status.HTTP_503_SERVICE_UNAVAILABLE)
        if build.status == RunStatus.FAILED:  # ran in the request (FT_RUN_IN_BACKGROUND off) and was refused
            return Response(build.error_fields or {"non_field_errors": [build.error]},
                            status=status.HTTP_400_BAD_REQUEST)
        return accepted(request, "fabricbuild-detail", build.pk,
                        {"build": build.pk, **s.FabricBuildRecordSerializer(build).data})

    @extend_schema(request=None, responses={200: OpenApiResponse(description="validators.findings.Report.as_dict()")})
    @action(detail=True, methods=["get"], url_path="physical")
    def physical(self, request, pk=None):
        """Physical consistency report of the fabric's inventory (validators.physical)."""
        report = physical_report(inventory_snapshot(self.get_object()))
        return Response(report.as_dict())


class FabricBuildViewSet(viewsets.ReadOnlyModelViewSet):
    """Recorded fabric builds (``POST /api/fabrics/build/`` answers with the record's id): poll one for its
    outcome when a Celery worker runs it."""

    queryset = FabricBuild.objects.select_related("requested_by").order_by("-created", "-id")
    serializer_class = s.FabricBuildRecordSerializer
    filterset_fields = ("status", "fabric_name")


class RackViewSet(InventoryModelViewSet):
    queryset = selectors.rack_list()
    serializer_class = s.RackSerializer
    filterset_class = f.RackFilterSet
    search_fields = ("name", "row")


class SwitchModelViewSet(InventoryModelViewSet):
    queryset = selectors.switch_model_list()
    serializer_class = s.SwitchModelSerializer
    filterset_class = f.SwitchModelFilterSet
    search_fields = ("name", "vendor", "asic")


class PlatformViewSet(InventoryModelViewSet):
    queryset = selectors.platform_list()
    serializer_class = s.PlatformSerializer
    filterset_class = f.PlatformFilterSet
    search_fields = ("slug", "name")


class SwitchViewSet(InventoryModelViewSet):
    queryset = selectors.switch_list()
    serializer_class = s.SwitchSerializer
    filterset_class = f.SwitchFilterSet
    search_fields = ("hostname", "serial")


class InterfaceViewSet(InventoryModelViewSet):
    queryset = selectors.interface_list()
    serializer_class = s.InterfaceSerializer
    filterset_class = f.InterfaceFilterSet
    search_fields = ("name", "description")


class OpticViewSet(InventoryModelViewSet):
    queryset = selectors.optic_list()
    serializer_class = s.OpticSerializer
    filterset_class = f.OpticFilterSet
    search_fields = ("media", "serial", "part_number")


class CableViewSet(InventoryModelViewSet):
    queryset = selectors.cable_list()
    serializer_class = s.CableSerializer
    filterset_class = f.CableFilterSet
    search_fields = ("label",)


class ServerViewSet(InventoryModelViewSet):
    queryset = selectors.server_list()
    serializer_class = s.ServerSerializer
    filterset_class = f.ServerFilterSet
    search_fields = ("name", "serial")


class NicPortViewSet(InventoryModelViewSet):
    queryset = selectors.nic_port_list()
    serializer_class = s.NicPortSerializer
    filterset_class = f.NicPortFilterSet
    search_fields = ("name",)


class NetboxSyncViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """NetBox import / re-sync runs (inventory.netbox_sync): read them, start one, or let NetBox start one."""

    queryset = selectors.netbox_sync_list()
    serializer_class = s.NetboxSyncSerializer
    filterset_class = f.NetboxSyncFilterSet

    @extend_schema(request=s.NetboxSyncRequestSerializer,
                   responses={202: s.NetboxSyncAcceptedSerializer,
                              400: OpenApiResponse(description="invalid input, or NetBox / the fabric not configured"),
                              503: OpenApiResponse(description="the broker could not be reached")})
    @action(detail=False, methods=["post"], url_path="sync", serializer_class=s.NetboxSyncRequestSerializer)
    def sync(self, request):
        """Re-sync a fabric from the configured NetBox; a dry run (the default) records the diff only. 202 Accepted
        at once with ``Location``/``status_url`` (the NetboxSync run; poll it until ``status`` is succeeded or
        failed: a sync NetBox or the inventory refused is ``failed`` with ``error``), whether a Celery worker or,
        with no broker, a background thread of the web process runs it."""
        serializer = s.NetboxSyncRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return self._run(dict(serializer.validated_data, trigger=NetboxSyncTriggerChoices.API))

    @extend_schema(request=None, responses={
        202: s.NetboxSyncAcceptedSerializer,
        400: OpenApiResponse(description="X-Hook-Signature missing or wrong; an empty body, a timestamp outside the "
                                         "window or a replayed body; or NetBox / FT_NETBOX_FABRIC not set"),
        503: OpenApiResponse(description="no webhook secret configured, or the broker could not be reached")})
    @action(detail=False, methods=["post"], url_path="webhook")
    def webhook(self, request):
        """NetBox event rule target: NetBox signs the body with the webhook's secret (HMAC-SHA512 in
        X-Hook-Signature); the request also carries an API token (the webhook's additional header
        ``Authorization: Token ...`` of an operator). Any dcim change re-syncs FT_NETBOX_FABRIC and applies it. The
        signature is verified in the request (400 when wrong, nothing recorded), then the body: empty, a timestamp
        more than 5 minutes off, or a body already received is a 400 (replays); the sync itself answers 202 with
        ``Location``/``status_url`` like ``sync``."""
        secret = settings.FT_NETBOX_WEBHOOK_SECRET
        if not secret:
            return Response({"detail": "FT_NETBOX_WEBHOOK_SECRET is not set: webhooks are refused"},
                            status=status.HTTP_503_SERVICE_UNAVAILABLE)
        signature = request.headers.get("X-Hook-Signature", "")
        if not webhook_signature_valid(body=request.body, signature=signature, secret=secret):
            return Response({"X-Hook-Signature": [f"missing or not the HMAC-SHA512 of the body (got {signature[:16]!r})"]},
                            status=status.HTTP_400_BAD_REQUEST)
        problem = webhook_replay_problem(body=request.body)
        if problem:
            return Response({"body": [problem]}, status=status.HTTP_400_BAD_REQUEST)
        return self._run({"trigger": NetboxSyncTriggerChoices.WEBHOOK, "dry_run": False})

    def _run(self, options: dict) -> Response:
        record = netbox_sync_prepare(**options, requested_by=self.request.user)
        run_start(model=NetboxSync, run_id=record.pk, task=netbox_sync_run, what="NetBox sync")
        record.refresh_from_db()
        body = s.NetboxSyncSerializer(record, context={"request": self.request}).data
        if record.status == RunStatus.FAILED and record.started is None:  # never ran: the broker is down
            return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return accepted(self.request, "netboxsync-detail", record.pk, body)
