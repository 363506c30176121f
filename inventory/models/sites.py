"""Where things stand: sites, inventory fabrics and racks."""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from common import names
from common.versioning import VersionedModel

from ..constants import RACK_HEIGHT_MAX_U

__all__ = ("Site", "Fabric", "Rack")


class Site(VersionedModel):
    name = models.CharField(max_length=100, unique=True, validators=[names.object_name])
    description = models.CharField(max_length=200, blank=True, validators=[names.text])

    class Meta:
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name


class Fabric(VersionedModel):
    """The inventory fabric a Clos belongs to: the set of switches, servers and cables built together."""

    name = models.CharField(max_length=100, unique=True, validators=[names.object_name])
    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="fabrics")
    description = models.CharField(max_length=200, blank=True, validators=[names.text])

    class Meta:
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name


class Rack(VersionedModel):
    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="racks")
    fabric = models.ForeignKey(Fabric, on_delete=models.CASCADE, related_name="racks", null=True, blank=True)
    name = models.CharField(max_length=100, validators=[names.object_name])
    row = models.CharField(max_length=50, blank=True, validators=[names.text])
    position = models.PositiveIntegerField(default=0, help_text="Position of the rack within its row")
    height_u = models.PositiveSmallIntegerField(
        default=42, validators=[MinValueValidator(1), MaxValueValidator(RACK_HEIGHT_MAX_U)]
    )
    power_budget_kw = models.FloatField(default=0.0, validators=[MinValueValidator(0.0)],
                                        help_text="0 means no budget recorded (the power check skips the rack)")

    class Meta:
        ordering = ("site", "name")
        constraints = [
            models.UniqueConstraint(fields=("site", "name"), name="rack_unique_site_name"),
            models.CheckConstraint(condition=models.Q(height_u__gte=1, height_u__lte=RACK_HEIGHT_MAX_U),
                                   name="rack_height_range"),
            models.CheckConstraint(condition=models.Q(power_budget_kw__gte=0), name="rack_power_budget_non_negative"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        if self.fabric_id and self.site_id and self.fabric.site_id != self.site_id:
            raise ValidationError({"fabric": f"fabric {self.fabric.name!r} is at site {self.fabric.site.name!r}, "
                                             f"not at the rack's site {self.site.name!r}"})
