"""TwinOperation moves from the ui app to the twins app (issue #14): the new table is created, every row of
ui.TwinOperation is copied with its id (status "ok" becomes the run record's "succeeded", started_by becomes
requested_by, started = created, duration from created to finished), and ui migration 0006 drops the old table.
The reverse copies back."""

import django.db.models.deletion
from django.conf import settings
from django.core.management.color import no_style
from django.db import migrations, models


STATUS_TO_RUN = {"ok": "succeeded"}
STATUS_FROM_RUN = {"succeeded": "ok", "pending": "running"}


def copy_from_ui(apps, schema_editor):
    old, new = apps.get_model("ui", "TwinOperation"), apps.get_model("twins", "TwinOperation")
    rows = []
    for row in old.objects.all().iterator():
        duration = round((row.finished - row.created).total_seconds(), 4) if row.finished else None
        rows.append(new(id=row.id, kind=row.kind, fabric=row.fabric, prefix=row.prefix,
                        status=STATUS_TO_RUN.get(row.status, row.status), result=row.result, error=row.error,
                        requested_by_id=row.started_by_id, started=row.created, finished=row.finished,
                        duration_s=duration, runner=row.runner))
    new.objects.bulk_create(rows, batch_size=500)
    created = {row.id: row.created for row in old.objects.only("id", "created")}
    for row_id, when in created.items():  # auto_now_add ignores a given value on create
        new.objects.filter(pk=row_id).update(created=when)
    _reset_sequence(schema_editor, new)


def copy_to_ui(apps, schema_editor):
    old, new = apps.get_model("ui", "TwinOperation"), apps.get_model("twins", "TwinOperation")
    for row in new.objects.all().iterator():
        copied = old.objects.create(id=row.id, kind=row.kind, fabric=row.fabric, prefix=row.prefix,
                                    status=STATUS_FROM_RUN.get(row.status, row.status), result=row.result,
                                    error=row.error, started_by_id=row.requested_by_id, finished=row.finished,
                                    runner=row.runner)
        old.objects.filter(pk=copied.pk).update(created=row.created)
    _reset_sequence(schema_editor, old)


def _reset_sequence(schema_editor, model):
    """Copied ids keep their values; PostgreSQL's id sequence must then start after them."""
    connection = schema_editor.connection
    statements = connection.ops.sequence_reset_sql(no_style(), [model])
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


class Migration(migrations.Migration):

    dependencies = [
        ('twins', '0002_installation'),
        ('ui', '0005_twinoperation_runner_longer_prefix'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='TwinOperation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('pending', 'Pending'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='pending', max_length=16)),
                ('created', models.DateTimeField(auto_now_add=True, help_text='When it was requested')),
                ('started', models.DateTimeField(blank=True, null=True)),
                ('finished', models.DateTimeField(blank=True, null=True)),
                ('duration_s', models.FloatField(blank=True, help_text='Seconds from start to finish', null=True)),
                ('task_id', models.CharField(blank=True, help_text='Celery task id when it was queued', max_length=64)),
                ('runner', models.CharField(blank=True, help_text='host:boot:pid:start of the process executing it (common.runs reaper)', max_length=200)),
                ('summary', models.JSONField(blank=True, default=dict, help_text='What the run found, in a few numbers')),
                ('result', models.JSONField(blank=True, default=dict, help_text="The run's full outcome as JSON")),
                ('error', models.TextField(blank=True, help_text='Why the run failed (empty unless failed)')),
                ('error_fields', models.JSONField(blank=True, default=dict, help_text='field -> messages when the input was invalid')),
                ('kind', models.CharField(choices=[('up', 'Start twin'), ('down', 'Stop twin'), ('ping', 'Live checks + ping matrix'), ('fidelity', 'Fidelity'), ('fail_link', 'Fail a leaf uplink'), ('fail_spine', 'Fail a spine')], max_length=16)),
                ('fabric', models.CharField(db_index=True, help_text='inventory fabric name', max_length=100)),
                ('prefix', models.CharField(blank=True, help_text="the twin's namespace prefix", max_length=16)),
                ('requested_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ('-created', '-id'),
                'abstract': False,
                'indexes': [models.Index(fields=['fabric', 'kind', '-created'], name='twinoperation_fabric_kind')],
            },
        ),
        migrations.RunPython(copy_from_ui, copy_to_ui),
    ]
