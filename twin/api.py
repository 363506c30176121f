"""Project-wide API plumbing: the exception handler that turns our domain errors into HTTP 400, and the
base viewset whose writes are atomic."""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from rest_framework import serializers, status, viewsets
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from compiler.errors import FabricTwinError, IntentValidationError

from .api_limits import RequestBodyTooLarge


def exception_handler(exc, context):
    """DRF's handler, plus: IntentValidationError and Django ValidationError become 400 with field errors, a body
    over DATA_UPLOAD_MAX_MEMORY_SIZE a 413, and every error body is an object."""
    if isinstance(exc, IntentValidationError):
        return Response(exc.as_dict(), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        return Response(detail, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, FabricTwinError):
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, RequestDataTooBig):  # Django's own body limit, hit when DRF reads request.body
        exc = RequestBodyTooLarge(f"request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes "
                                  "(DATA_UPLOAD_MAX_MEMORY_SIZE)")
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(response.data, list):
        # A ValidationError raised with a bare list: every error body is an object (twin.api_schema documents it).
        response.data = {"non_field_errors": response.data}
    return response


class AtomicModelViewSet(viewsets.ModelViewSet):
    """CRUD whose writes run in one transaction; a database integrity error (e.g. a concurrent duplicate) is a
    400 naming the conflict, not a 500. Apps override ``perform_destroy`` for their delete rules."""

    def _atomic(self, method, *args, **kwargs):
        try:
            with transaction.atomic():
                return method(*args, **kwargs)
        except IntegrityError as error:
            raise serializers.ValidationError({"non_field_errors": [f"conflicts with existing data: {error}"]}) \
                from None

    def create(self, request, *args, **kwargs):
        return self._atomic(super().create, request, *args, **kwargs)

    def update(self, request, *args, **kwargs):
        return self._atomic(super().update, request, *args, **kwargs)

    def destroy(self, request, *args, **kwargs):
        return self._atomic(super().destroy, request, *args, **kwargs)
