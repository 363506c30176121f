"""The only bridge from the intent ORM to the pure core: ``fabric_snapshot(fabric_intent) -> Snapshot``.

Inventory comes from ``inventory.adapters.inventory_snapshot``; the intent, its tenants, networks, RoCE classes
and the stored allocations are read here with a constant number of queries (values() rows and one query per
many-to-many table), so the snapshot of a 1,000-switch fabric is built in well under a second of SQL.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable

from compiler import model as core
from compiler.adopt.carry import CarriedBlock as CoreCarriedBlock
from inventory.adapters import inventory_snapshot

from .choices import AllocationKindChoices
from .models import Allocation, CarriedBlock, FabricIntent, Network, RoceClass, Tenant

P2P_PREFIX_LENGTH = 31  # the allocator hands out /31s only (RFC 3021 point-to-point links)


def snapshot_sha256(snapshot: core.Snapshot) -> str:
    """Digest of everything a compile reads (inventory, intent, allocations): a compile run stores it, and a
    validation of that run's stored configs refuses when the fabric's snapshot no longer has it.

    Inventory and intent are digested through their ``repr``: frozen dataclasses and tuples built by this module
    and ``inventory.adapters`` from ordered queries, so equal content gives equal text (measured: 0.6 s for 272
    switches, 4.8 s for 1,088 switches and 67,584 cables on the loaded 2-core build machine; a JSON walk took
    6x that). Allocations are sorted by key first: the compile's come from the allocator, a later snapshot's
    from the database, in another order."""
    digest = hashlib.sha256()
    digest.update(repr(snapshot.inventory).encode())
    digest.update(repr(snapshot.intent).encode())
    allocations = {item.name: sorted(getattr(snapshot.allocations, item.name).items(), key=lambda pair: str(pair[0]))
                   for item in dataclasses.fields(snapshot.allocations)}
    digest.update(json.dumps(allocations, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def fabric_snapshot(fabric_intent: FabricIntent, *, allocations: core.Allocations | None = None) -> core.Snapshot:
    """The frozen Snapshot of a fabric intent: inventory + intent + stored allocations (or ``allocations``)."""
    inventory = inventory_snapshot(fabric_intent.fabric)
    intent = intent_snapshot(fabric_intent)
    if allocations is None:
        allocations = stored_allocations(fabric_intent)
    return core.Snapshot(inventory=inventory, intent=intent, allocations=allocations)


def intent_snapshot(fabric_intent: FabricIntent) -> core.FabricIntent:
    tenants = tuple(
        core.Tenant(name=row["name"], vrf=row["vrf"], l3vni=row["l3vni"])
        for row in Tenant.objects.filter(fabric_intent=fabric_intent).order_by("name").values("name", "vrf", "l3vni")
    )
    leaves_of: dict[int, list[str]] = defaultdict(list)
    for network_id, hostname in Network.leaves.through.objects.filter(
            network__fabric_intent=fabric_intent).order_by("switch__hostname").values_list(
            "network_id", "switch__hostname"):
        leaves_of[network_id].append(hostname)
    attachments_of: dict[int, list[core.Endpoint]] = defaultdict(list)
    for network_id, server, port in Network.attachments.through.objects.filter(
            network__fabric_intent=fabric_intent).order_by("nicport__server__name", "nicport__name").values_list(
            "network_id", "nicport__server__name", "nicport__name"):
        attachments_of[network_id].append(core.Endpoint(server, port))
    networks = tuple(
        core.Network(name=row["name"], tenant=row["tenant__name"], vlan_id=row["vlan_id"], subnet=row["subnet"],
                     gateway=row["gateway"], l2vni=row["l2vni"], leaves=tuple(leaves_of.get(row["id"], ())),
                     attachments=tuple(attachments_of.get(row["id"], ())))
        for row in Network.objects.filter(fabric_intent=fabric_intent).order_by("vlan_id", "name").values(
            "id", "name", "tenant__name", "vlan_id", "subnet", "gateway", "l2vni")
    )
    roce_classes = tuple(_roce_class(row) for row in RoceClass.objects.filter(
        fabric_intent=fabric_intent).order_by("priority", "name").values())
    return core.FabricIntent(
        name=fabric_intent.name,
        inventory_fabric=fabric_intent.fabric.name,
        underlay=fabric_intent.underlay,
        asn_scheme=fabric_intent.asn_scheme,
        pools=core.Pools(
            loopback=fabric_intent.loopback_pool, vtep=fabric_intent.vtep_pool, p2p=fabric_intent.p2p_pool,
            asn_first=fabric_intent.asn_first, asn_last=fabric_intent.asn_last, spine_asn=fabric_intent.spine_asn,
            l2vni_base=fabric_intent.l2vni_base, l3vni_first=fabric_intent.l3vni_first,
            l3vni_last=fabric_intent.l3vni_last),
        route_target_scheme=fabric_intent.route_target_scheme,
        underlay_mtu=fabric_intent.underlay_mtu,
        host_mtu=fabric_intent.host_mtu,
        bgp=core.BgpPolicy(
            maximum_paths=fabric_intent.bgp_maximum_paths, keepalive_s=fabric_intent.bgp_keepalive_s,
            hold_s=fabric_intent.bgp_hold_s, bfd=fabric_intent.bgp_bfd,
            bfd_interval_ms=fabric_intent.bgp_bfd_interval_ms, bfd_multiplier=fabric_intent.bgp_bfd_multiplier),
        anycast_gateway_mac=fabric_intent.anycast_gateway_mac,
        evpn_overlay=fabric_intent.evpn_overlay,
        ecmp_hashing=core.EcmpHashing(
            tier_hashing=fabric_intent.ecmp_tier_hashing, dest_qp_hashing=fabric_intent.ecmp_dest_qp_hashing,
            dlb=fabric_intent.ecmp_dlb, roles=tuple(fabric_intent.ecmp_roles),
            qps_per_connection=fabric_intent.nccl_qps_per_connection),
        tenants=tenants,
        networks=networks,
        roce_classes=roce_classes,
        management=core.Management(
            network=fabric_intent.management_network, gateway=fabric_intent.management_gateway or None,
            vrf=fabric_intent.management_vrf, ntp_servers=tuple(fabric_intent.ntp_servers),
            syslog_servers=tuple(fabric_intent.syslog_servers), dns_servers=tuple(fabric_intent.dns_servers),
            aaa_servers=tuple(fabric_intent.aaa_servers), aaa_secret_ref=fabric_intent.aaa_secret_ref),
    )


def _roce_class(row: dict) -> core.RoceClass:
    return core.RoceClass(
        name=row["name"], dscp=tuple(row["dscp"]), priority=row["priority"], traffic_class=row["traffic_class"],
        lossless=row["lossless"], ecn_min_kb=row["ecn_min_kb"], ecn_max_kb=row["ecn_max_kb"],
        ecn_mark_probability=row["ecn_mark_probability"], cnp_dscp=row["cnp_dscp"],
        cnp_priority=row["cnp_priority"], pfc_watchdog=row["pfc_watchdog"],
        watchdog_detect_ms=row["watchdog_detect_ms"], watchdog_restore_ms=row["watchdog_restore_ms"],
        headroom_policy=row["headroom_policy"], headroom_bytes=row["headroom_bytes"])


def stored_allocations(fabric_intent: FabricIntent) -> core.Allocations:
    rows = Allocation.objects.filter(fabric_intent=fabric_intent).values_list("kind", "key", "value")
    return allocations_from_rows(rows)


def allocations_from_rows(rows: Iterable[tuple[str, str, str]]) -> core.Allocations:
    """(kind, key, value) rows -> Allocations. Fabric links are stored as two rows, ``<cable>/a`` and ``/b``."""
    kinds = AllocationKindChoices
    asns, loopbacks, vteps, l2vnis, l3vnis = {}, {}, {}, {}, {}
    link_ends: dict[str, dict[str, str]] = defaultdict(dict)
    for kind, key, value in rows:
        if kind == kinds.ASN:
            asns[key] = int(value)
        elif kind == kinds.LOOPBACK:
            loopbacks[key] = value
        elif kind == kinds.VTEP:
            vteps[key] = value
        elif kind == kinds.L2VNI:
            l2vnis[key] = int(value)
        elif kind == kinds.L3VNI:
            l3vnis[key] = int(value)
        elif kind == kinds.P2P:
            label, _, end = key.rpartition("/")
            link_ends[label][end] = f"{value}/{P2P_PREFIX_LENGTH}"
    p2p = {label: (ends["a"], ends["b"]) for label, ends in link_ends.items() if "a" in ends and "b" in ends}
    return core.Allocations(asns=asns, loopbacks=loopbacks, vteps=vteps, p2p=p2p, l2vnis=l2vnis, l3vnis=l3vnis)


def allocation_rows(allocations: core.Allocations) -> dict[tuple[str, str], str]:
    """Allocations -> {(kind, key): value}, the inverse of ``allocations_from_rows``."""
    kinds = AllocationKindChoices
    rows: dict[tuple[str, str], str] = {}
    for key, value in allocations.asns.items():
        rows[(kinds.ASN, key)] = str(value)
    for key, value in allocations.loopbacks.items():
        rows[(kinds.LOOPBACK, key)] = value
    for key, value in allocations.vteps.items():
        rows[(kinds.VTEP, key)] = value
    for label, (a_end, b_end) in allocations.p2p.items():
        rows[(kinds.P2P, f"{label}/a")] = a_end.split("/")[0]
        rows[(kinds.P2P, f"{label}/b")] = b_end.split("/")[0]
    for key, value in allocations.l2vnis.items():
        rows[(kinds.L2VNI, key)] = str(value)
    for key, value in allocations.l3vnis.items():
        rows[(kinds.L3VNI, key)] = str(value)
    return rows


def carried_blocks(fabric_intent: FabricIntent) -> dict[str, list[CoreCarriedBlock]]:
    """The carried lines of an adopted fabric (intents.models.CarriedBlock), per hostname in their order: what a
    compile puts back into each device's own platform rendering (compiler.adopt.carry.with_carried)."""
    out: dict[str, list[CoreCarriedBlock]] = defaultdict(list)
    for row in CarriedBlock.objects.filter(fabric_intent=fabric_intent).order_by("hostname", "position").values(
            "hostname", "target", "kind", "source_file", "source_line", "text", "lines", "parents"):
        out[row["hostname"]].append(CoreCarriedBlock(
            target=row["target"], kind=row["kind"], file=row["source_file"], line=row["source_line"], text=row["text"],
            lines=row["lines"], parents=tuple(row["parents"])))
    return dict(out)
