"""OpenAPI schema post-processing: the error responses every operation can give, documented once.

drf-spectacular documents only the success response of each view. The project-wide plumbing (authentication,
permissions, common.api_limits, common.api.exception_handler) adds the same error answers to every operation; this
hook writes them into the schema so clients and the schemathesis run (tests/api/test_api_schemathesis.py) see
an API that answers only what it documents:

- 401/403 on every operation (authentication and role checks);
- 404 on every operation with a path parameter (no such object);
- 400 on every operation with query parameters (filters, pagination, common.api_limits string rule) and on every
  write (validation errors, domain errors such as "not approved yet");
- 413 and 415 on every operation with a request body (body size limit; JSON is the only accepted media type).

It also writes down the string limits common.api_limits enforces on every request, where a field declares none:
``maxLength`` on request-body strings and on string query parameters.

``SchemaView`` serves the document, built and rendered once per process and format (see its docstring).
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView

from .api_limits import MAX_QUERY_VALUE_LENGTH, MAX_STRING_LENGTH

# Rendered documents by renderer class (YAML or JSON): at most the four renderers SpectacularAPIView offers.
_RENDERED: dict[type, bytes] = {}


class SchemaView(SpectacularAPIView):
    """``/api/schema/`` generated and rendered once per process and format, then served from memory: it depends
    only on the code and settings, and each generation and YAML rendering cost ~0.45 s of CPU (~1 s on a cold or
    loaded process) that any anonymous caller could ask for again and again (issue 29). The API is not versioned
    and speaks English, so drf-spectacular's ``?version=`` and ``?lang=`` variants are not offered (each would be a
    fresh generation, and a cache key a caller could vary without end)."""

    @extend_schema(exclude=True)  # SERVE_INCLUDE_SCHEMA is off: the document does not describe itself
    def get(self, request, *args, **kwargs):
        renderer = request.accepted_renderer  # chosen by content negotiation: a class of renderer_classes
        content = _RENDERED.get(type(renderer))
        if content is None:
            generator = self.generator_class(urlconf=self.urlconf, patterns=self.patterns)
            data = generator.get_schema(request=request, public=self.serve_public)
            content = _RENDERED.setdefault(type(renderer), renderer.render(data, renderer.media_type,
                                                                           self.get_renderer_context()))
        charset = f"; charset={renderer.charset}" if renderer.charset else ""
        response = HttpResponse(content, content_type=renderer.media_type + charset)
        response["Content-Disposition"] = f'inline; filename="{self._get_filename(request, None)}"'
        return response

DETAIL_SCHEMA = {
    "type": "object",
    "description": "A request-level error.",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
VALIDATION_ERROR_SCHEMA = {
    "type": "object",
    "description": "Field name (or dotted path into a JSON field, or query parameter) -> list of messages; "
                   "``non_field_errors`` for the object as a whole; ``detail`` for a request-level error.",
    "additionalProperties": True,
    "minProperties": 1,
}
ERRORS = {
    "400": ("Invalid input: the body names each field (or parameter) and what is wrong with its value.",
            "ValidationError"),
    "401": ("Not authenticated.", "ErrorDetail"),
    "403": ("Authenticated, but the role does not allow this operation.", "ErrorDetail"),
    "404": ("No such object.", "ErrorDetail"),
    "413": ("Request body larger than DATA_UPLOAD_MAX_MEMORY_SIZE.", "ErrorDetail"),
    "415": ("Request body is not application/json.", "ErrorDetail"),
}
WRITE_METHODS = {"post", "put", "patch", "delete"}


def _error_codes(method: str, operation: dict) -> list[str]:
    parameters = operation.get("parameters", [])
    codes = ["401", "403"]
    if any(parameter.get("in") == "path" for parameter in parameters):
        codes.append("404")
    if method in WRITE_METHODS or any(parameter.get("in") == "query" for parameter in parameters):
        codes.append("400")
    if "requestBody" in operation:
        codes += ["413", "415"]
    return codes


def _bound_strings(schema: dict, max_length: int) -> None:
    """Give every string in ``schema`` (recursively) without its own limit the enforced ``max_length``."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or "$ref" in node:
            continue
        if node.get("type") == "string" and "maxLength" not in node and "enum" not in node:
            node["maxLength"] = max_length
        stack += list(node.get("properties", {}).values())
        stack += [node[key] for key in ("items", "additionalProperties") if isinstance(node.get(key), dict)]
        stack += [item for key in ("oneOf", "anyOf", "allOf") for item in node.get(key, [])]


def error_responses_hook(result, generator, request, public):
    """POSTPROCESSING_HOOKS entry: add the documented error responses each operation does not declare itself,
    and the enforced string limits."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, component in schemas.items():
        if name.endswith("Request"):  # COMPONENT_SPLIT_REQUEST: the request-side components
            _bound_strings(component, MAX_STRING_LENGTH)
    schemas.setdefault("ErrorDetail", DETAIL_SCHEMA)
    schemas.setdefault("ValidationError", VALIDATION_ERROR_SCHEMA)
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and "schema" in parameter:
                    _bound_strings(parameter["schema"], MAX_QUERY_VALUE_LENGTH)
            responses = operation.setdefault("responses", {})
            for code in _error_codes(method, operation):
                if code in responses:
                    continue
                description, component = ERRORS[code]
                responses[code] = {
                    "description": description,
                    "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{component}"}}},
                }
    return result
