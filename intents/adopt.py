"""Adopt a running fabric: a config set in, the inventory, the intent, pinned allocations and carried lines saved.

``fabric_adopt(device_files=, name=, dry_run=)`` runs the pure adoption (compiler.adopt: plan + proof) first, so a
hostile or partial set, or an intent the compiler refuses, is an error naming file and line before anything is
written; then, in ONE transaction, persists the inventory (inventory.services.inventory_persist), the intent with
its tenants, networks and RoCE classes (intents.services.fabric_intent_apply), every allocation the configs hold
as stored Allocation rows (the allocator keeps stored values: the compiler reuses them exactly), the rest
allocated (allocations_sync), and the carried lines (intents.models.CarriedBlock; every compile puts them back).
On any error nothing is saved. With ``netbox_data`` (NetBox's dcim answers: ``NetboxClient.dump()`` or
``inventory.netbox.load_dump``) the plan is joined with NetBox first (inventory.netbox_adopt: agreed cables take
NetBox's media and length, unstated models NetBox's device type; a contradiction is refused before anything is
written, a one-sided object is a warning in the report; docs/inventory.md "Adopting with NetBox").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from compiler import model as core
from compiler.adopt import AdoptionProof, adoption_plan, adoption_proof
from compiler.errors import FieldError, InputError
from compiler.names import OBJECT_NAME, name_problem
from inventory.models import Fabric
from inventory.netbox_adopt import NetboxJoin, adoption_netbox_join
from inventory.netbox_client import NetboxClient
from inventory.services import PersistResult, inventory_persist

from .adapters import allocation_rows
from .models import Allocation, CarriedBlock, FabricIntent
from .services import allocations_sync, fabric_intent_apply
from .services.allocations import _value_group


@dataclass
class AdoptionOutcome:
    proof: AdoptionProof
    dry_run: bool
    fabric_intent: FabricIntent | None = None
    persisted: PersistResult | None = None
    pinned: int = 0  # allocation rows stored as the configs hold them
    allocated: int = 0  # allocation rows the allocator added (values no config held)
    netbox: NetboxJoin | None = None  # the NetBox join, when NetBox was given

    def as_dict(self) -> dict:
        return {**self.proof.as_dict(), "dry_run": self.dry_run,
                "netbox": self.netbox.as_dict() if self.netbox else None,
                "fabric_intent": self.fabric_intent.pk if self.fabric_intent else None,
                "persisted": self.persisted.as_dict() if self.persisted else None,
                "allocations": {"pinned": self.pinned, "allocated": self.allocated}}


def intent_as_dict(intent: core.FabricIntent) -> dict:
    """A FabricIntent in the scenario shape fabric_intent_apply reads (compiler.scenario.intent_from_dict)."""
    data = dataclasses.asdict(intent)
    for network, item in zip(intent.networks, data["networks"], strict=True):
        item["attachments"] = [f"{endpoint.device}:{endpoint.interface}" for endpoint in network.attachments]
        item["leaves"] = list(network.leaves)
    for item in data["roce_classes"]:
        item["dscp"] = list(item["dscp"])
    for key in ("ntp_servers", "syslog_servers", "dns_servers", "aaa_servers"):
        data["management"][key] = list(data["management"][key])
    return data


def fabric_adopt(*, device_files: dict[str, dict[str, str]], name: str,
                 netbox_data: dict[str, list[dict]] | None = None, dry_run: bool = False) -> AdoptionOutcome:
    problem = name_problem(OBJECT_NAME, name)
    if problem:
        raise InputError(FieldError("name", name, problem))
    plan = adoption_plan(device_files, name=name)
    # A contradiction between NetBox and the configs is refused here, before the compile and before any write.
    joined = adoption_netbox_join(plan, netbox_data) if netbox_data is not None else None
    proof = adoption_proof(joined.plan if joined else plan)  # an intent the compiler refuses is refused here
    if dry_run:
        return AdoptionOutcome(proof=proof, dry_run=True, netbox=joined)
    return _persist(proof, name, joined)


def adoption_netbox_client(*, netbox: bool, netbox_url: str = "") -> NetboxClient | None:
    """The server's NetBox client when ``netbox`` is asked for (the API and the page share it). A caller never
    names the URL: the server would send its token there."""
    if netbox_url:
        raise InputError(FieldError("netbox_url", netbox_url, "the join reads the server's own NetBox "
                                                              "(FT_NETBOX_URL) only: send netbox=true"))
    if not netbox:
        return None
    if not settings.FT_NETBOX_URL or not settings.FT_NETBOX_TOKEN:
        raise InputError(FieldError("netbox", True, "this server has no NetBox: set FT_NETBOX_URL and "
                                                    "FT_NETBOX_TOKEN, or adopt from the configs alone"))
    return NetboxClient(settings.FT_NETBOX_URL, settings.FT_NETBOX_TOKEN)


@transaction.atomic
def _persist(proof: AdoptionProof, name: str, joined: NetboxJoin | None) -> AdoptionOutcome:
    taken = [FieldError("name", name, f"a {what} of this name exists: adopt under another --name")
             for what, exists in (("fabric", Fabric.objects.filter(name=name).exists()),
                                  ("fabric intent", FabricIntent.objects.filter(name=name).exists())) if exists]
    if taken:
        raise InputError(taken)
    snapshot = proof.plan.snapshot
    persisted = inventory_persist(inventory=snapshot.inventory)
    fabric = Fabric.objects.get(name=name)
    fabric_intent = fabric_intent_apply(data={"intent": intent_as_dict(snapshot.intent)}, fabric=fabric)
    roles = {switch.hostname: switch.role for switch in snapshot.inventory.switches}
    rows = allocation_rows(snapshot.allocations)
    Allocation.objects.bulk_create([
        Allocation(fabric_intent=fabric_intent, kind=kind, key=key, value=value,
                   value_group=_value_group(kind, key, snapshot.intent.asn_scheme, roles))
        for (kind, key), value in sorted(rows.items())])
    synced = allocations_sync(fabric_intent=fabric_intent)
    CarriedBlock.objects.bulk_create([
        CarriedBlock(fabric_intent=fabric_intent, hostname=host, position=position, target=block.target,
                     kind=block.kind[:64], source_file=block.file[:255], source_line=block.line,
                     parents=list(block.parents), text=block.text, lines=block.lines)
        for host, device in sorted(proof.devices.items()) for position, block in enumerate(device.carried)])
    return AdoptionOutcome(proof=proof, dry_run=False, fabric_intent=fabric_intent, persisted=persisted,
                           pinned=len(rows), allocated=synced.created, netbox=joined)
