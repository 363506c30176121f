"""Property-based API fuzzing with schemathesis, in-process against the WSGI app (no server), over every operation
of the project's OpenAPI schema, with every response check schemathesis has.

What the run does (docs/security.md, "Input limits"):
- every operation is called ``EXAMPLES_PER_OPERATION`` times with schema-valid data and as many times with
  schema-violating data (schemathesis' positive and negative generation modes), from a recorded Hypothesis seed
  (``SEED``), so a failure found in CI reproduces on any machine;
- as a superuser (token auth), so every write is exercised whatever roles the authorisation policy requires;
- against a small built fabric, so lists and filters return real rows;
- each response goes through schemathesis' default checks (``GATING_CHECKS`` below): no 5xx, the status code,
  content type, headers and body match the schema, unauthenticated calls are refused, and so on.

Two of schemathesis' checks are measured and reported but do not fail the run, because no OpenAPI schema can say
what they need (see ``REPORTED_ONLY_CHECKS``). ``FT_FUZZ_REPORT=path`` writes the per-check counts as JSON.

The fabric build action is left out: a valid random body may ask for a thousand-switch build, which the targeted
tests in tests/inventory/test_inventory_api.py cover; fuzzing it would only measure the machine.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from dataclasses import dataclass, field

import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.generation.modes import GenerationMode

from compiler.clos import ClosParams
from inventory.builder import fabric_build
from twin.wsgi import application

SEED = 20261124
EXAMPLES_PER_OPERATION = 15  # per generation mode (positive, negative): ~4,000 requests, about 2 minutes
# Checks that are measured and reported, not gating:
# - positive_data_acceptance expects every schema-valid request to succeed. A schema cannot say that a foreign
#   key must name an existing row, that a name must be unique, or that a rollout needs an approved change set;
#   those are 400s with the field named, which is the behaviour we want.
# - negative_data_rejection expects every schema-violating request to fail. An empty filter (``?kind=``) means
#   "no filter" in django-filter and unknown extra body properties are ignored (DRF), both documented behaviour.
REPORTED_ONLY_CHECKS = ("positive_data_acceptance", "negative_data_rejection")


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


@pytest.fixture(autouse=True)
def netbox_webhook_configured(settings):
    """The NetBox webhook as a deployment that uses it runs: with a secret. Without one it answers 503 ("no
    webhook secret configured", tests/inventory/test_inventory_netbox_sync.py); with one, the fuzzer's unsigned
    bodies must get a 400 naming X-Hook-Signature, never a server error."""
    settings.FT_NETBOX_WEBHOOK_SECRET = "schemathesis-webhook-secret"


@pytest.fixture
def api_schema(db, wsgi_in_test_transaction):
    # Generated in a fixture: some serializers' field reprs touch the database while the schema is built.
    schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
    schema.app = application  # what from_wsgi does, without fetching the (authenticated) schema endpoint
    # /api/auth/ issues and revokes tokens: fuzzing logout/rotate would revoke the fuzzer's own token mid-run
    # (tests/test_security_hardening.py covers those endpoints).
    return schema.exclude(path="/api/fabrics/build/").exclude(path_regex="^/api/auth/")


@pytest.fixture
def admin_headers(db) -> dict:
    """A superuser's token: the authorisation policy allows a superuser every operation."""
    from django.contrib.auth import get_user_model

    from common.tokens import token_issue

    user = get_user_model().objects.create_superuser(username="fuzz-admin", email="fuzz@example.com",
                                                     password=None)
    return {"Authorization": f"Token {token_issue(user=user)[0]}"}


@pytest.fixture
def small_fabric(db):
    fabric_build(params=ClosParams(name="fuzz", spines=2, leaves=2, servers_per_leaf=1))


@dataclass
class FuzzResult:
    operations: int = 0
    calls: int = 0
    seconds: float = 0.0
    # check name -> operation label -> first failure (message and curl command to reproduce)
    failures: dict[str, dict[str, str]] = field(default_factory=lambda: defaultdict(dict))
    cases_failed: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    called: set[str] = field(default_factory=set)  # operation labels that were actually called

    def record(self, error: FailureGroup | Failure, case, headers: dict) -> None:
        for failure in error.exceptions if isinstance(error, FailureGroup) else (error,):
            check = _check_name(failure)
            self.cases_failed[check] += 1
            self.failures[check].setdefault(
                case.operation.label,
                f"{failure.title}: {failure.message.strip()[:400]}\n    reproduce: "
                f"{case.as_curl_command(headers=headers)[:600]}")

    def gating(self) -> dict[str, dict[str, str]]:
        return {check: ops for check, ops in self.failures.items() if check not in REPORTED_ONLY_CHECKS}

    def summary(self) -> dict:
        return {
            "seed": SEED, "examples_per_operation_per_mode": EXAMPLES_PER_OPERATION,
            "operations": self.operations, "operations_called": len(self.called), "calls": self.calls, "seconds": round(self.seconds, 1),
            "failing_operations_by_check": {check: len(ops) for check, ops in sorted(self.failures.items())},
            "failing_cases_by_check": dict(sorted(self.cases_failed.items())),
            "server_errors": len(self.failures.get("not_a_server_error", {})),
        }

    def describe(self, checks: dict[str, dict[str, str]]) -> str:
        lines = []
        for check, operations in sorted(checks.items()):
            lines.append(f"{check}: {len(operations)} operations")
            lines += [f"  {label}: {detail}" for label, detail in sorted(operations.items())]
        return "\n".join(lines)


def _check_name(failure: Failure) -> str:
    return failure.checks[0] if failure.checks else type(failure).__name__


def fuzz(schema, headers: dict, examples: int = EXAMPLES_PER_OPERATION,
         modes=(GenerationMode.POSITIVE, GenerationMode.NEGATIVE)) -> FuzzResult:
    """Call every operation of ``schema`` with generated data and run schemathesis' checks on each response."""
    result = FuzzResult()
    started = time.monotonic()
    for operation_result in schema.get_all_operations():
        operation = operation_result.ok()
        result.operations += 1
        for mode in modes:

            @seed(SEED)
            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
                      suppress_health_check=list(HealthCheck))
            def call(case):
                result.calls += 1
                result.called.add(case.operation.label)
                try:
                    case.call_and_validate(headers=headers)
                except (FailureGroup, Failure) as error:
                    result.record(error, case, headers)

            try:
                call()
            except Unsatisfiable:
                pass  # no schema-violating input exists for this operation (no parameters, no body)
    result.seconds = time.monotonic() - started
    return result


@pytest.mark.slow
def test_api_has_no_server_errors_and_matches_its_schema(api_schema, admin_headers, small_fabric):
    result = fuzz(api_schema, admin_headers)
    if os.environ.get("FT_FUZZ_REPORT"):
        with open(os.environ["FT_FUZZ_REPORT"], "w") as report:
            json.dump({**result.summary(), "failures": result.failures}, report, indent=1)
    print("\nschemathesis:", json.dumps(result.summary()))
    assert result.operations > 100 and len(result.called) == result.operations  # the whole API, every operation
    assert result.calls > result.operations * EXAMPLES_PER_OPERATION
    gating = result.gating()
    assert not gating, result.describe(gating)


STATEFUL_SCENARIOS = 100
STATEFUL_STEPS = 8


def fuzz_stateful(schema, headers: dict, scenarios: int = STATEFUL_SCENARIOS) -> FuzzResult:
    """Chains of calls that follow the links schemathesis infers from the schema (create -> read/update/delete the
    created object by its id, ...), each chain from the same database state: it runs in a savepoint that is
    rolled back afterwards, which also keeps Hypothesis' replay of a chain deterministic."""
    from django.db import transaction

    result = FuzzResult()
    Workflow = schema.as_state_machine()

    class AdminWorkflow(Workflow):
        def setup(self):
            self._scenario = transaction.atomic()
            self._scenario.__enter__()

        def teardown(self):
            transaction.set_rollback(True)
            self._scenario.__exit__(None, None, None)

        def get_call_kwargs(self, case):
            return {"headers": headers}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            result.calls += 1
            result.called.add(case.operation.label)
            try:
                case.validate_response(response, headers=headers, transport_kwargs=kwargs or None,
                                       recorder=self.recorder)
            except (FailureGroup, Failure) as error:
                result.record(error, case, headers)

    started = time.monotonic()
    AdminWorkflow.run(settings=settings(max_examples=scenarios, stateful_step_count=STATEFUL_STEPS, deadline=None,
                                        database=None, derandomize=True, phases=[Phase.generate],
                                        suppress_health_check=list(HealthCheck)))
    result.seconds = time.monotonic() - started
    result.operations = len(result.called)
    return result


@pytest.mark.slow
def test_api_workflows_following_schema_links_have_no_server_errors(api_schema, admin_headers, small_fabric):
    result = fuzz_stateful(api_schema, admin_headers)
    if os.environ.get("FT_FUZZ_REPORT"):
        with open(os.environ["FT_FUZZ_REPORT"] + ".stateful", "w") as report:
            json.dump({**result.summary(), "failures": result.failures}, report, indent=1)
    print("\nschemathesis stateful:", json.dumps(result.summary()))
    assert result.calls > STATEFUL_SCENARIOS and result.operations > 40  # chains ran, over much of the API
    gating = result.gating()
    assert not gating, result.describe(gating)


def test_the_fuzzer_reports_a_server_error(api_schema, admin_headers, monkeypatch):
    from inventory.api.views import SiteViewSet

    def broken_list(self, request, *args, **kwargs):
        raise ZeroDivisionError("deliberately broken")

    monkeypatch.setattr(SiteViewSet, "list", broken_list)
    result = fuzz(api_schema.include(path="/api/sites/", method="GET"), admin_headers, examples=1,
                  modes=(GenerationMode.POSITIVE,))
    assert result.operations == 1
    assert "GET /api/sites/" in result.gating()["not_a_server_error"]


def test_the_fuzzer_reports_a_response_that_breaks_the_schema(api_schema, admin_headers, small_fabric, monkeypatch):
    from inventory.api.serializers import SiteSerializer

    original = SiteSerializer.to_representation

    def wrong_type(self, instance):
        return {**original(self, instance), "name": 12345}  # the schema says string

    monkeypatch.setattr(SiteSerializer, "to_representation", wrong_type)
    result = fuzz(api_schema.include(path="/api/sites/", method="GET"), admin_headers, examples=3,
                  modes=(GenerationMode.POSITIVE,))
    assert "GET /api/sites/" in result.gating()["response_schema_conformance"]


def test_the_fuzzer_reports_an_undocumented_status_code(api_schema, admin_headers, monkeypatch):
    from rest_framework.response import Response

    from inventory.api.views import SiteViewSet

    monkeypatch.setattr(SiteViewSet, "list", lambda self, request, *args, **kwargs: Response(status=418))
    result = fuzz(api_schema.include(path="/api/sites/", method="GET"), admin_headers, examples=1,
                  modes=(GenerationMode.POSITIVE,))
    assert "GET /api/sites/" in result.gating()["status_code_conformance"]
