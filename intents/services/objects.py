"""Saves and deletes of intent objects (FabricIntent, Tenant, Network, RoceClass), each followed by validation of
the whole fabric intent.

Every save path (API, admin, commands, YAML import) goes through ``intent_object_save``: the model's own checks
(field ranges, per-intent uniqueness, naming the field), then the whole fabric is validated by the compiler
(``compiler.api.validate_intent`` + a dry allocation) inside the same transaction, so an invalid intent is never
committed and nothing is half-saved.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from compiler import model as core
from compiler.validate import check_intent

from ..adapters import fabric_snapshot
from ..choices import AllocationKindChoices
from ..constants import ROCE_DEFAULT_CLASSES
from ..models import Allocation, FabricIntent, Network, RoceClass, Tenant
from .defaults import fabric_intent_defaults


def intent_validate(*, fabric_intent: FabricIntent) -> tuple[core.Snapshot, core.Allocations]:
    """Validate the fabric intent as stored (in the caller's transaction); raise IntentValidationError.

    ``check_intent`` runs every field check and then the allocation on top of the stored allocations (pool too
    small, a stored value colliding after a pool or scheme change); it returns the completed allocations.
    """
    snapshot = fabric_snapshot(fabric_intent)
    return snapshot, check_intent(snapshot)


def _intent_of(instance) -> FabricIntent:
    if isinstance(instance, FabricIntent):
        return instance
    if isinstance(instance, Network) and instance.fabric_intent_id is None and instance.tenant_id:
        instance.fabric_intent_id = instance.tenant.fabric_intent_id
    return instance.fabric_intent


def _renamed_allocation_kind(instance) -> str | None:
    if isinstance(instance, Network):
        return AllocationKindChoices.L2VNI
    if isinstance(instance, Tenant):
        return AllocationKindChoices.L3VNI
    return None


def intent_object_save(*, instance, values: dict | None = None, many: dict[str, Iterable] | None = None):
    """Create or update a FabricIntent, Tenant, Network or RoceClass and validate the whole fabric intent.

    ``values``: field -> value; ``many``: many-to-many field -> objects (Network.leaves, Network.attachments).
    Raises django ValidationError (model-level, naming the field) or IntentValidationError (fabric-level);
    either way the transaction rolls back, and a refused create leaves ``instance`` unsaved (no primary key: the
    form that re-renders it is still a create, without a Delete for an id never stored).
    """
    created = instance.pk is None
    try:
        return _intent_object_save(instance=instance, values=values, many=many)
    except Exception:
        if created:
            instance.pk = None
            instance._state.adding = True
        raise


@transaction.atomic
def _intent_object_save(*, instance, values: dict | None, many: dict[str, Iterable] | None):
    old_name = None
    if instance.pk is not None and _renamed_allocation_kind(instance):
        old_name = type(instance).objects.filter(pk=instance.pk).values_list("name", flat=True).first()
    for name, value in (values or {}).items():
        setattr(instance, name, value)
    if isinstance(instance, Network) and instance.tenant_id:
        instance.fabric_intent_id = instance.tenant.fabric_intent_id
    # Composite uniqueness is checked in each model's clean() so the error names the field; the database
    # constraints stay as the backstop.
    instance.full_clean(validate_constraints=False)
    instance.save()
    for name, items in (many or {}).items():
        getattr(instance, name).set(list(items))
    fabric_intent = _intent_of(instance)
    kind = _renamed_allocation_kind(instance)
    if kind and old_name and old_name != instance.name:
        # Allocations are keyed by name: a rename keeps the VNI with the object instead of allocating a new one.
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=kind, key=old_name).update(key=instance.name)
    intent_validate(fabric_intent=fabric_intent)
    return instance


def fabric_intent_create(*, fabric, name: str, **values) -> FabricIntent:
    """A new fabric intent; pools and management network not given come from ``fabric_intent_defaults``, so a
    second fabric's intent is created without a pool clash (the UI's create form, issue #16)."""
    defaults = fabric_intent_defaults(fabric=fabric, name=name)
    return intent_object_save(instance=FabricIntent(fabric=fabric, name=name), values={**defaults, **values})


def fabric_intent_update(*, fabric_intent: FabricIntent, **values) -> FabricIntent:
    return intent_object_save(instance=fabric_intent, values=values)


def tenant_create(*, fabric_intent: FabricIntent, name: str, vrf: str, l3vni: int | None = None) -> Tenant:
    return intent_object_save(instance=Tenant(fabric_intent=fabric_intent), values={"name": name, "vrf": vrf,
                                                                                     "l3vni": l3vni})


def network_create(*, tenant: Tenant, name: str, vlan_id: int, subnet: str, gateway: str | None = None,
                   l2vni: int | None = None, leaves: Iterable = (), attachments: Iterable = ()) -> Network:
    return intent_object_save(
        instance=Network(tenant=tenant, fabric_intent_id=tenant.fabric_intent_id),
        values={"name": name, "vlan_id": vlan_id, "subnet": subnet, "gateway": gateway, "l2vni": l2vni},
        many={"leaves": leaves, "attachments": attachments})


def roce_class_create(*, fabric_intent: FabricIntent, **values) -> RoceClass:
    return intent_object_save(instance=RoceClass(fabric_intent=fabric_intent), values=values)


@transaction.atomic
def intent_object_delete(*, instance) -> None:
    """Delete a tenant, network or RoCE class; release the VNIs of the deleted tenant/networks, then revalidate.

    VNIs are released (unlike switch allocations, which the allocator keeps reserved) because they belong to the
    intent object, not to hardware: a network recreated later takes its VNI from its VLAN again.
    """
    fabric_intent = _intent_of(instance)
    if isinstance(instance, Tenant):
        network_names = list(instance.networks.values_list("name", flat=True))
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=AllocationKindChoices.L2VNI,
                                  key__in=network_names).delete()
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=AllocationKindChoices.L3VNI,
                                  key=instance.name).delete()
    elif isinstance(instance, Network):
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=AllocationKindChoices.L2VNI,
                                  key=instance.name).delete()
    instance.delete()
    intent_validate(fabric_intent=fabric_intent)


@transaction.atomic
def roce_defaults_apply(*, fabric_intent: FabricIntent) -> list[RoceClass]:
    """Create (or reset to the defaults) the typical RoCEv2 class(es); see ``constants.ROCE_DEFAULT_CLASSES``."""
    classes = []
    for defaults in ROCE_DEFAULT_CLASSES:
        values = dict(defaults)
        name = values.pop("name")
        instance = RoceClass.objects.filter(fabric_intent=fabric_intent, name=name).first()
        instance = instance or RoceClass(fabric_intent=fabric_intent, name=name)
        model_defaults = {field.name: field.get_default() for field in RoceClass._meta.concrete_fields
                          if field.has_default()}
        classes.append(intent_object_save(instance=instance, values={**model_defaults, **values}))
    return classes
