"""Leaves sharing a rack ASN reach each other only because allowas-in is configured (RFC 4271 loop prevention)."""

import copy

from compiler.api import allocate, compile_fabric
from compiler.clos import ClosParams, plan_clos
from compiler.model import Allocations, AsnScheme, FabricIntent, Network, Snapshot, Tenant
from validators.run import validate_fabric


def _per_rack_compile():
    inventory = plan_clos(ClosParams(spines=2, leaves=4, rails_per_server=2, servers_per_leaf=1))
    intent = FabricIntent(name="rack", inventory_fabric=inventory.fabric, asn_scheme=AsnScheme.PER_RACK,
                          tenants=(Tenant("A", "TENANT_A"),),
                          networks=(Network("net10", "A", 10, "10.10.0.0/24", "10.10.0.1"),))
    return compile_fabric(Snapshot(inventory, intent, allocate(inventory, intent, Allocations())))


def test_rack_mates_share_an_asn_and_accept_each_others_routes():
    result = _per_rack_compile()
    assert result.structured["leaf1"]["asn"] == result.structured["leaf2"]["asn"]
    assert result.structured["leaf1"]["bgp"]["allowas_in"] == 1
    assert result.structured["spine1"]["bgp"]["allowas_in"] == 0
    assert "neighbor UNDERLAY allowas-in 1" in result.rendered["leaf1"]["frr"]["frr.conf"]
    assert "neighbor UNDERLAY allowas-in 1" in result.rendered["leaf1"]["eos"]["startup-config"]
    report = validate_fabric(result, checks=["routing"])
    assert report.ok, report.as_text()


def test_without_allowas_in_rack_mates_cannot_reach_each_other():
    result = _per_rack_compile()
    structured = copy.deepcopy(dict(result.structured))
    structured["leaf2"]["bgp"]["allowas_in"] = 0
    broken = type(result)(snapshot=result.snapshot, facts=result.facts, structured=structured,
                          rendered=result.rendered, hashes=result.hashes)
    report = validate_fabric(broken, checks=["routing.vtep_reachability"])
    assert not report.ok
    assert any("leaf2" in finding.subject and "leaf1" in finding.message for finding in report.findings), \
        report.as_text()
