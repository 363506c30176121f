"""Twins API: list/create twin records, and actions recorded as twin operations that run off the request.

POST /api/twins/                 {fabric_intent, engine}   -> a 'down' twin record (nothing boots yet)
POST /api/twins/{id}/up|down|check|inject|fidelity         -> 202 Accepted, ``Location``/``status_url`` naming the
                                                              operation (a Celery task with a broker, a background
                                                              thread of the web process without one)
GET  /api/twin-operations/{id}/                             -> the operation: status, result, error
GET  /api/twins/{id}/shards/                                -> a sharded twin's shards (host, queue, state)
GET  /api/twins/{id}/status/                                -> status word, derived healthy, reason, the compile
                                                              each switch runs, runtime liveness
A machine that cannot run the twin answers 503 with ``skipped: true`` and the reason (never a pass), before
anything is recorded.
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from common.api import accepted
from common.runs import RunStatus
from labs.subset import choose_leaves

from .. import selectors, services
from ..choices import TwinEngineChoices, TwinOperationKindChoices
from ..models import TwinOperation
from ..tasks import twin_operation_start
from . import serializers as s

ACTION_RESPONSES = {
    202: s.TwinOperationAcceptedSerializer,
    400: OpenApiResponse(description="invalid options, or another operation still runs on the fabric's twin"),
    503: OpenApiResponse(description="this machine cannot run the twin (skipped: true, with the reason), or the "
                                     "broker could not be reached"),
}


class TwinViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = selectors.twin_list()
    serializer_class = s.TwinSerializer
    filterset_fields = ("engine", "status", "fabric_intent")

    def perform_create(self, serializer):
        data = serializer.validated_data
        serializer.instance = services.twin_get_or_create(fabric_intent=data["fabric_intent"],
                                                          engine=data.get("engine", "netns"))

    def _start(self, kind: str, params: dict) -> Response:
        """Record the operation and start it off the request (``twins.tasks.twin_operation_start``, the UI's
        path too): 202 with ``Location``/``status_url``. A failure of the work itself (a twin that is not
        running, a boot that fails) is the operation's ``failed`` status and ``error`` at that URL."""
        twin = self.get_object()
        missing = services.twin_prerequisites() if twin.engine == TwinEngineChoices.NETNS else []
        if missing and kind != TwinOperationKindChoices.DOWN:  # down of a twin that is not there needs no host
            return Response({"detail": f"skipped: needs root and FRR ({'; '.join(missing)})", "skipped": True},
                            status=status.HTTP_503_SERVICE_UNAVAILABLE)
        operation = services.twin_operation_create(fabric=twin.fabric_intent.fabric, kind=kind,
                                                   user=self.request.user, twin=twin, params=params)
        twin_operation_start(operation_id=operation.pk)
        operation.refresh_from_db()
        body = s.TwinOperationSerializer(operation, context={"request": self.request}).data
        if operation.status == RunStatus.FAILED and operation.started is None:  # never ran: the broker is down
            return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return accepted(self.request, "twinoperation-detail", operation.pk, body)

    def _input(self, serializer_class):
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    @extend_schema(request=s.TwinUpSerializer, responses=ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def up(self, request, pk=None):
        """Boot the twin (compiling its intent first), wait for convergence and run the live checks."""
        data = self._input(s.TwinUpSerializer)
        if data["subset"]:  # names, pods and spines checked now (a 400); rails once the boot has the compile
            twin = self.get_object()
            switches = twin.fabric_intent.fabric.switches.values_list("hostname", "role", "pod")
            choose_leaves({name: role for name, role, _ in switches}, data["subset"],
                          pods={name: pod for name, _, pod in switches}, rails=None, field="subset")
        return self._start(TwinOperationKindChoices.UP, data)

    @extend_schema(request=s.TwinDownSerializer, responses=ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def down(self, request, pk=None):
        """Remove the twin (exactly what it created); a twin that is already gone is just marked down."""
        return self._start(TwinOperationKindChoices.DOWN, self._input(s.TwinDownSerializer))

    @extend_schema(request=s.TwinCheckSerializer, responses=ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def check(self, request, pk=None):
        """Run every live check again on the running twin."""
        return self._start(TwinOperationKindChoices.PING, self._input(s.TwinCheckSerializer))

    @extend_schema(request=s.TwinInjectSerializer, responses=ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def inject(self, request, pk=None):
        """Fail one link or one spine of the running twin, measure, restore."""
        data = self._input(s.TwinInjectSerializer)
        return self._start(services.INJECT_OPERATIONS[data["kind"]], {"target": data["target"]})

    @extend_schema(request=s.TwinFidelitySerializer, responses=ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def fidelity(self, request, pk=None):
        """Compare the running twin with the static validators (and repeat what-if failures in it)."""
        return self._start(TwinOperationKindChoices.FIDELITY, self._input(s.TwinFidelitySerializer))

    @extend_schema(responses=s.TwinShardSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def shards(self, request, pk=None):
        """The shards of a sharded twin (engine ``sharded``; empty for the others): each host's state and queue."""
        twin = self.get_object()
        return Response(s.TwinShardSerializer(twin.shards.order_by("index"), many=True).data)

    @extend_schema(responses=s.TwinLiveStatusSerializer)
    @action(detail=True, methods=["get"], url_path="status")
    def live_status(self, request, pk=None):
        """The twin's status word (healthy derived from it) and why, what its switches run, runtime liveness."""
        return Response(services.twin_status(twin=self.get_object()))


class TwinOperationViewSet(viewsets.ReadOnlyModelViewSet):
    """Operations on twins (the status URL of every twin action, and the UI's buttons): newest first."""

    queryset = TwinOperation.objects.select_related("requested_by", "twin")
    serializer_class = s.TwinOperationSerializer
    filterset_fields = ("fabric", "kind", "status", "twin")
