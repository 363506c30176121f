"""Pluggable transceivers (and the heads of DAC/AOC assemblies)."""

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models

from common import names
from common.versioning import VersionedModel

from ..choices import FormFactorChoices

__all__ = ("Optic",)


class Optic(VersionedModel):
    """Installed in at most one switch interface or one NIC port; neither means a spare on the shelf."""

    interface = models.OneToOneField("inventory.Interface", on_delete=models.SET_NULL, related_name="optic",
                                     null=True, blank=True)
    nic_port = models.OneToOneField("inventory.NicPort", on_delete=models.SET_NULL, related_name="optic",
                                    null=True, blank=True)
    form_factor = models.CharField(max_length=16, choices=FormFactorChoices.choices)
    media = models.CharField(max_length=32, help_text="400G-DR4, 400G-FR4, 800G-2xDR4, 400G-SR8, 400G-DAC ...", validators=[names.text])
    speed_gbps = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    reach_m = models.FloatField(validators=[MinValueValidator(0.0)])
    vendor = models.CharField(max_length=100, blank=True, validators=[names.text])
    part_number = models.CharField(max_length=100, blank=True, validators=[names.text])
    serial = models.CharField(max_length=64, blank=True, validators=[names.text])

    class Meta:
        ordering = ("id",)
        constraints = [
            models.CheckConstraint(condition=models.Q(interface__isnull=True) | models.Q(nic_port__isnull=True),
                                   name="optic_in_one_port_at_most"),
            models.UniqueConstraint(fields=("serial",), condition=~models.Q(serial=""), name="optic_unique_serial"),
            models.CheckConstraint(condition=models.Q(reach_m__gte=0), name="optic_reach_non_negative"),
        ]

    def __str__(self) -> str:
        where = self.interface or self.nic_port or "spare"
        return f"{self.media} @ {where}"

    def clean(self) -> None:
        super().clean()
        if self.interface_id and self.nic_port_id:
            raise ValidationError({"nic_port": "an optic sits in one interface or one NIC port, not both"})
