"""The fabric builder and the snapshot adapter: plan -> persist -> snapshot round trip, idempotence, growth."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from compiler.clos import ClosParams, plan_clos
from compiler.errors import InputError, InventoryError
from inventory.adapters import inventory_snapshot
from inventory.builder import fabric_build, leaf_capacities
from inventory.models import Cable, Fabric, Interface, NicPort, Optic, Rack, Server, Switch
from inventory.services import inventory_persist

pytestmark = pytest.mark.django_db

SMALL = ClosParams(name="lab", spines=2, leaves=4, servers_per_leaf=2)


def _counts():
    return {model.__name__: model.objects.count()
            for model in (Fabric, Rack, Switch, Interface, Optic, Cable, Server, NicPort)}


def test_build_persists_the_plan_and_the_snapshot_equals_it():
    result = fabric_build(params=SMALL)
    assert result.persisted.created["Switch"] == 6
    assert result.persisted.created["Cable"] == 4 * 2 + 4 * 2
    assert inventory_snapshot("lab") == plan_clos(SMALL)


def test_build_twice_changes_nothing():
    fabric_build(params=SMALL)
    before = _counts()
    again = fabric_build(params=SMALL)
    assert not again.persisted.changed, again.persisted.as_dict()
    assert _counts() == before


def test_growing_adds_only_new_objects_and_renames_nothing():
    fabric_build(params=SMALL)
    old_ids = dict(Switch.objects.values_list("hostname", "id"))
    old_cables = set(Cable.objects.values_list("label", flat=True))
    grown = fabric_build(params=ClosParams(name="lab", spines=2, leaves=6, servers_per_leaf=2))
    assert grown.persisted.created["Switch"] == 2
    assert grown.persisted.updated == {"Interface": 4}  # spine ports now cabled to leaf5/leaf6
    assert {h: i for h, i in Switch.objects.values_list("hostname", "id") if h in old_ids} == old_ids
    assert old_cables < set(Cable.objects.values_list("label", flat=True))
    snapshot = inventory_snapshot("lab")
    plan = plan_clos(ClosParams(name="lab", spines=2, leaves=6, servers_per_leaf=2))
    # Rows come back in creation order, so the grown fabric lists its new cables last; the sets are equal.
    assert set(snapshot.cables) == set(plan.cables)
    assert (snapshot.switches, snapshot.servers, snapshot.racks) == (plan.switches, plan.servers, plan.racks)


def test_rewiring_an_existing_port_is_refused_and_nothing_is_saved():
    fabric_build(params=SMALL)
    before = _counts()
    # More spines moves every leaf's uplink block: the builder refuses to silently re-cable existing ports.
    with pytest.raises(InventoryError, match="already cabled"):
        fabric_build(params=ClosParams(name="lab", spines=3, leaves=4, servers_per_leaf=2))
    assert _counts() == before


def test_devices_of_another_fabric_are_not_taken_over():
    fabric_build(params=SMALL)
    with pytest.raises(InputError, match="already belongs to another fabric"):
        fabric_build(params=ClosParams(name="other", spines=2, leaves=4, servers_per_leaf=2))
    assert not Fabric.objects.filter(name="other").exists()


def test_unknown_rack_reference_is_a_field_error():
    inventory = plan_clos(SMALL)
    from dataclasses import replace

    broken = replace(inventory, switches=(replace(inventory.switches[0], rack="nowhere"), *inventory.switches[1:]))
    with pytest.raises(InputError) as error:
        inventory_persist(inventory=broken)
    assert "switches[spine1].rack" in error.value.as_dict()
    assert Switch.objects.count() == 0


def test_oversubscription_per_leaf():
    capacities = leaf_capacities(plan_clos(ClosParams(spines=2, leaves=2, servers_per_leaf=8)))
    assert [(c.leaf, c.downlink_gbps, c.uplink_gbps) for c in capacities] == [("leaf1", 3200, 800),
                                                                             ("leaf2", 3200, 800)]
    assert capacities[0].ratio == 4.0


def test_snapshot_query_count_does_not_grow_with_the_fabric():
    fabric_build(params=SMALL)
    with CaptureQueriesContext(connection) as small:
        inventory_snapshot("lab")
    fabric_build(params=ClosParams(name="lab", spines=2, leaves=12, servers_per_leaf=2))
    with CaptureQueriesContext(connection) as large:
        snapshot = inventory_snapshot("lab")
    assert len(snapshot.switches) == 14
    assert len(large.captured_queries) == len(small.captured_queries) <= 10


def test_fabric_build_command_prints_oversubscription_and_is_idempotent():
    out = io.StringIO()
    args = ["--name", "cmd", "--spines", "2", "--leaves", "2", "--servers-per-leaf", "4", "--platform", "sonic",
            "--no-progress"]
    call_command("fabric_build", *args, stdout=out)
    text = out.getvalue()
    assert "fabric cmd: 4 switches, 8 servers" in text
    assert "leaf1" in text and "2.00:1" in text
    out = io.StringIO()
    call_command("fabric_build", *args, stdout=out)
    assert "created: nothing; updated: nothing" in out.getvalue()
    assert set(Switch.objects.values_list("platform__slug", flat=True)) == {"sonic"}


def test_fabric_build_command_reports_bad_parameters():
    with pytest.raises(CommandError, match="uplink_speed_gbps=300"):
        call_command("fabric_build", "--name", "x", "--spines", "2", "--leaves", "2", "--uplink-speed", "300",
                     "--no-progress", stdout=io.StringIO())


def test_a_build_big_enough_for_the_copy_fast_path_round_trips():
    # > BATCH_SIZE interfaces, so PostgreSQL inserts them with COPY (SQLite with bulk_create): same result.
    params = ClosParams(name="big", spines=4, leaves=80, servers_per_leaf=2)
    result = fabric_build(params=params)
    assert result.persisted.created["Interface"] > 5000
    assert inventory_snapshot("big") == plan_clos(params)
    assert not fabric_build(params=params).persisted.changed


def test_fabric_build_command_builds_200g_and_names_the_model_field_for_sn5600_under_eos():
    out = io.StringIO()
    call_command("fabric_build", "--name", "c200", "--spines", "2", "--leaves", "2", "--uplink-speed", "200",
                 "--downlink-speed", "200", "--no-progress", stdout=out)
    assert "fabric c200: 4 switches" in out.getvalue()
    with pytest.raises(CommandError, match="leaf_model='SN5600'.*it runs sonic"):
        call_command("fabric_build", "--name", "csn", "--spines", "2", "--leaves", "2", "--model", "SN5600",
                     "--downlink-speed", "100", "--no-progress", stdout=io.StringIO())
    call_command("fabric_build", "--name", "csn", "--spines", "2", "--leaves", "2", "--model", "SN5600",
                 "--platform", "sonic", "--downlink-speed", "100", "--name-prefix", "sn-", "--no-progress",
                 stdout=io.StringIO())
    assert Switch.objects.get(hostname="sn-leaf1", fabric__name="csn").model.name == "SN5600"


# ClosParams field -> the command option that sets it (the API's FabricBuildSerializer uses the option's name with
# underscores); spine_uplinks is set by the 5-stage planner itself (--pods, --super-spine-links).
BUILDER_OPTIONS = {"name": "--name", "site": "--site", "spines": "--spines", "leaves": "--leaves",
                   "servers_per_leaf": "--servers-per-leaf", "rails_per_server": "--rails",
                   "uplink_speed_gbps": "--uplink-speed", "downlink_speed_gbps": "--downlink-speed",
                   "uplinks_per_spine": "--uplinks-per-spine", "platform": "--platform",
                   "spine_platform": "--spine-platform", "leaf_platforms": "--leaf-platforms", "leaf_model": "--model",
                   "spine_model": "--spine-model", "planes": "--planes", "server_gpus": "--server-gpus",
                   "server_power_w": "--server-power-w", "rack_power_budget_kw": "--rack-power-budget-kw",
                   "name_prefix": "--name-prefix", "mgmt_pool": "--mgmt-pool",
                   "server_mgmt_pool": "--server-mgmt-pool", "spine_uplinks": "--super-spine-links"}


def test_every_planner_parameter_is_a_command_option_with_help_and_an_api_field():
    import dataclasses

    from inventory.api.serializers import FabricBuildSerializer
    from inventory.management.commands.fabric_build import Command

    assert {spec.name for spec in dataclasses.fields(ClosParams)} == set(BUILDER_OPTIONS)  # a new one must be mapped
    helps = {option: action.help for action in Command().create_parser("manage.py", "fabric_build")._actions
             for option in action.option_strings}
    for option in BUILDER_OPTIONS.values():
        assert helps.get(option), f"{option} is missing or has no --help text"
    api_fields = set(FabricBuildSerializer().fields)
    missing = {option.removeprefix("--").replace("-", "_") for field, option in BUILDER_OPTIONS.items()
               if field != "spine_uplinks"} - api_fields
    assert not missing, f"POST /api/fabrics/build/ lacks {sorted(missing)}"
