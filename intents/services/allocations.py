"""Stored allocations (VNIs, ASNs, addresses): allocate what is missing, never move a stored value."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from compiler import model as core
from compiler.topology import FABRIC_ASN_ROLES

from ..adapters import allocation_rows
from ..choices import AllocationKindChoices
from ..models import Allocation, FabricIntent
from .objects import intent_validate


@dataclass(frozen=True)
class AllocationSyncResult:
    created: int
    updated: int
    snapshot: core.Snapshot  # as stored before the sync
    allocations: core.Allocations  # everything stored after it


def _value_group(kind: str, key: str, scheme: str, roles: dict[str, str]) -> str:
    """The uniqueness space of a value (see models/allocations.py)."""
    if kind in (AllocationKindChoices.LOOPBACK, AllocationKindChoices.VTEP, AllocationKindChoices.P2P):
        return "ipv4"
    if kind in (AllocationKindChoices.L2VNI, AllocationKindChoices.L3VNI):
        return "vni"
    if kind == AllocationKindChoices.ASN and scheme == core.AsnScheme.PER_LEAF and roles.get(key) in FABRIC_ASN_ROLES:
        return "asn"
    return ""  # spines of a plane, or the leaves of one rack in the per-rack scheme, share an ASN


@transaction.atomic
def allocations_sync(*, fabric_intent: FabricIntent) -> AllocationSyncResult:
    """Allocate what is missing and store it; never moves a stored value (``compiler.api.allocate`` is stable).

    The intent row is locked (SELECT ... FOR UPDATE on PostgreSQL) so two concurrent syncs cannot both hand
    out the same free value; the unique constraints would reject it anyway.
    Only explicit intent values may change a stored row (a network's or tenant's explicit VNI wins).
    """
    FabricIntent.objects.select_for_update().filter(pk=fabric_intent.pk).exists()
    snapshot, allocations = intent_validate(fabric_intent=fabric_intent)
    stored = allocation_rows(snapshot.allocations)
    wanted = allocation_rows(allocations)
    changed = {key: value for key, value in wanted.items() if key in stored and stored[key] != value}
    new = {key: value for key, value in wanted.items() if key not in stored}
    if changed:
        # Delete then recreate: two explicit VNIs swapping owners must not trip the unique constraint midway.
        for kind, key in changed:
            Allocation.objects.filter(fabric_intent=fabric_intent, kind=kind, key=key).delete()
    roles = {switch.hostname: switch.role for switch in snapshot.inventory.switches}
    scheme = snapshot.intent.asn_scheme
    Allocation.objects.bulk_create(
        [Allocation(fabric_intent=fabric_intent, kind=kind, key=key, value=value,
                    value_group=_value_group(kind, key, scheme, roles))
         for (kind, key), value in sorted({**new, **changed}.items())],
        batch_size=1000)
    return AllocationSyncResult(created=len(new), updated=len(changed), snapshot=snapshot, allocations=allocations)
