"""Cables. Each end is one switch interface or one server NIC port; the ends point at the cable (NetBox's
CabledObject shape), so the database itself keeps every port in at most one cable."""

from django.core.validators import MinValueValidator
from django.db import models

from common import names
from common.versioning import VersionedModel, version_bump

from ..choices import CableStatusChoices, CableTypeChoices

__all__ = ("Cable", "unplug_on_cable_delete")


def unplug_on_cable_delete(collector, field, sub_objs, using):
    """on_delete for a port's cable FK: unplug the port, clearing the cable and the cable end in ONE update.

    SET_NULL would clear only the FK (and two separate updates would each break the cable_end_iff_cable check
    halfway), so the ports are updated here, while the cable is being collected for deletion.
    """
    manager = field.model._base_manager.using(using)
    pks = list(sub_objs.values_list("pk", flat=True)) if hasattr(sub_objs, "values_list") else [o.pk for o in sub_objs]
    manager.filter(pk__in=pks).update(**{field.name: None, "cable_end": ""}, version=version_bump())


class Cable(VersionedModel):
    label = models.CharField(max_length=100, unique=True, validators=[names.text])
    cable_type = models.CharField(max_length=8, choices=CableTypeChoices.choices)
    length_m = models.FloatField(validators=[MinValueValidator(0.0)])
    status = models.CharField(max_length=20, choices=CableStatusChoices.choices, default=CableStatusChoices.PLANNED)
    peer_link = models.BooleanField(default=False, help_text="leaf-leaf links are only legal as peer links")

    class Meta:
        ordering = ("label",)
        constraints = [
            models.CheckConstraint(condition=models.Q(length_m__gte=0), name="cable_length_non_negative"),
        ]

    def __str__(self) -> str:
        return self.label

    def end(self, side: str):
        """The Interface or NicPort at end 'A' or 'B' (uses prefetched ``interfaces``/``nic_ports``)."""
        for port in (*self.interfaces.all(), *self.nic_ports.all()):
            if port.cable_end == side:
                return port
        return None
