"""Property-based API fuzzing with schemathesis against the WSGI app: no input may produce a server error.

Covers every operation in the project's OpenAPI schema (all apps under /api/). Bounded (a few examples per
operation, derandomized) so the whole run stays well under two minutes. The fabric build action is left out:
a valid random body may ask for a thousand-switch build, which the targeted tests in test_inventory_api.py
cover; fuzzing it would only measure the machine.
"""

import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings

from compiler.clos import ClosParams
from inventory.builder import fabric_build
from twin.wsgi import application


@pytest.fixture
def wsgi_in_test_transaction():
    """Stop Django's WSGI handler from closing the test's database connection around each request.

    The real handler calls close_old_connections() on request start/finish, which closes a connection that is
    inside a transaction (the test's); Django's own test client disconnects it the same way.
    """
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def api_schema(db, wsgi_in_test_transaction):
    # Generated in a fixture: some serializers' field reprs touch the database while the schema is built.
    schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
    schema.app = application  # what from_wsgi does, without fetching the (authenticated) schema endpoint
    return schema.exclude(path="/api/fabrics/build/")


@pytest.fixture
def small_fabric(db):
    fabric_build(params=ClosParams(name="fuzz", spines=2, leaves=2, servers_per_leaf=1))


EXAMPLES_PER_OPERATION = 6


def fuzz(schema, headers: dict, examples: int = EXAMPLES_PER_OPERATION) -> tuple[int, list[str]]:
    """Call every operation of ``schema`` with generated data; (operations run, server errors seen)."""
    server_errors: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @given(case=operation.as_strategy())
        @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def call(case):
            response = case.call(headers=headers)
            if response.status_code >= 500:
                server_errors.append(f"{case.method} {case.formatted_path} -> {response.status_code}: "
                                     f"{response.text[:300]}\n  reproduce: {case.as_curl_command()}")

        call()
    return operations, server_errors


@pytest.mark.slow
def test_api_never_answers_with_a_server_error(api_schema, api_client, small_fabric):
    operations, server_errors = fuzz(api_schema, {"Authorization": f"Token {api_client.token}"})
    assert operations > 40  # every app's CRUD endpoints were fuzzed, not an empty schema
    assert not server_errors, "\n".join(server_errors)


def test_the_fuzzer_reports_a_server_error(api_schema, api_client, monkeypatch):
    from inventory.api.views import SiteViewSet

    def broken_list(self, request, *args, **kwargs):
        raise ZeroDivisionError("deliberately broken")

    monkeypatch.setattr(SiteViewSet, "list", broken_list)
    operations, server_errors = fuzz(api_schema.include(path="/api/sites/", method="GET"),
                                     {"Authorization": f"Token {api_client.token}"}, examples=1)
    assert operations == 1 and server_errors and "GET /api/sites/ -> 500" in server_errors[0]
