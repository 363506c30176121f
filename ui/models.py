"""The UI's own rows: the role permissions (an unmanaged model). Twin operations started from the twin page
are recorded by the twins app (``twins.models.TwinOperation``)."""

from django.db import models


class Capability(models.Model):
    """What a role may do. Groups in ``common.roles`` hold these permissions; views check them server-side."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = (
            ("view_fabric_data", "Read inventory, intents, configs, reports, the twin and rollouts"),
            ("operate_fabric", "Compile, validate, run the twin, run twin rollouts and canaries"),
            ("edit_inventory", "Create, edit and build inventory (fabrics, racks, switches, cables)"),
            ("edit_intents", "Create and edit intents (tenants, networks, RoCE classes)"),
            ("approve_production_rollout", "Create, approve and start rollouts and change sets on production devices"),
            ("manage_endpoints", "Create, edit and read device endpoints and their credentials"),
            ("manage_users", "Create and edit users and their roles"),
        )

    def __str__(self) -> str:
        return "UI capability"

