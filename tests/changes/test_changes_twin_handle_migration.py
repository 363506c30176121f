"""changes 0008: rollouts, change sets and twin-driven endpoints get their Twin row as the handle, from the prefix
they named before (issue #28 point 3); a prefix no Twin row has is kept as it was; backwards puts the keys back."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from changes.models import ChangeSet, DeviceEndpoint, Rollout

BEFORE = [("changes", "0007_device_secrets_redacted"), ("twins", "0006_twinoperation_rehearsal")]


def _apps_at(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    loader = MigrationExecutor(connection).loader
    return loader.project_state(list(loader.applied_migrations)).apps


def test_rows_naming_a_twin_by_prefix_get_the_twin_row(transactional_db):
    apps = _apps_at(BEFORE)
    site = apps.get_model("inventory", "Site").objects.create(name="s")
    fabric = apps.get_model("inventory", "Fabric").objects.create(name="f", site=site)
    intent = apps.get_model("intents", "FabricIntent").objects.create(name="f-intent", fabric=fabric)
    twin = apps.get_model("twins", "Twin").objects.create(fabric_intent=intent, prefix="twab12cd34", engine="netns",
                                                          state_dir="/srv/twins")
    OldRollout, OldChangeSet = apps.get_model("changes", "Rollout"), apps.get_model("changes", "ChangeSet")
    read_from_twin = OldChangeSet.objects.create(name="rolled out", fabric_name="f-intent")
    known = OldRollout.objects.create(name="known", kind="canary_push", target="twin", change_set=read_from_twin,
                                      policy={"soak_s": 1, "twin_prefix": "twab12cd34", "twin_state_dir": "/srv/twins"})
    bare = OldRollout.objects.create(name="bare", kind="canary_push", target="twin",
                                     policy={"twin_prefix": "ftc0a0b0c", "twin_state_dir": "/tmp/pytest-1"})
    production = OldRollout.objects.create(name="prod", kind="canary_push", target="production", policy={"soak_s": 1})
    never_rolled = OldChangeSet.objects.create(name="twin devices only", fabric_name="f-intent")
    apps.get_model("changes", "ChangeSetDevice").objects.create(change_set=never_rolled, hostname="leaf1",
                                                                driver="twin", intended_hash="0" * 64)
    to_production = OldChangeSet.objects.create(name="production", fabric_name="f-intent")
    apps.get_model("changes", "ChangeSetDevice").objects.create(change_set=to_production, hostname="leaf1",
                                                                driver="napalm_eos", intended_hash="0" * 64)
    endpoint = apps.get_model("changes", "DeviceEndpoint").objects.create(
        hostname="leaf1", driver="twin", address="twab12cd34-leaf1", optional_args={"twin_prefix": "twab12cd34"})

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    migrated = Rollout.objects.get(pk=known.pk)
    assert migrated.twin_id == twin.pk and migrated.policy == {"soak_s": 1}
    unmatched = Rollout.objects.get(pk=bare.pk)  # no Twin row has its prefix: kept for the record, cannot run
    assert unmatched.twin_id is None and unmatched.policy["twin_prefix"] == "ftc0a0b0c"
    assert Rollout.objects.get(pk=production.pk).twin_id is None
    assert ChangeSet.objects.get(pk=read_from_twin.pk).twin_id == twin.pk  # from its rollout
    assert ChangeSet.objects.get(pk=never_rolled.pk).twin_id == twin.pk  # its intent's netns twin
    assert ChangeSet.objects.get(pk=to_production.pk).twin_id is None
    assert DeviceEndpoint.objects.get(pk=endpoint.pk).optional_args == {"twin": twin.pk}

    apps = _apps_at([("changes", "0007_device_secrets_redacted")])
    back = apps.get_model("changes", "Rollout").objects.get(pk=known.pk)
    assert back.policy == {"soak_s": 1, "twin_prefix": "twab12cd34", "twin_state_dir": "/srv/twins"}
    assert apps.get_model("changes", "DeviceEndpoint").objects.get(pk=endpoint.pk).optional_args == {
        "twin_prefix": "twab12cd34", "twin_state_dir": "/srv/twins"}
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
