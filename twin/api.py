"""Project-wide API plumbing: the exception handler that turns our domain errors into HTTP 400."""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from compiler.errors import FabricTwinError, IntentValidationError


def exception_handler(exc, context):
    """DRF's handler, plus: IntentValidationError and Django ValidationError become 400 with field errors."""
    if isinstance(exc, IntentValidationError):
        return Response(exc.as_dict(), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        return Response(detail, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, FabricTwinError):
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    return drf_exception_handler(exc, context)
