"""The fabric build task through a REAL Celery worker (Redis broker, PostgreSQL test database): the build is
recorded (inventory.FabricBuild) before it is queued, and the worker fills the record."""

import pytest

from compiler.clos import ClosParams
from inventory.adapters import inventory_snapshot
from inventory.builder import fabric_build_prepare
from inventory.models import Cable, FabricBuild, Switch

pytestmark = [pytest.mark.worker]


def _build_in_worker(worker, **params) -> dict:
    build = fabric_build_prepare(params=ClosParams(**params))
    return worker.run("inventory.fabric_build_execute", build.pk, timeout=120)


def test_fabric_build_runs_in_a_real_worker(celery_worker_redis):
    params = {"name": "worker-fab", "spines": 2, "leaves": 3, "servers_per_leaf": 2, "platform": "frr"}
    result = _build_in_worker(celery_worker_redis, **params)
    assert result["switches"] == 5 and result["created"]["Switch"] == 5
    build = FabricBuild.objects.get(pk=result["build"])
    assert build.status == "succeeded" and build.runner and build.summary["switches"] == 5
    # The worker wrote to the same (committed) test database this process reads.
    assert Switch.objects.filter(fabric__name="worker-fab", platform__slug="frr").count() == 5
    assert Cable.objects.count() == result["cables"]
    assert len(inventory_snapshot("worker-fab").switches) == 5
    again = _build_in_worker(celery_worker_redis, **params)
    assert not any(again["created"].values())


def test_a_failing_build_records_the_field_error(celery_worker_redis):
    result = _build_in_worker(celery_worker_redis, name="bad", spines=2, leaves=2, uplink_speed_gbps=300)
    assert result["status"] == "failed"
    build = FabricBuild.objects.get(pk=result["build"])
    assert build.status == "failed" and "uplink_speed_gbps=300: must be one of 100, 200, 400, 800" in build.error
    assert "uplink_speed_gbps" in build.error_fields
    assert not Switch.objects.filter(fabric__name="bad").exists()
