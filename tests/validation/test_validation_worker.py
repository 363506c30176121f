"""The validation task through a REAL Celery worker (Redis broker, PostgreSQL test database; skipped otherwise)."""

import pytest

from validation import services
from validation.models import ValidationFinding, ValidationRun

pytestmark = [pytest.mark.worker]


def test_validation_runs_in_a_real_worker(celery_worker_redis, broken_headroom):
    run = services.validation_run_prepare(fabric_intent=broken_headroom, checks=["roce.headroom", "routing"])
    result = celery_worker_redis.run("validation.validation_run_execute", run.pk, timeout=300)
    assert result["status"] == "succeeded" and result["ok"] is False and result["errors"] > 0
    run = ValidationRun.objects.get(pk=run.pk)  # written by the worker process
    assert run.summary["checks"]["routing.ecmp"]["status"] == "passed"
    assert ValidationFinding.objects.filter(run=run, check_name="roce.headroom").count() == run.error_count
