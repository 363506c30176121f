"""The name grammar (compiler/names.py) as Django field validators: models, and through them DRF model
serializers and UI model forms, refuse exactly what the pure core refuses, with the same wording."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible

from compiler import names


@deconstructible
class NameValidator:
    """Validate a model field against one kind of :mod:`compiler.names` (``"hostname"``, ``"name"``, ...)."""

    def __init__(self, kind: str):
        if kind not in names.KINDS:
            raise ValueError(f"unknown name kind {kind!r}; one of {', '.join(names.KINDS)}")
        self.kind = kind

    def __call__(self, value) -> None:
        # Blank values are the field's own business (blank=True / required); the grammar judges the rest.
        problem = names.name_problem(self.kind, value, blank=True)
        if problem:
            # Django formats the message with ``%`` and params: the value goes in as a param, never into the
            # format string (a name like "%K" would otherwise make the error itself fail, a 500).
            raise ValidationError("%(shown)s " + problem.replace("%", "%%"), code="invalid_name",
                                  params={"value": value, "shown": repr(value)})

    def __eq__(self, other) -> bool:
        return isinstance(other, NameValidator) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(self.kind)


hostname = NameValidator("hostname")
object_name = NameValidator("name")
interface_name = NameValidator("interface name")
nic_name = NameValidator("NIC name")
vrf_name = NameValidator("VRF name")
version = NameValidator("software version")
text = NameValidator("text")
