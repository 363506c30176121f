"""Reads of the twins app."""

from __future__ import annotations

from django.db.models import QuerySet

from compiler.errors import FieldError, InputError
from intents.models import FabricIntent

from .models import Twin


def twin_list() -> QuerySet[Twin]:
    return Twin.objects.select_related("fabric_intent", "compile_run")


def twin_for(*, fabric_intent: FabricIntent, engine: str) -> Twin | None:
    return twin_list().filter(fabric_intent=fabric_intent, engine=engine).first()


def twin_get(*, twin_id: int) -> Twin:
    twin = twin_list().filter(pk=twin_id).first()
    if twin is None:
        raise InputError(FieldError("twin", twin_id, "no twin with this id"))
    return twin
