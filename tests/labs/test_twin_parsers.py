"""Parsers of the twin's collectors, on JSON/text captured from a real 2x2 twin (tests/labs/data/)."""

import json
from pathlib import Path

from labs import collectors

DATA = Path(__file__).parent / "data"


def load(name):
    text = (DATA / name).read_text()
    return json.loads(text) if name.endswith(".json") else text


def test_bgp_summary_all_established():
    sessions = collectors.parse_bgp_summary(load("leaf1_bgp_summary.json"))
    assert {(s.afi, s.peer) for s in sessions} == {
        ("ipv4Unicast", "10.1.0.0"), ("ipv4Unicast", "10.1.0.4"), ("l2VpnEvpn", "10.1.0.0"), ("l2VpnEvpn", "10.1.0.4")}
    assert all(session.established for session in sessions)
    assert {s.peer_hostname for s in sessions} == {"spine1", "spine2"}


def test_bgp_summary_detects_down_session():
    sessions = collectors.parse_bgp_summary(load("leaf1_bgp_summary_one_down.json"))
    down = sorted((s.afi, s.peer, s.state) for s in sessions if not s.established)
    assert down == [("ipv4Unicast", "10.1.0.4", "Idle"), ("l2VpnEvpn", "10.1.0.4", "Idle")]


def test_spine_summary_has_no_vni_but_evpn_sessions():
    sessions = collectors.parse_bgp_summary(load("spine1_bgp_summary.json"))
    assert {s.afi for s in sessions} == {"ipv4Unicast", "l2VpnEvpn"}
    assert len([s for s in sessions if s.established]) == 4


def test_kernel_routes_ecmp_width():
    routes = collectors.parse_kernel_routes(load("leaf1_kernel_routes.json"))
    # remote VTEP and loopback over both spines, spine loopbacks over one link each
    assert collectors.ecmp_width(routes, "10.0.4.102/32") == 2
    assert collectors.ecmp_width(routes, "10.0.4.102") == 2
    assert collectors.ecmp_width(routes, "10.0.0.1/32") == 1
    assert [hop.dev for hop in routes["10.0.4.102/32"]] == ["eth1", "eth2"]
    assert collectors.ecmp_width(routes, "10.0.4.199/32") == 0  # no route at all


def test_rib_counts_fib_nexthops():
    rib = collectors.parse_ip_route(load("leaf1_ip_route.json"))
    assert rib["10.0.4.102/32"] == 2
    assert rib["10.0.0.1/32"] == 1


def test_links_mtu_and_kind():
    links = collectors.parse_links(load("leaf1_links_detail.json"))
    assert links["eth1"].mtu == 9216 and links["eth1"].kind == "veth" and links["eth1"].up
    assert links["vx10010"].mtu == 9166 and links["vx10010"].kind == "vxlan" and links["vx10010"].master == "br10"
    assert links["br10"].kind == "bridge" and links["br10"].mtu == 9000
    plain = collectors.parse_links(load("leaf1_links.json"))  # without -d: no kind, MTUs still there
    assert plain["eth1"].mtu == 9216


def test_evpn_vni_and_routes():
    vnis = collectors.parse_evpn_vni(load("leaf1_evpn_vni.json"))
    assert set(vnis) == {10010, 10020}
    assert vnis[10010].remote_vteps == ("10.0.4.102",) and vnis[10010].vxlan_if == "vx10010"
    types = collectors.parse_evpn_route_types(load("leaf1_evpn_routes.json"))
    assert types[3] == 4  # one inclusive-multicast route per VTEP per VNI: 2 VTEPs x 2 VNIs
    assert types[2] >= 2  # MAC (and MAC+IP) routes of the hosts


def test_flood_lists_only_all_zero_mac():
    floods = collectors.parse_flood_lists(load("leaf1_fdb.json"))
    assert floods == {"vx10010": {"10.0.4.102"}, "vx10020": {"10.0.4.102"}}


def test_ping_success():
    result = collectors.parse_ping(load("ping_ok.txt"))
    assert result.ok and (result.transmitted, result.received) == (3, 3)
    assert len(result.reply_times) == 3 and 0.1 < result.largest_gap_s < 0.3


def test_ping_df_too_big_is_a_local_error_not_a_pass():
    result = collectors.parse_ping(load("ping_df_too_big.txt"))
    assert not result.ok and not result.any_reply
    assert result.errors == 1 and result.local_error == "message too long, mtu=9000"


def test_ping_outage_is_the_largest_reply_gap():
    result = collectors.parse_ping(load("ping_outage.txt"))
    assert result.transmitted == 1000 and result.received == 843
    # both uplinks of leaf1 were down for 300 ms, then BGP needed ~1.3 s to bring the routes back (captured
    # 1.6 s): the largest gap shows the outage, while the 157 lost pings x 2 ms would claim only ~0.3 s
    assert 1.0 < result.largest_gap_s < 3.0
    times = result.reply_times
    assert sorted(b - a for a, b in zip(times, times[1:], strict=False))[len(times) // 2] < 0.01


def test_ping_args_ipv6_link_local_and_df():
    args = collectors.ping_args("fe80::1%eth1", count=1, size=9168, dont_fragment=True, interface="eth1")
    assert args[:2] == ["ping", "-6"] and ["-M", "do"] == args[args.index("-M"):args.index("-M") + 2]
    assert args[-1] == "fe80::1%eth1" and "-s" in args and "9168" in args


def test_bfd_peers_up_and_down():
    assert all(peer.up for peer in collectors.parse_bfd_peers(load("leaf1_bfd_peers_up.json")))
    down = [(p.interface, p.status) for p in collectors.parse_bfd_peers(load("leaf1_bfd_peers_one_down.json"))
            if not p.up]
    assert down == [("swp64", "down")]


def test_outage_until_the_end_of_the_flow_counts():
    """A flow that never recovers has no reply after the cut: the gap to the last send is the outage."""
    result = collectors.parse_ping(load("ping_ok.txt"))  # replies at +0, +0.2, +0.4 s
    first = result.reply_times[0]
    assert result.largest_gap_s < 0.3
    result.first_send, result.last_send = first - 0.01, first + 3.0
    assert 2.5 < result.largest_gap_s < 2.7


def test_link_counters_of_a_switch_and_its_tenant_namespace():
    """``ip -s -j link show`` of leaf1 and of its TENANT_A namespace after 200 pings of 3,000 bytes h1 -> h2."""
    fabric = collectors.parse_link_counters(load("leaf1_link_stats.json"))
    tenant = collectors.parse_link_counters(load("leaf1_tenant_link_stats.json"))
    assert set(fabric) == {"lo", "eth1", "eth2"} and set(tenant) == {"lo", "vx10010", "br10", "eth3"}
    # the flow hashed to eth2 one way and came back on eth1; the host port carried it both ways
    assert fabric["eth2"].tx_packets == 224 and fabric["eth2"].tx_bytes == 621421
    assert fabric["eth1"].rx_packets == 224 and fabric["eth1"].tx_packets == 26
    assert tenant["eth3"].rx_packets >= 200 and tenant["eth3"].tx_packets >= 200
    assert tenant["eth3"].tx_bytes > 200 * 3000
    assert collectors.parse_link_counters([{"ifname": "eth9"}])["eth9"] == collectors.LinkCounters()

