"""The compile task through a REAL Celery worker (Redis broker, PostgreSQL test database; skipped otherwise)."""

import pytest

from intents import services
from intents.models import CompileRun, DeviceConfig

pytestmark = [pytest.mark.worker]


def test_compile_runs_in_a_real_worker(celery_worker_redis, fabric_intent):
    run = services.compile_run_prepare(fabric_intent=fabric_intent, platforms=["eos"])
    result = celery_worker_redis.run("intents.compile_run_execute", run.pk, timeout=180)
    assert result["status"] == "succeeded" and result["device_count"] == 6
    run = CompileRun.objects.get(pk=run.pk)  # written by the worker process
    assert run.status == "succeeded" and run.duration_s > 0
    assert DeviceConfig.objects.filter(run=run, platform="eos").count() == 6


def test_a_failing_compile_is_recorded_by_the_worker(celery_worker_redis, fabric_intent):
    # prepare refuses an unknown device up front; a queued run whose device disappeared before the worker took it
    # fails in the worker instead
    run = CompileRun.objects.create(fabric_intent=fabric_intent, devices=["leaf99"])
    result = celery_worker_redis.run("intents.compile_run_execute", run.pk, timeout=180)
    assert result["status"] == "failed"
    run = CompileRun.objects.get(pk=run.pk)
    assert "devices" in run.error_fields and not run.device_configs.exists()
