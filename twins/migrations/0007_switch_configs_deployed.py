"""What each twin switch runs moves from ``Twin.switch_configs`` (JSON) to ``intents.DeployedConfig`` rows with
target ``twin`` (issue #28 point 4): one record of deployed configs for devices and twins. Rows are made for the
running twins only (up or degraded: a twin's rows exist while it runs, intents/deployed.py); each points at the
config of the compile run it ran that the twin runs (the switch's own platform's, else its frr rendering). Backward
rebuilds the JSON from the rows and removes them.
"""

import datetime as dt

import django.db.models.deletion
from django.db import migrations, models

RUNNING = ("up", "degraded")


def _twin_source(rows):
    """intents.selectors.device_config_twin_source, frozen here: own platform's rendering, else frr."""
    own = next((row for platform, row in rows.items() if platform == (row.structured or {}).get("platform")), None)
    return own or rows.get("frr")


def _forward(apps, schema_editor):
    Twin = apps.get_model("twins", "Twin")
    DeviceConfig = apps.get_model("intents", "DeviceConfig")
    DeployedConfig = apps.get_model("intents", "DeployedConfig")
    for twin in Twin.objects.filter(status__in=RUNNING).exclude(switch_configs={}).iterator():
        for hostname, entry in sorted((twin.switch_configs or {}).items()):
            run_id = entry.get("compile_run")
            rows = {row.platform: row for row in DeviceConfig.objects.filter(run_id=run_id, hostname=hostname)} \
                if run_id else {}
            source = _twin_source(rows)
            row = DeployedConfig.objects.create(
                fabric_intent_id=twin.fabric_intent_id, target="twin", twin=twin.pk, hostname=hostname,
                platform=source.platform if source else "frr", device_config=source, sha256=entry.get("sha256") or "",
                source=entry.get("source") or "", deployed_by_rollout=entry.get("rollout"),
                previous=entry.get("previous") or {})
            if entry.get("at"):  # auto_now stamped the copy now: keep when the switch started running it
                DeployedConfig.objects.filter(pk=row.pk).update(deployed=dt.datetime.fromisoformat(entry["at"]))


def _backward(apps, schema_editor):
    Twin = apps.get_model("twins", "Twin")
    DeployedConfig = apps.get_model("intents", "DeployedConfig")
    rows = DeployedConfig.objects.filter(target="twin").select_related("device_config").order_by("twin", "hostname")
    configs: dict[int, dict] = {}
    for row in rows:
        entry = {"compile_run": row.device_config.run_id if row.device_config_id else None, "sha256": row.sha256,
                 "source": row.source, "rollout": row.deployed_by_rollout, "at": row.deployed.isoformat()}
        if row.source == "rollout":
            entry["previous"] = row.previous
        configs.setdefault(row.twin, {})[row.hostname] = entry
    for twin in Twin.objects.filter(pk__in=list(configs)):
        twin.switch_configs = configs[twin.pk]
        twin.save(update_fields=["switch_configs"])
    DeployedConfig.objects.filter(target="twin").delete()


class Migration(migrations.Migration):

    dependencies = [
        ('intents', '0010_deployed_config_target'),
        ('twins', '0006_twinoperation_rehearsal'),
    ]

    operations = [
        migrations.RunPython(_forward, _backward),
        migrations.RemoveField(
            model_name='twin',
            name='switch_configs',
        ),
        migrations.AlterField(
            model_name='twin',
            name='compile_run',
            field=models.ForeignKey(blank=True, help_text="The compile every switch runs now (booted, or rolled out to every switch); empty while switches run different compiles (its switches' intents.DeployedConfig rows say which)", null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='twins', to='intents.compilerun'),
        ),
    ]
