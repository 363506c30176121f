"""Switch hardware and software: switch models, platforms, switches and their interfaces."""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from common import names
from common.versioning import VersionedModel
from compiler.hardware import base_mac_problem

from ..choices import (
    CableEndChoices,
    DeviceStatusChoices,
    FormFactorChoices,
    PlatformChoices,
    SwitchRoleChoices,
)
from ..constants import (
    BREAKOUT_LANES_MAX,
    INTERFACE_MTU_DEFAULT,
    INTERFACE_MTU_MAX,
    INTERFACE_MTU_MIN,
    PLANE_MAX,
    POD_MAX,
    PORT_SPEED_CHOICES,
)
from .cables import unplug_on_cable_delete

__all__ = ("SwitchModel", "Platform", "Switch", "Interface")


class SwitchModel(VersionedModel):
    vendor = models.CharField(max_length=100, validators=[names.text])
    name = models.CharField(max_length=100, unique=True, help_text="Model name, e.g. 7060X6-64PE", validators=[names.object_name])
    asic = models.CharField(max_length=100, blank=True, validators=[names.text])
    port_count = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    max_speed_gbps = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    form_factor = models.CharField(max_length=16, choices=FormFactorChoices.choices)
    breakout_modes = models.JSONField(default=list, blank=True, help_text='e.g. ["1x800G", "2x400G", "4x200G"]')
    buffer_mb = models.FloatField(default=0.0, validators=[MinValueValidator(0.0)])
    typical_power_w = models.FloatField(default=0.0, validators=[MinValueValidator(0.0)])

    class Meta:
        ordering = ("vendor", "name")
        constraints = [
            models.CheckConstraint(condition=models.Q(port_count__gte=1), name="switchmodel_port_count_positive"),
            models.CheckConstraint(condition=models.Q(max_speed_gbps__gte=1), name="switchmodel_speed_positive"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        modes = self.breakout_modes
        if not isinstance(modes, list) or not all(isinstance(mode, str) and _parse_mode(mode) for mode in modes):
            raise ValidationError({"breakout_modes": f"expected a list like ['2x400G', '4x200G'], got {modes!r}"})


def _parse_mode(mode: str) -> tuple[int, int] | None:
    """'2x400G' -> (2, 400); None when malformed."""
    count, sep, speed = mode.lower().partition("x")
    if not sep or not count.isdigit() or not speed.endswith("g") or not speed[:-1].isdigit():
        return None
    return int(count), int(speed[:-1])


def validate_base_mac(value) -> None:
    """compiler.hardware.base_mac_problem as a field validator: the same rule as the pure core."""
    if value in (None, ""):
        return
    problem = base_mac_problem(value)
    if problem:
        raise ValidationError("%(shown)s: " + problem, code="invalid_base_mac", params={"value": value, "shown": repr(value)})


class Platform(VersionedModel):
    slug = models.SlugField(max_length=20, unique=True, choices=PlatformChoices.choices)
    name = models.CharField(max_length=100)
    napalm_driver = models.CharField(max_length=50, blank=True)
    netmiko_device_type = models.CharField(max_length=50, blank=True)

    class Meta:
        ordering = ("slug",)

    def __str__(self) -> str:
        return self.name or self.slug


class Switch(VersionedModel):
    fabric = models.ForeignKey("inventory.Fabric", on_delete=models.CASCADE, related_name="switches")
    hostname = models.CharField(max_length=63, unique=True, validators=[names.hostname])  # RFC 1123 label length
    role = models.CharField(max_length=20, choices=SwitchRoleChoices.choices)
    plane = models.PositiveSmallIntegerField(default=0, validators=[MaxValueValidator(PLANE_MAX)])
    # 5-stage Clos pod of a spine or leaf (1..); 0 = not in a pod. Decides the spine ASN (RFC 7938 5.2.1).
    pod = models.PositiveSmallIntegerField(default=0, validators=[MaxValueValidator(POD_MAX)])
    rack = models.ForeignKey("inventory.Rack", on_delete=models.PROTECT, related_name="switches",
                             null=True, blank=True)
    u_position = models.PositiveSmallIntegerField(null=True, blank=True)
    model = models.ForeignKey(SwitchModel, on_delete=models.PROTECT, related_name="switches")
    platform = models.ForeignKey(Platform, on_delete=models.PROTECT, related_name="switches")
    os_version = models.CharField(max_length=50, blank=True, validators=[names.version])
    mgmt_ip = models.GenericIPAddressField(null=True, blank=True, unique=True, verbose_name="management IP")
    serial = models.CharField(max_length=64, blank=True, validators=[names.text])
    status = models.CharField(max_length=20, choices=DeviceStatusChoices.choices,
                              default=DeviceStatusChoices.PLANNED)
    # The switch's own base MAC (its EEPROM's; SONiC's DEVICE_METADATA.mac), read from the device or NetBox; null
    # when unknown, and then no config we push states one. Lower-case aa:bb:cc:dd:ee:ff (compiler.hardware).
    base_mac = models.CharField(max_length=17, null=True, blank=True, unique=True, validators=[validate_base_mac],
                                verbose_name="base MAC")

    class Meta:
        ordering = ("hostname",)
        verbose_name_plural = "switches"
        constraints = [
            models.UniqueConstraint(fields=("serial",), condition=~models.Q(serial=""), name="switch_unique_serial"),
            models.CheckConstraint(condition=models.Q(plane__lte=PLANE_MAX), name="switch_plane_range"),
            models.CheckConstraint(condition=models.Q(u_position__isnull=True) | models.Q(rack__isnull=False),
                                   name="switch_u_position_needs_rack"),
        ]

    def __str__(self) -> str:
        return self.hostname

    def clean(self) -> None:
        if self.base_mac == "":
            self.base_mac = None  # a blank form field means unknown
        elif self.base_mac:
            self.base_mac = self.base_mac.lower()
        super().clean()
        errors = {}
        if self.rack_id and self.u_position is not None and not 1 <= self.u_position <= self.rack.height_u:
            errors["u_position"] = f"U{self.u_position} is outside rack {self.rack.name} (1..{self.rack.height_u})"
        if self.u_position is not None and not self.rack_id:
            errors["u_position"] = "a U position needs a rack"
        if self.rack_id and self.fabric_id and self.rack.fabric_id not in (None, self.fabric_id):
            errors["rack"] = f"rack {self.rack.name} belongs to another fabric"
        if errors:
            raise ValidationError(errors)


class Interface(VersionedModel):
    switch = models.ForeignKey(Switch, on_delete=models.CASCADE, related_name="interfaces")
    name = models.CharField(max_length=64, validators=[names.interface_name])
    speed_gbps = models.PositiveIntegerField(choices=PORT_SPEED_CHOICES)
    mtu = models.PositiveIntegerField(default=INTERFACE_MTU_DEFAULT,
                                      validators=[MinValueValidator(INTERFACE_MTU_MIN),
                                                  MaxValueValidator(INTERFACE_MTU_MAX)])
    enabled = models.BooleanField(default=True)
    description = models.CharField(max_length=200, blank=True, validators=[names.text])
    # The physical cage this logical port is a lane group of (e.g. "Ethernet1" for Ethernet1/1 and Ethernet1/5):
    # a name, not a row, because a broken-out cage is not itself a configurable interface.
    breakout_parent = models.CharField(max_length=64, blank=True, validators=[names.interface_name])
    lane = models.PositiveSmallIntegerField(null=True, blank=True,
                                            validators=[MinValueValidator(1), MaxValueValidator(BREAKOUT_LANES_MAX)])
    # NetBox-style cabled object: the cable plugged in here and which end of it this is. One FK means an
    # interface can be in at most one cable, and (cable, cable_end) is unique, both enforced by the database.
    cable = models.ForeignKey("inventory.Cable", on_delete=unplug_on_cable_delete, related_name="interfaces",
                              null=True, blank=True, editable=False)
    cable_end = models.CharField(max_length=1, choices=CableEndChoices.choices, blank=True, editable=False)

    class Meta:
        ordering = ("switch", "id")
        constraints = [
            models.UniqueConstraint(fields=("switch", "name"), name="interface_unique_switch_name"),
            models.UniqueConstraint(fields=("cable", "cable_end"), condition=models.Q(cable__isnull=False),
                                    name="interface_unique_cable_end"),
            models.CheckConstraint(condition=models.Q(mtu__gte=INTERFACE_MTU_MIN, mtu__lte=INTERFACE_MTU_MAX),
                                   name="interface_mtu_range"),
            models.CheckConstraint(
                condition=models.Q(breakout_parent="", lane__isnull=True)
                | (~models.Q(breakout_parent="") & models.Q(lane__isnull=False)),
                name="interface_lane_iff_breakout_parent",
            ),
            models.CheckConstraint(
                condition=models.Q(cable__isnull=True, cable_end="")
                | models.Q(cable__isnull=False, cable_end__in=["A", "B"]),
                name="interface_cable_end_iff_cable",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.switch}:{self.name}" if self.switch_id else self.name

    def clean(self) -> None:
        super().clean()
        errors = {}
        if self.breakout_parent:
            if self.breakout_parent == self.name:
                errors["breakout_parent"] = f"{self.name} cannot be its own breakout parent"
            if self.lane is None:
                errors["lane"] = "a breakout child needs its lane"
        elif self.lane is not None:
            errors["lane"] = "only breakout children have a lane"
        if self.switch_id and self.speed_gbps and self.speed_gbps > self.switch.model.max_speed_gbps:
            errors["speed_gbps"] = (f"{self.speed_gbps}G exceeds the {self.switch.model.name} maximum "
                                    f"of {self.switch.model.max_speed_gbps}G")
        if errors:
            raise ValidationError(errors)
