"""Rollouts over HTTP: create, approve, start, pause, cancel, inspect (with steps and progress); drift; audit.

Views are thin: they validate the request shape and call services. Domain errors become 400 (common.api handler),
approval by a non-admin becomes 403.
"""

from django.db import transaction
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from common.api import accepted

from .. import selectors, services
from ..models import AuditLog, ChangeSet, DeviceEndpoint
from .serializers import (
    AuditLogSerializer,
    ChangeSetCreateSerializer,
    ChangeSetSerializer,
    DeviceEndpointSerializer,
    DriftRecordSerializer,
    RolloutAcceptedSerializer,
    RolloutAntaCatalogSerializer,
    RolloutCreateSerializer,
    RolloutDetailSerializer,
    RolloutSerializer,
    StepSerializer,
)


class ChangeSetViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = ChangeSet.objects.select_related("created_by", "twin").prefetch_related("devices")
    serializer_class = ChangeSetSerializer

    @extend_schema(request=ChangeSetCreateSerializer, responses=ChangeSetSerializer)
    def create(self, request):
        serializer = ChangeSetCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        change_set = services.changeset_create_from_compile_run(
            compile_run_id=data["compile_run"], target=data["target"], name=data["name"],
            twin=data["twin"], user=request.user)
        return Response(ChangeSetSerializer(change_set, context={"request": request}).data,
                        status=status.HTTP_201_CREATED)


class RolloutViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = selectors.rollout_list()
    filterset_fields = ("state", "kind", "target")
    ordering_fields = ("id", "created_at")

    def get_serializer_class(self):
        if self.action == "create":
            return RolloutCreateSerializer
        return RolloutDetailSerializer if self.action == "retrieve" else RolloutSerializer

    def get_queryset(self):
        if self.action == "list":
            return selectors.rollout_rows()
        queryset = super().get_queryset()
        return queryset.prefetch_related("steps") if self.action == "retrieve" else queryset

    @extend_schema(request=RolloutCreateSerializer, responses=RolloutSerializer)
    def create(self, request):
        serializer = RolloutCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        rollout = services.rollout_create(user=request.user, **serializer.validated_data)
        return Response(RolloutSerializer(rollout, context={"request": request}).data, status=status.HTTP_201_CREATED)

    def _act(self, request, service):
        rollout = self.get_object()
        with transaction.atomic():
            rollout = service(rollout=rollout, user=request.user)
        return Response(RolloutSerializer(rollout, context={"request": request}).data)

    @extend_schema(request=None, responses=RolloutSerializer)
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        return self._act(request, services.rollout_approve)

    @extend_schema(request=None, responses={202: RolloutAcceptedSerializer})
    @action(detail=True, methods=["post"])
    def start(self, request, pk=None):
        """Start (or resume) the rollout: 202 Accepted at once with ``Location``/``status_url`` (the rollout; poll
        it until ``state`` is terminal or paused), whether a Celery worker or, with no broker, a background thread
        of the web process runs it."""
        rollout = self.get_object()
        with transaction.atomic():
            rollout = services.rollout_start(rollout=rollout, user=request.user)
        return accepted(request, "rollout-detail", rollout.pk,
                        RolloutSerializer(rollout, context={"request": request}).data)

    @extend_schema(request=None, responses=RolloutSerializer)
    @action(detail=True, methods=["post"])
    def pause(self, request, pk=None):
        return self._act(request, services.rollout_pause)

    @extend_schema(request=None, responses=RolloutSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        return self._act(request, services.rollout_cancel)

    @extend_schema(responses=StepSerializer(many=True))
    @action(detail=True, methods=["get"])
    def steps(self, request, pk=None):
        """The rollout's steps, paginated like every list (a 5,000-switch rollout has 5,000 steps)."""
        steps = selectors.step_list(rollout=self.get_object())
        page = self.paginate_queryset(steps)
        if page is not None:
            return self.get_paginated_response(StepSerializer(page, many=True).data)
        return Response(StepSerializer(steps, many=True).data)

    @extend_schema(responses=dict)
    @action(detail=True, methods=["get"])
    def progress(self, request, pk=None):
        return Response(selectors.rollout_progress(rollout=self.get_object()))

    @extend_schema(responses={200: RolloutAntaCatalogSerializer,
                              400: OpenApiResponse(description="no EOS device of the change set has RoCE QoS, or the "
                                                               "rollout has no change set: nothing to export")})
    @action(detail=True, methods=["get"], url_path="anta-catalog")
    def anta_catalog(self, request, pk=None):
        """The RoCE gate's post-push checks of the rollout's EOS devices as an ANTA catalogue, with the thresholds
        of its ``roce_gate`` policy; 400 when no EOS device of its change set has RoCE QoS."""
        return Response(selectors.rollout_anta_catalog(rollout=self.get_object()))


class DriftViewSet(viewsets.ViewSet):
    @extend_schema(responses=DriftRecordSerializer(many=True))
    def list(self, request):
        return Response(DriftRecordSerializer(selectors.drift_latest(), many=True, context={"request": request}).data)


class AuditLogViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = AuditLog.objects.all()
    serializer_class = AuditLogSerializer
    filterset_fields = ("object_type", "object_id", "action", "username")


class DeviceEndpointViewSet(viewsets.ModelViewSet):
    """How to reach production devices (admin only: ``manage_endpoints`` in common.policy). Passwords and secret
    options are write-only (see the serializer)."""

    queryset = DeviceEndpoint.objects.all()
    serializer_class = DeviceEndpointSerializer
    filterset_fields = ("hostname", "driver")

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        serializer.instance = services.endpoint_create(**data)

    def perform_update(self, serializer):
        data = dict(serializer.validated_data)
        password = data.pop("password", None)
        serializer.instance = services.endpoint_update(endpoint=serializer.instance, values=data, password=password)

    @transaction.atomic
    def perform_destroy(self, instance):
        instance.delete()
