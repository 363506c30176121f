"""The one run record (common/runs.py, common/models.py): ``run_execute`` owns pending → running → succeeded/failed
and tells a domain error (recorded, not raised) from a bug (recorded as "internal error", logged, raised);
``run_enqueue`` never leaves a run that could not be queued pending. Exercised on the fabric build record, the
simplest concrete run, and through the compile service."""

import logging

import pytest

from common import runs
from common.models import RunRecord
from common.runs import RunStatus, run_enqueue, run_execute
from compiler.clos import ClosParams
from compiler.errors import FieldError, IntentValidationError, TwinError
from inventory.builder import fabric_build_execute, fabric_build_prepare
from inventory.models import FabricBuild, Switch

pytestmark = pytest.mark.django_db


@pytest.fixture
def build():
    return FabricBuild.objects.create(fabric_name="runs")


def test_every_run_kind_is_a_run_record_with_one_status_set():
    from django.apps import apps

    for _label, name in runs.RUN_MODELS:
        model = apps.get_model(name)
        assert issubclass(model, RunRecord), name
        assert model._meta.get_field("status").choices == RunStatus.choices, name


def test_a_run_that_completes_is_running_while_it_works_then_succeeded(build):
    assert build.status == "pending" and build.active
    with run_execute(build):
        stored = FabricBuild.objects.get(pk=build.pk)
        assert stored.status == "running" and stored.runner == runs.runner_id() and stored.started is not None
        build.summary = {"switches": 4}
    build.refresh_from_db()
    assert build.status == "succeeded" and not build.active and build.error == "" and build.error_fields == {}
    assert build.finished >= build.started and build.duration_s >= 0 and build.summary == {"switches": 4}


def test_a_domain_error_fails_the_run_with_its_message_and_fields_and_is_not_raised(build):
    with run_execute(build):
        raise IntentValidationError(FieldError("spines", 0, "must be at least 1"))
    build.refresh_from_db()
    assert build.status == "failed" and build.error == "spines=0: must be at least 1"
    assert build.error_fields == {"spines": ["must be at least 1 (got 0)"]} and build.finished is not None


def test_a_domain_error_without_fields_fails_the_run_with_its_message(build):
    with run_execute(build):
        raise TwinError("twin tw1 is not running")
    build.refresh_from_db()
    assert (build.status, build.error, build.error_fields) == ("failed", "twin tw1 is not running", {})


def test_a_bug_fails_the_run_as_internal_error_logs_the_traceback_and_is_raised(build, caplog):
    with caplog.at_level(logging.ERROR, logger="common.runs"), pytest.raises(KeyError, match="leaf9"):
        with run_execute(build):
            raise KeyError("leaf9")
    build.refresh_from_db()
    assert build.status == "failed" and build.error == "internal error: KeyError: 'leaf9'"
    assert build.finished is not None
    assert f"FabricBuild #{build.pk} failed with an internal error" in caplog.text
    assert "Traceback (most recent call last)" in caplog.text and "KeyError" in caplog.text


def test_a_failed_run_executed_again_forgets_the_old_error(build):
    with run_execute(build):
        raise TwinError("first")
    with run_execute(build):
        pass
    build.refresh_from_db()
    assert build.status == "succeeded" and build.error == ""


def test_the_fabric_build_record_through_the_builder():
    build = fabric_build_execute(build=fabric_build_prepare(params=ClosParams(name="rb", spines=2, leaves=2)))
    assert build.status == "succeeded" and build.summary == {"fabric": "rb", "switches": 4, "servers": 4,
                                                              "cables": build.result["cables"]}
    assert Switch.objects.filter(fabric__name="rb").count() == 4
    refused = fabric_build_execute(build=fabric_build_prepare(params=ClosParams(name="rc", spines=2, leaves=2,
                                                                                 uplink_speed_gbps=300)))
    assert refused.status == "failed" and "uplink_speed_gbps" in refused.error_fields
    assert not Switch.objects.filter(fabric__name="rc").exists()


class BrokerDown(ConnectionError):
    pass


class _Task:
    def __init__(self, delay):
        self.delay = delay


def test_enqueue_records_the_task_id_or_fails_a_run_that_never_started(build):
    class Result:
        id = "task-1"

    run_enqueue(model=FabricBuild, run_id=build.pk, task=_Task(lambda run_id: Result()), what="fabric build")
    build.refresh_from_db()
    assert build.status == "pending" and build.task_id == "task-1"

    def broker_down(run_id):
        raise BrokerDown("Connection refused")

    other = FabricBuild.objects.create(fabric_name="other")
    run_enqueue(model=FabricBuild, run_id=other.pk, task=_Task(broker_down), what="fabric build")
    other.refresh_from_db()
    assert other.status == "failed" and other.error == "could not queue the fabric build: BrokerDown: Connection refused"


def test_enqueue_keeps_the_error_of_a_run_that_ran_and_raised(build):
    def ran_and_failed(run_id):
        with run_execute(FabricBuild.objects.get(pk=run_id)):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        run_enqueue(model=FabricBuild, run_id=build.pk, task=_Task(ran_and_failed), what="fabric build")
    build.refresh_from_db()
    assert build.error == "internal error: RuntimeError: boom"  # not "could not queue"
