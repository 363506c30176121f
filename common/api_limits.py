"""Input limits at the API boundary: what any request may carry before a view sees it (docs/security.md,
"Input limits").

One home for the generic guards, so no view, serializer or filterset has to repeat them:

- ``BoundedLimitOffsetPagination``: ``limit`` 1..``MAX_LIMIT`` and ``offset`` 0..``MAX_OFFSET``; anything else is a
  400 naming the parameter (DRF's own class silently falls back to defaults and lets ``limit`` grow past
  PostgreSQL's bigint, a 500).
- ``BoundedJSONParser``: a body larger than ``settings.DATA_UPLOAD_MAX_MEMORY_SIZE`` is a 413 (DRF reads
  ``request.body``, where Django enforces the limit, and common.api's handler turns that into a 413; the parser
  bounds its own read too, so the limit holds whoever hands it a stream); nesting deeper than
  ``MAX_JSON_DEPTH`` is a 400; and every string in the document (keys included) is checked by
  ``string_problem``: the 400 names the field by its path (``policy.canary.0``), so JSON/dict fields and
  lookups by name are covered as well as plain CharFields.
- ``QueryStringLimitsMiddleware``: the same string rule for every query parameter under /api/.
- ``BaseFilterSet`` / ``FilterBackend``: filters validate their value (an IP-address filter takes only an IP
  address, a boolean filter only true/false), so a bad filter value is a 400, never a database error and never
  silently "no filter".

Serializers keep their own, tighter per-field limits (``max_length`` from the model); these are the floor that
holds for every string, including the ones no serializer field declares.
"""

from __future__ import annotations

import json
import math
import re
from copy import deepcopy

import django_filters
from django import forms
from django.conf import settings
from django.db import models
from django.http import JsonResponse
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError, ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import JSONParser

from compiler.errors import FieldError, InputError
from compiler.parse.files import MAX_UPLOAD_BYTES

# Largest page: a page of the biggest serializer (interfaces, ~300 bytes each) stays well under 1 MB.
MAX_LIMIT = 1000
# SQL OFFSET is a bigint in PostgreSQL (and a 64-bit integer in SQLite): 2**63 - 1.
MAX_OFFSET = 2**63 - 1
# The deepest legitimate body (a rollout policy or topology) nests 4-5 levels; 32 leaves room and keeps far below
# the interpreter's recursion limit, which an unchecked json.loads turns into a 500.
MAX_JSON_DEPTH = 32
# Longest string anywhere in a body. The longest legitimate text is a path: Linux PATH_MAX is 4096 bytes.
# Per-field max_length is usually far tighter.
MAX_STRING_LENGTH = 4096
# Longest query parameter value (filters, search, ordering): names and descriptions are at most a few hundred.
MAX_QUERY_VALUE_LENGTH = 1024


# A UTF-16 surrogate on its own (JSON "\ud800") is no character: UTF-8 cannot encode it and PostgreSQL refuses it.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def string_problem(value: str, *, max_length: int) -> str | None:
    """Why ``value`` may not enter the application, or None. NUL and lone surrogates are refused because
    PostgreSQL cannot store them in text or jsonb (and no name, description or config line carries one)."""
    if "\x00" in value:
        return "contains a NUL character (U+0000), which is never accepted"
    if _LONE_SURROGATE.search(value):
        return "contains a lone UTF-16 surrogate (U+D800-U+DFFF), which is not a character"
    if len(value) > max_length:
        return f"is {len(value)} characters long; at most {max_length} are accepted"
    return None


# A multipart form around MAX_UPLOAD_BYTES of files: boundaries, headers and the small fields beside the files.
UPLOAD_FORM_OVERHEAD_BYTES = 1024 * 1024


def upload_request_check(request) -> None:
    """Refuse an upload request whose declared length is over compiler.parse.files.MAX_UPLOAD_BYTES (plus the form
    around it) before its files are read: Django spools uploads of any size to disk (DATA_UPLOAD_MAX_MEMORY_SIZE
    does not count files). An InputError, so the API answers 400 and the page shows it."""
    length = request.META.get("CONTENT_LENGTH") or "0"
    limit = MAX_UPLOAD_BYTES + UPLOAD_FORM_OVERHEAD_BYTES
    if not (length.isascii() and length.isdigit()) or int(length) > limit:
        raise InputError(FieldError("Content-Length", length[:32], f"an upload request may carry at most {limit} "
                                                                    "bytes (MAX_UPLOAD_BYTES plus the form)"))


class RequestBodyTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "request body too large"
    default_code = "request_too_large"


def _json_path(parts: list) -> str:
    return ".".join(str(part) for part in parts) or "non_field_errors"


def json_document_problems(document) -> dict[str, list[str]]:
    """Field path -> problems for every string (and key) in ``document`` and for nesting beyond MAX_JSON_DEPTH.

    Iterative, so a document the parser accepted can never exhaust the stack here.
    """
    problems: dict[str, list[str]] = {}
    stack: list[tuple[object, list, int]] = [(document, [], 1)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict | list) and depth > MAX_JSON_DEPTH:
            problems.setdefault(_json_path(path), []).append(
                f"nests deeper than {MAX_JSON_DEPTH} levels")
            continue
        if isinstance(value, dict):
            for key, item in value.items():
                key_problem = string_problem(key, max_length=MAX_STRING_LENGTH)
                if key_problem:
                    problems.setdefault(_json_path(path), []).append(f"a key {key_problem}")
                    continue
                stack.append((item, [*path, key], depth + 1))
        elif isinstance(value, list):
            stack.extend((item, [*path, index], depth + 1) for index, item in enumerate(value))
        elif isinstance(value, str):
            problem = string_problem(value, max_length=MAX_STRING_LENGTH)
            if problem:
                problems.setdefault(_json_path(path), []).append(f"{value[:40]!r}{'...' if len(value) > 40 else ''} "
                                                                 f"{problem}")
    return problems


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser with a body size limit (413), a nesting limit and the string rule (400 naming the field)."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise RequestBodyTooLarge(f"request body is larger than {limit} bytes (DATA_UPLOAD_MAX_MEMORY_SIZE)")
        try:
            document = json.loads(raw.decode(encoding), parse_constant=_reject_constant, parse_float=_finite_float)
        except RecursionError:
            raise ParseError(f"JSON parse error - nests deeper than {MAX_JSON_DEPTH} levels") from None
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from None
        problems = json_document_problems(document)
        if problems:
            raise ValidationError(problems)
        return document


def _reject_constant(name: str):
    # NaN and Infinity are not JSON (RFC 8259 section 6); Python accepts them by default and PostgreSQL jsonb won't.
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    # 1e400 is valid JSON but beyond a double: Python makes it inf, which then lands as "inf" in a text field.
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:40]} is too large")
    return value


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """Limit/offset pagination whose parameters are validated, not silently replaced: a 400 names the parameter."""

    max_limit = MAX_LIMIT

    def _parameter(self, request, name: str, *, minimum: int, maximum: int, default: int) -> int:
        raw = request.query_params.get(name)
        if raw is None:
            return default
        text = raw.strip()
        if not (text.isascii() and text.isdigit()) or len(text) > 19:
            raise ValidationError({name: [f"{raw[:40]!r} is not a whole number from {minimum} to {maximum}"]})
        value = int(text)
        if not minimum <= value <= maximum:
            raise ValidationError({name: [f"{value} is out of range: use {minimum} to {maximum}"]})
        return value

    def get_limit(self, request):
        return self._parameter(request, self.limit_query_param, minimum=1, maximum=self.max_limit,
                               default=self.default_limit)

    def get_offset(self, request):
        return self._parameter(request, self.offset_query_param, minimum=0, maximum=MAX_OFFSET, default=0)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        bounds = {self.limit_query_param: (1, self.max_limit), self.offset_query_param: (0, MAX_OFFSET)}
        for parameter in parameters:
            minimum, maximum = bounds[parameter["name"]]
            parameter["schema"].update(minimum=minimum, maximum=maximum)
        return parameters


class QueryStringLimitsMiddleware:
    """Every query parameter of an /api/ request obeys ``string_problem``; otherwise a 400 naming the parameter."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/api/"):
            problems: dict[str, list[str]] = {}
            for name, values in request.GET.lists():
                name_problem = string_problem(name, max_length=MAX_QUERY_VALUE_LENGTH)
                if name_problem:
                    problems.setdefault("query", []).append(f"a parameter name {name_problem}")
                    continue
                for value in values:
                    problem = string_problem(value, max_length=MAX_QUERY_VALUE_LENGTH)
                    if problem:
                        problems.setdefault(name, []).append(f"{value[:40]!r} {problem}")
            if problems:
                return JsonResponse(problems, status=status.HTTP_400_BAD_REQUEST)
        return self.get_response(request)


class IPAddressFilter(django_filters.CharFilter):
    """Exact match on an IP address column; anything that is not an IPv4/IPv6 address is a 400 (PostgreSQL's
    inet type would raise a DataError on it)."""

    field_class = forms.GenericIPAddressField


class StrictBooleanField(forms.Field):
    """``true``/``false`` (or ``1``/``0``); empty means "no filter". django-filter's own boolean widgets turn any
    other value into "no filter" too, so ``?cabled=yes please`` silently returned every row."""

    def to_python(self, value):
        if value in (None, ""):
            return None
        text = str(value).strip().lower()
        if text in ("true", "1"):
            return True
        if text in ("false", "0"):
            return False
        raise forms.ValidationError(f"{str(value)[:40]!r} is not a boolean: use true or false")


class StrictBooleanFilter(django_filters.BooleanFilter):
    field_class = StrictBooleanField


class BaseFilterSet(django_filters.FilterSet):
    """Project FilterSet: django-filter's defaults, with value-checking filters where the default lets bad input
    through to the database or silently ignores it (NetBox's BaseFilterSet does the same)."""

    FILTER_DEFAULTS = deepcopy(django_filters.filterset.FILTER_FOR_DBFIELD_DEFAULTS)
    FILTER_DEFAULTS[models.GenericIPAddressField] = {"filter_class": IPAddressFilter}
    FILTER_DEFAULTS[models.BooleanField] = {"filter_class": StrictBooleanFilter}


class FilterBackend(DjangoFilterBackend):
    """django-filter's DRF backend building views' ``filterset_fields`` filtersets on ``BaseFilterSet``."""

    filterset_base = BaseFilterSet
