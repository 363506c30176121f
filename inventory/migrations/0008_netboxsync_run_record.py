# NetboxSync becomes a common.models.RunRecord (issue #14: one run record): RunStatus + dry_run instead of its own
# statuses (applied -> succeeded, dry-run -> succeeded + dry_run, failed -> failed), started_at -> created (and
# started/finished), the one-line text summary -> summary {"text": ...}.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

FORWARD = {"applied": ("succeeded", False), "dry-run": ("succeeded", True), "failed": ("failed", False)}


def forwards(apps, schema_editor):
    NetboxSync = apps.get_model("inventory", "NetboxSync")
    for row in NetboxSync.objects.order_by("id").only("id", "status", "dry_run", "summary_line", "created"):
        status, dry_run = FORWARD.get(row.status, (row.status, False))
        NetboxSync.objects.filter(pk=row.pk).update(
            status=status, dry_run=dry_run or row.dry_run, summary={"text": row.summary_line} if row.summary_line else {},
            started=row.created, finished=row.created)


def backwards(apps, schema_editor):
    NetboxSync = apps.get_model("inventory", "NetboxSync")
    for row in NetboxSync.objects.order_by("id").only("id", "status", "dry_run", "summary"):
        status = "failed" if row.status != "succeeded" else ("dry-run" if row.dry_run else "applied")
        NetboxSync.objects.filter(pk=row.pk).update(status=status, summary_line=(row.summary or {}).get("text", ""))


class Migration(migrations.Migration):

    dependencies = [
        ('inventory', '0007_switch_pod'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameField(model_name='netboxsync', old_name='summary', new_name='summary_line'),
        migrations.RenameField(model_name='netboxsync', old_name='started_at', new_name='created'),
        migrations.AlterModelOptions(name='netboxsync', options={'ordering': ('-created', '-id')}),
        migrations.AlterField(
            model_name='netboxsync', name='created',
            field=models.DateTimeField(auto_now_add=True, help_text='When it was requested'),
        ),
        migrations.AlterField(
            model_name='netboxsync', name='status',
            field=models.CharField(choices=[('pending', 'Pending'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='pending', max_length=16),
        ),
        migrations.AddField(
            model_name='netboxsync', name='dry_run',
            field=models.BooleanField(default=False, help_text='Diff and measure only: nothing applied'),
        ),
        migrations.AddField(
            model_name='netboxsync', name='started',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='netboxsync', name='finished',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='netboxsync', name='duration_s',
            field=models.FloatField(blank=True, help_text='Seconds from start to finish', null=True),
        ),
        migrations.AddField(
            model_name='netboxsync', name='task_id',
            field=models.CharField(blank=True, help_text='Celery task id when it was queued', max_length=64),
        ),
        migrations.AddField(
            model_name='netboxsync', name='runner',
            field=models.CharField(blank=True, help_text='host:boot:pid:start of the process executing it (common.runs reaper)', max_length=200),
        ),
        migrations.AddField(
            model_name='netboxsync', name='summary',
            field=models.JSONField(blank=True, default=dict, help_text='What the run found, in a few numbers'),
        ),
        migrations.AddField(
            model_name='netboxsync', name='result',
            field=models.JSONField(blank=True, default=dict, help_text="The run's full outcome as JSON"),
        ),
        migrations.AlterField(
            model_name='netboxsync', name='error',
            field=models.TextField(blank=True, help_text='Why the run failed (empty unless failed)'),
        ),
        migrations.AddField(
            model_name='netboxsync', name='error_fields',
            field=models.JSONField(blank=True, default=dict, help_text='field -> messages when the input was invalid'),
        ),
        migrations.AddField(
            model_name='netboxsync', name='kind',
            field=models.CharField(default='netbox_sync', editable=False, max_length=16),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(model_name='netboxsync', name='summary_line'),
        migrations.AddField(
            model_name='netboxsync', name='requested_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
    ]
