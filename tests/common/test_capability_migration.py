"""ui 0007: the capability permissions move from ui to the kernel (common.models.Capability, issue #28 point 1)
with the groups and users that hold them; backward moves them back."""

from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from common.roles import OPERATE, VIEW, perm


def test_grants_of_ui_capabilities_follow_them_to_common(transactional_db, django_user_model):
    executor = MigrationExecutor(connection)
    executor.migrate([("ui", "0006_twinoperation_moved_to_twins")])
    # A database from before the move: the capabilities are ui.<codename>; one of them (VIEW) also exists as
    # common.<codename> already (a post_migrate ran), the other (OPERATE) only under ui.
    old_type, _ = ContentType.objects.get_or_create(app_label="ui", model="capability")
    old_view, _ = Permission.objects.get_or_create(content_type=old_type, codename=VIEW, defaults={"name": "read"})
    old_operate, _ = Permission.objects.get_or_create(content_type=old_type, codename=OPERATE,
                                                      defaults={"name": "operate"})
    Permission.objects.filter(content_type__app_label="common").delete()
    new_type, _ = ContentType.objects.get_or_create(app_label="common", model="capability")
    Permission.objects.create(content_type=new_type, codename=VIEW, name="read")
    group = Group.objects.create(name="site-operators")
    group.permissions.add(old_view, old_operate)
    user = django_user_model.objects.create_user("ada")
    user.user_permissions.add(old_view)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert not ContentType.objects.filter(app_label="ui", model="capability").exists()
    moved = Permission.objects.get(pk=old_operate.pk)  # the same row, its grants untouched
    assert (moved.content_type.app_label, moved.codename) == ("common", OPERATE)
    assert set(group.permissions.values_list("content_type__app_label", "codename")) == {
        ("common", VIEW), ("common", OPERATE)}
    user = django_user_model.objects.get(pk=user.pk)
    assert user.has_perm(perm(VIEW)) and perm(VIEW) == "common.view_fabric_data"

    executor = MigrationExecutor(connection)
    executor.migrate([("ui", "0006_twinoperation_moved_to_twins")])
    assert set(group.permissions.values_list("content_type__app_label", "codename")) == {
        ("ui", VIEW), ("ui", OPERATE)}
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
