"""What each twin switch runs is intents.DeployedConfig rows with target twin (issue #28 point 4): the one record
of deployed configs, which the diff reads without the twins app; the rows exist exactly while the twin runs; and
twins 0007 moved the old ``Twin.switch_configs`` JSON into them."""

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from intents.deployed import deployed_on_twin, deployed_twin_boot
from intents.models import DeployedConfig
from intents.selectors import diff_baselines
from intents.services import compile_run_create, device_configs_mark_deployed
from twins.choices import TwinStatusChoices
from twins.models import Twin


@pytest.fixture
def booted(twin_intent):
    run = compile_run_create(fabric_intent=twin_intent)
    assert run.status == "succeeded", run.error
    twin = Twin.objects.create(fabric_intent=twin_intent, prefix="twdeploy1", status=TwinStatusChoices.UP,
                               compile_run=run)
    hostnames = sorted(run.device_configs.filter(platform="frr").values_list("hostname", flat=True))
    deployed_twin_boot(fabric_intent_id=twin_intent.pk, twin_id=twin.pk, run=run, hostnames=hostnames)
    return twin, run, hostnames


def test_a_booted_twin_s_switches_are_deployed_config_rows_the_diff_reads(booted):
    twin, run, hostnames = booted
    rows = DeployedConfig.objects.filter(target="twin", twin=twin.pk)
    assert sorted(rows.values_list("hostname", flat=True)) == hostnames
    # each row points at the config the twin runs: the switch's own platform's rendering (EOS/SONiC leaves here)
    own = {row.hostname: (row.platform, row.device_config.run_id) for row in rows.select_related("device_config")}
    assert own["leaf1"] == ("eos", run.pk) and own["leaf2"] == ("sonic", run.pk)
    assert {entry["source"] for entry in deployed_on_twin(twin_id=twin.pk).values()} == {"boot"}
    baselines = diff_baselines(fabric_intent=twin.fabric_intent, target="twin")
    assert baselines[("leaf1", "frr")].label == f"diff vs twin (running compile #{run.pk})"
    # production rows of the same switch are another target: both kept, the device one wins under auto
    device_configs_mark_deployed(run=run, devices=["leaf1"], rollout_id=7)
    assert DeployedConfig.objects.filter(hostname="leaf1", platform="eos").count() == 2
    assert diff_baselines(fabric_intent=twin.fabric_intent)[("leaf1", "eos")].target == "device"


@pytest.mark.parametrize("status, kept", [(TwinStatusChoices.DEGRADED, True), (TwinStatusChoices.DOWN, False),
                                          (TwinStatusChoices.FAILED, False), (TwinStatusChoices.BOOTING, False)])
def test_the_rows_exist_exactly_while_the_twin_runs(booted, status, kept):
    twin, _, hostnames = booted
    twin.status = status
    twin.save()  # whoever writes the row: the service, the admin, the shell
    assert bool(deployed_on_twin(twin_id=twin.pk)) is kept
    if not kept:
        with pytest.raises(Exception, match="no running twin"):
            diff_baselines(fabric_intent=twin.fabric_intent, target="twin")


def test_twins_0007_moves_switch_configs_into_rows_and_back(transactional_db, twin_intent):
    run = compile_run_create(fabric_intent=twin_intent)
    executor = MigrationExecutor(connection)
    executor.migrate([("twins", "0006_twinoperation_rehearsal")])
    loader = MigrationExecutor(connection).loader
    apps = loader.project_state(list(loader.applied_migrations)).apps
    OldTwin = apps.get_model("twins", "Twin")
    at = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    configs = {"leaf1": {"compile_run": run.pk, "sha256": "a" * 64, "source": "rollout", "rollout": 9,
                         "at": at.isoformat(), "previous": {"compile_run": run.pk, "source": "boot"}},
               "spine1": {"compile_run": run.pk, "sha256": "b" * 64, "source": "boot", "rollout": None,
                          "at": at.isoformat()}}
    running = OldTwin.objects.create(fabric_intent_id=twin_intent.pk, prefix="twmig1", status="up",
                                     switch_configs=configs)
    stopped = OldTwin.objects.create(fabric_intent_id=twin_intent.pk, prefix="twmig2", status="down",
                                     engine="containerlab", switch_configs={"leaf1": configs["leaf1"]})

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert deployed_on_twin(twin_id=running.pk) == configs  # the same entries, the time they were recorded kept
    assert deployed_on_twin(twin_id=stopped.pk) == {}  # a twin that does not run runs nothing
    leaf1 = DeployedConfig.objects.get(twin=running.pk, hostname="leaf1")
    assert (leaf1.platform, leaf1.device_config.run_id, leaf1.deployed_by_rollout) == ("eos", run.pk, 9)

    executor = MigrationExecutor(connection)
    executor.migrate([("twins", "0006_twinoperation_rehearsal")])
    loader = MigrationExecutor(connection).loader
    apps = loader.project_state(list(loader.applied_migrations)).apps
    assert apps.get_model("twins", "Twin").objects.get(pk=running.pk).switch_configs == configs
    assert not apps.get_model("intents", "DeployedConfig").objects.filter(target="twin").exists()
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
