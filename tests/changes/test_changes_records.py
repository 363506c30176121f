"""Records and interfaces: the state machine table, approval rules, API (400/403, never 500), credentials never in
clear, the audit trail of inventory/intents/rollout changes."""

from __future__ import annotations

import itertools
import logging

import pytest
from cryptography.fernet import Fernet
from django.contrib.auth.models import Group, User
from django.db import connection
from rest_framework.test import APIClient
from twin_rows import twin_row

from changes import services
from changes.audit import audit_actor
from changes.choices import ROLLOUT_TRANSITIONS, TERMINAL_STATES
from changes.choices import RolloutStateChoices as State
from changes.credentials import endpoint_password
from changes.drivers import driver_for_endpoint
from changes.errors import RolloutStateError
from changes.models import AuditLog, DeviceEndpoint, Rollout, Step
from compiler.errors import DriverError, InputError

pytestmark = pytest.mark.django_db
PASSWORD = "Tr0ub4dor&3-never-in-clear"


def _rollout(**fields) -> Rollout:
    return Rollout.objects.create(name="r", kind="rolling_upgrade", target="twin", policy={}, plan={"waves": []},
                                  **fields)


@pytest.mark.parametrize(("current", "wanted"), list(itertools.product(State.values, State.values)))
def test_transition_table_is_enforced_in_one_place(current, wanted):
    rollout = _rollout(state=current)
    if wanted in ROLLOUT_TRANSITIONS[current]:
        assert services.rollout_transition(rollout_id=rollout.pk, to_state=wanted).state == wanted
    else:
        with pytest.raises(RolloutStateError, match=f"state='{current}'"):
            services.rollout_transition(rollout_id=rollout.pk, to_state=wanted)
        rollout.refresh_from_db()
        assert rollout.state == current


def test_terminal_states_have_no_exit():
    assert TERMINAL_STATES == {State.SUCCEEDED, State.FAILED, State.ROLLED_BACK, State.CANCELLED}


def test_policy_errors_name_field_and_value():
    with pytest.raises(InputError) as error:
        services.rollout_create(name="x", kind="rolling_upgrade", target="twin",
                                policy={"wave_size": 0, "checks": ["bgp", "telepathy"]})
    fields = error.value.as_dict()
    assert "policy.wave_size" in fields and "got 0" in fields["policy.wave_size"][0]
    assert "policy.checks" in fields and "policy.target_version" in fields
    assert "a twin rollout names its twin" in fields["twin"][0]


@pytest.fixture
def users():
    admin = User.objects.create_user("alice")
    admin.groups.add(Group.objects.get_or_create(name="admin")[0])
    return {"admin": admin, "operator": User.objects.create_user("bob")}


def _production_upgrade(user):
    return services.rollout_create(
        name="up", kind="rolling_upgrade", target="production", user=user, policy={"target_version": "4.33.2F"},
        topology={"roles": {"spine1": "spine", "spine2": "spine", "leaf1": "leaf", "leaf2": "leaf"},
                  "links": [["leaf1", "spine1"], ["leaf1", "spine2"], ["leaf2", "spine1"], ["leaf2", "spine2"]]})


def test_production_needs_admin_approval_twin_does_not(users):
    rollout = _production_upgrade(users["operator"])
    assert rollout.state == State.AWAITING_APPROVAL
    with pytest.raises(RolloutStateError):
        services.rollout_transition(rollout_id=rollout.pk, to_state=State.RUNNING)
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        services.rollout_approve(rollout=rollout, user=users["operator"])
    approved = services.rollout_approve(rollout=rollout, user=users["admin"])
    assert approved.state == State.PENDING and approved.approved_by == users["admin"]
    with pytest.raises(PermissionDenied, match="approve_production_rollout"):
        services.rollout_start(rollout=approved, user=users["operator"], enqueue=False)
    assert services.rollout_start(rollout=approved, user=users["admin"], enqueue=False).state == State.RUNNING
    twin = _rollout(state=State.PENDING)
    assert services.rollout_start(rollout=twin, enqueue=False).state == State.RUNNING


def test_production_needs_a_second_person(users):
    from django.core.exceptions import PermissionDenied

    second_admin = User.objects.create_user("dave")
    second_admin.groups.add(Group.objects.get(name="admin"))
    rollout = _production_upgrade(users["admin"])
    with pytest.raises(RolloutStateError, match="must be approved"):
        services.rollout_start(rollout=rollout, user=users["admin"], enqueue=False)
    with pytest.raises(PermissionDenied, match="a second person must approve it"):
        services.rollout_approve(rollout=rollout, user=users["admin"])
    rollout.refresh_from_db()
    assert rollout.state == State.AWAITING_APPROVAL and rollout.approved_by is None
    assert services.rollout_approve(rollout=rollout, user=second_admin).approved_by == second_admin
    assert services.rollout_start(rollout=rollout, user=users["admin"], enqueue=False).state == State.RUNNING


def test_production_rollout_without_a_recorded_creator_cannot_be_approved(users):
    from django.core.exceptions import PermissionDenied

    rollout = _production_upgrade(None)
    with pytest.raises(PermissionDenied, match="no recorded creator"):
        services.rollout_approve(rollout=rollout, user=users["admin"])
    assert Rollout.objects.get(pk=rollout.pk).state == State.AWAITING_APPROVAL


def test_api_create_approve_start_and_errors(api_client, api_user, users):
    bad = api_client.post("/api/rollouts/", {"name": "x", "kind": "canary_push", "target": "twin",
                                             "policy": {"wave_size": "big"}}, format="json")
    assert bad.status_code == 400
    assert "policy.wave_size" in bad.json() and "change_set" in bad.json()
    created = api_client.post("/api/rollouts/", {
        "name": "up", "kind": "rolling_upgrade", "target": "production", "policy": {"target_version": "4.33.2F"},
        "topology": {"roles": {"spine1": "spine", "spine2": "spine", "leaf1": "leaf", "leaf2": "leaf"},
                     "links": [["leaf1", "spine1"], ["leaf1", "spine2"], ["leaf2", "spine1"], ["leaf2", "spine2"]]}},
        format="json")
    assert created.status_code == 201, created.json()
    rollout_id = created.json()["id"]
    assert created.json()["state"] == "awaiting_approval" and created.json()["plan"]["waves"] == [["spine1"], ["spine2"]]
    assert api_client.post(f"/api/rollouts/{rollout_id}/start/").status_code == 400  # not approved yet
    refused = api_client.post(f"/api/rollouts/{rollout_id}/approve/")  # api_user (an admin) created it
    assert refused.status_code == 403 and "second person" in refused.json()["detail"]
    second = APIClient()
    second.force_authenticate(users["admin"])
    assert second.post(f"/api/rollouts/{rollout_id}/approve/").json()["state"] == "pending"
    assert api_client.post(f"/api/rollouts/{rollout_id}/pause/").status_code == 400  # pending cannot pause
    assert api_client.post(f"/api/rollouts/{rollout_id}/cancel/").json()["state"] == "cancelled"
    detail = api_client.get(f"/api/rollouts/{rollout_id}/").json()
    assert detail["steps"] == [] and detail["approved_by"] == "alice" and detail["started_by"] == "api-tester"
    assert api_client.get(f"/api/rollouts/{rollout_id}/progress/").json()["finished"] is True
    assert api_client.get("/api/rollouts/999999/").status_code == 404
    trail = api_client.get("/api/audit-log/", {"object_type": "changes.rollout"}).json()["results"]
    assert [(row["message"], row["username"]) for row in trail][:3] == [
        ("cancelled", "api-tester"), ("approved", "alice"), ("created", "api-tester")]


def test_credentials_encrypted_at_rest_and_never_logged(caplog, monkeypatch, tmp_path):
    caplog.set_level(logging.DEBUG)
    with audit_actor(User.objects.create_user("carol")):
        endpoint = services.endpoint_create(hostname="leaf9", driver="napalm_mock", address="192.0.2.9",
                                            username="admin", password=PASSWORD,
                                            optional_args={"path": str(tmp_path), "fail_on_open": True})
    assert endpoint.password_encrypted and PASSWORD not in endpoint.password_encrypted
    assert endpoint_password(DeviceEndpoint.objects.get(pk=endpoint.pk)) == PASSWORD
    with connection.cursor() as cursor:  # no column of any changes table holds the clear text
        for table in connection.introspection.table_names():
            if table.startswith("changes_"):
                cursor.execute(f'SELECT * FROM "{table}"')  # table names from introspection
                assert PASSWORD not in repr(cursor.fetchall()), table
    audit = AuditLog.objects.get(object_type="changes.deviceendpoint")
    assert audit.username == "carol" and audit.changes["password_encrypted"] == "***"
    with pytest.raises(DriverError) as error:
        driver_for_endpoint(endpoint).open()
    assert PASSWORD not in str(error.value) and PASSWORD not in caplog.text
    # A configured key is used instead of the key file; the wrong key gives a clear error.
    monkeypatch.setenv("FT_CREDENTIAL_KEY", Fernet.generate_key().decode())
    with pytest.raises(DriverError, match="cannot be decrypted"):
        endpoint_password(endpoint)
    monkeypatch.setenv("FT_DEVICE_SECRET_LEAF9", PASSWORD)
    endpoint.password_env = "FT_DEVICE_SECRET_LEAF9"
    assert endpoint_password(endpoint) == PASSWORD


def test_audit_trail_of_inventory_changes_via_api(api_client):
    response = api_client.post("/api/platforms/", {"slug": "eos", "name": "Arista EOS"}, format="json")
    assert response.status_code == 201, response.json()
    row = AuditLog.objects.get(object_type="inventory.platform", action="create")
    assert row.username == "api-tester" and row.changes["name"] == "Arista EOS"
    from inventory.models import Platform

    platform = Platform.objects.get(slug="eos")
    platform.name = "EOS"
    platform.save()
    platform.delete()
    actions = list(AuditLog.objects.filter(object_type="inventory.platform").order_by("id").values_list("action", flat=True))
    assert actions == ["create", "update", "delete"]


@pytest.mark.parametrize("policy", [
    {"checks": [{"x": 1}]}, {"canary": {"devices": [1, {}]}}, {"redundant_pairs": [[{}, []]]},
    {"devices": "spine1"}, {"twin_prefix": "../../etc"}, {"target_version": 7},
])
def test_malformed_policies_are_field_errors_not_crashes(policy):
    with pytest.raises(InputError) as error:
        services.rollout_create(name="x", kind="rolling_upgrade", target="twin", twin=twin_row(),
                                policy={"target_version": "1", **policy})
    assert any(field.startswith("policy.") for field in error.value.as_dict())


@pytest.mark.parametrize("topology", [
    {"roles": "x"}, {"roles": {"a": "spine"}, "links": [["a"]]}, {"roles": {"a": "spine"}, "links": [["a", "b"]]},
    {"roles": {"a": 1}, "links": []},
])
def test_malformed_topology_is_a_field_error(topology):
    with pytest.raises(InputError) as error:
        services.rollout_create(name="x", kind="rolling_upgrade", target="production",
                                policy={"target_version": "1"}, topology=topology)
    assert any(field.startswith("topology") for field in error.value.as_dict())


def test_change_set_from_unknown_compile_run_is_400(api_client):
    twin = twin_row()
    response = api_client.post("/api/change-sets/", {"compile_run": 424242, "target": "twin", "twin": twin.pk},
                               format="json")
    assert response.status_code == 400 and "compile_run" in response.json()


@pytest.mark.parametrize("field, value", [("twin_prefix", "ftx"), ("twin_state_dir", "/tmp/x")])
def test_a_twin_named_by_prefix_or_path_is_a_400_naming_the_field(api_client, field, value):
    """Issue #28 point 3: the API takes the Twin (its id) or the fabric intent, never a prefix or a path; the old
    fields are refused by name, not silently ignored."""
    twin = twin_row()
    response = api_client.post("/api/change-sets/", {"compile_run": 1, "target": "twin", field: value},
                               format="json")
    assert response.status_code == 400 and "named by `twin`" in response.json()[field][0]
    response = api_client.post("/api/rollouts/", {"name": "x", "kind": "canary_push", "target": "twin",
                                                  "twin": twin.pk, field: value}, format="json")
    assert response.status_code == 400 and "named by `twin`" in response.json()[field][0]
    response = api_client.post("/api/rollouts/", {"name": "x", "kind": "rolling_upgrade", "target": "twin",
                                                  "twin": twin.pk, "policy": {field: value, "target_version": "1"}},
                               format="json")
    assert response.status_code == 400 and "named by `twin`" in response.json()[f"policy.{field}"][0]
    assert not Rollout.objects.exists()


def test_a_twin_rollout_takes_the_twin_of_its_change_set_and_no_other(api_client):
    from changes.models import ChangeSet

    twin, other = twin_row(prefix="ftx"), twin_row(prefix="fty")
    change_set = ChangeSet.objects.create(name="c", twin=twin)
    rollout = services.rollout_create(name="r", kind="canary_push", target="twin", change_set=change_set)
    assert rollout.twin == twin  # derived from the change set
    response = api_client.post("/api/rollouts/", {"name": "x", "kind": "canary_push", "target": "twin",
                                                  "change_set": change_set.pk, "twin": other.pk}, format="json")
    assert response.status_code == 400 and f"read from twin {twin.pk} (ftx)" in response.json()["twin"][0]
    response = api_client.post("/api/rollouts/", {"name": "x", "kind": "canary_push", "target": "production",
                                                  "change_set": change_set.pk, "twin": twin.pk}, format="json")
    assert response.status_code == 400 and "a production rollout has no twin" in response.json()["twin"][0]
    response = api_client.post("/api/rollouts/", {"name": "x", "kind": "canary_push", "target": "twin",
                                                  "change_set": change_set.pk, "twin": 424242}, format="json")
    assert response.status_code == 400 and "twin" in response.json()
    shown = api_client.get(f"/api/rollouts/{rollout.pk}/").json()["twin"]
    assert (shown["id"], shown["url"].endswith(f"/api/twins/{twin.pk}/")) == (twin.pk, True)


def test_rollout_steps_are_paginated_like_every_list(api_client):
    """GET rollouts/{id}/steps/ answers the paginated shape its schema names (count, results), in step order."""
    rollout = _rollout()
    Step.objects.bulk_create([Step(rollout=rollout, device=f"leaf{n}", phase="push") for n in range(5)])
    page = api_client.get(f"/api/rollouts/{rollout.pk}/steps/", {"limit": 2, "offset": 1}).json()
    assert page["count"] == 5 and [row["device"] for row in page["results"]] == ["leaf1", "leaf2"]
