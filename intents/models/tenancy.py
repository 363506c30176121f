"""Tenants (one VRF each) and their networks (one VLAN/L2VNI/subnet each, on some or all leaves)."""

import ipaddress

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from common import names
from common.versioning import VersionedModel

from ..constants import VLAN_ID_MAX, VLAN_ID_MIN, VNI_MAX, VNI_MIN

__all__ = ("Tenant", "Network")


class Tenant(VersionedModel):
    fabric_intent = models.ForeignKey("intents.FabricIntent", on_delete=models.CASCADE, related_name="tenants")
    name = models.CharField(max_length=64, validators=[names.object_name])
    vrf = models.CharField(max_length=15, help_text="VRF name (at most 15 characters: a Linux device name)", validators=[names.vrf_name])
    l3vni = models.PositiveIntegerField(null=True, blank=True,
                                        validators=[MinValueValidator(VNI_MIN), MaxValueValidator(VNI_MAX)],
                                        help_text="Empty: allocated from the fabric intent's L3VNI range")

    class Meta:
        ordering = ("fabric_intent", "name")
        constraints = [
            models.UniqueConstraint(fields=("fabric_intent", "name"), name="tenant_unique_intent_name"),
            models.UniqueConstraint(fields=("fabric_intent", "vrf"), name="tenant_unique_intent_vrf"),
            models.UniqueConstraint(fields=("fabric_intent", "l3vni"), condition=models.Q(l3vni__isnull=False),
                                    name="tenant_unique_intent_l3vni"),
            models.CheckConstraint(condition=models.Q(l3vni__isnull=True)
                                   | models.Q(l3vni__gte=VNI_MIN, l3vni__lte=VNI_MAX), name="tenant_l3vni_range"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        if self.fabric_intent_id:
            siblings = Tenant.objects.filter(fabric_intent_id=self.fabric_intent_id).exclude(pk=self.pk)
            raise_taken(siblings, self, ("name", "vrf", "l3vni"), "tenant")


def raise_taken(siblings, instance, fields: tuple[str, ...], what: str) -> None:
    """Per-intent uniqueness with the field named (the composite DB constraints would only say __all__)."""
    errors = {}
    for field in fields:
        value = getattr(instance, field)
        if value is None:
            continue
        other = siblings.filter(**{field: value}).values_list("name", flat=True).first()
        if other is not None:
            errors[field] = f"{field} {value!r} is already used by {what} {other} in this fabric intent"
    if errors:
        raise ValidationError(errors)


class Network(VersionedModel):
    # Denormalised from the tenant so the database can keep VLANs, names and VNIs unique per fabric intent.
    fabric_intent = models.ForeignKey("intents.FabricIntent", on_delete=models.CASCADE, related_name="networks",
                                      editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="networks")
    name = models.CharField(max_length=64, validators=[names.object_name])
    vlan_id = models.PositiveSmallIntegerField(validators=[MinValueValidator(VLAN_ID_MIN),
                                                           MaxValueValidator(VLAN_ID_MAX)], verbose_name="VLAN ID")
    l2vni = models.PositiveIntegerField(null=True, blank=True,
                                        validators=[MinValueValidator(VNI_MIN), MaxValueValidator(VNI_MAX)],
                                        help_text="Empty: the fabric intent's l2vni_base + VLAN ID")
    subnet = models.CharField(max_length=18, help_text="IPv4 prefix, e.g. 10.10.0.0/24")
    gateway = models.GenericIPAddressField(protocol="IPv4", null=True, blank=True,
                                           help_text="Anycast gateway inside the subnet; empty: L2-only network")
    leaves = models.ManyToManyField("inventory.Switch", related_name="intent_networks", blank=True,
                                    help_text="Leaves carrying the network; none selected means every leaf")
    attachments = models.ManyToManyField("inventory.NicPort", related_name="intent_networks", blank=True,
                                         help_text="Server NIC ports that sit in this network (access ports)")

    class Meta:
        ordering = ("fabric_intent", "vlan_id")
        constraints = [
            models.UniqueConstraint(fields=("fabric_intent", "name"), name="network_unique_intent_name"),
            models.UniqueConstraint(fields=("fabric_intent", "vlan_id"), name="network_unique_intent_vlan"),
            models.UniqueConstraint(fields=("fabric_intent", "l2vni"), condition=models.Q(l2vni__isnull=False),
                                    name="network_unique_intent_l2vni"),
            models.CheckConstraint(condition=models.Q(vlan_id__gte=VLAN_ID_MIN, vlan_id__lte=VLAN_ID_MAX),
                                   name="network_vlan_range"),
            models.CheckConstraint(condition=models.Q(l2vni__isnull=True)
                                   | models.Q(l2vni__gte=VNI_MIN, l2vni__lte=VNI_MAX), name="network_l2vni_range"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        if self.tenant_id and not self.fabric_intent_id:
            self.fabric_intent_id = self.tenant.fabric_intent_id
        super().save(*args, **kwargs)

    def clean(self) -> None:
        super().clean()
        if self.tenant_id:
            self.fabric_intent_id = self.tenant.fabric_intent_id
        errors = {}
        network = None
        try:
            network = ipaddress.IPv4Network(self.subnet or "")
        except ValueError as exc:
            errors["subnet"] = f"{self.subnet!r} is not an IPv4 prefix with host bits zero ({exc})"
        if network is not None and self.gateway:
            gateway = ipaddress.IPv4Address(self.gateway)
            if gateway not in network or gateway in (network.network_address, network.broadcast_address):
                errors["gateway"] = f"{self.gateway} is not a host address of {self.subnet}"
        if errors:
            raise ValidationError(errors)
        if self.fabric_intent_id:
            siblings = Network.objects.filter(fabric_intent_id=self.fabric_intent_id).exclude(pk=self.pk)
            raise_taken(siblings, self, ("name", "vlan_id", "l2vni"), "network")
