"""The database's installation id and the twin names it gives (issue #12 point 7), without booting anything."""

import pytest
from django.db import IntegrityError, transaction

from compiler.errors import TwinError
from labs import ownership, runtime
from labs.topology import TwinTopology, validate_topology
from twins import services
from twins.models import Installation, Twin, TwinOperation


def test_migration_created_one_installation_id(db):
    (row,) = Installation.objects.all()
    assert ownership.INSTALLATION_ID.fullmatch(row.installation_id)
    assert services.installation_id() == row.installation_id
    with pytest.raises(IntegrityError), transaction.atomic():
        Installation.objects.create(id=2, installation_id="abcdef")  # a singleton


def test_installation_is_created_on_first_use_after_a_flush(db):
    Installation.objects.all().delete()
    created = services.installation_id()
    assert ownership.INSTALLATION_ID.fullmatch(created)
    assert services.installation_id() == created  # then stable


def test_prefix_carries_the_installation_and_fits_every_name(twin_intent):
    mine = services.twin_prefix_for(fabric_intent=twin_intent, engine="netns")
    other = services.twin_prefix_for(fabric_intent=twin_intent, engine="netns", installation="0f0f0f")
    assert mine == f"tw{services.installation_id()}{mine[-6:]}" and len(mine) == 14
    assert other != mine and other[-6:] == mine[-6:]  # same intent, other installation: other names
    validate_topology(TwinTopology(mine))  # a valid labs prefix
    twin = services.twin_get_or_create(fabric_intent=twin_intent)
    assert twin.prefix == mine
    # Every row that stores it takes the longer prefix (PostgreSQL would refuse a value over max_length).
    TwinOperation.objects.create(fabric="twinref", prefix=mine, kind="up")
    assert Twin.objects.get(prefix=mine) == twin


def test_operations_refuse_a_twin_another_installation_booted(twin_intent, tmp_path, monkeypatch):
    """The Twin row points at a state file that another installation wrote: checks, injection and fidelity
    refuse it instead of measuring (and breaking) someone else's twin."""
    monkeypatch.setattr(services, "twin_prerequisites", lambda: [])
    twin = services.twin_get_or_create(fabric_intent=twin_intent, state_dir=str(tmp_path))
    runtime.TwinState(prefix=twin.prefix, label="", digest="", state_dir=str(tmp_path), status="up", created_at=0.0,
                      node_netns={}, host_netns={}, frr_dirs=[], installation="0f0f0f").save()
    for action in (lambda: services.twin_check(twin=twin), lambda: services.twin_inject(twin=twin),
                   lambda: services.twin_fidelity(twin=twin), lambda: services.twin_down(twin=twin, force=True)):
        with pytest.raises(TwinError, match="belongs to installation 0f0f0f"):
            action()
    assert (tmp_path / f"{twin.prefix}.json").exists()


def test_migration_renames_stopped_twins_and_keeps_running_ones(transactional_db):
    """0002_installation: one id, then twins that are down/failed get the new name; a running one keeps its name
    (renaming it would orphan its namespaces)."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("twins", "0001_initial")])
    # the other apps stay where that left them (their latest state, but for migrations that need a later twins
    # one, e.g. ui 0006 after twins 0003 took its TwinOperation rows): the state of what is applied now
    applied = list(MigrationExecutor(connection).loader.applied_migrations)
    old_apps = executor.loader.project_state(applied).apps
    Site = old_apps.get_model("inventory", "Site")
    Fabric = old_apps.get_model("inventory", "Fabric")
    FabricIntent = old_apps.get_model("intents", "FabricIntent")
    OldTwin = old_apps.get_model("twins", "Twin")
    fabric = Fabric.objects.create(name="migr", site=Site.objects.create(name="migr-site"))
    intent = FabricIntent.objects.create(fabric=fabric, name="migr-intent")
    OldTwin.objects.create(fabric_intent=intent, engine="netns", prefix="twaaaaaa", status="down")
    OldTwin.objects.create(fabric_intent=intent, engine="containerlab", prefix="twbbbbbb", status="up")
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    installation = Installation.objects.get().installation_id
    stopped = Twin.objects.get(engine="netns")
    assert stopped.prefix == f"tw{installation}" + services.twin_prefix_for(
        fabric_intent=stopped.fabric_intent, engine="netns")[-6:]
    assert Twin.objects.get(engine="containerlab").prefix == "twbbbbbb"


def test_down_after_a_failed_start_never_escalates_to_someone_elses_namespaces(twin_intent, tmp_path, monkeypatch):
    """The audit's case: a twin that failed to start, then `twin down`. Namespaces with its prefix that another
    installation owns are reported, never removed (the runtime's force path is not even called)."""
    from labs import runtime as labs_runtime

    twin = services.twin_get_or_create(fabric_intent=twin_intent, state_dir=str(tmp_path))
    Twin.objects.filter(pk=twin.pk).update(status="failed", error="boot failed")
    twin.refresh_from_db()
    foreign = [f"{twin.prefix}-leaf1"]
    monkeypatch.setattr(labs_runtime, "status", lambda *args, **kwargs: {
        "prefix": twin.prefix, "exists": False, "orphan_namespaces": [], "foreign_namespaces": foreign})

    def no_force(*args, **kwargs):
        raise AssertionError("runtime.down must not run for namespaces this installation does not own")

    monkeypatch.setattr(labs_runtime, "down", no_force)
    assert services.twin_down(twin=twin) == {"prefix": twin.prefix, "already_down": True, "left_alone": foreign}
    twin.refresh_from_db()
    assert twin.status == "down"
