"""The rows were copied to twins.TwinOperation by twins migration 0003 (issue #14: the twin wing has one home)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('ui', '0005_twinoperation_runner_longer_prefix'),
        ('twins', '0003_twinoperation'),
    ]

    operations = [
        migrations.DeleteModel(
            name='TwinOperation',
        ),
    ]
