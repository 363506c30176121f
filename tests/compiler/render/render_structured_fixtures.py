"""Hand-built structured configs (docs/structured-config.md) for the renderer tests and the render benchmark.

A leaf with two tenants (A: VLAN 10 / VRF TENANT_A, B: VLAN 20 / VRF TENANT_B), two lossless RoCE classes
(DSCP 26 -> priority 3, DSCP 34 -> priority 4) plus CNP on DSCP 48, and a spine relaying EVPN. Interface names
follow the platform: EOS ``Ethernet1``..., SONiC ``Ethernet0``, ``Ethernet8``... (8 lanes per 400G port: the
DCS-7060DX5-64S, whose SONiC HWSKU Arista-7060DX5-64S has exactly these names, compiler/platforms/data).
"""

from __future__ import annotations

import copy

ROCE_ECN = {"min_bytes": 153600, "max_bytes": 1536000, "probability": 10}
ROCE2_ECN = {"min_bytes": 204800, "max_bytes": 2048000, "probability": 20}
HEADROOM_3M = {"xoff_bytes": 118000, "xon_bytes": 18432, "size_bytes": 136432, "policy": "dynamic"}
HEADROOM_5M = {"xoff_bytes": 121000, "xon_bytes": 18432, "size_bytes": 139432, "policy": "dynamic"}


def port_name(platform: str, index: int) -> str:
    """The index-th front-panel port (1-based) as the platform names it."""
    return f"Ethernet{(index - 1) * 8}" if platform == "sonic" else f"Ethernet{index}"


def roce_port_qos(headroom: dict) -> dict:
    return {
        "trust": "dscp",
        "pfc_priorities": [3, 4],
        "pfc_watchdog": True,
        "ecn": {"3": dict(ROCE_ECN), "4": dict(ROCE2_ECN)},
        "headroom": {"3": dict(headroom), "4": dict(headroom)},
    }


def device_qos() -> dict:
    return {
        "trust": "dscp",
        "dscp_to_tc": {"26": 3, "34": 4, "48": 6},
        "tc_to_queue": {"0": 0, "3": 3, "4": 4, "6": 6},
        "tc_to_priority_group": {"0": 0, "3": 3, "4": 4, "6": 0},
        "tc_to_priority": {"0": 0, "3": 3, "4": 4, "6": 6},
        "classes": [
            {"name": "roce", "dscp": [26], "traffic_class": 3, "priority": 3, "queue": 3, "lossless": True,
             "ecn": dict(ROCE_ECN)},
            {"name": "roce_storage", "dscp": [34], "traffic_class": 4, "priority": 4, "queue": 4, "lossless": True,
             "ecn": dict(ROCE2_ECN)},
        ],
        "lossless_priorities": [3, 4],
        "cnp": {"dscp": 48, "priority": 6, "traffic_class": 6},
        "pfc_watchdog": {"enabled": True, "detect_ms": 200, "restore_ms": 400, "action": "drop"},
        "scheduling": {"0": {"mode": "dwrr", "weight_percent": 20}, "3": {"mode": "dwrr", "weight_percent": 40},
                       "4": {"mode": "dwrr", "weight_percent": 40}, "6": {"mode": "strict"}},
    }


# The hardware block of a DCS-7060DX5-64S (Broadcom Tomahawk 4, compiler.catalog).
TOMAHAWK4 = {"model": "DCS-7060DX5-64S", "asic": "Broadcom Tomahawk 4", "asic_family": "strata"}

MODEL = "DCS-7060DX5-64S"


def management(address: str, platform: str = "sonic") -> dict:
    return {"interface": "Management1" if platform == "eos" else "eth0", "vrf": "mgmt", "address": address, "gateway": "172.16.255.254",
            "ntp_servers": ["192.0.2.10"], "syslog_servers": ["192.0.2.20"], "dns_servers": ["192.0.2.53"],
            "aaa": None}


def fabric_interface(platform, index, ip, peer, peer_port, cable, length_m, headroom) -> dict:
    return {
        "name": port_name(platform, index), "kind": "fabric", "speed_gbps": 400, "lanes": 8, "mtu": 9214,
        "enabled": True,
        "description": f"P2P {peer} {peer_port}", "peer_device": peer, "peer_interface": peer_port,
        "cable": cable, "cable_length_m": length_m, "ip": ip, "unnumbered": False,
        "access_vlan": None, "trunk_vlans": [], "qos": roce_port_qos(headroom),
    }


def leaf_structured(platform: str = "eos") -> dict:
    """leaf1: 2 uplinks, one access and one trunk server port, one unused port; tenants A and B."""
    peer_port = "Ethernet1" if platform == "eos" else "Ethernet0"
    interfaces = [
        fabric_interface(platform, 1, "10.1.0.1/31", "spine1", peer_port, "C0001", 3.0, HEADROOM_3M),
        fabric_interface(platform, 2, "10.1.0.3/31", "spine2", peer_port, "C0002", 4.2, HEADROOM_5M),
        {
            "name": port_name(platform, 17), "kind": "server", "speed_gbps": 400, "lanes": 8, "mtu": 9214,
            "enabled": True,
            "description": "gpu01 eth0", "peer_device": "gpu01", "peer_interface": "eth0", "cable": "C0101",
            "cable_length_m": 2.0, "ip": None, "unnumbered": False, "access_vlan": 10, "trunk_vlans": [],
            "qos": roce_port_qos(HEADROOM_3M),
        },
        {
            "name": port_name(platform, 18), "kind": "server", "speed_gbps": 400, "lanes": 8, "mtu": 9214,
            "enabled": True,
            "description": "gpu02 eth0", "peer_device": "gpu02", "peer_interface": "eth0", "cable": "C0102",
            "cable_length_m": 2.0, "ip": None, "unnumbered": False, "access_vlan": None, "trunk_vlans": [10, 20],
            "qos": roce_port_qos(HEADROOM_3M),
        },
        {
            "name": port_name(platform, 32), "kind": "unused", "speed_gbps": 400, "lanes": 8, "mtu": 9214,
            "enabled": False,
            "description": "unused", "peer_device": None, "peer_interface": None, "cable": None,
            "cable_length_m": None, "ip": None, "unnumbered": False, "access_vlan": None, "trunk_vlans": [],
            "qos": {},
        },
    ]
    neighbors = [
        {"address": "10.1.0.0", "interface": interfaces[0]["name"], "remote_as": 65000, "peer_device": "spine1",
         "peer_interface": peer_port, "peer_group": "UNDERLAY", "address_families": ["ipv4_unicast", "l2vpn_evpn"],
         "description": f"spine1_{peer_port}"},
        {"address": "10.1.0.2", "interface": interfaces[1]["name"], "remote_as": 65000, "peer_device": "spine2",
         "peer_interface": peer_port, "peer_group": "UNDERLAY", "address_families": ["ipv4_unicast", "l2vpn_evpn"],
         "description": f"spine2_{peer_port}"},
    ]
    return {
        "hostname": "leaf1",
        "role": "leaf",
        "platform": platform,
        "model": MODEL,
        "hardware": dict(TOMAHAWK4),
        "system_mac": "02:00:00:00:00:03",
        "management": management("172.16.1.1/16", platform),
        "asn": 65101,
        "router_id": "10.0.0.3",
        "mtu": {"underlay": 9214, "host": 9000},
        "loopbacks": [
            {"name": "Loopback0", "ip": "10.0.0.3/32", "purpose": "router_id"},
            {"name": "Loopback1", "ip": "10.0.4.3/32", "purpose": "vtep"},
        ],
        "interfaces": interfaces,
        "bgp": {
            "asn": 65101, "router_id": "10.0.0.3", "maximum_paths": 64, "keepalive_s": 3, "hold_s": 9, "bfd": True,
            "peer_groups": [{"name": "UNDERLAY", "remote_as": "external", "bfd": True,
                             "address_families": ["ipv4_unicast", "l2vpn_evpn"]}],
            "neighbors": neighbors,
            "networks": ["10.0.0.3/32", "10.0.4.3/32"],
            "evpn": {"enabled": True, "advertise_all_vni": True},
            "vrfs": [
                {"name": "TENANT_A", "rd": "10.0.0.3:50001", "l3vni": 50001,
                 "route_targets": {"import": ["50001:50001"], "export": ["50001:50001"]}},
                {"name": "TENANT_B", "rd": "10.0.0.3:50002", "l3vni": 50002,
                 "route_targets": {"import": ["50002:50002"], "export": ["50002:50002"]}},
            ],
        },
        "vlans": [
            {"id": 10, "name": "net10", "network": "net10", "vni": 10010, "tenant": "A", "vrf": "TENANT_A",
             "rd": "10.0.0.3:10010", "route_targets": {"import": ["10010:10010"], "export": ["10010:10010"]},
             "svi": {"ip": "10.10.0.1/24", "mac": "00:1c:73:00:00:99", "mtu": 9000}},
            {"id": 20, "name": "net20", "network": "net20", "vni": 10020, "tenant": "B", "vrf": "TENANT_B",
             "rd": "10.0.0.3:10020", "route_targets": {"import": ["10020:10020"], "export": ["10020:10020"]},
             "svi": {"ip": "10.20.0.1/24", "mac": "00:1c:73:00:00:99", "mtu": 9000}},
        ],
        "vrfs": [
            {"name": "TENANT_A", "tenant": "A", "l3vni": 50001, "transit_vlan": 3001, "linux_table": 1001},
            {"name": "TENANT_B", "tenant": "B", "l3vni": 50002, "transit_vlan": 3002, "linux_table": 1002},
        ],
        "vxlan": {
            "source_interface": "Loopback1", "vtep_ip": "10.0.4.3", "udp_port": 4789, "mtu": 9164,
            "vlan_vnis": {"10": 10010, "20": 10020},
            "vrf_vnis": {"TENANT_A": 50001, "TENANT_B": 50002},
            "flood_lists": {"10010": ["10.0.4.4"], "10020": ["10.0.4.4"]},
        },
        "qos": device_qos(),
    }


def spine_structured(platform: str = "eos") -> dict:
    """spine1: two leaf-facing fabric links, EVPN relay (no VNIs of its own)."""
    peer_port = "Ethernet1" if platform == "eos" else "Ethernet0"
    interfaces = [
        fabric_interface(platform, 1, "10.1.0.0/31", "leaf1", peer_port, "C0001", 3.0, HEADROOM_3M),
        fabric_interface(platform, 2, "10.1.0.4/31", "leaf2", peer_port, "C0003", 3.0, HEADROOM_3M),
    ]
    neighbors = [
        {"address": "10.1.0.1", "interface": interfaces[0]["name"], "remote_as": 65101, "peer_device": "leaf1",
         "peer_interface": peer_port, "peer_group": "UNDERLAY", "address_families": ["ipv4_unicast", "l2vpn_evpn"],
         "description": f"leaf1_{peer_port}"},
        {"address": "10.1.0.5", "interface": interfaces[1]["name"], "remote_as": 65102, "peer_device": "leaf2",
         "peer_interface": peer_port, "peer_group": "UNDERLAY", "address_families": ["ipv4_unicast", "l2vpn_evpn"],
         "description": f"leaf2_{peer_port}"},
    ]
    return {
        "hostname": "spine1",
        "role": "spine",
        "platform": platform,
        "model": MODEL,
        "hardware": dict(TOMAHAWK4),
        "system_mac": "02:00:00:00:00:01",
        "management": management("172.16.0.1/16", platform),
        "asn": 65000,
        "router_id": "10.0.0.1",
        "mtu": {"underlay": 9214, "host": 9000},
        "loopbacks": [{"name": "Loopback0", "ip": "10.0.0.1/32", "purpose": "router_id"}],
        "interfaces": interfaces,
        "bgp": {
            "asn": 65000, "router_id": "10.0.0.1", "maximum_paths": 64, "keepalive_s": 3, "hold_s": 9, "bfd": True,
            "peer_groups": [{"name": "UNDERLAY", "remote_as": "external", "bfd": True,
                             "address_families": ["ipv4_unicast", "l2vpn_evpn"]}],
            "neighbors": neighbors,
            "networks": ["10.0.0.1/32"],
            "evpn": {"enabled": True, "advertise_all_vni": False},
            "vrfs": [],
        },
        "vlans": [],
        "vrfs": [],
        "vxlan": {},
        "qos": device_qos(),
    }


def widen(structured: dict, ports: int) -> dict:
    """The device with ``ports`` front-panel ports: extra ports copy its last RoCE-enabled port (a full switch)."""
    platform = structured["platform"]
    wide = copy.deepcopy(structured)
    used = {interface["name"] for interface in wide["interfaces"]}
    model = next(interface for interface in reversed(wide["interfaces"]) if interface["qos"])
    for index in range(1, ports + 1):
        name = port_name(platform, index)
        if name not in used:
            wide["interfaces"].append({**copy.deepcopy(model), "name": name, "description": f"copy {index}"})
    wide["interfaces"].sort(key=lambda interface: int(interface["name"].removeprefix("Ethernet")))
    return wide


def synthetic_fleet(count: int, platform: str, ports: int = 64) -> list[dict]:
    """``count`` renamed ``ports``-port copies alternating leaf and spine, for the render speed measurement."""
    templates = (widen(leaf_structured(platform), ports), widen(spine_structured(platform), ports))
    fleet = []
    for number in range(count):
        device = copy.deepcopy(templates[number % 2])
        device["hostname"] = f"{device['role']}{number}"
        fleet.append(device)
    return fleet
