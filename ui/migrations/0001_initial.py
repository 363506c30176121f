from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies: list = []

    operations = [
        migrations.CreateModel(
            name="Capability",
            fields=[("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"))],
            options={
                "managed": False,
                "default_permissions": (),
                "permissions": (
                    ("view_fabric_data", "Read inventory, intents, configs, reports, the twin and rollouts"),
                    ("operate_fabric", "Compile, validate, run the twin, start twin rollouts and canaries"),
                    ("edit_inventory", "Create and edit inventory (fabrics, racks, switches, cables)"),
                    ("edit_intents", "Create and edit intents (tenants, networks, RoCE classes)"),
                    ("approve_production_rollout", "Approve and start rollouts to production devices"),
                ),
            },
        ),
    ]
