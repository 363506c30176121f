"""No tables: one unmanaged model only to own the UI's permissions (Django permissions need a content type)."""

from django.db import models


class Capability(models.Model):
    """What a role may do. Groups in ``ui.roles`` hold these permissions; views check them server-side."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = (
            ("view_fabric_data", "Read inventory, intents, configs, reports, the twin and rollouts"),
            ("operate_fabric", "Compile, validate, run the twin, start twin rollouts and canaries"),
            ("edit_inventory", "Create and edit inventory (fabrics, racks, switches, cables)"),
            ("edit_intents", "Create and edit intents (tenants, networks, RoCE classes)"),
            ("approve_production_rollout", "Approve and start rollouts to production devices"),
        )

    def __str__(self) -> str:
        return "UI capability"
