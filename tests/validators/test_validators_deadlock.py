"""roce.deadlock: planted buffer-dependency cycles are found, fabrics the project builds get a certificate.

Each planted case starts from a correct compile and changes what a hand edit would (an ASN, allowas-in, a static
route, an export policy, PFC on one port); the finding must name the cycle, the failure set and a remedy.
"""

from __future__ import annotations

import pytest
from test_validators_clos5 import five_stage
from validator_fabrics import compiled, context, interface

from validators import deadlock
from validators.run import validate_fabric

SAMPLE = 200  # random N-3/N-4 link sets in the tests (the check itself samples deadlock.SAMPLE_SIZE)


def renumber(hosts: list[str], asns: list[int]):
    """Give ``hosts`` the ASNs ``asns`` and fix every neighbor's remote-as towards them."""
    def mutate(structured):
        for host, asn in zip(hosts, asns, strict=True):
            structured[host]["bgp"]["asn"] = asn
            structured[host]["asn"] = asn
        for config in structured.values():
            for neighbor in config["bgp"]["neighbors"]:
                peer = structured.get(neighbor["peer_device"])
                if peer is not None:
                    neighbor["remote_as"] = peer["bgp"]["asn"]
    return mutate


def unique_spines(structured):
    spines = sorted(host for host, config in structured.items() if config["role"] == "spine")
    renumber(spines, [65000 + i for i in range(len(spines))])(structured)


def chain(*mutations):
    def mutate(structured):
        for mutation in mutations:
            mutation(structured)
    return mutate


def static(host, prefix, peer):
    """A static route on ``host`` for ``prefix`` via ``peer``'s address on their link."""
    def mutate(structured):
        hop = interface(structured, peer, peer=host)["ip"].split("/")[0]
        structured[host].setdefault("static_routes", []).append({"prefix": prefix, "next_hop": hop})
    return mutate


def pfc_off(host, peer, priority=3):
    def mutate(structured):
        for end, other in ((host, peer), (peer, host)):
            port = interface(structured, end, peer=other)
            port["qos"]["pfc_priorities"] = [p for p in port["qos"].get("pfc_priorities", []) if p != priority]
    return mutate


def no_policy(structured):
    for config in structured.values():
        config["bgp"].pop("route_maps", None)
        for neighbor in config["bgp"]["neighbors"]:
            neighbor.pop("route_map_out", None)


def analyse(result, mutate=None, **options):
    ctx = context(result, mutate)
    return deadlock.build_network(ctx), deadlock.analyse(ctx, sample=SAMPLE, **options)


def cycle_text(net, result):
    return [(cycle.scenario.describe(net), deadlock.describe_cycle(net, cycle)) for cycle in result.cycles]


# --------------------------------------------------------------------------------------------- planted cycles


def test_four_switch_bounce_unique_spine_asns_and_a_leaf_spine_failure():
    net, result = analyse(compiled(spines=2, leaves=2), unique_spines)
    assert result.method == "enumeration"
    assert any("more than one ASN" in reason for reason in result.proof.reasons)
    found = cycle_text(net, result)
    # leaf1-spine1 down: spine1 now reaches leaf1 through leaf2 and spine2, while leaf2 still sends leaf1's traffic
    # to spine1 -- the two buffers leaf2->spine1 and spine1->leaf2 wait on each other (HotNets 2016, figure 2).
    bounce = [cycle for cycle in result.cycles if cycle.scenario.describe(net).startswith("leaf1:")
              and "<->spine1:" in cycle.scenario.describe(net)]
    assert bounce, found
    assert [hop[0] for hop in deadlock.hops(net, bounce[0])] in (["leaf2", "spine1"], ["spine1", "leaf2"])
    assert all(cycle.scenario.kind != "baseline" for cycle in result.cycles)  # no cycle without a failure


def test_fat_tree_with_two_failed_links_has_a_longer_cycle():
    net, result = analyse(compiled(spines=2, leaves=3), unique_spines, stop_early=False)
    # leaf1-spine1 and leaf2-spine2 down: leaf3 bounces leaf1's traffic for spine1 and leaf2's for spine2, and
    # the two bounces join into one strongly connected set across both spines (HotNets 2016, figure 3).
    two = [cycle for cycle in result.cycles if len(cycle.scenario.dead_links) == 4
           and {net.links[p].device for p in cycle.component} >= {net.names.index("spine1"), net.names.index("spine2")}]
    assert two, cycle_text(net, result)
    assert len(two[0].component) == 4 and len(two[0].links) == 2  # the shortest cycle of the set is reported


def test_shared_spine_asn_is_the_remedy():
    net, result = analyse(compiled(spines=2, leaves=3))
    assert result.method == "proof" and result.proof.holds
    # The certificate by rule agrees with enumerating every scenario.
    _, enumerated = analyse(compiled(spines=2, leaves=3), enumerate_always=True)
    assert enumerated.cycles == [] and enumerated.scenarios_examined == enumerated.scenarios_total > 20


def test_allowas_in_on_the_spines_of_a_five_stage_fabric():
    # Pod spines that take back their own ASN learn their pod's leaves from the super-spines: a mixed-state valley.
    def allowas(structured):
        for config in structured.values():
            if config["role"] == "spine":
                config["bgp"]["allowas_in"] = 1
    net, result = analyse(five_stage(), chain(no_policy, allowas))
    assert not result.proof.holds and result.cycles, result.proof
    assert "allowas-in" in " ".join(deadlock.remediations(net, result))


def test_allowas_in_on_leaves_under_one_spine_asn_is_certified():
    # Leaves sharing one ASN need allowas-in to hear each other; the spines' shared ASN still stops every valley.
    def same_leaf_asn(structured):
        leaves = sorted(h for h, c in structured.items() if c["role"] == "leaf")
        renumber(leaves, [65100] * len(leaves))(structured)
        for host in leaves:
            structured[host]["bgp"]["allowas_in"] = 1
    net, result = analyse(compiled(spines=2, leaves=3), same_leaf_asn, enumerate_always=True)
    assert result.proof.holds and result.cycles == []


def test_allowas_in_on_leaves_with_unique_spine_asns_is_found():
    def same_leaf_asn(structured):
        leaves = sorted(h for h, c in structured.items() if c["role"] == "leaf")
        renumber(leaves, [65100] * len(leaves))(structured)
        for host in leaves:
            structured[host]["bgp"]["allowas_in"] = 1
    net, result = analyse(compiled(spines=2, leaves=3), chain(unique_spines, same_leaf_asn))
    assert result.cycles
    advice = " ".join(deadlock.remediations(net, result))
    assert "allowas-in on leaf1" in advice and "one ASN" in advice


def test_static_default_up_at_a_spine_meets_a_spine_aggregate_down():
    mutate = chain(static("leaf1", "0.0.0.0/0", "spine1"), static("spine1", "10.77.0.0/16", "leaf1"))
    net, result = analyse(compiled(spines=2, leaves=2), mutate)
    assert any(reason.startswith("static routes") for reason in result.proof.reasons)
    baseline = [cycle for cycle in result.cycles if cycle.scenario.kind == "baseline"]
    assert baseline and set(baseline[0].reasons) == {"10.77.0.0/16"}
    assert sorted(hop[0] for hop in deadlock.hops(net, baseline[0])) == ["leaf1", "spine1"]


def test_routing_loop_from_a_bad_static_route():
    # spine1 sends 10.88.0.0/16 to leaf2, leaf2 sends it to spine2, spine2 back to leaf1, leaf1 to spine1.
    mutate = chain(static("spine1", "10.88.0.0/16", "leaf2"), static("leaf2", "10.88.0.0/16", "spine2"),
                   static("spine2", "10.88.0.0/16", "leaf1"), static("leaf1", "10.88.0.0/16", "spine1"))
    net, result = analyse(compiled(spines=2, leaves=2), mutate)
    baseline = [cycle for cycle in result.cycles if cycle.scenario.kind == "baseline"]
    assert baseline and len(baseline[0].links) == 4
    assert {hop[0] for hop in deadlock.hops(net, baseline[0])} == {"spine1", "leaf2", "spine2", "leaf1"}


def test_five_stage_renumbered_spine_without_valley_free_policy_and_a_super_spine_link_failure():
    renumbered = renumber(["pod1-spine2"], [65010])
    net, result = analyse(five_stage(), chain(no_policy, renumbered))
    assert result.cycles, result.proof
    failures = {cycle.scenario.describe(net) for cycle in result.cycles}
    assert any("superspine" in failure for failure in failures), failures
    # The valley-free export policy alone closes it again (nothing learned from the core goes back up).
    net, kept = analyse(five_stage(), renumbered, enumerate_always=True)
    assert kept.cycles == [], cycle_text(net, kept)


def test_pfc_off_on_the_bounce_link_is_not_a_cycle():
    # The 4-switch bounce, but leaf2<->spine1 drops priority 3 instead of pausing it: no buffer waits there.
    net, result = analyse(compiled(spines=2, leaves=2), chain(unique_spines, pfc_off("leaf2", "spine1"),
                                                              pfc_off("leaf1", "spine1")))
    assert all("spine1" not in deadlock.describe_cycle(net, cycle) for cycle in result.cycles), cycle_text(net, result)


def test_same_seed_same_findings():
    first = analyse(compiled(spines=2, leaves=3), unique_spines)
    second = analyse(compiled(spines=2, leaves=3), unique_spines)
    assert cycle_text(*first) == cycle_text(*second)


# --------------------------------------------------------------------------------------------- the check


@pytest.mark.parametrize("build", [
    lambda: compiled(spines=4, leaves=6),
    lambda: compiled(spines=2, leaves=4, uplinks_per_spine=2),
    lambda: compiled(spines=2, leaves=2),
    lambda: five_stage(),
    lambda: five_stage(pods=3, spines=2, leaves=2, super_spines_per_plane=2),
], ids=["4x6", "2x4-double-uplinks", "2x2", "5-stage", "5-stage-3-pods"])
def test_every_fabric_the_project_builds_gets_a_certificate(build):
    report = validate_fabric(build(), checks=[deadlock.CHECK])
    result = report.checks[deadlock.CHECK]
    assert result.status == "passed", [f.message for f in result.findings]
    assert any("certificate" in finding.message for finding in result.findings)
    assert result.examined["lossless priorities"] == 1


def test_check_fails_with_the_cycle_and_a_tag_plan():
    ctx = context(compiled(spines=2, leaves=3), unique_spines)
    report = validate_fabric(ctx, checks=[deadlock.CHECK])
    result = report.checks[deadlock.CHECK]
    assert result.status == "failed"
    errors = [finding for finding in result.findings if finding.severity == "error"]
    assert errors and "priority 3" in errors[0].message and "down" in errors[0].message
    assert "Tagger" in errors[0].message and "2 lossless priorities" in errors[0].message
    assert errors[0].actual["hops"][0]["switch"]


def test_no_pfc_anywhere_is_skipped_not_passed():
    def no_pfc(structured):
        for config in structured.values():
            for port in config["interfaces"]:
                port["qos"]["pfc_priorities"] = []
    report = validate_fabric(context(compiled(spines=2, leaves=2), no_pfc), checks=[deadlock.CHECK])
    assert report.checks[deadlock.CHECK].status == "skipped"


def test_as_path_regex_boundaries():
    leaf_out = [{"seq": 10, "action": "permit", "as_path": "^$"}]
    assert deadlock.exports(leaf_out, ()) and not deadlock.exports(leaf_out, (65000,))
    spine_up = [{"seq": 10, "action": "deny", "as_path": "_64999_"}, {"seq": 20, "action": "permit", "as_path": None}]
    assert not deadlock.exports(spine_up, (64999, 65001)) and not deadlock.exports(spine_up, (65001, 64999))
    assert deadlock.exports(spine_up, (649990,)) and deadlock.exports(spine_up, (65100,))
    assert not deadlock.exports([], (65100,))  # an empty route map denies everything


def test_too_large_to_enumerate_is_skipped_with_the_reason(monkeypatch):
    monkeypatch.setattr(deadlock, "WORK_LIMIT", 10)
    report = validate_fabric(context(compiled(spines=2, leaves=3), unique_spines), checks=[deadlock.CHECK])
    result = report.checks[deadlock.CHECK]
    assert result.status == "skipped" and "no certificate" in result.reason and "more than one ASN" in result.reason


def test_the_topology_page_colours_every_link_of_the_cycle():
    from ui.svg import link_health  # pure SVG module (no Django imports)
    result = compiled(spines=2, leaves=3)
    report = validate_fabric(context(result, unique_spines), checks=[deadlock.CHECK])
    error = next(f for f in report.checks[deadlock.CHECK].findings if f.severity == "error")
    health = link_health(result.snapshot.inventory, [error])
    red = {key for key, state in health.links.items() if state == "error"}
    expected = {tuple(sorted((hop["switch"], nxt["switch"])))
                for hop, nxt in zip(error.actual["hops"], error.actual["hops"][1:] + error.actual["hops"][:1], strict=True)}
    assert red == expected and red, (red, error.subject)


def test_found_on_configs_as_text():
    """The read-any-config path: EOS text of a fabric with one ASN per spine, parsed back by validate --configs."""
    from compiler.api import render_configs
    from validators.configs import validate_configs

    structured = context(compiled(spines=2, leaves=3), unique_spines).structured
    rendered, _hashes = render_configs(structured, ["eos"])
    files = {host: dict(platforms["eos"]) for host, platforms in rendered.items()}
    validation = validate_configs(files, checks=[deadlock.CHECK])
    result = validation.report.checks[deadlock.CHECK]
    assert result.status == "failed", (result.status, result.reason)
    assert any("leaf" in f.subject and f.severity == "error" for f in result.findings)
    # the same text with one spine ASN again: a certificate
    rendered, _hashes = render_configs(context(compiled(spines=2, leaves=3)).structured, ["eos"])
    files = {host: dict(platforms["eos"]) for host, platforms in rendered.items()}
    result = validate_configs(files, checks=[deadlock.CHECK]).report.checks[deadlock.CHECK]
    assert result.status == "passed", (result.status, result.reason)
    assert not [f for f in result.findings if f.severity == "error"]


def trunk_uplinks(vlan=10, stp="none"):
    """The server VLAN bridged onto every leaf-spine link (an L2 fabric by mistake), spanning tree as given."""
    def mutate(structured):
        for config in structured.values():
            config["spanning_tree"] = {"mode": stp}
            for port in config["interfaces"]:
                if port["kind"] == "fabric":
                    port["switchport_mode"] = "trunk"
                    port["trunk_vlans"] = [vlan]
    return mutate


def test_a_flooded_lossless_vlan_over_a_layer2_loop():
    net, result = analyse(compiled(spines=2, leaves=2), trunk_uplinks())
    assert any("bridged over inter-switch links" in reason for reason in result.proof.reasons)
    # VLAN 10 is also VXLAN-mapped on the leaves: the shortest loop goes out by head-end replication and comes
    # back over the trunks (leaf1 -> spine -> leaf2 decapsulates, floods up, the spine bridges it to leaf1)
    flooded = [cycle for cycle in result.cycles if cycle.scenario.kind == "baseline"
               and any(reason.startswith(("flooding of VLAN 10", "head-end replication of VLAN 10",
                                          "VXLAN decapsulation of VNI")) for reason in cycle.reasons)]
    assert flooded, cycle_text(net, result)
    assert {"leaf1", "leaf2"} <= {hop[0] for hop in deadlock.hops(net, flooded[0])}
    report = validate_fabric(context(compiled(spines=2, leaves=2), trunk_uplinks()), checks=[deadlock.CHECK])
    errors = [f for f in report.checks[deadlock.CHECK].findings if f.severity == "error"]
    assert errors and any("prune them" in f.message for f in errors)


def test_a_flooded_loop_under_spanning_tree_is_a_warning():
    # VLAN 99 is mapped to no VNI: a pure L2 loop, which spanning tree may block
    report = validate_fabric(context(compiled(spines=2, leaves=2), trunk_uplinks(vlan=99, stp="mstp")),
                             checks=[deadlock.CHECK])
    findings = report.checks[deadlock.CHECK].findings
    flood = [f for f in findings if "spanning tree on" in f.message]
    assert flood and all(f.severity == "warning" for f in flood)
    # VLAN 10 is also VXLAN-mapped: spanning tree does not run over the tunnels, so those loops stay errors
    report = validate_fabric(context(compiled(spines=2, leaves=2), trunk_uplinks(stp="mstp")), checks=[deadlock.CHECK])
    tunnelled = [f for f in report.checks[deadlock.CHECK].findings if isinstance(f.actual, dict)
                 and any(reason.startswith("head-end replication") for reason in f.actual["destinations"])]
    assert tunnelled and all(f.severity == "error" and "spanning tree on" not in f.message for f in tunnelled)


def test_a_vlan_on_one_leaf_spine_pair_only_is_no_loop():
    def one_link(structured):
        for host, peer in (("leaf1", "spine1"), ("spine1", "leaf1")):
            port = interface(structured, host, peer=peer)
            port["switchport_mode"], port["trunk_vlans"] = "trunk", [10]
    net, result = analyse(compiled(spines=2, leaves=2), one_link)
    assert not any(reason.startswith("flooding") for cycle in result.cycles for reason in cycle.reasons)


def mlag_bowtie(without_mlag_id: tuple[str, ...] = (), stp: str = "none"):
    """Leaves 1-2 and spines 1-2 as two MLAG pairs (peer-links Port-Channel47 on Ethernet47, PFC on priority 3 like
    every fabric port), VLAN 10 bridged over one dual-attached Port-Channel1 (MLAG 1) from each pair to the other:
    the AVD L2LS shape (tests/data/avd_l2), which has no VTEPs: the compile's VXLAN mappings are dropped (VLAN 10
    both trunked on the uplinks and mapped to a VNI is a VXLAN loop, test_a_flooded_lossless_vlan_over_a_layer2_loop).
    ``without_mlag_id``: switches whose Port-Channel1 lacks ``mlag 1``."""
    pairs = {"leaf1": ("leaf2", "192.168.0.0/31", "192.168.0.1"), "leaf2": ("leaf1", "192.168.0.1/31", "192.168.0.0"),
             "spine1": ("spine2", "192.168.1.0/31", "192.168.1.1"),
             "spine2": ("spine1", "192.168.1.1/31", "192.168.1.0")}

    def mutate(structured):
        for host, (peer, own, peer_address) in pairs.items():
            config = structured[host]
            config["spanning_tree"] = {"mode": stp}
            config["vxlan"] = {}
            fabric = [port for port in config["interfaces"] if port["kind"] == "fabric"]
            for port in fabric:
                port["port_channel"] = "Port-Channel1"
            peer_link = dict(fabric[0], name="Ethernet47", kind="peer_link", peer_device=peer,
                             peer_interface="Ethernet47", port_channel="Port-Channel47", ip=None)
            config["interfaces"].append(peer_link)
            bundle = {"name": "Port-Channel1", "members": [port["name"] for port in fabric], "enabled": True, "ip": None,
                      "switchport_mode": "trunk", "trunk_vlans": [10], "access_vlan": None, "trunk_groups": [],
                      "mlag": None if host in without_mlag_id else 1, "qos": {}}
            config["port_channels"] = [bundle, dict(bundle, name="Port-Channel47", members=["Ethernet47"],
                                                    trunk_vlans=[], mlag=None)]
            config["mlag"] = {"domain_id": peer[:-1], "local_interface": "Vlan4094", "peer_address": peer_address,
                              "peer_link": "Port-Channel47"}
            config["vlans"] = list(config.get("vlans") or ()) + [{"id": 4094, "name": "MLAG", "vrf": None, "svi": {"address": own},
                                                                  "trunk_groups": ["MLAG"]}]
    return mutate


def _link(net, host, peer):
    index = {name: position for position, name in enumerate(net.names)}
    return next(position for position, link in enumerate(net.links)
                if link.device == index[host] and link.peer == index[peer]
                and (link.interface == "Ethernet47") == (host[:-1] == peer[:-1]))


def test_a_correct_mlag_pair_with_a_lossless_peer_link_is_certified():
    """MLAG's rule (nothing from the peer-link out of a dual-attached port while the peer's side is up) keeps the
    bow-tie acyclic in every failure set; the peer-link edge appears once the peer's members are down."""
    result = compiled(spines=2, leaves=2)
    net, verdict = analyse(result, mlag_bowtie(), stop_early=False)
    assert verdict.method == "enumeration" and verdict.cycles == [], cycle_text(net, verdict)
    assert verdict.scenarios_examined == verdict.scenarios_total  # every N-1 and N-2 link set, all examined
    peer_link, to_spine = _link(net, "leaf1", "leaf2"), _link(net, "leaf2", "spine1")
    assert {peer_link, to_spine} <= net.lossless[3] and peer_link in net.peer_links
    baseline = deadlock.build_graph(net, [deadlock.forwarding(net)], net.lossless[3])
    assert to_spine not in baseline.edges.get(peer_link, ())  # steady state: the peer-link carries no data out
    dead = deadlock._both(net, _link(net, "leaf1", "spine1")) | deadlock._both(net, _link(net, "leaf1", "spine2"))
    failed = deadlock.build_graph(net, [deadlock.forwarding(net, dead)], net.lossless[3] - dead, dead)
    assert to_spine in failed.edges[peer_link]  # leaf1's Port-Channel1 down: its traffic crosses the peer-link
    assert failed.reasons[(peer_link, to_spine)] == ("flooding of VLAN 10 over the MLAG peer-link, leaf1's members "
                                                      "of Port-Channel1 down")
    report = validate_fabric(context(result, mlag_bowtie()), checks=[deadlock.CHECK])
    findings = report.checks[deadlock.CHECK].findings
    assert report.checks[deadlock.CHECK].status == "passed", [f.message for f in findings]
    assert not [f for f in findings if f.severity != "info"]


def test_an_mlag_peer_link_closing_a_loop_through_a_port_channel_without_its_mlag_id():
    """Planted: leaf2's Port-Channel1 lacks ``mlag 1`` (mlag.peers flags the line): the pair's uplinks are two
    independent bundles, and the lossless peer-link closes a cycle through them and the spines' peer-link."""
    result = compiled(spines=2, leaves=2)
    net, verdict = analyse(result, mlag_bowtie(without_mlag_id=("leaf2",)))
    crossing = [cycle for cycle in verdict.cycles if cycle.scenario.kind == "baseline"
                and set(cycle.links) & net.peer_links]
    assert crossing, cycle_text(net, verdict)
    assert any(hop[1] == "Ethernet47" or hop[2] == "Ethernet47" for hop in deadlock.hops(net, crossing[0]))
    report = validate_fabric(context(result, mlag_bowtie(without_mlag_id=("leaf2",))), checks=[deadlock.CHECK])
    errors = [f for f in report.checks[deadlock.CHECK].findings if f.severity == "error"]
    assert errors and any("same MLAG id on both peers" in f.message for f in errors)


# --------------------------------------------------------------------------------------------- VXLAN flooding


def vtep_cross_link(mlag: bool = False, vlan: int = 10):
    """An L2 link Ethernet48 between leaf1 and leaf2 (two VTEPs of VLAN 10's VNI 10010) bridging ``vlan``, PFC on
    priority 3 like every fabric port. ``mlag``: it is the pair's MLAG peer-link (Port-Channel47, peer SVIs on VLAN
    4094), as an EVPN fabric with MLAG leaves has it."""
    ends = (("leaf1", "leaf2", "192.168.0.0/31", "192.168.0.1"), ("leaf2", "leaf1", "192.168.0.1/31", "192.168.0.0"))

    def mutate(structured):
        for host, peer, own, peer_address in ends:
            config = structured[host]
            fabric = next(port for port in config["interfaces"] if port["kind"] == "fabric")
            config["interfaces"].append(dict(fabric, name="Ethernet48", peer_device=peer, peer_interface="Ethernet48",
                                             ip=None, switchport_mode="trunk", trunk_vlans=[vlan], access_vlan=None,
                                             **({"kind": "peer_link", "port_channel": "Port-Channel47"} if mlag else {})))
            if not mlag:
                continue
            config["port_channels"] = list(config.get("port_channels") or ()) + [
                {"name": "Port-Channel47", "members": ["Ethernet48"], "enabled": True, "ip": None,
                 "switchport_mode": "trunk", "trunk_vlans": [vlan], "access_vlan": None, "trunk_groups": [],
                 "mlag": None, "qos": {}}]
            config["mlag"] = {"domain_id": "leaf", "local_interface": "Vlan4094", "peer_address": peer_address,
                              "peer_link": "Port-Channel47"}
            config["vlans"] = list(config.get("vlans") or ()) + [
                {"id": 4094, "name": "MLAG", "vrf": None, "svi": {"address": own}, "trunk_groups": ["MLAG"]}]
    return mutate


def test_a_lossless_vni_flooded_over_an_l2_link_between_two_vteps():
    """Planted (issue 33, a flooded lossless VNI): leaf2 floods a BUM frame of VLAN 10 over the L2 link to leaf1,
    which head-end replicates it to leaf2's VTEP through a spine; leaf2 decapsulates it and floods it over the
    link again. The three links form a cycle no AS-path rule sees, and nothing else in the fabric bridges."""
    result = compiled(spines=2, leaves=2)
    net, verdict = analyse(result, vtep_cross_link())
    assert not net.flood  # each leaf has one L2 link: no L2 flooding loop, only the VXLAN one
    assert verdict.method == "enumeration"
    assert any("head-end replication is not bound" in reason for reason in verdict.proof.reasons)
    replicated = [cycle for cycle in verdict.cycles if cycle.scenario.kind == "baseline"
                  and "head-end replication of VLAN 10 (VNI 10010) to leaf2's VTEP" in cycle.reasons]
    assert replicated, cycle_text(net, verdict)
    cycle = min(replicated, key=lambda cycle: len(cycle.links))
    assert len(cycle.links) == 3 and "VXLAN decapsulation of VNI 10010 flooded into VLAN 10" in cycle.reasons
    hops = deadlock.hops(net, cycle)
    assert {hop[0] for hop in hops} == {"leaf1", "leaf2"} | {hop[0] for hop in hops if hop[0].startswith("spine")}
    assert any("Ethernet48" in (hop[1], hop[2]) for hop in hops)
    report = validate_fabric(context(result, vtep_cross_link()), checks=[deadlock.CHECK])
    errors = [f for f in report.checks[deadlock.CHECK].findings if f.severity == "error"]
    assert errors and all("remove the L2 link between VTEPs" in f.message for f in errors)


def test_a_lossless_vni_flooded_between_vteps_is_no_cycle():
    """No false positive: the same VNI flooded by head-end replication between every leaf, over a lossless
    underlay, is certified (split horizon: a VTEP never replicates what it decapsulated); so is the L2 link when it
    is the MLAG peer-link (a peer does not replicate what crosses it), although decapsulated frames do cross it."""
    result = compiled(spines=2, leaves=2)
    net, verdict = analyse(result)
    assert verdict.method == "proof" and verdict.cycles == []
    net, verdict = analyse(result, vtep_cross_link(mlag=True), stop_early=False)
    assert verdict.method == "enumeration" and verdict.cycles == [], cycle_text(net, verdict)
    assert verdict.scenarios_examined == verdict.scenarios_total
    leaf1 = next(flood for flood in net.vni_floods if net.names[flood.device] == "leaf1" and flood.vlan == 10)
    assert leaf1.local_out and not leaf1.local_in  # decapsulated onto the peer-link; never replicated from it
    graph = deadlock.build_graph(net, [deadlock.forwarding(net)], net.lossless[3])
    assert any(reason.startswith("VXLAN decapsulation of VNI 10010") for reason in graph.reasons.values())
    assert not any(reason.startswith("head-end replication") for reason in graph.reasons.values())
    report = validate_fabric(context(result, vtep_cross_link(mlag=True)), checks=[deadlock.CHECK])
    assert not [f for f in report.checks[deadlock.CHECK].findings if f.severity == "error"]


def test_a_vxlan_replication_loop_found_on_configs_as_text():
    """The read-any-config path: the EOS text of a correct fabric with an unused port of each leaf turned into a
    lossless trunk of VLAN 10 between them (the VLAN is VXLAN-mapped to VNI 10010 on both), parsed back by
    validate --configs: the replication cycle through the trunk is found."""
    from compiler.api import render_configs
    from validators.configs import validate_configs

    rendered, _hashes = render_configs(context(compiled(spines=2, leaves=2)).structured, ["eos"])
    files = {host: dict(platforms["eos"]) for host, platforms in rendered.items()}
    unused = "interface Ethernet50/1\n   shutdown\n   mtu 9214\n   speed 400g-8\n!\n"
    for host, peer in (("leaf1", "leaf2"), ("leaf2", "leaf1")):
        name = next(iter(files[host]))
        assert unused in files[host][name]
        files[host][name] = files[host][name].replace(unused, (
            f"interface Ethernet50/1\n   description P2P {peer} Ethernet50/1\n   no shutdown\n   mtu 9214\n"
            "   speed 400g-8\n   switchport mode trunk\n   switchport trunk allowed vlan 10\n"
            "   service-profile FT_ROCE\n!\n"))
    result = validate_configs(files, checks=[deadlock.CHECK]).report.checks[deadlock.CHECK]
    assert result.status == "failed", (result.status, result.reason)
    errors = [f for f in result.findings if f.severity == "error"]
    assert errors and all("Ethernet50/1" in f.subject for f in errors)
    assert any("head-end replication of VLAN 10 (VNI 10010)" in f.message for f in errors)


def own_prefixes_only(structured):
    """Each leaf exports to its spines only its own networks: a prefix-list route map (validators.policy), the
    remedy a valley-free AS-path policy also gives."""
    for config in structured.values():
        if config["role"] == "spine":
            continue
        entries = [{"seq": 10 * (i + 1), "action": "permit", "prefix": prefix, "ge": None, "le": None, "line": i + 1}
                   for i, prefix in enumerate(config["bgp"]["networks"])]
        config["bgp"]["policy_contents"] = {
            "prefix_lists": {"PL-OWN": entries}, "as_path_lists": {},
            "route_maps": {"RM-OWN": [{"seq": 10, "action": "permit", "line": 50, "prefix_lists": ["PL-OWN"],
                                       "as_path_lists": [], "unsupported": []}]}}
        for neighbor in config["bgp"]["neighbors"]:
            neighbor["policy_refs"] = [{"kind": "route_map", "name": "RM-OWN", "direction": "out", "line": 60}]


def test_a_prefix_list_export_policy_on_the_leaves_removes_the_bounce():
    """Broken case first (the bounce of unique spine ASNs), then the same fabric whose leaves export only their own
    prefixes through a neighbor route map: the leaves no longer carry one spine's traffic to the other."""
    _net, bounced = analyse(compiled(spines=2, leaves=2), unique_spines)
    assert bounced.cycles
    _net, filtered = analyse(compiled(spines=2, leaves=2), chain(unique_spines, own_prefixes_only))
    assert filtered.cycles == [] and filtered.scenarios_examined > 0
