"""The fabric build task through a REAL Celery worker (Redis broker, PostgreSQL test database)."""

import pytest

from inventory.adapters import inventory_snapshot
from inventory.models import Cable, Switch

pytestmark = [pytest.mark.worker]


def test_fabric_build_runs_in_a_real_worker(celery_worker_redis):
    params = {"name": "worker-fab", "spines": 2, "leaves": 3, "servers_per_leaf": 2, "platform": "frr"}
    result = celery_worker_redis.run("inventory.fabric_build", params, timeout=120)
    assert result["switches"] == 5 and result["created"]["Switch"] == 5
    # The worker wrote to the same (committed) test database this process reads.
    assert Switch.objects.filter(fabric__name="worker-fab", platform__slug="frr").count() == 5
    assert Cable.objects.count() == result["cables"]
    assert len(inventory_snapshot("worker-fab").switches) == 5
    again = celery_worker_redis.run("inventory.fabric_build", params, timeout=120)
    assert not any(again["created"].values())


def test_a_failing_task_reports_the_field_error(celery_worker_redis):
    from inventory.tasks import FabricBuildFailed

    params = {"name": "bad", "spines": 2, "leaves": 2, "uplink_speed": 300}
    with pytest.raises(FabricBuildFailed, match=r"uplink_speed_gbps=300: must be one of 100, 200, 400, 800"):
        celery_worker_redis.run("inventory.fabric_build", params, timeout=60)
    assert not Switch.objects.filter(fabric__name="bad").exists()
