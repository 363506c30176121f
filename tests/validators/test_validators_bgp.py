"""BGP session compatibility, timers/BFD, router IDs and ASN uniqueness: each passes on a correct compile and
fails, naming the device or link, on one deliberate fault."""

import copy

from validator_fabrics import compiled, context, errors, interface, neighbor, set_asn, subjects

from validators import bgp
from validators.context import FabricContext


def test_correct_fabric_has_every_session_established():
    ctx = context(compiled())
    assert bgp.check_sessions(ctx) == []
    assert bgp.check_timers_bfd(ctx) == []
    assert bgp.check_router_ids(ctx) == []
    assert bgp.check_asns(ctx) == []
    assert len(ctx.sessions.established) == 4 * 6  # one session per leaf-spine cable


def test_shut_interface_takes_the_session_down():
    def shut(structured):
        interface(structured, "leaf2", peer="spine3")["enabled"] = False

    ctx = context(compiled(), shut)
    port = interface(ctx.structured, "leaf2", peer="spine3")
    findings = bgp.check_sessions(ctx)
    assert len(findings) == 1
    assert findings[0].subject == f"leaf2:{port['name']}<->spine3:{port['peer_interface']}"
    assert "shut down" in findings[0].message
    assert len(ctx.sessions.established) == 23


def test_wrong_remote_as_on_one_end():
    def wrong(structured):
        neighbor(structured, "spine1", "leaf4")["remote_as"] = 65999

    findings = bgp.check_sessions(context(compiled(), wrong))
    assert len(findings) == 1
    assert "spine1 expects leaf4 in AS 65999" in findings[0].message
    assert findings[0].expected != findings[0].actual


def test_one_sided_neighbor():
    def drop(structured):
        structured["spine2"]["bgp"]["neighbors"] = [n for n in structured["spine2"]["bgp"]["neighbors"]
                                                    if n["peer_device"] != "leaf5"]

    findings = bgp.check_sessions(context(compiled(), drop))
    assert len(findings) == 1
    assert findings[0].subject.startswith("leaf5:")
    assert "one-sided" in findings[0].message and "spine2" in findings[0].message


def test_dangling_neighbor_address():
    def readdress(structured):
        # spine1's end of the leaf1 link moves to another /31: leaf1's neighbor address now belongs to nobody
        interface(structured, "spine1", peer="leaf1")["ip"] = "10.99.0.0/31"

    findings = errors(bgp.check_sessions(context(compiled(), readdress)))
    messages = " | ".join(f.message for f in findings)
    assert any(f.subject.startswith("leaf1:") and "dangling" in f.message for f in findings), messages
    assert any(f.subject.startswith("spine1:") and "not in the interface subnet" in f.message for f in findings)


def test_address_family_mismatch_is_reported():
    def drop_evpn(structured):
        neighbor(structured, "leaf3", "spine2")["address_families"] = ["ipv4_unicast"]

    findings = bgp.check_sessions(context(compiled(), drop_evpn))
    assert len(findings) == 1 and "l2vpn_evpn" in findings[0].message
    assert "leaf3" in findings[0].subject and "spine2" in findings[0].subject


def test_bfd_on_one_end_and_timer_mismatch():
    def bfd_off(structured):
        neighbor(structured, "spine4", "leaf6")["bfd"] = False
        structured["leaf1"]["bgp"]["hold_s"] = 90

    findings = bgp.check_timers_bfd(context(compiled(), bfd_off))
    bfd = [f for f in findings if "BFD" in f.message]
    timers = [f for f in findings if "keepalive/hold" in f.message]
    assert len(bfd) == 1 and bfd[0].severity == "error" and "leaf6" in bfd[0].subject
    assert len(timers) == 4 and all(f.severity == "warning" and "leaf1" in f.subject for f in timers)


def test_duplicate_router_id():
    def clash(structured):
        structured["leaf6"]["bgp"]["router_id"] = structured["leaf5"]["bgp"]["router_id"]

    findings = bgp.check_router_ids(context(compiled(), clash))
    assert sorted(subjects(findings)) == ["leaf5", "leaf6"]


def test_asn_reuse_between_leaves_fails_under_per_leaf():
    def collide(structured):
        set_asn(structured, "leaf4", structured["leaf2"]["asn"])

    ctx = context(compiled(), collide)
    assert bgp.check_sessions(ctx) == []  # consistent renumbering: sessions still come up
    findings = bgp.check_asns(ctx)
    assert sorted(subjects(findings)) == ["leaf2", "leaf4"]
    assert "loop prevention" in findings[0].message


def test_per_rack_scheme_allows_leaves_of_one_rack_to_share():
    result = compiled(spines=2, leaves=4, rails_per_server=2, asn_scheme="per_rack")
    ctx = context(result)
    assert ctx.structured["leaf1"]["asn"] == ctx.structured["leaf2"]["asn"]
    assert bgp.check_asns(ctx) == []

    def cross_rack(structured):
        set_asn(structured, "leaf3", structured["leaf1"]["asn"])

    findings = bgp.check_asns(context(result, cross_rack))
    assert "leaf3" in subjects(findings)


def test_leaf_using_the_spine_asn():
    def core(structured):
        set_asn(structured, "leaf2", structured["spine1"]["asn"])

    findings = bgp.check_asns(context(compiled(), core))
    assert "leaf2" in subjects(findings)


def test_unnumbered_underlay_pairs_on_the_cable():
    import dataclasses

    from validator_fabrics import intent_for

    from compiler.api import compile_fabric
    from compiler.clos import ClosParams, plan_clos
    from compiler.model import Snapshot

    inventory = plan_clos(ClosParams(name="unnumbered", spines=2, leaves=3, platform="frr"))
    result = compile_fabric(Snapshot(inventory, dataclasses.replace(intent_for(inventory), underlay="unnumbered")))
    ctx = context(result)
    assert bgp.check_sessions(ctx) == [] and len(ctx.sessions.established) == 6
    assert neighbor(ctx.structured, "leaf1", "spine1")["address"] is None

    def drop(structured):
        structured["spine2"]["bgp"]["neighbors"] = [n for n in structured["spine2"]["bgp"]["neighbors"]
                                                    if n["peer_device"] != "leaf3"]

    findings = bgp.check_sessions(context(result, drop))
    assert len(findings) == 1 and "one-sided" in findings[0].message and findings[0].subject.startswith("leaf3:")


def test_per_rack_asns_with_allowas_in_are_recognised_from_configs_alone():
    """Without the intent (validate --configs without --fabric) leaves that share an ASN and each accept it back
    with allowas-in are one rack pair, not a collision (issue #27); one of them without allowas-in is."""
    result = compiled(asn_scheme="per_rack", rails_per_server=2)  # two leaves per rack share its ASN
    shared = [host for host, config in result.structured.items() if config["bgp"]["allowas_in"]]
    assert len(shared) >= 2  # the fixture really shares ASNs
    configs_only = FabricContext(copy.deepcopy(dict(result.structured)))
    assert bgp.check_asns(configs_only) == []
    structured = copy.deepcopy(dict(result.structured))
    structured[shared[0]]["bgp"]["allowas_in"] = 0
    findings = bgp.check_asns(FabricContext(structured))
    assert shared[0] in {f.subject for f in findings} and {f.severity for f in findings} == {"error"}


def test_devices_of_one_as_collide_until_ibgp_joins_them():
    """From configs alone (no intent), two leaves given one ASN collide; iBGP statements between them make them one
    AS by design (a route-reflector or MLAG-peer design, validators.bgp.ibgp_domains)."""
    structured = copy.deepcopy(dict(compiled(spines=2, leaves=3, roce=False).structured))
    set_asn(structured, "leaf2", structured["leaf1"]["asn"])
    assert {f.subject for f in bgp.check_asns(FabricContext(structured))} == {"leaf1", "leaf2"}
    loopbacks = {host: structured[host]["loopbacks"][0]["ip"].split("/")[0] for host in ("leaf1", "leaf2")}
    for host, peer in (("leaf1", "leaf2"), ("leaf2", "leaf1")):
        structured[host]["bgp"]["neighbors"].append({
            "address": loopbacks[peer], "interface": "Loopback0", "remote_as": structured[host]["asn"],
            "peer_device": peer, "peer_interface": "Loopback0", "peer_group": "", "address_families": ["l2vpn_evpn"],
            "description": "", "update_source": "Loopback0"})
    assert bgp.check_asns(FabricContext(structured)) == []
