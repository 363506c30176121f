"""labs.flowprobe: the flow-count arithmetic (pure), and the probe on a hand-built VXLAN fabric (root + ip netns,
no FRR): two leaves with static ECMP over two spines and a VXLAN tunnel, hosts in one network. With one spine
port at MTU 9000 the largest packet passing on every flow is exactly 9000 - 50 = 8950, with one leaf uplink at
1500 it is 1450; healthy, it is 9000."""

from __future__ import annotations

import subprocess
import uuid

import pytest

from labs import flowprobe
from labs.shell import ip_batch, ns_exec, run


def test_flow_count_bounds_the_chance_of_missing_a_path():
    assert flowprobe.flows_for_paths(1) == 4
    assert flowprobe.flows_for_paths(2) == 22
    assert flowprobe.flows_for_paths(4) == 56
    assert flowprobe.flows_for_paths(64) == flowprobe.MAX_FLOWS  # capped; the report carries the real bound
    for paths in (2, 3, 4, 8, 16):
        flows = flowprobe.flows_for_paths(paths)
        assert flowprobe.miss_probability(paths, flows) <= flowprobe.MISS_PROBABILITY
        assert flowprobe.miss_probability(paths, flows - 1) > flowprobe.MISS_PROBABILITY  # the smallest such count
    assert flowprobe.miss_probability(2, 4) == pytest.approx(0.25)  # why 4 pings never were enough
    assert flowprobe.miss_probability(1, 1) == 0.0


def _vxlan_fabric(prefix: str, small_port: tuple[str, str, int] | None) -> dict[str, str]:
    """host a - leaf1 = (spine1, spine2) = leaf2 - host b; static routes, VXLAN VNI 10 with head-end replication."""
    names = {name: f"{prefix}-{name}" for name in ("a", "b", "leaf1", "leaf2", "spine1", "spine2")}
    ip_batch([f"netns add {ns}" for ns in names.values()])
    cables = [("leaf1", "up1", "spine1", "dn1"), ("leaf1", "up2", "spine2", "dn1"),
              ("leaf2", "up1", "spine1", "dn2"), ("leaf2", "up2", "spine2", "dn2"),
              ("a", "eth0", "leaf1", "srv"), ("b", "eth0", "leaf2", "srv")]
    ip_batch([f"link add {a_if} netns {names[a]} type veth peer name {b_if} netns {names[b]}"
              for a, a_if, b, b_if in cables])
    for router in ("leaf1", "leaf2", "spine1", "spine2"):
        ns_exec(names[router], ["sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv4.fib_multipath_hash_policy=1",
                                "net.ipv4.conf.all.rp_filter=0"])
    commands = {
        "spine1": ["link set dn1 mtu 9214", "link set dn2 mtu 9214",
                   "addr add 10.1.0.0/31 dev dn1", "addr add 10.1.0.4/31 dev dn2",
                   "link set dn1 up", "link set dn2 up",
                   "route add 10.0.4.1/32 via 10.1.0.1", "route add 10.0.4.2/32 via 10.1.0.5"],
        "spine2": ["link set dn1 mtu 9214", "link set dn2 mtu 9214",
                   "addr add 10.1.0.2/31 dev dn1", "addr add 10.1.0.6/31 dev dn2",
                   "link set dn1 up", "link set dn2 up",
                   "route add 10.0.4.1/32 via 10.1.0.3", "route add 10.0.4.2/32 via 10.1.0.7"],
    }
    for leaf, vtep, remote, up1, up2, spine1_ip, spine2_ip in (
            ("leaf1", "10.0.4.1", "10.0.4.2", "10.1.0.1", "10.1.0.3", "10.1.0.0", "10.1.0.2"),
            ("leaf2", "10.0.4.2", "10.0.4.1", "10.1.0.5", "10.1.0.7", "10.1.0.4", "10.1.0.6")):
        commands[leaf] = [
            "link set lo up", f"addr add {vtep}/32 dev lo",
            "link set up1 mtu 9214", "link set up2 mtu 9214", f"addr add {up1}/31 dev up1",
            f"addr add {up2}/31 dev up2", "link set up1 up", "link set up2 up",
            f"route add {remote}/32 nexthop via {spine1_ip} dev up1 nexthop via {spine2_ip} dev up2",
            "link add br10 type bridge stp_state 0", "link set br10 mtu 9000",
            f"link add vx10 mtu 9164 type vxlan id 10 local {vtep} dstport 4789 nolearning df set",
            "link set vx10 master br10", "link set srv mtu 9000", "link set srv master br10",
            "link set vx10 up", "link set srv up", "link set br10 up"]
    for host, address in (("a", "10.10.0.1/24"), ("b", "10.10.0.2/24")):
        commands[host] = ["link set lo up", "link set eth0 mtu 9000", f"addr add {address} dev eth0",
                          "link set eth0 up"]
    if small_port:
        node, ifname, mtu = small_port
        commands[node].append(f"link set {ifname} mtu {mtu}")
    for node, batch in commands.items():
        ip_batch(batch, netns=names[node])
    for leaf, remote in (("leaf1", "10.0.4.2"), ("leaf2", "10.0.4.1")):
        run(["bridge", "-n", names[leaf], "fdb", "append", "00:00:00:00:00:00", "dev", "vx10", "dst", remote])
    return names


@pytest.fixture
def vxlan_fabric(twin_required):
    created: list[dict[str, str]] = []

    def build(small_port: tuple[str, str, int] | None) -> dict[str, str]:
        names = _vxlan_fabric("ftp" + uuid.uuid4().hex[:6], small_port)
        created.append(names)
        return names

    yield build
    for names in created:
        for namespace in names.values():
            subprocess.run(["ip", "netns", "del", namespace], check=False)


@pytest.mark.twin
@pytest.mark.parametrize(("small_port", "largest"), [
    (None, 9000),
    (("spine1", "dn1", 9000), 8950),  # dropped silently where the spine's port receives (veth checks the MTU)
    (("leaf1", "up1", 1500), 1450),  # the VXLAN device answers "fragmentation needed": an ICMP error per flow
])
def test_probe_finds_the_smallest_ecmp_path(vxlan_fabric, small_port, largest):
    names = vxlan_fabric(small_port)
    flows = flowprobe.flows_for_paths(2)
    leaves = [names["leaf1"], names["leaf2"]]
    searched = flowprobe.probe(names["a"], names["b"], "10.10.0.2", flows=flows, flush_netns=leaves,
                               search={"predicted": 9000, "floor": 576, "ceiling": 9000})
    print(f"\nsmall port {small_port}: {searched}")
    assert searched["reachable"] and searched["largest"] == largest
    sized = flowprobe.probe(names["a"], names["b"], "10.10.0.2", flows=flows, flush_netns=leaves,
                            sizes=[largest, largest + 1])
    assert sized["sizes"][str(largest)] == flows  # every flow, both ways
    assert sized["sizes"][str(largest + 1)] < flows
    if largest == 9000:
        assert "Message too long" in sized["local_errors"]  # 9001 does not even leave the 9000-byte host
    # the probe leaves nothing behind: no process of its own in any namespace
    assert all(not run(["ip", "netns", "pids", ns]).stdout.strip() for ns in names.values())


@pytest.mark.twin
def test_unreachable_destination_is_zero_not_an_error(vxlan_fabric):
    names = vxlan_fabric(None)
    result = flowprobe.probe(names["a"], names["b"], "10.10.0.99", flows=4, flush_netns=[],
                             search={"predicted": 9000})
    assert (result["reachable"], result["largest"]) == (False, 0)
