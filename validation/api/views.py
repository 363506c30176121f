"""ValidationRunViewSet: POST runs a validation (now for small fabrics, in a Celery task for large ones),
GET lists runs and returns a run's report or findings filtered by check and severity. Thin: services and
selectors do the work; domain errors become 400s in common/api.py."""

from __future__ import annotations

from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import accepted
from common.api_limits import upload_request_check
from common.runs import RunStatus, run_enqueue, run_in_background
from compiler.parse.files import configs_from_archive, configs_from_uploads, upload_size_check
from inventory.models import Fabric, Switch

from .. import selectors, services
from ..models import ValidationRun
from ..tasks import validation_run_execute_task
from . import serializers as s

SYNC_VALIDATE_MAX_DEVICES = 200  # larger fabrics compile + validate in a worker (tens of seconds at 1,000+)
FILTERS = [OpenApiParameter("check", str, description="check name or prefix (bgp, mtu.links)"),
           OpenApiParameter("severity", str, enum=["error", "warning", "info"])]


class ValidationRunViewSet(mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = ValidationRun.objects.select_related("fabric_intent", "compile_run").order_by("-created", "-id")
    serializer_class = s.ValidationRunSerializer
    filterset_fields = ["fabric_intent", "status", "ok"]

    @extend_schema(request=s.ValidationRequestSerializer, responses={201: s.ValidationRunSerializer,
                                                                      202: s.ValidationRunAcceptedSerializer})
    def create(self, request, *args, **kwargs):
        """202 Accepted with ``Location``/``status_url`` (poll GET /api/validation-runs/{id}/): in a Celery task,
        or with no broker in a background thread of the web process. ``background: false`` (or, with
        FT_RUN_IN_BACKGROUND off, a fabric under SYNC_VALIDATE_MAX_DEVICES switches) validates in the request:
        201, and a run that could not complete is a 400 carrying its errors."""
        params = s.ValidationRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        options = params.validated_data
        fabric_intent = options["fabric_intent"]
        background = options.get("background")
        run = services.validation_run_prepare(fabric_intent=fabric_intent, checks=options.get("checks"),
                                              compile_run=options.get("compile_run"), requested_by=request.user)
        run_id = run.pk
        if background is not False and run_in_background(lambda: validation_run_execute_task(run_id),
                                                         what=f"validation {run_id}"):
            return accepted(request, "validationrun-detail", run_id,
                            s.ValidationRunSerializer(run, context={"request": request}).data)
        if background is None:
            background = Switch.objects.filter(fabric_id=fabric_intent.fabric_id).count() >= SYNC_VALIDATE_MAX_DEVICES
        if background:
            def enqueue(run_id=run.pk):
                run_enqueue(model=ValidationRun, run_id=run_id, task=validation_run_execute_task, what="validation")

            transaction.on_commit(enqueue)
            run.refresh_from_db()
            body = s.ValidationRunSerializer(run, context={"request": request}).data
            if run.status == RunStatus.FAILED:
                return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
            return accepted(request, "validationrun-detail", run_id, body)
        run = services.validation_run_execute(run=run)
        body = s.ValidationRunSerializer(run, context={"request": request}).data
        return Response(body, status=status.HTTP_400_BAD_REQUEST if run.status == RunStatus.FAILED
                        else status.HTTP_201_CREATED)

    @extend_schema(parameters=FILTERS, responses={200: s.ValidationReportSerializer})
    @action(detail=True, methods=["get"])
    def report(self, request, pk=None):
        """The run's report: per check status, reason, what it examined, counts and findings (filtered by check
        and severity)."""
        params = s.ReportFilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        return Response(selectors.validation_report(run=self.get_object(), **params.validated_data))

    @extend_schema(parameters=FILTERS, responses=s.ValidationFindingSerializer(many=True))
    @action(detail=True, methods=["get"])
    def findings(self, request, pk=None):
        params = s.ReportFilterSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        findings = selectors.validation_findings(run=self.get_object(), **params.validated_data)
        page = self.paginate_queryset(findings)
        if page is not None:
            return self.get_paginated_response(s.ValidationFindingSerializer(page, many=True).data)
        return Response(s.ValidationFindingSerializer(findings, many=True).data)

    @extend_schema(request={"multipart/form-data": s.ConfigsUploadSerializer},
                   responses={200: s.ConfigValidationSerializer})
    @action(detail=False, methods=["post"], parser_classes=[MultiPartParser, FormParser])
    def configs(self, request):
        """Validate device configs as text (any EOS/SONiC/FRR mix, platform detected by content): the report with
        each finding's file:line, what each check examined, the checks left incomplete by unmodelled lines and
        every unmodelled line. Nothing is stored. Unreadable input is a 400 naming the file."""
        upload_request_check(request)  # before Django spools the files to disk
        params = s.ConfigsUploadSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        options = params.validated_data
        set_aside: list[str] = []  # compile's archive: the twin's renderings next to each device's own
        if options.get("archive"):
            archive = options["archive"]
            upload_size_check("archive", archive.name, archive.size)  # before it is read into memory
            device_files = configs_from_archive(archive.read(), archive.name, set_aside=set_aside)
        else:
            upload_size_check("files", "files", sum(upload.size for upload in options["files"]))
            device_files = configs_from_uploads([(upload.name, upload.read()) for upload in options["files"]])
        result = services.validation_configs_run(device_files=device_files, fabric_intent=options["fabric_intent"],
                                                 checks=options.get("checks") or None,
                                                 external_peers=options["external_peers"])
        return Response({**result.as_dict(), "set_aside": set_aside})


class CollectiveView(APIView):
    """POST /api/fabrics/{id}/collective/: predict one job's collective on the fabric's stored inventory."""

    @extend_schema(request=s.CollectiveRequestSerializer,
                   responses={200: OpenApiResponse(description="validators.collective: report, prediction, "
                                                               "link_loads per tier, what_if rows"),
                              400: OpenApiResponse(description="a field-named error (bad input, or work above "
                                                               "the endpoint's budget)"),
                              404: OpenApiResponse(description="no such fabric")})
    def post(self, request, pk: int):
        """The per-tier prediction, ``collective.bottleneck`` (with ``limit``), every usable link's load against
        the fluid ideal (``link_loads``, the heat map's data) and the what-ifs side by side (QPs = what_if_qps,
        distinct seeds, DLB, single-choice planes). Nothing is stored; the work is bounded (flows x trials) and a
        request above the bound is a 400 naming trials/qps/what_if_qps. docs/collective.md says what the model
        assumes."""
        fabric = get_object_or_404(Fabric, pk=pk)
        params = s.CollectiveRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        return Response(services.collective_predict(fabric=fabric, options=params.validated_data))
