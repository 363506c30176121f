"""Write allocations back to NetBox: ASNs, loopback and VTEP addresses, point-to-point /31s, L2VNIs with their
VLANs and L3VNIs with their VRFs. Idempotent: the plan compares what NetBox holds with what we allocated and only
the differences are written; a dry run returns the plan. Plain functions over a compiled snapshot and a
``NetboxClient`` (no ORM): the caller (``manage.py netbox_writeback``) loads the intent and its allocations.

What goes where (the NetBox custom fields must exist: docs/inventory.md "Write-back"):
- device custom fields ``asn``, ``loopback``, ``vtep`` (dcim.device) for each switch;
- ``ipam/ip-addresses``: each loopback and VTEP as a /32 (role ``loopback``), each end of a routed link as its /31, assigned to the NetBox interface when the export has it; every address we
  write carries the description ``fabric-twin <fabric>: <what>``, which is also how a second run recognises it;
- ``ipam/vlans``: one per network (``vid``, ``name``) with custom field ``vni``;
- ``ipam/vrfs``: one per tenant VRF with custom field ``vni`` (the L3VNI).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compiler import model as core

from .netbox_client import NetboxClient

MARK = "fabric-twin"


@dataclass(frozen=True)
class Write:
    method: str  # POST (create) or PATCH (update)
    path: str  # e.g. ipam/ip-addresses
    object_id: int | None
    body: dict
    what: str  # one line for the dry run

    def as_dict(self) -> dict:
        return {"method": self.method, "path": self.path, "id": self.object_id, "body": self.body, "what": self.what}


@dataclass
class WritebackResult:
    plan: list[Write]
    applied: bool
    written: list[dict] = field(default_factory=list)

    def text(self) -> str:
        verb = "wrote" if self.applied else "would write"
        lines = [f"{verb} {w.method} {w.path}{f'/{w.object_id}' if w.object_id else ''}: {w.what}" for w in self.plan]
        return "\n".join(lines) or "NetBox already holds every allocation: nothing to write"


def _index(records: list[dict], key) -> dict:
    return {key(record): record for record in records}


def writeback_plan(*, snapshot: core.Snapshot, allocations: core.Allocations, netbox: dict[str, list[dict]],
                   fabric: str) -> list[Write]:
    """The writes that make NetBox hold ``allocations``. ``netbox``: the current ``dcim/devices``,
    ``dcim/interfaces``, ``ipam/ip-addresses``, ``ipam/vlans`` and ``ipam/vrfs`` records."""
    plan: list[Write] = []
    devices = _index(netbox.get("dcim/devices", []), lambda d: d.get("name"))
    for switch in sorted(snapshot.inventory.switches, key=lambda s: s.hostname):
        device = devices.get(switch.hostname)
        if device is None:
            continue  # not a NetBox device (a fabric built here): nothing to write it to
        wanted = {"asn": allocations.asns.get(switch.hostname), "loopback": allocations.loopbacks.get(switch.hostname),
                  "vtep": allocations.vteps.get(switch.hostname)}
        custom = device.get("custom_fields") or {}
        changed = {k: v for k, v in wanted.items() if v is not None and custom.get(k) != v}
        if changed:
            plan.append(Write("PATCH", "dcim/devices", device["id"], {"custom_fields": changed},
                              f"device {switch.hostname}: " + ", ".join(f"{k}={v}" for k, v in sorted(changed.items()))))

    interfaces = _index(netbox.get("dcim/interfaces", []),
                        lambda i: ((i.get("device") or {}).get("name"), i.get("name")))
    addresses = _index(netbox.get("ipam/ip-addresses", []), lambda a: a.get("address"))
    wanted_addresses: list[tuple[str, str, dict]] = []  # (address with prefix, description, extra fields)
    for host, address in sorted(allocations.loopbacks.items()):
        wanted_addresses.append((f"{address}/32", f"{MARK} {fabric}: loopback of {host}", {"role": "loopback"}))
    for host, address in sorted(allocations.vteps.items()):
        wanted_addresses.append((f"{address}/32", f"{MARK} {fabric}: VTEP of {host}", {"role": "loopback"}))
    cables = {cable.label: cable for cable in snapshot.inventory.cables}
    for label, ends in sorted(allocations.p2p.items()):
        cable = cables.get(label)
        if cable is None:
            continue
        for endpoint, address in zip((cable.a, cable.b), ends, strict=True):
            extra: dict[str, Any] = {}
            interface = interfaces.get((endpoint.device, endpoint.interface))
            if interface is not None:
                extra = {"assigned_object_type": "dcim.interface", "assigned_object_id": interface["id"]}
            wanted_addresses.append((address, f"{MARK} {fabric}: link {label} at {endpoint}", extra))
    for address, description, extra in wanted_addresses:
        body = {"address": address, "status": "active", "description": description, **extra}
        current = addresses.get(address)
        if current is None:
            plan.append(Write("POST", "ipam/ip-addresses", None, body, f"{address} ({description})"))
            continue
        changed = {k: v for k, v in body.items() if _plain(current.get(k)) != v}
        if changed:
            plan.append(Write("PATCH", "ipam/ip-addresses", current["id"], changed,
                              f"{address}: " + ", ".join(f"{k}={v}" for k, v in sorted(changed.items()))))

    vlans = _index(netbox.get("ipam/vlans", []), lambda v: v.get("vid"))
    for network in sorted(snapshot.intent.networks, key=lambda n: n.vlan_id):
        vni = allocations.l2vnis.get(network.name)
        body = {"vid": network.vlan_id, "name": network.name, "status": "active",
                "description": f"{MARK} {fabric}: network {network.name}", "custom_fields": {"vni": vni}}
        plan += _upsert("ipam/vlans", vlans.get(network.vlan_id), body, f"VLAN {network.vlan_id} {network.name} "
                                                                         f"L2VNI {vni}")
    vrfs = _index(netbox.get("ipam/vrfs", []), lambda v: v.get("name"))
    for tenant in sorted(snapshot.intent.tenants, key=lambda t: t.vrf):
        vni = allocations.l3vnis.get(tenant.name)
        body = {"name": tenant.vrf, "description": f"{MARK} {fabric}: tenant {tenant.name}",
                "custom_fields": {"vni": vni}}
        plan += _upsert("ipam/vrfs", vrfs.get(tenant.vrf), body, f"VRF {tenant.vrf} L3VNI {vni}")
    return plan


def _plain(value: Any) -> Any:
    """A NetBox choice ({value, label}) or brief object compares by its value."""
    return value.get("value", value) if isinstance(value, dict) and "value" in value else value


def _upsert(path: str, current: dict | None, body: dict, what: str) -> list[Write]:
    if current is None:
        return [Write("POST", path, None, body, what)]
    changed = {}
    for key, value in body.items():
        if key == "custom_fields":
            custom = {k: v for k, v in value.items() if (current.get("custom_fields") or {}).get(k) != v}
            if custom:
                changed[key] = custom
        elif _plain(current.get(key)) != value:
            changed[key] = value
    return [Write("PATCH", path, current["id"], changed, what)] if changed else []


def netbox_writeback(*, client: NetboxClient, snapshot: core.Snapshot, allocations: core.Allocations,
                     dry_run: bool = True) -> WritebackResult:
    """Plan against what NetBox holds now; apply unless ``dry_run``. Writes stop at the first NetBox refusal
    (NetboxApiError names the object); what was written before it is listed in ``written`` and a rerun
    completes the rest (the plan skips what is already there)."""
    fabric = snapshot.inventory.fabric
    current = {path: client.list(path) for path in ("dcim/devices", "dcim/interfaces", "ipam/ip-addresses",
                                                    "ipam/vlans", "ipam/vrfs")}
    plan = writeback_plan(snapshot=snapshot, allocations=allocations, netbox=current, fabric=fabric)
    result = WritebackResult(plan=plan, applied=not dry_run)
    if dry_run:
        return result
    for write in plan:
        if write.method == "POST":
            client.create(write.path, write.body)
        else:
            client.update(write.path, write.object_id, write.body)
        result.written.append(write.as_dict())
    return result
