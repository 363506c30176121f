"""The capability model moves from ui to the kernel (common.models.Capability, issue #28 point 1): authorisation
in one place, below every app that checks it. The permission rows move with it, ``ui.<codename>`` becoming
``common.<codename>`` with the same ids, so every group's and user's grants are kept (where the new row already
exists, the grants move onto it). Backward moves them back. The model is unmanaged: no table changes.
"""

from django.db import migrations


def _move(apps, source: str, target: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    old = ContentType.objects.filter(app_label=source, model="capability").first()
    if old is None:
        return  # a fresh database: the permissions are created for the target app after migrate
    new, _ = ContentType.objects.get_or_create(app_label=target, model="capability")
    for permission in Permission.objects.filter(content_type=old):
        existing = Permission.objects.filter(content_type=new, codename=permission.codename).first()
        if existing is None:
            permission.content_type = new
            permission.save(update_fields=["content_type"])
            continue
        existing.group_set.add(*permission.group_set.all())
        existing.user_set.add(*permission.user_set.all())
        permission.delete()
    old.delete()


def _forward(apps, schema_editor):
    _move(apps, "ui", "common")


def _backward(apps, schema_editor):
    _move(apps, "common", "ui")


class Migration(migrations.Migration):

    dependencies = [
        ("ui", "0006_twinoperation_moved_to_twins"),
        ("common", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RunPython(_forward, _backward),
        migrations.DeleteModel(
            name="Capability",
        ),
    ]
