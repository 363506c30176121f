"""A hand-written sample fabric for the twin tests (independent of the compiler).

S spines x L leaves, numbered eBGP on /31s, EVPN with two L2VNIs (net10 = VNI 10010, net20 = VNI 10020) in one
tenant, asymmetric IRB with an anycast gateway. Host h<j> sits on leaf<j> in net10; one extra host ``h<L>b`` on
the last leaf is in net20 so routing between networks is exercised across leaves. The FRR config follows the one
that worked in docs/twin-notes.md. MTUs: underlay 9216, VXLAN 9166 (underlay - 50, RFC 7348 over IPv4),
hosts 9000.
"""

from __future__ import annotations

from labs.topology import HostInterface, TwinHost, TwinLink, TwinNode, TwinTopology, new_prefix

UNDERLAY_MTU = 9216
VXLAN_MTU = UNDERLAY_MTU - 50
HOST_MTU = 9000
SPINE_ASN = 65000
GATEWAY_MAC = "00:1c:73:00:00:99"
NETWORKS = {"net10": (10, 10010, "10.10.0"), "net20": (20, 10020, "10.20.0")}


def _p2p(spine: int, leaf: int, leaves: int) -> tuple[str, str]:
    """/31 for spine<s> <-> leaf<l>: spine gets the even address."""
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


def sample_fabric(prefix: str | None = None, spines: int = 2, leaves: int = 2,
                  link_mtu_override: dict[tuple[str, str], int] | None = None) -> TwinTopology:
    """``link_mtu_override`` {(node, ifname): mtu} plants a wrong MTU in one node's Linux plan (broken config)."""
    override = link_mtu_override or {}
    nodes, links, hosts = [], [], []
    spine_ports: dict[int, list[dict]] = {s: [] for s in range(1, spines + 1)}
    for leaf in range(1, leaves + 1):
        leaf_name, loopback, vtep = f"leaf{leaf}", f"10.0.0.{100 + leaf}", f"10.0.4.{100 + leaf}"
        ports, neighbors = [], []
        for spine in range(1, spines + 1):
            spine_ip, leaf_ip = _p2p(spine, leaf, leaves)
            leaf_port, spine_port = f"eth{spine}", f"eth{leaf}"
            links.append(TwinLink(leaf_name, leaf_port, f"spine{spine}", spine_port, mtu=UNDERLAY_MTU))
            ports.append({"name": leaf_port, "source_name": f"Ethernet{spine}", "kind": "fabric",
                          "mtu": override.get((leaf_name, leaf_port), UNDERLAY_MTU), "address": f"{leaf_ip}/31"})
            spine_ports[spine].append({"name": spine_port, "source_name": f"Ethernet{leaf}", "kind": "fabric",
                                       "mtu": override.get((f"spine{spine}", spine_port), UNDERLAY_MTU),
                                       "address": f"{spine_ip}/31"})
            neighbors.append(spine_ip)
        host_port = f"eth{spines + 1}"
        ports.append({"name": host_port, "source_name": f"Ethernet{spines + 1}", "kind": "server", "mtu": HOST_MTU,
                      "address": None})
        members = {"net10": [host_port], "net20": []}
        hosts.append(TwinHost(f"h{leaf}", (HostInterface("eth0", leaf_name, host_port, f"10.10.0.{10 + leaf}/24",
                                                         "10.10.0.1", HOST_MTU, "net10", "A"),)))
        if leaf == leaves:
            extra_port = f"eth{spines + 2}"
            ports.append({"name": extra_port, "source_name": f"Ethernet{spines + 2}", "kind": "server",
                          "mtu": HOST_MTU, "address": None})
            members["net20"].append(extra_port)
            hosts.append(TwinHost(f"h{leaf}b", (HostInterface("eth0", leaf_name, extra_port, f"10.20.0.{10 + leaf}/24",
                                                              "10.20.0.1", HOST_MTU, "net20", "A"),)))
        bridges = [
            {"name": f"br{vlan}", "vlan": vlan, "mtu": HOST_MTU, "members": members[network],
             "vxlan": {"name": f"vx{vni}", "vni": vni, "local": vtep, "dstport": 4789, "mtu": VXLAN_MTU},
             "svi": {"address": f"{subnet}.1/24", "mac": GATEWAY_MAC}, "vrf": "TENANT_A"}
            for network, (vlan, vni, subnet) in NETWORKS.items()
        ]
        plan = {"hostname": leaf_name, "sysctls": {"net.ipv4.ip_forward": "1"},
                "loopback_addresses": [f"{loopback}/32", f"{vtep}/32"], "links": ports, "bridges": bridges,
                "vrfs": []}
        conf = _frr_conf(leaf_name, 65100 + leaf, loopback, neighbors, [f"{loopback}/32", f"{vtep}/32"], vteps=True)
        nodes.append(TwinNode(leaf_name, conf, plan, role="leaf"))
    for spine in range(1, spines + 1):
        spine_name, loopback = f"spine{spine}", f"10.0.0.{spine}"
        neighbors = [_p2p(spine, leaf, leaves)[1] for leaf in range(1, leaves + 1)]
        plan = {"hostname": spine_name, "sysctls": {"net.ipv4.ip_forward": "1"},
                "loopback_addresses": [f"{loopback}/32"], "links": spine_ports[spine], "bridges": [], "vrfs": []}
        conf = _frr_conf(spine_name, SPINE_ASN, loopback, neighbors, [f"{loopback}/32"], vteps=False)
        nodes.insert(spine - 1, TwinNode(spine_name, conf, plan, role="spine"))
    return TwinTopology(name_prefix=prefix or new_prefix(), nodes=nodes, links=links, hosts=hosts,
                        label=f"sample {spines}x{leaves}")
