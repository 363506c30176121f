"""The project's error hierarchy, in one place (pure: the packages that never import Django raise these too).

Every error names the field and the offending value so an engineer can fix the input without reading code.
The API maps the whole hierarchy to HTTP 400 in one handler (common/api.py ``exception_handler``; InputError with
its field errors), management commands to CommandError; docs/errors.md lists each layer's errors.

    FabricTwinError
    ├── InputError                 bad input of any kind: field errors {field: [messages]}
    │   ├── IntentValidationError  the fabric intent (or the inventory it refers to) is invalid
    │   │   └── AllocationError    a pool is exhausted / overlaps / an allocation would collide
    │   └── UnsafePathError        a name would leave its directory
    ├── InventoryError, PlatformDataError, RenderError, TwinError, DriverError
    └── (Django side) StaleVersionError (common/versioning.py), RolloutStateError, CheckFailed (changes/errors.py)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


class FabricTwinError(Exception):
    """Base of every error this project raises on purpose."""


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem with one input field. ``field`` is a dotted path, e.g. ``networks[net10].vlan_id``."""

    field: str
    value: object
    message: str

    def __str__(self) -> str:
        return f"{self.field}={self.value!r}: {self.message}"

    def as_dict(self) -> dict:
        return {"field": self.field, "value": _jsonable(self.value), "message": self.message}


class InputError(FabricTwinError):
    """Bad input (a request, a file, command options, a policy): carries every field error found, not just the
    first. The generic input error of every layer; raise a subclass where a more precise one exists."""

    def __init__(self, errors: list[FieldError] | FieldError | str):
        if isinstance(errors, str):
            # Rebuilt from its message (Celery's JSON result transport keeps only the text): one error, as said.
            errors = FieldError("__all__", None, errors)
        self.errors = [errors] if isinstance(errors, FieldError) else list(errors)
        super().__init__("; ".join(str(error) for error in self.errors))

    def __reduce__(self):
        return (self.__class__, (self.errors,))

    def report_lines(self, source: str | Callable[[str], str]) -> list[str]:
        """One ``source: field: value: reason`` line per error (importers print these); ``source`` is the file
        name, or a function of the field path for inputs spread over several files."""
        return [f"{source if isinstance(source, str) else source(error.field)}: {_one_line(error.field)}: "
                f"{error.value!r}: {_one_line(error.message)}" for error in self.errors]

    def as_dict(self) -> dict[str, list[str]]:
        """Field -> messages, the shape DRF uses for 400 responses."""
        out: dict[str, list[str]] = {}
        for error in self.errors:
            out.setdefault(error.field, []).append(f"{error.message} (got {error.value!r})")
        return out


class IntentValidationError(InputError):
    """The fabric intent (or the inventory it refers to) is invalid: compiler/validate.py and the intent documents
    (intents/, compiler/scenario.py). Not for other input: that is InputError."""


class AllocationError(IntentValidationError):
    """A pool is exhausted, overlaps another pool, or an allocation would collide."""


class UnsafePathError(InputError):
    """A name would leave its directory (``..``, ``/``, an absolute path, a symlink out of the output root)."""


class InventoryError(FabricTwinError):
    """The inventory cannot be used as given (unknown device, interface in two cables, ...)."""


class PlatformDataError(FabricTwinError):
    """A switch model, port or breakout mode that the platform data (compiler/platforms/data) does not have."""


class RenderError(FabricTwinError):
    """A structured config cannot be rendered for the requested platform (e.g. unnumbered BGP on EOS)."""


class TwinError(FabricTwinError):
    """The live twin could not be built, queried or torn down."""


class DriverError(FabricTwinError):
    """A device driver failed to read from or write to a device."""


def _one_line(text: str) -> str:
    """``text`` with every non-printable character escaped (a field path may embed a hostile name)."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _jsonable(value: object) -> object:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    return str(value)
