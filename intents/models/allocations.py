"""Stored allocations: one row per allocated value, so the database itself makes collisions impossible.

``kind`` + ``key`` name what got the value (a hostname, ``<cable>/a`` for an end of a /31 fabric link, a
network or tenant name). ``value_group`` names the space a value must be unique in: ``ipv4`` (router-id and
VTEP loopbacks and fabric link addresses share the address space), ``vni`` (L2VNIs and L3VNIs share the 24-bit
space) and ``asn`` (per-leaf ASNs). Values that are legitimately shared (spines of a plane share an ASN, so do
the leaves of a rack in the per-rack scheme) have an empty group and no uniqueness beyond (kind, key).
"""

from django.db import models

from ..choices import AllocationKindChoices

__all__ = ("Allocation",)


class Allocation(models.Model):
    fabric_intent = models.ForeignKey("intents.FabricIntent", on_delete=models.CASCADE, related_name="allocations")
    kind = models.CharField(max_length=16, choices=AllocationKindChoices.choices)
    key = models.CharField(max_length=120)
    value = models.CharField(max_length=45, help_text="Bare address, VNI or ASN as text")
    value_group = models.CharField(max_length=8, blank=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("fabric_intent", "kind", "key")
        constraints = [
            models.UniqueConstraint(fields=("fabric_intent", "kind", "key"), name="allocation_unique_kind_key"),
            models.UniqueConstraint(fields=("fabric_intent", "value_group", "value"), condition=~models.Q(value_group=""),
                                    name="allocation_unique_group_value"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} = {self.value}"
