"""twins 0003 / ui 0006: TwinOperation moves from the ui app to the twins app with its rows (issue #14)."""

import datetime as dt

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from twins.models import TwinOperation


def test_operations_move_to_twins_with_their_outcome_and_requester(transactional_db, django_user_model):
    user = django_user_model.objects.create_user(username="mover", password="x")
    executor = MigrationExecutor(connection)
    executor.migrate([("ui", "0005_twinoperation_runner_longer_prefix"), ("twins", "0002_installation")])
    state = executor.loader.project_state(list(MigrationExecutor(connection).loader.applied_migrations)).apps
    Old = state.get_model("ui", "TwinOperation")
    when = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    done = Old.objects.create(fabric="f1", prefix="twabc", kind="up", status="ok", result={"boot_s": 1.5},
                              started_by_id=user.pk, finished=when + dt.timedelta(seconds=12), runner="h:b:1:2")
    Old.objects.filter(pk=done.pk).update(created=when)
    broken = Old.objects.create(fabric="f1", kind="ping", status="failed", error="twin is not running")

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    moved = TwinOperation.objects.get(pk=done.pk)
    assert (moved.status, moved.kind, moved.prefix, moved.result) == ("succeeded", "up", "twabc", {"boot_s": 1.5})
    assert moved.requested_by_id == user.pk and moved.created == when and moved.duration_s == 12.0
    failed = TwinOperation.objects.get(pk=broken.pk)
    assert failed.status == "failed" and failed.error == "twin is not running" and failed.requested_by is None
    assert "ui_twinoperation" not in connection.introspection.table_names()
    newer = TwinOperation.objects.create(fabric="f1", kind="down")  # the id sequence continues after the copies
    assert newer.pk > max(done.pk, broken.pk)
