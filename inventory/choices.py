"""Choice sets for inventory fields (NetBox style: one class per field, values shared with the pure core)."""

from django.db import models

from compiler import model as core


class SwitchRoleChoices(models.TextChoices):
    SPINE = core.Role.SPINE, "Spine"
    LEAF = core.Role.LEAF, "Leaf"
    SUPER_SPINE = core.Role.SUPER_SPINE, "Super-spine"
    BORDER = core.Role.BORDER, "Border leaf"


class PlatformChoices(models.TextChoices):
    EOS = core.Platform.EOS, "Arista EOS"
    SONIC = core.Platform.SONIC, "SONiC"
    FRR = core.Platform.FRR, "FRR on Linux"


class DeviceStatusChoices(models.TextChoices):
    PLANNED = "planned", "Planned"
    STAGED = "staged", "Staged"
    ACTIVE = "active", "Active"
    MAINTENANCE = "maintenance", "Maintenance"
    DECOMMISSIONED = "decommissioned", "Decommissioned"


class CableStatusChoices(models.TextChoices):
    PLANNED = "planned", "Planned"
    INSTALLED = "installed", "Installed"
    CONNECTED = "connected", "Connected"
    DECOMMISSIONED = "decommissioned", "Decommissioned"


class CableTypeChoices(models.TextChoices):
    DAC = core.CableType.DAC, "Direct-attach copper"
    AOC = core.CableType.AOC, "Active optical cable"
    SMF = core.CableType.SMF, "Single-mode fibre"
    MMF = core.CableType.MMF, "Multi-mode fibre"


class CableEndChoices(models.TextChoices):
    A = "A", "A end"
    B = "B", "B end"


class FormFactorChoices(models.TextChoices):
    QSFP_DD = "QSFP-DD", "QSFP-DD"
    OSFP = "OSFP", "OSFP"
    QSFP28 = "QSFP28", "QSFP28"
    QSFP112 = "QSFP112", "QSFP112"


class NetboxSyncTriggerChoices(models.TextChoices):
    COMMAND = "command", "manage.py command"
    API = "api", "API request"
    WEBHOOK = "webhook", "NetBox event rule (webhook)"
    SCHEDULE = "schedule", "Celery beat schedule"
