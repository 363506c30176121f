"""Border leaves and super-spines (not produced by compiler.clos): allocation, facts and structured config."""

from __future__ import annotations

from dataclasses import replace

from compiler.api import compile_fabric
from compiler.model import Cable, Endpoint, Interface, Role, Snapshot, Switch


def _free_port(inventory, hostname):
    switch = inventory.switches_by_name[hostname]
    return next(i.name for i in switch.interfaces if Endpoint(hostname, i.name) not in inventory.cable_at)


def test_border_is_a_vtep_with_every_tenant_vrf(snapshot):
    switches = tuple(replace(s, role=Role.BORDER) if s.hostname == "leaf4" else s for s in snapshot.inventory.switches)
    result = compile_fabric(Snapshot(replace(snapshot.inventory, switches=switches), snapshot.intent))
    border = result.structured["leaf4"]
    assert border["role"] == "border"
    assert [lo["purpose"] for lo in border["loopbacks"]] == ["router_id", "vtep"]
    assert [vrf["name"] for vrf in border["vrfs"]] == ["TENANT_A", "TENANT_B"]  # B has no network on leaf4
    assert border["vlans"] == []  # networks without a leaf list go on role "leaf" only
    assert border["bgp"]["evpn"]["advertise_all_vni"] is True
    assert 65100 <= border["asn"] <= 65499
    assert "leaf4" in result.facts.vtep_hosts_by_vni[50002]


def test_super_spine_tier(snapshot):
    inventory = snapshot.inventory
    ports = (Interface("Ethernet1", 400), Interface("Ethernet2", 400))
    superspine = Switch("superspine1", Role.SUPER_SPINE, "frr", "generic", interfaces=ports)
    cables = (
        Cable("SS1", Endpoint("spine1", _free_port(inventory, "spine1")), Endpoint("superspine1", "Ethernet1"),
              "smf", 50.0),
        Cable("SS2", Endpoint("superspine1", "Ethernet2"), Endpoint("spine2", _free_port(inventory, "spine2")),
              "smf", 50.0),
    )
    grown = replace(inventory, switches=inventory.switches + (superspine,), cables=inventory.cables + cables)
    result = compile_fabric(Snapshot(grown, snapshot.intent))
    allocations = result.allocations
    assert allocations.asns["superspine1"] == 64999  # RFC 7938: one shared ASN for the top tier
    assert allocations.loopbacks["superspine1"] == "10.0.0.1"  # core tier first
    top = result.structured["superspine1"]
    assert [n["peer_device"] for n in top["bgp"]["neighbors"]] == ["spine1", "spine2"]
    assert top["bgp"]["evpn"] == {"enabled": True, "advertise_all_vni": False} and top["vxlan"] == {}
    uplink = next(i for i in top["interfaces"] if i["name"] == "Ethernet1")
    assert int(uplink["ip"].split("/")[0].split(".")[-1]) % 2 == 0  # upper tier takes the even address
    spine1 = result.structured["spine1"]
    assert any(n["remote_as"] == 64999 for n in spine1["bgp"]["neighbors"])
    assert result.facts.ecmp_width("leaf1", "leaf2") == 2  # leaf ECMP still counts spines only
