"""The twin's input validation and the expectations it derives from a topology (pure, no root needed)."""

import pytest
from twin_sample_fabric import sample_fabric

from compiler.errors import InputError
from labs.checks import HostPort, classify_pair, expected_ecmp_widths, expected_flood_lists, expected_sessions
from labs.topology import HostInterface, TwinHost, TwinLink, TwinTopology, validate_topology


def test_sample_fabric_is_valid_and_round_trips():
    topology = sample_fabric("fttest1")
    validate_topology(topology)
    again = TwinTopology.from_dict(topology.to_dict())
    assert again == topology and again.digest() == topology.digest()
    assert topology.netns("leaf1") == "fttest1-leaf1"


def test_bad_input_names_every_field_and_value():
    good = sample_fabric("fttest2")
    long_name = "Ethernet1_1_breakout"  # 20 characters: over Linux's 15
    broken = TwinTopology(
        name_prefix="FT!",
        nodes=good.nodes,
        links=[*good.links, TwinLink("leaf1", long_name, "nosuch", "eth9"), TwinLink("leaf1", "eth1", "spine9", "x")],
        hosts=[TwinHost("h9", (HostInterface("eth0", "leaf1", "eth7", "10.10.0.300/24"),))],
    )
    with pytest.raises(InputError) as error:
        validate_topology(broken)
    fields = {(e.field, e.value) for e in error.value.errors}
    assert ("name_prefix", "FT!") in fields
    assert ("links[4].a_ifname", long_name) in fields
    assert ("links[4].b_node", "nosuch") in fields
    assert ("links[5].a_ifname", "leaf1:eth1") in fields  # port already cabled
    assert ("hosts[h9].interfaces[eth0].address", "10.10.0.300/24") in fields


def test_port_in_two_bridges_is_refused():
    topology = sample_fabric("fttest3")
    leaf = topology.nodes_by_name["leaf1"]
    leaf.linux_plan["bridges"][1]["members"] = list(leaf.linux_plan["bridges"][0]["members"])
    with pytest.raises(InputError, match="trunk ports are not supported"):
        validate_topology(topology)


def test_expected_sessions_and_ecmp_follow_the_cabling():
    topology = sample_fabric("fttest4", spines=3, leaves=4)
    sessions = expected_sessions(topology)
    assert sessions["leaf1"] == {"ipv4Unicast": 3, "l2VpnEvpn": 3}
    assert sessions["spine2"] == {"ipv4Unicast": 4, "l2VpnEvpn": 4}
    widths = expected_ecmp_widths(topology)
    assert len(widths) == 4 * 3 and set(widths.values()) == {3}
    # remove one cable: leaf1 now reaches every other leaf over 2 spines only, and they reach it over 2
    cut = TwinTopology(topology.name_prefix, topology.nodes,
                       [link for link in topology.links if (link.a_node, link.b_node) != ("leaf1", "spine3")],
                       topology.hosts)
    widths = expected_ecmp_widths(cut)
    assert widths[("leaf1", "leaf2")] == 2 and widths[("leaf2", "leaf1")] == 2 and widths[("leaf2", "leaf3")] == 3


def test_expected_flood_lists():
    floods = expected_flood_lists(sample_fabric("fttest5", leaves=3))
    assert floods["leaf1"] == {"vx10010": {"10.0.4.102", "10.0.4.103"}, "vx10020": {"10.0.4.102", "10.0.4.103"}}
    assert "spine1" not in floods


def port(host, network, tenant, gateway="10.10.0.1"):
    return HostPort(host, "eth0", "10.10.0.11", "leaf1", network, tenant, gateway, 9000)


def test_classify_pairs_and_static_only_isolation():
    a10, a20, b30 = port("h1", "net10", "A"), port("h2", "net20", "A"), port("h3", "net30", "B")
    assert classify_pair(a10, port("h4", "net10", "A"), vrf_devices=False) == "bridged"
    assert classify_pair(a10, a20, vrf_devices=False) == "routed"
    assert classify_pair(a10, port("h5", "net20", "A", gateway=None), vrf_devices=False) == "unreachable"
    # without kernel VRFs the twin cannot separate tenants: never "passed", always static only
    assert classify_pair(a10, b30, vrf_devices=False) == "static_only"
    assert classify_pair(a10, b30, vrf_devices=True) == "isolated"


def test_ping_sample_keeps_every_class_and_the_limit():
    from labs.checks import sample_pairs

    ports = [HostPort(f"h{i}", "eth0", f"10.{net}.0.{i}", f"leaf{i % 4}", f"net{net}", "A", None, 9000)
             for net in (10, 20) for i in range(1, 21)]
    pairs = [(a, b) for a in ports for b in ports if a.host != b.host]
    sample = sample_pairs(pairs, 40)
    assert len(sample) == 40 and len(set(sample)) == 40
    classes = {(a.network, b.network, a.leaf == b.leaf) for a, b in sample}
    assert len(classes) == 8  # 2 x 2 networks x (same leaf, different leaf)
    assert len({a.host for a, _ in sample}) > 10  # spread over many sources, not h1 -> everyone
    assert sample == sample_pairs(pairs, 40)  # deterministic
    assert sample_pairs(pairs[:5], 40) == pairs[:5]
