"""Shared by the intents commands: domain errors become CommandError with every field named."""

from contextlib import contextmanager

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from compiler.errors import FabricTwinError, InputError


def error_lines(error: Exception, source: str | None = None) -> str:
    if isinstance(error, InputError) and source:
        return "\n".join(error.report_lines(source))  # importers: "file: field: value: reason"
    if isinstance(error, InputError):
        return "\n".join(f"  {item.field}: {item.message} (got {item.value!r})" for item in error.errors)
    if isinstance(error, ValidationError) and hasattr(error, "error_dict"):
        return "\n".join(f"  {field}: {' '.join(messages)}" for field, messages in error.message_dict.items())
    if isinstance(error, ValidationError):
        return "\n".join(f"  {message}" for message in error.messages)
    return f"  {error}"


@contextmanager
def command_errors(what: str, source: str | None = None):
    """Turn our domain errors into a CommandError listing each field (exit status 1, no traceback); with
    ``source`` (the input file) field errors read ``file: field: value: reason``."""
    try:
        yield
    except (FabricTwinError, ValidationError) as error:
        raise CommandError(f"{what} failed:\n{error_lines(error, source)}") from None
