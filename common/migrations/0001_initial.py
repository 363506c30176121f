"""The capability model (role permissions) in the kernel; ui migration 0007 moves the ui.<codename> rows here."""

from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='Capability',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
            ],
            options={
                'permissions': (('view_fabric_data', 'Read inventory, intents, configs, reports, the twin and rollouts'), ('operate_fabric', 'Compile, validate, run the twin, run twin rollouts and canaries'), ('edit_inventory', 'Create, edit and build inventory (fabrics, racks, switches, cables)'), ('edit_intents', 'Create and edit intents (tenants, networks, RoCE classes)'), ('approve_production_rollout', 'Create, approve and start rollouts and change sets on production devices'), ('manage_endpoints', 'Create, edit and read device endpoints and their credentials'), ('manage_users', 'Create and edit users and their roles')),
                'managed': False,
                'default_permissions': (),
            },
        ),
    ]
