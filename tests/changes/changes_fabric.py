"""A hand-written S x L fabric for the change-pipeline twin tests, as ChangeSet-ready per-node config files.

Numbered eBGP on /31s, EVPN L2VNIs with asymmetric IRB (anycast gateway), one host per leaf in the first network.
It follows the FRR config that worked in docs/twin-notes.md; MTUs: underlay 9216, VXLAN 9166 (underlay
minus 50 bytes of outer headers, RFC 7348 over IPv4), hosts 9000. ``networks`` lets a test add a network with a
new VNI (the "good change"); ``leaf_asn_override`` plants an ASN error (the "bad change").
"""

from __future__ import annotations

import json

from labs.topology import HostInterface, TwinHost, TwinLink, TwinNode, TwinTopology

UNDERLAY_MTU = 9216
VXLAN_MTU = UNDERLAY_MTU - 50
HOST_MTU = 9000
SPINE_ASN = 65000
GATEWAY_MAC = "00:1c:73:00:00:99"
BASE_NETWORKS = {"net10": (10, 10010, "10.10.0")}


def _p2p(spine: int, leaf: int, leaves: int) -> tuple[str, str]:
    base = 2 * ((spine - 1) * leaves + (leaf - 1))
    return f"10.1.{base // 256}.{base % 256}", f"10.1.{(base + 1) // 256}.{(base + 1) % 256}"


def _frr_conf(hostname: str, asn: int, router_id: str, neighbors: list[str], networks: list[str], vteps: bool) -> str:
    lines = [
        "frr defaults datacenter",
        f"hostname {hostname}",
        "service integrated-vtysh-config",
        "no zebra nexthop kernel enable",
        "!",
        f"router bgp {asn}",
        f" bgp router-id {router_id}",
        " no bgp ebgp-requires-policy",
        " bgp bestpath as-path multipath-relax",
        " neighbor FABRIC peer-group",
        " neighbor FABRIC remote-as external",
        " neighbor FABRIC advertisement-interval 0",
        " neighbor FABRIC timers 3 9",
        " neighbor FABRIC timers connect 2",
        *(f" neighbor {address} peer-group FABRIC" for address in neighbors),
        " !",
        " address-family ipv4 unicast",
        *(f"  network {prefix}" for prefix in networks),
        "  maximum-paths 64",
        " exit-address-family",
        " !",
        " address-family l2vpn evpn",
        "  neighbor FABRIC activate",
        *(["  advertise-all-vni"] if vteps else []),
        " exit-address-family",
        "!",
    ]
    return "\n".join(lines) + "\n"


def fabric(prefix: str, spines: int = 2, leaves: int = 2, networks: dict | None = None,
           leaf_asn_override: dict[str, int] | None = None, port_mtu_override: dict[tuple[str, str], int] | None = None
           ) -> tuple[TwinTopology, dict[str, dict[str, str]], dict]:
    """(topology to boot, {node: {"frr.conf": ..., "linux-plan.json": ...}}, {node: role})."""
    networks = networks or BASE_NETWORKS
    asn_override = leaf_asn_override or {}
    mtu_override = port_mtu_override or {}
    nodes, links, hosts = [], [], []
    spine_ports: dict[int, list[dict]] = {s: [] for s in range(1, spines + 1)}
    for leaf in range(1, leaves + 1):
        leaf_name, loopback, vtep = f"leaf{leaf}", f"10.0.0.{100 + leaf}", f"10.0.4.{100 + leaf}"
        ports, neighbors = [], []
        for spine in range(1, spines + 1):
            spine_ip, leaf_ip = _p2p(spine, leaf, leaves)
            links.append(TwinLink(leaf_name, f"eth{spine}", f"spine{spine}", f"eth{leaf}", mtu=UNDERLAY_MTU))
            ports.append({"name": f"eth{spine}", "source_name": f"Ethernet{spine}", "kind": "fabric",
                          "mtu": mtu_override.get((leaf_name, f"eth{spine}"), UNDERLAY_MTU), "address": f"{leaf_ip}/31"})
            spine_ports[spine].append({"name": f"eth{leaf}", "source_name": f"Ethernet{leaf}", "kind": "fabric",
                                       "mtu": UNDERLAY_MTU, "address": f"{spine_ip}/31"})
            neighbors.append(spine_ip)
        host_port = f"eth{spines + 1}"
        ports.append({"name": host_port, "source_name": f"Ethernet{spines + 1}", "kind": "server", "mtu": HOST_MTU,
                      "address": None})
        first_network = next(iter(networks))
        hosts.append(TwinHost(f"h{leaf}", (HostInterface("eth0", leaf_name, host_port,
                                                         f"{networks[first_network][2]}.{10 + leaf}/24",
                                                         f"{networks[first_network][2]}.1", HOST_MTU,
                                                         first_network, "A"),)))
        bridges = [
            {"name": f"br{vlan}", "vlan": vlan, "mtu": HOST_MTU, "members": [host_port] if name == first_network else [],
             "vxlan": {"name": f"vx{vni}", "vni": vni, "local": vtep, "dstport": 4789, "mtu": VXLAN_MTU},
             "svi": {"address": f"{subnet}.1/24", "mac": GATEWAY_MAC}, "vrf": "TENANT_A"}
            for name, (vlan, vni, subnet) in networks.items()
        ]
        plan = {"hostname": leaf_name, "sysctls": {"net.ipv4.ip_forward": "1"},
                "loopback_addresses": [f"{loopback}/32", f"{vtep}/32"], "links": ports, "bridges": bridges,
                "vrfs": []}
        asn = asn_override.get(leaf_name, 65100 + leaf)
        conf = _frr_conf(leaf_name, asn, loopback, neighbors, [f"{loopback}/32", f"{vtep}/32"], vteps=True)
        nodes.append(TwinNode(leaf_name, conf, plan, role="leaf"))
    for spine in range(1, spines + 1):
        spine_name, loopback = f"spine{spine}", f"10.0.0.{spine}"
        neighbors = [_p2p(spine, leaf, leaves)[1] for leaf in range(1, leaves + 1)]
        plan = {"hostname": spine_name, "sysctls": {"net.ipv4.ip_forward": "1"},
                "loopback_addresses": [f"{loopback}/32"], "links": spine_ports[spine], "bridges": [], "vrfs": []}
        conf = _frr_conf(spine_name, SPINE_ASN, loopback, neighbors, [f"{loopback}/32"], vteps=False)
        nodes.insert(spine - 1, TwinNode(spine_name, conf, plan, role="spine"))
    topology = TwinTopology(name_prefix=prefix, nodes=nodes, links=links, hosts=hosts, label=f"changes {spines}x{leaves}")
    files = {node.name: {"frr.conf": node.frr_conf, "linux-plan.json": json.dumps(node.linux_plan, indent=2,
                                                                                   sort_keys=True) + "\n"}
             for node in nodes}
    roles = {node.name: node.role for node in nodes}
    return topology, files, roles
