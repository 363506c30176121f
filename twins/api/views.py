"""Twins API: list/create twin records, and actions that run through the Celery tasks (eager by default).

POST /api/twins/                 {fabric_intent, engine}   -> a 'down' twin record (nothing boots yet)
POST /api/twins/{id}/up|down|check|inject|fidelity         -> the twin after the action (202 + task id when a
                                                              real broker is configured)
GET  /api/twins/{id}/status/                                -> status word, derived healthy, reason, the compile
                                                              each switch runs, runtime liveness
A machine that cannot run the twin answers 503 with ``skipped: true`` and the reason (never a pass).
"""

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from .. import selectors, services, tasks
from . import serializers as s


class TwinViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = selectors.twin_list()
    serializer_class = s.TwinSerializer
    filterset_fields = ("engine", "status", "fabric_intent")

    def perform_create(self, serializer):
        data = serializer.validated_data
        serializer.instance = services.twin_get_or_create(fabric_intent=data["fabric_intent"],
                                                          engine=data.get("engine", "netns"))

    def _run(self, task, *args, **kwargs) -> Response:
        try:
            result = task.delay(*args, **kwargs)
        except services.TwinUnavailable as error:
            return Response({"detail": str(error), "skipped": True}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            return Response({"task_id": result.id}, status=status.HTTP_202_ACCEPTED)
        twin = self.get_queryset().get(pk=self.get_object().pk)
        return Response({**s.TwinSerializer(twin, context={"request": self.request}).data, "result": result.get()})

    def _input(self, serializer_class):
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    @extend_schema(request=s.TwinUpSerializer)
    @action(detail=True, methods=["post"])
    def up(self, request, pk=None):
        twin = self.get_object()
        data = self._input(s.TwinUpSerializer)
        return self._run(tasks.twin_up_task, twin.fabric_intent_id, twin.engine, data["failover"])

    @extend_schema(request=s.TwinDownSerializer)
    @action(detail=True, methods=["post"])
    def down(self, request, pk=None):
        twin = self.get_object()
        try:
            summary = services.twin_down(twin=twin, force=self._input(s.TwinDownSerializer)["force"])
        except services.TwinUnavailable as error:
            return Response({"detail": str(error), "skipped": True}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response({**s.TwinSerializer(twin, context={"request": request}).data, "result": summary})

    @extend_schema(request=s.TwinCheckSerializer)
    @action(detail=True, methods=["post"])
    def check(self, request, pk=None):
        return self._run(tasks.twin_check_task, self.get_object().pk, self._input(s.TwinCheckSerializer)["failover"])

    @extend_schema(request=s.TwinInjectSerializer)
    @action(detail=True, methods=["post"])
    def inject(self, request, pk=None):
        data = self._input(s.TwinInjectSerializer)
        return self._run(tasks.twin_inject_task, self.get_object().pk, data["kind"], data["target"])

    @extend_schema(request=s.TwinFidelitySerializer)
    @action(detail=True, methods=["post"])
    def fidelity(self, request, pk=None):
        data = self._input(s.TwinFidelitySerializer)
        return self._run(tasks.twin_fidelity_task, self.get_object().pk, data["n_minus_1"])

    @extend_schema(responses=s.TwinLiveStatusSerializer)
    @action(detail=True, methods=["get"], url_path="status")
    def live_status(self, request, pk=None):
        """The twin's status word (healthy derived from it) and why, what its switches run, runtime liveness."""
        return Response(services.twin_status(twin=self.get_object()))
