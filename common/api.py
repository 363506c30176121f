"""Project-wide API plumbing: the exception handler that turns our domain errors into HTTP 400, the base
viewset whose writes are atomic and version-checked, and the serializer base that carries ``version``.

Optimistic concurrency (the model side is common/versioning.py): detail responses of a versioned object carry
``ETag: W/"<version>"`` and a ``version`` field. A write (PUT, PATCH, DELETE) may claim the version it was based
on with ``If-Match: W/"<version>"`` (stale: 412 Precondition Failed) or the ``version`` body field (stale: 409
Conflict); either way the answer names the current version and who changed the object last. A write that claims
nothing still works (existing clients): it locks the row and applies to the current values, so a PATCH of one
field never reverts another writer's edit of a different field.
"""

import re

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.urls import get_script_prefix, get_urlconf
from django.urls import reverse as django_reverse
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, serializers, status, viewsets
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import exception_handler as drf_exception_handler

from compiler.errors import FabricTwinError, InputError

from .api_limits import RequestBodyTooLarge
from .versioning import StaleVersionError, VersionedModel, stale_version_error

VERSION_MAX = 2_147_483_647  # PositiveIntegerField's range on PostgreSQL
_ENTITY_TAG = re.compile(r'(?:W/)?"([0-9]{1,10})"')  # of a stripped part: "\s*" around it was quadratic
_VERSION_TEXT = re.compile(r"[0-9]{1,10}")


def accepted(request, view_name: str, pk: int, body: dict) -> Response:
    """202 Accepted for a long action: ``Location`` and ``status_url`` name the record to poll (RFC 9110 15.3.3)."""
    status_url = reverse(view_name, kwargs={"pk": pk}, request=request)
    return Response({**body, "status_url": status_url}, status=status.HTTP_202_ACCEPTED,
                    headers={"Location": status_url})


class IfMatchFailed(StaleVersionError):
    """The version claimed by an If-Match header is stale: 412 Precondition Failed (RFC 9110 13.1.1)."""


def etag_of(version: int) -> str:
    """Weak: the version identifies the stored state, not the bytes (``display`` may follow a related rename)."""
    return f'W/"{version}"'


def if_match_versions(header: str) -> set[int] | None:
    """The versions an If-Match header accepts; None for ``*`` (any current version).

    Tags are compared by version whether sent weak (``W/"3"``, as we send them) or strong (``"3"``): a lenient
    reading of RFC 9110's strong comparison, because our tags name versions, not byte-exact representations.
    """
    if header.strip() == "*":
        return None
    versions = set()
    for part in header.split(","):
        match = _ENTITY_TAG.fullmatch(part.strip())
        if match is None:
            raise serializers.ValidationError(
                {"If-Match": [f'expected the ETag you received, e.g. W/"3" (or *), got {header!r}']})
        versions.add(int(match.group(1)))
    return versions


def body_version(request) -> int | None:
    """The ``version`` field of a write's body, or None when absent/null; a 400 naming the value otherwise."""
    data = request.data
    value = data.get("version") if hasattr(data, "get") else None
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str)
                                                                  and _VERSION_TEXT.fullmatch(value))):
        raise serializers.ValidationError(
            {"version": [f"expected the integer version you read (response field or ETag), got {value!r}"]})
    return int(value)


def exception_handler(exc, context):
    """DRF's handler, plus: InputError and Django ValidationError become 400 with field errors; a
    stale version is 412 (If-Match) or 409 (version field, or a stale save anywhere below) with the details; a body
    over DATA_UPLOAD_MAX_MEMORY_SIZE is a 413; every error body is an object."""
    if isinstance(exc, StaleVersionError):
        code = status.HTTP_412_PRECONDITION_FAILED if isinstance(exc, IfMatchFailed) else status.HTTP_409_CONFLICT
        response = Response(exc.as_dict(), status=code)
        if exc.current is not None:
            response["ETag"] = etag_of(exc.current)
        return response
    if isinstance(exc, InputError):
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
        # A ValidationError raised with a bare list: every error body is an object (common.api_schema documents it).
        response.data = {"non_field_errors": response.data}
    return response


class StaleVersionSerializer(serializers.Serializer):
    """The body of a 409/412 answer to a write based on an old version."""

    detail = serializers.CharField()
    object = serializers.CharField(help_text="the kind of object, e.g. 'switch'")
    id = serializers.IntegerField()
    your_version = serializers.IntegerField(help_text="the version the write claimed")
    current_version = serializers.IntegerField(allow_null=True, help_text="null: the object was deleted")
    changed_by = serializers.CharField(allow_null=True, help_text="who saved it last (audit log), if recorded")
    changed_at = serializers.DateTimeField(allow_null=True)


_WRITE_ACTIONS = ("update", "partial_update", "destroy")
_ETAG_ACTIONS = ("retrieve", "create", "update", "partial_update")


class VersionedAutoSchema(AutoSchema):
    """OpenAPI for the version protocol of AtomicModelViewSet: If-Match on writes, ETag on detail responses,
    409/412 bodies."""

    def _versioned(self) -> bool:
        model = getattr(getattr(self.view, "queryset", None), "model", None)
        return model is not None and issubclass(model, VersionedModel)

    def get_override_parameters(self):
        parameters = list(super().get_override_parameters())
        action = getattr(self.view, "action", None)
        if not self._versioned():
            return parameters
        if action in _WRITE_ACTIONS:
            parameters.append(OpenApiParameter(
                "If-Match", str, OpenApiParameter.HEADER, required=False,
                description='Optional. The ETag of the version this write is based on, e.g. W/"3". Stale: 412. '
                            "Without it (and without a version field) the write applies to the current values."))
        if action in _ETAG_ACTIONS:
            parameters.append(OpenApiParameter(
                "ETag", str, OpenApiParameter.HEADER, response=[200, 201],
                description='W/"<version>": send it back as If-Match to refuse overwriting a newer version.'))
        return parameters

    def get_response_serializers(self):
        serializers_ = super().get_response_serializers()
        action = getattr(self.view, "action", None)
        if action not in _WRITE_ACTIONS or not self._versioned() or isinstance(serializers_, dict):
            return serializers_
        ok = {204: None} if action == "destroy" else {200: serializers_}
        return {**ok, 409: StaleVersionSerializer, 412: StaleVersionSerializer}


# Natural names a brief object carries besides id/url/display, when its model has the field (NetBox adds e.g. name).
BRIEF_NAME_FIELDS = ("name", "hostname")
_BRIEF_LOOKUP_VALUE = (str, int, float, bool)


def brief_of(obj, *, request=None) -> dict:
    """The brief form of a related object (NetBox's nested serializers): ``id``, ``url`` of its API detail
    endpoint (absolute when a request is known), ``display`` (its str) and its natural name where it has one."""
    return brief_from(type(obj), pk=obj.pk, display=str(obj), request=request,
                      names={name: getattr(obj, name) for name in _brief_names(type(obj))})


def brief_from(model, *, pk: int, display: str, names: dict, request=None) -> dict:
    """The brief form from values a list selected in SQL (no object built): ``names`` as in ``brief_of``."""
    path = detail_path(f"{model._meta.model_name}-detail", pk)
    url = request.build_absolute_uri(path) if request is not None else path
    return {"id": pk, "url": url, "display": display, **names}


_PK_MARK = "0pk0"  # matches the routers' pk pattern [^/.]+ and is no character reverse() would quote
_DETAIL_PATHS: dict[tuple[str, str, object], tuple[str, str]] = {}


def detail_path(view_name: str, pk: int) -> str:
    """``reverse(view_name, kwargs={"pk": pk})``, resolved once per route (and script prefix and URLconf), then
    formatted: a list of 100 rows with four relations each reversed 400 URLs, ~40% of its CPU (issue 29)."""
    key = (view_name, get_script_prefix(), get_urlconf())
    parts = _DETAIL_PATHS.get(key)
    if parts is None:
        before, _, after = django_reverse(view_name, kwargs={"pk": _PK_MARK}).rpartition(_PK_MARK)
        parts = _DETAIL_PATHS.setdefault(key, (before, after))
    return f"{parts[0]}{int(pk)}{parts[1]}"


def _brief_names(model) -> tuple[str, ...]:
    fields = {field.name for field in model._meta.concrete_fields}
    return tuple(name for name in BRIEF_NAME_FIELDS if name in fields)


class BriefRelatedField(serializers.PrimaryKeyRelatedField):
    """A relation read as a brief object ``{"id", "url", "display"[, "name"|"hostname"]}`` and written as the id,
    or as an object of the related model's own attributes (``{"id": 3}``, ``{"hostname": "leaf1"}``) that must match
    exactly one object (NetBox's rule). Querysets select the related rows (selectors): ``display`` needs them."""

    default_error_messages = {
        **serializers.PrimaryKeyRelatedField.default_error_messages,
        "attributes": "unknown attribute(s) {names} of {model}; known: {known}",
        "lookup_type": "attribute values must be strings or numbers, got {value!r}",
        "no_match": "no {model} matches {value!r}",
        "many_match": "{value!r} matches several {model} objects: give its id",
    }

    def use_pk_only_optimization(self):
        return False  # display and name need the object (selected with the row, not one query per row)

    def to_representation(self, value):
        return brief_of(value, request=self.context.get("request"))

    def to_internal_value(self, data):
        if isinstance(data, dict):
            if set(data) == {"id"}:
                data = data["id"]
            else:
                return self._lookup(data)
        return super().to_internal_value(data)

    def _lookup(self, data: dict):
        queryset = self.get_queryset()
        model = queryset.model
        known = sorted(field.attname for field in model._meta.concrete_fields)
        unknown = sorted(set(data) - set(known))
        if not data or unknown:
            self.fail("attributes", names=", ".join(unknown) or "(none given)", model=model._meta.model_name,
                      known=", ".join(known))
        for value in data.values():
            if not isinstance(value, _BRIEF_LOOKUP_VALUE):
                self.fail("lookup_type", value=value)
        try:
            return queryset.get(**data)
        except model.DoesNotExist:
            self.fail("no_match", model=model._meta.model_name, value=data)
        except model.MultipleObjectsReturned:
            self.fail("many_match", model=model._meta.model_name, value=data)
        except (TypeError, ValueError, DjangoValidationError):
            self.fail("no_match", model=model._meta.model_name, value=data)


class BriefRelatedFieldExtension(OpenApiSerializerFieldExtension):
    """OpenAPI of BriefRelatedField: responses reference a ``Brief<Model>`` component; requests take the id or
    an object of attributes (COMPONENT_SPLIT_REQUEST keeps the two apart)."""

    target_class = BriefRelatedField

    def map_serializer_field(self, auto_schema, direction):
        field = self.target
        model = field.queryset.model if field.queryset is not None else _related_model(field)
        label = model._meta.verbose_name
        if direction == "request":
            return {"oneOf": [{"type": "integer", "description": f"the {label}'s id"},
                              {"type": "object", "minProperties": 1, "additionalProperties": True,
                               "description": f"attributes of exactly one {label}, e.g. {{\"id\": 3}}"
                                              + (f" or {{\"{_brief_names(model)[0]}\": \"...\"}}"
                                                 if _brief_names(model) else "")}]}
        properties = {
            "id": {"type": "integer", "readOnly": True},
            "url": {"type": "string", "format": "uri", "readOnly": True,
                    "description": f"the {label}'s API detail endpoint"},
            "display": {"type": "string", "readOnly": True},
            **{name: {"type": "string", "readOnly": True} for name in _brief_names(model)},
        }
        component = ResolvedComponent(
            name=f"Brief{model.__name__}", type=ResolvedComponent.SCHEMA, object=model,
            schema={"type": "object", "description": f"A {label}, in brief (follow url for all of it).",
                    "properties": properties, "required": list(properties)})
        auto_schema.registry.register_on_missing(component)
        return component.ref


def _related_model(field: BriefRelatedField):
    """The model of a read-only relation (no queryset): from the serializer's model field."""
    parent = field.parent if not isinstance(field.parent, serializers.ManyRelatedField) else field.parent.parent
    source = field.source if not isinstance(field.parent, serializers.ManyRelatedField) else field.parent.source
    return parent.Meta.model._meta.get_field(source).related_model


class BriefModelSerializer(serializers.ModelSerializer):
    """Every model serializer of the API: relations are brief objects (``BriefRelatedField``)."""

    serializer_related_field = BriefRelatedField

    def build_relational_field(self, field_name, relation_info):
        if relation_info.related_model is get_user_model():
            # Users have no API endpoint (accounts are managed in the UI/admin): their username, read-only; null
            # where the column may be (a run from the shell, a deleted user), and the schema says so.
            return serializers.SlugRelatedField, {"slug_field": "username", "read_only": True,
                                                  "allow_null": relation_info.model_field.null}
        return super().build_relational_field(field_name, relation_info)


class VersionedModelSerializer(BriefModelSerializer):
    """Every ModelSerializer of a VersionedModel shows ``version`` and accepts it on update as the version the
    write is based on (optional; a stale one is a 409). Ignored on create."""

    version = serializers.IntegerField(
        required=False, min_value=1, max_value=VERSION_MAX,
        help_text="Read: the current version (also the ETag). Write (optional): the version your edit is based on; "
                  "if someone saved the object since, the write is refused with 409 instead of overwriting.")

    def get_field_names(self, declared_fields, info):
        names = super().get_field_names(declared_fields, info)
        if issubclass(self.Meta.model, VersionedModel) and "version" not in names:
            names = [*names, "version"]
        return names

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if self.instance is None:
            attrs.pop("version", None)  # a new object starts at version 1
        return attrs


class AtomicModelViewSet(viewsets.ModelViewSet):
    """CRUD whose writes run in one transaction; a database integrity error (e.g. a concurrent duplicate) is a
    400 naming the conflict, not a 500. Apps override ``perform_destroy`` for their delete rules.

    Versioned objects: a write locks the row (SELECT ... FOR UPDATE) for its transaction, re-reads the object if
    it changed since the first read, then checks the claimed version (If-Match: 412, ``version``: 409)."""

    schema = VersionedAutoSchema()  # pagination: common.api_limits.BoundedLimitOffsetPagination (settings)

    def get_object(self):
        instance = self.get_object_unlocked()
        if getattr(self, "action", None) in _WRITE_ACTIONS and isinstance(instance, VersionedModel):
            instance = self.lock_current(instance)
            self.check_version_claim(instance)
        return instance

    def get_object_unlocked(self):
        return super().get_object()

    def lock_current(self, instance):
        """Lock the row until the write commits; when someone saved it since we read it, read it again."""
        current = (type(instance)._base_manager.select_for_update().filter(pk=instance.pk)
                   .values_list("version", flat=True).first())
        if current is None:
            raise exceptions.NotFound()
        return instance if current == instance.version else self.get_object_unlocked()

    def check_version_claim(self, instance) -> None:
        header = self.request.headers.get("If-Match")
        if header is not None:
            versions = if_match_versions(header)
            if versions is not None and instance.version not in versions:
                raise stale_version_error(type(instance), instance.pk, claimed=max(versions),
                                          current=instance.version, object_repr=str(instance),
                                          error_class=IfMatchFailed)
        claimed = body_version(self.request)
        if claimed is not None and claimed != instance.version:
            raise stale_version_error(type(instance), instance.pk, claimed=claimed, current=instance.version,
                                      object_repr=str(instance))

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        data = getattr(response, "data", None)
        if (getattr(self, "action", None) in _ETAG_ACTIONS and response.status_code < 300 and isinstance(data, dict)
                and isinstance(data.get("version"), int)
                and issubclass(getattr(self.queryset, "model", object), VersionedModel)):
            response["ETag"] = etag_of(data["version"])
        return response

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
