import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ui", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="TwinOperation",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("fabric", models.CharField(db_index=True, help_text="inventory fabric name", max_length=100)),
                ("prefix", models.CharField(help_text="the twin's namespace prefix", max_length=12)),
                ("kind", models.CharField(choices=[("up", "Start twin"), ("down", "Stop twin"), ("ping", "Ping matrix"),
                                                   ("fidelity", "Fidelity"), ("fail_link", "Fail a leaf uplink"),
                                                   ("fail_spine", "Fail a spine")], max_length=12)),
                ("status", models.CharField(choices=[("running", "Running"), ("ok", "OK"), ("failed", "Failed")],
                                            default="running", max_length=8)),
                ("result", models.JSONField(blank=True, default=dict, help_text="measurements / report as JSON")),
                ("error", models.TextField(blank=True)),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("finished", models.DateTimeField(blank=True, null=True)),
                ("started_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                                 related_name="+", to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "ordering": ("-created", "-id"),
                "indexes": [models.Index(fields=["fabric", "kind", "-created"], name="twinop_fabric_kind")],
            },
        ),
    ]
