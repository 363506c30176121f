"""A whole fabric intent from a scenario-shaped dict (the YAML import, ``manage.py intent_apply``, adoption):
declarative, validated with the YAML path named, all in one transaction."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from compiler import model as core
from compiler.errors import FieldError, IntentValidationError
from compiler.names import OBJECT_NAME, name_problem, object_name_errors
from compiler.scenario import intent_from_dict
from inventory.adapters import inventory_snapshot
from inventory.models import Fabric, NicPort, Switch

from ..choices import AllocationKindChoices
from ..models import Allocation, FabricIntent, Network, RoceClass, Tenant
from .defaults import _fabric_defaults
from .objects import intent_validate

FABRIC_INTENT_FIELDS = {  # compiler.model.FabricIntent / Pools / BgpPolicy attribute -> FabricIntent model field
    "underlay": "underlay", "asn_scheme": "asn_scheme", "route_target_scheme": "route_target_scheme",
    "underlay_mtu": "underlay_mtu", "host_mtu": "host_mtu", "anycast_gateway_mac": "anycast_gateway_mac",
    "evpn_overlay": "evpn_overlay", "pools.loopback": "loopback_pool", "pools.vtep": "vtep_pool", "pools.p2p": "p2p_pool",
    "pools.asn_first": "asn_first", "pools.asn_last": "asn_last", "pools.spine_asn": "spine_asn",
    "pools.l2vni_base": "l2vni_base", "pools.l3vni_first": "l3vni_first", "pools.l3vni_last": "l3vni_last",
    "bgp.maximum_paths": "bgp_maximum_paths", "bgp.keepalive_s": "bgp_keepalive_s", "bgp.hold_s": "bgp_hold_s",
    "bgp.bfd": "bgp_bfd", "bgp.bfd_interval_ms": "bgp_bfd_interval_ms", "bgp.bfd_multiplier": "bgp_bfd_multiplier",
    "management.network": "management_network", "management.gateway": "management_gateway",
    "management.vrf": "management_vrf", "management.ntp_servers": "ntp_servers",
    "management.syslog_servers": "syslog_servers", "management.dns_servers": "dns_servers",
    "management.aaa_servers": "aaa_servers", "management.aaa_secret_ref": "aaa_secret_ref",
    "ecmp_hashing.tier_hashing": "ecmp_tier_hashing", "ecmp_hashing.dest_qp_hashing": "ecmp_dest_qp_hashing",
    "ecmp_hashing.dlb": "ecmp_dlb", "ecmp_hashing.roles": "ecmp_roles", "ecmp_hashing.qps_per_connection": "nccl_qps_per_connection",
}


ROCE_CLASS_FIELDS = tuple(field for field in core.RoceClass.__dataclass_fields__ if field != "name")


def _prefixed(error, prefix: str):
    """A model ValidationError with each field renamed to ``prefix.field`` (so YAML errors point into the file)."""
    if not hasattr(error, "error_dict"):
        return ValidationError({prefix: error.messages})
    return ValidationError({f"{prefix}.{name}": messages for name, messages in error.message_dict.items()})


def _save_named(instance, values: dict, prefix: str, many: dict | None = None):
    for name, value in values.items():
        setattr(instance, name, value)
    try:
        instance.full_clean(validate_constraints=False)
    except ValidationError as error:
        raise _prefixed(error, prefix) from None
    instance.save()
    for name, items in (many or {}).items():
        getattr(instance, name).set(list(items))
    return instance


@transaction.atomic
def fabric_intent_apply(*, data: dict, fabric=None) -> FabricIntent:
    """Create or update a fabric intent with its tenants, networks and RoCE classes from a scenario-shaped dict
    (``compiler.scenario``: ``{"intent": {name, pools, bgp, tenants, networks, roce_classes, ...}}``).

    Declarative: tenants, networks and RoCE classes missing from ``data`` are deleted. Everything is validated
    (model-level with the YAML path named, then the whole fabric) before the transaction commits.
    """
    raw = dict(data.get("intent", data))
    if fabric is None:
        fabric_name = raw.get("inventory_fabric") or data.get("fabric") or (data.get("clos") or {}).get("name")
        problem = name_problem(OBJECT_NAME, fabric_name) if fabric_name is not None else None
        if problem:  # before any query: PostgreSQL refuses even to compare with a NUL
            raise IntentValidationError(FieldError("intent.inventory_fabric", fabric_name, problem))
        fabric = Fabric.objects.filter(name=fabric_name).first()
        if fabric is None:
            raise IntentValidationError(FieldError("intent.inventory_fabric", fabric_name,
                                                   "no inventory fabric of this name (build it first: "
                                                   "manage.py fabric_build)"))
    raw["inventory_fabric"] = fabric.name
    if not raw.get("name"):
        raise IntentValidationError(FieldError("intent.name", raw.get("name"), "a fabric intent needs a name"))
    raw = _fabric_defaults(raw, fabric)
    intent = intent_from_dict(raw, inventory_snapshot(fabric))
    name_errors: list[FieldError] = []
    object_name_errors(intent, "intent", name_errors)  # the name grammar before any lookup by name
    if name_errors:
        raise IntentValidationError(name_errors)

    fabric_intent = FabricIntent.objects.filter(name=intent.name).first() or FabricIntent(name=intent.name)
    values = {"fabric": fabric}
    for attribute, model_field in FABRIC_INTENT_FIELDS.items():
        value = intent
        for part in attribute.split("."):
            value = getattr(value, part)
        values[model_field] = list(value) if isinstance(value, tuple) else value  # server lists: JSON fields
    _save_named(fabric_intent, values, "intent")

    # Delete what the file no longer has first, so renumbering (VLAN 10 <-> 20) does not collide midway.
    tenant_names = {tenant.name for tenant in intent.tenants}
    network_names = {network.name for network in intent.networks}
    for stale in fabric_intent.networks.exclude(name__in=network_names):
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=AllocationKindChoices.L2VNI,
                                  key=stale.name).delete()
        stale.delete()
    for stale in fabric_intent.tenants.exclude(name__in=tenant_names):
        Allocation.objects.filter(fabric_intent=fabric_intent, kind=AllocationKindChoices.L3VNI,
                                  key=stale.name).delete()
        stale.delete()
    fabric_intent.roce_classes.exclude(name__in={roce.name for roce in intent.roce_classes}).delete()

    tenants = {tenant.name: tenant for tenant in fabric_intent.tenants.all()}
    for tenant in intent.tenants:
        instance = tenants.get(tenant.name) or Tenant(fabric_intent=fabric_intent, name=tenant.name)
        tenants[tenant.name] = _save_named(instance, {"vrf": tenant.vrf, "l3vni": tenant.l3vni},
                                           f"tenants[{tenant.name}]")
    switch_ids = dict(Switch.objects.filter(fabric=fabric).values_list("hostname", "id"))
    nic_ids = {(server, name): pk for pk, server, name in
               NicPort.objects.filter(server__fabric=fabric).values_list("id", "server__name", "name")}
    networks = {network.name: network for network in fabric_intent.networks.all()}
    for network in intent.networks:
        prefix = f"networks[{network.name}]"
        tenant = tenants.get(network.tenant)
        if tenant is None:
            raise IntentValidationError(FieldError(f"{prefix}.tenant", network.tenant, "unknown tenant"))
        leaves = _ids(network.leaves, switch_ids, f"{prefix}.leaves", "no switch of this name in the fabric")
        attachments = _ids([(nic.device, nic.interface) for nic in network.attachments], nic_ids,
                           f"{prefix}.attachments", "no server NIC port of this name in the fabric")
        instance = networks.get(network.name) or Network(name=network.name)
        _save_named(instance, {"tenant": tenant, "fabric_intent": fabric_intent, "vlan_id": network.vlan_id,
                               "subnet": network.subnet, "gateway": network.gateway, "l2vni": network.l2vni},
                    prefix, many={"leaves": leaves, "attachments": attachments})
    roce_classes = {roce.name: roce for roce in fabric_intent.roce_classes.all()}
    for roce in intent.roce_classes:
        instance = roce_classes.get(roce.name) or RoceClass(fabric_intent=fabric_intent, name=roce.name)
        values = {name: getattr(roce, name) for name in ROCE_CLASS_FIELDS}
        values["dscp"] = list(roce.dscp)
        _save_named(instance, values, f"roce_classes[{roce.name}]")
    intent_validate(fabric_intent=fabric_intent)
    return fabric_intent


def _ids(names, ids: dict, field: str, message: str) -> list[int]:
    missing = [name for name in names if name not in ids]
    if missing:
        raise IntentValidationError([FieldError(field, ":".join(name) if isinstance(name, tuple) else name, message)
                                     for name in missing])
    return [ids[name] for name in names]
