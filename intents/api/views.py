"""<Model>ViewSet for the intent models and compile records, plus the fabric-intent actions (compile, config,
diff, archive, blast-radius preview, RoCE defaults, allocation). Views stay thin: every write is a service call in
a transaction; domain errors become 400s in common/api.py; list querysets cost a constant number of queries."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import RestrictedError
from django.http import FileResponse, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from common.api import AtomicModelViewSet, accepted
from common.runs import RunStatus, run_enqueue, run_in_background
from compiler.errors import FieldError, InputError
from inventory.models import Switch
from validators.physical import cross_fabric_report

from .. import selectors, services
from ..choices import DiffTargetChoices
from ..constants import SYNC_COMPILE_MAX_DEVICES
from ..hosts import server_host_view
from ..models import CompileRun, FabricIntent, Network, RoceClass, Tenant
from ..tasks import compile_run_execute_task
from . import filtersets as f
from . import serializers as s


class IntentModelViewSet(AtomicModelViewSet):
    """Atomic CRUD whose deletes go through the intents services (VNIs released, the fabric revalidated)."""

    def perform_destroy(self, instance):
        services.intent_object_delete(instance=instance)

    def lock_current(self, instance):
        """Lock the object's fabric intent first, then the object: the order deleting the intent takes (its row,
        then the cascade). Locking the network first deadlocked against a concurrent delete of its intent on
        PostgreSQL, 7 races in 10 (a 500; issue 29, tests/api/test_api_concurrent_deletes.py)."""
        intent_id = getattr(instance, "fabric_intent_id", None)
        if intent_id is not None:
            locked = FabricIntent._base_manager.select_for_update().filter(pk=intent_id).values_list("pk", flat=True)
            if not list(locked):
                raise exceptions.NotFound()  # deleted with its intent while this request waited
        return super().lock_current(instance)


def _query(request, name: str, choices=None) -> str | None:
    value = request.query_params.get(name) or None
    if value is not None and choices is not None and value not in choices:
        raise InputError(FieldError(name, value, f"one of {', '.join(choices)}"))
    return value


def _run_of(fabric_intent: FabricIntent, run_id) -> CompileRun:
    if run_id is not None:
        run = fabric_intent.compile_runs.filter(pk=run_id).first()
        if run is None:
            raise InputError(FieldError("run", run_id, f"no compile run of {fabric_intent.name}"))
        return run
    run = selectors.compile_run_latest(fabric_intent=fabric_intent)
    if run is None:
        raise InputError(FieldError("run", None, f"{fabric_intent.name} has no successful compile yet: "
                                                            f"POST .../compile/ first"))
    return run


def _archive_response(run: CompileRun, kind: str) -> FileResponse:
    fileobj, filename = services.compile_run_archive(run=run, kind=kind)
    return FileResponse(fileobj, as_attachment=True, filename=filename,
                        content_type=services.ARCHIVE_KINDS[kind])


class FabricIntentViewSet(IntentModelViewSet):
    queryset = selectors.fabric_intent_list()
    serializer_class = s.FabricIntentSerializer
    filterset_class = f.FabricIntentFilterSet
    search_fields = ("name", "description")

    def perform_destroy(self, instance):
        instance.delete()  # cascades to tenants, networks, classes, allocations and compile records

    @extend_schema(request=s.CompileRequestSerializer, responses={201: s.CompileRunSerializer,
                                                                   202: s.CompileRunAcceptedSerializer})
    @action(detail=True, methods=["post"])
    def compile(self, request, pk=None):
        """202 Accepted with ``Location``/``status_url`` (poll GET /api/compile-runs/{id}/): in a Celery task, or
        with no broker in a background thread of the web process. ``background: false`` (or, with
        FT_RUN_IN_BACKGROUND off, a fabric under SYNC_COMPILE_MAX_DEVICES switches) compiles in the request: 201,
        and a failed compile is a 400 carrying the run and the field errors."""
        fabric_intent = self.get_object()
        params = s.CompileRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        options = params.validated_data
        background = options.get("background")
        run = services.compile_run_prepare(fabric_intent=fabric_intent, platforms=options.get("platforms"),
                                           devices=options.get("devices"), requested_by=request.user)
        run_id = run.pk
        if background is not False and run_in_background(lambda: compile_run_execute_task(run_id),
                                                         what=f"compile {run_id}"):
            return accepted(request, "compilerun-detail", run_id,
                            s.CompileRunSerializer(run, context={"request": request}).data)
        if background is None:
            background = Switch.objects.filter(fabric_id=fabric_intent.fabric_id).count() >= SYNC_COMPILE_MAX_DEVICES
        if background:
            def enqueue(run_id=run.pk):
                run_enqueue(model=CompileRun, run_id=run_id, task=compile_run_execute_task, what="compile")

            transaction.on_commit(enqueue)
            run.refresh_from_db()
            body = s.CompileRunSerializer(run, context={"request": request}).data
            if run.status == RunStatus.FAILED:
                return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
            return accepted(request, "compilerun-detail", run_id, body)
        run = services.compile_run_execute(run=run)
        body = s.CompileRunSerializer(run, context={"request": request}).data
        if run.status != RunStatus.SUCCEEDED:
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[OpenApiParameter("device", str, required=True), OpenApiParameter("platform", str),
                               OpenApiParameter("file", str, description="answer this file's text (text/plain)"),
                               OpenApiParameter("run", int)],
                   responses={(200, "application/json"): s.DeviceConfigSerializer,
                              (200, "text/plain"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"])
    def config(self, request, pk=None):
        """A device's rendered config from the latest successful compile (or ``run``); ``file`` returns the text."""
        fabric_intent = self.get_object()
        device = _query(request, "device")
        if device is None:
            raise InputError(FieldError("device", None, "name the device (?device=leaf1)"))
        run = _run_of(fabric_intent, _query(request, "run"))
        configs = run.device_configs.filter(hostname=device)
        platform = _query(request, "platform")
        if platform:
            configs = configs.filter(platform=platform)
        config = configs.order_by("platform").first()
        if config is None:
            raise InputError(FieldError("device", device, f"run {run.pk} has no config for {device}"
                                                                     + (f" on {platform}" if platform else "")))
        file_name = _query(request, "file")
        if file_name is not None:
            if file_name not in config.files:
                raise InputError(FieldError("file", file_name, f"one of {', '.join(sorted(config.files))}"))
            return HttpResponse(config.files[file_name], content_type="text/plain; charset=utf-8")
        return Response(s.DeviceConfigSerializer(config, context={"request": request}).data)

    @extend_schema(parameters=[OpenApiParameter("server", str, required=True), OpenApiParameter("file", str)],
                   responses={200: OpenApiResponse(description="the server's host files, each NIC beside its switch "
                                                               "port and every hosts.* finding; with file: its text")})
    @action(detail=True, methods=["get"])
    def host(self, request, pk=None):
        """A GPU server's host config (issue 31): ``nic-qos.sh``, ``mlxconfig.sh`` (ConnectX), ``netplan.yaml``,
        ``nccl.env`` and each NIC beside its switch port with the mismatches; ``file`` downloads one file."""
        fabric_intent = self.get_object()
        server = _query(request, "server")
        if server is None:
            raise InputError(FieldError("server", None, "name the server (?server=gpu0001)"))
        view = server_host_view(fabric_intent=fabric_intent, server=server)
        file_name = _query(request, "file")
        if file_name is not None:
            if file_name not in view.files:
                raise InputError(FieldError("file", file_name, f"one of {', '.join(sorted(view.files))}"))
            response = HttpResponse(view.files[file_name], content_type="text/plain; charset=utf-8")
            response["Content-Disposition"] = f'attachment; filename="{server}-{file_name}"'
            return response
        return Response(view.as_dict())

    @extend_schema(parameters=[
        OpenApiParameter("device", str), OpenApiParameter("platform", str), OpenApiParameter("changed_only", bool),
        OpenApiParameter("target", str, enum=DiffTargetChoices.values,
                         description="What to compare with: " + "; ".join(
                             f"{value}: {label}" for value, label in DiffTargetChoices.choices))],
        responses=s.ConfigDiffSerializer)
    @action(detail=True, methods=["get"])
    def diff(self, request, pk=None):
        """Compile the current intent in memory and diff it against what the target runs (device, twin, last
        compile; ``auto`` picks per device). Each result says what it compared against in ``label``."""
        fabric_intent = self.get_object()
        diffs = services.config_diff(fabric_intent=fabric_intent, device=_query(request, "device"),
                                     platform=_query(request, "platform"),
                                     target=_query(request, "target") or DiffTargetChoices.AUTO)
        if request.query_params.get("changed_only") in ("1", "true", "yes"):
            diffs = [diff for diff in diffs if diff.changed]
        return Response({"count": len(diffs), "results": [diff.as_dict() for diff in diffs]})

    @extend_schema(parameters=[s.ArchiveQuerySerializer], responses=s.ARCHIVE_RESPONSES)
    @action(detail=True, methods=["get"])
    def archive(self, request, pk=None):
        """Every device's files of the latest successful compile (or ``run``) as .tar.gz (default) or .zip."""
        fabric_intent = self.get_object()
        query = s.ArchiveQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return _archive_response(_run_of(fabric_intent, query.validated_data.get("run")),
                                 query.validated_data["kind"])

    @extend_schema(request=s.BlastRadiusRequestSerializer)
    @action(detail=True, methods=["post"], url_path="blast-radius")
    def blast_radius(self, request, pk=None):
        """Preview a change (list of create/update/delete of the intent objects): devices, tenants, networks and
        server ports it touches. The change is validated like a real save and then rolled back."""
        fabric_intent = self.get_object()
        body = s.BlastRadiusRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        changes = body.validated_data["changes"]
        try:
            radius = services.blast_radius_preview(
                fabric_intent=fabric_intent,
                change=lambda: _apply_changes(fabric_intent, changes, self.get_serializer_context()))
        except IntegrityError as error:
            raise serializers.ValidationError({"changes": [f"conflicts with existing data: {error}"]}) from None
        return Response(services.blast_radius_as_dict(radius))

    # 201 with the created classes as a plain array: a POST answer is not a page (no pagination class, so the
    # schema says an array, not the paginated list it said while the view answered a bare list; issue 29).
    @extend_schema(request=None, responses={201: s.RoceClassSerializer(many=True)})
    @action(detail=True, methods=["post"], url_path="roce-defaults", pagination_class=None)
    def roce_defaults(self, request, pk=None):
        """Create (or reset) the typical RoCEv2 lossless class: DSCP 26 -> priority 3 with PFC + ECN, CNP 48 -> 6."""
        classes = services.roce_defaults_apply(fabric_intent=self.get_object())
        return Response(s.RoceClassSerializer(classes, many=True, context={"request": request}).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: OpenApiResponse(
        description="validators.findings.Report.as_dict(): one check, physical.cross_fabric_identity, with a "
                    "finding per address used in more than one inventory fabric")})
    @action(detail=False, methods=["get"], url_path="identity")
    def identity(self, request):
        """Addresses (management IPs, loopbacks, VTEPs, link addresses) repeated across inventory fabrics."""
        return Response(cross_fabric_report(selectors.fabric_identities()).as_dict())

    @extend_schema(request=None, responses=s.AllocateSerializer)
    @action(detail=True, methods=["post"])
    def allocate(self, request, pk=None):
        """Allocate ASNs, loopbacks, /31s and VNIs for whatever has none yet; stored values never move."""
        result = services.allocations_sync(fabric_intent=self.get_object())
        return Response({"created": result.created, "updated": result.updated})


_CHANGE_TARGETS = {
    "fabric_intent": (FabricIntent, s.FabricIntentSerializer),
    "tenant": (Tenant, s.TenantSerializer),
    "network": (Network, s.NetworkSerializer),
    "roce_class": (RoceClass, s.RoceClassSerializer),
}


def _apply_changes(fabric_intent: FabricIntent, changes: list[dict], context: dict) -> None:
    """Apply proposed changes through the same serializers and services as the CRUD endpoints."""
    for index, change in enumerate(changes):
        where = f"changes[{index}]"
        model, serializer_class = _CHANGE_TARGETS[change["object"]]
        op, data = change["op"], dict(change.get("data") or {})
        instance = None
        if model is FabricIntent:
            if op != "update":
                raise InputError(FieldError(f"{where}.op", op, "the fabric intent itself can only be updated"))
            instance = fabric_intent
        elif op in ("update", "delete"):
            instance = model.objects.filter(pk=change.get("id"), fabric_intent=fabric_intent).first()
            if instance is None:
                raise InputError(FieldError(f"{where}.id", change.get("id"),
                                                       f"no {change['object']} of {fabric_intent.name} with this id"))
        elif model is not Network:
            data["fabric_intent"] = fabric_intent.pk
        if op == "delete":
            services.intent_object_delete(instance=instance)
            continue
        serializer = serializer_class(instance, data=data, partial=op == "update", context=context)
        if not serializer.is_valid():
            raise serializers.ValidationError({f"{where}.{name}": errors for name, errors in serializer.errors.items()})
        tenant = serializer.validated_data.get("tenant")
        if tenant is not None and tenant.fabric_intent_id != fabric_intent.pk:
            raise InputError(FieldError(f"{where}.tenant", tenant.pk, f"not a tenant of {fabric_intent.name}"))
        serializer.save()


class TenantViewSet(IntentModelViewSet):
    queryset = selectors.tenant_list()
    serializer_class = s.TenantSerializer
    filterset_class = f.TenantFilterSet
    search_fields = ("name", "vrf")


class NetworkViewSet(IntentModelViewSet):
    queryset = selectors.network_list()
    serializer_class = s.NetworkSerializer
    filterset_class = f.NetworkFilterSet
    search_fields = ("name", "subnet")


class RoceClassViewSet(IntentModelViewSet):
    queryset = selectors.roce_class_list()
    serializer_class = s.RoceClassSerializer
    filterset_class = f.RoceClassFilterSet
    search_fields = ("name",)


class AllocationViewSet(viewsets.ReadOnlyModelViewSet):
    """Stored allocations (read-only: they change only through allocation, never by hand)."""

    queryset = selectors.allocation_list()
    serializer_class = s.AllocationSerializer
    filterset_class = f.AllocationFilterSet


class CompileRunViewSet(mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = selectors.compile_run_list()
    serializer_class = s.CompileRunSerializer
    filterset_class = f.CompileRunFilterSet

    def perform_destroy(self, instance):
        try:
            instance.delete()
        except RestrictedError as error:
            devices = sorted({str(obj) for obj in error.restricted_objects})[:10]
            raise serializers.ValidationError(
                {"non_field_errors": [f"run {instance.pk} is deployed on: {', '.join(devices)}"]}) from None

    @extend_schema(parameters=[s.ArchiveQuerySerializer], responses=s.ARCHIVE_RESPONSES)
    @action(detail=True, methods=["get"])
    def archive(self, request, pk=None):
        run = self.get_object()
        query = s.ArchiveQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return _archive_response(run, query.validated_data["kind"])

    @extend_schema(request=s.MarkDeployedRequestSerializer, responses=s.MarkDeployedSerializer)
    @action(detail=True, methods=["post"], url_path="mark-deployed")
    def mark_deployed(self, request, pk=None):
        """Record this run's configs (optionally ``devices``) as deployed: the baseline of later diffs."""
        run = self.get_object()
        if run.status != RunStatus.SUCCEEDED:
            raise InputError(FieldError("run", run.pk, f"only a succeeded run can be deployed ({run.status})"))
        body = s.MarkDeployedRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        count = services.device_configs_mark_deployed(run=run, devices=body.validated_data.get("devices"))
        return Response({"deployed": count})


class DeviceConfigViewSet(viewsets.ReadOnlyModelViewSet):
    """Rendered configs; lists carry hashes only (files and structured config on the detail view)."""

    queryset = selectors.device_config_list()
    filterset_class = f.DeviceConfigFilterSet

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.action == "list":
            # the run columns its brief object shows (CompileRun.__str__): selected, not read per row
            queryset = queryset.only("id", "run_id", "hostname", "platform", "sha256", "run__id",
                                     "run__fabric_intent_id", "run__status")
        return queryset

    def get_serializer_class(self):
        return s.DeviceConfigSummarySerializer if self.action == "list" else s.DeviceConfigSerializer
