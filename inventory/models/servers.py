"""GPU servers and their NIC ports (one port per rail in a rail-optimised fabric)."""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from common import names
from common.versioning import VersionedModel
from compiler.nics import SERVER_MODELS

from ..choices import CableEndChoices
from ..constants import INTERFACE_MTU_MAX, INTERFACE_MTU_MIN, NIC_MTU_DEFAULT, PORT_SPEED_CHOICES
from .cables import unplug_on_cable_delete

__all__ = ("Server", "NicPort", "validate_server_model")


def validate_server_model(value: str) -> None:
    """A server model of the catalogue (compiler.nics.SERVER_MODELS: it picks the NIC family and PCIe slot), or ""
    for the catalogue's default for the server's NIC speed."""
    if value and value not in SERVER_MODELS:
        raise ValidationError(f"unknown server model {value!r}; known: {', '.join(sorted(SERVER_MODELS))}")


class Server(VersionedModel):
    fabric = models.ForeignKey("inventory.Fabric", on_delete=models.CASCADE, related_name="servers")
    name = models.CharField(max_length=63, unique=True, validators=[names.hostname])
    rack = models.ForeignKey("inventory.Rack", on_delete=models.PROTECT, related_name="servers",
                             null=True, blank=True)
    u_position = models.PositiveSmallIntegerField(null=True, blank=True)
    gpu_count = models.PositiveSmallIntegerField(default=8)
    power_w = models.FloatField(default=0.0, validators=[MinValueValidator(0.0)])
    mgmt_ip = models.GenericIPAddressField(null=True, blank=True, unique=True, verbose_name="management IP")
    serial = models.CharField(max_length=64, blank=True, validators=[names.text])
    model = models.CharField(max_length=64, blank=True, default="", validators=[validate_server_model],
                             help_text="Server model (compiler.nics.SERVER_MODELS: DGX-H100, XE9680-Thor2, ...); "
                                       "empty: the default for its NIC speed. Picks the NIC family of its host config")

    class Meta:
        ordering = ("name",)
        constraints = [
            models.UniqueConstraint(fields=("serial",), condition=~models.Q(serial=""), name="server_unique_serial"),
            models.CheckConstraint(condition=models.Q(power_w__gte=0), name="server_power_non_negative"),
            models.CheckConstraint(condition=models.Q(u_position__isnull=True) | models.Q(rack__isnull=False),
                                   name="server_u_position_needs_rack"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        if self.rack_id and self.u_position is not None and not 1 <= self.u_position <= self.rack.height_u:
            raise ValidationError(
                {"u_position": f"U{self.u_position} is outside rack {self.rack.name} (1..{self.rack.height_u})"})
        if self.u_position is not None and not self.rack_id:
            raise ValidationError({"u_position": "a U position needs a rack"})


class NicPort(VersionedModel):
    server = models.ForeignKey(Server, on_delete=models.CASCADE, related_name="nic_ports")
    name = models.CharField(max_length=32, validators=[names.nic_name])
    rail = models.PositiveSmallIntegerField(help_text="Rail index (0-based): NIC i of every server meets leaf rail i")
    speed_gbps = models.PositiveIntegerField(choices=PORT_SPEED_CHOICES)
    mtu = models.PositiveIntegerField(default=NIC_MTU_DEFAULT,
                                      validators=[MinValueValidator(INTERFACE_MTU_MIN),
                                                  MaxValueValidator(INTERFACE_MTU_MAX)])
    cable = models.ForeignKey("inventory.Cable", on_delete=unplug_on_cable_delete, related_name="nic_ports",
                              null=True, blank=True, editable=False)
    cable_end = models.CharField(max_length=1, choices=CableEndChoices.choices, blank=True, editable=False)

    class Meta:
        ordering = ("server", "rail", "name")
        verbose_name = "NIC port"
        constraints = [
            models.UniqueConstraint(fields=("server", "name"), name="nicport_unique_server_name"),
            models.UniqueConstraint(fields=("cable", "cable_end"), condition=models.Q(cable__isnull=False),
                                    name="nicport_unique_cable_end"),
            models.CheckConstraint(condition=models.Q(mtu__gte=INTERFACE_MTU_MIN, mtu__lte=INTERFACE_MTU_MAX),
                                   name="nicport_mtu_range"),
            models.CheckConstraint(
                condition=models.Q(cable__isnull=True, cable_end="")
                | models.Q(cable__isnull=False, cable_end__in=["A", "B"]),
                name="nicport_cable_end_iff_cable",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.server}:{self.name}" if self.server_id else self.name
