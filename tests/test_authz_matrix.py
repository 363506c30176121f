"""The authorisation matrix: every operation of the OpenAPI schema, as every role, against common/policy.py.

The schema comes from drf-spectacular's generator (in-process). For each operation the expected answer per role
(anonymous, a logged-in user in no group, viewer, operator, admin) is derived from ``common.policy.API_POLICY`` and ``common.roles.ROLE_PERMISSIONS``;
an operation the policy does not name fails the test. Each request runs against minimal real fixture data inside a
savepoint that is rolled back, so an allowed DELETE or POST changes nothing; "allowed" means the permission layer
let the request through (any status but 401/403: 200, 201, 400, 404 and 503 all count), "denied" is 401/403.
The twin runtime is replaced by "unavailable" so an allowed ``up`` answers 503 instead of booting namespaces.

Deliberately broken cases: the same walk with the old default (IsAuthenticated) finds holes; a viewset missing
from the policy is refused for everyone and reported; a view overriding the policy's permission class is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.test import override_settings
from django.urls import URLPattern, URLResolver, get_resolver, include, path
from drf_spectacular.generators import SchemaGenerator
from rest_framework import permissions, serializers, viewsets
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.views import APIView

from common.policy import API_POLICY, VIEW, ByTarget, PolicyPermission, rule_for_view, view_key
from common.roles import ADMIN, APPROVE_PRODUCTION, MANAGE_ENDPOINTS, MANAGE_USERS, OPERATOR, ROLE_PERMISSIONS, VIEWER
from common.tokens import token_issue

NO_ROLE = "no-role"  # logged in, in no group: may do nothing
ROLES = ("anonymous", NO_ROLE, VIEWER, OPERATOR, ADMIN)
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
ADMIN_ONLY = {APPROVE_PRODUCTION, MANAGE_ENDPOINTS, MANAGE_USERS}
# Views that are public on purpose, with their own permission classes (drf-spectacular SERVE_PERMISSIONS).
OWN_PERMISSIONS = {"common.api_schema.SchemaView", "drf_spectacular.views.SpectacularSwaggerView",
                   "drf_spectacular.views.SpectacularSwaggerSplitView",
                   "drf_spectacular.views.SpectacularRedocView"}


# --------------------------------------------------------------------------------------------- the walk


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # as in the schema: /api/racks/{id}/
    view_class: type
    action: str | None
    body: dict | None = None
    label: str = ""

    @property
    def name(self) -> str:
        return f"{self.method} {self.path}{self.label}"


def schema_operations(urlconf=None) -> list[Operation]:
    """Every (method, path) of the OpenAPI schema with the view class and action that serve it."""
    generator = SchemaGenerator(urlconf=urlconf)
    schema = generator.get_schema(request=None, public=True)
    in_schema = {(method.upper(), route) for route, methods in schema["paths"].items() for method in methods}
    operations = []
    for route, _, method, callback in generator.endpoints:
        route = re.sub(r"\{pk\}", "{id}", route)
        if (method, route) in in_schema:
            action = getattr(callback, "actions", {}).get(method.lower()) if hasattr(callback, "actions") \
                else method.lower()
            operations.append(Operation(method, route, callback.cls, action))
    assert len(operations) == len(in_schema), "every schema operation maps to exactly one view"
    return operations


def expected_capability(operation: Operation, target: str = "twin") -> str | None:
    rule = rule_for_view(operation.view_class, operation.action)
    return rule.for_target(target) if isinstance(rule, ByTarget) else rule


def role_allows(role: str, capability: str | None) -> bool:
    granted = set(ROLE_PERMISSIONS.get(role, ()))
    return capability is not None and VIEW in granted and capability in granted


@dataclass
class Outcome:
    operation: Operation
    role: str
    status: int
    expected_allowed: bool

    @property
    def allowed(self) -> bool:
        return self.status not in (401, 403)


def run_matrix(operations: list[Operation], clients: dict[str, APIClient], ids: dict[str, int],
               targets: dict[str, str] | None = None) -> list[Outcome]:
    outcomes = []
    for operation in operations:
        url = operation.path.replace("{id}", str(ids.get(_resource(operation.path), 0)))
        capability = expected_capability(operation, (targets or {}).get(operation.name, "twin"))
        for role in ROLES:
            with transaction.atomic():
                response = clients[role].generic(operation.method, url, data=_json(operation.body),
                                                 content_type="application/json")
                transaction.set_rollback(True)  # an allowed write leaves nothing behind
            outcomes.append(Outcome(operation, role, response.status_code, role_allows(role, capability)))
    return outcomes


def _resource(route: str) -> str:
    return route.split("/")[2]


def _json(body: dict | None) -> str:
    import json

    return json.dumps(body if body is not None else {})


# A user's own API tokens (common.tokens): every role may rotate and revoke its own, so these POSTs are no hole.
OWN_ACCOUNT = {"common.tokens.TokenRotateView", "common.tokens.TokenLogoutView", "common.tokens.TokenLogoutAllView"}
# Token login authenticates with HTTP Basic (username + password), not with the token the matrix sends; its policy
# is still checked by test_every_operation_has_a_policy and its behaviour by tests/test_security_hardening.py.
NOT_TOKEN_AUTHENTICATED = {"common.tokens.TokenLoginView"}


def matrix_operations() -> list[Operation]:
    return [operation for operation in schema_operations()
            if view_key(operation.view_class) not in NOT_TOKEN_AUTHENTICATED]


def is_fabric_write(operation: Operation) -> bool:
    return operation.method in WRITE_METHODS and view_key(operation.view_class) not in OWN_ACCOUNT


def holes(outcomes: list[Outcome]) -> dict[str, list[str]]:
    """Mismatches, and the two kinds of hole the audit counted: viewer writes allowed, operator admin ops allowed."""
    return {
        "mismatches": [f"{o.operation.name} as {o.role}: {o.status}, expected "
                       f"{'allowed' if o.expected_allowed else 'denied'}"
                       for o in outcomes if o.allowed != o.expected_allowed],
        "viewer_writes_allowed": [o.operation.name for o in outcomes
                                  if o.role == VIEWER and is_fabric_write(o.operation) and o.allowed],
        "operator_admin_ops_allowed": [
            o.operation.name for o in outcomes if o.role == OPERATOR and o.allowed
            and expected_capability(o.operation, _target_of(o.operation)) in ADMIN_ONLY],
        "anonymous_allowed": [o.operation.name for o in outcomes if o.role == "anonymous" and o.allowed],
        "no_role_allowed": [o.operation.name for o in outcomes if o.role == NO_ROLE and o.allowed],
    }


def _target_of(operation: Operation) -> str:
    return "production" if "production" in operation.label else "twin"


def policy_gaps(urlconf=None) -> list[str]:
    """Every (view, action) reachable through the URLconf that the policy does not name, and every API view that
    replaces the policy's permission class: both would be holes whether or not the schema shows them."""
    gaps = []
    for pattern in _patterns(get_resolver(urlconf).url_patterns):
        view_class = getattr(pattern.callback, "cls", None)
        if view_class is None or not issubclass(view_class, APIView) or view_key(view_class) in OWN_PERMISSIONS:
            continue
        if PolicyPermission not in view_class.permission_classes:
            gaps.append(f"{view_key(view_class)}: permission_classes {view_class.permission_classes} bypass the policy")
        actions = getattr(pattern.callback, "actions", None)
        names = set(actions.values()) if actions else {method for method in view_class.http_method_names
                                                       if hasattr(view_class, method) and method != "options"}
        gaps += [f"{view_key(view_class)}.{name}: no policy" for name in sorted(names)
                 if rule_for_view(view_class, name) is None]
    return sorted(set(gaps))


def _patterns(patterns):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _patterns(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            yield pattern


# --------------------------------------------------------------------------------------------- fixtures


@pytest.fixture
def clients(db) -> dict[str, APIClient]:
    out = {"anonymous": APIClient()}
    for role in (NO_ROLE, VIEWER, OPERATOR, ADMIN):
        user = User.objects.create_user(f"authz-{role}")
        if role != NO_ROLE:
            user.groups.add(Group.objects.get(name=role))
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user)[0]}")
        client.user = user
        out[role] = client
    return out


@pytest.fixture
def world(db, monkeypatch) -> dict:
    """One object of every resource (a 2-spine, 2-leaf fabric compiled once), and no live twin."""
    from changes.models import AuditLog, ChangeSet, Rollout
    from compiler.clos import ClosParams, plan_clos
    from intents import services as intent_services
    from intents.models import Allocation
    from inventory.models import (
        Cable,
        Fabric,
        Interface,
        NicPort,
        Optic,
        Platform,
        Rack,
        Server,
        Switch,
        SwitchModel,
    )
    from inventory.services import inventory_persist
    from twins import services as twin_services
    from validation.models import ValidationRun

    def no_twin_host():
        return ["authz matrix: the twin runtime is not used"]

    def never(*args, **kwargs):
        raise AssertionError("the authz matrix must never touch the twin runtime")

    monkeypatch.setattr(twin_services, "twin_prerequisites", no_twin_host)
    monkeypatch.setattr("labs.runtime.up", never)
    monkeypatch.setattr("labs.runtime.down", never)

    inventory_persist(inventory=plan_clos(ClosParams(name="authz", spines=2, leaves=2, servers_per_leaf=1)))
    fabric = Fabric.objects.get(name="authz")
    intent = intent_services.fabric_intent_create(fabric=fabric, name="authz-intent")
    tenant = intent_services.tenant_create(fabric_intent=intent, name="A", vrf="TENANT_A")
    network = intent_services.network_create(tenant=tenant, name="net10", vlan_id=10, subnet="10.10.0.0/24",
                                             gateway="10.10.0.1")
    roce = intent_services.roce_defaults_apply(fabric_intent=intent)[0]
    run = intent_services.compile_run_create(fabric_intent=intent)
    assert run.status == "succeeded", run.error
    submitter = User.objects.create_user("authz-submitter")  # creates the rollouts: admins may approve them
    plan = {"waves": [["leaf1"]], "unchanged": []}
    twin_rollout = Rollout.objects.create(name="twin", kind="canary_push", target="twin", state="pending",
                                          plan=plan, policy={}, started_by=submitter)
    awaiting = Rollout.objects.create(name="prod", kind="canary_push", target="production",
                                      state="awaiting_approval", plan=plan, policy={}, started_by=submitter)
    approved = Rollout.objects.create(name="prod-ok", kind="canary_push", target="production", state="pending",
                                      plan=plan, policy={}, started_by=submitter, approved_by=submitter)
    ids = {
        "sites": fabric.site_id, "fabrics": fabric.pk, "racks": Rack.objects.first().pk,
        "switch-models": SwitchModel.objects.first().pk, "platforms": Platform.objects.first().pk,
        "switches": Switch.objects.first().pk, "interfaces": Interface.objects.first().pk,
        "optics": Optic.objects.first().pk, "cables": Cable.objects.first().pk, "servers": Server.objects.first().pk,
        "nic-ports": NicPort.objects.first().pk, "fabric-intents": intent.pk, "tenants": tenant.pk,
        "networks": network.pk, "roce-classes": roce.pk, "allocations": Allocation.objects.first().pk,
        "compile-runs": run.pk, "device-configs": run.device_configs.first().pk,
        "change-sets": ChangeSet.objects.create(name="authz").pk, "rollouts": twin_rollout.pk,
        "twins": twin_services.twin_get_or_create(fabric_intent=intent).pk,
        "validation-runs": ValidationRun.objects.create(fabric_intent=intent).pk,
        "audit-log": AuditLog.objects.create(action="create", object_type="authz.test").pk,
    }
    return {"ids": ids, "awaiting": awaiting, "approved": approved}


def production_variants(operations: list[Operation], world: dict) -> tuple[list[Operation], dict[str, int]]:
    """The operations whose capability depends on the target, asked about production (body or object)."""
    by_name = {operation.name: operation for operation in operations}
    variants, ids = [], {}
    for name, body, rollout in (
            ("POST /api/rollouts/", {"name": "p", "kind": "rolling_upgrade", "target": "production"}, None),
            ("POST /api/change-sets/", {"compile_run": 0, "target": "production"}, None),
            ("POST /api/rollouts/{id}/approve/", None, world["awaiting"]),
            ("POST /api/rollouts/{id}/start/", None, world["approved"])):
        base = by_name[name]
        variant = Operation(base.method, base.path, base.view_class, base.action, body, " (production)")
        variants.append(variant)
        if rollout is not None:
            ids[variant.name] = rollout.pk
    return variants, ids


def run_with_variants(operations, variants, variant_ids, clients, world) -> list[Outcome]:
    outcomes = run_matrix(operations, clients, world["ids"])
    for variant in variants:
        ids = {**world["ids"], "rollouts": variant_ids.get(variant.name, world["ids"]["rollouts"])}
        outcomes += run_matrix([variant], clients, ids, targets={variant.name: "production"})
    return outcomes


def report(title: str, operations, variants, outcomes) -> dict[str, list[str]]:
    found = holes(outcomes)
    everything = operations + variants
    writes = sum(is_fabric_write(operation) for operation in everything)
    admin_only = sum(expected_capability(operation, _target_of(operation)) in ADMIN_ONLY for operation in everything)
    print(f"\n{title}: {len(operations)} schema operations + {len(variants)} production variants, x {len(ROLES)} "
          f"roles = {len(outcomes)} requests; " + ", ".join(f"{key} {len(value)}" for key, value in found.items())
          + f" (of {writes} writes, {admin_only} admin-only operations)")
    for key in ("viewer_writes_allowed", "operator_admin_ops_allowed"):
        if 0 < len(found[key]) < 10:
            print(f"  {key}: {found[key]}")
    return found


# --------------------------------------------------------------------------------------------- tests


def test_every_operation_has_a_policy():
    operations = schema_operations()
    assert len(operations) > 100  # the whole API, not an empty walk
    missing = [operation.name for operation in operations if expected_capability(operation) is None]
    assert missing == [], f"operations without a policy in common/policy.py API_POLICY: {missing}"
    assert policy_gaps() == []


def test_policy_names_only_views_that_exist():
    served = {view_key(pattern.callback.cls) for pattern in _patterns(get_resolver().url_patterns)
              if getattr(pattern.callback, "cls", None) is not None}
    assert set(API_POLICY) - served == set()


@pytest.mark.django_db
def test_authz_matrix(clients, world):
    operations = matrix_operations()
    variants, variant_ids = production_variants(operations, world)
    outcomes = run_with_variants(operations, variants, variant_ids, clients, world)
    found = report("policy", operations, variants, outcomes)
    assert found == {"mismatches": [], "viewer_writes_allowed": [], "operator_admin_ops_allowed": [],
                     "anonymous_allowed": [], "no_role_allowed": []}
    # the matrix really reached the views: every role-allowed operation answered something other than 401/403
    assert sum(outcome.allowed for outcome in outcomes) == sum(outcome.expected_allowed for outcome in outcomes) > 200
    approve = next(o for o in outcomes if o.operation.name == "POST /api/rollouts/{id}/approve/ (production)"
                   and o.role == ADMIN)
    assert approve.status == 200  # a second person (the admin) approved the submitter's production rollout


@pytest.mark.django_db
def test_matrix_finds_the_holes_of_authenticated_only(clients, world, monkeypatch):
    """Deliberately broken: the pre-policy default (any logged-in user may do anything) must fail the matrix."""
    monkeypatch.setattr(APIView, "permission_classes", [permissions.IsAuthenticated])
    operations = matrix_operations()
    variants, variant_ids = production_variants(operations, world)
    outcomes = run_with_variants(operations, variants, variant_ids, clients, world)
    found = report("IsAuthenticated only (before)", operations, variants, outcomes)
    writes = [operation for operation in operations + variants if is_fabric_write(operation)]
    # only the services' own checks (approve, and production start, need the capability) refuse a viewer's write
    assert len(found["viewer_writes_allowed"]) >= len(writes) - 3
    assert len(found["operator_admin_ops_allowed"]) >= 2  # production rollout and change set creation
    assert found["mismatches"]
    assert found["anonymous_allowed"] == []
    assert len(found["no_role_allowed"]) >= len(writes) - 3  # a user in no group could write too
    assert policy_gaps() != []  # every view now bypasses the policy


class NothingSerializer(serializers.Serializer):
    pass


class UnpolicedViewSet(viewsets.ViewSet):
    """A new endpoint someone forgot to add to common/policy.py."""

    serializer_class = NothingSerializer

    def list(self, request):
        return Response([])

    def create(self, request):
        return Response({}, status=201)


class AllowAnyView(APIView):
    """An endpoint that replaces the policy with its own permission class."""

    permission_classes = [permissions.AllowAny]
    serializer_class = NothingSerializer

    def get(self, request):
        return Response({})


urlpatterns = [
    path("api/unpoliced/", UnpolicedViewSet.as_view({"get": "list", "post": "create"})),
    path("api/allow-any/", AllowAnyView.as_view()),
    path("api/", include("twin.api_urls")),
]


@pytest.mark.django_db
def test_an_endpoint_without_a_policy_is_refused_and_reported(clients):
    with override_settings(ROOT_URLCONF=__name__):
        for role in (VIEWER, OPERATOR, ADMIN):
            for method in ("get", "post"):
                response = getattr(clients[role], method)("/api/unpoliced/")
                assert response.status_code == 403, (role, method)
                assert "No authorisation policy" in response.json()["detail"]
        assert clients["anonymous"].get("/api/unpoliced/").status_code == 401
        gaps = policy_gaps(__name__)
        unpoliced = [operation.name for operation in schema_operations(__name__)
                     if expected_capability(operation) is None]
    assert f"{__name__}.UnpolicedViewSet.list: no policy" in gaps
    assert f"{__name__}.UnpolicedViewSet.create: no policy" in gaps
    assert any(gap.startswith(f"{__name__}.AllowAnyView: permission_classes") for gap in gaps)
    assert unpoliced == ["GET /api/allow-any/", "GET /api/unpoliced/", "POST /api/unpoliced/"]


def test_unrouted_method_is_405_for_readers_and_denied_to_others(clients, world):
    url = f"/api/rollouts/{world['ids']['rollouts']}/"
    assert clients[VIEWER].delete(url).status_code == 405  # read-only viewset: nothing runs
    assert clients["anonymous"].delete(url).status_code == 401


def test_the_object_check_stops_an_operator_starting_production(clients, world, monkeypatch):
    """The rollout's own target decides (``get_object`` -> has_object_permission): broken on purpose, an operator
    could start an approved production rollout."""
    url = f"/api/rollouts/{world['approved'].pk}/start/"
    twin_url = f"/api/rollouts/{world['ids']['rollouts']}/start/"
    response = clients[OPERATOR].post(url)
    assert response.status_code == 403 and "approve_production_rollout" in response.json()["detail"]
    assert clients[OPERATOR].post(twin_url).json()["state"] == "running"  # the twin rollout: an operator's job
    monkeypatch.setattr("changes.services.user_has", lambda user, capability: True)  # the service's own check off
    assert clients[OPERATOR].post(url).status_code == 403  # the policy alone still refuses
    monkeypatch.setattr(PolicyPermission, "has_object_permission", lambda self, request, view, obj: True)
    assert clients[OPERATOR].post(url).json()["state"] == "running"
