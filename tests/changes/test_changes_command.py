"""`manage.py rollout`: create, approve (admin only), status, list, cancel; errors name the field."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from twin_rows import twin_row

from changes.models import Rollout
from twins.models import Twin

pytestmark = pytest.mark.django_db
TOPOLOGY = {"roles": {"spine1": "spine", "spine2": "spine", "leaf1": "leaf", "leaf2": "leaf"},
            "links": [["leaf1", "spine1"], ["leaf1", "spine2"], ["leaf2", "spine1"], ["leaf2", "spine2"]]}


def _run(*args) -> str:
    out = StringIO()
    call_command("rollout", *args, stdout=out)
    return out.getvalue()


def test_rollout_command_lifecycle():
    User.objects.create_user("bob")
    User.objects.create_user("alice").groups.add(Group.objects.get_or_create(name="admin")[0])
    output = _run("create", "--name", "spines", "--kind", "rolling_upgrade", "--target", "production",
                  "--policy", json.dumps({"target_version": "4.33.2F"}), "--topology", json.dumps(TOPOLOGY),
                  "--user", "bob")
    rollout = Rollout.objects.get()
    assert f"rollout {rollout.pk} created: state awaiting_approval, 2 waves" in output
    assert "wave 1: spine1" in output and "wave 2: spine2" in output
    with pytest.raises(CommandError, match="admin"):
        _run("approve", str(rollout.pk), "--user", "bob")
    User.objects.get(username="bob").groups.add(Group.objects.get(name="admin"))
    with pytest.raises(CommandError, match="created by bob: a second person must approve it"):
        _run("approve", str(rollout.pk), "--user", "bob")
    assert "state pending" in _run("approve", str(rollout.pk), "--user", "alice")
    assert "pending" in _run("status", str(rollout.pk), "--steps")
    assert "spines" in _run("list")
    User.objects.create_user("carol").groups.add(Group.objects.get(name="operator"))
    with pytest.raises(CommandError, match="starting production rollout .* needs the 'approve_production_rollout'"):
        _run("start", str(rollout.pk), "--user", "carol")
    assert "cancelled" in _run("cancel", str(rollout.pk), "--user", "bob")
    followed = _run("status", str(rollout.pk), "--follow")  # live display returns once the rollout has ended
    assert followed.startswith("[cancelled] 0/2 devices") and f"rollout {rollout.pk} 'spines'" in followed
    with pytest.raises(CommandError, match="state='cancelled', expected one of \\['running'\\]"):
        _run("pause", str(rollout.pk))


def test_rollout_command_errors_name_the_field():
    with pytest.raises(CommandError, match="policy.wave_size=0"):
        _run("create", "--name", "x", "--kind", "rolling_upgrade", "--target", "production",
             "--policy", '{"wave_size": 0, "target_version": "1"}', "--topology", json.dumps(TOPOLOGY))
    with pytest.raises(CommandError, match="not JSON"):
        _run("create", "--name", "x", "--kind", "rolling_upgrade", "--target", "production", "--policy", "{")
    with pytest.raises(CommandError, match="does not exist"):
        _run("status", "424242")
    with pytest.raises(CommandError, match="compile_run=424242: no such compile run"):
        _run("create", "--name", "x", "--kind", "canary_push", "--target", "twin", "--compile-run", "424242",
             "--twin", str(twin_row().pk))
    with pytest.raises(CommandError, match="--twin 424242: no twin with this id"):
        _run("create", "--name", "x", "--kind", "canary_push", "--target", "twin", "--compile-run", "1",
             "--twin", "424242")
    with pytest.raises(CommandError, match="policy.twin_prefix=.*named by `twin`"):
        _run("create", "--name", "x", "--kind", "rolling_upgrade", "--target", "twin", "--twin", str(
            Twin.objects.get().pk), "--policy", '{"twin_prefix": "ftx", "target_version": "1"}')


def test_admin_pages_render(client):
    User.objects.create_superuser("root", password="x")
    client.login(username="root", password="x")
    _run("create", "--name", "spines", "--kind", "rolling_upgrade", "--target", "production",
         "--policy", json.dumps({"target_version": "4.33.2F"}), "--topology", json.dumps(TOPOLOGY))
    rollout = Rollout.objects.get()
    for url in ("/admin/changes/rollout/", f"/admin/changes/rollout/{rollout.pk}/change/", "/admin/changes/auditlog/",
                "/admin/changes/deviceendpoint/add/", "/admin/changes/changeset/", "/admin/changes/driftrecord/"):
        assert client.get(url).status_code == 200, url
